//! The least exact total over every string, by branch and bound over positions: a proof
//! ("no string does better than X") where the space and the bounds allow it.
//!
//! Lower bound for a partly written string with classes Q (see [`super::classes`]) and m
//! free positions. Whatever fills the free positions, class q splits into at most
//! r_q = min(n_q, 3^m) parts. A part of s answers costs at least L(s) = min_total(s, …), the
//! solver's level-filling bound; L is convex with L(0) = 0 (the k-th answer placed lands on
//! a level no higher than the (k+1)-th), so splitting n_q answers into at most r_q parts costs
//! at least the even split into exactly r_q parts, E(n_q, r_q). The string itself may be an
//! answer: then one answer of one class q* costs nothing beyond the first guess and the rest
//! of q* splits into at most r_q* − 1 parts, costing at least E(n_q* − 1, r_q* − 1). So
//!
//!   total ≥ n + Σ_q E(n_q, r_q) − max(0, max_q [E(n_q, r_q) − E(n_q − 1, r_q − 1)]).

use super::classes::{Answers, Classes};
use super::score::{Scorer, Total};
use super::{Letters, Space};
use crate::rules::word::BOARD;
use crate::solver::bounds::min_total as level_bound;
use crate::solver::INFEASIBLE;

/// A string with its exact total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Valued {
    /// The string.
    pub letters: Letters,
    /// Its exact optimal total as the first guess.
    pub total: u32,
}

/// The result of a search by exact total.
#[derive(Debug, Clone)]
pub struct TotalSearch {
    /// The best strings, best first (ties in letter-id order).
    pub top: Vec<Valued>,
    /// True when every string was either scored or excluded by the bound.
    pub proven: bool,
    /// No string does better than this: the best total when proven, else the bound of the
    /// empty string.
    pub lower_bound: u32,
    /// Strings the exact engine scored.
    pub scored: u64,
    /// Partial strings whose bound was computed.
    pub nodes: u64,
}

/// Keeps the `n` best exact totals.
#[derive(Debug, Clone)]
pub struct TopTotals {
    n: usize,
    list: Vec<Valued>,
}

impl TopTotals {
    /// An empty list keeping `n` entries.
    pub fn new(n: usize) -> TopTotals {
        TopTotals {
            n: n.max(1),
            list: Vec::new(),
        }
    }

    /// The cutoff a new string must beat to enter the list.
    pub fn cutoff(&self) -> u32 {
        if self.list.len() < self.n {
            INFEASIBLE
        } else {
            self.list[self.n - 1].total
        }
    }

    /// Adds a string's exact total if it belongs in the list.
    pub fn offer(&mut self, v: Valued) {
        if self.list.iter().any(|t| t.letters == v.letters) {
            return;
        }
        self.list.push(v);
        self.list.sort_by_key(|t| (t.total, t.letters));
        self.list.truncate(self.n);
    }

    /// The list, best first.
    pub fn list(&self) -> &[Valued] {
        &self.list
    }
}

/// The lower bound of the module comment for `classes` with `placed` letters placed.
pub fn lower_bound(scorer: &Scorer<'_>, classes: &Classes, placed: usize) -> u32 {
    let left = scorer.guess_cap().saturating_sub(1);
    let branching = scorer.branching();
    let parts_cap = 3u64.pow((BOARD - placed) as u32);
    let cost = |s: u32| level_bound(s, left, branching);
    let even = |s: u32, r: u64| -> u64 {
        if s == 0 {
            return 0;
        }
        let r = r.clamp(1, u64::from(s));
        let (q, extra) = (u64::from(s) / r, u64::from(s) % r);
        extra * u64::from(cost(q as u32 + 1)) + (r - extra) * u64::from(cost(q as u32))
    };
    let n: u32 = classes.sizes.iter().sum();
    let mut sum = u64::from(n);
    let mut win = 0u64;
    for &s in &classes.sizes {
        let r = parts_cap.min(u64::from(s));
        let e = even(s, r);
        sum += e;
        win = win.max(e.saturating_sub(even(s - 1, r.saturating_sub(1))));
    }
    sum.saturating_sub(win).min(u64::from(INFEASIBLE)) as u32
}

/// The `top` strings of least exact total, by branch and bound over positions; `seeds`
/// start the list. With `node_limit` the search may stop early (not proven).
pub fn min_total(
    scorer: &Scorer<'_>,
    space: &Space,
    top: usize,
    seeds: &[Letters],
    node_limit: Option<u64>,
) -> TotalSearch {
    let answers = Answers::new(scorer.solver().game());
    let mut search = Search {
        scorer,
        space,
        answers: &answers,
        best: TopTotals::new(top),
        scored: 0,
        nodes: 0,
        limit: node_limit.unwrap_or(u64::MAX),
        stopped: false,
    };
    for &s in seeds.iter().filter(|&&s| space.contains(s)) {
        search.score(s);
    }
    let root = Classes::root(&answers);
    let root_bound = lower_bound(scorer, &root, 0);
    search.descend(&root, [0u8; BOARD], 0);
    let proven = !search.stopped;
    let top = search.best.list().to_vec();
    let lower_bound = match (proven, top.first()) {
        (true, Some(best)) => best.total,
        _ => root_bound,
    };
    TotalSearch {
        top,
        proven,
        lower_bound,
        scored: search.scored,
        nodes: search.nodes,
    }
}

struct Search<'a, 'g> {
    scorer: &'a Scorer<'g>,
    space: &'a Space,
    answers: &'a Answers,
    best: TopTotals,
    scored: u64,
    nodes: u64,
    limit: u64,
    stopped: bool,
}

impl Search<'_, '_> {
    fn score(&mut self, letters: Letters) {
        self.scored += 1;
        if let Total::Exact(total) = self.scorer.total(letters, self.best.cutoff()) {
            self.best.offer(Valued { letters, total });
        }
    }

    fn descend(&mut self, classes: &Classes, letters: Letters, placed: usize) {
        if placed == BOARD {
            self.score(letters);
            return;
        }
        if self.nodes >= self.limit {
            self.stopped = true;
            return;
        }
        let prev = placed.checked_sub(1).map(|p| letters[p]);
        let mut children: Vec<(u32, Letters, Classes)> = self
            .space
            .choices(placed)
            .iter()
            .filter(|&&x| self.space.allows(prev, x))
            .map(|&x| {
                let mut next = letters;
                next[placed] = x;
                let classes = classes.place(self.answers, placed, x);
                let bound = lower_bound(self.scorer, &classes, placed + 1);
                (bound, next, classes)
            })
            .collect();
        self.nodes += children.len() as u64;
        children.sort_by_key(|(bound, letters, _)| (*bound, *letters));
        for (bound, next, child) in children {
            if bound >= self.best.cutoff() {
                break;
            }
            self.descend(&child, next, placed + 1);
        }
    }
}
