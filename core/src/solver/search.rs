//! The branch and bound itself: exact values below a cutoff, proven bounds above it.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;
use xxhash_rust::xxh3::Xxh3;

use super::bounds::min_total;
use super::floor::ROW_READ_MIN;
use super::halt::{halted, Halt};
use super::hard::HardState;
use super::local::{LocalPatterns, LOCAL_MIN};
use super::memo::{MemoEntry, MemoKey};
use super::scan::GuessStat;
use super::{Mode, Node, Outcome, Solver, Work, INFEASIBLE};
use crate::rules::game::{AnswerId, GuessId};
use crate::rules::pattern::Pattern;
use crate::trees::tree::Tree;

/// A node being searched: what every step of its search needs.
#[derive(Clone, Copy)]
struct Here<'a> {
    set: &'a [AnswerId],
    depth: u32,
    hard: &'a HardState,
    /// The guesses children need to scan (see [`Solver::inheritable`]).
    pool: Option<&'a [GuessId]>,
    /// The parts each guess of `pool` makes here: at most what it makes in any child.
    pool_parts: Option<&'a [u8]>,
    /// The pool's patterns over this node's candidates, when worth copying out (see the
    /// `local` module).
    local: Option<&'a LocalPatterns>,
    /// The widest split any guess makes here: a bound on every child's branching.
    branching: u32,
    /// The best bound among guesses the scan left out for being above the cutoff.
    skipped_floor: u32,
    /// The caller's request to give up, if it may make one.
    halt: Option<&'a Halt>,
}

/// Sets at least this large search their guesses in parallel.
const PARALLEL_MIN: usize = 48;

/// Sets at most this large first look for a candidate that splits them perfectly.
const PERFECT_CHECK_MAX: usize = 48;

