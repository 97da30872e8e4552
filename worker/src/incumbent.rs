//! The best total a worker knows (from the coordinator's replies and its own results),
//! shared by all its jobs, so a first-guess job starts with the tightest cutoff known at
//! that moment, as the in-memory search does, instead of the one it was leased with.

use std::sync::atomic::{AtomicU64, Ordering};

use hakase_core::solver::INFEASIBLE;

/// (value, first-guess index) packed so that `fetch_min` keeps the better one: a lower
/// value, and among equal values the earlier first guess (the solver's tie-break).
pub struct SharedIncumbent(AtomicU64);

fn pack(value: u32, index: u32) -> u64 {
    (u64::from(value) << 32) | u64::from(index)
}

impl Default for SharedIncumbent {
    fn default() -> Self {
        SharedIncumbent(AtomicU64::new(pack(INFEASIBLE, 0)))
    }
}

impl SharedIncumbent {
    /// Takes `value` reached by first guess `index` if it is better than what is known.
    pub fn offer(&self, value: u32, index: u32) {
        if value < INFEASIBLE {
            self.0.fetch_min(pack(value, index), Ordering::AcqRel);
        }
    }

    /// True once some total is known.
    pub fn known(&self) -> bool {
        (self.0.load(Ordering::Acquire) >> 32) < u64::from(INFEASIBLE)
    }

    /// The cutoff first guess `index` needs: an earlier guess may tie the best and still
    /// win, a later one must beat it.
    pub fn cutoff(&self, index: u32) -> u32 {
        let current = self.0.load(Ordering::Acquire);
        let (value, at) = ((current >> 32) as u32, (current & 0xFFFF_FFFF) as u32);
        if value >= INFEASIBLE {
            INFEASIBLE
        } else if index < at {
            value + 1
        } else {
            value
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_best_and_breaks_ties_by_search_order() {
        let inc = SharedIncumbent::default();
        assert_eq!(inc.cutoff(5), INFEASIBLE);
        assert!(!inc.known());
        inc.offer(970, 7);
        assert!(inc.known());
        assert_eq!(
            (inc.cutoff(3), inc.cutoff(7), inc.cutoff(9)),
            (971, 970, 970)
        );
        inc.offer(980, 1);
        assert_eq!(inc.cutoff(3), 971);
        inc.offer(970, 2);
        assert_eq!((inc.cutoff(1), inc.cutoff(3)), (971, 970));
        inc.offer(INFEASIBLE, 0);
        assert_eq!(inc.cutoff(0), 971);
    }
}
