//! From trees to the comparison table: guesses per answer, the seed-style summary row, the
//! distance to the optimum and the answers where a strategy loses most.

use serde::Serialize;

use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::history::Step;
use crate::rules::table::FeedbackTable;
use crate::trees::tree::{Tree, MAX_DEPTH};

/// The guesses the tree needs for each answer (`None`: never found), indexed by answer id.
pub fn guesses_per_answer(tree: &Tree, table: &FeedbackTable, answers: usize) -> Vec<Option<u32>> {
    (0..answers as AnswerId)
        .map(|answer| {
            let steps = game_of(tree, table, answer);
            steps
                .last()
                .filter(|s| s.pattern.is_win())
                .map(|_| steps.len() as u32)
        })
        .collect()
}

/// The game the tree plays against `answer`: each guess with the colours shown, ending with
/// the win (or where the tree has no branch to follow).
pub fn game_of(tree: &Tree, table: &FeedbackTable, answer: AnswerId) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut node = tree;
    loop {
        let pattern = table.get(node.guess, answer);
        steps.push(Step {
            guess: node.guess,
            pattern,
        });
        if pattern.is_win() || steps.len() as u32 >= MAX_DEPTH {
            return steps;
        }
        match node.branch(pattern) {
            Some(next) => node = next,
            None => return steps,
        }
    }
}

/// One row of the comparison: the seed blog's columns plus the distance to the optimum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// Strategy name.
    pub strategy: String,
    /// The first guess it played.
    #[serde(rename = "first_guess")]
    pub first: String,
    /// Where its candidates come from (the frequency strategies); `None` for a strategy
    /// that takes none, null in JSON.
    pub universe: Option<String>,
    /// Answers played.
    pub answers: usize,
    /// Fewest guesses any answer needed.
    pub min: u32,
    /// Mean guesses over the answers found.
    pub mean: f64,
    /// Most guesses any found answer needed.
    pub max: u32,
    /// Answers not found within the game's tries (never found included), as the game
    /// writes them: the same list `evaluate` gives.
    pub failures: Vec<String>,
    /// Answers never found at all.
    pub unsolved: Vec<String>,
    /// Sum of guesses over the answers found.
    pub total: u64,
    /// `distribution[k]` answers took `k + 1` guesses.
    pub distribution: Vec<u32>,
    /// Guesses over the optimum's total (`None` without a reference or with answers unsolved).
    pub extra: Option<i64>,
    /// Percentage of answers found in no more guesses than the optimal strategy needs.
    pub optimal_percent: Option<f64>,
    /// How far the total can be trusted, in the one label scheme of every command
    /// (docs/json.md): `proven-optimal`, `exact` (optimal given its first guess) or
    /// `heuristic` (an upper bound, top-k included).
    pub label: &'static str,
}

/// Summarises one strategy's guesses per answer, against the optimum's when given.
pub fn row(
    game: &Game,
    strategy: &str,
    first: GuessId,
    universe: Option<&str>,
    label: &'static str,
    guesses: &[Option<u32>],
    optimum: Option<&[Option<u32>]>,
) -> Row {
    let found: Vec<u32> = guesses.iter().flatten().copied().collect();
    let total: u64 = found.iter().map(|&g| u64::from(g)).sum();
    let max = found.iter().copied().max().unwrap_or(0);
    let mut distribution = vec![0u32; max as usize];
    for &g in &found {
        distribution[g as usize - 1] += 1;
    }
    let words = |lost: &dyn Fn(Option<u32>) -> bool| -> Vec<String> {
        (0..guesses.len() as AnswerId)
            .zip(guesses)
            .filter(|(_, g)| lost(**g))
            .map(|(answer, _)| game.answer_text(answer).to_string())
            .collect()
    };
    let unsolved = words(&|g| g.is_none());
    let failures = words(&|g| g.is_none_or(|g| g > game.tries()));
    let optimum_total: Option<u64> =
        optimum.map(|o| o.iter().flatten().map(|&g| u64::from(g)).sum());
    let extra = optimum_total
        .filter(|_| unsolved.is_empty())
        .map(|o| total as i64 - o as i64);
    let optimal_percent = optimum.map(|o| {
        let at_most = guesses
            .iter()
            .zip(o)
            .filter(|(mine, best)| matches!((mine, best), (Some(m), Some(b)) if m <= b))
            .count();
        100.0 * at_most as f64 / guesses.len().max(1) as f64
    });
    Row {
        strategy: strategy.to_string(),
        first: game.guess_text(first).to_string(),
        universe: universe.map(str::to_string),
        answers: guesses.len(),
        min: found.iter().copied().min().unwrap_or(0),
        mean: if found.is_empty() {
            0.0
        } else {
            total as f64 / found.len() as f64
        },
        max,
        failures,
        unsolved,
        total,
        distribution,
        extra,
        optimal_percent,
        label,
    }
}

/// An answer a strategy needs more guesses for than the optimum does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Loss {
    /// The answer.
    pub answer: AnswerId,
    /// Guesses the strategy needs (`None`: never found).
    pub mine: Option<u32>,
    /// Guesses the optimal strategy needs.
    pub optimum: u32,
}

/// The `n` answers where the strategy loses most against the optimum (never found first),
/// ties in answer order; answers it plays as well or better are never listed.
pub fn worst_losses(mine: &[Option<u32>], optimum: &[Option<u32>], n: usize) -> Vec<Loss> {
    let mut losses: Vec<Loss> = mine
        .iter()
        .zip(optimum)
        .enumerate()
        .filter_map(|(answer, (&m, &o))| {
            let o = o?;
            let loses = m.is_none_or(|m| m > o);
            loses.then_some(Loss {
                answer: answer as AnswerId,
                mine: m,
                optimum: o,
            })
        })
        .collect();
    let gap = |l: &Loss| l.mine.map_or(u32::MAX, |m| m - l.optimum);
    losses.sort_by_key(|l| (std::cmp::Reverse(gap(l)), l.answer));
    losses.truncate(n);
    losses
}
