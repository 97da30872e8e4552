//! A registration's search jobs: lease them, solve them on rayon's pool (see
//! [`crate::runner`]), heartbeat them, and report their results, until the run is over, the
//! worker is asked to stop, or the coordinator's run changes.
//!
//! Jobs run `slots` at a time; more wait leased (see [`Hold`]), so a finished job's slot is
//! refilled at once (jobs are often shorter than a lease round trip) while results are
//! reported in the background, one batch at a time and in the order they were found.

mod follow;
mod intake;
mod report;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use hakase_core::solver::Halt;
use hakase_proto::explain::explain;
use hakase_proto::job::{JobAnswer, JobId};
use hakase_proto::v1::{LeaseRequest, WatchIncumbentRequest};
use hakase_proto::MAX_LEASE;
use tokio::sync::{mpsc, watch, Notify};
use tokio::task::{JoinError, JoinSet};
use tokio::time::{Instant, Interval};
use tonic::Code;

use crate::client::{transient, Backoff};
use crate::error::WorkerError;
use crate::exec::Workbench;
use crate::hold::Hold;
use crate::incumbent::SharedIncumbent;
use crate::runner::{ClearOnDrop, RunQueue};
use crate::session::{After, Session};
use follow::follow_incumbent;
use intake::{solve_each, Intake, Solved, Started};
use report::{describe, Outbox, Reported};

/// How often the memo's new facts are made durable.
const MEMO_SYNC: Duration = Duration::from_secs(5);

/// Works on `session`'s search jobs until the run is over, the worker is asked to stop
/// (finished results are reported first), or the coordinator's run changes.
pub(crate) async fn run(session: Session<'_>) -> Result<After, WorkerError> {
    WorkLoop::new(session).run().await
}

/// Where a registration's search work stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Leasing, solving and reporting.
    Working,
    /// The coordinator said the run is over: the loop ends at once. Jobs still held can
    /// change nothing, and the coordinator stops once every worker is told, so a result
    /// reported now could be retried for ever (a worker told while it solved a job no longer
    /// needed waited on it, then on the coordinator, and never stopped).
    Finishing,
}

/// The search-job loop of one registration and everything it keeps between turns.
struct WorkLoop<'a> {
    session: Session<'a>,
    phase: Phase,
    /// Jobs leased and not yet acknowledged: queued, being solved, or being reported; each
    /// with the flag that stops it if the coordinator withdraws it while it runs.
    active: HashMap<JobId, Arc<Halt>>,
    /// How many jobs to hold, from the time jobs take.
    hold: Hold,
    /// Where leased jobs go to be solved.
    intake: Intake,
    /// Drops the jobs still queued when the loop ends.
    _queued: ClearOnDrop<Started>,
    /// Jobs the runners solved.
    solved: mpsc::UnboundedReceiver<Solved>,
    /// Results on their way to the coordinator.
    outbox: Outbox,
    /// When a lease call of its own may go next.
    next_lease: Instant,
    /// The wait after a lease call that failed.
    backoff: Backoff,
    heartbeat: Interval,
    memo_sync: Interval,
    /// The memo flush under way, if any.
    syncing: JoinSet<()>,
    /// The incumbent stream; dropped (so stopped) with the loop.
    watching: JoinSet<()>,
    /// Notified on each message of the incumbent stream: an idle worker asks for jobs then.
    nudged: Arc<Notify>,
    /// Wakes the loop when the worker is asked to stop.
    stop: watch::Receiver<bool>,
}

/// What the loop may do in one turn, from the results waiting and the jobs held.
struct Turn {
    /// The pending results should be reported now.
    report_due: bool,
    /// When the pending bounds have waited long enough.
    report_at: Instant,
    /// Jobs a report sent now asks for with it.
    refill: usize,
    /// Jobs a lease call of its own asks for; 0 while too few are open to be worth a call.
    free: usize,
}

/// What woke the loop.
enum Event {
    /// Jobs were solved (the first one; the others are taken with it).
    Solved(Solved),
    /// The report in flight is back.
    Reported(Result<Result<Reported, WorkerError>, JoinError>),
    /// Time to tell the coordinator which jobs are still held.
    Heartbeat,
    /// Time to make the memo's new facts durable.
    SyncMemo,
    /// Jobs may wait at the coordinator (the incumbent stream spoke or ended): lease now.
    LeaseNow,
    /// A timer ran out or the worker was asked to stop: look again.
    LookAgain,
}

