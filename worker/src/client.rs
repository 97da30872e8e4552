//! The worker's loop over gRPC: register, lease jobs, solve them on blocking threads (the
//! solver itself runs on rayon), heartbeat, and report results once the memo is durable.
//! A coordinator that goes away is waited for; a refusal (token, game) ends the worker.

use std::collections::HashSet;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hakase_core::solver::Outcome;
use hakase_proto::job::{JobAnswer, JobId, JobSpec};
use hakase_proto::v1::cluster_client::ClusterClient;
use hakase_proto::v1::{
    CompleteRequest, HeartbeatRequest, Incumbent, LeaseReply, LeaseRequest, RegisterReply,
    RegisterRequest, WatchIncumbentRequest,
};
use hakase_proto::{MAX_LEASE, MAX_MESSAGE_BYTES};
use tokio::sync::{mpsc, watch, Notify};
use tokio::task::JoinSet;
use tonic::codegen::InterceptedService;
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::error::WorkerError;
use crate::exec::{solve_job, Workbench};
use crate::hold::Hold;
use crate::incumbent::SharedIncumbent;
use crate::joblog::JobLog;
use crate::memo::SledMemo;
use crate::metrics::WorkerMetrics;
use crate::runner::{ClearOnDrop, RunJob, RunQueue};
use hakase_proto::client::{channel, Auth};
use hakase_proto::explain::{explain, is_tls_failure, MAX_TLS_FAILURES};

/// How a worker connects and works.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// The coordinator's URL, e.g. `http://10.0.0.1:7700` or `https://…` with TLS.
    pub connect: String,
    /// The shared token.
    pub token: String,
    /// Jobs solved at once (each also uses rayon's pool).
    pub slots: usize,
    /// The persistent memo's directory; `None` keeps the memo in memory only.
    pub cache: Option<PathBuf>,
    /// The game fingerprint this worker insists on; `None` accepts the run's game.
    pub fingerprint: Option<String>,
    /// CA certificate (PEM) to trust for `https://` coordinators.
    pub ca_cert: Option<PathBuf>,
    /// The name to expect in the coordinator's certificate (default: the URL's host).
    pub tls_domain: Option<String>,
    /// A name for the coordinator's logs.
    pub name: String,
    /// In-memory memo entries.
    pub memo_entries: usize,
    /// Facts with at least this value are written to the cache; `None`: the game's
    /// [`crate::memo::persist_min_value`].
    pub persist_min_value: Option<u32>,
    /// Test hook: extra time spent on every job, so tests can kill a worker mid-job.
    pub job_delay: Duration,
    /// Test hook: a file recording started and acknowledged jobs.
    pub job_log: Option<PathBuf>,
    /// Counters for a metrics endpoint, updated once per job; `None`: not kept.
    pub metrics: Option<Arc<WorkerMetrics>>,
}

/// What a worker did before it stopped.
#[derive(Debug, Clone, Default)]
pub struct WorkerSummary {
    /// Results the coordinator acknowledged.
    pub jobs_done: u64,
    /// Facts the cache held at start.
    pub memo_loaded: usize,
    /// True when the run finished (false: stopped by a signal).
    pub run_finished: bool,
    /// Lease calls made.
    pub leases: u64,
    /// Leases that came with a report's acknowledgement instead (no call of their own).
    pub report_leases: u64,
    /// Time spent waiting for lease replies.
    pub lease_wait: Duration,
    /// The search solver's counters over every run served, in [`Stats::snapshot`]'s order
    /// (nodes, scans, scanned pairs, memo hits): the figures the core's `solve_cost` example
    /// prints (and the nodes `solve --in-memory` reports), so a cluster's work can be set
    /// beside one machine's. Puzzle jobs are not counted: their generator has solvers of its
    /// own.
    ///
    /// [`Stats::snapshot`]: hakase_core::solver::Stats::snapshot
    pub solver: [u64; 4],
}

impl WorkerSummary {
    /// Adds what `bench`'s solver has counted. Called once per workbench, when it is
    /// replaced or the worker stops, since its counters only grow.
    fn count(&mut self, bench: &Workbench) {
        let counted = bench.solver().stats.snapshot();
        for (total, more) in self.solver.iter_mut().zip(counted) {
            *total += more;
        }
    }
}

