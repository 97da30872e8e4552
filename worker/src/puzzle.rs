//! Puzzle batches on a worker: when the coordinator's register reply says `puzzle_batch`, the
//! worker leases days from the Puzzles service, makes each with the same generator the local
//! batch uses (a day's puzzle depends only on the seed, the slot and the attempt), and reports
//! the puzzle as JSON. Heartbeats keep long days (hard best-move problems) leased.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use hakase_core::puzzle::{Generator, Slot};
use hakase_proto::explain::explain;
use hakase_proto::v1::{
    PuzzleCompleteRequest, PuzzleJob, PuzzleLeaseReply, PuzzleLeaseRequest, PuzzleResult,
};
use tokio::sync::{mpsc, watch};
use tonic::Code;

use crate::client::{puzzles, transient, wait, Backoff, Puzzles};
use crate::error::WorkerError;
use crate::session::{After, Session};

/// Runs a puzzle batch until it is over, the worker is stopped, or the coordinator changes.
pub(crate) async fn run(session: Session<'_>) -> Result<After, WorkerError> {
    PuzzleLoop::new(session)?.run().await
}

/// The slot, attempt and seed a job asks for; `None` for a malformed job.
fn read_job(job: &PuzzleJob) -> Option<(Slot, u32, u64)> {
    let slot = Slot {
        day: usize::try_from(job.day).ok().filter(|&d| d > 0)?,
        level: job.level.parse().ok()?,
        kind: job.kind.parse().ok()?,
    };
    (job.id.len() == 16).then_some((slot, job.attempt, job.seed))
}

/// Makes one day.
fn make(generator: &Generator<'_>, job: &PuzzleJob) -> PuzzleResult {
    let started = Instant::now();
    let made =
        read_job(job).and_then(|(slot, attempt, seed)| generator.generate(&slot, seed, attempt));
    PuzzleResult {
        job_id: job.id.clone(),
        found: made.is_some(),
        puzzle_json: made
            .and_then(|p| serde_json::to_string(&p).ok())
            .unwrap_or_default(),
        millis: started.elapsed().as_millis() as u64,
    }
}

/// Where a puzzle batch stands on this worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Leasing and making days.
    Working,
    /// The batch is over: nothing more is leased; the loop ends once the days held are
    /// reported.
    Finishing,
}

/// The puzzle loop of one registration.
struct PuzzleLoop<'a> {
    session: Session<'a>,
    puzzles: Puzzles,
    phase: Phase,
    /// Days leased and not yet reported.
    active: HashSet<Vec<u8>>,
    /// Days made, from the blocking threads.
    done_tx: mpsc::UnboundedSender<PuzzleResult>,
    done_rx: mpsc::UnboundedReceiver<PuzzleResult>,
    heartbeat: tokio::time::Interval,
    next_lease: tokio::time::Instant,
    backoff: Backoff,
    /// Wakes the loop when the worker is asked to stop.
    stop: watch::Receiver<bool>,
}

