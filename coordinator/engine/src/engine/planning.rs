//! The planning loop: a pass as results arrive, leases that ran out, and the end of the
//! run (its audit, its tree, its solution).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hakase_core::solver::{FirstGuessValue, Solution};
use hakase_proto::job::{JobId, JobSpec};
use hakase_worker::hold::MAX_PER_SLOT;

use super::{answers, Engine, EngineParams, Entry, JobState, State};
use crate::error::ClusterError;
use crate::plan::{Demand, PlanProgress, Request};

/// How long results may wait for a planning pass while the queue is still well stocked.
const REPLAN_EVERY: Duration = Duration::from_millis(25);

/// While the queue runs short, a pass may start once this many times the usual pass length
/// (a running mean) has gone by since the last one started, so planning holds the state
/// lock at most about a quarter of the time. A pass looks at every job it offers: with 128
/// workers Wordle's whole plan (12,972 first guesses, 3.5 ms a pass) is wanted, and a pass
/// per report held the lock from leases and reports for most of the run (128 synthetic
/// workers took 3.5 s to clear the plan, 8 workers 0.9 s). pokemon-verbum's passes take
/// 0.15 ms, and the loop's own pause between passes (1 ms) spaces them more than this. The
/// mean, not the last pass, so that one long pass (the first, which creates every job) does
/// not hold back the passes that set the first cutoffs.
const SHORT_PASS_SPACING: u32 = 4;

/// Weight of the newest pass in the running mean of pass lengths.
const PASS_MEAN_NEWEST: u32 = 4;

/// When the planning loop last did each of its periodic jobs, and how long passes take.
struct Pace {
    /// How often leases are checked for expiry (and the longest idle wait).
    tick: Duration,
    last_ranking: Instant,
    last_expiry: Instant,
    last_plan: Instant,
    /// The running mean of pass lengths.
    pass_mean: Duration,
}

impl Pace {
    fn new(params: &EngineParams) -> Pace {
        let now = Instant::now();
        Pace {
            tick: (params.lease / 4).clamp(Duration::from_millis(20), Duration::from_secs(1)),
            last_ranking: now,
            last_expiry: now,
            last_plan: now,
            pass_mean: Duration::ZERO,
        }
    }
}

/// How a turn of the planning loop ended.
enum Turn {
    /// The run is over or the loop was asked to stop.
    Over,
    /// Nothing was due: the loop waited for a wake-up (or its timeout).
    Waited,
    /// A pass ran or a re-run was picked for the coordinator; the ranking to save when due.
    Planned {
        ranking: Option<(Vec<FirstGuessValue>, PlanProgress)>,
        here: Option<(JobId, Arc<JobSpec>, u32)>,
    },
}

/// How long a disk sync may take before the run declares a storage fault (a healthy disk
/// syncs in milliseconds; a full one never returns).
pub const SYNC_STALL: Duration = Duration::from_secs(10);

impl Engine {
    /// The planning loop: replans whenever results arrive or leases run out, until the run
    /// is over or `stop` is set. Run it on its own thread. Between passes it lets go of the
    /// lock for a moment, so that leases and results are never starved by planning; results
    /// arriving meanwhile are taken by the next pass together. A re-run no other worker can
    /// take is solved here too, on a thread of its own (one at a time), so that planning goes
    /// on meanwhile.
    pub fn drive(&self, stop: &AtomicBool) {
        let mut pace = Pace::new(&self.params);
        let rechecking = AtomicBool::new(false);
        std::thread::scope(|scope| loop {
            let (ranking, here) = match self.planning_turn(stop, &mut pace, &rechecking) {
                Turn::Over => break,
                Turn::Waited => continue,
                Turn::Planned { ranking, here } => (ranking, here),
            };
            if let Some((id, spec, beta)) = here {
                rechecking.store(true, Ordering::Relaxed);
                let rechecking = &rechecking;
                scope.spawn(move || {
                    self.recheck_here(id, &spec, beta);
                    // Under the lock, so the planning loop cannot miss the wake-up.
                    let _state = self.lock();
                    rechecking.store(false, Ordering::Relaxed);
                    self.wake.notify_all();
                });
            }
            if let Some((ranking, progress)) = ranking {
                pace.last_ranking = Instant::now();
                self.save_ranking(&ranking, &progress);
            }
            std::thread::sleep(Duration::from_millis(1));
        });
    }

