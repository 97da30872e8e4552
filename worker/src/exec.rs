//! Solving one job with the core solver: the cutoff contract of `evaluate` turned into a
//! [`JobAnswer`], with the optimal subtree for exact answers.

use std::sync::Arc;
use std::time::Instant;

use hakase_core::solver::{Outcome, Solver, SolverConfig};
use hakase_core::{FeedbackTable, Game};
use hakase_proto::job::{JobAnswer, JobKind, JobSpec};

use crate::memo::SledMemo;

/// Everything needed to solve jobs of one run: the game, its table and a solver whose memo
/// is shared by every job of the process. The game and table live as long as the process,
/// which lets the solver be shared across threads without lifetimes.
pub struct Workbench {
    /// The game being solved.
    pub game: &'static Game,
    /// Its feedback table.
    pub table: &'static FeedbackTable,
    /// The solver, shared by concurrent jobs.
    pub solver: Solver<'static>,
    /// The persistent memo behind the solver, if any (flushed before results are reported).
    pub memo: Option<Arc<SledMemo>>,
}

impl Workbench {
    /// A workbench over `game` with `memo` (or an in-memory table of `memo_entries`).
    pub fn new(
        game: Game,
        config: SolverConfig,
        memo: Option<Arc<SledMemo>>,
        memo_entries: usize,
    ) -> Workbench {
        let game: &'static Game = Box::leak(Box::new(game));
        let table: &'static FeedbackTable = Box::leak(Box::new(FeedbackTable::build(game)));
        Workbench::with_table(game, table, config, memo, memo_entries)
    }

    /// A workbench over a game and table that already live as long as the process.
    pub fn with_table(
        game: &'static Game,
        table: &'static FeedbackTable,
        config: SolverConfig,
        memo: Option<Arc<SledMemo>>,
        memo_entries: usize,
    ) -> Workbench {
        let solver = match &memo {
            Some(memo) => Solver::with_memo(game, table, config, memo.clone()),
            None => Solver::new(game, table, config, memo_entries),
        };
        Workbench {
            game,
            table,
            solver,
            memo,
        }
    }

    /// Makes every memo fact learned so far durable.
    pub fn flush(&self) -> Result<(), crate::WorkerError> {
        match &self.memo {
            Some(memo) => memo.flush(),
            None => Ok(()),
        }
    }
}

/// Solves `spec` with cutoff `beta`. Exact answers carry the optimal subtree, which the
/// memo makes cheap to rebuild right after the search.
pub fn solve_job(solver: &Solver<'_>, spec: &JobSpec, beta: u32) -> JobAnswer {
    let started = Instant::now();
    let nodes_before = solver.nodes_searched();
    let (outcome, tree) = match spec.kind {
        JobKind::Node => {
            let outcome = solver.evaluate(&spec.node, beta);
            let tree = match outcome {
                Outcome::Exact { .. } => solver.tree(&spec.node),
                Outcome::AtLeast(_) => None,
            };
            (outcome, tree)
        }
        JobKind::Guess(guess) => {
            let outcome = solver.evaluate_guess(&spec.node, guess, beta);
            let tree = match outcome {
                Outcome::Exact { .. } => solver.tree_with_first(&spec.node, guess),
                Outcome::AtLeast(_) => None,
            };
            (outcome, tree)
        }
    };
    // An exact value without a tree would be a solver bug; report a bound instead of a
    // result the coordinator cannot use.
    let outcome = match (outcome, &tree) {
        (Outcome::Exact { .. }, None) => Outcome::AtLeast(beta),
        (o, _) => o,
    };
    JobAnswer {
        beta,
        outcome,
        tree,
        nodes: solver.nodes_searched().saturating_sub(nodes_before),
        millis: started.elapsed().as_millis() as u64,
    }
}
