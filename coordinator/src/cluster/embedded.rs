//! The embedded run: coordinator and workers in one process on one sled database, so a
//! single command solves a game with every core and resumes after an interruption.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hakase_core::solver::{Solution, SolverConfig, DEFAULT_MEMO_ENTRIES};
use hakase_core::Game;
use hakase_worker::{solve_job, SledMemo, Workbench};

use super::engine::{Engine, EngineParams, Snapshot};
use super::error::ClusterError;

/// How an embedded run works.
#[derive(Debug, Clone)]
pub struct EmbeddedOptions {
    /// The run database directory (`./hakase-data` by default on the command line).
    pub db: PathBuf,
    /// Jobs solved at once; each job also uses rayon's whole pool.
    pub threads: usize,
    /// Job cutting and leases.
    pub params: EngineParams,
    /// In-memory memo entries of the solver.
    pub memo_entries: usize,
    /// Memo facts with at least this value are kept in the database for later runs.
    pub persist_min_value: u32,
}

impl Default for EmbeddedOptions {
    fn default() -> Self {
        EmbeddedOptions {
            db: PathBuf::from("hakase-data"),
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            params: EngineParams::default(),
            memo_entries: DEFAULT_MEMO_ENTRIES,
            persist_min_value: DEFAULT_PERSIST_MIN_VALUE,
        }
    }
}

/// Memo facts worth a disk write: values this high belong to large subproblems.
pub const DEFAULT_PERSIST_MIN_VALUE: u32 = 40;

/// The result of a run.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The proven-optimal solution, exactly as the single-process solver gives it.
    pub solution: Arc<Solution>,
    /// Counters at the end.
    pub snapshot: Snapshot,
}

/// Solves `game` under `config` with coordinator and workers in this process. Returns
/// `Ok(None)` when `stop` was set first; everything finished so far is in the database and
/// the same call resumes from it.
pub fn run_embedded(
    game: Game,
    config: SolverConfig,
    opts: &EmbeddedOptions,
    stop: &AtomicBool,
    progress: &(dyn Fn(&Snapshot) + Sync),
) -> Result<Option<RunOutcome>, ClusterError> {
    let engine = Engine::new(game, config.clone(), &opts.db, opts.params)?;
    if let Some(solution) = engine.solution() {
        return Ok(Some(RunOutcome {
            snapshot: engine.snapshot(),
            solution,
        }));
    }
    let tree = engine
        .store()
        .db()
        .open_tree("memo")
        .map_err(|source| ClusterError::Store {
            path: opts.db.clone(),
            source,
        })?;
    let memo = Arc::new(SledMemo::open(
        tree,
        engine.game.fingerprint(),
        opts.memo_entries,
        opts.persist_min_value,
        &opts.db.display().to_string(),
    )?);
    let bench = Workbench::with_table(
        engine.game,
        engine.table,
        config,
        Some(memo.clone()),
        opts.memo_entries,
    );
    let halt = AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        scope.spawn(|| engine.drive(&halt));
        let workers: Vec<_> = (0..opts.threads.max(1))
            .map(|_| scope.spawn(|| work(&engine, &bench, &memo, &halt)))
            .collect();
        let outcome = loop {
            progress(&engine.snapshot());
            if stop.load(Ordering::Relaxed) {
                break Ok(None);
            }
            match engine.wait(Duration::from_millis(250)) {
                Ok(Some(solution)) => break Ok(Some(solution)),
                Ok(None) => {}
                Err(err) => break Err(err),
            }
        };
        halt.store(true, Ordering::Relaxed);
        engine.poke();
        let mut failure = None;
        for worker in workers {
            match worker.join() {
                Ok(Ok(())) => {}
                Ok(Err(err)) => failure = Some(err),
                Err(_) => {
                    failure = Some(ClusterError::Transport("a worker thread panicked".into()))
                }
            }
        }
        match (outcome, failure) {
            (Err(err), _) | (Ok(_), Some(err)) => Err(err),
            (Ok(found), None) => Ok(found),
        }
    });
    memo.flush()?;
    engine.flush()?;
    let solution = result?;
    progress(&engine.snapshot());
    Ok(solution.map(|solution| RunOutcome {
        solution,
        snapshot: engine.snapshot(),
    }))
}

/// One embedded worker: lease, solve, record, until the run ends or `halt` is set.
fn work(
    engine: &Engine,
    bench: &Workbench,
    memo: &SledMemo,
    halt: &AtomicBool,
) -> Result<(), ClusterError> {
    let id = engine.register(1, None)?;
    while !halt.load(Ordering::Relaxed) {
        let Some(jobs) = engine.lease(id, 1) else {
            return Ok(());
        };
        if jobs.is_empty() {
            std::thread::sleep(Duration::from_millis(2));
            continue;
        }
        for job in jobs {
            let answer = solve_job(&bench.solver, &job.spec, job.beta);
            // The engine's flush of the same database makes these facts durable too.
            memo.write()?;
            engine.complete(id, job.id, answer, false)?;
        }
    }
    Ok(())
}
