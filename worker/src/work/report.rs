//! Solved jobs on their way back: results wait in an outbox until a report is due, go one
//! batch at a time (a lease may ride with it), and are retried until the coordinator takes
//! them.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hakase_core::solver::Outcome;
use hakase_proto::explain::explain;
use hakase_proto::job::{JobAnswer, JobId};
use hakase_proto::v1::{CompleteReply, CompleteRequest, Incumbent, LeaseReply, RegisterReply};
use hakase_proto::MAX_LEASE;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tonic::Code;

use crate::client::{transient, wait, Backoff, Client};
use crate::error::WorkerError;

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

/// Results being reported at once before the worker stops taking jobs.
const MAX_REPORTING: usize = 256;

/// What a batch report hands back.
pub(super) struct Reported {
    /// Per job, whether the coordinator took the result, and the answer (for the job log).
    pub done: Vec<(JobId, bool, JobAnswer)>,
    /// The best total the coordinator knows.
    pub best: Option<Incumbent>,
    /// The lease asked for with the report, if one was.
    pub lease: Option<LeaseReply>,
    /// Held jobs the coordinator withdrew: no longer needed.
    pub cancelled: Vec<JobId>,
}

/// The report on its way, if any: one at a time, so results arrive in the order found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sending {
    /// No report is in flight.
    Nothing,
    /// A report of `results` results is in flight, with a lease when `with_lease`.
    Report { results: usize, with_lease: bool },
}

/// Results solved and not yet reported, and the report in flight.
pub(super) struct Outbox {
    pending: Vec<(JobId, JobAnswer)>,
    /// When the oldest pending result was solved.
    pending_since: tokio::time::Instant,
    sending: Sending,
    /// The report in flight (at most one task).
    pub reports: JoinSet<Result<Reported, WorkerError>>,
    client: Client,
    sender: Sender,
    stop: watch::Receiver<bool>,
}

impl Outbox {
    /// An empty outbox whose reports go through `client` for `reply`'s registration.
    pub fn new(client: Client, reply: &RegisterReply, stop: watch::Receiver<bool>) -> Outbox {
        Outbox {
            pending: Vec::new(),
            pending_since: tokio::time::Instant::now(),
            sending: Sending::Nothing,
            reports: JoinSet::new(),
            client,
            sender: Sender {
                worker_id: reply.worker_id,
                fingerprint: reply.fingerprint.as_str().into(),
                secret: reply.secret.as_str().into(),
            },
            stop,
        }
    }

    /// Adds a solved job's result.
    pub fn push(&mut self, id: JobId, answer: JobAnswer) {
        if self.pending.is_empty() {
            self.pending_since = tokio::time::Instant::now();
        }
        self.pending.push((id, answer));
    }

    /// True when results wait to be reported.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// True when no report is in flight.
    pub fn idle(&self) -> bool {
        self.sending == Sending::Nothing
    }

    /// True while the report in flight carries a lease: no other lease until it is back.
    pub fn leasing(&self) -> bool {
        matches!(self.sending, Sending::Report { with_lease, .. } if with_lease)
    }

    /// Results waiting or being reported. Their jobs do not hold a slot (up to a limit).
    pub fn reporting(&self) -> usize {
        let in_flight = match self.sending {
            Sending::Nothing => 0,
            Sending::Report { results, .. } => results,
        };
        self.pending.len() + in_flight
    }

    /// True when so many results are being reported that no more jobs should be taken.
    pub fn full(&self) -> bool {
        self.reporting() >= MAX_REPORTING
    }

    /// When the pending bounds have waited long enough.
    pub fn report_at(&self) -> tokio::time::Instant {
        self.pending_since + REPORT_DELAY
    }

    /// True when the pending results should go now, of the `active` jobs held: enough of
    /// them, nothing else held, waited long enough, or an exact value among them.
    pub fn report_due(&self, active: usize) -> bool {
        self.has_pending()
            && (self.pending.len() >= REPORT_BATCH
                || active <= self.reporting()
                || tokio::time::Instant::now() >= self.report_at()
                || self
                    .pending
                    .iter()
                    .any(|(_, answer)| matches!(answer.outcome, Outcome::Exact { .. })))
    }

    /// Sends the next batch in the background, leasing `lease_jobs` more jobs with it.
    pub fn send(&mut self, lease_jobs: usize) {
        let batch = self.next_batch();
        self.sending = Sending::Report {
            results: batch.len(),
            with_lease: lease_jobs > 0,
        };
        let report = self.report(batch, lease_jobs);
        self.reports.spawn(report);
    }

    /// Marks the report in flight as back.
    pub fn sent(&mut self) {
        self.sending = Sending::Nothing;
    }

    /// Reports the oldest pending results now, leasing nothing (the worker is stopping).
    pub async fn send_now(&mut self) -> Result<Reported, WorkerError> {
        let batch = self.next_batch();
        self.report(batch, 0).await
    }

    /// The oldest pending results, as many as one report takes.
    fn next_batch(&mut self) -> Vec<(JobId, JobAnswer)> {
        let len = self.pending.len().min(MAX_LEASE as usize);
        self.pending.drain(..len).collect()
    }

    /// The report of `batch`, on its own copies of what it needs (so it can be spawned).
    fn report(
        &self,
        batch: Vec<(JobId, JobAnswer)>,
        lease_jobs: usize,
    ) -> impl Future<Output = Result<Reported, WorkerError>> + Send + 'static {
        report(
            self.client.clone(),
            self.sender.clone(),
            batch,
            lease_jobs as u32,
            self.stop.clone(),
        )
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
    // A dropped batch reads as an empty reply: nothing taken, told or leased.
    let reply = complete(&mut client, &sender, &batch, lease_jobs, &stop)
        .await?
        .unwrap_or_default();
    let done = batch
        .into_iter()
        .enumerate()
        .map(|(k, (id, answer))| (id, reply.taken.get(k).copied().unwrap_or(false), answer))
        .collect();
    Ok(Reported {
        done,
        best: reply.incumbent,
        lease: reply.lease,
        cancelled: JobId::list_from_wire(&reply.cancelled),
    })
}

/// Reports a batch of results (leasing `lease_jobs` more with them) until the coordinator
/// takes it; its reply, or `None` when the batch was dropped (stopping, or the coordinator
/// does not know the run).
async fn complete(
    client: &mut Client,
    sender: &Sender,
    batch: &[(JobId, JobAnswer)],
    lease_jobs: u32,
    stop: &watch::Receiver<bool>,
) -> Result<Option<CompleteReply>, WorkerError> {
    let mut backoff = Backoff::default();
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
            Ok(done) => return Ok(Some(done.into_inner())),
            Err(status) if transient(&status) => {
                if wait(stop, backoff.next()).await {
                    return Ok(None);
                }
            }
            Err(status) if matches!(status.code(), Code::NotFound | Code::FailedPrecondition) => {
                tracing::warn!(
                    jobs = batch.len(),
                    message = status.message(),
                    "results not taken"
                );
                return Ok(None);
            }
            Err(status) => return Err(WorkerError::Refused(explain(&status))),
        }
    }
}

/// How the job log writes an answer.
pub(super) fn describe(answer: &JobAnswer) -> String {
    match answer.outcome {
        Outcome::Exact { value, .. } => format!("exact {value}"),
        Outcome::AtLeast(bound) => format!("atleast {bound}"),
    }
}
