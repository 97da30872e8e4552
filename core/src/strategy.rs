//! Heuristic strategies: cheap answers to "given what I know, what next?".

use rayon::prelude::*;

use crate::entropy::{entropy, tie_key};
use crate::game::{AnswerId, Game, GuessId};
use crate::pattern::PATTERNS;
use crate::table::FeedbackTable;

/// A rule that picks the next guess from the answers still possible.
///
/// Strategies see only the candidate set, so they are deterministic functions of it; that is
/// what lets evaluation build the whole strategy tree once instead of replaying every game.
pub trait Strategy: Sync {
    /// The name used on the command line.
    fn name(&self) -> &'static str;
    /// The next guess; `candidates` is never empty.
    fn choose(&self, game: &Game, table: &FeedbackTable, candidates: &[AnswerId]) -> GuessId;
}

/// Names accepted by [`by_name`].
pub const STRATEGY_NAMES: [&str; 5] = [
    "entropy",
    "min-expected-size",
    "frequency",
    "most-parts",
    "minimax",
];

/// Looks a strategy up by its command-line name.
pub fn by_name(name: &str) -> Option<Box<dyn Strategy>> {
    match name {
        "entropy" => Some(Box::new(EntropyStrategy)),
        "min-expected-size" => Some(Box::new(MinExpectedSize)),
        "frequency" => Some(Box::new(Frequency)),
        "most-parts" => Some(Box::new(MostParts)),
        "minimax" => Some(Box::new(Minimax)),
        _ => None,
    }
}

/// Highest entropy over all allowed guesses; one candidate left → guess it. Ties go to the
/// earlier word in list order (Pokédex order for Pokémon), as the seed article does.
#[derive(Debug, Clone, Copy, Default)]
pub struct EntropyStrategy;

impl Strategy for EntropyStrategy {
    fn name(&self) -> &'static str {
        "entropy"
    }

    fn choose(&self, game: &Game, table: &FeedbackTable, candidates: &[AnswerId]) -> GuessId {
        if let [only] = candidates {
            return game.answer_as_guess(*only);
        }
        best_by_key(table.guesses(), |g| tie_key(entropy(table, g, candidates)))
    }
}

/// Smallest expected number of candidates left after the guess (Σ part² over the parts that
/// are not a win), so a guess that might win now beats an equal split that cannot. Ties go to
/// the earlier word.
#[derive(Debug, Clone, Copy, Default)]
pub struct MinExpectedSize;

impl Strategy for MinExpectedSize {
    fn name(&self) -> &'static str {
        "min-expected-size"
    }

    fn choose(&self, game: &Game, table: &FeedbackTable, candidates: &[AnswerId]) -> GuessId {
        if let [only] = candidates {
            return game.answer_as_guess(*only);
        }
        best_by_key(table.guesses(), |g| {
            let row = table.row(g);
            let mut counts = [0i64; PATTERNS];
            for &a in candidates {
                counts[row[a as usize] as usize] += 1;
            }
            counts[PATTERNS - 1] = 0;
            -counts.iter().map(|c| c * c).sum::<i64>()
        })
    }
}

/// The candidate whose distinct letters occur in the most candidates: a human-style rule that
/// only ever guesses possible answers. Ties go to the earlier answer.
#[derive(Debug, Clone, Copy, Default)]
pub struct Frequency;

impl Strategy for Frequency {
    fn name(&self) -> &'static str {
        "frequency"
    }

    fn choose(&self, game: &Game, _table: &FeedbackTable, candidates: &[AnswerId]) -> GuessId {
        let mut in_words = vec![0i64; game.alphabet().len()];
        for &a in candidates {
            let mut letters = game.answers()[a as usize].letters().to_vec();
            letters.sort_unstable();
            letters.dedup();
            for l in letters {
                in_words[usize::from(l)] += 1;
            }
        }
        let score = |a: AnswerId| -> i64 {
            let mut letters = game.answers()[a as usize].letters().to_vec();
            letters.sort_unstable();
            letters.dedup();
            letters.iter().map(|&l| in_words[usize::from(l)]).sum()
        };
        let best = candidates
            .iter()
            .copied()
            .max_by_key(|&a| (score(a), std::cmp::Reverse(a)))
            .unwrap_or(candidates[0]);
        game.answer_as_guess(best)
    }
}

/// Most distinct patterns over the candidates (the win counts as one), so the most groups are
/// told apart. Ties go to a guess that could win now, then to the earlier word.
#[derive(Debug, Clone, Copy, Default)]
pub struct MostParts;

impl Strategy for MostParts {
    fn name(&self) -> &'static str {
        "most-parts"
    }

    fn choose(&self, game: &Game, table: &FeedbackTable, candidates: &[AnswerId]) -> GuessId {
        if let [only] = candidates {
            return game.answer_as_guess(*only);
        }
        best_by_key(table.guesses(), |g| {
            let counts = pattern_counts(table, g, candidates);
            let parts = counts.iter().filter(|&&c| c > 0).count() as i64;
            2 * parts + i64::from(counts[PATTERNS - 1] > 0)
        })
    }
}

/// Smallest worst case: the guess whose largest group left (a win leaves none) is smallest.
/// Ties go to a guess that could win now, then to the earlier word.
#[derive(Debug, Clone, Copy, Default)]
pub struct Minimax;

impl Strategy for Minimax {
    fn name(&self) -> &'static str {
        "minimax"
    }

    fn choose(&self, game: &Game, table: &FeedbackTable, candidates: &[AnswerId]) -> GuessId {
        if let [only] = candidates {
            return game.answer_as_guess(*only);
        }
        best_by_key(table.guesses(), |g| {
            let counts = pattern_counts(table, g, candidates);
            let largest = counts[..PATTERNS - 1].iter().copied().max().unwrap_or(0);
            -2 * i64::from(largest) + i64::from(counts[PATTERNS - 1] > 0)
        })
    }
}

/// How many candidates show each pattern for `guess`.
fn pattern_counts(table: &FeedbackTable, guess: GuessId, candidates: &[AnswerId]) -> [u32; PATTERNS] {
    let row = table.row(guess);
    let mut counts = [0u32; PATTERNS];
    for &a in candidates {
        counts[row[a as usize] as usize] += 1;
    }
    counts
}

/// The guess with the largest key; the earliest guess wins ties.
fn best_by_key(guesses: usize, key: impl Fn(GuessId) -> i64 + Sync) -> GuessId {
    (0..guesses as GuessId)
        .into_par_iter()
        .map(|g| (key(g), std::cmp::Reverse(g)))
        .max()
        .map_or(0, |(_, std::cmp::Reverse(g))| g)
}
