//! Leased jobs on their way to the solver: a lease reply's jobs checked and queued, and each
//! job solved with the tightest cutoff known when it starts.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use hakase_core::solver::{Halt, Outcome};
use hakase_proto::job::{JobAnswer, JobId, JobSpec};
use hakase_proto::v1::LeaseReply;
use tokio::sync::mpsc;

use crate::exec::{solve_job_halting, Workbench};
use crate::incumbent::SharedIncumbent;
use crate::joblog::JobLog;
use crate::metrics::WorkerMetrics;
use crate::runner::{RunJob, RunQueue};

/// Where a lease reply's jobs go: the same for a lease call and a lease that came with a
/// report.
pub(super) struct Intake {
    pub incumbent: Arc<SharedIncumbent>,
    pub queue: Arc<RunQueue<Started>>,
    /// Answers and guesses of the game, to check each job against.
    pub shape: (usize, usize),
    /// Test hook: time added to every job.
    pub delay: Duration,
}

impl Intake {
    /// Queues a lease reply's new jobs to be solved and takes the incumbent it carries; with
    /// no job free, sets when to ask again. True when the reply says the run is over.
    pub fn take(
        &self,
        lease: LeaseReply,
        active: &mut HashMap<JobId, Arc<Halt>>,
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
            if active.contains_key(&id) {
                continue;
            }
            let halt = Arc::new(Halt::new());
            active.insert(id, halt.clone());
            self.queue.push(Started {
                id,
                spec,
                beta,
                first: job.first_index.checked_sub(1),
                recheck: job.recheck,
                delay: self.delay,
                halt,
            });
        }
        false
    }
}

/// A leased job about to be solved.
pub(super) struct Started {
    id: JobId,
    spec: JobSpec,
    beta: u32,
    /// The first-guess index of a whole first-guess job.
    first: Option<u32>,
    /// A re-run of another worker's claim (marked in the job log).
    recheck: bool,
    delay: Duration,
    /// Set when the coordinator withdraws the job while it runs.
    halt: Arc<Halt>,
}

impl Started {
    /// The job's id.
    pub fn id(&self) -> JobId {
        self.id
    }

    /// Solves the job with the tightest cutoff known now; an exact first-guess value becomes
    /// the worker's incumbent at once, as in the in-memory search. No answer when the job
    /// was withdrawn while it ran.
    pub fn solve(
        self,
        bench: &Workbench,
        incumbent: &SharedIncumbent,
        log: Option<&JobLog>,
    ) -> (JobId, Option<JobAnswer>) {
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
        self.wait_delay();
        let answer = solve_job_halting(bench.solver(), &self.spec, beta, &self.halt);
        if let (Some(i), Some(Outcome::Exact { value, .. })) =
            (self.first, answer.as_ref().map(|a| a.outcome))
        {
            incumbent.offer(value, i);
        }
        (self.id, answer)
    }

    /// The test hook's added time, cut short when the job is withdrawn.
    fn wait_delay(&self) {
        let until = std::time::Instant::now() + self.delay;
        while !self.halt.is_halted() {
            let left = until.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                break;
            }
            std::thread::sleep(left.min(Duration::from_millis(10)));
        }
    }
}

/// A solved job, as the runners hand it back: its id, its answer (none when it was
/// withdrawn while it ran) and how long it took.
pub(super) type Solved = (JobId, Option<JobAnswer>, Duration);

/// What a runner does with each job on its pool thread: solve it, count it, and send it back
/// on `done`. A job that panics sends nothing (its lease runs out).
pub(super) fn solve_each(
    bench: Arc<Workbench>,
    incumbent: Arc<SharedIncumbent>,
    log: Option<Arc<JobLog>>,
    metrics: Option<Arc<WorkerMetrics>>,
    done: mpsc::UnboundedSender<Solved>,
) -> RunJob<Started> {
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
}