/// The client type workers use.
pub type Client = ClusterClient<InterceptedService<Channel, Auth>>;

/// A cluster client for `opts`.
pub fn client(opts: &WorkerOptions) -> Result<Client, WorkerError> {
    let channel = channel(
        &opts.connect,
        opts.ca_cert.as_deref(),
        opts.tls_domain.as_deref(),
    )?;
    Ok(
        ClusterClient::with_interceptor(channel, Auth::new(&opts.token)?)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES),
    )
}

/// True when sled could not take the database's lock (another process holds it).
fn damage_is_lock(error: &sled::Error) -> bool {
    crate::sled_guard::SledDamage::Error(error.clone()).is_locked()
}

/// True for errors that a retry can cure (the coordinator restarting, a dropped link).
pub(crate) fn transient(status: &Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable
            | Code::Unknown
            | Code::DeadlineExceeded
            | Code::ResourceExhausted
            | Code::Aborted
            | Code::Internal
            | Code::Cancelled
    )
}

/// Runs the worker until the run finishes or `shutdown` resolves. Finished jobs are reported
/// before the worker stops; jobs still being solved are left to lease expiry.
pub async fn run(
    opts: WorkerOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<WorkerSummary, WorkerError> {
    let (stop_tx, stop) = watch::channel(false);
    tokio::spawn(async move {
        shutdown.await;
        let _ = stop_tx.send(true);
    });
    let db = match &opts.cache {
        Some(dir) => Some(crate::sled_guard::open(dir).map_err(|damage| match damage {
            crate::sled_guard::SledDamage::Error(source) if damage_is_lock(&source) => {
                WorkerError::Cache {
                    path: format!(
                        "{} (is another worker using it? give each worker its own --cache)",
                        dir.display()
                    ),
                    source,
                }
            }
            other => WorkerError::CacheDamaged {
                path: dir.display().to_string(),
                why: other.to_string(),
            },
        })?),
        None => None,
    };
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
    let mut bench: Option<(String, Arc<Workbench>)> = None;
    let summed = |mut summary: WorkerSummary, bench: &Option<(String, Arc<Workbench>)>| {
        if let Some((_, bench)) = bench {
            summary.count(bench);
        }
        summary
    };
    loop {
        let Some(reply) = register(&mut client, &opts, &stop).await? else {
            return Ok(summed(summary, &bench));
        };
        let key = format!("{}/{:?}", reply.fingerprint, reply.options);
        let current = match &bench {
            Some((k, b)) if *k == key => b.clone(),
            _ => {
                if let Some((_, replaced)) = &bench {
                    summary.count(replaced);
                }
                let made = build_bench(&reply, &opts, db.as_ref()).await?;
                summary.memo_loaded = made.memo.as_ref().map_or(0, |m| m.loaded());
                tracing::info!(
                    game = made.game().name(),
                    fingerprint = %reply.fingerprint,
                    memo_loaded = summary.memo_loaded,
                    "registered"
                );
                bench = Some((key, made.clone()));
                made
            }
        };
        if let Some(metrics) = &opts.metrics {
            metrics.use_bench(&current);
        }
        if reply.puzzle_batch {
            use crate::puzzle::{work as make_puzzles, After};
            match make_puzzles(&mut client, &opts, &reply, current, &stop, &mut summary).await? {
                After::Stop => return Ok(summed(summary, &bench)),
                After::Register => continue,
            }
        }
        match work(
            &mut client,
            &opts,
            &reply,
            current,
            log.clone(),
            &stop,
            &mut summary,
        )
        .await?
        {
            Next::Stop => return Ok(summed(summary, &bench)),
            Next::Register => continue,
        }
    }
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

async fn register(
    client: &mut Client,
    opts: &WorkerOptions,
    stop: &watch::Receiver<bool>,
) -> Result<Option<RegisterReply>, WorkerError> {
    let mut backoff = Duration::from_millis(100);
    let mut tls_failures = 0;
    loop {
        if *stop.borrow() {
            return Ok(None);
        }
        let request = RegisterRequest {
            worker_name: opts.name.clone(),
            fingerprint: opts.fingerprint.clone().unwrap_or_default(),
            threads: opts.slots as u32,
        };
        match client.register(request).await {
            Ok(reply) => return Ok(Some(reply.into_inner())),
            // Waiting does not make TLS and plain text understand each other.
            Err(status) if is_tls_failure(&status) && tls_failures + 1 >= MAX_TLS_FAILURES => {
                return Err(WorkerError::Connect(format!(
                    "{}: {} (gave up after {MAX_TLS_FAILURES} attempts)",
                    opts.connect,
                    explain(&status)
                )));
            }
            Err(status) if transient(&status) => {
                tls_failures = if is_tls_failure(&status) {
                    tls_failures + 1
                } else {
                    0
                };
                tracing::warn!(code = ?status.code(), error = %explain(&status), "coordinator unavailable, retrying");
                if wait(stop, backoff).await {
                    return Ok(None);
                }
                backoff = (backoff * 2).min(Duration::from_secs(2));
            }
            Err(status) => return Err(WorkerError::Refused(explain(&status))),
        }
    }
}

/// Sleeps for `d`; true when asked to stop meanwhile.
pub(crate) async fn wait(stop: &watch::Receiver<bool>, d: Duration) -> bool {
    let mut stop = stop.clone();
    if *stop.borrow() {
        return true;
    }
    tokio::select! {
        _ = tokio::time::sleep(d) => false,
        _ = stop.changed() => true,
    }
}

async fn build_bench(
    reply: &RegisterReply,
    opts: &WorkerOptions,
    db: Option<&sled::Db>,
) -> Result<Arc<Workbench>, WorkerError> {
    let spec = reply
        .game
        .clone()
        .ok_or_else(|| WorkerError::Protocol("no game in the reply".into()))?;
    let options = (reply.options.as_ref())
        .ok_or_else(|| WorkerError::Protocol("no solver options in the reply".into()))?;
    let config = hakase_proto::options::solver_config(options)
        .map_err(|e| WorkerError::Protocol(e.to_string()))?;
    let game = hakase_proto::game::from_spec(&spec, &reply.fingerprint)
        .map_err(|e| WorkerError::Protocol(e.to_string()))?;
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

enum Next {
    Stop,
    Register,
}

/// How often the memo's new facts are made durable.
const MEMO_SYNC: Duration = Duration::from_secs(5);

/// Results being reported at once before the worker stops taking jobs.
const MAX_REPORTING: usize = 256;

/// How long a bound waits for others to be reported with it. Each report is a disk sync at
/// the coordinator; on a game of 2 ms jobs, one report per job or two made the coordinator's
/// syncs a seventh of the machine. At 50 ms, Wordle's 15 ms jobs went 3 to a report. An exact
/// value (which may tighten every worker's cutoff) and the last results of a worker with
/// nothing else to do are reported at once, so only bounds wait: a later bound delays no
/// cutoff.
const REPORT_DELAY: Duration = Duration::from_millis(200);

/// Results that are reported at once however young they are. Most reports go when a lease
/// is due (half the held jobs done) and carry it; at 16, pokemon-verbum's 1 ms jobs also
/// went in reports of their own between leases (70 disk syncs at the coordinator per run
/// before leases rode with reports, 47–51 after, 40–42 at 64).
const REPORT_BATCH: usize = 64;

/// What a batch report hands back.
struct Reported {
    /// Per job, whether the coordinator took the result, and the answer (for the job log).
    done: Vec<(JobId, bool, JobAnswer)>,
    /// The best total the coordinator knows.
    best: Option<Incumbent>,
    /// The lease asked for with the report, if one was.
    lease: Option<LeaseReply>,
}

/// Where a lease reply's jobs go: the same for a lease call and a lease that came with a
/// report.
struct Intake<'a> {
    incumbent: &'a SharedIncumbent,
    queue: &'a Arc<RunQueue<Started>>,
    /// Answers and guesses of the game, to check each job against.
    shape: (usize, usize),
    delay: Duration,
}

impl Intake<'_> {
    /// Queues a lease reply's new jobs to be solved and takes the incumbent it carries; with
    /// no job free, sets when to ask again. True when the reply says the run is over.
    fn take(
        &self,
        lease: LeaseReply,
        active: &mut HashSet<JobId>,
        next_lease: &mut tokio::time::Instant,
    ) -> bool {
        if lease.finished {
            tracing::debug!("the run is over");
            return true;
        }
        if let Some(best) = &lease.incumbent {
            self.incumbent.offer(best.value, best.first_index);
        }
        if lease.jobs.is_empty() {
            *next_lease =
                tokio::time::Instant::now() + Duration::from_millis(lease.retry_ms.clamp(5, 2000));
            return false;
        }
        let (answers, guesses) = self.shape;
        for job in &lease.jobs {
            let (id, spec, beta) = match JobSpec::from_proto(job, answers, guesses) {
                Ok(parsed) => parsed,
                Err(err) => {
                    tracing::warn!(%err, "skipping a malformed job");
                    continue;
                }
            };
            if !active.insert(id) {
                continue;
            }
            self.queue.push(Started {
                id,
                spec,
                beta,
                first: job.first_index.checked_sub(1),
                recheck: job.recheck,
                delay: self.delay,
            });
        }
        false
    }
}

#[allow(clippy::too_many_arguments)]
async fn work(
    client: &mut Client,
    opts: &WorkerOptions,
    reply: &RegisterReply,
    bench: Arc<Workbench>,
    log: Option<Arc<JobLog>>,
    stop: &watch::Receiver<bool>,
    summary: &mut WorkerSummary,
) -> Result<Next, WorkerError> {
    let lease_ms = reply.lease_ms.max(200);
    // Jobs run `slots` at a time; more wait leased (see `Hold`), so a finished job's slot
    // is refilled at once (jobs are often shorter than a lease round trip) while results
    // are reported in the background, one batch at a time and in the order they were found.
    let mut hold = Hold::new(opts.slots);
    let incumbent = Arc::new(SharedIncumbent::default());
    // Each message on the incumbent stream: an idle worker asks for jobs at once.
    let nudged = Arc::new(Notify::new());
    // Dropped (so stopped) when this run's work ends.
    let mut watching = JoinSet::new();
    watching.spawn(follow_incumbent(
        client.clone(),
        WatchIncumbentRequest {
            worker_id: reply.worker_id,
            fingerprint: reply.fingerprint.clone(),
            secret: reply.secret.clone(),
        },
        incumbent.clone(),
        nudged.clone(),
    ));
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<(JobId, JobAnswer, Duration)>();
    // Runs on a pool thread; a job that panics sends nothing (its lease runs out).
    let run: RunJob<Started> = {
        let (bench, incumbent, log, done, metrics) = (
            bench.clone(),
            incumbent.clone(),
            log.clone(),
            done_tx.clone(),
            opts.metrics.clone(),
        );
        Box::new(move |job: Started| {
            let started = std::time::Instant::now();
            let solved = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                job.solve(&bench, &incumbent, log.as_deref())
            }));
            let took = started.elapsed();
            if let Some(metrics) = &metrics {
                metrics.job_solved(took);
            }
            if let Ok((id, answer)) = solved {
                let _ = done.send((id, answer, took));
            }
        })
    };
    let queue = RunQueue::new(opts.slots, run);
    let _queued = ClearOnDrop(queue.clone());
    let mut reports: JoinSet<Result<Reported, WorkerError>> = JoinSet::new();
    // A report in flight carries a lease: no other lease until it is back.
    let mut lease_in_report = false;
    let mut pending: Vec<(JobId, JobAnswer)> = Vec::new();
    let mut pending_since = tokio::time::Instant::now();
    let mut in_flight = 0usize;
    let mut active: HashSet<JobId> = HashSet::new();
    let mut heartbeat = tokio::time::interval(Duration::from_millis(lease_ms / 3));
    let mut memo_sync = tokio::time::interval(MEMO_SYNC);
    let mut syncing: JoinSet<()> = JoinSet::new();
    let mut stop_rx = stop.clone();
    let mut next_lease = tokio::time::Instant::now();
    let mut backoff = Duration::from_millis(100);
    let mut finished = false;
    let intake = Intake {
        incumbent: &incumbent,
        queue: &queue,
        shape: (bench.game().answers().len(), bench.game().guesses().len()),
        delay: opts.job_delay,
    };
    let reporter = client.clone();
    let sender = Sender {
        worker_id: reply.worker_id,
        fingerprint: reply.fingerprint.as_str().into(),
        secret: reply.secret.as_str().into(),
    };
    let report_batch = |batch: Vec<(JobId, JobAnswer)>, lease_jobs: usize| {
        report(
            reporter.clone(),
            sender.clone(),
            batch,
            lease_jobs as u32,
            stop.clone(),
        )
    };
    let take = |done: Vec<(JobId, bool, JobAnswer)>,
                active: &mut HashSet<JobId>,
                summary: &mut WorkerSummary| {
        for (id, taken, answer) in done {
            if taken {
                summary.jobs_done += 1;
                if let Some(metrics) = &opts.metrics {
                    metrics.jobs_acknowledged(1);
                }
                if let Some(log) = &log {
                    log.record("acked", id, &describe(&answer));
                }
            }
            active.remove(&id);
        }
    };
    loop {
        if *stop.borrow() || (finished && active.is_empty()) {
            // Report what is already solved (one attempt when stopping), then stop.
            while let Some(joined) = reports.join_next().await {
                if let Ok(Ok(reported)) = joined {
                    take(reported.done, &mut active, summary);
                }
            }
            while let Ok((id, answer, _)) = done_rx.try_recv() {
                pending.push((id, answer));
            }
            while !pending.is_empty() {
                let batch = pending
                    .drain(..pending.len().min(MAX_LEASE as usize))
                    .collect();
                if let Ok(reported) = report_batch(batch, 0).await {
                    take(reported.done, &mut active, summary);
                }
            }
            while syncing.join_next().await.is_some() {}
            let flushing = std::time::Instant::now();
            flush(&bench).await;
            tracing::debug!(ms = flushing.elapsed().as_millis() as u64, "memo flushed");
            summary.run_finished |= finished;
            return Ok(Next::Stop);
        }
        let report_at = pending_since + REPORT_DELAY;
        let report_due = !pending.is_empty()
            && (pending.len() >= REPORT_BATCH
                || active.len() <= pending.len() + in_flight
                || tokio::time::Instant::now() >= report_at
                || pending
                    .iter()
                    .any(|(_, answer)| matches!(answer.outcome, Outcome::Exact { .. })));
        // Jobs whose results are being reported do not hold a slot (up to a limit); sending
        // the report below does not change how many are.
        let reporting = pending.len() + in_flight;
        // A lease call of its own waits until half the held jobs are done: one lease per
        // finished job made the lease round trips (each one a disk sync at the coordinator)
        // half a worker's time on a game of 2 ms jobs. A report refills every open slot, as
        // its round trip and its sync are paid anyway.
        let held = hold.jobs(incumbent.known());
        let open = held.saturating_sub(active.len().saturating_sub(reporting));
        let refill = if reporting >= MAX_REPORTING || finished {
            0
        } else {
            open.min(MAX_LEASE as usize)
        };
        let free = if refill < held.div_ceil(2).min(MAX_LEASE as usize) {
            0
        } else {
            refill
        };
        let lease_now = free > 0 && !lease_in_report && tokio::time::Instant::now() >= next_lease;
        if in_flight == 0 && !pending.is_empty() && (report_due || lease_now) {
            // A lease due goes with the results, and a report due leases what it can: one
            // round trip, and one disk sync at the coordinator, instead of two.
            let batch: Vec<_> = pending
                .drain(..pending.len().min(MAX_LEASE as usize))
                .collect();
            in_flight = batch.len();
            lease_in_report = refill > 0;
            reports.spawn(report_batch(batch, refill));
        } else if lease_now {
            let request = LeaseRequest {
                worker_id: reply.worker_id,
                fingerprint: reply.fingerprint.clone(),
                max_jobs: free as u32,
                secret: reply.secret.clone(),
            };
            let asked = std::time::Instant::now();
            let leased = client.lease(request).await;
            summary.lease_wait += asked.elapsed();
            summary.leases += 1;
            match leased {
                Ok(lease) => {
                    backoff = Duration::from_millis(100);
                    if intake.take(lease.into_inner(), &mut active, &mut next_lease) {
                        finished = true;
                        continue;
                    }
                }
                Err(status) if transient(&status) => {
                    next_lease = tokio::time::Instant::now() + backoff;
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                }
                Err(status) if status.code() == Code::FailedPrecondition => {
                    tracing::warn!(message = status.message(), "run changed, registering again");
                    return Ok(Next::Register);
                }
                Err(status) => return Err(WorkerError::Refused(explain(&status))),
            }
        }
        let lease_due = free > 0 && !lease_in_report;
        tokio::select! {
            Some((id, answer, took)) = done_rx.recv() => {
                if pending.is_empty() {
                    pending_since = tokio::time::Instant::now();
                }
                hold.record(took);
                pending.push((id, answer));
                while let Ok((id, answer, took)) = done_rx.try_recv() {
                    hold.record(took);
                    pending.push((id, answer));
                }
            }
            Some(joined) = reports.join_next() => {
                in_flight = 0;
                lease_in_report = false;
                let reported = match joined {
                    Ok(result) => result?,
                    Err(err) => return Err(WorkerError::Protocol(format!("reporting task: {err}"))),
                };
                if let Some(best) = reported.best {
                    incumbent.offer(best.value, best.first_index);
                }
                take(reported.done, &mut active, summary);
                if let Some(lease) = reported.lease {
                    summary.report_leases += 1;
                    finished |= intake.take(lease, &mut active, &mut next_lease);
                }
            }
            _ = heartbeat.tick() => {
                if !active.is_empty() {
                    let request = HeartbeatRequest {
                        worker_id: reply.worker_id,
                        job_ids: active.iter().map(|id| id.to_bytes().to_vec()).collect(),
                        secret: reply.secret.clone(),
                    };
                    match client.heartbeat(request).await {
                        Ok(beat) => {
                            if let Some(best) = beat.into_inner().incumbent {
                                incumbent.offer(best.value, best.first_index);
                            }
                        }
                        Err(status) => tracing::debug!(code = ?status.code(), "heartbeat failed"),
                    }
                }
            }
            _ = memo_sync.tick(), if syncing.is_empty() => {
                let bench = bench.clone();
                syncing.spawn(async move { flush(&bench).await });
            }
            Some(_) = syncing.join_next() => {}
            // The stream ends when the run is over: ask now, not at the next poll, to hear it.
            Some(_) = watching.join_next() => next_lease = tokio::time::Instant::now(),
            // The coordinator tells again when it has jobs for idle workers (the audit's
            // re-runs at the end of a search): ask now, not at the next poll.
            _ = nudged.notified(), if lease_due => next_lease = tokio::time::Instant::now(),
            _ = tokio::time::sleep_until(next_lease), if lease_due => {}
            _ = tokio::time::sleep_until(report_at), if in_flight == 0 && !pending.is_empty() => {}
            _ = stop_rx.changed() => {}
        }
    }
}

