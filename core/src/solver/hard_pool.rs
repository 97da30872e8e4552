//! Hard mode's pools remember which guesses split the parent's set identically.
//!
//! In normal mode a scan keeps one guess per split shape in the pool its children scan, since
//! guesses that split a set identically split every subset identically. Hard mode must keep
//! them all (each may be allowed where the others are not), but a bound that depends only on
//! how guesses split a child's set — the lean floor — still needs just one allowed guess of
//! each shape. So a hard-mode pool entry carries, beside the guess, the number of its shape
//! class on the parent's set, and the floor reads one allowed guess per class.
//!
//! Encoding: bit 31 marks an entry that carries a class; bits 16–30 hold the class and bits
//! 0–15 the guess. Pools of games with more guesses than fit stay plain (no class), as do the
//! pools the depth-only search builds; every reader decodes through [`guess_of`].

use rustc_hash::FxHashMap;

use super::hard::HardState;
use super::Solver;
use crate::rules::game::GuessId;

const CARRIES_CLASS: GuessId = 1 << 31;
const GUESS_BITS: u32 = 16;
const GUESS_MASK: GuessId = (1 << GUESS_BITS) - 1;

/// Games with at most this many guesses get classed pools (class numbers stay below 2^15).
pub(crate) const CLASSED_MAX_GUESSES: usize = 1 << 15;

/// The guess of a pool entry, classed or plain.
#[inline]
pub(crate) fn guess_of(entry: GuessId) -> GuessId {
    if entry & CARRIES_CLASS != 0 {
        entry & GUESS_MASK
    } else {
        entry
    }
}

/// The class of a classed entry.
#[inline]
pub(crate) fn class_of(entry: GuessId) -> Option<usize> {
    (entry & CARRIES_CLASS != 0).then_some(((entry & !CARRIES_CLASS) >> GUESS_BITS) as usize)
}

/// Numbers the split shapes of one scan, in order of first appearance.
#[derive(Default)]
pub(crate) struct Classes {
    numbers: FxHashMap<u128, GuessId>,
}

impl Classes {
    /// The pool entry of `guess`, whose split of the scanned set has hash `shape`.
    pub(crate) fn entry(&mut self, guess: GuessId, shape: u128) -> GuessId {
        let next = self.numbers.len() as GuessId;
        let class = *self.numbers.entry(shape).or_insert(next);
        CARRIES_CLASS | (class << GUESS_BITS) | guess
    }
}

impl Solver<'_> {
    /// True when this game's hard-mode pools carry classes.
    pub(crate) fn classed_pools(&self) -> bool {
        self.game.guesses().len() <= CLASSED_MAX_GUESSES
    }

    /// The guesses of a parent's pool that `hard` allows, decoded, in pool order; with
    /// `one_per_class`, only the first allowed guess of each class. A pool is either all
    /// classed (from a hard-mode scan) or all plain.
    ///
    /// Branch-free: whether a guess is allowed is a coin toss the predictor loses.
    pub(crate) fn hard_pool(
        &self,
        hard: &HardState,
        pool: &[GuessId],
        one_per_class: bool,
    ) -> Vec<GuessId> {
        self.hard_pool_reading(hard, pool, one_per_class, None)
    }

    /// [`Solver::hard_pool`] with one guess per class, and beside it each guess's class: the
    /// row a node's local patterns hold for it. `pool` is classed.
    pub(crate) fn hard_pool_classes(
        &self,
        hard: &HardState,
        pool: &[GuessId],
    ) -> (Vec<GuessId>, Vec<u32>) {
        let mut classes = Vec::new();
        let guesses = self.hard_pool_reading(hard, pool, true, Some(&mut classes));
        (guesses, classes)
    }

    /// The loop behind [`Solver::hard_pool`], writing the kept guesses' classes to `classes`
    /// when given.
    fn hard_pool_reading(
        &self,
        hard: &HardState,
        pool: &[GuessId],
        one_per_class: bool,
        classes: Option<&mut Vec<u32>>,
    ) -> Vec<GuessId> {
        let allowed = self.hard_allowed(hard);
        let classed = one_per_class && pool.first().is_some_and(|&e| class_of(e).is_some());
        // Class numbers of a scan's pool are below its length.
        let mut seen = vec![0u64; if classed { pool.len() / 64 + 1 } else { 0 }];
        let mut out = vec![0; pool.len()];
        let mut out_classes = vec![0u32; if classes.is_some() { pool.len() } else { 0 }];
        let mut kept = 0;
        for &entry in pool {
            let guess = guess_of(entry);
            let mut keep = allowed.as_ref().is_none_or(|a| a.contains(guess));
            let class = class_of(entry).unwrap_or(0);
            if classed {
                let (word, bit) = (&mut seen[class / 64], 1u64 << (class % 64));
                keep &= *word & bit == 0;
                *word |= if keep { bit } else { 0 };
            }
            out[kept] = guess;
            if let Some(slot) = out_classes.get_mut(kept) {
                *slot = class as u32;
            }
            kept += usize::from(keep);
        }
        out.truncate(kept);
        if let Some(classes) = classes {
            out_classes.truncate(kept);
            *classes = out_classes;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::INFEASIBLE;

    #[test]
    fn entries_round_trip() {
        let mut classes = Classes::default();
        let a = classes.entry(12971, 7);
        let b = classes.entry(3, 9);
        let c = classes.entry(65535, 7);
        assert_eq!((guess_of(a), class_of(a)), (12971, Some(0)));
        assert_eq!((guess_of(b), class_of(b)), (3, Some(1)));
        assert_eq!((guess_of(c), class_of(c)), (65535, Some(0)));
        assert_eq!((guess_of(12971), class_of(12971)), (12971, None));
    }

    /// A floor read through a classed pool (one allowed guess per class of the parent's
    /// split) must equal the full scan's floor over every guess the child's state allows:
    /// parts of random sets of pokemon-qiita2023 below a random guess, in hard mode.
    #[test]
    fn floors_through_classed_pools_equal_full_scans() {
        use crate::rules::game::AnswerId;
        use crate::rules::pattern::Pattern;
        use crate::rules::presets::load_preset;
        use crate::rules::table::FeedbackTable;
        use crate::solver::{Mode, SolverConfig};
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        let config = SolverConfig {
            mode: Mode::Hard,
            ..SolverConfig::default()
        };
        let solver = Solver::new(&game, &table, config, 1 << 12);
        let mut next = crate::solver::test_rng(0x2545_F491_4F6C_DD1Du64);
        let mut checked = 0;
        for _ in 0..30 {
            let set: Vec<AnswerId> = game
                .all_answers()
                .into_iter()
                .filter(|_| next(100) < 40)
                .collect();
            let pool = solver.scan(&set, 4, &HardState::default(), None, 0).pool;
            let guess = next(game.guesses().len() as u64) as GuessId;
            for (pattern, part) in solver.split(&set, guess) {
                if part.len() < 3 {
                    continue;
                }
                let hard =
                    HardState::default().after(&game.guesses()[guess as usize], Pattern(pattern.0));
                let full = solver.scan(&part, 3, &hard, None, 0).floor;
                let lean = solver.floor(&part, (3, INFEASIBLE), &hard, Some(&pool), None);
                assert_eq!(lean, full, "guess {guess} part {part:?}");
                checked += 1;
            }
        }
        assert!(checked > 50, "too few parts: {checked}");
    }
}
