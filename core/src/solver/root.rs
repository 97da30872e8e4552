//! The top of the search: every first guess, ranked, with the best one's tree.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::search::{in_order_parallel, PartStep};
use super::{Node, Objective, Outcome, Solver, SolverConfig, Work, INFEASIBLE};
use crate::rules::game::GuessId;
use crate::trees::tree::{Evaluation, Tree};

/// A first guess and what the search proved about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirstGuessValue {
    /// The first guess.
    pub guess: GuessId,
    /// Its exact total, or a proven lower bound when it was cut off.
    pub outcome: Outcome,
}

/// Reported after each first guess is settled.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// First guesses settled so far.
    pub done: usize,
    /// First guesses to settle.
    pub total: usize,
    /// The best first guess and its total so far.
    pub best: Option<(GuessId, u32)>,
    /// The guess budget being searched (changes while the worst objective deepens).
    pub guesses_left: u32,
    /// While a lone first guess is searched (`--first W`), its parts settled and all its
    /// parts: the search of one huge first guess has no other progress to show.
    pub parts: Option<(usize, usize)>,
    /// While a lone first guess is searched, a proven lower bound on its total: the parts
    /// settled at their values, the others at their floors.
    pub lower: Option<u32>,
    /// The same progress in expected cost, for an ETA that allows for the costly first
    /// guesses.
    pub work: Work,
}

/// The result of solving a whole game.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Solution {
    /// The configuration solved for.
    pub config: SolverConfig,
    /// The guess budget of the search: the game's tries or the cap, or for the worst-case
    /// objective the optimal worst case itself.
    pub guesses_left: u32,
    /// The best first guess with its exact total; `None` when the game cannot be won within
    /// the budget.
    pub best: Option<FirstGuessValue>,
    /// Every first guess considered, best first: exact values, then lower bounds.
    pub ranking: Vec<FirstGuessValue>,
    /// True when no guess was skipped except by sound bounds.
    pub proven: bool,
    /// The optimal strategy.
    pub tree: Option<Tree>,
    /// The tree played against every answer.
    pub evaluation: Option<Evaluation>,
}

/// What to search at the root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FirstGuesses<'a> {
    /// All first guesses, cut off by the best total so far.
    #[default]
    Best,
    /// All first guesses, each to its exact value.
    RankAll,
    /// Each of these first guesses to its exact value: a ranking of the openings someone
    /// asked about, searched in the solver's own order so ties break as in a full ranking.
    Listed(&'a [GuessId]),
    /// Only this one.
    Only(GuessId),
}

impl FirstGuesses<'_> {
    /// Keeps, in `order`, the first guesses this choice searches.
    pub(crate) fn select(self, order: Vec<GuessId>) -> Vec<GuessId> {
        match self {
            FirstGuesses::Best | FirstGuesses::RankAll => order,
            // The root's scan keeps one of guesses that split alike: a listed guess it left
            // out is searched after the others, so every listed guess gets its own value.
            FirstGuesses::Listed(list) => {
                let wanted: std::collections::HashSet<GuessId> = list.iter().copied().collect();
                let mut kept: Vec<GuessId> =
                    order.into_iter().filter(|g| wanted.contains(g)).collect();
                let seen: std::collections::HashSet<GuessId> = kept.iter().copied().collect();
                let mut rest: Vec<GuessId> =
                    wanted.into_iter().filter(|g| !seen.contains(g)).collect();
                rest.sort_unstable();
                kept.extend(rest);
                kept
            }
            FirstGuesses::Only(guess) => vec![guess],
        }
    }
}

/// Lets a caller make a whole-game solve durable and interruptible: the search skips first
/// guesses the checkpoint already holds, reports each one it settles, and stops early when
/// asked. Any stored outcome is sound on its own (an exact value, or a lower bound), so the
/// result of a resumed solve is the same optimum whatever was stored and in which order.
pub trait Checkpoint: Sync {
    /// First guesses already settled at budget `guesses_left`.
    fn settled(&self, guesses_left: u32) -> Vec<FirstGuessValue>;
    /// Called once for every first guess the search settles at budget `guesses_left`.
    fn record(&self, guesses_left: u32, value: FirstGuessValue);
    /// True when the search should stop as soon as it can.
    fn stopped(&self) -> bool;
}

/// The checkpoint of a plain in-memory solve: nothing stored, never stopped.
struct NoCheckpoint;

impl Checkpoint for NoCheckpoint {
    fn settled(&self, _: u32) -> Vec<FirstGuessValue> {
        Vec::new()
    }
    fn record(&self, _: u32, _: FirstGuessValue) {}
    fn stopped(&self) -> bool {
        false
    }
}

