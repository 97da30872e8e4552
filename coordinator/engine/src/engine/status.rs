//! What `hakase status` and the progress bar show of a run.

use hakase_core::solver::Work;
use hakase_proto::job::JobKind;
use hakase_proto::token::SHARED_TOKEN_NAME;

use super::{Engine, JobState, State};
use crate::plan::PlanProgress;
use hakase_runs::AuditSummary;
use hakase_runs::Damage;

/// Counters shown by `hakase status` and the progress bar.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counters {
    /// Results received.
    pub completions: u64,
    /// Results for jobs that already had a result at least as strong.
    pub duplicate_completions: u64,
    /// Results found in the database at start.
    pub results_loaded: u64,
    /// Leases that ran out and were handed out again.
    pub lease_expiries: u64,
    /// Leased jobs the plan stopped needing (settled by other results): their holders drop
    /// them if they have not started.
    pub withdrawn: u64,
    /// Jobs cut finer after running long while workers waited (see
    /// [`crate::plan::Planner::recut`]).
    pub recut: u64,
    /// Jobs handed out.
    pub leases: u64,
    /// Results rejected as inconsistent.
    pub rejected: u64,
    /// Search nodes the workers reported.
    pub nodes: u64,
    /// Lease requests that found no job ready (workers waiting on the plan).
    pub empty_leases: u64,
    /// Milliseconds workers reported spending on jobs, in total.
    pub job_millis: u64,
    /// The longest job so far, in milliseconds.
    pub longest_job_millis: u64,
}

/// A picture of the run for status displays.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Snapshot {
    /// "running", "finished" or "failed: …".
    pub state: String,
    /// Jobs ever created.
    pub jobs_total: u64,
    /// Jobs with a result.
    pub jobs_done: u64,
    /// Jobs waiting for a worker.
    pub jobs_queued: u64,
    /// Jobs being solved.
    pub jobs_leased: u64,
    /// The counters.
    pub counters: Counters,
    /// First guesses at the current budget.
    pub first_total: u64,
    /// First guesses settled.
    pub first_settled: u64,
    /// The best first guess so far (text) and its total.
    pub best: Option<(String, u32)>,
    /// The guess budget being searched.
    pub guesses_left: u32,
    /// Workers seen within three lease periods and not told that the run is over (told,
    /// a worker leaves).
    pub workers: u64,
    /// Seconds since this coordinator started.
    pub elapsed_secs: f64,
    /// Top of the ranking: guess text, exact, value.
    pub ranking: Vec<(String, bool, u32)>,
    /// Seconds left at the rate first guesses were settled so far (none before the first).
    pub eta_secs: Option<f64>,
    /// How the results were checked so far.
    pub audit: AuditSummary,
    /// What opening the run database found damaged, to be recomputed (`None` when nothing).
    pub damage: Option<Damage>,
    /// The first guesses cut into part jobs that are still open, in search order (at most
    /// [`CUTS_SHOWN`]): a run of one huge first guess shows its progress here.
    pub cuts: Vec<CutView>,
}

/// Open cut first guesses a snapshot shows at most.
pub const CUTS_SHOWN: usize = 4;

/// A first guess cut into part jobs, as status displays show it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CutView {
    /// The first guess (text).
    pub guess: String,
    /// Its parts, and those settled.
    pub parts: u32,
    /// Parts whose exact value is known.
    pub parts_settled: u32,
    /// A proven lower bound on its total.
    pub lower: u32,
    /// A total some strategy reaches, once every part has a value found (`None` before).
    pub upper: Option<u32>,
    /// Seconds left at this session's rate, counting each part by the square of its size
    /// (`None` before a quarter of that is settled).
    pub eta_secs: Option<f64>,
}