/// Takes every better total the coordinator tells of, so that the jobs this worker starts
/// get the cutoff of another worker's better first guess at once, as in the in-memory
/// search, instead of at this worker's next lease or report. Ends quietly with the stream
/// (the run is over, a coordinator without it, a lost connection): leases, reports and
/// heartbeats still carry the incumbent, and the worker's next lease says whether the run
/// is over. Every message also wakes the work loop through `wake`: a coordinator tells the
/// total again when jobs wait for idle workers.
async fn follow_incumbent(
    mut client: Client,
    request: WatchIncumbentRequest,
    incumbent: Arc<SharedIncumbent>,
    wake: Arc<Notify>,
) {
    let mut told = match client.watch_incumbent(request).await {
        Ok(stream) => stream.into_inner(),
        Err(status) => {
            tracing::debug!(code = ?status.code(), "no incumbent stream");
            return;
        }
    };
    loop {
        match told.message().await {
            Ok(Some(best)) => {
                incumbent.offer(best.value, best.first_index);
                wake.notify_one();
            }
            Ok(None) => return,
            Err(status) => {
                tracing::debug!(code = ?status.code(), "incumbent stream ended");
                return;
            }
        }
    }
}

/// A leased job about to be solved.
struct Started {
    id: JobId,
    spec: JobSpec,
    beta: u32,
    /// The first-guess index of a whole first-guess job.
    first: Option<u32>,
    /// A re-run of another worker's claim (marked in the job log).
    recheck: bool,
    delay: Duration,
}