    /// One turn of the planning loop under the lock: expire leases once a tick, pick a re-run
    /// for the coordinator (unless one is `rechecking`), and plan when a pass is due, or else
    /// wait for a wake-up.
    fn planning_turn(&self, stop: &AtomicBool, pace: &mut Pace, rechecking: &AtomicBool) -> Turn {
        let mut state = self.lock();
        if stop.load(Ordering::Relaxed) || state.solution.is_some() || state.failure.is_some() {
            return Turn::Over;
        }
        if self.store.fault().is_some() {
            // Nothing more can be made durable: wake whoever waits for the end to say so.
            self.ended.notify_all();
            return Turn::Over;
        }
        // Leases are checked once a tick: every job is looked at, and a pass per
        // result was 6 % of the coordinator's time on Wordle's 13,600 jobs.
        if pace.last_expiry.elapsed() >= pace.tick {
            pace.last_expiry = Instant::now();
            self.expire(&mut state);
            self.forget_phantoms(&mut state);
            self.recut_long(&mut state);
        }
        let here = if rechecking.load(Ordering::Relaxed) {
            None
        } else {
            self.recheck_for_coordinator(&mut state)
        };
        // A pass looks at every open first guess: one per report was a quarter of
        // the coordinator's time on Wordle. While the queue holds half of what is
        // wanted, reports wait for the next pass together.
        let since = pace.last_plan.elapsed();
        let next_pass = if self.short_of_jobs(&state) {
            (pace.pass_mean * SHORT_PASS_SPACING).min(REPLAN_EVERY)
        } else {
            REPLAN_EVERY
        };
        let plan_due = state.dirty && since >= next_pass;
        if !plan_due && here.is_none() {
            let wait = if state.dirty {
                next_pass.saturating_sub(since)
            } else {
                pace.tick
            };
            drop(
                self.wake
                    .wait_timeout(state, wait)
                    .unwrap_or_else(|p| p.into_inner()),
            );
            return Turn::Waited;
        }
        if plan_due {
            pace.last_plan = Instant::now();
            self.replan(&mut state);
            let took = pace.last_plan.elapsed();
            pace.pass_mean =
                pace.pass_mean - pace.pass_mean / PASS_MEAN_NEWEST + took / PASS_MEAN_NEWEST;
        }
        let ranking = (pace.last_ranking.elapsed() > Duration::from_secs(5))
            .then(|| (state.planner.ranking(), state.planner.progress()));
        Turn::Planned { ranking, here }
    }

    /// Saves the ranking so far (and, while the run is unsolved, its ranking file), so that
    /// `hakase status` and a restarted coordinator see it; failures only delay the next save.
    fn save_ranking(&self, ranking: &[FirstGuessValue], progress: &PlanProgress) {
        let _ = self.store.put_ranking(ranking);
        if self.solution().is_none() {
            let _ =
                self.store
                    .put_ranking_file(ranking, progress.total, progress.guesses_left, false);
        }
        let _ = self.store.touch();
    }

    /// One planning pass: settles what the results allow and queues the jobs needed now.
    pub(super) fn replan(&self, state: &mut State) {
        state.dirty = false;
        if state.solution.is_some() || state.failure.is_some() {
            return;
        }
        let demand = Demand {
            jobs: self.want(state),
            slots: self.live_slots(state),
        };
        let plan = {
            let State { planner, known, .. } = &mut *state;
            planner.plan(known, demand)
        };
        if let Some((value, at)) = state.planner.incumbent() {
            self.tell(value, at as u32);
        }
        self.audit_displaced(state);
        let mut wanted: HashMap<JobId, Request> = HashMap::new();
        for request in plan.requests {
            match wanted.get_mut(&request.id) {
                Some(r) => {
                    r.beta = r.beta.max(request.beta);
                    r.priority = r.priority.min(request.priority);
                }
                None => {
                    wanted.insert(request.id, request);
                }
            }
        }
        let queued: Vec<((u32, u32, u32), JobId)> = state.queue.iter().copied().collect();
        for key in queued {
            if !wanted.contains_key(&key.1) {
                state.queue.remove(&key);
                if let Some(entry) = state.jobs.get_mut(&key.1) {
                    entry.state = JobState::Idle;
                }
            }
        }
        Self::withdraw_unwanted(state, &wanted);
        for (id, request) in wanted {
            if answers(state.known.get(&id), request.beta) {
                continue;
            }
            let entry = state.jobs.entry(id).or_insert_with(|| Entry {
                spec: request.spec.clone(),
                state: JobState::Idle,
                priority: request.priority,
                completions: 0,
                first: request.first,
                claim_floor: request.claim_floor,
                spec_stored: false,
                leased_to: Vec::new(),
                untightened: false,
                leased_at: None,
            });
            entry.first = request.first;
            entry.claim_floor = request.claim_floor;
            match entry.state {
                JobState::Leased { .. } => {}
                JobState::Idle | JobState::Queued { .. } => {
                    let old = (entry.priority, id);
                    entry.state = JobState::Queued { beta: request.beta };
                    entry.priority = request.priority;
                    state.queue.remove(&old);
                    state.queue.insert((request.priority, id));
                }
            }
        }
        if state.work_at_start.is_none() {
            state.work_at_start = Some(state.planner.progress().work.done);
        }
        if plan.finished {
            let audited = match self.params.audit {
                Some(policy) => self.start_audit(state, policy),
                None => true,
            };
            if audited {
                self.finish(state);
            }
        }
    }

