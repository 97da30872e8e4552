//! The worst-case objective's own search: can a set be solved within d more guesses?
//!
//! Only feasibility matters here, so the search answers yes or no and never adds up totals: a
//! guess works when every one of its parts can be solved within d − 1 guesses. Guesses are tried
//! by their largest part (minimax order), so a working guess is usually the first tried, and a
//! guess is abandoned at its first part that cannot be solved (largest parts first).
//!
//! Every shortcut below only ever says "no" when no strategy exists, and "yes" when one does:
//! - within d guesses at most 1 + K + … + K^(d−1) answers can be found, where K is the most
//!   non-winning parts any allowed guess makes on the set: each guess wins at most one answer,
//!   and a subset is never split into more parts, so K bounds every node below
//!   ([`super::bounds::capacity`]). The same bound with d − 1 guesses rules out every guess whose largest part
//!   is bigger than that before anything is searched below it;
//! - with two guesses left a set is solvable exactly when one guess gives every answer its own
//!   pattern, which the lean floor scan at depth 2 answers;
//! - n guesses always suffice for n answers (play candidates one at a time: a candidate is
//!   allowed in every mode, and each wrong one removes itself), and a candidate that tells the
//!   others apart solves any set within two.
//!
//! Facts are monotone in d (solvable within d ⇒ solvable within d + 1), so the memo keeps, per
//! set, the largest budget proven too small and the smallest proven enough.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::bounds::min_depth;
use super::halt::halted;
use super::hard::HardState;
use super::root::{Checkpoint, FirstGuessValue, FirstGuesses, Progress};
use super::search::in_order_parallel;
use super::sizes::Sizes;
use super::{Node, Outcome, Solver, Work, INFEASIBLE};
use crate::rules::game::{AnswerId, GuessId};

/// What is proven about one set (and hard-mode state): it cannot be solved within `fails`
/// guesses and can be within `holds`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reach {
    fails: u32,
    holds: u32,
}

/// Entries the depth memo keeps before it forgets its older half.
pub(crate) const REACH_ENTRIES: usize = 4_000_000;

/// Sets at least this large try their guesses on every thread.
const PARALLEL_MIN: usize = 48;

