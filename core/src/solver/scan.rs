//! One pass over the allowed guesses of a node: how each splits the candidates, and the
//! lower bound on playing it. Everything the search orders and prunes by comes from here.

use std::borrow::Cow;
use std::sync::atomic::Ordering;

use rustc_hash::FxHashSet;

use super::floor::ROW_READ_MIN;
use super::hard::HardState;
use super::hard_pool::Classes;
use super::{Mode, Solver, INFEASIBLE};
use crate::heuristics::entropy::{entropy_of_counts, tie_key};
use crate::rules::game::{AnswerId, GuessId};
use crate::rules::pattern::{Pattern, PATTERNS};

/// How one guess splits a node's candidates.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GuessStat {
    pub guess: GuessId,
    /// Admissible lower bound on the node's value when this guess is played.
    pub lower: u32,
    /// Σ size² over the non-winning parts: the tie-breaking heuristic.
    pub squares: u32,
    /// Largest part.
    pub largest: u32,
}

impl GuessStat {
    /// The search order: lower bound, then Σ part², then list position, packed in one word.
    fn order(&self) -> u64 {
        (u64::from(self.lower) << 42)
            | (u64::from(self.squares.min((1 << 23) - 1)) << 19)
            | u64::from(self.guess)
    }
}

/// How a guess splits a set, from its patterns in set order: parts numbered by first
/// appearance, the winning part marked. Labelling counts the parts as it goes, and equal
/// hashes of the labels mean equal partitions (up to a 2^-128 collision chance, the same
/// standard as the memo keys).
struct Shape {
    label: [u8; PATTERNS],
    bytes: Vec<u8>,
}

/// Label of a pattern not seen yet in the row being labelled.
const UNSEEN: u8 = u8::MAX;
/// Label of the winning pattern (at most 242 other parts, so it is never a part number).
const WIN_LABEL: u8 = u8::MAX - 1;

impl Default for Shape {
    fn default() -> Self {
        let mut label = [UNSEEN; PATTERNS];
        label[WIN] = WIN_LABEL;
        Shape {
            label,
            bytes: Vec::new(),
        }
    }
}

impl Shape {
    /// Labels `row`; returns the number of non-winning parts and whether one answer wins.
    /// Branch-free: whether a pattern is new is a coin toss the predictor loses.
    fn label(&mut self, row: &[u8]) -> (u32, bool) {
        self.bytes.resize(row.len(), 0);
        let mut next = 0u8;
        let mut wins = false;
        for (out, &p) in self.bytes.iter_mut().zip(row) {
            let slot = &mut self.label[usize::from(p)];
            let fresh = *slot == UNSEEN;
            *slot = if fresh { next } else { *slot };
            next += u8::from(fresh);
            wins |= usize::from(p) == WIN;
            *out = *slot;
        }
        for &p in row {
            self.label[usize::from(p)] = UNSEEN;
        }
        self.label[WIN] = WIN_LABEL;
        (u32::from(next), wins)
    }

    /// The hash of the row last labelled.
    fn hash(&self) -> u128 {
        xxhash_rust::xxh3::xxh3_128(&self.bytes)
    }
}

/// What a scan learns about a node.
pub(crate) struct Scan {
    /// The guesses worth playing (bound below the cutoff), best first.
    pub guesses: Vec<GuessStat>,
    /// Every guess that splits the set, one per split shape, in ascending id order: all a
    /// child node needs to scan.
    pub pool: Vec<GuessId>,
    /// How many parts each guess of `pool` splits the set into (the winning one included):
    /// no subset can be split by it into more, so a child's lean scan drops it unread when
    /// that is too few (see [`Solver::floor`]).
    pub pool_parts: Vec<u8>,
    /// The widest split any allowed guess makes: a bound on the branching below.
    pub branching: u32,
    /// The smallest bound of any guess: a lower bound on the node.
    pub floor: u32,
    /// The smallest bound among the guesses not returned for playing.
    pub skipped_floor: u32,
}

const WIN: usize = Pattern::ALL_GREEN.0 as usize;

/// Guesses gathered and judged at a time by a scan.
const GATHER_BLOCK: usize = 256;

/// The ordering statistics of a guess worth playing, from its patterns over the set.
fn split_stat(guess: GuessId, lower: u32, row: &[u8], counts: &mut [u16; PATTERNS]) -> GuessStat {
    let mut squares = 0u32;
    let mut largest = 0u16;
    for &p in row {
        let slot = &mut counts[usize::from(p)];
        if usize::from(p) != WIN {
            squares += 2 * u32::from(*slot) + 1;
        }
        *slot += 1;
        largest = largest.max(*slot);
    }
    for &p in row {
        counts[usize::from(p)] = 0;
    }
    GuessStat {
        guess,
        lower,
        squares,
        largest: u32::from(largest),
    }
}