impl Started {
    /// Solves the job with the tightest cutoff known now; an exact first-guess value becomes
    /// the worker's incumbent at once, as in the in-memory search.
    fn solve(
        self,
        bench: &Workbench,
        incumbent: &SharedIncumbent,
        log: Option<&JobLog>,
    ) -> (JobId, JobAnswer) {
        let beta = self
            .first
            .map_or(self.beta, |i| self.beta.min(incumbent.cutoff(i)));
        if let Some(log) = log {
            let detail = if self.recheck {
                format!("{beta} recheck")
            } else {
                beta.to_string()
            };
            log.record("started", self.id, &detail);
        }
        if !self.delay.is_zero() {
            std::thread::sleep(self.delay);
        }
        let answer = solve_job(bench.solver(), &self.spec, beta);
        if let (Some(i), Outcome::Exact { value, .. }) = (self.first, answer.outcome) {
            incumbent.offer(value, i);
        }
        (self.id, answer)
    }
}

/// What every report says of its sender. Reports copy this, not the registration reply,
/// which holds the whole game: copying that per batch made allocation 5 % of a worker's time.
#[derive(Clone)]
struct Sender {
    worker_id: u64,
    fingerprint: Arc<str>,
    /// The registration's secret, which every call must carry.
    secret: Arc<str>,
}

