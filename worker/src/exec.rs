//! Solving one job with the core solver: the cutoff contract of `evaluate` turned into a
//! [`JobAnswer`], with the optimal subtree for exact answers.

use std::sync::Arc;
use std::time::Instant;

use hakase_core::solver::{Halt, Outcome, Solver, SolverConfig};
use hakase_core::{FeedbackTable, Game};
use hakase_proto::job::{JobAnswer, JobKind, JobSpec};

use crate::memo::SledMemo;

/// The game and table of one run: what the run's [`Solver`] borrows.
pub struct Tables {
    game: Game,
    table: FeedbackTable,
}

self_cell::self_cell!(
    /// The tables and the solver that borrows them, owned together so that a worker serving
    /// run after run frees each one's tables with its workbench (no leak per run).
    struct Owned {
        owner: Tables,
        #[covariant]
        dependent: Solver,
    }
);

/// Everything needed to solve jobs of one run: the game, its table and a solver whose memo
/// is shared by every job of the process. Shared across threads in an `Arc`; dropping the
/// last one frees the tables.
pub struct Workbench {
    owned: Owned,
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
        let table = FeedbackTable::build(&game);
        let shared = memo.clone();
        let owned = Owned::new(Tables { game, table }, |t| match shared {
            Some(memo) => Solver::with_memo(&t.game, &t.table, config, memo),
            None => Solver::new(&t.game, &t.table, config, memo_entries),
        });
        Workbench { owned, memo }
    }

    /// The game being solved.
    pub fn game(&self) -> &Game {
        &self.owned.borrow_owner().game
    }

    /// Its feedback table.
    pub fn table(&self) -> &FeedbackTable {
        &self.owned.borrow_owner().table
    }

    /// The solver, shared by concurrent jobs.
    pub fn solver(&self) -> &Solver<'_> {
        self.owned.borrow_dependent()
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
    let never = Halt::new();
    solve_job_halting(solver, spec, beta, &never).expect("a flag nobody else holds is never set")
}

/// [`solve_job`], given up when `halt` is set before the search ends: `None` then (the
/// coordinator no longer needs the job, and nothing is reported).
pub fn solve_job_halting(
    solver: &Solver<'_>,
    spec: &JobSpec,
    beta: u32,
    halt: &Halt,
) -> Option<JobAnswer> {
    let started = Instant::now();
    let nodes_before = solver.nodes_searched();
    let (outcome, tree) = match spec.kind {
        JobKind::Node => {
            let outcome = solver.evaluate_halting(&spec.node, beta, halt)?;
            let tree = match outcome {
                Outcome::Exact { .. } => solver.tree(&spec.node),
                Outcome::AtLeast(_) => None,
            };
            (outcome, tree)
        }
        JobKind::Guess(guess) => {
            let outcome = solver.evaluate_guess_halting(&spec.node, guess, beta, halt)?;
            let tree = match outcome {
                Outcome::Exact { .. } => solver.tree_with_first(&spec.node, guess),
                Outcome::AtLeast(_) => None,
            };
            (outcome, tree)
        }
        JobKind::Slice { from, to } => {
            let range = from as usize..to as usize;
            let outcome = solver.evaluate_slice_halting(&spec.node, range, beta, halt)?;
            let tree = match outcome {
                Outcome::Exact { guess, .. } => solver.tree_with_first(&spec.node, guess),
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
    Some(JobAnswer {
        beta,
        outcome,
        tree,
        nodes: solver.nodes_searched().saturating_sub(nodes_before),
        millis: started.elapsed().as_millis() as u64,
    })
}
