//! Giving up a search midway: a worker's job that the coordinator no longer needs (its first
//! guess was refuted elsewhere, a better total cut it off, the run ended) stops within a
//! node instead of running to its end; a server's on-the-spot solve stops when its caller
//! left or when its time is up (its budget).
//!
//! Soundness: once the flag is seen set, every node still open returns a meaningless bound
//! and skips the memo. A node whose outcome read such a bound finishes after that child saw
//! the flag, so it sees the flag too (one atomic read after another, in program order or
//! across rayon's join) and keeps nothing; what was kept before stays true. The halting
//! entry points answer `None` whenever the flag is set at their end, so a caller never
//! takes a meaningless outcome for a result; a caller of a solver made with
//! [`Solver::halting_on`] asks the flag itself once the search returns.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::{GuessId, Node, Outcome, Solver};

/// A request, set from another thread, that a search give up; optionally with a deadline
/// after which it gives up by itself.
#[derive(Debug, Default)]
pub struct Halt {
    flag: AtomicBool,
    /// When searches holding this flag give up by themselves (a server's budget per request).
    deadline: Option<Instant>,
    /// True once the deadline set the flag (not a caller).
    expired: AtomicBool,
}

impl Halt {
    /// A flag not set.
    pub fn new() -> Halt {
        Halt::default()
    }

    /// A flag not set that sets itself at `deadline`: the bound on the work of one request,
    /// seen by the search at its next node or guess (well within a millisecond).
    pub fn with_deadline(deadline: Instant) -> Halt {
        Halt {
            deadline: Some(deadline),
            ..Halt::default()
        }
    }

    /// Asks the searches holding this flag to give up as soon as they look.
    pub fn halt(&self) {
        self.flag.store(true, Ordering::Release);
    }

    /// True once [`Halt::halt`] was called or the deadline passed.
    pub fn is_halted(&self) -> bool {
        if self.flag.load(Ordering::Acquire) {
            return true;
        }
        match self.deadline {
            Some(deadline) if Instant::now() >= deadline => {
                self.expired.store(true, Ordering::Release);
                self.halt();
                true
            }
            _ => false,
        }
    }

    /// True when the deadline set the flag (the work was too costly, not unwanted).
    pub fn expired(&self) -> bool {
        self.expired.load(Ordering::Acquire)
    }
}

/// Whether a search's optional flag is set.
pub(crate) fn halted(halt: Option<&Halt>) -> bool {
    halt.is_some_and(Halt::is_halted)
}

impl<'g> Solver<'g> {
    /// The same solver, every search of which gives up once `halt` is set (a server's solve
    /// for one request). The caller asks `halt` once the search returns and drops the answer
    /// when it is set. Searches given a halt of their own (the `_halting` entry points) obey
    /// that one.
    pub fn halting_on(mut self, halt: Arc<Halt>) -> Solver<'g> {
        self.halt = Some(halt);
        self
    }

    /// The halt a node's search obeys: the one it was given, else this solver's own.
    pub(crate) fn halt_of<'h>(&'h self, given: Option<&'h Halt>) -> Option<&'h Halt> {
        given.or(self.halt.as_deref())
    }
}