/// Reports a batch of results. The memo is not flushed first: it is a cache (results are
/// durable at the coordinator), so its disk syncs stay off the path of every job and happen
/// every few seconds and when the worker stops.
async fn report(
    mut client: Client,
    sender: Sender,
    batch: Vec<(JobId, JobAnswer)>,
    lease_jobs: u32,
    stop: watch::Receiver<bool>,
) -> Result<Reported, WorkerError> {
    let (taken, best, lease) = complete(&mut client, &sender, &batch, lease_jobs, &stop).await?;
    let done = batch
        .into_iter()
        .enumerate()
        .map(|(k, (id, answer))| (id, taken.get(k).copied().unwrap_or(false), answer))
        .collect();
    Ok(Reported { done, best, lease })
}

/// How the job log writes an answer.
fn describe(answer: &JobAnswer) -> String {
    match answer.outcome {
        Outcome::Exact { value, .. } => format!("exact {value}"),
        Outcome::AtLeast(bound) => format!("atleast {bound}"),
    }
}

async fn flush(bench: &Arc<Workbench>) {
    let bench = bench.clone();
    match tokio::task::spawn_blocking(move || bench.flush()).await {
        Ok(Ok(())) => {}
        Ok(Err(err)) => tracing::warn!(%err, "flushing the memo"),
        Err(err) => tracing::warn!(%err, "flushing the memo"),
    }
}