impl Solver<'_> {
    /// The value of a candidate set with `depth` guesses left: exact when below `beta`,
    /// otherwise a lower bound ≥ `beta`. Once `halt` is set the outcome means nothing and
    /// nothing more is kept in the memo (see the `halt` module).
    pub(crate) fn solve(
        &self,
        set: &[AnswerId],
        depth: u32,
        hard: &HardState,
        inherited: Option<&[GuessId]>,
        (beta, halt): (u32, Option<&Halt>),
    ) -> Outcome {
        let halt = self.halt_of(halt);
        // An optimal strategy never plays a guess that does not shrink the set, so it never
        // needs more than n guesses: deeper budgets are all the same subproblem.
        let depth = depth.min(set.len() as u32);
        if let Some(outcome) = self.without_search(set, depth, beta) {
            return outcome;
        }
        let key = self.key(set, depth, hard);
        if let Some(outcome) = self
            .memo
            .get(key)
            .and_then(|entry| self.remembered(entry, beta))
        {
            return outcome;
        }
        if halted(halt) {
            return Outcome::AtLeast(INFEASIBLE);
        }
        self.stats.nodes.fetch_add(1, Ordering::Relaxed);
        let mut scan = self.scan(set, depth, hard, inherited, beta);
        if depth >= 3 {
            self.drop_dominated(set, &mut scan);
        }
        let searched = scan.floor < beta && self.cheap_optimum(&scan.guesses).is_none();
        let local = (searched && depth >= 3)
            .then(|| self.local_patterns(set, &scan.pool, &scan.pool_parts))
            .flatten();
        let here = Here {
            set,
            depth,
            hard,
            pool: self.inheritable().then_some(scan.pool.as_slice()),
            pool_parts: self.inheritable().then_some(scan.pool_parts.as_slice()),
            local: local.as_ref(),
            branching: scan.branching,
            skipped_floor: scan.skipped_floor,
            halt,
        };
        let floor = scan.floor;
        let outcome = if floor >= beta {
            Outcome::AtLeast(floor)
        } else if let Some(exact) = self.cheap_optimum(&scan.guesses) {
            exact
        } else if set.len() >= PARALLEL_MIN {
            self.search_parallel(&here, &scan.guesses, beta)
        } else {
            self.search_sequential(&here, &scan.guesses, beta)
        };
        let entry = match outcome {
            Outcome::Exact { value, guess } => MemoEntry {
                value,
                exact: true,
                guess,
            },
            Outcome::AtLeast(value) => MemoEntry {
                value,
                exact: false,
                guess: 0,
            },
        };
        // A node searched while a halt came may have read a child's meaningless outcome.
        if !halted(halt) {
            self.memo.put(key, entry);
        }
        outcome
    }

    /// The outcome of a node settled without a scan: too small to search (at most two
    /// answers, or no guess left to spend), bound by the cutoff already, or split perfectly
    /// by one of its candidates. `depth` is already at most the set's size.
    fn without_search(&self, set: &[AnswerId], depth: u32, beta: u32) -> Option<Outcome> {
        let n = set.len() as u32;
        match (n, depth) {
            (0, _) => return Some(Outcome::Exact { value: 0, guess: 0 }),
            (_, 0) => return Some(Outcome::AtLeast(INFEASIBLE)),
            (1, _) => {
                return Some(Outcome::Exact {
                    value: 1,
                    guess: self.game.answer_as_guess(set[0]),
                })
            }
            (_, 1) => return Some(Outcome::AtLeast(INFEASIBLE)),
            (2, _) => {
                // Guess either candidate: 1 + 2. Both are allowed in every mode.
                let a = self.game.answer_as_guess(set[0]);
                let b = self.game.answer_as_guess(set[1]);
                return Some(Outcome::Exact {
                    value: 3,
                    guess: a.min(b),
                });
            }
            _ => {}
        }
        if 2 * n > beta {
            return Some(Outcome::AtLeast(2 * n - 1));
        }
        self.perfect_candidate(set).map(|guess| Outcome::Exact {
            value: 2 * n - 1,
            guess,
        })
    }

    /// What a memo entry answers at cutoff `beta`: its exact value, or its bound when that
    /// reaches the cutoff; `None` when the node must be searched again.
    fn remembered(&self, entry: MemoEntry, beta: u32) -> Option<Outcome> {
        let outcome = if entry.exact {
            Outcome::Exact {
                value: entry.value,
                guess: entry.guess,
            }
        } else if entry.value >= beta {
            Outcome::AtLeast(entry.value)
        } else {
            return None;
        };
        self.stats.memo_hits.fetch_add(1, Ordering::Relaxed);
        Some(outcome)
    }

    /// The node's local patterns for its children's lean scans: in normal mode, and in hard
    /// mode where pools are classed; for nodes large enough to repay the copy.
    pub(crate) fn local_patterns(
        &self,
        set: &[AnswerId],
        pool: &[GuessId],
        pool_parts: &[u8],
    ) -> Option<LocalPatterns> {
        let usable = self.inheritable()
            && match self.config.mode {
                Mode::Normal => true,
                Mode::Hard => self.classed_pools(),
                Mode::Strict => false,
            };
        (usable && set.len() >= LOCAL_MIN)
            .then(|| {
                // Normal mode's children cap each guess by its parts here: read widest first.
                let parts = (self.config.mode == Mode::Normal).then_some(pool_parts);
                LocalPatterns::build(self.table, set, pool, parts)
            })
            .flatten()
    }

    /// A part's lower bound when no scan is needed: exact for one or two answers or under
    /// two guesses, 2n − 1 with a perfect candidate, or the memo's; otherwise the memo key
    /// a scan's floor is to be kept under.
    fn known_bound(
        &self,
        set: &[AnswerId],
        depth: u32,
        hard: &HardState,
        pool: Option<&[GuessId]>,
    ) -> Result<u32, MemoKey> {
        let n = set.len() as u32;
        let depth = depth.min(n);
        if n <= 2 || depth < 2 {
            return Ok(self
                .solve(set, depth, hard, pool, (INFEASIBLE, None))
                .value());
        }
        if self.perfect_candidate(set).is_some() {
            return Ok(2 * n - 1);
        }
        let key = self.key(set, depth, hard);
        self.memo.get(key).map(|entry| entry.value).ok_or(key)
    }

    fn remember_floor(&self, key: MemoKey, floor: u32) {
        let entry = MemoEntry {
            value: floor,
            exact: false,
            guess: 0,
        };
        self.memo.put(key, entry);
    }

    /// The first candidate (by guess id) that tells every other candidate apart, if any.
    ///
    /// Such a guess reaches 2n - 1, the least any guess can (one answer per guess after the
    /// first, the first winning once), and no guess that is not a candidate can: so it is the
    /// optimum, and the one a full scan would pick (smallest bound, then Σ part², then id).
    /// Checking the n candidates costs n² lookups instead of a scan of every guess; with two
    /// or more guesses left the budget always suffices.
    pub(crate) fn perfect_candidate(&self, set: &[AnswerId]) -> Option<GuessId> {
        if set.len() > PERFECT_CHECK_MAX || self.config.top_k.is_some() {
            return None;
        }
        let mut best: Option<GuessId> = None;
        for &a in set {
            let guess = self.game.answer_as_guess(a);
            if best.is_some_and(|b| b < guess) {
                continue;
            }
            let row = self.table.row(guess);
            let mut seen = [0u64; 4];
            let distinct = set.iter().all(|&b| {
                let p = row[b as usize];
                let (word, bit) = (usize::from(p >> 6), 1u64 << (p & 63));
                let fresh = seen[word] & bit == 0;
                seen[word] |= bit;
                fresh
            });
            if distinct {
                best = Some(guess);
            }
        }
        best
    }

    /// When the best-bounded guess leaves no part above two answers its bound is its exact
    /// value, and no other guess can do better than its own bound.
    fn cheap_optimum(&self, guesses: &[GuessStat]) -> Option<Outcome> {
        let first = guesses.first()?;
        (first.largest <= 2 && first.lower < INFEASIBLE).then_some(Outcome::Exact {
            value: first.lower,
            guess: first.guess,
        })
    }

    fn search_sequential(&self, here: &Here<'_>, guesses: &[GuessStat], beta: u32) -> Outcome {
        let mut best = beta;
        let mut best_guess = None;
        let mut floor = here.skipped_floor;
        for stat in guesses {
            if halted(here.halt) {
                break;
            }
            if stat.lower >= best {
                floor = floor.min(stat.lower);
                break;
            }
            match self.play(here, stat, best) {
                Outcome::Exact { value, .. } => {
                    best = value;
                    best_guess = Some(stat.guess);
                }
                Outcome::AtLeast(bound) => floor = floor.min(bound),
            }
        }
        match best_guess {
            Some(guess) => Outcome::Exact { value: best, guess },
            None => Outcome::AtLeast(floor.max(beta)),
        }
    }

    /// Parallel search over the guesses of a big node. The incumbent is (value, order index)
    /// packed in one atomic, so ties resolve to the earliest guess in order exactly as the
    /// sequential search does.
    fn search_parallel(&self, here: &Here<'_>, guesses: &[GuessStat], beta: u32) -> Outcome {
        let pack = |value: u32, index: usize| (u64::from(value) << 32) | index as u64;
        let incumbent = AtomicU64::new(pack(beta, 0));
        let floor = AtomicU32::new(here.skipped_floor);
        in_order_parallel(guesses.len(), |index| {
            if halted(here.halt) {
                return;
            }
            let stat = &guesses[index];
            let current = incumbent.load(Ordering::Acquire);
            let (value, at) = ((current >> 32) as u32, (current & 0xFFFF_FFFF) as usize);
            // An earlier guess may tie the incumbent and still win; a later one must beat it.
            let cutoff = if index < at { value + 1 } else { value };
            if stat.lower >= cutoff {
                floor.fetch_min(stat.lower, Ordering::Relaxed);
                return;
            }
            match self.play(here, stat, cutoff) {
                Outcome::Exact { value, .. } => {
                    incumbent.fetch_min(pack(value, index), Ordering::AcqRel);
                }
                Outcome::AtLeast(bound) => {
                    floor.fetch_min(bound, Ordering::Relaxed);
                }
            }
        });
        let current = incumbent.into_inner();
        let (value, at) = ((current >> 32) as u32, (current & 0xFFFF_FFFF) as usize);
        if value < beta {
            Outcome::Exact {
                value,
                guess: guesses[at].guess,
            }
        } else {
            Outcome::AtLeast(floor.into_inner().max(beta))
        }
    }

    /// Raises the bounds of a guess's big parts (largest first) by their memo entries or one
    /// lean scan each, read up to the cutoff; `Err` with the sum as soon as it reaches it, else
    /// the sum of the raised bounds.
    fn quick_bounds(
        &self,
        here: &Here<'_>,
        word: &crate::rules::word::Word,
        parts: &[(Pattern, Vec<AnswerId>)],
        bounds: &mut [u32],
        (running, beta): (u32, u32),
    ) -> Result<u32, u32> {
        let (depth, hard, pool) = (here.depth, here.hard, here.pool);
        let mut sum = Sum { running, beta };
        // Cheapest bounds first: one scan per big part, before any deep search. The parts
        // read along the guesses' rows (a prefix, largest first) are scanned together.
        let together = match self.config.mode {
            // Local rows are short: reading them once for all parts saves little, and the
            // parts read one by one stop as soon as the sum reaches the cutoff.
            _ if here.local.is_some() => 0,
            Mode::Normal | Mode::Hard => parts
                .iter()
                .take_while(|(_, part)| part.len() >= ROW_READ_MIN)
                .count(),
            Mode::Strict => 0,
        };
        if together > 0 {
            let mut pending = Vec::new();
            for (index, (pattern, part)) in parts[..together].iter().enumerate() {
                let child_hard = self.child_hard(hard, word, *pattern);
                match self.known_bound(part, depth - 1, &child_hard, pool) {
                    Ok(tighter) => sum.raise(&mut bounds[index], tighter)?,
                    Err(key) => pending.push((index, key, child_hard)),
                }
            }
            let sets: Vec<(&[AnswerId], (u32, u32), HardState)> = pending
                .iter()
                .map(|(index, _, child_hard)| {
                    let (part, bound) = (parts[*index].1.as_slice(), bounds[*index]);
                    (part, (bound, sum.ceiling(bound)), child_hard.clone())
                })
                .collect();
            // The parts need only lift the sum to the cutoff: each is read up to its share.
            let need = sum.beta - sum.running;
            let floors =
                self.floors_together(&sets, depth - 1, (pool, here.pool_parts), Some(need));
            // Every floor read is kept before the sum may stop early below.
            for ((_, key, _), &(floor, _)) in pending.iter().zip(&floors) {
                self.remember_floor(*key, floor);
            }
            let mut short = Vec::new();
            for (at, ((index, _, _), (floor, aimed))) in pending.iter().zip(floors).enumerate() {
                sum.raise(&mut bounds[*index], floor)?;
                if aimed {
                    short.push(at);
                }
            }
            // The aims fell short together: the parts that reached theirs are read on, one at
            // a time, up to the cutoff.
            for at in short {
                let (index, key, child_hard) = &pending[at];
                let (part, bound) = (parts[*index].1.as_slice(), bounds[*index]);
                let tighter = self.floor_with(
                    part,
                    (depth - 1, bound, sum.ceiling(bound)),
                    child_hard,
                    (pool, here.pool_parts, here.local),
                );
                self.remember_floor(*key, tighter);
                sum.raise(&mut bounds[*index], tighter)?;
            }
        }
        // The other parts one at a time, largest first, each read up to the cutoff; but first
        // every bound the memo holds, which may reach the cutoff before any part is read.
        let mut pending = Vec::new();
        for (index, (pattern, part)) in parts.iter().enumerate().skip(together) {
            if part.len() <= 2 {
                break;
            }
            let child_hard = self.child_hard(hard, word, *pattern);
            let depth = (depth - 1).min(part.len() as u32);
            let known = if depth < 2 {
                self.known_bound(part, depth, &child_hard, pool)
            } else {
                let key = self.key(part, depth, &child_hard);
                self.memo.get(key).map(|entry| entry.value).ok_or(key)
            };
            match known {
                Ok(tighter) => sum.raise(&mut bounds[index], tighter)?,
                Err(key) => pending.push((index, depth, key, child_hard)),
            }
        }
        for (index, depth, key, child_hard) in pending {
            let (part, bound) = (parts[index].1.as_slice(), bounds[index]);
            // A candidate that tells the others apart makes the part worth 2n − 1.
            let floor = match self.perfect_candidate(part) {
                Some(_) => 2 * part.len() as u32 - 1,
                None => {
                    let floor = self.floor_with(
                        part,
                        (depth, bound, sum.ceiling(bound)),
                        &child_hard,
                        (pool, here.pool_parts, here.local),
                    );
                    self.remember_floor(key, floor);
                    floor
                }
            };
            sum.raise(&mut bounds[index], floor)?;
        }
        Ok(sum.running)
    }

    /// The value of playing one scanned guess, with cutoff `beta`: parts are searched largest
    /// first, each with the budget the others' bounds leave.
    fn play(&self, here: &Here<'_>, stat: &GuessStat, beta: u32) -> Outcome {
        let Here {
            set,
            depth,
            hard,
            pool,
            branching,
            ..
        } = *here;
        let word = &self.game.guesses()[stat.guess as usize];
        let mut parts = self.split(set, stat.guess);
        parts.sort_by_key(|(_, part)| std::cmp::Reverse(part.len()));
        // Start every part at its best proven bound: the memo's when it has one, else the
        // level-filling bound (2s - 1 when guesses can split widely). Parts of one or two
        // answers are exact at 1 and 3. Each bound is replaced by the part's value as it is
        // searched, and the guess is abandoned as soon as the sum reaches the cutoff.
        let mut bounds: Vec<u32> = Vec::with_capacity(parts.len());
        let mut running = set.len() as u32;
        for (_, part) in &parts {
            let bound = min_total(part.len() as u32, depth - 1, branching);
            running = running.saturating_add(bound).min(INFEASIBLE);
            bounds.push(bound);
        }
        if running >= beta {
            return Outcome::AtLeast(running);
        }
        let mut running = match self.quick_bounds(here, word, &parts, &mut bounds, (running, beta))
        {
            Ok(running) => running,
            Err(reached) => return Outcome::AtLeast(reached),
        };
        for ((pattern, part), own) in parts.iter().zip(&bounds).filter(|(p, _)| p.1.len() > 2) {
            let others = running - own;
            let child_hard = self.child_hard(hard, word, *pattern);
            match self.solve(
                part,
                depth - 1,
                &child_hard,
                pool,
                (beta.saturating_sub(others), here.halt),
            ) {
                Outcome::Exact { value, .. } => running = others + value,
                Outcome::AtLeast(bound) => {
                    return Outcome::AtLeast(others.saturating_add(bound).min(INFEASIBLE))
                }
            }
        }
        if running < beta {
            Outcome::Exact {
                value: running,
                guess: stat.guess,
            }
        } else {
            Outcome::AtLeast(running)
        }
    }

    /// The parts `guess` splits `set` into, without the winning one, in pattern order.
    pub(crate) fn split(&self, set: &[AnswerId], guess: GuessId) -> Vec<(Pattern, Vec<AnswerId>)> {
        crate::rules::history::open_parts(self.table, guess, set)
    }

    pub(crate) fn child_hard(
        &self,
        hard: &HardState,
        word: &crate::rules::word::Word,
        pattern: Pattern,
    ) -> HardState {
        if self.config.mode == Mode::Hard {
            hard.after(word, pattern)
        } else {
            HardState::default()
        }
    }

    /// The value of playing `guess` at `node` with cutoff `beta`, whether or not the rules'
    /// ordering would try it; the parts are searched in parallel when no cutoff applies.
    pub(crate) fn solve_guess(&self, node: &Node, guess: GuessId, beta: u32) -> Outcome {
        self.solve_guess_reporting(node, guess, beta, &|_| {}, None)
    }

    /// [`Solver::solve_guess`], calling `on_part` with where the guess stands ([`PartStep`])
    /// before its parts are searched and as each part searched in parallel settles.
    pub(crate) fn solve_guess_reporting(
        &self,
        node: &Node,
        guess: GuessId,
        beta: u32,
        on_part: &(dyn Fn(PartStep) + Sync),
        halt: Option<&Halt>,
    ) -> Outcome {
        let set = &node.candidates;
        let word = &self.game.guesses()[guess as usize];
        let parts = self.split(set, guess);
        let n = set.len() as u32;
        if parts.len() == 1 && parts[0].1.len() == set.len() {
            return Outcome::AtLeast(INFEASIBLE);
        }
        let wins_outright = set.len() == 1 && parts.is_empty();
        if node.guesses_left == 0 || (node.guesses_left == 1 && !wins_outright) {
            return Outcome::AtLeast(INFEASIBLE);
        }
        // Each part costs at least what filling its levels costs, no guess splitting any set
        // more widely than any guess splits all the answers.
        let part_bound =
            |p: &Vec<AnswerId>| min_total(p.len() as u32, node.guesses_left - 1, self.widest_split);
        let lower = parts
            .iter()
            .map(|(_, p)| part_bound(p))
            .fold(n, |sum, bound| sum.saturating_add(bound))
            .min(INFEASIBLE);
        if lower >= beta {
            return Outcome::AtLeast(lower);
        }
        if beta < INFEASIBLE {
            // A cutoff is set (first guesses ranked against the best so far): search the parts
            // one after another, cheapest bounds first, so each tightens the others' budget.
            let here = Here {
                set,
                depth: node.guesses_left,
                hard: &node.hard,
                pool: None,
                pool_parts: None,
                local: None,
                branching: self.widest_split,
                skipped_floor: INFEASIBLE,
                halt,
            };
            let stat = GuessStat {
                guess,
                lower,
                squares: 0,
                largest: parts.iter().map(|(_, p)| p.len() as u32).max().unwrap_or(0),
            };
            return self.play(&here, &stat, beta);
        }
        let squares: f64 = parts.iter().map(|(_, p)| (p.len() as f64).powi(2)).sum();
        let step = Mutex::new(PartStep {
            settled: 0,
            parts: parts.len(),
            lower,
            work: Work {
                total: squares,
                ..Work::default()
            },
        });
        on_part(*step.lock().unwrap_or_else(|p| p.into_inner()));
        let values: Vec<Outcome> = parts
            .par_iter()
            .map(|(pattern, part)| {
                let own = part_bound(part);
                let hard = self.child_hard(&node.hard, word, *pattern);
                let outcome = self.solve(
                    part,
                    node.guesses_left - 1,
                    &hard,
                    None,
                    (beta.saturating_sub(lower - own), halt),
                );
                let now = {
                    let mut step = step.lock().unwrap_or_else(|p| p.into_inner());
                    step.settled += 1;
                    step.lower = step
                        .lower
                        .saturating_sub(own)
                        .saturating_add(outcome.value())
                        .min(INFEASIBLE);
                    step.work.done += (part.len() as f64).powi(2);
                    *step
                };
                on_part(now);
                outcome
            })
            .collect();
        let mut total = n;
        let mut exact = true;
        for outcome in values {
            total = total.saturating_add(outcome.value());
            exact &= outcome.is_exact();
        }
        let total = total.min(INFEASIBLE);
        if exact && total < beta {
            Outcome::Exact {
                value: total,
                guess,
            }
        } else {
            Outcome::AtLeast(total.max(beta))
        }
    }

    /// The least value of playing one of the guesses at positions `range` of the node's
    /// search order ([`Solver::guess_order`]), with cutoff `beta`: exact when below `beta`
    /// (the first guess in order among those of least value), else a lower bound ≥ `beta`.
    /// A distributed search shares the second guesses of one huge part among workers with
    /// it, each searched as the in-memory search plays them (with the node's scan, its pool
    /// and its branching). It covers only those guesses, so it is never kept as the node's
    /// value; positions past the order's end are no guess at all.
    pub fn evaluate_slice(&self, node: &Node, range: std::ops::Range<usize>, beta: u32) -> Outcome {
        self.slice(node, range, beta, None)
    }

    /// [`Solver::evaluate_slice`], given up once `halt` is set.
    pub(crate) fn slice(
        &self,
        node: &Node,
        range: std::ops::Range<usize>,
        beta: u32,
        halt: Option<&Halt>,
    ) -> Outcome {
        let set = node.candidates.as_slice();
        if set.len() < 3 || node.guesses_left < 2 {
            return self.slice_one_by_one(node, range, (beta, halt));
        }
        let scan = self.order_scan(node);
        let end = range.end.min(scan.guesses.len());
        let guesses = &scan.guesses[range.start.min(end)..end];
        if guesses.is_empty() {
            return Outcome::AtLeast(INFEASIBLE);
        }
        // The slice plays its own positions of the order but those a finer guess beats, and
        // its children read the pool, as the in-memory search does at this node: so the
        // slices of a node together play exactly the guesses the node plays, in its order.
        let children = self.slice_children.get_or_scan(node, || {
            let (pool, pool_parts, dominated, local) = if node.guesses_left >= 3 {
                let (pool, pool_parts, dominated) = self.undominated(set, &scan);
                let local = self.local_patterns(set, &pool, &pool_parts);
                (pool, pool_parts, dominated, local)
            } else {
                let (pool, parts) = (scan.pool.clone(), scan.pool_parts.clone());
                (pool, parts, Default::default(), None)
            };
            SliceChildren {
                pool,
                pool_parts,
                dominated,
                local,
            }
        });
        let kept: Vec<GuessStat>;
        let guesses = if children.dominated.is_empty() {
            guesses
        } else {
            kept = guesses
                .iter()
                .filter(|g| !children.dominated.contains(&g.guess))
                .copied()
                .collect();
            if kept.is_empty() {
                // Each guess here has a finer one elsewhere in the order, worth as little.
                return Outcome::AtLeast(INFEASIBLE);
            }
            &kept
        };
        let here = Here {
            set,
            depth: node.guesses_left.max(2),
            hard: &node.hard,
            pool: self.inheritable().then_some(children.pool.as_slice()),
            pool_parts: self.inheritable().then_some(children.pool_parts.as_slice()),
            local: children.local.as_ref(),
            branching: scan.branching,
            skipped_floor: INFEASIBLE,
            halt,
        };
        if set.len() >= PARALLEL_MIN {
            self.search_parallel(&here, guesses, beta)
        } else {
            self.search_sequential(&here, guesses, beta)
        }
    }

    /// [`Solver::evaluate_slice`] on a node too small for a scan of its own (at most two
    /// answers, or one guess left): each guess of the slice played as a lone guess.
    fn slice_one_by_one(
        &self,
        node: &Node,
        range: std::ops::Range<usize>,
        (beta, halt): (u32, Option<&Halt>),
    ) -> Outcome {
        let order = self.guess_order(node).guesses;
        let end = range.end.min(order.len());
        let mut best: Option<(u32, GuessId)> = None;
        let mut floor = INFEASIBLE;
        for bound in &order[range.start.min(end)..end] {
            if halted(halt) {
                break;
            }
            let cutoff = best.map_or(beta, |(value, _)| value);
            match self.solve_guess_reporting(node, bound.guess, cutoff, &|_| {}, halt) {
                Outcome::Exact { value, guess } => best = Some((value, guess)),
                Outcome::AtLeast(value) => floor = floor.min(value),
            }
        }
        match best {
            Some((value, guess)) => Outcome::Exact { value, guess },
            None => Outcome::AtLeast(floor.max(beta)),
        }
    }

    /// The optimal tree below `node` (re-solving whatever the memo no longer holds).
    /// `None` when the node cannot be won within its guesses.
    pub fn tree(&self, node: &Node) -> Option<Tree> {
        let outcome = self.solve(
            &node.candidates,
            node.guesses_left,
            &node.hard,
            None,
            (INFEASIBLE, None),
        );
        let Outcome::Exact { guess, .. } = outcome else {
            return None;
        };
        self.tree_with_first(node, guess)
    }

    /// The optimal tree below `node` when `guess` is played first.
    pub fn tree_with_first(&self, node: &Node, guess: GuessId) -> Option<Tree> {
        let word = &self.game.guesses()[guess as usize];
        let parts = self.split(&node.candidates, guess);
        let children: Option<Vec<(Pattern, Tree)>> = parts
            .par_iter()
            .map(|(pattern, part)| {
                let child = Node {
                    candidates: part.clone(),
                    guesses_left: node.guesses_left.checked_sub(1)?,
                    hard: self.child_hard(&node.hard, word, *pattern),
                };
                Some((*pattern, self.tree(&child)?))
            })
            .collect();
        Some(Tree {
            guess,
            branches: children?,
        })
    }

    /// The memo key of a subproblem.
    pub(crate) fn key(&self, set: &[AnswerId], depth: u32, hard: &HardState) -> MemoKey {
        let mut hasher = Xxh3::new();
        hasher.update(&self.salt);
        hasher.update(&depth.to_le_bytes());
        if self.config.mode == Mode::Hard {
            for green in hard.greens {
                hasher.update(&[
                    green.map_or(0, |l| l.wrapping_add(1)),
                    u8::from(green.is_some()),
                ]);
            }
            for (letter, copies) in &hard.at_least {
                hasher.update(&[*letter, *copies]);
            }
            hasher.update(&[0xFF]);
        }
        for &a in set {
            hasher.update(&a.to_le_bytes());
        }
        MemoKey(hasher.digest128())
    }
}

