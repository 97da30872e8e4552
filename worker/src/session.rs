//! One registration with the coordinator: the register call, what the work loops of a
//! registration are given, and what they want when they end.

use std::sync::Arc;

use hakase_proto::explain::{explain, is_tls_failure, MAX_TLS_FAILURES};
use hakase_proto::job::JobId;
use hakase_proto::v1::{HeartbeatRequest, Incumbent, RegisterReply, RegisterRequest};
use tokio::sync::watch;

use crate::client::{transient, wait, Backoff, Client};
use crate::error::WorkerError;
use crate::exec::Workbench;
use crate::joblog::JobLog;
use crate::options::{WorkerOptions, WorkerSummary};

/// What a registration's work loop (search jobs or puzzle days) wants next.
pub(crate) enum After {
    /// The run or batch is over, or the worker was asked to stop.
    Stop,
    /// The coordinator changed its run: register again.
    Register,
}

/// What a registration's work loop works with.
pub(crate) struct Session<'a> {
    /// The coordinator.
    pub client: &'a mut Client,
    pub opts: &'a WorkerOptions,
    /// The registration: the worker's id and secret, the run's game and lease length.
    pub reply: &'a RegisterReply,
    /// The run's game, table and solver.
    pub bench: Arc<Workbench>,
    /// Test hook: the log of started and acknowledged jobs.
    pub log: Option<Arc<JobLog>>,
    /// True once the worker is asked to stop.
    pub stop: &'a watch::Receiver<bool>,
    pub summary: &'a mut WorkerSummary,
}

impl Session<'_> {
    /// Tells the coordinator that the jobs `job_ids` are still held, so that their leases do
    /// not run out; the best total it answers with, and the held jobs it no longer needs. A
    /// failed heartbeat is only logged: the next one comes well within the lease.
    pub async fn heartbeat(&mut self, job_ids: Vec<Vec<u8>>) -> Beat {
        if job_ids.is_empty() {
            return Beat::default();
        }
        let request = HeartbeatRequest {
            worker_id: self.reply.worker_id,
            job_ids,
            secret: self.reply.secret.clone(),
        };
        match self.client.heartbeat(request).await {
            Ok(beat) => {
                let beat = beat.into_inner();
                Beat {
                    cancelled: JobId::list_from_wire(&beat.cancelled),
                    incumbent: beat.incumbent,
                }
            }
            Err(status) => {
                tracing::debug!(code = ?status.code(), "heartbeat failed");
                Beat::default()
            }
        }
    }
}

/// What a heartbeat's reply says.
#[derive(Debug, Default)]
pub struct Beat {
    /// The best total known now.
    pub incumbent: Option<Incumbent>,
    /// Held jobs the coordinator no longer needs: settled by other results, or answered by
    /// another worker. Those not started yet are dropped.
    pub cancelled: Vec<JobId>,
}

/// Registers with the coordinator, waiting for it while it is unreachable; `None` when asked
/// to stop first.
pub(crate) async fn register(
    client: &mut Client,
    opts: &WorkerOptions,
    stop: &watch::Receiver<bool>,
) -> Result<Option<RegisterReply>, WorkerError> {
    let mut backoff = Backoff::default();
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
                if wait(stop, backoff.next()).await {
                    return Ok(None);
                }
            }
            Err(status) => return Err(WorkerError::Refused(explain(&status))),
        }
    }
}
