//! Proposing strings for big games: iterated local search on the exact total.
//!
//! From each start the search moves to the first neighbour (one letter changed, or two
//! positions swapped) whose exact total is lower, trying neighbours by entropy, highest
//! first; at a local optimum it kicks one of the best strings (two random letters changed)
//! and climbs again. Every string is scored by the exact engine with the N-th best total so
//! far as the cutoff, and no string is scored twice at the same cutoff. The result is the
//! best found, an upper bound on the best any string can reach, never a proof.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rustc_hash::FxHashMap;

use super::classes::Answers;
use super::entropy::entropy_of;
use super::exhaustive::{TopTotals, Valued};
use super::score::{Scorer, Total};
use super::{Letters, Space};
use crate::heuristics::entropy::tie_key;
use crate::rules::word::BOARD;
use crate::solver::INFEASIBLE;

/// How long to search.
#[derive(Debug, Clone, Copy)]
pub struct LocalOptions {
    /// Strings to report.
    pub top: usize,
    /// Kicks after the starts are exhausted.
    pub kicks: usize,
    /// Seed of the kicks, so a run can be repeated exactly.
    pub seed: u64,
}

/// What the local search found.
#[derive(Debug, Clone)]
pub struct LocalSearch {
    /// The best strings found, best first.
    pub top: Vec<Valued>,
    /// Distinct strings the exact engine scored.
    pub scored: usize,
}

struct State<'a, 'g> {
    scorer: &'a Scorer<'g>,
    space: &'a Space,
    answers: Answers,
    cache: FxHashMap<Letters, Total>,
    best: TopTotals,
}

impl State<'_, '_> {
    /// The string's total with cutoff `beta`, from the cache when it already answers.
    fn total(&mut self, letters: Letters, beta: u32) -> Total {
        match self.cache.get(&letters) {
            Some(&Total::Exact(v)) => return Total::Exact(v),
            Some(&Total::AtLeast(b)) if b >= beta => return Total::AtLeast(b),
            _ => {}
        }
        let total = self.scorer.total(letters, beta);
        self.cache.insert(letters, total);
        if let Total::Exact(v) = total {
            self.best.offer(Valued { letters, total: v });
        }
        total
    }

    /// The neighbours of a string, highest entropy first.
    fn neighbours(&self, letters: Letters) -> Vec<Letters> {
        let mut out = Vec::new();
        for position in 0..BOARD {
            for &x in self.space.choices(position) {
                if x != letters[position] {
                    let mut next = letters;
                    next[position] = x;
                    out.push(next);
                }
            }
        }
        for i in 0..BOARD {
            for j in i + 1..BOARD {
                if letters[i] != letters[j] {
                    let mut next = letters;
                    next.swap(i, j);
                    out.push(next);
                }
            }
        }
        out.retain(|&s| self.space.contains(s));
        out.sort_unstable();
        out.dedup();
        let mut ranked: Vec<(i64, Letters)> = out
            .into_iter()
            .map(|s| (tie_key(entropy_of(&self.answers, s)), s))
            .collect();
        ranked.sort_by_key(|&(bits, s)| (std::cmp::Reverse(bits), s));
        ranked.into_iter().map(|(_, s)| s).collect()
    }

    /// First-improvement descent from `start`, whose total is `value`.
    fn climb(&mut self, mut current: Letters, mut value: u32) {
        'moved: loop {
            for next in self.neighbours(current) {
                let beta = value.max(self.best.cutoff());
                if let Total::Exact(v) = self.total(next, beta) {
                    if v < value {
                        current = next;
                        value = v;
                        continue 'moved;
                    }
                }
            }
            return;
        }
    }

    /// Scores a start with some slack over the cutoff and climbs from it if it is exact.
    fn start(&mut self, letters: Letters) {
        let cutoff = self.best.cutoff();
        let beta = if cutoff >= INFEASIBLE {
            INFEASIBLE
        } else {
            cutoff.saturating_add(cutoff / 20)
        };
        if let Total::Exact(v) = self.total(letters, beta) {
            self.climb(letters, v);
        }
    }
}

/// Climbs from every start, then from `options.kicks` random kicks of the best strings.
pub fn improve(
    scorer: &Scorer<'_>,
    space: &Space,
    starts: &[Letters],
    options: LocalOptions,
) -> LocalSearch {
    let mut state = State {
        scorer,
        space,
        answers: Answers::new(scorer.solver().game()),
        cache: FxHashMap::default(),
        best: TopTotals::new(options.top),
    };
    for &s in starts.iter().filter(|&&s| space.contains(s)) {
        state.start(s);
    }
    let mut rng = StdRng::seed_from_u64(options.seed);
    for _ in 0..options.kicks {
        let list = state.best.list();
        if list.is_empty() {
            break;
        }
        let mut next = list[rng.gen_range(0..list.len())].letters;
        for _ in 0..2 {
            let position = rng.gen_range(0..BOARD);
            let choices = space.choices(position);
            next[position] = choices[rng.gen_range(0..choices.len())];
        }
        if space.contains(next) {
            state.start(next);
        }
    }
    LocalSearch {
        top: state.best.list().to_vec(),
        scored: state.cache.len(),
    }
}