impl Solver<'_> {
    /// The guesses the rules allow at a node (before any top-k restriction).
    pub(crate) fn allowed_guesses(&self, set: &[AnswerId], hard: &HardState) -> Cow<'_, [GuessId]> {
        match self.config.mode {
            Mode::Normal => Cow::Borrowed(&self.every_guess),
            Mode::Hard => match self.hard_allowed(hard) {
                None => Cow::Borrowed(&self.every_guess),
                Some(allowed) => Cow::Owned(allowed.ids()),
            },
            Mode::Strict => {
                let mut ids: Vec<GuessId> =
                    set.iter().map(|&a| self.game.answer_as_guess(a)).collect();
                ids.sort_unstable();
                Cow::Owned(ids)
            }
        }
    }

    /// The guesses a child node needs to consider, given the ones its parent scanned: a guess
    /// that did not split the parent cannot split a subset of it, and guesses that split the
    /// parent identically split every subset identically. `None` means "scan from the rules".
    pub(crate) fn inheritable(&self) -> bool {
        self.config.mode != Mode::Strict && self.config.top_k.is_none()
    }

    /// Scans the allowed guesses of a node with `depth` guesses left (depth ≥ 2, |set| ≥ 2),
    /// restricted to `inherited` when the parent already narrowed them down.
    ///
    /// Guesses that do not split the set are dropped (they are never part of an optimum), and
    /// of guesses that split it identically only the one with the smallest id is kept. Only
    /// guesses whose bound is below `beta` are returned for playing; the others are
    /// summarised by the smallest of their bounds.
    pub(crate) fn scan(
        &self,
        set: &[AnswerId],
        depth: u32,
        hard: &HardState,
        inherited: Option<&[GuessId]>,
        beta: u32,
    ) -> Scan {
        let n = set.len() as u32;
        let allowed = match inherited {
            // Every allowed guess of the pool: same-shape guesses differ in hard mode.
            Some(list) if self.config.mode == Mode::Hard => {
                Cow::Owned(self.hard_pool(hard, list, false))
            }
            _ => self.scannable(set, hard, inherited),
        };
        self.stats.scans.fetch_add(1, Ordering::Relaxed);
        // Lists are in ascending id order, so the first guess of each split shape kept is the
        // one with the smallest id.
        let dedupe = self.config.mode != Mode::Hard;
        let keep_all = self.config.top_k.is_some();
        // Hard mode keeps every guess, and its pool remembers which split the set alike.
        let mut classes = (!dedupe && self.classed_pools()).then(Classes::default);
        let mut shapes: FxHashSet<u128> = FxHashSet::default();
        let mut shape = Shape::default();
        let mut scan = Scan {
            guesses: Vec::new(),
            pool: Vec::new(),
            pool_parts: Vec::new(),
            branching: 0,
            floor: INFEASIBLE,
            skipped_floor: INFEASIBLE,
        };
        let mut counts = [0u16; PATTERNS];
        let mut block = Vec::with_capacity(GATHER_BLOCK * set.len());
        // Guesses are gathered a block at a time and judged while the block is in cache.
        for guesses in allowed.chunks(GATHER_BLOCK) {
            self.gather(set, guesses, &mut block);
            for (&guess, row) in guesses.iter().zip(block.chunks_exact(set.len())) {
                let (open, wins) = shape.label(row);
                let parts = open + u32::from(wins);
                scan.branching = scan.branching.max(open);
                if open == 1 && !wins {
                    continue;
                }
                let lower = split_bound(n, depth, open, wins);
                if dedupe && !shapes.insert(shape.hash()) {
                    continue;
                }
                scan.pool.push(match classes.as_mut() {
                    Some(classes) => classes.entry(guess, shape.hash()),
                    None => guess,
                });
                scan.pool_parts.push(parts.min(u32::from(u8::MAX)) as u8);
                if lower >= INFEASIBLE {
                    continue;
                }
                scan.floor = scan.floor.min(lower);
                if lower < beta || keep_all {
                    scan.guesses
                        .push(split_stat(guess, lower, row, &mut counts));
                } else {
                    scan.skipped_floor = scan.skipped_floor.min(lower);
                }
            }
        }
        if let Some(k) = self.config.top_k {
            self.keep_top_k(set, &mut scan, k, beta, &mut counts);
        }
        scan.guesses.sort_unstable_by_key(GuessStat::order);
        scan
    }

    /// The restricted method's cut of a scan: only the `k` best guesses by entropy stay,
    /// and the floors are those of the guesses kept.
    fn keep_top_k(
        &self,
        set: &[AnswerId],
        scan: &mut Scan,
        k: usize,
        beta: u32,
        counts: &mut [u16; PATTERNS],
    ) {
        scan.guesses = self.restrict_to_top_k(set, std::mem::take(&mut scan.guesses), k, counts);
        scan.floor = scan
            .guesses
            .iter()
            .map(|s| s.lower)
            .min()
            .unwrap_or(INFEASIBLE);
        // The guesses dropped for being above the cutoff still bound the node.
        scan.skipped_floor = scan
            .guesses
            .iter()
            .map(|s| s.lower)
            .filter(|&l| l >= beta)
            .min()
            .unwrap_or(INFEASIBLE);
        scan.guesses.retain(|s| s.lower < beta);
    }

    /// The guesses a scan of a node considers: `inherited` when the parent narrowed them down
    /// (in hard mode, those the node's constraints still allow), else the rules' list.
    pub(crate) fn scannable<'s>(
        &'s self,
        set: &[AnswerId],
        hard: &HardState,
        inherited: Option<&'s [GuessId]>,
    ) -> Cow<'s, [GuessId]> {
        match inherited {
            // One guess per shape class: the floor and the sizes depend only on the splits.
            Some(list) if self.config.mode == Mode::Hard => {
                Cow::Owned(self.hard_pool(hard, list, true))
            }
            Some(list) => Cow::Borrowed(list),
            None => self.allowed_guesses(set, hard),
        }
    }

    /// The patterns of `guesses` against `set` into `out`, guess-major (`set.len()` bytes
    /// per guess); called with at most [`GATHER_BLOCK`] guesses so `out` stays in L1/L2.
    ///
    /// Large sets read each guess's row of the guess-major table (a few contiguous cache
    /// lines per guess); small sets read the answer-major columns, so the scattered writes
    /// land in the small block.
    fn gather(&self, set: &[AnswerId], guesses: &[GuessId], out: &mut Vec<u8>) {
        let n = set.len();
        out.clear();
        out.resize(n * guesses.len(), 0);
        self.stats
            .scanned_pairs
            .fetch_add((guesses.len() * n) as u64, Ordering::Relaxed);
        if n >= ROW_READ_MIN {
            for (&g, cells) in guesses.iter().zip(out.chunks_exact_mut(n)) {
                let row = self.table.row(g);
                for (cell, &a) in cells.iter_mut().zip(set) {
                    *cell = row[a as usize];
                }
            }
            return;
        }
        for (i, &a) in set.iter().enumerate() {
            let column = self.table.column(a);
            for (j, &g) in guesses.iter().enumerate() {
                out[j * n + i] = column[g as usize];
            }
        }
    }

    /// The published restricted method: the `k` guesses of highest entropy (ties to list
    /// order), plus every candidate when at most 10 remain.
    fn restrict_to_top_k(
        &self,
        set: &[AnswerId],
        guesses: Vec<GuessStat>,
        k: usize,
        counts: &mut [u16; PATTERNS],
    ) -> Vec<GuessStat> {
        let mut scored: Vec<(i64, GuessStat)> = guesses
            .into_iter()
            .map(|s| {
                let row = self.table.row(s.guess);
                for &a in set {
                    counts[row[a as usize] as usize] += 1;
                }
                let histogram: Vec<u32> = counts.iter().map(|&c| u32::from(c)).collect();
                for &a in set {
                    counts[row[a as usize] as usize] = 0;
                }
                (tie_key(entropy_of_counts(&histogram, set.len())), s)
            })
            .collect();
        scored.sort_unstable_by_key(|(bits, s)| (std::cmp::Reverse(*bits), s.guess));
        let small = set.len() <= 10;
        scored
            .into_iter()
            .enumerate()
            .filter(|(rank, (_, s))| {
                *rank < k
                    || (small
                        && self
                            .game
                            .guess_as_answer(s.guess)
                            .is_some_and(|a| set.binary_search(&a).is_ok()))
            })
            .map(|(_, (_, s))| s)
            .collect()
    }
}

/// The scan's lower bound on a node of `n` answers with `depth` guesses left when a guess
/// splits it into `open` non-winning parts, `wins` telling whether it can win at once.
pub(super) fn split_bound(n: u32, depth: u32, open: u32, wins: bool) -> u32 {
    if depth == 2 {
        // Every answer must be found by the next guess: only perfect splits work.
        if open + u32::from(wins) == n {
            n + open
        } else {
            INFEASIBLE
        }
    } else {
        // Each part of s answers costs at least 2s - 1; `play` tightens this with the
        // level-filling bound once the parts are materialised.
        3 * n - 2 * u32::from(wins) - open
    }
}
