//! The exact maximum-entropy strings, by branch and bound over positions.
//!
//! Positions are filled left to right; a partly written string is abandoned when an
//! admissible upper bound on the entropy of every completion is below the N-th best entropy
//! found. The bound, for placed letters with classes Q (see [`super::classes`]) and m free
//! positions, is
//!
//!   U = H(Q) + Σ_q p_q · min( log2 n_q,  m · log2 3,  Σ_{free j} max_y H(E_j(y) | Q = q) )
//!
//! where n_q is the size of class q, p_q = n_q / n, y ranges over the letters position j
//! may hold and E_j(y)(a) = ([a_j = y], copies of y in a).
//!
//! Proof that U ≥ H(P) for the feedback P of every completion. P is a function of the answer,
//! so H(P) ≤ H(P, Q) = H(Q) + Σ_q p_q · H(P | Q = q). Fix a class q:
//! - within q, P is a function of the free cells (classes module), so P takes at most 3^m
//!   values there, and at most n_q since the class has n_q answers: H(P | q) ≤ log2 of
//!   either;
//! - P is also a function of Q and the E_j(y_j) of the free positions: those give the green
//!   of every free position and the copies in the answer of every letter of the string, and
//!   greens plus copies determine the whole pattern under the game's rule (greens first,
//!   then left to right, yellow while non-green copies remain). Hence
//!   H(P | q) ≤ H(E_k(y_k), …, E_4(y_4) | q) ≤ Σ_j H(E_j(y_j) | q) (subadditivity)
//!   ≤ Σ_j max_y H(E_j(y) | q), whatever the completion's letters y_j are.
//!
//! Each of the three terms bounds H(P | q), so their minimum does, and U ≥ H(P). At a full
//! string the search computes the entropy itself. `tests/design.rs` checks U against
//! brute force over every completion on a small game.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use super::classes::{copies, entropy_of_sizes, Answers, Classes};
use super::{Letters, Space};
use crate::heuristics::entropy::tie_key;
use crate::rules::game::Game;
use crate::rules::pattern::{feedback, PATTERNS};
use crate::rules::word::BOARD;

/// Slack for floating-point rounding when a bound is compared with an entropy.
const EPS: f64 = 1e-9;

/// A string with its entropy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    /// The string.
    pub letters: Letters,
    /// Entropy in bits of its patterns over the answers.
    pub bits: f64,
}

/// The result of the search: the best strings, best first, and whether that is a proof.
#[derive(Debug, Clone)]
pub struct EntropySearch {
    /// The N best strings by entropy, ties in letter-id order.
    pub top: Vec<Scored>,
    /// True when the search finished: no string outside `top` beats its last entry.
    pub proven: bool,
    /// Partial strings whose bound was computed.
    pub nodes: u64,
}

/// The best `n` strings found so far, kept sorted.
struct Top {
    n: usize,
    list: Vec<Scored>,
}

impl Top {
    fn threshold(&self) -> f64 {
        if self.list.len() < self.n {
            f64::NEG_INFINITY
        } else {
            self.list[self.n - 1].bits
        }
    }

    fn offer(&mut self, s: Scored) {
        if self.list.iter().any(|t| t.letters == s.letters) {
            return;
        }
        self.list.push(s);
        self.list
            .sort_by_key(|t| (std::cmp::Reverse(tie_key(t.bits)), t.letters));
        self.list.truncate(self.n);
    }
}

/// Entropy of a full string from the answers' letters (no table needed).
pub fn entropy_of(answers: &Answers, letters: Letters) -> f64 {
    let guess = super::word(letters);
    let mut counts = [0u32; PATTERNS];
    for a in &answers.letters {
        counts[feedback(&guess, &super::word(*a)).0 as usize] += 1;
    }
    entropy_of_sizes(counts.into_iter(), answers.len() as u32)
}

/// The upper bound U of the module comment for the letters placed at positions
/// `0..placed.len()`; `stop_at` lets it return the cheaper part early once that alone is
/// at most `stop_at` (the caller prunes either way).
pub fn upper_bound(answers: &Answers, space: &Space, classes: &Classes, placed: usize) -> f64 {
    bound_until(answers, space, classes, placed, f64::INFINITY)
}

fn bound_until(
    answers: &Answers,
    space: &Space,
    classes: &Classes,
    placed: usize,
    stop_at: f64,
) -> f64 {
    let free = BOARD - placed;
    let n = answers.len() as f64;
    let h_q = classes.entropy();
    if free == 0 {
        return h_q;
    }
    let cap_free = free as f64 * 3f64.log2();
    let cap = |s: u32| f64::from(s).log2().min(cap_free);
    let cheap = h_q
        + classes
            .sizes
            .iter()
            .map(|&s| f64::from(s) / n * cap(s))
            .sum::<f64>();
    if cheap <= stop_at {
        return cheap;
    }
    let per_letter = per_position_entropy(answers, space, classes, placed);
    h_q + classes
        .sizes
        .iter()
        .zip(per_letter)
        .map(|(&s, sum)| f64::from(s) / n * cap(s).min(sum))
        .sum::<f64>()
}

