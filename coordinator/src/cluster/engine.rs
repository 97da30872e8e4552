//! The coordinator's engine: the plan, the job table with leases, and the results, behind
//! one lock. Transport-free and synchronous: the gRPC server drives it, and tests drive it
//! directly.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use hakase_core::solver::{Outcome, Solution, Solver, SolverConfig};
use hakase_core::{FeedbackTable, Game};
use hakase_proto::job::{JobAnswer, JobId, JobKind, JobSpec};
use hakase_worker::hold::MAX_PER_SLOT;
use tokio::sync::watch;

use super::audit::{self, AuditPolicy, AuditSummary, Reason, Recheck, Verdict, COORDINATOR};
use super::error::ClusterError;
use super::joblog::{JobLine, JobLog};
use super::plan::{self, Known, PlanParams, PlanProgress, Planner, Request};
use super::store::{unix_millis, JobStatus, QuarantineRecord, Store, StoredState};

/// Tuning of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineParams {
    /// How jobs are cut.
    pub plan: PlanParams,
    /// How long a worker holds a job without a heartbeat.
    pub lease: Duration,
    /// Jobs to keep asked for at least, whatever the number of workers.
    pub min_outstanding: usize,
    /// Re-run claims before the result is declared (workers not trusted); `None` trusts
    /// every worker (tests driving the engine directly).
    pub audit: Option<AuditPolicy>,
}

impl Default for EngineParams {
    fn default() -> Self {
        EngineParams {
            plan: PlanParams::default(),
            lease: Duration::from_secs(30),
            min_outstanding: 4,
            audit: None,
        }
    }
}

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
    /// Workers seen within three lease periods.
    pub workers: u64,
    /// Seconds since this coordinator started.
    pub elapsed_secs: f64,
    /// Top of the ranking: guess text, exact, value.
    pub ranking: Vec<(String, bool, u32)>,
    /// Seconds left at the rate first guesses were settled so far (none before the first).
    pub eta_secs: Option<f64>,
    /// How the results were checked so far.
    pub audit: AuditSummary,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JobState {
    Idle,
    Queued { beta: u32 },
    Leased { beta: u32, expiry: Instant },
}

struct Entry {
    spec: Arc<JobSpec>,
    state: JobState,
    priority: (u32, u32, u32),
    completions: u32,
    /// The first-guess index of a whole first-guess job.
    first: Option<u32>,
    /// True once the spec is in the store (written with the first lease: jobs never leased
    /// are made again by the planner after a restart, and cost no disk).
    spec_stored: bool,
}

impl Entry {
    /// The first guess (in search order) the job serves, part jobs included, for the job
    /// log; `None` for a job restored from disk that no planning pass has placed yet.
    fn search_index(&self) -> Option<u32> {
        Some(self.priority.0).filter(|&i| i != u32::MAX)
    }
}

struct Worker {
    seen: Instant,
    slots: usize,
    /// True once a lease told this worker that the run is over.
    told: bool,
    /// The name of the per-worker token it registered with.
    token: Option<String>,
}

struct State {
    planner: Planner,
    known: Known,
    jobs: HashMap<JobId, Entry>,
    queue: BTreeSet<QueueKey>,
    dirty: bool,
    solution: Option<Arc<Solution>>,
    failure: Option<String>,
    counters: Counters,
    workers: HashMap<u64, Worker>,
    next_worker: u64,
    /// First guesses settled by results found at start (they cost this session nothing).
    settled_at_start: Option<usize>,
    /// The worker whose result for each job is the one known.
    claims: HashMap<JobId, u64>,
    /// Workers caught lying, refused from then on.
    quarantined: HashSet<u64>,
    /// Per-worker tokens of quarantined workers, refused too.
    quarantined_tokens: HashSet<String>,
    /// Claims being re-run before the result is declared.
    rechecks: HashMap<JobId, Recheck>,
    /// Claims a re-run confirmed, with the cutoff they were confirmed for.
    confirmed: HashMap<JobId, u32>,
    /// The rank (as [`Planner::first_rank`]) of the claim last re-run ahead as the likely
    /// runner-up's: only a claim ranking before it is re-run ahead next.
    ahead_rank: Option<(u32, bool, usize)>,
    /// Claims re-run ahead (see [`Reason::Ahead`]), for the account.
    ahead: HashSet<JobId>,
    /// Exact claims that were the best total known when they arrived. While one is, a re-run
    /// against its cutoff would have to find its exact value, and the final audit decides
    /// whether it is needed; once a better total displaces it, its sample re-run starts
    /// (see [`Engine::audit_displaced`]).
    incumbent_claims: HashSet<JobId>,
    /// True while the finished search waits for its re-runs.
    auditing: bool,
    /// The worker last given a first guess of each letter set (see [`Engine::next_queued`]).
    affinity: HashMap<[u64; 4], u64>,
    /// The account of checking.
    audit: AuditSummary,
}

/// A job handed to a worker.
#[derive(Debug, Clone)]
pub struct Leased {
    /// The content address.
    pub id: JobId,
    /// The subproblem.
    pub spec: Arc<JobSpec>,
    /// The cutoff.
    pub beta: u32,
    /// The first-guess index of a whole first-guess job (workers tighten its cutoff with
    /// the incumbent they hear of).
    pub first: Option<u32>,
    /// True for a re-run of another worker's claim.
    pub recheck: bool,
}

/// The records of jobs just leased, to be stored: the spec of a first lease, and the status.
type LeaseRecords = Vec<(JobId, Option<Arc<JobSpec>>, JobStatus)>;

/// The engine of one run.
pub struct Engine {
    /// The game (lives as long as the process).
    pub game: &'static Game,
    /// Its feedback table.
    pub table: &'static FeedbackTable,
    /// The solver options.
    pub config: SolverConfig,
    store: Store,
    state: Mutex<State>,
    wake: Condvar,
    /// Signalled when the run ends (or on [`Engine::poke`]): what [`Engine::wait`] waits on,
    /// kept apart from `wake` so that waiters are not woken by every result.
    ended: Condvar,
    params: EngineParams,
    started: Instant,
    /// The opt-in per-job log.
    job_log: Option<JobLog>,
    /// The coordinator's own solver for re-runs no other worker can take (made on first use).
    audit_solver: OnceLock<Solver<'static>>,
    /// The best total told to workers that watch it (see [`Engine::watch_incumbent`]).
    told: watch::Sender<Told>,
}

/// What workers watching the incumbent are told. A watch channel keeps only the latest, so a
/// slow worker skips totals that were already beaten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Told {
    /// No total is known yet.
    Nothing,
    /// The best total and its first guess's index in search order.
    Best(u32, u32),
    /// The run is over, or the server is stopping: streams end. A worker hears the end at
    /// once and asks for its last lease (which tells it the run is over) instead of at its
    /// next poll, and the server's graceful shutdown does not wait on open streams.
    Closed,
}

/// A queued job's place: (priority, id), in search order.
type QueueKey = ((u32, u32, u32), JobId);

