//! The design search as a whole: which method answers the exact-total question for a space,
//! and where the searches start.

use super::exhaustive::{self, Valued};
use super::local::{self, LocalOptions};
use super::score::Scorer;
use super::{Letters, Space};
use crate::rules::game::Game;
use crate::rules::table::FeedbackTable;
use crate::rules::word::BOARD;

/// How the exact-total search ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Branch and bound over every string: a proof when it finished.
    Exhaustive,
    /// Iterated local search: the best found, not a proof.
    Local,
}

/// Limits of the exact-total search.
#[derive(Debug, Clone, Copy)]
pub struct TotalOptions {
    /// Strings to report.
    pub top: usize,
    /// Spaces of at most this many strings are searched exhaustively.
    pub exhaustive_limit: f64,
    /// Partial strings the exhaustive search may bound before giving up its proof.
    pub node_limit: Option<u64>,
    /// Kicks of the local search.
    pub kicks: usize,
    /// Seed of the local search.
    pub seed: u64,
}

/// The answer to "which string is best by exact total?".
#[derive(Debug, Clone)]
pub struct TotalResult {
    /// The best strings, best first, with exact totals.
    pub top: Vec<Valued>,
    /// True when no string does better than the first of `top`.
    pub proven: bool,
    /// A proven lower bound on every string's total.
    pub lower_bound: u32,
    /// Distinct strings the exact engine scored.
    pub scored: u64,
    /// The method used.
    pub method: Method,
}

/// Searches the space by exact total: exhaustively when it is small enough, else by local
/// search from `starts` (the strings best by entropy and the best real names are good ones).
pub fn search_total(
    scorer: &Scorer<'_>,
    space: &Space,
    starts: &[Letters],
    options: TotalOptions,
) -> TotalResult {
    if space.searched() <= options.exhaustive_limit {
        let found = exhaustive::min_total(scorer, space, options.top, starts, options.node_limit);
        return TotalResult {
            top: found.top,
            proven: found.proven,
            lower_bound: found.lower_bound,
            scored: found.scored,
            method: Method::Exhaustive,
        };
    }
    let found = local::improve(
        scorer,
        space,
        starts,
        LocalOptions {
            top: options.top,
            kicks: options.kicks,
            seed: options.seed,
        },
    );
    let answers = super::classes::Answers::new(scorer.solver().game());
    let root = super::classes::Classes::root(&answers);
    TotalResult {
        top: found.top,
        proven: false,
        lower_bound: exhaustive::lower_bound(scorer, &root, 0),
        scored: found.scored as u64,
        method: Method::Local,
    }
}

/// The `k` real names of the board's length with the highest entropy, as strings of the
/// space (letters no answer uses replaced by the space's blank): seeds for both searches.
pub fn real_starts(game: &Game, table: &FeedbackTable, space: &Space, k: usize) -> Vec<Letters> {
    let ranked = crate::heuristics::entropy::rank(table, &game.all_answers());
    ranked
        .iter()
        .filter_map(|r| {
            let word = &game.guesses()[r.guess as usize];
            (word.len() == BOARD).then(|| {
                let mut letters = [0u8; BOARD];
                letters.copy_from_slice(word.letters());
                space.canonical(letters)
            })
        })
        .filter(|&s| space.contains(s))
        .take(k)
        .collect()
}
