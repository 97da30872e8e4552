//! What reviews remember between calls, within fixed bounds: the solver's transposition table
//! (every subproblem solved while judging a move) and the judged positions themselves (a
//! position's value and its optimal guesses, whose tie search costs more than the value). A
//! server keeps one per run and rules, so a review of a game that passed through positions
//! reviewed before costs lookups, not solves.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::solver::memo::{MemoKey, MemoryMemo};

use super::{Judged, Optimum};

/// Solver memo entries a review cache holds by default (about 25 MB at most).
pub const REVIEW_MEMO_ENTRIES: usize = 1 << 19;

/// Judged positions a review cache holds by default.
pub const REVIEW_POSITIONS: usize = 8192;

/// The bounded memory of reviews for one game and one set of rules.
pub struct ReviewCache {
    pub(super) memo: Arc<MemoryMemo>,
    positions: Mutex<Positions>,
}

/// Two generations of judged positions: when the current one is full it becomes the old one
/// and the previous old one is dropped, so the cache forgets the least recently stored half.
struct Positions {
    current: HashMap<MemoKey, Judged<Optimum>>,
    old: HashMap<MemoKey, Judged<Optimum>>,
    per_generation: usize,
}

impl ReviewCache {
    /// A cache of at most `memo_entries` solver entries and about `positions` positions.
    pub fn new(memo_entries: usize, positions: usize) -> ReviewCache {
        ReviewCache {
            memo: Arc::new(MemoryMemo::new(memo_entries)),
            positions: Mutex::new(Positions {
                current: HashMap::new(),
                old: HashMap::new(),
                per_generation: (positions / 2).max(1),
            }),
        }
    }

    /// Positions held now (for tests and status lines).
    pub fn positions(&self) -> usize {
        let p = self.lock();
        p.current.len() + p.old.len()
    }

    /// Solver memo entries held now.
    pub fn memo_entries(&self) -> usize {
        self.memo.len()
    }

    pub(super) fn get(&self, key: MemoKey) -> Option<Judged<Optimum>> {
        let p = self.lock();
        p.current.get(&key).or_else(|| p.old.get(&key)).cloned()
    }

    pub(super) fn put(&self, key: MemoKey, value: Judged<Optimum>) {
        let mut p = self.lock();
        if p.current.len() >= p.per_generation && !p.current.contains_key(&key) {
            p.old = std::mem::take(&mut p.current);
        }
        p.current.insert(key, value);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Positions> {
        // Every update is one insert or one swap: a panic elsewhere leaves nothing half-done.
        self.positions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Default for ReviewCache {
    fn default() -> Self {
        ReviewCache::new(REVIEW_MEMO_ENTRIES, REVIEW_POSITIONS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_forgets_its_older_half_when_full() {
        let cache = ReviewCache::new(1024, 4);
        for k in 0..5u128 {
            cache.put(MemoKey(k), Judged::Infeasible);
        }
        // Generations of 2: keys 0 and 1 were dropped when key 4 started the third.
        assert_eq!(cache.positions(), 3);
        assert_eq!(cache.get(MemoKey(0)), None);
        assert_eq!(cache.get(MemoKey(4)), Some(Judged::Infeasible));
        assert_eq!(cache.get(MemoKey(2)), Some(Judged::Infeasible));
    }
}