/// How a lease call of its own went.
enum LeaseOutcome {
    /// Jobs came (or none, or the call failed and will be retried): go on.
    GoOn,
    /// The run is over.
    RunOver,
    /// The coordinator's run changed: register again.
    RunChanged,
}

impl<'a> WorkLoop<'a> {
    /// The loop of `session`, with the incumbent stream followed from the start.
    fn new(session: Session<'a>) -> WorkLoop<'a> {
        let (opts, reply) = (session.opts, session.reply);
        let incumbent = Arc::new(SharedIncumbent::default());
        let nudged = Arc::new(Notify::new());
        let mut watching = JoinSet::new();
        watching.spawn(follow_incumbent(
            session.client.clone(),
            WatchIncumbentRequest {
                worker_id: reply.worker_id,
                fingerprint: reply.fingerprint.clone(),
                secret: reply.secret.clone(),
            },
            incumbent.clone(),
            nudged.clone(),
        ));
        let (done, solved) = mpsc::unbounded_channel();
        let run = solve_each(
            session.bench.clone(),
            incumbent.clone(),
            session.log.clone(),
            opts.metrics.clone(),
            done,
        );
        let queue = RunQueue::new(opts.slots, run);
        let game = session.bench.game();
        let intake = Intake {
            incumbent,
            queue: queue.clone(),
            shape: (game.answers().len(), game.guesses().len()),
            delay: opts.job_delay,
        };
        let lease_ms = reply.lease_ms.max(200);
        WorkLoop {
            phase: Phase::Working,
            active: HashMap::new(),
            hold: Hold::new(opts.slots),
            intake,
            _queued: ClearOnDrop(queue),
            solved,
            outbox: Outbox::new(session.client.clone(), reply, session.stop.clone()),
            next_lease: Instant::now(),
            backoff: Backoff::default(),
            heartbeat: tokio::time::interval(Duration::from_millis(lease_ms / 3)),
            memo_sync: tokio::time::interval(MEMO_SYNC),
            syncing: JoinSet::new(),
            watching,
            nudged,
            stop: session.stop.clone(),
            session,
        }
    }

    /// Turn after turn: report or lease what is due, then wait for the next event.
    async fn run(mut self) -> Result<After, WorkerError> {
        loop {
            if self.phase == Phase::Finishing {
                self.leave_finished_run().await;
                return Ok(After::Stop);
            }
            if *self.stop.borrow() {
                self.wind_down().await;
                return Ok(After::Stop);
            }
            let turn = self.turn();
            let lease_now =
                turn.free > 0 && !self.outbox.leasing() && Instant::now() >= self.next_lease;
            if self.outbox.idle() && self.outbox.has_pending() && (turn.report_due || lease_now) {
                // A lease due goes with the results, and a report due leases what it can: one
                // round trip, and one disk sync at the coordinator, instead of two.
                self.outbox.send(turn.refill);
            } else if lease_now {
                match self.lease(turn.free).await? {
                    LeaseOutcome::GoOn => {}
                    LeaseOutcome::RunOver => {
                        self.phase = Phase::Finishing;
                        continue;
                    }
                    LeaseOutcome::RunChanged => return Ok(After::Register),
                }
            }
            let event = self.next_event(&turn).await;
            self.handle(event).await?;
        }
    }

    /// How many jobs to report and lease this turn.
    fn turn(&self) -> Turn {
        // A lease call of its own waits until half the held jobs are done: one lease per
        // finished job made the lease round trips (each one a disk sync at the coordinator)
        // half a worker's time on a game of 2 ms jobs. A report refills every open slot, as
        // its round trip and its sync are paid anyway.
        let held = self.hold.jobs(self.intake.incumbent.known());
        // Jobs whose results are being reported do not hold a slot (up to a limit); sending
        // a report does not change how many are.
        let solving = self.active.len().saturating_sub(self.outbox.reporting());
        let open = held.saturating_sub(solving);
        let refill = if self.outbox.full() || self.phase == Phase::Finishing {
            0
        } else {
            open.min(MAX_LEASE as usize)
        };
        let free = if refill < held.div_ceil(2).min(MAX_LEASE as usize) {
            0
        } else {
            refill
        };
        Turn {
            report_due: self.outbox.report_due(self.active.len()),
            report_at: self.outbox.report_at(),
            refill,
            free,
        }
    }

    /// Leases up to `free` jobs with a call of its own.
    async fn lease(&mut self, free: usize) -> Result<LeaseOutcome, WorkerError> {
        let reply = self.session.reply;
        let request = LeaseRequest {
            worker_id: reply.worker_id,
            fingerprint: reply.fingerprint.clone(),
            max_jobs: free as u32,
            secret: reply.secret.clone(),
        };
        let asked = std::time::Instant::now();
        let leased = self.session.client.lease(request).await;
        self.session.summary.lease_wait += asked.elapsed();
        self.session.summary.leases += 1;
        match leased {
            Ok(lease) => {
                self.backoff.reset();
                let over =
                    self.intake
                        .take(lease.into_inner(), &mut self.active, &mut self.next_lease);
                Ok(if over {
                    LeaseOutcome::RunOver
                } else {
                    LeaseOutcome::GoOn
                })
            }
            Err(status) if transient(&status) => {
                self.next_lease = Instant::now() + self.backoff.next();
                Ok(LeaseOutcome::GoOn)
            }
            Err(status) if status.code() == Code::FailedPrecondition => {
                tracing::warn!(message = status.message(), "run changed, registering again");
                Ok(LeaseOutcome::RunChanged)
            }
            Err(status) => Err(WorkerError::Refused(explain(&status))),
        }
    }

    /// Waits for whatever comes first: a solved job, the report back, a timer, the stop.
    async fn next_event(&mut self, turn: &Turn) -> Event {
        let lease_due = turn.free > 0 && !self.outbox.leasing();
        let report_waits = self.outbox.idle() && self.outbox.has_pending();
        let sync_due = self.syncing.is_empty();
        let next_lease = self.next_lease;
        tokio::select! {
            Some(solved) = self.solved.recv() => Event::Solved(solved),
            Some(joined) = self.outbox.reports.join_next() => Event::Reported(joined),
            _ = self.heartbeat.tick() => Event::Heartbeat,
            _ = self.memo_sync.tick(), if sync_due => Event::SyncMemo,
            Some(_) = self.syncing.join_next() => Event::LookAgain,
            // The stream ends when the run is over: ask now, not at the next poll, to hear it.
            Some(_) = self.watching.join_next() => Event::LeaseNow,
            // The coordinator tells again when it has jobs for idle workers (the audit's
            // re-runs at the end of a search): ask now, not at the next poll.
            _ = self.nudged.notified(), if lease_due => Event::LeaseNow,
            _ = tokio::time::sleep_until(next_lease), if lease_due => Event::LookAgain,
            _ = tokio::time::sleep_until(turn.report_at), if report_waits => Event::LookAgain,
            _ = self.stop.changed() => Event::LookAgain,
        }
    }

    /// Takes what woke the loop; errors end the worker (a refusal, a broken report task).
    async fn handle(&mut self, event: Event) -> Result<(), WorkerError> {
        match event {
            Event::Solved(first) => {
                let mut next = Some(first);
                while let Some(solved) = next {
                    self.take_solved(solved);
                    next = self.solved.try_recv().ok();
                }
            }
            Event::Reported(joined) => {
                self.outbox.sent();
                let reported = match joined {
                    Ok(result) => result?,
                    Err(err) => {
                        return Err(WorkerError::Protocol(format!("reporting task: {err}")))
                    }
                };
                self.take_report(reported);
            }
            Event::Heartbeat => self.heartbeat().await,
            Event::SyncMemo => {
                let bench = self.session.bench.clone();
                self.syncing.spawn(async move { flush(&bench).await });
            }
            Event::LeaseNow => self.next_lease = Instant::now(),
            Event::LookAgain => {}
        }
        Ok(())
    }

    /// Takes a report's acknowledgements, the incumbent it carries, the jobs withdrawn from
    /// this worker and the lease that came with it.
    fn take_report(&mut self, reported: Reported) {
        if let Some(best) = reported.best {
            self.intake.incumbent.offer(best.value, best.first_index);
        }
        self.acknowledge(reported.done);
        self.drop_cancelled(reported.cancelled);
        if let Some(lease) = reported.lease {
            self.session.summary.report_leases += 1;
            if self
                .intake
                .take(lease, &mut self.active, &mut self.next_lease)
            {
                self.phase = Phase::Finishing;
            }
        }
    }

    /// Counts the results the coordinator took; every reported job is no longer held.
    fn acknowledge(&mut self, done: Vec<(JobId, bool, JobAnswer)>) {
        for (id, taken, answer) in done {
            if taken {
                self.session.summary.jobs_done += 1;
                if let Some(metrics) = &self.session.opts.metrics {
                    metrics.jobs_acknowledged(1);
                }
                if let Some(log) = &self.session.log {
                    log.record("acked", id, &describe(&answer));
                }
            }
            self.active.remove(&id);
        }
    }

    /// Tells the coordinator the jobs still held, takes the incumbent it answers with, and
    /// drops the jobs it no longer needs.
    async fn heartbeat(&mut self) {
        let held = JobId::list_to_wire(self.active.keys());
        let beat = self.session.heartbeat(held).await;
        if let Some(best) = beat.incumbent {
            self.intake.incumbent.offer(best.value, best.first_index);
        }
        self.drop_cancelled(beat.cancelled);
    }

    /// Drops the held jobs the coordinator no longer needs: those not started leave the
    /// queue, those running are halted (their pool thread comes back with no answer, see
    /// [`WorkLoop::stopped`]); a result already found is reported as usual.
    fn drop_cancelled(&mut self, cancelled: Vec<JobId>) {
        if cancelled.is_empty() {
            return;
        }
        let cancelled: HashSet<JobId> = cancelled.into_iter().collect();
        for job in self
            .intake
            .queue
            .withdraw(|job| cancelled.contains(&job.id()))
        {
            let id = job.id();
            self.active.remove(&id);
            self.session.summary.jobs_cancelled += 1;
            if let Some(log) = &self.session.log {
                log.record("cancelled", id, "");
            }
        }
        for id in &cancelled {
            if let Some(halt) = self.active.get(id) {
                halt.halt();
            }
        }
    }

    /// Takes a job back from its runner: its answer goes out with the next report, or,
    /// halted while it ran, it is no longer held and nothing is reported.
    fn take_solved(&mut self, (id, answer, took): Solved) {
        match answer {
            Some(answer) => {
                self.hold.record(took);
                self.outbox.push(id, answer);
            }
            None => self.stopped(id),
        }
    }

    /// A job halted while it ran: it is no longer held, and nothing is reported.
    fn stopped(&mut self, id: JobId) {
        self.active.remove(&id);
        self.session.summary.jobs_stopped += 1;
        if let Some(log) = &self.session.log {
            log.record("stopped", id, "");
        }
    }

    /// Leaves a run the coordinator declared over: drops the jobs and results still held
    /// (they can change nothing), halts the jobs being solved (counted as stopped midway:
    /// the run's end is the coordinator no longer needing them) and makes the memo durable.
    async fn leave_finished_run(&mut self) {
        while let Ok(solved) = self.solved.try_recv() {
            self.take_solved(solved);
        }
        let unstarted = self.intake.queue.withdraw(|_| true).len();
        for halt in self.active.values() {
            halt.halt();
        }
        let running = self
            .active
            .len()
            .saturating_sub(unstarted + self.outbox.reporting());
        self.session.summary.jobs_stopped += running as u64;
        self.outbox.reports.abort_all();
        if !self.active.is_empty() {
            tracing::debug!(
                held = self.active.len(),
                "the run is over: dropping held jobs"
            );
        }
        flush(&self.session.bench).await;
        self.session.summary.run_finished = true;
    }

    /// Reports what is already solved (one attempt each when stopping) and makes the memo
    /// durable; jobs still being solved are left to lease expiry.
    async fn wind_down(&mut self) {
        while let Some(joined) = self.outbox.reports.join_next().await {
            if let Ok(Ok(reported)) = joined {
                self.acknowledge(reported.done);
            }
        }
        while let Ok(solved) = self.solved.try_recv() {
            self.take_solved(solved);
        }
        while self.outbox.has_pending() {
            if let Ok(reported) = self.outbox.send_now().await {
                self.acknowledge(reported.done);
            }
        }
        while self.syncing.join_next().await.is_some() {}
        let flushing = std::time::Instant::now();
        flush(&self.session.bench).await;
        tracing::debug!(ms = flushing.elapsed().as_millis() as u64, "memo flushed");
    }
}

/// Makes the memo's new facts durable, off the async threads; a failure only costs cache.
async fn flush(bench: &Arc<Workbench>) {
    let bench = bench.clone();
    match tokio::task::spawn_blocking(move || bench.flush()).await {
        Ok(Ok(())) => {}
        Ok(Err(err)) => tracing::warn!(err = %crate::error::Chain(&err), "flushing the memo"),
        Err(err) => tracing::warn!(%err, "flushing the memo"),
    }
}
