//! The resumable run on one machine: core's in-memory search at full speed, with every
//! settled first guess written to the run database by a background writer (off the search's
//! critical path). A restarted run loads them, restores the incumbent and skips them; the
//! finished run stores its solution in the same format as a coordinator's run, so `hakase
//! query`, `chart`, `display` and `runs` work on it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hakase_core::solver::{
    Checkpoint, FirstGuessValue, FirstGuesses, Progress, Solution, Solver, SolverConfig,
};
use hakase_core::{FeedbackTable, Game, GuessId};

use crate::ClusterError;
use hakase_runs::{Reopened, RunScope, Store};

/// How a checkpointed run works.
#[derive(Debug, Clone)]
pub struct CheckpointOptions {
    /// The run database directory.
    pub db: PathBuf,
    /// Threads of the search (rayon); `None` uses every core.
    pub threads: Option<usize>,
    /// In-memory memo entries of the solver.
    pub memo_entries: usize,
    /// Longest time a settled first guess waits in memory before it is on disk.
    pub sync_every: Duration,
}

/// What a checkpointed run gives back.
#[derive(Debug, Clone)]
pub struct CheckpointOutcome {
    /// The proven-optimal solution, exactly as the in-memory solver gives it.
    pub solution: Arc<Solution>,
    /// First guesses found settled in the database at start (a first guess counts once per
    /// guess budget it was settled at).
    pub resumed: usize,
    /// The guess budgets they were settled at: more than one for the worst-case objective,
    /// which first refutes the smaller budgets first guess by first guess.
    pub resumed_budgets: usize,
    /// True when the finished run's stored solution was read back, with nothing searched.
    pub stored: bool,
    /// What the open read back, damage included: a resume that recomputes damaged work says
    /// so (see [`Reopened`]).
    pub reopened: Reopened,
    /// Search nodes scanned by this process.
    pub nodes: u64,
}

/// The database side of [`Checkpoint`]: what was stored, and a channel to the writer.
struct RunCheckpoint<'a> {
    stored: HashMap<u32, Vec<FirstGuessValue>>,
    sender: Mutex<Sender<(u32, FirstGuessValue)>>,
    stop: &'a AtomicBool,
}

impl Checkpoint for RunCheckpoint<'_> {
    fn settled(&self, guesses_left: u32) -> Vec<FirstGuessValue> {
        self.stored.get(&guesses_left).cloned().unwrap_or_default()
    }

    fn record(&self, guesses_left: u32, value: FirstGuessValue) {
        // The writer outlives the search; a send can only fail once it has failed itself,
        // and its error is reported when it is joined.
        let _ = self
            .sender
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .send((guesses_left, value));
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// How often the ranking file is rewritten while first guesses settle: often enough for a
/// person watching, rare enough that a ranking of 12,972 rows costs nothing.
const RANKING_FILE_EVERY: Duration = Duration::from_secs(2);

/// The ranking as the writer has seen it settle, for the run's ranking file.
struct Tally<'a> {
    values: HashMap<(u32, GuessId), FirstGuessValue>,
    /// The budget of the latest value: the one the search is at.
    budget: u32,
    /// First guesses to settle at that budget (from the search's progress).
    total: &'a AtomicUsize,
    last_written: Option<Instant>,
}

impl Tally<'_> {
    fn add(&mut self, budget: u32, value: FirstGuessValue) {
        self.budget = budget;
        self.values.insert((budget, value.guess), value);
    }

    /// Rewrites the ranking file when it is due (or `now`).
    fn write(&mut self, store: &Store, now: bool) -> Result<(), ClusterError> {
        if !now
            && self
                .last_written
                .is_some_and(|t| t.elapsed() < RANKING_FILE_EVERY)
        {
            return Ok(());
        }
        let mut ranking: Vec<FirstGuessValue> = self
            .values
            .iter()
            .filter(|((budget, _), _)| *budget == self.budget)
            .map(|(_, v)| *v)
            .collect();
        // The solver's order, except that ties go by id: the search order is not known
        // here, and the finished solution rewrites the file in its own order.
        ranking.sort_by_key(|v| (v.outcome.value(), !v.outcome.is_exact(), v.guess));
        let total = self.total.load(Ordering::Relaxed).max(ranking.len());
        store.put_ranking_file(&ranking, total, self.budget, false)?;
        self.last_written = Some(Instant::now());
        Ok(())
    }
}