/// The policy of [`Engine::next_queued`]: the first of the first [`AFFINITY_WINDOW`] queued
/// jobs whose letter set (`letters`) no other live worker took last, else the first.
fn pick(
    queue: &BTreeSet<QueueKey>,
    letters: impl Fn(JobId) -> Option<[u64; 4]>,
    affinity: &HashMap<[u64; 4], u64>,
    live: &HashSet<u64>,
    worker: u64,
) -> Option<QueueKey> {
    let front = *queue.first()?;
    let free = |key: &&QueueKey| {
        letters(key.1)
            .and_then(|set| affinity.get(&set))
            .is_none_or(|owner| *owner == worker || !live.contains(owner))
    };
    Some(
        queue
            .iter()
            .take(AFFINITY_WINDOW)
            .find(free)
            .copied()
            .unwrap_or(front),
    )
}

/// How far down the queue a lease looks for a job of the worker's own letter sets.
const AFFINITY_WINDOW: usize = 64;

/// How long results may wait for a planning pass while the queue is still well stocked.
const REPLAN_EVERY: Duration = Duration::from_millis(25);

/// Memo entries of the coordinator's re-run solver.
const AUDIT_MEMO: usize = 1 << 20;

/// Seconds left if first guesses keep being settled at this session's rate.
fn eta(total: usize, settled: usize, at_start: Option<usize>, elapsed: f64) -> Option<f64> {
    let done_here = settled.saturating_sub(at_start.unwrap_or(0));
    (done_here > 0 && settled < total)
        .then(|| elapsed * (total - settled) as f64 / done_here as f64)
}

fn stronger(new: Outcome, old: Option<Outcome>) -> bool {
    match (new, old) {
        (_, None) => true,
        (_, Some(Outcome::Exact { .. })) => false,
        (Outcome::Exact { .. }, _) => true,
        (Outcome::AtLeast(a), Some(Outcome::AtLeast(b))) => a > b,
    }
}

fn answers(outcome: Option<&Outcome>, beta: u32) -> bool {
    match outcome {
        Some(Outcome::Exact { .. }) => true,
        Some(Outcome::AtLeast(bound)) => *bound >= beta,
        None => false,
    }
}

impl Engine {
    /// Opens the run in `store` (resuming whatever it holds) for `game` under `config`.
    pub fn new(
        game: Game,
        config: SolverConfig,
        store_path: &std::path::Path,
        params: EngineParams,
    ) -> Result<Engine, ClusterError> {
        let store = Store::open(store_path, &game, &config)?;
        let game: &'static Game = Box::leak(Box::new(game));
        let table: &'static FeedbackTable = Box::leak(Box::new(FeedbackTable::build(game)));
        let planner = Planner::new(game, table, config.clone(), params.plan);
        let quarantine = store.load_quarantine()?;
        let quarantined: HashSet<u64> = quarantine.iter().map(|q| q.worker).collect();
        let quarantined_tokens: HashSet<String> =
            quarantine.iter().filter_map(|q| q.token.clone()).collect();
        let mut known = Known::new();
        for (id, outcome, _) in store.load_results()? {
            known.insert(id, outcome);
        }
        let mut claims = HashMap::new();
        for (id, worker) in store.load_claims()? {
            // A quarantine that a crash interrupted: its worker's results may still be stored.
            if quarantined.contains(&worker) {
                known.remove(&id);
            } else {
                claims.insert(id, worker);
            }
        }
        let next_worker = store.next_worker()?;
        let stored_audit = store.audit()?;
        let mut jobs = HashMap::new();
        let (now, now_ms) = (Instant::now(), unix_millis());
        for (id, record) in store.load_jobs()? {
            // A lease still running survives a restart: the worker holding the job will
            // report it, and handing it to another worker meanwhile would compute it twice.
            let state = match record.state {
                StoredState::Leased { beta, expiry } if expiry > now_ms => JobState::Leased {
                    beta,
                    expiry: now + Duration::from_millis(expiry - now_ms),
                },
                _ => JobState::Idle,
            };
            jobs.insert(
                id,
                Entry {
                    spec: Arc::new(record.spec),
                    state,
                    priority: (u32::MAX, 0, 0),
                    completions: record.completions,
                    first: None,
                    spec_stored: true,
                },
            );
        }
        let solution = store.solution()?.map(Arc::new);
        // A finished run has nothing more to tell.
        let told = watch::Sender::new(if solution.is_some() {
            Told::Closed
        } else {
            Told::Nothing
        });
        let counters = Counters {
            results_loaded: known.len() as u64,
            ..Counters::default()
        };
        tracing::info!(
            db = %store_path.display(),
            results = known.len(),
            jobs = jobs.len(),
            finished = solution.is_some(),
            "opened the run"
        );
        Ok(Engine {
            game,
            table,
            config,
            store,
            state: Mutex::new(State {
                planner,
                known,
                jobs,
                queue: BTreeSet::new(),
                dirty: true,
                solution,
                failure: None,
                counters,
                workers: HashMap::new(),
                next_worker,
                settled_at_start: None,
                claims,
                // A finished run keeps the account of how it was checked.
                audit: stored_audit.unwrap_or_else(|| AuditSummary {
                    enabled: params.audit.is_some(),
                    fraction: params.audit.map_or(0.0, |p| p.fraction()),
                    quarantined: quarantined.iter().copied().collect(),
                    ..AuditSummary::default()
                }),
                quarantined,
                quarantined_tokens,
                rechecks: HashMap::new(),
                confirmed: HashMap::new(),
                ahead_rank: None,
                ahead: HashSet::new(),
                incumbent_claims: HashSet::new(),
                auditing: false,
                affinity: HashMap::new(),
            }),
            wake: Condvar::new(),
            ended: Condvar::new(),
            params,
            started: Instant::now(),
            job_log: None,
            audit_solver: OnceLock::new(),
            told,
        })
    }

