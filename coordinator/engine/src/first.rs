//! `solve --first W` as a run: the exact solve of one first guess stored in a run database
//! like any other run, so `runs`, `query --run`, `chart --run` and `serve` read it. The run
//! records its first guess (`meta/first`), and everything showing it says "proven optimal
//! GIVEN THE FIRST GUESS W" (worded by `hakase_core::label::Label::claim`).
//!
//! One first guess is one unit of work: an interrupted solve keeps what it settled (lower
//! budgets of the worst-case objective), a finished one answers at once when run again.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use hakase_core::solver::{
    Checkpoint, FirstGuessValue, FirstGuesses, Progress, Solution, Solver, SolverConfig,
};
use hakase_core::{FeedbackTable, Game, GuessId};

use hakase_runs::{RunError, Store};

/// What a stored first-guess solve gives back.
#[derive(Debug)]
pub struct FirstRunOutcome {
    /// The solution restricted to the first guess.
    pub solution: Solution,
    /// True when it was read back from the run rather than solved now.
    pub stored: bool,
    /// Search nodes scanned by this process.
    pub nodes: u64,
}

/// Settled budgets written straight to the run (one first guess settles a handful at most).
struct FirstCheckpoint<'a> {
    store: &'a Store,
    stored: Vec<(u32, FirstGuessValue)>,
    stop: &'a AtomicBool,
}

impl Checkpoint for FirstCheckpoint<'_> {
    fn settled(&self, guesses_left: u32) -> Vec<FirstGuessValue> {
        self.stored
            .iter()
            .filter(|(budget, _)| *budget == guesses_left)
            .map(|(_, v)| *v)
            .collect()
    }

    fn record(&self, guesses_left: u32, value: FirstGuessValue) {
        // A lost record costs only its recomputation on resume; the solve goes on.
        if self.store.put_settled(&[(guesses_left, value)]).is_ok() {
            let _ = self.store.flush();
        }
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Solves `game` with only `first` as first guess, stored in the run at `db`. A run of
/// another first guess, or of the whole game, is refused. `Ok(None)` when `stop` was set
/// before the solve finished.
#[allow(clippy::too_many_arguments)]
pub fn solve_first_run(
    game: &Game,
    table: &FeedbackTable,
    config: SolverConfig,
    first: GuessId,
    db: &Path,
    memo_entries: usize,
    pool: &rayon::ThreadPool,
    stop: &AtomicBool,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Option<FirstRunOutcome>, RunError> {
    let store = Store::open(db, game, &config)?;
    store.restrict_to_first(game.guess_text(first))?;
    let settled = store.load_settled()?;
    if let Some(solution) = store.solution()? {
        return Ok(Some(FirstRunOutcome {
            solution,
            stored: true,
            nodes: 0,
        }));
    }
    let solver = Solver::new(game, table, config, memo_entries);
    let checkpoint = FirstCheckpoint {
        store: &store,
        stored: settled,
        stop,
    };
    let solution =
        pool.install(|| solver.solve_game_with(FirstGuesses::Only(first), progress, &checkpoint));
    let Some(solution) = solution else {
        store.touch()?;
        store.flush()?;
        return Ok(None);
    };
    store.put_solution(&solution)?;
    Ok(Some(FirstRunOutcome {
        solution,
        stored: false,
        nodes: solver.nodes_searched(),
    }))
}