/// Writes settled first guesses in arrival order, in batches, syncing at most every
/// `every`: the search never waits on the disk, and a kill -9 loses at most that long.
fn write_settled(
    store: &Store,
    inbox: Receiver<(u32, FirstGuessValue)>,
    every: Duration,
    tally: &mut Tally<'_>,
) -> Result<(), ClusterError> {
    let mut batch = Vec::new();
    let mut last_sync = Instant::now();
    loop {
        let open = match inbox.recv_timeout(every) {
            Ok(item) => {
                batch.push(item);
                batch.extend(inbox.try_iter());
                true
            }
            Err(RecvTimeoutError::Timeout) => true,
            Err(RecvTimeoutError::Disconnected) => false,
        };
        if !batch.is_empty() {
            store.put_settled(&batch)?;
            for (budget, value) in batch.drain(..) {
                tally.add(budget, value);
            }
            if last_sync.elapsed() >= every || !open {
                store.flush()?;
                last_sync = Instant::now();
                // After the flush: the file never shows a value the database could lose.
                tally.write(store, !open)?;
            }
        }
        if !open {
            store.flush()?;
            return tally.write(store, true);
        }
    }
}

/// Solves `game` under `config` with the in-memory search, checkpointing to `opts.db`:
/// the best first guess, or for a ranking `scope` the exact value of every first guess it
/// names. Returns `Ok(None)` when `stop` was set first; everything settled is then on disk
/// and the same call resumes from it.
pub fn run_checkpointed(
    game: &Game,
    table: &FeedbackTable,
    config: SolverConfig,
    scope: &RunScope,
    opts: &CheckpointOptions,
    stop: &AtomicBool,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Option<CheckpointOutcome>, ClusterError> {
    let store = Store::open_scoped(&opts.db, game, &config, scope)?;
    if let Some(solution) = store.solution()? {
        return Ok(Some(CheckpointOutcome {
            solution: Arc::new(solution),
            resumed: 0,
            resumed_budgets: 0,
            stored: true,
            reopened: store.reopened().clone(),
            nodes: 0,
        }));
    }
    let first = match scope {
        RunScope::Best => FirstGuesses::Best,
        RunScope::RankAll => FirstGuesses::RankAll,
        RunScope::Listed(list) => FirstGuesses::Listed(list),
    };
    let total = AtomicUsize::new(0);
    let mut tally = Tally {
        values: HashMap::new(),
        budget: 0,
        total: &total,
        last_written: None,
    };
    let mut stored: HashMap<u32, Vec<FirstGuessValue>> = HashMap::new();
    let mut resumed = 0;
    for (budget, value) in store.load_settled()? {
        stored.entry(budget).or_default().push(value);
        tally.add(budget, value);
        resumed += 1;
    }
    let stored_budgets = stored.len();
    let solver = Solver::new(game, table, config, opts.memo_entries);
    let (sender, inbox) = mpsc::channel();
    let checkpoint = RunCheckpoint {
        stored,
        sender: Mutex::new(sender),
        stop,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads.unwrap_or(0))
        .build()
        .map_err(|e| ClusterError::Transport(format!("starting the search threads: {e}")))?;
    let counted = |p: Progress| {
        total.store(p.total, Ordering::Relaxed);
        progress(p)
    };
    let (solution, written) = std::thread::scope(|scope| {
        let writer = scope.spawn(|| write_settled(&store, inbox, opts.sync_every, &mut tally));
        let solution = pool.install(|| solver.solve_game_with(first, &counted, &checkpoint));
        drop(checkpoint);
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(ClusterError::Transport("the writer panicked".into())));
        (solution, written)
    });
    written?;
    let Some(solution) = solution else {
        store.touch()?;
        store.flush()?;
        return Ok(None);
    };
    store.put_solution(&solution)?;
    Ok(Some(CheckpointOutcome {
        solution: Arc::new(solution),
        resumed,
        resumed_budgets: stored_budgets,
        stored: false,
        reopened: store.reopened().clone(),
        nodes: solver.nodes_searched(),
    }))
}
