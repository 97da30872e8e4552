//! Admissible lower bounds: never above the true optimum, so pruning by them loses nothing.

use super::INFEASIBLE;

/// The least total any strategy can achieve on `n` answers with `guesses` guesses left when no
/// guess splits a set into more than `branching` non-winning parts.
///
/// A tree node wins at most one answer (its own guess) and has at most `branching` children,
/// so at most `branching^(i-1)` answers can be found with exactly `i` guesses. Filling the
/// levels from the top gives the bound; for `branching ≥ n - 1` it is the familiar `2n - 1`.
/// [`INFEASIBLE`] when the levels cannot hold all `n` answers.
pub fn min_total(n: u32, guesses: u32, branching: u32) -> u32 {
    if n == 0 {
        return 0;
    }
    let mut left = u64::from(n);
    let mut total = 0u64;
    let mut capacity = 1u64;
    for level in 1..=u64::from(guesses) {
        let here = left.min(capacity);
        total += here * level;
        left -= here;
        if left == 0 {
            return total.min(u64::from(INFEASIBLE)) as u32;
        }
        capacity = capacity.saturating_mul(u64::from(branching.max(1)));
        if branching == 0 {
            break;
        }
    }
    INFEASIBLE
}

/// The most answers any strategy can find within `guesses` guesses when no guess splits a set
/// into more than `branching` non-winning parts: each guess wins at most one answer and leaves
/// at most `branching` parts, so 1 + b + … + b^(guesses − 1).
pub fn capacity(guesses: u32, branching: u32) -> u64 {
    let mut total = 0u64;
    let mut level = 1u64;
    for _ in 0..guesses {
        total = total.saturating_add(level);
        level = level.saturating_mul(u64::from(branching));
    }
    total
}

/// The fewest guesses that can possibly find all `n` answers when no guess makes more than
/// `branching` non-winning parts: the smallest worst case any strategy could reach.
pub fn min_depth(n: u32, branching: u32) -> u32 {
    let mut capacity = 1u64;
    let mut covered = 0u64;
    let mut depth = 0;
    while covered < u64::from(n) {
        depth += 1;
        covered += capacity;
        capacity = capacity.saturating_mul(u64::from(branching.max(1)));
        if depth > 64 {
            break;
        }
    }
    depth
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn familiar_bound_when_branching_is_wide() {
        assert_eq!(min_total(1, 1, 0), 1);
        assert_eq!(min_total(2, 2, 1), 3);
        assert_eq!(min_total(10, 6, 9), 19);
        assert_eq!(min_total(10, 6, 100), 19);
    }

    #[test]
    fn narrow_branching_costs_more() {
        // 1 at level 1, 2 at level 2, 4 at level 3, 3 at level 4: 1 + 4 + 12 + 12.
        assert_eq!(min_total(10, 6, 2), 29);
        assert_eq!(min_total(10, 3, 2), INFEASIBLE);
        assert_eq!(min_depth(10, 2), 4);
        assert_eq!(min_depth(1, 0), 1);
        assert_eq!(min_total(3, 1, 5), INFEASIBLE);
    }

    #[test]
    fn capacity_counts_one_answer_per_node() {
        assert_eq!(capacity(0, 7), 0);
        assert_eq!(capacity(1, 7), 1);
        assert_eq!(capacity(2, 7), 8);
        assert_eq!(capacity(4, 2), 15);
        assert_eq!(capacity(3, 0), 1);
        assert_eq!(capacity(60, 200), u64::MAX);
        // The capacity within min_depth guesses holds n, one guess fewer does not.
        for (n, b) in [(10, 2), (515, 40), (2315, 150), (3, 1)] {
            let d = min_depth(n, b);
            assert!(capacity(d, b) >= u64::from(n));
            assert!(capacity(d - 1, b) < u64::from(n));
        }
    }
}
