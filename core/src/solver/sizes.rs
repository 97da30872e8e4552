//! Part sizes only: how every guess splits a set, counted in one pass without labelling or
//! deduplicating the partitions. The depth-only search needs no more than the largest part and
//! the number of parts of each guess, and reads them here at a fraction of a full scan's cost.

use std::sync::atomic::Ordering;

use super::hard::HardState;
use super::Solver;
use crate::rules::game::{AnswerId, GuessId};
use crate::rules::pattern::{Pattern, PATTERNS};

/// How one guess splits a set, in sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sizes {
    pub guess: GuessId,
    /// The largest part, the winning one (of one answer) included.
    pub largest: u32,
    /// Σ size² over the non-winning parts: the tie-break among equal largest parts.
    pub squares: u32,
    /// Non-winning parts.
    pub open: u32,
}

/// What one pass over the guesses of a set learns.
pub(crate) struct SplitSizes {
    /// Every guess that splits the set, in the order scanned (ascending id).
    pub guesses: Vec<Sizes>,
    /// The most non-winning parts any guess makes: a bound on the branching below.
    pub branching: u32,
}

const WIN: usize = Pattern::ALL_GREEN.0 as usize;

impl Solver<'_> {
    /// The sizes of the split of `set` by every guess allowed there (restricted to `inherited`
    /// when a parent narrowed them down); guesses that do not split the set are left out.
    pub(crate) fn split_sizes(
        &self,
        set: &[AnswerId],
        hard: &HardState,
        inherited: Option<&[GuessId]>,
    ) -> SplitSizes {
        let allowed = self.scannable(set, hard, inherited);
        self.stats.scans.fetch_add(1, Ordering::Relaxed);
        self.stats
            .scanned_pairs
            .fetch_add((allowed.len() * set.len()) as u64, Ordering::Relaxed);
        let mut out = SplitSizes {
            guesses: Vec::with_capacity(allowed.len()),
            branching: 0,
        };
        let mut counts = [0u16; PATTERNS];
        for &guess in allowed.iter() {
            let row = self.table.row(guess);
            let (mut largest, mut distinct, mut squares) = (0u16, 0u32, 0u32);
            // Branch-free, as the scans: whether a pattern is new is a coin toss.
            for &a in set {
                let slot = &mut counts[usize::from(row[a as usize])];
                distinct += u32::from(*slot == 0);
                squares += 2 * u32::from(*slot) + 1;
                *slot += 1;
                largest = largest.max(*slot);
            }
            let wins = counts[WIN] > 0;
            if set.len() < 64 {
                for &a in set {
                    counts[usize::from(row[a as usize])] = 0;
                }
            } else {
                counts.fill(0);
            }
            let open = distinct - u32::from(wins);
            out.branching = out.branching.max(open);
            if open == 1 && !wins {
                continue;
            }
            out.guesses.push(Sizes {
                guess,
                largest: u32::from(largest),
                squares: squares - u32::from(wins),
                open,
            });
        }
        out
    }
}
