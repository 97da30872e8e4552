//! The worker from start to stop: open the cache and the job log, find the coordinator,
//! register, and hand each registration to the loop its run needs (search jobs or puzzle
//! days) until the run is over, the worker is asked to stop, or the coordinator refuses it.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;

use hakase_proto::v1::RegisterReply;
use tokio::sync::watch;

use crate::client::{client, wait, Backoff};
use crate::error::{Chain, WorkerError};
use crate::exec::Workbench;
use crate::joblog::JobLog;
use crate::memo::SledMemo;
use crate::options::{game_bytes, WorkerOptions, WorkerSummary, MAX_GAME_CHANGES};
use crate::session::{register, After, Session};
use hakase_runs::sled_guard::{self, SledDamage};

/// Runs the worker until the run finishes or `shutdown` resolves. Finished jobs are reported
/// before the worker stops; jobs still being solved are left to lease expiry.
pub async fn run(
    opts: WorkerOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<WorkerSummary, WorkerError> {
    let stop = stop_on(shutdown);
    let db = opts.cache.as_deref().map(open_cache).transpose()?;
    let log = match &opts.job_log {
        Some(path) => Some(Arc::new(JobLog::open(path)?)),
        None => None,
    };
    let mut summary = WorkerSummary::default();
    if let Some(metrics) = &opts.metrics {
        metrics.set_slots(opts.slots);
    }
    let Some(opts) = with_address(opts, &stop).await? else {
        return Ok(summary);
    };
    let mut client = client(&opts)?;
    let mut bench = CurrentBench::default();
    let mut games = 0;
    let mut again = Backoff::default();
    let mut first = true;
    while let Some(reply) = register(&mut client, &opts, &stop).await? {
        if !bench.is_for(&reply) {
            games += 1;
            if games > MAX_GAME_CHANGES {
                return Err(WorkerError::Refused(format!(
                    "the coordinator changed its game {} times; giving up on it (is it \
                     misconfigured, or not the coordinator you meant?)",
                    games - 1
                )));
            }
        }
        let current = bench
            .for_run(&reply, &opts, db.as_ref(), &mut summary)
            .await?;
        if let Some(metrics) = &opts.metrics {
            metrics.use_bench(&current);
        }
        let session = Session {
            client: &mut client,
            opts: &opts,
            reply: &reply,
            bench: current,
            log: log.clone(),
            stop: &stop,
            summary: &mut summary,
        };
        let after = if reply.puzzle_batch {
            crate::puzzle::run(session).await?
        } else {
            crate::work::run(session).await?
        };
        if let After::Stop = after {
            break;
        }
        // Registering again at once, over and over, is how a broken coordinator would keep
        // a worker busy rebuilding: wait a little more each time (100 ms up to 2 s).
        if !first && wait(&stop, again.next()).await {
            break;
        }
        first = false;
    }
    bench.count(&mut summary);
    Ok(summary)
}

/// A receiver that turns true once `shutdown` resolves.
fn stop_on(shutdown: impl Future<Output = ()> + Send + 'static) -> watch::Receiver<bool> {
    let (stop_tx, stop) = watch::channel(false);
    tokio::spawn(async move {
        shutdown.await;
        let _ = stop_tx.send(true);
    });
    stop
}

/// Opens the persistent memo's database in `dir`; a lock held by another process is told
/// apart from damage, which only a new cache cures.
fn open_cache(dir: &Path) -> Result<sled::Db, WorkerError> {
    sled_guard::open(dir).map_err(|damage| match damage {
        SledDamage::Error(source) if damage_is_lock(&source) => WorkerError::Cache {
            path: format!(
                "{} (is another worker using it? give each worker its own --cache)",
                dir.display()
            ),
            source,
        },
        other => WorkerError::CacheDamaged {
            path: dir.display().to_string(),
            why: other.to_string(),
        },
    })
}

/// True when sled could not take the database's lock (another process holds it).
fn damage_is_lock(error: &sled::Error) -> bool {
    SledDamage::Error(error.clone()).is_locked()
}

/// The `--connect` value that reads the coordinator's URL from the first line of standard
/// input. A launcher can then start workers before the coordinator has chosen its port:
/// their start-up (the process, the cache) overlaps the coordinator's instead of following
/// its announcement (on pokemon-verbum they registered 1–3 ms after it instead of 4–5).
pub const CONNECT_FROM_STDIN: &str = "-";

/// `opts` with the URL read from standard input when it is [`CONNECT_FROM_STDIN`]; `None`
/// when asked to stop first.
async fn with_address(
    mut opts: WorkerOptions,
    stop: &watch::Receiver<bool>,
) -> Result<Option<WorkerOptions>, WorkerError> {
    if opts.connect != CONNECT_FROM_STDIN {
        return Ok(Some(opts));
    }
    let read = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    });
    let mut stop = stop.clone();
    let line = tokio::select! {
        read = read => read
            .map_err(|e| WorkerError::Connect(format!("reading the URL: {e}")))?
            .map_err(|e| WorkerError::Connect(format!("reading the URL from standard input: {e}")))?,
        _ = stop.wait_for(|stopped| *stopped) => return Ok(None),
    };
    let url = line.trim();
    if url.is_empty() {
        return Err(WorkerError::Connect(
            "--connect -: standard input ended before a URL".into(),
        ));
    }
    opts.connect = url.to_string();
    Ok(Some(opts))
}