/// What the children of a sliced node read, kept with its order scan: the pool without the
/// guesses a finer one beats, and the local patterns of that pool.
pub(crate) struct SliceChildren {
    pool: Vec<GuessId>,
    pool_parts: Vec<u8>,
    /// The node's guesses a finer guess beats (see `dominance`): no slice plays them.
    dominated: rustc_hash::FxHashSet<GuessId>,
    local: Option<LocalPatterns>,
}

/// Where the search of a lone first guess stands after a part settles: what its progress
/// line shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PartStep {
    pub settled: usize,
    pub parts: usize,
    /// A proven lower bound on the guess's total: parts settled at their values (or bounds),
    /// the others at 2n − 1.
    pub lower: u32,
    /// The parts by the square of their size, the rough cost measure of a part.
    pub work: Work,
}

/// Runs `work(i)` for every `i < len` on all of rayon's threads, handing out indices in
/// increasing order so the most promising guesses (first in order) are searched first and
/// set the cutoff for the rest.
pub(crate) fn in_order_parallel(len: usize, work: impl Fn(usize) + Sync) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = rayon::current_num_threads().min(len).max(1);
    (0..threads).into_par_iter().for_each(|_| loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= len {
            break;
        }
        work(index);
    });
}

/// The running sum of a guess's part bounds, against the cutoff it is searched with.
struct Sum {
    running: u32,
    beta: u32,
}

impl Sum {
    /// The value of a part now bounded by `bound` at which the sum reaches the cutoff: no
    /// scan of the part needs to know more.
    fn ceiling(&self, bound: u32) -> u32 {
        self.beta - (self.running - bound)
    }

    /// Raises a part's bound to `tighter`; `Err` with the sum once it reaches the cutoff.
    fn raise(&mut self, bound: &mut u32, tighter: u32) -> Result<(), u32> {
        if tighter > *bound {
            self.running = (self.running + (tighter - *bound)).min(INFEASIBLE);
            *bound = tighter;
            if self.running >= self.beta {
                return Err(self.running);
            }
        }
        Ok(())
    }
}