impl Solver<'_> {
    /// Solves the game: for `total`, under the game's tries (or the cap); for `worst`, at the
    /// smallest budget that can be won, found by the depth-only search (see `depth`).
    pub fn solve_game(
        &self,
        first: FirstGuesses,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Solution {
        let cap = self.config.guess_cap(self.game);
        self.solve_game_with(first, progress, &NoCheckpoint)
            .unwrap_or_else(|| self.empty_solution(cap))
    }

    /// [`Solver::solve_game`] resuming from and recording to `checkpoint`; `None` when the
    /// checkpoint asked to stop before the search was over.
    pub fn solve_game_with(
        &self,
        first: FirstGuesses,
        progress: &(dyn Fn(Progress) + Sync),
        checkpoint: &dyn Checkpoint,
    ) -> Option<Solution> {
        let cap = self.config.guess_cap(self.game);
        let budgets: Vec<u32> = match self.config.objective {
            Objective::Total => vec![cap],
            // The smallest budget that wins, proven by the depth-only search, then the least
            // total within it; when none does, the cap's (empty) ranking.
            Objective::Worst if self.config.is_exact() => {
                let least = self.least_budget(first, cap, progress, checkpoint)?;
                vec![least.unwrap_or(cap)]
            }
            // A restricted search deepens with its own (restricted) total search, so that its
            // budget and its total come from the same guesses.
            Objective::Worst => {
                let root = self.root(cap);
                (self.depth_start(&root.candidates, &root.hard)..=cap).collect()
            }
        };
        let mut last = None;
        for guesses_left in budgets {
            let solution = self.solve_at(guesses_left, first, progress, checkpoint)?;
            if solution.best.is_some() {
                return Some(solution);
            }
            last = Some(solution);
        }
        Some(last.unwrap_or_else(|| self.empty_solution(cap)))
    }

    fn empty_solution(&self, guesses_left: u32) -> Solution {
        Solution {
            config: self.config.clone(),
            guesses_left,
            best: None,
            ranking: Vec::new(),
            proven: self.config.is_exact(),
            tree: None,
            evaluation: None,
        }
    }

    fn solve_at(
        &self,
        guesses_left: u32,
        first: FirstGuesses,
        progress: &(dyn Fn(Progress) + Sync),
        checkpoint: &dyn Checkpoint,
    ) -> Option<Solution> {
        let root = self.root(guesses_left);
        let order = self.first_order(&root, first);
        let cutoffs = first == FirstGuesses::Best;
        let results = self.settle_firsts(&root, &order, cutoffs, progress, checkpoint);
        if results.iter().any(Option::is_none) && checkpoint.stopped() {
            return None;
        }
        Some(self.solution_of(&root, &order, results))
    }

    /// The first guesses to search at `root`, in the solver's order.
    fn first_order(&self, root: &Node, first: FirstGuesses) -> Vec<GuessId> {
        match first {
            FirstGuesses::Only(guess) => vec![guess],
            _ => first.select(
                self.scan(
                    &root.candidates,
                    root.guesses_left.max(2),
                    &root.hard,
                    None,
                    INFEASIBLE,
                )
                .guesses
                .iter()
                .map(|s| s.guess)
                .collect(),
            ),
        }
    }

    /// The outcome of each first guess of `order` (`None` where a stop came first): those the
    /// checkpoint holds, the others searched in parallel in order (a ranking's in reverse),
    /// each cut off by the best exact value so far when `cutoffs` allows.
    fn settle_firsts(
        &self,
        root: &Node,
        order: &[GuessId],
        cutoffs: bool,
        progress: &(dyn Fn(Progress) + Sync),
        checkpoint: &dyn Checkpoint,
    ) -> Vec<Option<Outcome>> {
        let guesses_left = root.guesses_left;
        // What the checkpoint holds: an exact value always counts, a bound only where
        // cutoffs are allowed (a full ranking needs every value exact).
        let stored: HashMap<GuessId, Outcome> = checkpoint
            .settled(guesses_left)
            .into_iter()
            .filter(|v| cutoffs || v.outcome.is_exact())
            .map(|v| (v.guess, v.outcome))
            .collect();
        let results: Vec<Option<Outcome>> = order.iter().map(|g| stored.get(g).copied()).collect();
        let start = results
            .iter()
            .enumerate()
            .filter_map(|(index, r)| match r {
                Some(Outcome::Exact { value, .. }) => Some(pack(*value, index)),
                _ => None,
            })
            .fold(pack(INFEASIBLE, 0), u64::min);
        let mut pending: Vec<usize> = (0..order.len())
            .filter(|&index| results[index].is_none())
            .collect();
        // A ranking has no cutoffs to set early: it starts from the end of the order (high
        // bounds, large parts: the costliest), as a coordinator's ranking does, so the long
        // searches run beside the short ones instead of alone at the end.
        if !cutoffs {
            pending.reverse();
        }
        let costs = self.progress_weights(root, order, cutoffs);
        let resumed: f64 = (0..order.len())
            .filter(|&index| results[index].is_some())
            .map(|index| costs[index])
            .sum();
        // First guesses settled, and the expected cost of those settled and of those being
        // searched, counted together.
        let done = Mutex::new((order.len() - pending.len(), resumed, 0.0));
        let total_cost: f64 = costs.iter().sum();
        let incumbent = AtomicU64::new(start);
        let results = Mutex::new(results);
        in_order_parallel(pending.len(), |at_pending| {
            if checkpoint.stopped() {
                return;
            }
            let index = pending[at_pending];
            lock(&done).2 += costs[index];
            let (value, at) = unpack(incumbent.load(Ordering::Acquire));
            let beta = match (cutoffs, index < at) {
                (false, _) => INFEASIBLE,
                (true, true) => value.saturating_add(1).min(INFEASIBLE),
                (true, false) => value,
            };
            // A lone first guess reports its parts as they settle.
            let outcome = if order.len() == 1 {
                let (value, at) = unpack(incumbent.load(Ordering::Acquire));
                let best = (value < INFEASIBLE).then(|| (order[at], value));
                let on_part = |step: PartStep| {
                    progress(Progress {
                        done: 0,
                        total: 1,
                        best,
                        guesses_left,
                        parts: Some((step.settled, step.parts)),
                        lower: Some(step.lower),
                        work: step.work,
                    })
                };
                self.solve_guess_reporting(root, order[index], beta, &on_part, None)
            } else {
                self.evaluate_guess(root, order[index], beta)
            };
            // Recorded before the incumbent is published: a bound cut off by this value is
            // then always recorded after the value that justifies it.
            checkpoint.record(
                guesses_left,
                FirstGuessValue {
                    guess: order[index],
                    outcome,
                },
            );
            if let Outcome::Exact { value, .. } = outcome {
                incumbent.fetch_min(pack(value, index), Ordering::AcqRel);
            }
            lock(&results)[index] = Some(outcome);
            let (value, at) = unpack(incumbent.load(Ordering::Acquire));
            let (count, cost, running) = {
                let mut done = lock(&done);
                done.0 += 1;
                done.1 += costs[index];
                done.2 -= costs[index];
                *done
            };
            progress(Progress {
                done: count,
                total: order.len(),
                best: (value < INFEASIBLE).then(|| (order[at], value)),
                guesses_left,
                parts: None,
                lower: None,
                work: Work {
                    done: cost,
                    running,
                    total: total_cost,
                    resumed,
                },
            });
        });
        results.into_inner().unwrap_or_else(|p| p.into_inner())
    }

    /// The solution the outcomes of `order` make: the ranking, the best, its tree and how
    /// the tree plays.
    fn solution_of(
        &self,
        root: &Node,
        order: &[GuessId],
        results: Vec<Option<Outcome>>,
    ) -> Solution {
        let mut ranking: Vec<(usize, FirstGuessValue)> = order
            .iter()
            .zip(results)
            .enumerate()
            .map(|(index, (&guess, outcome))| {
                (
                    index,
                    FirstGuessValue {
                        guess,
                        outcome: outcome.unwrap_or(Outcome::AtLeast(0)),
                    },
                )
            })
            .collect();
        // By value, an exact value before a bound equal to it; equal values keep search
        // order, which is the tie-break the whole solver uses.
        ranking.sort_by_key(|(index, v)| (v.outcome.value(), !v.outcome.is_exact(), *index));
        let ranking: Vec<FirstGuessValue> = ranking.into_iter().map(|(_, v)| v).collect();
        let best = ranking
            .first()
            .copied()
            .filter(|v| v.outcome.is_exact() && v.outcome.value() < INFEASIBLE);
        let tree = best.and_then(|b| self.tree_with_first(root, b.guess));
        let evaluation = tree
            .as_ref()
            .map(|t| t.evaluate(self.game, self.table, &root.candidates));
        Solution {
            config: self.config.clone(),
            guesses_left: root.guesses_left,
            best,
            ranking,
            proven: self.config.is_exact(),
            tree,
            evaluation,
        }
    }

    /// True when the rules allow `guess` at `node`.
    pub fn is_allowed(&self, node: &Node, guess: GuessId) -> bool {
        self.allowed_guesses(&node.candidates, &node.hard)
            .contains(&guess)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The incumbent of a parallel root search in one atomic word: its value, then its index in
/// search order, so that `fetch_min` keeps the best value and, among equals, the first.
fn pack(value: u32, index: usize) -> u64 {
    (u64::from(value) << 32) | index as u64
}

/// The (value, index) that [`pack`] made.
fn unpack(packed: u64) -> (u32, usize) {
    ((packed >> 32) as u32, (packed & 0xFFFF_FFFF) as usize)
}