/// Reports a batch of results (leasing `lease_jobs` more with them) until the coordinator
/// takes it; per result, false when it was dropped (stopping, or the coordinator does not
/// know the job).
async fn complete(
    client: &mut Client,
    sender: &Sender,
    batch: &[(JobId, JobAnswer)],
    lease_jobs: u32,
    stop: &watch::Receiver<bool>,
) -> Result<(Vec<bool>, Option<Incumbent>, Option<LeaseReply>), WorkerError> {
    let mut backoff = Duration::from_millis(100);
    let dropped = || (vec![false; batch.len()], None, None);
    loop {
        let request = CompleteRequest {
            worker_id: sender.worker_id,
            fingerprint: sender.fingerprint.to_string(),
            secret: sender.secret.to_string(),
            result: None,
            results: batch
                .iter()
                .map(|(id, answer)| answer.to_proto(*id))
                .collect(),
            lease_jobs,
        };
        match client.complete(request).await {
            Ok(done) => {
                let done = done.into_inner();
                return Ok((done.taken, done.incumbent, done.lease));
            }
            Err(status) if transient(&status) => {
                if wait(stop, backoff).await {
                    return Ok(dropped());
                }
                backoff = (backoff * 2).min(Duration::from_secs(2));
            }
            Err(status) if matches!(status.code(), Code::NotFound | Code::FailedPrecondition) => {
                tracing::warn!(
                    jobs = batch.len(),
                    message = status.message(),
                    "results not taken"
                );
                return Ok(dropped());
            }
            Err(status) => return Err(WorkerError::Refused(explain(&status))),
        }
    }
}