impl Solver<'_> {
    /// [`Solver::evaluate`], given up when `halt` is set: `None` then.
    pub fn evaluate_halting(&self, node: &Node, beta: u32, halt: &Halt) -> Option<Outcome> {
        let outcome = self.solve(
            &node.candidates,
            node.guesses_left,
            &node.hard,
            None,
            (beta, Some(halt)),
        );
        (!halt.is_halted()).then_some(outcome)
    }

    /// [`Solver::evaluate_guess`], given up when `halt` is set: `None` then.
    pub fn evaluate_guess_halting(
        &self,
        node: &Node,
        guess: GuessId,
        beta: u32,
        halt: &Halt,
    ) -> Option<Outcome> {
        let outcome = self.solve_guess_reporting(node, guess, beta, &|_| {}, Some(halt));
        (!halt.is_halted()).then_some(outcome)
    }

    /// [`Solver::evaluate_slice`], given up when `halt` is set: `None` then.
    pub fn evaluate_slice_halting(
        &self,
        node: &Node,
        range: Range<usize>,
        beta: u32,
        halt: &Halt,
    ) -> Option<Outcome> {
        let outcome = self.slice(node, range, beta, Some(halt));
        (!halt.is_halted()).then_some(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::presets::load_preset;
    use crate::rules::table::FeedbackTable;
    use crate::solver::hard::HardState;
    use crate::solver::{test_rng, SolverConfig, INFEASIBLE};
    use crate::Game;

    /// A random node of `size` Wordle answers with six guesses left.
    fn random_node(game: &Game, size: usize, seed: u64) -> Node {
        let mut next = test_rng(seed);
        let mut candidates: Vec<_> = (0..size)
            .map(|_| next(game.answers().len() as u64) as crate::rules::game::AnswerId)
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        Node {
            candidates,
            guesses_left: 6,
            hard: HardState::default(),
        }
    }

    #[test]
    fn a_search_halted_before_it_starts_answers_nothing_and_keeps_nothing() {
        let game = load_preset("wordle").expect("preset");
        let table = FeedbackTable::build(&game);
        let solver = Solver::new(&game, &table, SolverConfig::default(), 1 << 16);
        let node = random_node(&game, 300, 11);
        let halt = Halt::new();
        halt.halt();
        assert_eq!(solver.evaluate_halting(&node, INFEASIBLE, &halt), None);
        let first = solver.guess_order(&node).guesses[0].guess;
        assert_eq!(
            solver.evaluate_guess_halting(&node, first, INFEASIBLE, &halt),
            None
        );
        assert_eq!(
            solver.evaluate_slice_halting(&node, 0..4, INFEASIBLE, &halt),
            None
        );
        assert_eq!(
            solver.nodes_searched(),
            0,
            "no node is searched once halted"
        );
        let fresh = Solver::new(&game, &table, SolverConfig::default(), 1 << 16);
        assert_eq!(
            solver.evaluate(&node, INFEASIBLE),
            fresh.evaluate(&node, INFEASIBLE)
        );
    }

    /// Halted after a share of its nodes, from another thread, a search answers nothing or
    /// the optimum; finished afterwards on the same memo, it gives the fresh solver's value
    /// and tree: nothing false was kept.
    #[test]
    fn a_search_halted_midway_leaves_a_memo_that_still_gives_the_optimum() {
        let game = load_preset("wordle").expect("preset");
        let table = FeedbackTable::build(&game);
        let mut halted_midway = 0;
        for seed in 1..=6 {
            let node = random_node(&game, 400, seed);
            let fresh = Solver::new(&game, &table, SolverConfig::default(), 1 << 16);
            let optimum = fresh.evaluate(&node, INFEASIBLE);
            let nodes = fresh.nodes_searched();
            let solver = Solver::new(&game, &table, SolverConfig::default(), 1 << 16);
            let halt = Halt::new();
            let answered = std::thread::scope(|scope| {
                scope.spawn(|| {
                    while !halt.is_halted() && solver.nodes_searched() < nodes * seed / 8 {
                        std::thread::yield_now();
                    }
                    halt.halt();
                });
                let answered = solver.evaluate_halting(&node, INFEASIBLE, &halt);
                // The search may end before the share is reached: let the thread go.
                halt.halt();
                answered
            });
            // Halted at the very end, a finished search answers nothing too: the caller
            // withdrew it, so no answer is wanted.
            match answered {
                None => halted_midway += 1,
                Some(outcome) => assert_eq!(outcome, optimum, "seed {seed}"),
            }
            assert_eq!(solver.evaluate(&node, INFEASIBLE), optimum, "seed {seed}");
            assert_eq!(solver.tree(&node), fresh.tree(&node), "seed {seed}");
        }
        assert!(halted_midway > 0, "no search was halted before its end");
    }

    /// A solver given a deadline gives up once past it, says so, and keeps nothing false:
    /// the same memo still gives the optimum afterwards.
    #[test]
    fn a_deadline_halts_the_search_and_says_so() {
        let game = load_preset("wordle").expect("preset");
        let table = FeedbackTable::build(&game);
        let node = random_node(&game, 400, 3);
        let fresh = Solver::new(&game, &table, SolverConfig::default(), 1 << 16);
        let optimum = fresh.evaluate(&node, INFEASIBLE);
        let memo: Arc<dyn crate::solver::memo::Memo> =
            Arc::new(crate::solver::memo::MemoryMemo::new(1 << 16));
        // A deadline already passed: the search gives up at its first look.
        let halt = Arc::new(Halt::with_deadline(Instant::now()));
        let solver = Solver::with_memo(&game, &table, SolverConfig::default(), memo.clone())
            .halting_on(halt.clone());
        let _meaningless = solver.evaluate(&node, INFEASIBLE);
        assert!(halt.is_halted() && halt.expired());
        assert_eq!(solver.nodes_searched(), 0);
        let unbounded = Arc::new(Halt::new());
        let again = Solver::with_memo(&game, &table, SolverConfig::default(), memo)
            .halting_on(unbounded.clone());
        assert_eq!(again.evaluate(&node, INFEASIBLE), optimum);
        assert!(!unbounded.is_halted() && !unbounded.expired());
        // A caller's halt stops the searches of a halting solver too, and is no deadline.
        let caller = Arc::new(Halt::new());
        caller.halt();
        let stopped =
            Solver::new(&game, &table, SolverConfig::default(), 1 << 16).halting_on(caller.clone());
        let _ = stopped.evaluate(&node, INFEASIBLE);
        assert_eq!(stopped.nodes_searched(), 0);
        assert!(!caller.expired());
    }
}