    /// Withdraws the leases of jobs the plan no longer asks for: their first guess or part
    /// was settled by other results (a sibling part's bound refuted the first guess, a
    /// better total cut it off) or the search is over. Their holders are told in the reply
    /// to their next report or heartbeat and drop them if they have not started; a result
    /// that still comes is taken as any other.
    fn withdraw_unwanted(state: &mut State, wanted: &HashMap<JobId, Request>) {
        for (id, entry) in &mut state.jobs {
            if let JobState::Leased { holder, .. } = entry.state {
                if wanted.contains_key(id) {
                    continue;
                }
                entry.state = JobState::Idle;
                state.counters.withdrawn += 1;
                if let Some(worker) = holder.and_then(|w| state.workers.get_mut(&w)) {
                    worker.withdrawn.push(*id);
                }
            }
        }
    }

    /// Wants this many jobs asked for: enough to keep every live worker busy, each holding
    /// up to [`hakase_worker::hold::MAX_PER_SLOT`] jobs per slot when jobs are short.
    fn want(&self, state: &State) -> usize {
        (2 * MAX_PER_SLOT * self.live_slots(state)).max(self.params.min_outstanding)
    }

    /// The job slots of the workers seen within three lease periods.
    fn live_slots(&self, state: &State) -> usize {
        let live = self.live_since();
        state
            .workers
            .values()
            .filter(|w| w.seen >= live)
            .map(|w| w.slots)
            .sum()
    }

    /// True when the queue holds less than half of what is wanted: planning then cannot
    /// wait for [`REPLAN_EVERY`].
    pub(super) fn short_of_jobs(&self, state: &State) -> bool {
        state.queue.len() * 2 < self.want(state)
    }

    fn finish(&self, state: &mut State) {
        let tree = {
            let State { planner, known, .. } = &mut *state;
            let store = &self.store;
            planner.tree(known, &|id| store.tree(id).ok().flatten())
        };
        let tree = match tree {
            Ok(tree) => tree,
            Err(why) => {
                tracing::error!(%why, "the run finished but its tree cannot be assembled");
                state.failure = Some(why);
                self.wake.notify_all();
                self.ended.notify_all();
                return;
            }
        };
        let evaluation = tree
            .as_ref()
            .map(|t| t.evaluate(self.game(), self.table(), &self.game().all_answers()));
        let solution = Solution {
            config: self.config.clone(),
            guesses_left: state.planner.guesses_left(),
            best: state.planner.best(),
            ranking: state.planner.ranking(),
            proven: self.config.is_exact(),
            tree,
            evaluation,
        };
        if let Err(err) = self.store.put_audit(&state.audit) {
            tracing::error!(%err, "storing how the result was checked");
        }
        if let Err(err) = self.store.put_solution(&solution) {
            tracing::error!(%err, "storing the solution");
        }
        state.solution = Some(Arc::new(solution));
        state.finished_secs = Some(self.started.elapsed().as_secs_f64());
        self.close_watches();
        self.wake.notify_all();
        self.ended.notify_all();
    }

