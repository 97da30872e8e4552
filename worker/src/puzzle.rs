//! Puzzle batches on a worker: when the coordinator's register reply says `puzzle_batch`, the
//! worker leases days from the Puzzles service, makes each with the same generator the local
//! batch uses (a day's puzzle depends only on the seed, the slot and the attempt), and reports
//! the puzzle as JSON. Heartbeats keep long days (hard best-move problems) leased.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hakase_core::puzzle::{Generator, Slot};
use hakase_proto::v1::puzzles_client::PuzzlesClient;
use hakase_proto::v1::{
    HeartbeatRequest, PuzzleCompleteRequest, PuzzleJob, PuzzleLeaseRequest, PuzzleResult,
    RegisterReply,
};
use hakase_proto::MAX_MESSAGE_BYTES;
use tokio::sync::{mpsc, watch};
use tonic::codegen::InterceptedService;
use tonic::transport::Channel;
use tonic::Code;

use crate::client::{transient, wait, Client, WorkerOptions, WorkerSummary};
use crate::error::WorkerError;
use crate::exec::Workbench;
use hakase_proto::client::{channel, Auth};
use hakase_proto::explain::explain;

type Puzzles = PuzzlesClient<InterceptedService<Channel, Auth>>;

/// What the puzzle loop wants next.
pub(crate) enum After {
    /// The batch is over or the worker was asked to stop.
    Stop,
    /// The coordinator changed: register again.
    Register,
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

/// Runs a puzzle batch until it is over, the worker is stopped, or the coordinator changes.
pub(crate) async fn work(
    cluster: &mut Client,
    opts: &WorkerOptions,
    reply: &RegisterReply,
    bench: Arc<Workbench>,
    stop: &watch::Receiver<bool>,
    summary: &mut WorkerSummary,
) -> Result<After, WorkerError> {
    let channel = channel(
        &opts.connect,
        opts.ca_cert.as_deref(),
        opts.tls_domain.as_deref(),
    )?;
    let mut puzzles: Puzzles = PuzzlesClient::with_interceptor(channel, Auth::new(&opts.token)?)
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    let slots = opts.slots.max(1);
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<PuzzleResult>();
    let mut active: HashSet<Vec<u8>> = HashSet::new();
    let mut heartbeat = tokio::time::interval(Duration::from_millis(reply.lease_ms.max(200) / 3));
    let mut stop_rx = stop.clone();
    let mut next_lease = tokio::time::Instant::now();
    let mut backoff = Duration::from_millis(100);
    let mut finished = false;
    loop {
        if *stop.borrow() || (finished && active.is_empty()) {
            let mut ready = Vec::new();
            while let Ok(result) = done_rx.try_recv() {
                ready.push(result);
            }
            report(&mut puzzles, reply, ready, stop, &mut active, summary).await?;
            summary.run_finished |= finished;
            return Ok(After::Stop);
        }
        let free = slots.saturating_sub(active.len());
        let lease_due = free > 0 && !finished;
        if lease_due && tokio::time::Instant::now() >= next_lease {
            let request = PuzzleLeaseRequest {
                worker_id: reply.worker_id,
                fingerprint: reply.fingerprint.clone(),
                max_jobs: free as u32,
            };
            summary.leases += 1;
            match puzzles.lease(request).await {
                Ok(lease) => {
                    backoff = Duration::from_millis(100);
                    let lease = lease.into_inner();
                    finished = lease.finished;
                    if lease.jobs.is_empty() {
                        next_lease = tokio::time::Instant::now()
                            + Duration::from_millis(lease.retry_ms.clamp(5, 2000));
                    }
                    for job in lease.jobs {
                        if read_job(&job).is_none() || !active.insert(job.id.clone()) {
                            tracing::warn!(day = job.day, "skipping a malformed puzzle job");
                            continue;
                        }
                        let (bench, tx) = (bench.clone(), done_tx.clone());
                        let delay = opts.job_delay;
                        tokio::task::spawn_blocking(move || {
                            // Test hook: lets a test kill the coordinator mid-batch.
                            std::thread::sleep(delay);
                            let generator = Generator::new(bench.game(), bench.table());
                            let _ = tx.send(make(&generator, &job));
                        });
                    }
                }
                Err(status) if transient(&status) => {
                    next_lease = tokio::time::Instant::now() + backoff;
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                }
                Err(status) if status.code() == Code::FailedPrecondition => {
                    tracing::warn!(
                        message = status.message(),
                        "batch changed, registering again"
                    );
                    return Ok(After::Register);
                }
                Err(status) => return Err(WorkerError::Refused(explain(&status))),
            }
            continue;
        }
        tokio::select! {
            Some(result) = done_rx.recv() => {
                let mut ready = vec![result];
                while let Ok(result) = done_rx.try_recv() {
                    ready.push(result);
                }
                report(&mut puzzles, reply, ready, stop, &mut active, summary).await?;
            }
            _ = heartbeat.tick() => {
                if !active.is_empty() {
                    let request = HeartbeatRequest {
                        worker_id: reply.worker_id,
                        job_ids: active.iter().cloned().collect(),
                        secret: reply.secret.clone(),
                    };
                    if let Err(status) = cluster.heartbeat(request).await {
                        tracing::debug!(code = ?status.code(), "heartbeat failed");
                    }
                }
            }
            _ = tokio::time::sleep_until(next_lease), if lease_due => {}
            _ = stop_rx.changed() => {}
        }
    }
}

/// Reports made days until the coordinator takes them (or the worker stops).
async fn report(
    puzzles: &mut Puzzles,
    reply: &RegisterReply,
    results: Vec<PuzzleResult>,
    stop: &watch::Receiver<bool>,
    active: &mut HashSet<Vec<u8>>,
    summary: &mut WorkerSummary,
) -> Result<(), WorkerError> {
    if results.is_empty() {
        return Ok(());
    }
    let mut backoff = Duration::from_millis(100);
    let request = PuzzleCompleteRequest {
        worker_id: reply.worker_id,
        fingerprint: reply.fingerprint.clone(),
        results,
    };
    loop {
        match puzzles.complete(request.clone()).await {
            Ok(done) => {
                let taken = done.into_inner().taken;
                for (result, taken) in request.results.iter().zip(taken) {
                    summary.jobs_done += u64::from(taken);
                    active.remove(&result.job_id);
                }
                return Ok(());
            }
            Err(status) if transient(&status) => {
                if wait(stop, backoff).await {
                    return Ok(());
                }
                backoff = (backoff * 2).min(Duration::from_secs(2));
            }
            Err(status) if matches!(status.code(), Code::NotFound | Code::FailedPrecondition) => {
                tracing::warn!(message = status.message(), "puzzle results not taken");
                for result in &request.results {
                    active.remove(&result.job_id);
                }
                return Ok(());
            }
            Err(status) => return Err(WorkerError::Refused(explain(&status))),
        }
    }
}