impl Solver<'_> {
    /// The fewest guesses that always win from `node`, at most its guesses left; `None` when it
    /// cannot be won within them. Proven by the depth-only search, without any totals.
    pub fn least_worst_case(&self, node: &Node) -> Option<u32> {
        let n = node.candidates.len() as u32;
        if n == 0 {
            return Some(0);
        }
        let start = self.depth_start(&node.candidates, &node.hard);
        (start..=node.guesses_left)
            .find(|&d| self.within(&node.candidates, d, &node.hard, None, u32::MAX))
    }

    /// The first budget worth trying at a node: the counting bound from the widest split.
    pub(crate) fn depth_start(&self, set: &[AnswerId], hard: &HardState) -> u32 {
        let branching = self.split_sizes(set, hard, None).branching;
        min_depth(set.len() as u32, branching).max(1)
    }

    /// The smallest budget up to `cap` at which the game can always be won (from `first` when
    /// it names one guess). `Some(None)` when no budget up to `cap` suffices; `None` when the
    /// checkpoint asked to stop first. Reports each first guess tried at each budget.
    ///
    /// Each first guess refuted at a budget is recorded to the checkpoint as infeasible there
    /// ([`Outcome::AtLeast`] of [`INFEASIBLE`]), and skipped when the checkpoint already holds
    /// that: a search killed while proving a budget too small resumes where it was.
    pub(crate) fn least_budget(
        &self,
        first: FirstGuesses,
        cap: u32,
        progress: &(dyn Fn(Progress) + Sync),
        checkpoint: &dyn Checkpoint,
    ) -> Option<Option<u32>> {
        let root = self.root(cap);
        let set = &root.candidates;
        let sizes = self.split_sizes(set, &root.hard, None);
        let pool: Vec<GuessId> = sizes.guesses.iter().map(|s| s.guess).collect();
        let pool = self.inheritable().then_some(pool.as_slice());
        let guesses: Vec<GuessId> = first.select(by_largest_part(sizes.guesses));
        let branching = sizes.branching;
        let start = min_depth(set.len() as u32, branching).max(1);
        for budget in start..=cap {
            let refuted: HashSet<GuessId> = checkpoint
                .settled(budget)
                .into_iter()
                .filter(|v| v.outcome == Outcome::AtLeast(INFEASIBLE))
                .map(|v| v.guess)
                .collect();
            let found = AtomicBool::new(false);
            let done = AtomicUsize::new(0);
            in_order_parallel(guesses.len(), |index| {
                if found.load(Ordering::Acquire) || checkpoint.stopped() {
                    return;
                }
                let guess = guesses[index];
                if refuted.contains(&guess) {
                    // Proven too small for this guess before the search was stopped.
                } else if self.guess_within(set, guess, budget, &root.hard, pool, branching) {
                    found.store(true, Ordering::Release);
                } else {
                    checkpoint.record(
                        budget,
                        FirstGuessValue {
                            guess,
                            outcome: Outcome::AtLeast(INFEASIBLE),
                        },
                    );
                }
                let done = done.fetch_add(1, Ordering::Relaxed) + 1;
                progress(Progress {
                    done,
                    total: guesses.len(),
                    best: None,
                    guesses_left: budget,
                    parts: None,
                    lower: None,
                    // The search stops at the first guess that wins within the budget: no
                    // cost model says when that is.
                    work: Work::counted(done, guesses.len()),
                });
            });
            if found.into_inner() {
                return Some(Some(budget));
            }
            if checkpoint.stopped() {
                return None;
            }
        }
        Some(None)
    }

    /// True when `set` can always be solved within `depth` guesses. `branching` bounds the
    /// non-winning parts any guess makes on it (a superset's widest split, or `u32::MAX`).
    pub(crate) fn within(
        &self,
        set: &[AnswerId],
        depth: u32,
        hard: &HardState,
        pool: Option<&[GuessId]>,
        branching: u32,
    ) -> bool {
        let n = set.len() as u32;
        if n <= depth {
            return true;
        }
        if depth <= 1 || (self.depth_capacity)(depth, branching) < u64::from(n) {
            return false;
        }
        // From here n > depth ≥ 2.
        if self.perfect_candidate(set).is_some() {
            return true;
        }
        let key = self.key(set, 0, hard);
        if let Some(known) = self.reach.get(key) {
            if depth <= known.fails {
                return false;
            }
            if depth >= known.holds {
                return true;
            }
        }
        if halted(self.halt_of(None)) {
            return false;
        }
        let holds = if depth == 2 {
            self.floor(set, (2, INFEASIBLE), hard, pool, None) < INFEASIBLE
        } else {
            self.within_by_search(set, depth, hard, pool)
        };
        // A search halted meanwhile may have answered "no" for nothing: keep no fact of it.
        if halted(self.halt_of(None)) {
            return false;
        }
        self.reach.update(key, |known| {
            let mut reach = known.unwrap_or(Reach { fails: 1, holds: n });
            if holds {
                reach.holds = reach.holds.min(depth);
            } else {
                reach.fails = reach.fails.max(depth);
            }
            reach
        });
        holds
    }

    /// [`Solver::within`] by trying the guesses, for depth ≥ 3.
    fn within_by_search(
        &self,
        set: &[AnswerId],
        depth: u32,
        hard: &HardState,
        pool: Option<&[GuessId]>,
    ) -> bool {
        self.stats.nodes.fetch_add(1, Ordering::Relaxed);
        let sizes = self.split_sizes(set, hard, pool);
        let branching = sizes.branching;
        if (self.depth_capacity)(depth, branching) < set.len() as u64 {
            return false;
        }
        // Guesses with a part too big for the guesses left after them are never tried.
        let room = (self.depth_capacity)(depth - 1, branching);
        let children: Vec<GuessId> = sizes.guesses.iter().map(|s| s.guess).collect();
        let pool = self.inheritable().then_some(children.as_slice());
        let fitting: Vec<Sizes> = sizes
            .guesses
            .into_iter()
            .filter(|s| u64::from(s.largest) <= room)
            .collect();
        let guesses = by_largest_part(fitting);
        let works = |&guess: &GuessId| self.guess_within(set, guess, depth, hard, pool, branching);
        if set.len() >= PARALLEL_MIN {
            guesses.par_iter().any(works)
        } else {
            guesses.iter().any(works)
        }
    }

    /// True when playing `guess` now leaves every part solvable within `depth − 1` guesses
    /// (`branching` bounds the parts' splits, as for [`Solver::within`]).
    pub(crate) fn guess_within(
        &self,
        set: &[AnswerId],
        guess: GuessId,
        depth: u32,
        hard: &HardState,
        pool: Option<&[GuessId]>,
        branching: u32,
    ) -> bool {
        if depth == 0 {
            return set.is_empty();
        }
        let mut parts = self.split(set, guess);
        if parts.len() == 1 && parts[0].1.len() == set.len() {
            return false; // learns nothing: never part of a strategy the search counts
        }
        parts.sort_by_key(|(_, part)| std::cmp::Reverse(part.len()));
        let word = &self.game.guesses()[guess as usize];
        parts.iter().all(|(pattern, part)| {
            let child = self.child_hard(hard, word, *pattern);
            self.within(part, depth - 1, &child, pool, branching)
        })
    }
}