    /// Returns leases that ran out to the queue (by replanning).
    fn expire(&self, state: &mut State) {
        let now = Instant::now();
        let mut expired = 0;
        for entry in state.jobs.values_mut() {
            if let JobState::Leased { expiry, .. } = entry.state {
                if expiry <= now {
                    entry.state = JobState::Idle;
                    expired += 1;
                }
            }
        }
        if expired > 0 {
            tracing::warn!(expired, "leases expired; their jobs go to other workers");
            state.counters.lease_expiries += expired;
            state.dirty = true;
        }
    }

    /// Cuts the job leased longest into finer jobs when it has run for
    /// [`EngineParams::recut_after`] while a live worker holds nothing: the pieces go to
    /// the waiting workers (and the holder, whose memo has the job's subproblems), and the
    /// job is withdrawn. One job a tick, so pieces that are short enough start before
    /// anything else is cut.
    fn recut_long(&self, state: &mut State) {
        let Some(after) = self.params.recut_after else {
            return;
        };
        if !state.queue.is_empty() || !self.someone_waits(state) {
            return;
        }
        let now = Instant::now();
        let mut long: Vec<(Instant, JobId)> = state
            .jobs
            .iter()
            .filter_map(|(id, entry)| match (entry.state, entry.leased_at) {
                (JobState::Leased { .. }, Some(at)) if now.duration_since(at) >= after => {
                    Some((at, *id))
                }
                _ => None,
            })
            .collect();
        long.sort_unstable();
        for (_, id) in long {
            if self.recut_in(state, id) {
                tracing::info!(job = %id, "a long job is cut finer for the waiting workers");
                return;
            }
        }
    }

    /// Cuts job `id` finer now, whatever its time (see
    /// [`crate::plan::Planner::recut`]); false when the plan cannot cut it. What
    /// [`EngineParams::recut_after`] does, for tests and tools.
    pub fn recut(&self, id: JobId) -> bool {
        let mut state = self.lock();
        let cut = self.recut_in(&mut state, id);
        if cut {
            self.wake.notify_all();
        }
        cut
    }

    /// Cuts job `id` finer, records it with the run and asks for a planning pass.
    fn recut_in(&self, state: &mut State, id: JobId) -> bool {
        if !state.planner.recut(id) {
            return false;
        }
        if let Err(err) = self.store.put_recut(id) {
            // A restart then plans the job whole again: its pieces' results go unused.
            tracing::warn!(%err, "recording a job cut finer");
        }
        state.counters.recut += 1;
        state.dirty = true;
        true
    }

    /// True when a live worker holds no job and no re-run.
    fn someone_waits(&self, state: &State) -> bool {
        let now = Instant::now();
        let busy: HashSet<u64> = state
            .jobs
            .values()
            .filter_map(|entry| match entry.state {
                JobState::Leased { holder, .. } => holder,
                _ => None,
            })
            .chain(state.rechecks.values().filter_map(|r| {
                r.holder
                    .filter(|(_, until)| *until > now)
                    .map(|(holder, _)| holder)
            }))
            .collect();
        let live = self.live_since();
        state
            .workers
            .iter()
            .any(|(id, worker)| worker.seen >= live && !busy.contains(id))
    }

    /// Wakes [`Engine::drive`] and [`Engine::wait`] (for shutdown).
    pub fn poke(&self) {
        self.wake.notify_all();
        self.ended.notify_all();
    }

    /// Waits up to `timeout` for the run to end; returns its solution once there is one.
    pub fn wait(&self, timeout: Duration) -> Result<Option<Arc<Solution>>, ClusterError> {
        // Before the lock, which a thread stuck in a disk sync may hold.
        self.store.watch_syncs(SYNC_STALL);
        if self.store.fault().is_some() {
            let finished = self.state.try_lock().is_ok_and(|s| s.solution.is_some());
            if !finished {
                self.check_storage()?;
            }
        }
        let state = self.lock();
        let state = if state.solution.is_none() && state.failure.is_none() {
            self.ended
                .wait_timeout(state, timeout)
                .unwrap_or_else(|p| p.into_inner())
                .0
        } else {
            state
        };
        if state.solution.is_none() {
            self.check_storage()?;
        }
        if let Some(why) = &state.failure {
            return Err(ClusterError::Assembly(why.clone()));
        }
        Ok(state.solution.clone())
    }

    /// The solution, once the run is over.
    pub fn solution(&self) -> Option<Arc<Solution>> {
        self.lock().solution.clone()
    }
}
