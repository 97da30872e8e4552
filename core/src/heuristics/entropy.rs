//! Shannon entropy of a guess: the expected information its feedback gives.

use rayon::prelude::*;

use crate::rules::game::{AnswerId, GuessId};
use crate::rules::pattern::PATTERNS;
use crate::rules::table::FeedbackTable;

/// Entropy in bits of the pattern distribution `guess` induces on `candidates`
/// (all candidates equally likely).
pub fn entropy(table: &FeedbackTable, guess: GuessId, candidates: &[AnswerId]) -> f64 {
    let row = table.row(guess);
    let mut counts = [0u32; PATTERNS];
    for &a in candidates {
        counts[row[a as usize] as usize] += 1;
    }
    entropy_of_counts(&counts, candidates.len())
}

/// Entropy of a histogram whose counts sum to `n`.
pub fn entropy_of_counts(counts: &[u32], n: usize) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let n = n as f64;
    let sum: f64 = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let c = f64::from(c);
            c * c.log2()
        })
        .sum();
    n.log2() - sum / n
}

/// A guess with its entropy, as ranked.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Ranked {
    /// The guess.
    pub guess: GuessId,
    /// Its entropy in bits over the candidates.
    pub bits: f64,
}

/// Every guess ranked by entropy over `candidates`, highest first; equal entropies keep list
/// order, so the ranking is deterministic.
pub fn rank(table: &FeedbackTable, candidates: &[AnswerId]) -> Vec<Ranked> {
    let mut ranked: Vec<Ranked> = (0..table.guesses() as GuessId)
        .into_par_iter()
        .map(|guess| Ranked {
            guess,
            bits: entropy(table, guess, candidates),
        })
        .collect();
    ranked.sort_by_key(|r| (std::cmp::Reverse(tie_key(r.bits)), r.guess));
    ranked
}

/// Entropies equal up to rounding noise compare equal, so ties go to list order rather than
/// to the order in which floating-point sums happened to be added.
pub fn tie_key(bits: f64) -> i64 {
    (bits * 1e9).round() as i64
}