/// For each class q, Σ over free positions j of max_y H(E_j(y) | q).
fn per_position_entropy(
    answers: &Answers,
    space: &Space,
    classes: &Classes,
    placed: usize,
) -> Vec<f64> {
    // Keys (class, position, letter, green, copies), sorted so each (class, position,
    // letter) group is contiguous; answers without the letter make the rest of the class.
    let mut keys: Vec<u64> = Vec::with_capacity(answers.len() * BOARD * (BOARD - placed));
    for (answer, &class) in answers.letters.iter().zip(&classes.of) {
        for (i, &y) in answer.iter().enumerate() {
            if answer[..i].contains(&y) {
                continue;
            }
            let count = u64::from(copies(answer, y));
            for (j, &at) in answer.iter().enumerate().skip(placed) {
                let green = u64::from(at == y);
                keys.push(
                    (u64::from(class) << 24)
                        | ((j as u64) << 16)
                        | (u64::from(y) << 8)
                        | (green << 4)
                        | count,
                );
            }
        }
    }
    keys.sort_unstable();
    let mut best = vec![[0f64; BOARD]; classes.sizes.len()];
    let mut i = 0;
    while i < keys.len() {
        let group = keys[i] >> 8;
        let class = (group >> 16) as usize;
        let j = ((group >> 8) & 0xFF) as usize;
        let y = (group & 0xFF) as u8;
        let mut sizes: Vec<u32> = Vec::with_capacity(4);
        let mut seen = 0u32;
        while i < keys.len() && keys[i] >> 8 == group {
            let sub = keys[i] & 0xFF;
            let mut c = 0u32;
            while i < keys.len() && keys[i] >> 8 == group && keys[i] & 0xFF == sub {
                c += 1;
                i += 1;
            }
            sizes.push(c);
            seen += c;
        }
        if !space.choices(j).contains(&y) {
            continue;
        }
        let n_q = classes.sizes[class];
        sizes.push(n_q - seen);
        let h = entropy_of_sizes(sizes.into_iter(), n_q);
        if h > best[class][j] {
            best[class][j] = h;
        }
    }
    best.iter().map(|b| b.iter().sum()).collect()
}

/// The `top` strings of highest entropy, by branch and bound; `seeds` (e.g. good real
/// names) start the incumbent. With `node_limit`, the search may stop early and then says
/// it is not proven.
pub fn max_entropy(
    game: &Game,
    space: &Space,
    top: usize,
    seeds: &[Letters],
    node_limit: Option<u64>,
) -> EntropySearch {
    let answers = Answers::new(game);
    let best = Mutex::new(Top {
        n: top.max(1),
        list: Vec::new(),
    });
    for &s in seeds.iter().filter(|&&s| space.contains(s)) {
        lock(&best).offer(Scored {
            letters: s,
            bits: entropy_of(&answers, s),
        });
    }
    let search = Search {
        answers: &answers,
        space,
        best: &best,
        nodes: AtomicU64::new(0),
        limit: node_limit.unwrap_or(u64::MAX),
        stopped: AtomicBool::new(false),
    };
    let root = Classes::root(&answers);
    let children = search.children(&root, &[0u8; BOARD], 0);
    children
        .into_par_iter()
        .for_each(|(bound, letters, classes)| {
            if let Some(classes) = classes.filter(|_| bound >= search.threshold() - EPS) {
                search.descend(&classes, letters, 1);
            }
        });
    let nodes = search.nodes.load(Ordering::Relaxed);
    let proven = !search.stopped.load(Ordering::Relaxed);
    let list = best.into_inner().unwrap_or_else(|p| p.into_inner()).list;
    EntropySearch {
        top: list,
        proven,
        nodes,
    }
}

struct Search<'a> {
    answers: &'a Answers,
    space: &'a Space,
    best: &'a Mutex<Top>,
    nodes: AtomicU64,
    limit: u64,
    stopped: AtomicBool,
}

impl Search<'_> {
    fn threshold(&self) -> f64 {
        lock(self.best).threshold()
    }

    /// The children of a node with `placed` letters, best bound first, each with its bound
    /// (its exact entropy when it completes the string).
    fn children(
        &self,
        classes: &Classes,
        letters: &Letters,
        placed: usize,
    ) -> Vec<(f64, Letters, Option<Classes>)> {
        let prev = placed.checked_sub(1).map(|p| letters[p]);
        let threshold = self.threshold();
        let mut out: Vec<(f64, Letters, Option<Classes>)> = self
            .space
            .choices(placed)
            .iter()
            .filter(|&&x| self.space.allows(prev, x))
            .map(|&x| {
                let mut next = *letters;
                next[placed] = x;
                if placed + 1 == BOARD {
                    // A full string: its entropy, and no classes to carry.
                    return (entropy_of(self.answers, next), next, None);
                }
                let classes = classes.place(self.answers, placed, x);
                let bound = bound_until(
                    self.answers,
                    self.space,
                    &classes,
                    placed + 1,
                    threshold - EPS,
                );
                (bound, next, Some(classes))
            })
            .collect();
        self.nodes.fetch_add(out.len() as u64, Ordering::Relaxed);
        out.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        out
    }

    fn descend(&self, classes: &Classes, letters: Letters, placed: usize) {
        if self.nodes.load(Ordering::Relaxed) >= self.limit {
            self.stopped.store(true, Ordering::Relaxed);
            return;
        }
        for (bound, next, child) in self.children(classes, &letters, placed) {
            if bound < self.threshold() - EPS {
                break;
            }
            match child {
                Some(child) => self.descend(&child, next, placed + 1),
                None => lock(self.best).offer(Scored {
                    letters: next,
                    bits: bound,
                }),
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
