//! Heuristic strategies: cheap answers to "given what I know, what next?".

use rayon::prelude::*;

use crate::heuristics::entropy::tie_key;
use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::pattern::PATTERNS;
use crate::rules::table::FeedbackTable;

/// A rule that picks the next guess from the answers still possible.
///
/// Strategies see only the candidate set, so they are deterministic functions of it; that is
/// what lets evaluation build the whole strategy tree once instead of replaying every game.
///
/// One of the four seams that choose a guess (docs/development.md, "Choosing a guess"). It
/// stays apart from [`Player`](crate::heuristics::strategies::Player) because its contract is
/// the narrower one, and callers that hold no history rely on it: [`total_within`] (the
/// search's cheap upper bound, recursing on the parts of a split), `build_tree` for
/// `evaluate` and `chart`, and the screening of best-move puzzles all hand it a candidate set
/// and nothing else. [`Greedy`](crate::heuristics::strategies::Greedy) makes any strategy a
/// player.
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
        let n = candidates.len() as f64;
        best_by_key(table.guesses(), |g| {
            // The same sum as `entropy::entropy`, in the same order, over the parts only.
            let mut sum = 0.0;
            for_each_part(table, g, candidates, |_, c| {
                let c = f64::from(c);
                sum += c * c.log2();
            });
            tie_key(n.log2() - sum / n)
        })
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
            let mut squares = 0i64;
            for_each_part(table, g, candidates, |pattern, c| {
                if usize::from(pattern) != PATTERNS - 1 {
                    squares += i64::from(c) * i64::from(c);
                }
            });
            -squares
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
            let (mut parts, mut wins) = (0i64, 0i64);
            for_each_part(table, g, candidates, |pattern, _| {
                parts += 1;
                wins += i64::from(usize::from(pattern) == PATTERNS - 1);
            });
            2 * parts + wins
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
            let (mut largest, mut wins) = (0i64, 0i64);
            for_each_part(table, g, candidates, |pattern, c| {
                if usize::from(pattern) == PATTERNS - 1 {
                    wins = 1;
                } else {
                    largest = largest.max(i64::from(c));
                }
            });
            -2 * largest + wins
        })
    }
}

/// Candidate sets up to this size are split by sorting their patterns; larger ones by a
/// histogram of every pattern.
const SMALL: usize = 48;

/// Calls `part(pattern, count)` for every pattern some candidate shows after `guess`, in
/// pattern order: the groups the guess splits the candidates into. Most nodes of a strategy's
/// tree hold a few candidates, so those are sorted instead of scanning all 243 patterns.
fn for_each_part(
    table: &FeedbackTable,
    guess: GuessId,
    candidates: &[AnswerId],
    mut part: impl FnMut(u8, u32),
) {
    let row = table.row(guess);
    if candidates.len() <= SMALL {
        let mut patterns = [0u8; SMALL];
        for (slot, &a) in patterns.iter_mut().zip(candidates) {
            *slot = row[a as usize];
        }
        let patterns = &mut patterns[..candidates.len()];
        patterns.sort_unstable();
        for run in patterns.chunk_by(|a, b| a == b) {
            part(run[0], run.len() as u32);
        }
    } else {
        let mut counts = [0u32; PATTERNS];
        for &a in candidates {
            counts[row[a as usize] as usize] += 1;
        }
        for (pattern, &c) in counts.iter().enumerate() {
            if c > 0 {
                part(pattern as u8, c);
            }
        }
    }
}

/// The guess with the largest key; the earliest guess wins ties.
fn best_by_key(guesses: usize, key: impl Fn(GuessId) -> i64 + Sync) -> GuessId {
    (0..guesses as GuessId)
        .into_par_iter()
        .map(|g| (key(g), std::cmp::Reverse(g)))
        .max()
        .map_or(0, |(_, std::cmp::Reverse(g))| g)
}

/// The total `strategy` reaches on `candidates` with `guesses_left` guesses in normal play
/// (every allowed guess allowed), or `None` when some answer is not found within them: a
/// strategy that is played proves an upper bound on the optimum, cheap next to the search,
/// which closes the interval a long search shows while it runs.
pub fn total_within(
    strategy: &dyn Strategy,
    game: &Game,
    table: &FeedbackTable,
    candidates: &[AnswerId],
    guesses_left: u32,
) -> Option<u32> {
    match (candidates.len(), guesses_left) {
        (0, _) => return Some(0),
        (_, 0) => return None,
        (1, _) => return Some(1),
        _ => {}
    }
    let guess = strategy.choose(game, table, candidates);
    let parts = crate::rules::history::open_parts(table, guess, candidates);
    // A guess that tells nothing apart would be played for ever.
    if parts.len() == 1 && parts[0].1.len() == candidates.len() {
        return None;
    }
    let rest: Option<u32> = parts
        .par_iter()
        .map(|(_, part)| total_within(strategy, game, table, part, guesses_left - 1))
        .sum();
    Some(candidates.len() as u32 + rest?)
}