/// Guesses by their largest part, then Σ part², then list position: the minimax order, in
/// which a guess that works is usually found first.
fn by_largest_part(mut sizes: Vec<Sizes>) -> Vec<GuessId> {
    sizes.sort_unstable_by_key(|s| (s.largest, s.squares, s.guess));
    sizes.into_iter().map(|s| s.guess).collect()
}

#[cfg(test)]
mod tests {
    use super::super::bounds::capacity;
    use super::super::{Mode, Node, Solver, SolverConfig, INFEASIBLE};
    use crate::rules::game::{AnswerId, Game, WordListInput};
    use crate::rules::pattern::PatternStyle;
    use crate::rules::table::FeedbackTable;

    fn xorshift(state: &mut u64, below: u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state % below
    }

    fn game(guesses: &[String], answers: &[String]) -> Game {
        Game::new(
            "tiny",
            WordListInput::from_words("guesses", guesses),
            WordListInput::from_words("answers", answers),
            8,
            PatternStyle::Letters,
        )
        .expect("valid game")
    }

    /// Near-identical answers (two varying letters, then "abc") that are also the only
    /// guesses: every guess sees at most nine patterns, so the counting bound is often tight.
    fn narrow_game(state: &mut u64) -> Game {
        const LETTERS: [char; 8] = ['p', 'q', 'r', 's', 't', 'u', 'v', 'w'];
        let mut answers: Vec<String> = Vec::new();
        while answers.len() < 30 {
            let x = LETTERS[xorshift(state, 8) as usize];
            let y = LETTERS[xorshift(state, 8) as usize];
            let w: String = [x, y, 'a', 'b', 'c'].iter().collect();
            if !answers.contains(&w) {
                answers.push(w);
            }
        }
        game(&answers, &answers)
    }

    /// Words over a three-letter alphabet, plus shorter guesses: repeated letters everywhere.
    fn abc_game(state: &mut u64) -> Game {
        let mut word = |len: usize| -> String {
            (0..len)
                .map(|_| ['a', 'b', 'c'][xorshift(state, 3) as usize])
                .collect()
        };
        let mut answers: Vec<String> = Vec::new();
        while answers.len() < 24 {
            let w = word(5);
            if !answers.contains(&w) {
                answers.push(w);
            }
        }
        let mut guesses = answers.clone();
        while guesses.len() < 34 {
            let w = word(3 + guesses.len() % 3);
            if !guesses.contains(&w) {
                guesses.push(w);
            }
        }
        game(&guesses, &answers)
    }

    /// How often the depth-only search, run with the counting bound `capacity`, disagrees
    /// with the total search (a set is solvable within d exactly when its least total within d
    /// is finite) on random answer sets of small games, in every mode.
    fn disagreements(capacity: fn(u32, u32) -> u64) -> usize {
        let mut wrong = 0;
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for round in 0..12 {
            let game = if round % 3 == 0 {
                abc_game(&mut state)
            } else {
                narrow_game(&mut state)
            };
            let table = FeedbackTable::build(&game);
            for mode in [Mode::Normal, Mode::Hard, Mode::Strict] {
                let config = SolverConfig {
                    mode,
                    ..SolverConfig::default()
                };
                let mut solver = Solver::new(&game, &table, config, 1 << 14);
                solver.depth_capacity = capacity;
                for _ in 0..12 {
                    let bits = xorshift(&mut state, u64::MAX);
                    let node = Node {
                        candidates: game
                            .all_answers()
                            .into_iter()
                            .filter(|a| (bits >> (a % 64)) & 3 != 0)
                            .collect::<Vec<AnswerId>>(),
                        guesses_left: 8,
                        hard: Default::default(),
                    };
                    let by_total = (1..=8).find(|&d| {
                        let at = Node {
                            guesses_left: d,
                            ..node.clone()
                        };
                        solver.evaluate(&at, INFEASIBLE).value() < INFEASIBLE
                    });
                    wrong += usize::from(solver.least_worst_case(&node) != by_total);
                }
            }
        }
        wrong
    }

    #[test]
    fn depth_search_agrees_with_the_total_search() {
        assert_eq!(disagreements(capacity), 0);
    }

    /// The comparison above must be able to fail: a counting bound one answer too strong
    /// (one answer fewer fits than really does) gives wrong worst cases.
    #[test]
    fn a_bound_one_answer_too_strong_is_caught() {
        assert!(disagreements(|d, k| capacity(d, k).saturating_sub(1)) > 0);
    }
}