impl<'a> PuzzleLoop<'a> {
    fn new(session: Session<'a>) -> Result<PuzzleLoop<'a>, WorkerError> {
        let puzzles = puzzles(session.opts)?;
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        let lease_ms = session.reply.lease_ms.max(200);
        Ok(PuzzleLoop {
            puzzles,
            phase: Phase::Working,
            active: HashSet::new(),
            done_tx,
            done_rx,
            heartbeat: tokio::time::interval(Duration::from_millis(lease_ms / 3)),
            next_lease: tokio::time::Instant::now(),
            backoff: Backoff::default(),
            stop: session.stop.clone(),
            session,
        })
    }

    async fn run(mut self) -> Result<After, WorkerError> {
        let slots = self.session.opts.slots.max(1);
        loop {
            if *self.stop.borrow() || (self.phase == Phase::Finishing && self.active.is_empty()) {
                let mut ready = Vec::new();
                while let Ok(result) = self.done_rx.try_recv() {
                    ready.push(result);
                }
                self.report(ready).await?;
                self.session.summary.run_finished |= self.phase == Phase::Finishing;
                return Ok(After::Stop);
            }
            let free = slots.saturating_sub(self.active.len());
            let lease_due = free > 0 && self.phase == Phase::Working;
            if lease_due && tokio::time::Instant::now() >= self.next_lease {
                if let Some(after) = self.lease(free).await? {
                    return Ok(after);
                }
                continue;
            }
            tokio::select! {
                Some(result) = self.done_rx.recv() => {
                    let mut ready = vec![result];
                    while let Ok(result) = self.done_rx.try_recv() {
                        ready.push(result);
                    }
                    self.report(ready).await?;
                }
                _ = self.heartbeat.tick() => {
                    let held = self.active.iter().cloned().collect();
                    self.session.heartbeat(held).await;
                }
                _ = tokio::time::sleep_until(self.next_lease), if lease_due => {}
                _ = self.stop.changed() => {}
            }
        }
    }

    /// Leases up to `free` days and starts making them; `Some` when the loop must end with
    /// it (the batch changed: register again).
    async fn lease(&mut self, free: usize) -> Result<Option<After>, WorkerError> {
        let reply = self.session.reply;
        let request = PuzzleLeaseRequest {
            worker_id: reply.worker_id,
            fingerprint: reply.fingerprint.clone(),
            max_jobs: free as u32,
        };
        self.session.summary.leases += 1;
        match self.puzzles.lease(request).await {
            Ok(lease) => {
                self.backoff.reset();
                self.start(lease.into_inner());
            }
            Err(status) if transient(&status) => {
                self.next_lease = tokio::time::Instant::now() + self.backoff.next();
            }
            Err(status) if status.code() == Code::FailedPrecondition => {
                tracing::warn!(
                    message = status.message(),
                    "batch changed, registering again"
                );
                return Ok(Some(After::Register));
            }
            Err(status) => return Err(WorkerError::Refused(explain(&status))),
        }
        Ok(None)
    }

    /// Starts making a lease's days on blocking threads; with none, sets when to ask again.
    fn start(&mut self, lease: PuzzleLeaseReply) {
        if lease.finished {
            self.phase = Phase::Finishing;
        }
        if lease.jobs.is_empty() {
            self.next_lease =
                tokio::time::Instant::now() + Duration::from_millis(lease.retry_ms.clamp(5, 2000));
        }
        for job in lease.jobs {
            if read_job(&job).is_none() || !self.active.insert(job.id.clone()) {
                tracing::warn!(day = job.day, "skipping a malformed puzzle job");
                continue;
            }
            let (bench, tx) = (self.session.bench.clone(), self.done_tx.clone());
            let delay = self.session.opts.job_delay;
            tokio::task::spawn_blocking(move || {
                // Test hook: lets a test kill the coordinator mid-batch.
                std::thread::sleep(delay);
                let generator = Generator::new(bench.game(), bench.table());
                let _ = tx.send(make(&generator, &job));
            });
        }
    }

    /// Reports made days until the coordinator takes them (or the worker stops).
    async fn report(&mut self, results: Vec<PuzzleResult>) -> Result<(), WorkerError> {
        if results.is_empty() {
            return Ok(());
        }
        let reply = self.session.reply;
        let mut backoff = Backoff::default();
        let request = PuzzleCompleteRequest {
            worker_id: reply.worker_id,
            fingerprint: reply.fingerprint.clone(),
            results,
        };
        loop {
            match self.puzzles.complete(request.clone()).await {
                Ok(done) => {
                    let taken = done.into_inner().taken;
                    for (result, taken) in request.results.iter().zip(taken) {
                        self.session.summary.jobs_done += u64::from(taken);
                        self.active.remove(&result.job_id);
                    }
                    return Ok(());
                }
                Err(status) if transient(&status) => {
                    if wait(self.session.stop, backoff.next()).await {
                        return Ok(());
                    }
                }
                Err(status)
                    if matches!(status.code(), Code::NotFound | Code::FailedPrecondition) =>
                {
                    tracing::warn!(message = status.message(), "puzzle results not taken");
                    for result in &request.results {
                        self.active.remove(&result.job_id);
                    }
                    return Ok(());
                }
                Err(status) => return Err(WorkerError::Refused(explain(&status))),
            }
        }
    }
}