    /// Logs every finished job to `log` from now on (see [`super::joblog`]).
    pub fn with_job_log(mut self, log: JobLog) -> Engine {
        self.job_log = Some(log);
        self
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The lease duration workers are told.
    pub fn lease_duration(&self) -> Duration {
        self.params.lease
    }

    /// The run database.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Registers a worker with `slots` job slots, presenting the per-worker token named
    /// `token` (if any); returns its id. A quarantined token is refused.
    pub fn register(&self, slots: usize, token: Option<&str>) -> Result<u64, ClusterError> {
        let mut state = self.lock();
        let id = state.next_worker;
        if token.is_some_and(|t| state.quarantined_tokens.contains(t)) {
            return Err(ClusterError::Quarantined(id));
        }
        state.next_worker += 1;
        self.store.put_next_worker(state.next_worker)?;
        state.workers.insert(
            id,
            Worker {
                seen: Instant::now(),
                slots: slots.max(1),
                told: false,
                token: token.map(str::to_string),
            },
        );
        state.dirty = true;
        self.wake.notify_all();
        Ok(id)
    }

    /// True when `worker` (or the per-worker token named `token`) is quarantined.
    pub fn refuses(&self, worker: u64, token: Option<&str>) -> bool {
        let state = self.lock();
        state.quarantined.contains(&worker)
            || token.is_some_and(|t| state.quarantined_tokens.contains(t))
    }

    fn touch(state: &mut State, worker: u64) {
        state
            .workers
            .entry(worker)
            .and_modify(|w| w.seen = Instant::now())
            .or_insert(Worker {
                seen: Instant::now(),
                slots: 1,
                told: false,
                token: None,
            });
    }

    /// Hands out up to `max` jobs; `None` when the run is over. Returns only once their
    /// lease records are on disk (one sync shared with concurrent callers): a restarted
    /// coordinator then knows every job a live worker holds and waits for its result instead
    /// of handing the job to another worker. Without this, the leases of the last moments
    /// before a kill were lost, and jobs a worker still held were computed twice.
    pub fn lease(&self, worker: u64, max: usize) -> Result<Option<Vec<Leased>>, ClusterError> {
        let Some((out, wrote)) = self.store_lease(worker, max)? else {
            return Ok(None);
        };
        if wrote {
            self.store.sync()?;
        }
        Ok(Some(out))
    }

    /// [`lease`](Self::lease) without the closing sync, for a caller that syncs anyway
    /// before it replies (a batch report that leases too): one disk sync covers both.
    pub fn lease_unsynced(
        &self,
        worker: u64,
        max: usize,
    ) -> Result<Option<Vec<Leased>>, ClusterError> {
        Ok(self.store_lease(worker, max)?.map(|(out, _)| out))
    }

    /// Takes up to `max` jobs for `worker` and writes their lease records (not synced);
    /// true with them when there were records to write.
    fn store_lease(
        &self,
        worker: u64,
        max: usize,
    ) -> Result<Option<(Vec<Leased>, bool)>, ClusterError> {
        let Some((out, records)) = self.take_jobs(worker, max) else {
            return Ok(None);
        };
        for (id, spec, status) in &records {
            if let Some(spec) = spec {
                self.store.put_spec(*id, spec)?;
            }
            self.store.put_status(*id, *status)?;
        }
        Ok(Some((out, !records.is_empty())))
    }

    /// Takes up to `max` jobs for `worker` under the lock; returns them with the lease
    /// records to store.
    fn take_jobs(&self, worker: u64, max: usize) -> Option<(Vec<Leased>, LeaseRecords)> {
        let mut out = Vec::new();
        let mut records = Vec::new();
        {
            let mut state = self.lock();
            if state.solution.is_some() || state.failure.is_some() {
                if let Some(w) = state.workers.get_mut(&worker) {
                    w.told = true;
                }
                return None;
            }
            if state.quarantined.contains(&worker) {
                return Some((Vec::new(), Vec::new()));
            }
            Self::touch(&mut state, worker);
            let expiry = Instant::now() + self.params.lease;
            let expiry_ms = unix_millis() + self.params.lease.as_millis() as u64;
            // A claim waiting for its re-run goes first (one per call), so that re-runs overlap
            // the search instead of following it.
            Self::lease_rechecks(&mut state, worker, 1.min(max), expiry, &mut out);
            let live = self.live_workers(&state);
            let State {
                queue,
                jobs,
                known,
                planner,
                affinity,
                ..
            } = &mut *state;
            while out.len() < max {
                let Some(key) = self.next_queued(queue, jobs, affinity, &live, worker) else {
                    break;
                };
                queue.remove(&key);
                let id = key.1;
                let Some(entry) = jobs.get_mut(&id) else {
                    continue;
                };
                let JobState::Queued { beta } = entry.state else {
                    continue;
                };
                // The incumbent may have improved since the job was queued.
                let beta = entry
                    .first
                    .map_or(beta, |i| beta.min(planner.cutoff(i as usize)));
                if answers(known.get(&id), beta) {
                    entry.state = JobState::Idle;
                    continue;
                }
                entry.state = JobState::Leased { beta, expiry };
                if let Some(letters) = self.letter_set(entry) {
                    affinity.insert(letters, worker);
                }
                out.push(Leased {
                    id,
                    spec: entry.spec.clone(),
                    beta,
                    first: entry.first,
                    recheck: false,
                });
                let unstored = (!entry.spec_stored).then(|| entry.spec.clone());
                entry.spec_stored = true;
                records.push((
                    id,
                    unstored,
                    JobStatus {
                        state: StoredState::Leased {
                            beta,
                            expiry: expiry_ms,
                        },
                        completions: entry.completions,
                    },
                ));
            }
            let room = max - out.len();
            Self::lease_rechecks(&mut state, worker, room, expiry, &mut out);
            state.counters.leases += out.len() as u64;
            state.counters.empty_leases += u64::from(out.is_empty());
            if state.queue.is_empty() {
                state.dirty = true;
                self.wake.notify_all();
            }
        }
        Some((out, records))
    }

    /// The queued job to lease to `worker` next: the first in search order, except that a
    /// whole first guess whose letter set another live worker took last is left to that
    /// worker when something else is queued close behind. Guesses with the same letters
    /// leave the same all-gray part (usually the largest), so the worker that bounded it for
    /// one finds it in its memo for the others; with first guesses spread blindly, each
    /// worker bounded it again (measured: 9 % more table reads with 2 workers than in one
    /// process).
    fn next_queued(
        &self,
        queue: &BTreeSet<QueueKey>,
        jobs: &HashMap<JobId, Entry>,
        affinity: &HashMap<[u64; 4], u64>,
        live: &HashSet<u64>,
        worker: u64,
    ) -> Option<QueueKey> {
        let letters = |id: JobId| jobs.get(&id).and_then(|entry| self.letter_set(entry));
        pick(queue, letters, affinity, live, worker)
    }

    /// The letter set of a whole first-guess job.
    fn letter_set(&self, entry: &Entry) -> Option<[u64; 4]> {
        match (entry.first, &entry.spec.kind) {
            (Some(_), JobKind::Guess(guess)) => self
                .game
                .guesses()
                .get(*guess as usize)
                .map(|word| word.letter_set()),
            _ => None,
        }
    }

    /// A worker seen since this moment (three lease periods ago) counts as live.
    fn live_since(&self) -> Instant {
        Instant::now() - self.params.lease * 3
    }

    /// Workers seen within three lease periods and not quarantined.
    fn live_workers(&self, state: &State) -> HashSet<u64> {
        let live = self.live_since();
        state
            .workers
            .iter()
            .filter(|(id, w)| w.seen >= live && !state.quarantined.contains(id))
            .map(|(id, _)| *id)
            .collect()
    }

    /// True when every worker seen within three lease periods has been told that the run is
    /// over (so a finished coordinator need not linger for them).
    pub fn all_told(&self) -> bool {
        let live = self.live_since();
        self.lock()
            .workers
            .values()
            .all(|w| w.told || w.seen < live)
    }

    /// Extends the leases of jobs still being solved.
    pub fn heartbeat(&self, worker: u64, ids: &[JobId]) {
        let mut state = self.lock();
        Self::touch(&mut state, worker);
        let expiry = Instant::now() + self.params.lease;
        for id in ids {
            if let Some(entry) = state.jobs.get_mut(id) {
                if let JobState::Leased { beta, .. } = entry.state {
                    entry.state = JobState::Leased { beta, expiry };
                }
            }
        }
    }

    /// The best total known and its first guess's index in search order, for workers to
    /// tighten the cutoffs of the first-guess jobs they hold.
    pub fn incumbent(&self) -> Option<(u32, u32)> {
        self.lock()
            .planner
            .incumbent()
            .map(|(value, at)| (value, at as u32))
    }

    /// Follows the best total as it improves. A worker otherwise hears of another worker's
    /// better first guess only at its own next lease or report (on pokemon-verbum, 100 ms
    /// of jobs run with a stale cutoff); exact first-guess results are told as they are
    /// taken, before the planning pass that makes them the planner's incumbent.
    pub fn watch_incumbent(&self) -> watch::Receiver<Told> {
        self.told.subscribe()
    }

    /// Ends every incumbent stream (the run is over, or the server is stopping).
    pub fn close_watches(&self) {
        self.told.send_replace(Told::Closed);
    }

    /// Tells watchers of `(value, at)` if it beats what they were told: a lower total, or
    /// the same total at an earlier first guess (the solver's tie-break).
    fn tell(&self, value: u32, at: u32) {
        self.told.send_if_modified(|told| {
            let better = match *told {
                Told::Nothing => true,
                Told::Best(v, a) => (value, at) < (v, a),
                Told::Closed => false,
            };
            if better {
                *told = Told::Best(value, at);
            }
            better
        });
    }

    /// Tells watchers the best total again: workers take any message as "jobs are
    /// waiting" and ask at once. At the end of a search the audit's last re-runs appear
    /// while every worker is idle, polling every 5 ms; on pokemon-verbum that wait was up to
    /// 5 ms of a 0.42 s run, and again for the result. Older workers take the same total
    /// again, which changes nothing.
    fn nudge(&self) {
        self.told
            .send_if_modified(|told| matches!(told, Told::Best(..)));
    }

    /// The spec of a job this run created.
    pub fn spec(&self, id: JobId) -> Option<Arc<JobSpec>> {
        self.lock().jobs.get(&id).map(|e| e.spec.clone())
    }

    /// Takes a worker's result: checks it against the job, stores it if it adds anything and,
    /// when `durable`, returns only once it is on disk (remote workers are acknowledged only
    /// then; callers that batch results sync once per batch). Ok(false) for a duplicate.
    pub fn complete(
        &self,
        worker: u64,
        id: JobId,
        answer: JobAnswer,
        durable: bool,
    ) -> Result<bool, ClusterError> {
        let (spec, previous, recheck) = {
            let mut state = self.lock();
            if state.quarantined.contains(&worker) {
                return Err(ClusterError::Quarantined(worker));
            }
            Self::touch(&mut state, worker);
            let recheck = state
                .rechecks
                .get(&id)
                .filter(|r| r.holder.is_some_and(|(w, _)| w == worker))
                .map(|r| r.spec.clone());
            let spec = match recheck.clone() {
                Some(spec) => spec,
                None => state
                    .jobs
                    .get(&id)
                    .map(|e| e.spec.clone())
                    .ok_or_else(|| ClusterError::UnknownJob(id.to_string()))?,
            };
            (spec, state.known.get(&id).copied(), recheck.is_some())
        };
        if let Err(err) = self.check(&spec, &answer) {
            let mut state = self.lock();
            state.counters.rejected += 1;
            self.quarantine(&mut state, worker, &err.to_string());
            return Err(err);
        }
        if recheck {
            return self.judge(worker, id, answer);
        }
        let new = stronger(answer.outcome, previous);
        if new {
            self.store.put_result(id, &answer)?;
            self.store.put_claim(id, worker)?;
        }
        // The job stays leased until its result is durable and known: a replan in between
        // must not hand it out again.
        let completions = self.lock().jobs.get(&id).map_or(1, |e| e.completions + 1);
        self.store.put_status(
            id,
            JobStatus {
                state: StoredState::Done,
                completions,
            },
        )?;
        if durable {
            self.store.sync()?;
        }
        let mut state = self.lock();
        if state.quarantined.contains(&worker) {
            // Caught meanwhile (its re-run or another result): this one is not taken either.
            drop(state);
            if new {
                self.store.remove_result(id)?;
            }
            return Err(ClusterError::Quarantined(worker));
        }
        state.counters.completions += 1;
        state.audit.exact_verified += u64::from(answer.outcome.is_exact());
        state.counters.nodes += answer.nodes;
        state.counters.job_millis += answer.millis;
        state.counters.longest_job_millis = state.counters.longest_job_millis.max(answer.millis);
        if let Some(log) = &self.job_log {
            let first = state.jobs.get(&id).and_then(Entry::search_index);
            log.write(&JobLine::new(
                self.started.elapsed().as_millis() as u64,
                worker,
                &spec,
                first,
                &answer,
                self.game.answers().len(),
            ));
        }
        if let Some(entry) = state.jobs.get_mut(&id) {
            entry.completions += 1;
            if matches!(entry.state, JobState::Leased { .. }) {
                entry.state = JobState::Idle;
            }
        }
        let rechecks_before = state.rechecks.len();
        if new {
            let merged = match (answer.outcome, state.known.get(&id)) {
                (o, old) if stronger(o, old.copied()) => o,
                (_, Some(old)) => *old,
                (o, None) => o,
            };
            state.known.insert(id, merged);
            state.claims.insert(id, worker);
            // Its tree was checked above, so the total is reached: a sound cutoff at once.
            if let (Outcome::Exact { value, .. }, Some(i)) =
                (answer.outcome, state.jobs.get(&id).and_then(|e| e.first))
            {
                self.tell(value, i);
            }
            self.audit_early(&mut state, id);
        } else {
            state.counters.duplicate_completions += 1;
        }
        // A result can arrive for a job queued again meanwhile (after a lease expiry or a
        // coordinator restart): if it answers that request, the job leaves the queue.
        let known = state.known.get(&id).copied();
        if let Some(entry) = state.jobs.get_mut(&id) {
            if let JobState::Queued { beta } = entry.state {
                if answers(known.as_ref(), beta) {
                    entry.state = JobState::Idle;
                }
            }
        }
        // The planning loop is woken only when it would act now: it plans at most every
        // `REPLAN_EVERY` once the state is dirty, so waking it for every result (13,600 on
        // Wordle, two futex calls and a context switch each) only put it back to sleep.
        let wake =
            !state.dirty || self.short_of_jobs(&state) || state.rechecks.len() > rechecks_before;
        state.dirty = true;
        if wake {
            self.wake.notify_all();
        }
        Ok(new)
    }

    /// Refuses results that contradict their job: an exact value must come with a tree that
    /// reaches it over the job's candidates within its guesses.
    fn check(&self, spec: &JobSpec, answer: &JobAnswer) -> Result<(), ClusterError> {
        let Outcome::Exact { value, guess } = answer.outcome else {
            return Ok(());
        };
        let tree = answer
            .tree
            .as_ref()
            .ok_or_else(|| ClusterError::BadResult("exact result without a tree".into()))?;
        if let JobKind::Guess(g) = spec.kind {
            if guess != g || tree.guess != g {
                return Err(ClusterError::BadResult(
                    "tree does not start with the job's guess".into(),
                ));
            }
        }
        let eval = tree.evaluate(self.game, self.table, &spec.node.candidates);
        if !eval.unsolved.is_empty()
            || eval.total != u64::from(value)
            || eval.worst > spec.node.guesses_left
        {
            return Err(ClusterError::BadResult(format!(
                "tree totals {} (worst {}, {} unsolved), result says {value}",
                eval.total,
                eval.worst,
                eval.unsolved.len()
            )));
        }
        Ok(())
    }

    /// Hands up to `room` more claims waiting for a re-run to `worker`, never its own claims.
    fn lease_rechecks(
        state: &mut State,
        worker: u64,
        room: usize,
        expiry: Instant,
        out: &mut Vec<Leased>,
    ) {
        let now = Instant::now();
        let until = out.len() + room;
        for (id, recheck) in state.rechecks.iter_mut() {
            if out.len() >= until {
                break;
            }
            let free = recheck.holder.is_none_or(|(_, until)| until <= now);
            if !free || recheck.claimant == Some(worker) {
                continue;
            }
            recheck.holder = Some((worker, expiry));
            out.push(Leased {
                id: *id,
                spec: recheck.spec.clone(),
                beta: recheck.beta,
                // The re-run's cutoff is the claim's: it must not follow the incumbent.
                first: None,
                recheck: true,
            });
        }
    }

    /// Takes the re-run of a claim: confirms it, or quarantines the worker that made it.
    fn judge(&self, worker: u64, id: JobId, answer: JobAnswer) -> Result<bool, ClusterError> {
        let mut state = self.lock();
        let Some(recheck) = state.rechecks.remove(&id) else {
            return Ok(false);
        };
        let on_coordinator = worker == COORDINATOR;
        if let Some(log) = &self.job_log {
            let first = state.jobs.get(&id).and_then(Entry::search_index);
            let mut line = JobLine::new(
                self.started.elapsed().as_millis() as u64,
                worker,
                &recheck.spec,
                first,
                &answer,
                self.game.answers().len(),
            );
            line.recheck = true;
            log.write(&line);
        }
        match audit::verdict(recheck.beta, recheck.claimed, answer.outcome) {
            Verdict::Confirmed => {
                tracing::debug!(job = %id, beta = recheck.beta, "claim confirmed by a re-run");
                state.confirmed.insert(id, recheck.beta);
                match recheck.reason {
                    Reason::Decisive => state.audit.rerun_decisive += 1,
                    Reason::Policy => state.audit.rerun_policy += 1,
                    Reason::Ahead => {
                        state.audit.rerun_ahead += 1;
                        state.ahead.insert(id);
                    }
                }
                state.audit.rerun_on_coordinator += u64::from(on_coordinator);
            }
            Verdict::Refuted(value) => {
                let why = format!(
                    "claimed {:?} for job {id}; a re-run found a verified total of {value}",
                    recheck.claimed
                );
                // The re-run's result (with its verified tree) replaces the false claim.
                self.store.put_result(id, &answer)?;
                self.store.put_claim(id, worker)?;
                state.known.insert(id, answer.outcome);
                state.claims.insert(id, worker);
                match recheck.claimant {
                    Some(liar) => self.quarantine(&mut state, liar, &why),
                    None => {
                        tracing::warn!(%why, "a claim of unknown origin was false");
                        self.restart_search(&mut state);
                    }
                }
            }
        }
        state.dirty = true;
        self.wake.notify_all();
        Ok(true)
    }

    /// Refuses `worker` from now on (and its per-worker token), forgets every result it
    /// made so that others redo them, and plans the search again from what is left.
    fn quarantine(&self, state: &mut State, worker: u64, why: &str) {
        state.audit.lies_caught += 1;
        if worker == COORDINATOR || !state.quarantined.insert(worker) {
            return;
        }
        let token = state
            .workers
            .get(&worker)
            .and_then(|w| w.token.clone())
            .filter(|t| t != "shared");
        let record = QuarantineRecord {
            worker,
            token: token.clone(),
            why: why.to_string(),
        };
        if let Err(err) = self.store.put_quarantine(&record) {
            tracing::error!(%err, "recording a quarantine");
        }
        state.quarantined_tokens.extend(token);
        state.audit.quarantined.push(worker);
        let forged: Vec<JobId> = state
            .claims
            .iter()
            .filter(|(_, w)| **w == worker)
            .map(|(id, _)| *id)
            .collect();
        tracing::warn!(
            worker,
            %why,
            results = forged.len(),
            "worker quarantined; its results are redone by others"
        );
        for id in &forged {
            state.claims.remove(id);
            state.known.remove(id);
            state.confirmed.remove(id);
            if state.ahead.remove(id) {
                state.audit.rerun_ahead -= 1;
            }
            if let Err(err) = self.store.remove_result(*id) {
                tracing::error!(%err, "forgetting a quarantined result");
            }
        }
        for recheck in state.rechecks.values_mut() {
            if recheck.holder.is_some_and(|(w, _)| w == worker) {
                recheck.holder = None;
            }
        }
        self.restart_search(state);
    }

    /// Plans the search again from the results known now (after some were forgotten).
    fn restart_search(&self, state: &mut State) {
        state.planner = Planner::new(self.game, self.table, self.config.clone(), self.params.plan);
        state.rechecks.clear();
        state.auditing = false;
        state.ahead_rank = None;
        state.incumbent_claims.clear();
        for entry in state.jobs.values_mut() {
            if matches!(entry.state, JobState::Queued { .. }) {
                entry.state = JobState::Idle;
            }
        }
        state.queue.clear();
        state.dirty = true;
        self.wake.notify_all();
    }

    /// Starts the re-run of a first-guess claim in the audit's sample as soon as the claim
    /// arrives, to overlap the rest of the search (the sample is a function of run and job
    /// only, so it is the same claim the final audit would pick). The cutoff is the first
    /// guess's cutoff at this moment; cutoffs only fall as the incumbent improves, so a
    /// confirmation now also holds for the final cutoff, and [`Engine::start_audit`] then
    /// finds the claim confirmed. The runner-up's claim is known only at the end; a claim
    /// that ranks before every claim re-run so far (as the ranking orders them: by value,
    /// exact first, then search order) is re-run now too, as the likely runner-up's. On
    /// pokemon-verbum the runner-up's re-run alone was the last 15 ms of a 0.5 s run.
    fn audit_early(&self, state: &mut State, id: JobId) {
        let Some(policy) = self.params.audit else {
            return;
        };
        let Some((i, cutoff, outcome)) = self.needs_early_recheck(state, id) else {
            return;
        };
        if outcome.is_exact() && outcome.value() < cutoff {
            state.incumbent_claims.insert(id);
            return;
        }
        let rank = (outcome.value(), !outcome.is_exact(), i as usize);
        let leads = state.ahead_rank.is_none_or(|ahead| rank < ahead);
        if leads {
            state.ahead_rank = Some(rank);
        }
        let reason = if policy.sampled(self.store.audit_seed(), id) {
            Reason::Policy
        } else if leads {
            Reason::Ahead
        } else {
            return;
        };
        Self::queue_recheck(state, id, cutoff, outcome, reason);
    }

    /// Starts the sample re-run of each claim that was the incumbent when it arrived and has
    /// been displaced since (run after planning, which moves the cutoffs). Without this they
    /// were picked only by the final audit: on pokemon-verbum, first guess 1's re-run (59
    /// nodes) was then the last 21 ms of a 0.46 s run. A displaced claim never leads the
    /// ranking for an ahead re-run: the bound claims that settle at the new cutoff rank
    /// before it, and re-running every displaced incumbent as the likely runner-up's would
    /// cost more than the tail it saves.
    fn audit_displaced(&self, state: &mut State) {
        let Some(policy) = self.params.audit else {
            return;
        };
        if state.incumbent_claims.is_empty() {
            return;
        }
        let claims: Vec<JobId> = state.incumbent_claims.iter().copied().collect();
        for id in claims {
            let Some((i, cutoff, outcome)) = self.needs_early_recheck(state, id) else {
                state.incumbent_claims.remove(&id);
                continue;
            };
            if state
                .planner
                .incumbent()
                .is_none_or(|(_, at)| at == i as usize)
            {
                continue;
            }
            state.incumbent_claims.remove(&id);
            if policy.sampled(self.store.audit_seed(), id) {
                Self::queue_recheck(state, id, cutoff, outcome, Reason::Policy);
            }
        }
    }

    /// The first-guess index, cutoff and claim of `id` when its claim settles a first guess
    /// that nothing else covers (no re-run yet, no admissible bound reaching the cutoff, no
    /// confirmation for it), and the audit has not begun; `None` otherwise.
    fn needs_early_recheck(&self, state: &State, id: JobId) -> Option<(u32, u32, Outcome)> {
        if state.auditing || state.rechecks.contains_key(&id) {
            return None;
        }
        let (entry, outcome) = (state.jobs.get(&id)?, *state.known.get(&id)?);
        let i = entry.first?;
        let cutoff = state.planner.cutoff(i as usize);
        let settled = answers(Some(&outcome), cutoff);
        let covered = state.planner.lower(i as usize) >= cutoff;
        let confirmed = state.confirmed.get(&id).is_some_and(|&b| b >= cutoff);
        (settled && !covered && !confirmed).then_some((i, cutoff, outcome))
    }

    /// Queues the re-run of `id`'s claim against `cutoff`.
    fn queue_recheck(state: &mut State, id: JobId, cutoff: u32, claimed: Outcome, reason: Reason) {
        let Some(entry) = state.jobs.get(&id) else {
            return;
        };
        let recheck = Recheck {
            spec: entry.spec.clone(),
            beta: cutoff,
            claimed,
            claimant: state.claims.get(&id).copied(),
            reason,
            holder: None,
        };
        state.rechecks.insert(id, recheck);
    }

    /// Picks the claims to re-run before a finished search is declared: of the claims that
    /// settled a first guess its admissible bound could not, the runner-up's (it decides
    /// the result) and those in the sample. True when there is nothing left to re-run.
    fn start_audit(&self, state: &mut State, policy: AuditPolicy) -> bool {
        if !state.auditing {
            state.auditing = true;
            // Early re-runs not handed out yet are picked again below with the final cutoffs;
            // those being solved are waited for.
            state.rechecks.retain(|_, r| r.holder.is_some());
            let run = self.store.audit_seed();
            let mut needed = Vec::new();
            state.audit.covered_by_bound = 0;
            state.audit.unchecked = 0;
            state.audit.covered_by_bound = state.planner.pruned_unopened() as u64;
            for claim in state.planner.first_claims() {
                match state.known.get(&claim.id) {
                    Some(outcome) if claim.lower < claim.cutoff => needed.push((claim, *outcome)),
                    _ => state.audit.covered_by_bound += 1,
                }
            }
            // Part jobs (`--split-first`): every bound a settled first guess rests on.
            for claim in state.planner.part_claims(&state.known) {
                if let Some(outcome) = state.known.get(&claim.id) {
                    needed.push((claim, *outcome));
                }
            }
            // The ranking's order (first claims come in search order): the first claim of a
            // guess other than the best is the runner-up's. Its claims, and those the best's
            // parts rest on, decide the result. Ties with the runner-up are not all decisive:
            // honest claims mostly sit exactly at their cutoff, so "tied" would be nearly
            // every claim.
            let best = state.planner.incumbent().map(|(_, at)| at);
            let rank = |c: &plan::FirstClaim| state.planner.first_rank(c.first);
            needed.sort_by_key(|(claim, _)| rank(claim));
            let runner_up = needed
                .iter()
                .map(|(claim, _)| claim.first)
                .find(|&i| Some(i) != best);
            for (claim, outcome) in needed {
                let decisive = Some(claim.first) == runner_up || Some(claim.first) == best;
                if state
                    .confirmed
                    .get(&claim.id)
                    .is_some_and(|&b| b >= claim.cutoff)
                {
                    // Confirmed early, in the sample or ahead: that re-run is the decisive one.
                    if decisive {
                        if state.ahead.remove(&claim.id) {
                            state.audit.rerun_ahead -= 1;
                            state.audit.rerun_decisive += 1;
                        } else if state.audit.rerun_policy > 0 {
                            state.audit.rerun_policy -= 1;
                            state.audit.rerun_decisive += 1;
                        }
                    }
                    continue;
                }
                if let Some(running) = state.rechecks.get_mut(&claim.id) {
                    if decisive {
                        running.reason = Reason::Decisive;
                    }
                    continue;
                }
                let reason = if decisive {
                    Reason::Decisive
                } else if policy.sampled(run, claim.id) {
                    Reason::Policy
                } else {
                    state.audit.unchecked += 1;
                    continue;
                };
                state.rechecks.insert(
                    claim.id,
                    Recheck {
                        spec: claim.spec,
                        beta: claim.cutoff,
                        claimed: outcome,
                        claimant: state.claims.get(&claim.id).copied(),
                        reason,
                        holder: None,
                    },
                );
            }
            if !state.rechecks.is_empty() {
                tracing::info!(
                    rechecks = state.rechecks.len(),
                    "search finished; re-running claims before declaring the result"
                );
            }
            if state.rechecks.values().any(|r| r.holder.is_none()) {
                self.nudge();
            }
        }
        state.rechecks.is_empty()
    }

    /// A claim no live worker but its claimant could re-run: the coordinator takes it.
    fn recheck_for_coordinator(&self, state: &mut State) -> Option<(JobId, Arc<JobSpec>, u32)> {
        let now = Instant::now();
        let live = self.live_since();
        let others = |claimant: Option<u64>| {
            state.workers.iter().any(|(id, w)| {
                w.seen >= live && Some(*id) != claimant && !state.quarantined.contains(id)
            })
        };
        let (id, spec, beta) = state
            .rechecks
            .iter()
            .filter(|(_, r)| r.holder.is_none_or(|(_, until)| until <= now))
            .find(|(_, r)| !others(r.claimant))
            .map(|(id, r)| (*id, r.spec.clone(), r.beta))?;
        if let Some(r) = state.rechecks.get_mut(&id) {
            r.holder = Some((COORDINATOR, now + Duration::from_secs(86_400)));
        }
        Some((id, spec, beta))
    }

    /// Re-runs one claim on the coordinator itself (outside the state lock).
    fn recheck_here(&self, id: JobId, spec: &JobSpec, beta: u32) {
        let solver = self
            .audit_solver
            .get_or_init(|| Solver::new(self.game, self.table, self.config.clone(), AUDIT_MEMO));
        let answer = hakase_worker::solve_job(solver, spec, beta);
        if let Err(err) = self.judge(COORDINATOR, id, answer) {
            tracing::error!(%err, "recording the coordinator's re-run");
        }
    }

    /// Wants this many jobs asked for: enough to keep every live worker busy, each holding
    /// up to [`hakase_worker::hold::MAX_PER_SLOT`] jobs per slot when jobs are short.
    fn want(&self, state: &State) -> usize {
        let live = self.live_since();
        let slots: usize = state
            .workers
            .values()
            .filter(|w| w.seen >= live)
            .map(|w| w.slots)
            .sum();
        (2 * MAX_PER_SLOT * slots).max(self.params.min_outstanding)
    }

    /// True when the queue holds less than half of what is wanted: planning then cannot
    /// wait for [`REPLAN_EVERY`].
    fn short_of_jobs(&self, state: &State) -> bool {
        state.queue.len() * 2 < self.want(state)
    }

    /// One planning pass: settles what the results allow and queues the jobs needed now.
    fn replan(&self, state: &mut State) {
        state.dirty = false;
        if state.solution.is_some() || state.failure.is_some() {
            return;
        }
        let want = self.want(state);
        let plan = {
            let State { planner, known, .. } = &mut *state;
            planner.plan(known, want)
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
                spec_stored: false,
            });
            entry.first = request.first;
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
        if state.settled_at_start.is_none() {
            state.settled_at_start = Some(state.planner.progress().settled);
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
            .map(|t| t.evaluate(self.game, self.table, &self.game.all_answers()));
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

    /// The planning loop: replans whenever results arrive or leases run out, until the run
    /// is over or `stop` is set. Run it on its own thread. Between passes it lets go of the
    /// lock for a moment, so that leases and results are never starved by planning; results
    /// arriving meanwhile are taken by the next pass together. A re-run no other worker can
    /// take is solved here too, on a thread of its own (one at a time), so that planning goes
    /// on meanwhile.
    pub fn drive(&self, stop: &std::sync::atomic::AtomicBool) {
        use std::sync::atomic::{AtomicBool, Ordering};
        let tick = (self.params.lease / 4).clamp(Duration::from_millis(20), Duration::from_secs(1));
        let mut last_ranking = Instant::now();
        let mut last_expiry = Instant::now();
        let mut last_plan = Instant::now();
        let rechecking = AtomicBool::new(false);
        std::thread::scope(|scope| loop {
            let (ranking, here) = {
                let mut state = self.lock();
                if stop.load(Ordering::Relaxed)
                    || state.solution.is_some()
                    || state.failure.is_some()
                {
                    break;
                }
                // Leases are checked once a tick: every job is looked at, and a pass per
                // result was 6 % of the coordinator's time on Wordle's 13,600 jobs.
                if last_expiry.elapsed() >= tick {
                    last_expiry = Instant::now();
                    self.expire(&mut state);
                }
                let here = if rechecking.load(Ordering::Relaxed) {
                    None
                } else {
                    self.recheck_for_coordinator(&mut state)
                };
                // A pass looks at every open first guess: one per report was a quarter of
                // the coordinator's time on Wordle. While the queue holds half of what is
                // wanted, reports wait for the next pass together.
                let plan_due = state.dirty
                    && (self.short_of_jobs(&state) || last_plan.elapsed() >= REPLAN_EVERY);
                if !plan_due && here.is_none() {
                    let wait = if state.dirty {
                        REPLAN_EVERY.saturating_sub(last_plan.elapsed())
                    } else {
                        tick
                    };
                    drop(
                        self.wake
                            .wait_timeout(state, wait)
                            .unwrap_or_else(|p| p.into_inner()),
                    );
                    continue;
                }
                if plan_due {
                    last_plan = Instant::now();
                    self.replan(&mut state);
                }
                let ranking = (last_ranking.elapsed() > Duration::from_secs(5))
                    .then(|| state.planner.ranking());
                (ranking, here)
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
            if let Some(ranking) = ranking {
                last_ranking = Instant::now();
                let _ = self.store.put_ranking(&ranking);
                let _ = self.store.touch();
            }
            std::thread::sleep(Duration::from_millis(1));
        });
    }

    /// Wakes [`Engine::drive`] and [`Engine::wait`] (for shutdown).
    pub fn poke(&self) {
        self.wake.notify_all();
        self.ended.notify_all();
    }

    /// Waits up to `timeout` for the run to end; returns its solution once there is one.
    pub fn wait(&self, timeout: Duration) -> Result<Option<Arc<Solution>>, ClusterError> {
        let state = self.lock();
        let state = if state.solution.is_none() && state.failure.is_none() {
            self.ended
                .wait_timeout(state, timeout)
                .unwrap_or_else(|p| p.into_inner())
                .0
        } else {
            state
        };
        if let Some(why) = &state.failure {
            return Err(ClusterError::Assembly(why.clone()));
        }
        Ok(state.solution.clone())
    }

    /// The solution, once the run is over.
    pub fn solution(&self) -> Option<Arc<Solution>> {
        self.lock().solution.clone()
    }

    /// A picture of the run.
    pub fn snapshot(&self) -> Snapshot {
        let state = self.lock();
        let progress: PlanProgress = state.planner.progress();
        let (queued, leased) = state.jobs.values().fold((0, 0), |(q, l), e| match e.state {
            JobState::Queued { .. } => (q + 1, l),
            JobState::Leased { .. } => (q, l + 1),
            JobState::Idle => (q, l),
        });
        let text = |g| self.game.guess_text(g).to_string();
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
            workers: state.workers.values().filter(|w| w.seen >= live).count() as u64,
            elapsed_secs: self.started.elapsed().as_secs_f64(),
            ranking,
            eta_secs: eta(
                progress.total,
                progress.settled,
                state.settled_at_start,
                self.started.elapsed().as_secs_f64(),
            ),
            audit: state.audit.clone(),
        }
    }

    /// Makes everything durable (for shutdown).
    pub fn flush(&self) -> Result<(), ClusterError> {
        if let Some(log) = &self.job_log {
            log.flush();
        }
        let ranking = self.lock().planner.ranking();
        if self.solution().is_none() {
            self.store.put_ranking(&ranking)?;
        }
        self.store.touch()?;
        self.store.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hakase_core::presets::load_preset;

    fn open(db: &std::path::Path) -> Engine {
        open_with(db, None)
    }

    /// An engine over pokemon-gen:1, planned once, whose leases do not run out in a test.
    fn open_with(db: &std::path::Path, audit: Option<AuditPolicy>) -> Engine {
        let params = EngineParams {
            lease: Duration::from_secs(600),
            audit,
            ..EngineParams::default()
        };
        let game = load_preset("pokemon-gen:1").expect("preset");
        let engine = Engine::new(game, SolverConfig::default(), db, params).expect("engine");
        engine.replan(&mut engine.lock());
        engine
    }

    /// Every claim in the audit's sample, so that a test does not hang on the run's secret.
    fn every_claim() -> Option<AuditPolicy> {
        Some(AuditPolicy::with_fraction(1.0))
    }

    #[test]
    fn a_restarted_engine_never_hands_out_a_job_a_worker_holds() {
        let db = std::env::temp_dir().join(format!("hakase-lease-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&db);
        let held: Vec<JobId> = {
            let engine = open(&db);
            let worker = engine.register(1, None).expect("register");
            let jobs = engine.lease(worker, 2).expect("lease").expect("running");
            assert_eq!(jobs.len(), 2);
            // Dropped without `flush`: only what the lease itself stored survives.
            jobs.iter().map(|j| j.id).collect()
        };
        let engine = open(&db);
        let other = engine.register(1, None).expect("register");
        // The held jobs come first in search order: without their stored leases they would
        // be the ones handed out here.
        let jobs = engine.lease(other, 2).expect("lease").expect("running");
        assert_eq!(jobs.len(), 2);
        for job in &jobs {
            assert!(!held.contains(&job.id), "job {} handed out twice", job.id);
        }
        drop(engine);
        let _ = std::fs::remove_dir_all(&db);
    }

    #[test]
    fn workers_watching_the_incumbent_are_told_each_better_first_guess_as_it_is_taken() {
        let db = std::env::temp_dir().join(format!("hakase-told-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&db);
        let engine = open(&db);
        let mut told = engine.watch_incumbent();
        assert_eq!(*told.borrow_and_update(), Told::Nothing);
        let worker = engine.register(1, None).expect("register");
        let jobs = engine.lease(worker, 2).expect("lease").expect("running");
        let solver = Solver::new(engine.game, engine.table, engine.config.clone(), 1 << 16);
        let mut best: Option<(u32, u32)> = None;
        for job in &jobs {
            let i = job.first.expect("the first jobs are whole first guesses");
            let answer = hakase_worker::solve_job(&solver, &job.spec, job.beta);
            let Outcome::Exact { value, .. } = answer.outcome else {
                panic!("a first lease has no cutoff: {:?}", answer.outcome);
            };
            assert!(engine
                .complete(worker, job.id, answer, false)
                .expect("taken"));
            // Told before any planning pass, and only if better (value, then search order).
            best = Some(best.map_or((value, i), |b| b.min((value, i))));
            let (v, at) = best.expect("set above");
            assert_eq!(*told.borrow_and_update(), Told::Best(v, at));
        }
        // A worse total is not told; a better one is.
        let (v, at) = best.expect("two jobs");
        engine.tell(v + 1, 0);
        assert!(!told.has_changed().expect("open"));
        engine.tell(v - 1, at + 1);
        assert_eq!(*told.borrow_and_update(), Told::Best(v - 1, at + 1));
        // Once closed, nothing reopens the streams.
        engine.close_watches();
        engine.tell(1, 0);
        assert_eq!(*told.borrow_and_update(), Told::Closed);
        drop(engine);
        let _ = std::fs::remove_dir_all(&db);
    }

    #[test]
    fn a_displaced_incumbents_sampled_claim_is_re_run_while_the_search_goes_on() {
        let db = std::env::temp_dir().join(format!("hakase-displaced-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&db);
        let engine = open_with(&db, every_claim());
        let worker = engine.register(1, None).expect("register");
        let jobs = engine.lease(worker, 2).expect("lease").expect("running");
        assert_eq!(jobs.len(), 2);
        let solver = Solver::new(engine.game, engine.table, engine.config.clone(), 1 << 16);
        for job in &jobs {
            let answer = hakase_worker::solve_job(&solver, &job.spec, job.beta);
            assert!(answer.outcome.is_exact(), "a first lease has no cutoff");
            assert!(engine
                .complete(worker, job.id, answer, false)
                .expect("taken"));
        }
        // Both totals were the best known when they arrived (no planning pass in between):
        // neither is re-run yet.
        assert!(engine.lock().rechecks.is_empty());
        engine.replan(&mut engine.lock());
        let state = engine.lock();
        let (_, best) = state.planner.incumbent().expect("two exact totals");
        let (kept, displaced): (Vec<&Leased>, Vec<&Leased>) =
            jobs.iter().partition(|job| job.first == Some(best as u32));
        let displaced = displaced[0];
        let i = displaced.first.expect("a whole first guess") as usize;
        assert!(
            state.planner.lower(i) < state.planner.cutoff(i),
            "the admissible bound alone settles first guess {i}: pick another game"
        );
        assert!(!state.auditing, "the search is not over");
        let recheck = state
            .rechecks
            .get(&displaced.id)
            .expect("the displaced claim is re-run now, not after the search");
        assert_eq!(recheck.reason, Reason::Policy);
        assert_eq!(recheck.beta, state.planner.cutoff(i));
        assert!(
            !state.rechecks.contains_key(&kept[0].id),
            "the incumbent's claim waits for the final audit"
        );
        drop(state);
        drop(engine);
        let _ = std::fs::remove_dir_all(&db);
    }

    #[test]
    fn the_final_audit_tells_the_best_total_again_for_idle_workers_to_take_its_re_runs() {
        let db = std::env::temp_dir().join(format!("hakase-nudge-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&db);
        let engine = open_with(&db, every_claim());
        let mut told = engine.watch_incumbent();
        let solver = Solver::new(engine.game, engine.table, engine.config.clone(), 1 << 16);
        // One worker: it may not re-run its own claims, so the search ends with the audit's
        // re-runs waiting for another worker.
        let worker = engine.register(1, None).expect("register");
        let mut passes = 0;
        loop {
            let before = *told.borrow_and_update();
            engine.replan(&mut engine.lock());
            if engine.lock().auditing {
                assert!(
                    told.has_changed().expect("open"),
                    "idle workers were not told"
                );
                assert_eq!(
                    *told.borrow_and_update(),
                    before,
                    "the same total, told again"
                );
                assert!(matches!(before, Told::Best(..)));
                break;
            }
            assert!(!told.has_changed().expect("open") || before == Told::Nothing);
            let jobs = engine.lease(worker, 64).expect("lease").expect("running");
            for job in jobs.iter().filter(|job| !job.recheck) {
                let answer = hakase_worker::solve_job(&solver, &job.spec, job.beta);
                engine
                    .complete(worker, job.id, answer, false)
                    .expect("taken");
            }
            passes += 1;
            assert!(passes < 10_000, "the search never finished");
        }
        let state = engine.lock();
        assert!(state.rechecks.values().any(|r| r.holder.is_none()));
        drop(state);
        drop(engine);
        let _ = std::fs::remove_dir_all(&db);
    }

    #[test]
    fn a_lease_leaves_a_letter_set_to_the_live_worker_that_took_it_last() {
        let (a, b) = ([1, 0, 0, 0], [2, 0, 0, 0]);
        // Jobs 0 and 1 have letter set a, job 2 has b, the others none (part jobs).
        let letters = |job: JobId| match job.0 {
            0 | 1 => Some(a),
            2 => Some(b),
            _ => None,
        };
        let queue_of = |ids: &[u128]| -> BTreeSet<QueueKey> {
            (0u32..)
                .zip(ids)
                .map(|(at, &id)| ((at, 0, 0), JobId(id)))
                .collect()
        };
        let affinity = HashMap::from([(a, 7), (b, 8)]);
        let both = HashSet::from([7, 8]);
        let picked = |worker, live: &HashSet<u64>, queue: &BTreeSet<QueueKey>| {
            pick(queue, letters, &affinity, live, worker).map(|key| key.1 .0)
        };
        let queue = queue_of(&[0, 1, 2, 3]);
        assert_eq!(picked(7, &both, &queue), Some(0), "its own set, first");
        assert_eq!(picked(8, &both, &queue), Some(2), "a's jobs are left to 7");
        assert_eq!(
            picked(9, &both, &queue),
            Some(3),
            "a new worker takes an unowned job"
        );
        let only_eight = HashSet::from([8]);
        assert_eq!(
            picked(8, &only_eight, &queue),
            Some(0),
            "a dead owner keeps nothing"
        );
        // Past the window the search order wins: 7's jobs fill it, job 3 is behind it.
        let ids: Vec<u128> = (100..100 + AFFINITY_WINDOW as u128).chain([3]).collect();
        let letters_far = |job: JobId| (job.0 >= 100).then_some(a);
        let far = queue_of(&ids);
        let front = pick(&far, letters_far, &affinity, &both, 8).map(|key| key.1 .0);
        assert_eq!(front, Some(100), "nothing free in the window: the first");
        let near = pick(&far, letters_far, &affinity, &both, 7).map(|key| key.1 .0);
        assert_eq!(near, Some(100));
        assert_eq!(picked(8, &both, &BTreeSet::new()), None);
    }
}