impl Engine {
    /// A picture of the run.
    pub fn snapshot(&self) -> Snapshot {
        let mut state = self.lock();
        // A finished run's clock stopped when its result was declared.
        let elapsed = state
            .finished_secs
            .unwrap_or_else(|| self.started.elapsed().as_secs_f64());
        let cuts = {
            let State { planner, known, .. } = &mut *state;
            planner.open_cuts(known, CUTS_SHOWN)
        };
        let progress: PlanProgress = state.planner.progress();
        // The jobs by state, and the expected cost of the whole first guesses under way (for
        // the ETA).
        let (mut queued, mut leased, mut running) = (0, 0, 0.0);
        for entry in state.jobs.values() {
            match (&entry.state, &entry.spec.kind) {
                (JobState::Queued { .. }, _) => queued += 1,
                (JobState::Leased { .. }, JobKind::Guess(guess)) => {
                    leased += 1;
                    running += state.planner.first_guess_cost(*guess);
                }
                (JobState::Leased { .. }, _) => leased += 1,
                (JobState::Idle, _) => {}
            }
        }
        let text = |g| self.game().guess_text(g).to_string();
        let ranking_source = match &state.solution {
            Some(solution) => solution.ranking.clone(),
            None => state.planner.ranking(),
        };
        let ranking = ranking_source
            .iter()
            .take(10)
            .map(|v| (text(v.guess), v.outcome.is_exact(), v.outcome.value()))
            .collect();
        let best = match &state.solution {
            Some(solution) => solution.best.map(|b| (text(b.guess), b.outcome.value())),
            None => progress.best.map(|(g, v)| (text(g), v)),
        };
        let live = self.live_since();
        Snapshot {
            state: match (&state.solution, &state.failure) {
                (None, _) if self.store.fault().is_some() => format!(
                    "storage fault: {}; taking no more work",
                    self.store.fault().unwrap_or_default()
                ),
                (_, Some(why)) => format!("failed: {why}"),
                (Some(_), None) => "finished".into(),
                (None, None) => "running".into(),
            },
            jobs_total: state.jobs.len() as u64,
            jobs_done: state.known.len() as u64,
            jobs_queued: queued,
            jobs_leased: leased,
            counters: state.counters.clone(),
            first_total: progress.total as u64,
            first_settled: if state.solution.is_some() {
                progress.total as u64
            } else {
                progress.settled as u64
            },
            best,
            guesses_left: progress.guesses_left,
            workers: state.workers.values().filter(|w| w.present(live)).count() as u64,
            elapsed_secs: elapsed,
            ranking,
            eta_secs: Work {
                resumed: state.work_at_start.unwrap_or(0.0),
                running,
                ..progress.work
            }
            .eta_secs(elapsed),
            audit: state.audit.clone(),
            damage: Some(self.store.reopened().damage).filter(|d| !d.is_empty()),
            cuts: cuts
                .iter()
                .map(|cut| CutView {
                    guess: text(cut.guess),
                    parts: cut.parts,
                    parts_settled: cut.parts_settled,
                    lower: cut.lower,
                    upper: cut.upper,
                    eta_secs: Work {
                        done: cut.done_share,
                        total: 1.0,
                        ..Work::default()
                    }
                    .parts_eta_secs(elapsed),
                })
                .collect(),
        }
    }
}

/// One worker as the live page shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WorkerView {
    /// The worker id.
    pub id: u64,
    /// The name of the per-worker token it registered with (`None`: the shared token).
    pub token: Option<String>,
    /// Job slots (threads) it registered.
    pub threads: usize,
    /// Results taken from it in this session.
    pub jobs_done: u64,
    /// Seen within three lease periods.
    pub live: bool,
    /// Refused from now on, caught lying.
    pub quarantined: bool,
}

/// What the live page and the metrics need beyond a [`Snapshot`]: the workers one by one
/// and the claims a re-run confirmed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Detail {
    /// Every worker registered, by id.
    pub workers: Vec<WorkerView>,
    /// Claims a re-run on another worker (or the coordinator) confirmed.
    pub confirmed_claims: u64,
}

impl Engine {
    /// The workers and the audit's confirmations, for the live page and the metrics.
    pub fn detail(&self) -> Detail {
        let live = self.live_since();
        let state = self.lock();
        let mut workers: Vec<WorkerView> = state
            .workers
            .iter()
            .map(|(&id, w)| WorkerView {
                id,
                token: w.token.clone().filter(|t| t != SHARED_TOKEN_NAME),
                threads: w.slots,
                jobs_done: w.done,
                live: w.present(live),
                quarantined: state.quarantined.contains(&id),
            })
            .collect();
        workers.sort_by_key(|w| w.id);
        Detail {
            workers,
            confirmed_claims: state.confirmed.len() as u64,
        }
    }
}