/// The workbench of the run last registered for, with the run it was built for: a worker
/// registering again for the same run (after a coordinator restart) keeps its table and
/// the memo in memory.
#[derive(Default)]
struct CurrentBench(Option<(String, Arc<Workbench>)>);

impl CurrentBench {
    /// True when the current workbench is `reply`'s run's (registering again costs nothing).
    fn is_for(&self, reply: &RegisterReply) -> bool {
        let key = format!("{}/{:?}", reply.fingerprint, reply.options);
        self.0
            .as_ref()
            .is_some_and(|(built_for, _)| *built_for == key)
    }

    /// The workbench for `reply`'s run: the current one when the run is the same, else a new
    /// one (the replaced one's solver counters go to `summary`).
    async fn for_run(
        &mut self,
        reply: &RegisterReply,
        opts: &WorkerOptions,
        db: Option<&sled::Db>,
        summary: &mut WorkerSummary,
    ) -> Result<Arc<Workbench>, WorkerError> {
        let key = format!("{}/{:?}", reply.fingerprint, reply.options);
        if let Some((built_for, bench)) = &self.0 {
            if *built_for == key {
                return Ok(bench.clone());
            }
        }
        self.count(summary);
        let made = build_bench(reply, opts, db).await?;
        summary.memo_loaded = made.memo.as_ref().map_or(0, |m| m.loaded());
        tracing::info!(
            game = made.game().name(),
            fingerprint = %reply.fingerprint,
            memo_loaded = summary.memo_loaded,
            "registered"
        );
        self.0 = Some((key, made.clone()));
        Ok(made)
    }

    /// Adds the current workbench's solver counters to `summary` (once: it is being replaced
    /// or the worker stops).
    fn count(&self, summary: &mut WorkerSummary) {
        if let Some((_, bench)) = &self.0 {
            summary.count(bench);
        }
    }
}

/// Builds the workbench of `reply`'s run: its game (refused unless it is the one `opts`
/// insists on), its table, and a solver over the persistent memo in `db`, if any.
async fn build_bench(
    reply: &RegisterReply,
    opts: &WorkerOptions,
    db: Option<&sled::Db>,
) -> Result<Arc<Workbench>, WorkerError> {
    let spec = reply
        .game
        .as_ref()
        .ok_or_else(|| WorkerError::Protocol("no game in the reply".into()))?;
    let need = game_bytes(spec.guesses.len(), spec.answers.len());
    if need > opts.max_game_bytes {
        return Err(WorkerError::Refused(format!(
            "the run's game ({} guesses × {} answers) needs about {} MiB here, more than this \
             worker's --max-game-mib {}",
            spec.guesses.len(),
            spec.answers.len(),
            need >> 20,
            opts.max_game_bytes >> 20
        )));
    }
    let options = (reply.options.as_ref())
        .ok_or_else(|| WorkerError::Protocol("no solver options in the reply".into()))?;
    let config = hakase_proto::options::solver_config(options)
        .map_err(|e| WorkerError::Protocol(e.to_string()))?;
    let game = hakase_proto::game::from_spec(spec, &reply.fingerprint)
        .map_err(|e| WorkerError::Protocol(Chain(&e).to_string()))?;
    if let Some(want) = &opts.fingerprint {
        if *want != reply.fingerprint {
            return Err(WorkerError::Refused(format!(
                "the run's game has fingerprint {}, this worker's {want}",
                reply.fingerprint
            )));
        }
    }
    let memo = match db {
        Some(db) => {
            let tree = db.open_tree("memo").map_err(|source| WorkerError::Cache {
                path: "memo".into(),
                source,
            })?;
            let label = opts
                .cache
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string());
            Some(Arc::new(SledMemo::open_guarded(
                tree,
                &reply.fingerprint,
                opts.memo_entries,
                opts.persist_min_value
                    .unwrap_or_else(|| crate::memo::persist_min_value(game.guesses().len())),
                &label,
            )?))
        }
        None => None,
    };
    let entries = opts.memo_entries;
    tokio::task::spawn_blocking(move || Arc::new(Workbench::new(game, config, memo, entries)))
        .await
        .map_err(|e| WorkerError::Protocol(format!("building the game: {e}")))
}
