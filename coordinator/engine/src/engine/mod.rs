//! The coordinator's engine: the plan, the job table with leases, and the results, behind
//! one lock. Transport-free and synchronous: the gRPC server drives it, and tests drive it
//! directly.
//!
//! The engine's parts: `lease` hands jobs out, `report` takes results, `planning`
//! runs the planning loop, `rerun` schedules the audit's re-runs and `quarantine` acts on
//! their verdicts, `incumbent` tells workers the best total, `status` pictures the run.

mod incumbent;
mod lease;
mod planning;
mod quarantine;
mod report;
mod rerun;
mod status;
#[cfg(test)]
mod tests;

pub use incumbent::Told;
pub use status::{Counters, CutView, Detail, Snapshot, WorkerView, CUTS_SHOWN};

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use hakase_core::solver::{Outcome, SharedSolver, Solution, SolverConfig};
use hakase_core::{FeedbackTable, Game, GameTable, GuessId};
use hakase_proto::job::{JobId, JobSpec};
use tokio::sync::watch;

use super::audit::{AuditPolicy, Recheck, COORDINATOR};
use super::error::ClusterError;
use super::joblog::JobLog;
use super::plan::{Known, PlanParams, Planner};
use hakase_runs::{unix_millis, Store, StoredState, WorkerRecord};
use hakase_runs::{AuditSummary, RunScope};

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
    /// A job leased this long while a worker has nothing to do is cut finer (see
    /// [`Planner::recut`]); `None` never cuts.
    pub recut_after: Option<Duration>,
}

impl Default for EngineParams {
    fn default() -> Self {
        EngineParams {
            plan: PlanParams::default(),
            lease: Duration::from_secs(30),
            min_outstanding: 4,
            audit: None,
            recut_after: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JobState {
    Idle,
    Queued {
        beta: u32,
    },
    /// `holder` is the worker the lease went to; `None` for a lease restored from disk
    /// (any registered worker may report it: its holder is not recorded there).
    Leased {
        beta: u32,
        expiry: Instant,
        holder: Option<u64>,
    },
}

struct Entry {
    spec: Arc<JobSpec>,
    state: JobState,
    priority: (u32, u32, u32),
    completions: u32,
    /// The first-guess index of a whole first-guess job.
    first: Option<u32>,
    /// For a part or slice job, the admissible bound its claim rests on (see
    /// [`super::plan::Request::claim_floor`]).
    claim_floor: Option<u32>,
    /// True once the spec is in the store (written with the first lease: jobs never leased
    /// are made again by the planner after a restart, and cost no disk).
    spec_stored: bool,
    /// The workers that leased the job in this session and have not reported it: only they
    /// may report it, once each (a result after the lease ran out is still taken), so a
    /// caller cannot report jobs it never held, and completions per job are bounded by
    /// leases.
    leased_to: Vec<u64>,
    /// When this session last leased the job (`None` for a lease restored from disk).
    leased_at: Option<Instant>,
    /// True once a result came back below the cutoff this run asked for: the worker had
    /// tightened it by an incumbent the planner does not hold (one a quarantine withdrew, or
    /// a first guess already settled otherwise). Its later leases carry no first-guess index,
    /// so no worker tightens it again: without this, worker and coordinator asked and
    /// answered the same job for ever.
    untightened: bool,
}

impl Entry {
    /// The place in line of the first guess the job serves (search order, or in a ranking
    /// the costliest first), part jobs included, for the job log; `None` for a job restored
    /// from disk that no planning pass has placed yet.
    fn search_index(&self) -> Option<u32> {
        Some(self.priority.0).filter(|&i| i != u32::MAX)
    }
}

struct Worker {
    seen: Instant,
    /// When it registered (or this session restored it).
    registered: Instant,
    /// True once it leased or reported in this session: only such workers count as live, so
    /// registrations that never ask for work (phantoms) take no share from the others.
    active: bool,
    slots: usize,
    /// True once a lease told this worker that the run is over.
    told: bool,
    /// The name of the per-worker token it registered with.
    token: Option<String>,
    /// SHA-256 of the secret its registration was given: every call must present the secret.
    secret: [u8; 32],
    /// The second its heartbeats are counted in, and how many came (see
    /// [`HEARTBEATS_PER_SECOND`]).
    heartbeats: (Instant, u32),
    /// Results taken from it in this session (for the live page's rates).
    done: u64,
    /// Jobs it holds that the plan withdrew, not told yet (see [`Engine::take_withdrawn`]).
    withdrawn: Vec<JobId>,
    /// Jobs it held beyond its share, taken back for a worker that arrived (see
    /// [`Engine::take_back`]), not told yet.
    taken_back: Vec<JobId>,
}

impl Worker {
    /// True when the worker counts as live: seen since `live` (three lease periods ago) and
    /// not told that the run is over, after which it leaves.
    fn present(&self, live: Instant) -> bool {
        self.seen >= live && !self.told
    }
}

/// What a registration gives a worker: its id, and the secret that proves it is that worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    /// The worker id.
    pub id: u64,
    /// The secret every later call must carry (sent once, stored only as a hash).
    pub secret: String,
}

/// Job slots a worker may register at most (its threads).
pub const MAX_SLOTS: usize = 1024;

/// Registrations taken per second at most, whatever the tokens: a flood of made-up workers
/// would otherwise grow the worker table and the run database without bound.
pub const REGISTRATIONS_PER_SECOND: usize = 64;

/// Workers registered under one token at most (the shared token counts as one): a token
/// that registers thousands of made-up workers is refused past it. Registrations that never
/// lease are forgotten after a lease period, so they do not hold places for long.
pub const WORKERS_PER_TOKEN: usize = 256;

/// The name workers without a token of their own register under.
const SHARED_TOKEN: &str = "shared";

/// Heartbeats taken from one worker per second at most: an honest worker sends one every
/// third of a lease, so more is a flood, refused before it costs the state lock's walk.
pub const HEARTBEATS_PER_SECOND: u32 = 8;

fn secret_hash(secret: &str) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    Sha256::digest(secret.as_bytes()).into()
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
    /// The expected cost of the first guesses settled by results found at start (they cost
    /// this session nothing, so the ETA's rate must not count them).
    work_at_start: Option<f64>,
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
    /// The worker last given a job of each affinity key, a letter set or a sliced part (see
    /// [`Engine::next_queued`]).
    affinity: HashMap<lease::Affinity, u64>,
    /// The account of checking.
    audit: AuditSummary,
    /// When the registrations of the last second came (see [`REGISTRATIONS_PER_SECOND`]).
    registrations: std::collections::VecDeque<Instant>,
    /// Seconds into this session at which the result was declared (0 for a run found
    /// finished): the run's clock stops there for every view of it.
    finished_secs: Option<f64>,
}

impl State {
    /// The state `store` holds: results, claims, jobs and workers as a restart finds them,
    /// with whatever a crash left of a quarantine undone.
    fn restore(
        store: &Store,
        planner: Planner,
        params: &EngineParams,
    ) -> Result<State, ClusterError> {
        let quarantine = store.load_quarantine()?;
        let quarantined: HashSet<u64> = quarantine.iter().map(|q| q.worker).collect();
        let quarantined_tokens: HashSet<String> =
            quarantine.iter().filter_map(|q| q.token.clone()).collect();
        let (known, claims) = restore_results(store, &quarantined)?;
        let now = Instant::now();
        let counters = Counters {
            results_loaded: known.len() as u64,
            ..Counters::default()
        };
        let solution = store.solution()?.map(Arc::new);
        Ok(State {
            finished_secs: solution.as_ref().map(|_| 0.0),
            planner,
            known,
            jobs: restore_jobs(store, now)?,
            queue: BTreeSet::new(),
            dirty: true,
            solution,
            failure: None,
            counters,
            workers: restore_workers(store, now)?,
            next_worker: store.next_worker()?,
            work_at_start: None,
            claims,
            // A finished run keeps the account of how it was checked.
            audit: store.audit()?.unwrap_or_else(|| AuditSummary {
                enabled: params.audit.is_some(),
                fraction: params.audit.map_or(0.0, |p| p.fraction()),
                trusted: params.audit.is_some_and(|p| !p.decisive),
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
            registrations: std::collections::VecDeque::new(),
        })
    }
}

/// The stored results and who claimed each, without those of `quarantined` workers.
fn restore_results(
    store: &Store,
    quarantined: &HashSet<u64>,
) -> Result<(Known, HashMap<JobId, u64>), ClusterError> {
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
    Ok((known, claims))
}

/// The stored jobs, with the leases still running at `now`.
fn restore_jobs(store: &Store, now: Instant) -> Result<HashMap<JobId, Entry>, ClusterError> {
    let now_ms = unix_millis();
    let mut jobs = HashMap::new();
    for (id, record) in store.load_jobs()? {
        // A lease still running survives a restart: the worker holding the job will
        // report it, and handing it to another worker meanwhile would compute it twice.
        let state = match record.state {
            StoredState::Leased { beta, expiry } if expiry > now_ms => JobState::Leased {
                beta,
                expiry: now + Duration::from_millis(expiry - now_ms),
                holder: None,
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
                claim_floor: None,
                spec_stored: true,
                leased_to: Vec::new(),
                untightened: false,
                leased_at: None,
            },
        );
    }
    Ok(jobs)
}

/// Workers registered before a restart: they keep their ids and secrets.
fn restore_workers(store: &Store, now: Instant) -> Result<HashMap<u64, Worker>, ClusterError> {
    let mut workers = HashMap::new();
    for record in store.load_workers()? {
        workers.insert(
            record.id,
            Worker {
                seen: now,
                registered: now,
                active: false,
                slots: record.slots.clamp(1, MAX_SLOTS),
                told: false,
                token: record.token,
                secret: record.secret_sha256,
                heartbeats: (now, 0),
                withdrawn: Vec::new(),
                taken_back: Vec::new(),
                done: 0,
            },
        );
    }
    Ok(workers)
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

/// The engine of one run.
pub struct Engine {
    /// The game and its feedback table, shared with the planner's and the audit's solvers.
    tables: Arc<GameTable>,
    /// The first guesses of a listed ranking, which a new plan is made over again.
    listed: Option<Arc<[GuessId]>>,
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
    audit_solver: OnceLock<SharedSolver>,
    /// The best total told to workers that watch it (see [`Engine::watch_incumbent`]).
    told: watch::Sender<Told>,
}

/// A queued job's place: (priority, id), in search order.
type QueueKey = ((u32, u32, u32), JobId);

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
    /// Opens the run in `store` (resuming whatever it holds) for `game` under `config`: the
    /// search for the best first guess, or with `params.plan.rank_all` the whole ranking.
    pub fn new(
        game: Game,
        config: SolverConfig,
        store_path: &std::path::Path,
        params: EngineParams,
    ) -> Result<Engine, ClusterError> {
        let scope = if params.plan.rank_all {
            RunScope::RankAll
        } else {
            RunScope::Best
        };
        Engine::open(game, config, store_path, params, scope)
    }

    /// [`Engine::new`] for the first guesses `scope` names: a listed ranking
    /// ([`RunScope::Listed`], ascending ids, each allowed as a first guess) settles exactly
    /// those, each to its exact value.
    pub fn open(
        game: Game,
        config: SolverConfig,
        store_path: &std::path::Path,
        params: EngineParams,
        scope: RunScope,
    ) -> Result<Engine, ClusterError> {
        let store = Store::open_scoped(store_path, &game, &config, &scope)?;
        let tables = Arc::new(GameTable::build(game));
        let listed: Option<Arc<[GuessId]>> = match &scope {
            RunScope::Listed(list) => Some(list.as_slice().into()),
            RunScope::Best | RunScope::RankAll => None,
        };
        let mut planner = Planner::new(
            Arc::clone(&tables),
            config.clone(),
            params.plan,
            listed.clone(),
        );
        planner.restore_recut(store.load_recut()?);
        let state = State::restore(&store, planner, &params)?;
        // A finished run has nothing more to tell.
        let told = watch::Sender::new(if state.solution.is_some() {
            Told::Closed
        } else {
            Told::Nothing
        });
        tracing::info!(
            db = %store_path.display(),
            results = state.known.len(),
            jobs = state.jobs.len(),
            finished = state.solution.is_some(),
            "opened the run"
        );
        Ok(Engine {
            tables,
            config,
            store,
            state: Mutex::new(state),
            wake: Condvar::new(),
            ended: Condvar::new(),
            params,
            started: Instant::now(),
            job_log: None,
            audit_solver: OnceLock::new(),
            told,
            listed,
        })
    }

    /// The first guesses of a listed ranking (`None`: every first guess is considered).
    pub fn listed(&self) -> Option<Arc<[GuessId]>> {
        self.listed.clone()
    }

    /// The game being solved.
    pub fn game(&self) -> &Game {
        &self.tables.game
    }

    /// Its feedback table.
    pub fn table(&self) -> &FeedbackTable {
        &self.tables.table
    }

    /// The game and table together, for holders that outlive a borrow of the engine.
    pub fn tables(&self) -> &Arc<GameTable> {
        &self.tables
    }

    /// Logs every finished job to `log` from now on (see [`super::joblog`]).
    pub fn with_job_log(mut self, log: JobLog) -> Engine {
        self.job_log = Some(log);
        self
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Refuses new work once the run database could not be written (see [`Store::fault`]).
    pub fn check_storage(&self) -> Result<(), ClusterError> {
        match self.store.fault() {
            Some(why) => Err(ClusterError::StorageFault(why)),
            None => Ok(()),
        }
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
    /// `token` (if any); returns its id (for drivers in this process, which need no secret).
    pub fn register(&self, slots: usize, token: Option<&str>) -> Result<u64, ClusterError> {
        Ok(self.register_worker(slots, token)?.id)
    }

    /// Registers a worker as [`register`](Self::register) does and gives it a secret that
    /// its later calls must present (see [`Engine::authenticate`]). The record is durable
    /// before the reply, so a restarted coordinator still knows the worker. A quarantined
    /// token is refused, and so is a flood of registrations.
    pub fn register_worker(
        &self,
        slots: usize,
        token: Option<&str>,
    ) -> Result<Registration, ClusterError> {
        self.check_storage()?;
        let mut state = self.lock();
        let id = state.next_worker;
        if token.is_some_and(|t| state.quarantined_tokens.contains(t)) {
            return Err(ClusterError::Quarantined(id));
        }
        let now = Instant::now();
        while state
            .registrations
            .front()
            .is_some_and(|at| now.duration_since(*at) >= Duration::from_secs(1))
        {
            state.registrations.pop_front();
        }
        if state.registrations.len() >= REGISTRATIONS_PER_SECOND {
            return Err(ClusterError::Busy(format!(
                "more than {REGISTRATIONS_PER_SECOND} registrations in the last second"
            )));
        }
        self.forget_phantoms(&mut state);
        let name = token.unwrap_or(SHARED_TOKEN);
        let under_token = state
            .workers
            .values()
            .filter(|w| w.token.as_deref().unwrap_or(SHARED_TOKEN) == name)
            .count();
        if under_token >= WORKERS_PER_TOKEN {
            return Err(ClusterError::Busy(format!(
                "{under_token} workers are registered under token {name:?}, the most one token may \
                 have (give each machine its own token in --tokens-file)"
            )));
        }
        state.registrations.push_back(now);
        let secret = format!("{:032x}", rand::random::<u128>());
        let slots = slots.clamp(1, MAX_SLOTS);
        let worker = Worker {
            seen: now,
            registered: now,
            active: false,
            slots,
            told: false,
            token: token.map(str::to_string),
            secret: secret_hash(&secret),
            heartbeats: (now, 0),
            withdrawn: Vec::new(),
            taken_back: Vec::new(),
            done: 0,
        };
        state.next_worker += 1;
        self.store.put_next_worker(state.next_worker)?;
        self.store.put_worker(&WorkerRecord {
            id,
            slots,
            token: worker.token.clone(),
            secret_sha256: worker.secret,
        })?;
        self.store.sync()?;
        state.workers.insert(id, worker);
        state.dirty = true;
        self.wake.notify_all();
        Ok(Registration { id, secret })
    }

    /// Checks that a call under `worker` comes from that worker: a registered id (never the
    /// coordinator's own), its secret, the per-worker token it registered with (if any), and
    /// not quarantined. Every Lease, Complete, Heartbeat and watch from the network passes
    /// here first.
    pub fn authenticate(
        &self,
        worker: u64,
        secret: &str,
        token: Option<&str>,
    ) -> Result<(), ClusterError> {
        let state = self.lock();
        if state.quarantined.contains(&worker)
            || token.is_some_and(|t| state.quarantined_tokens.contains(t))
        {
            return Err(ClusterError::Quarantined(worker));
        }
        let Some(record) = state.workers.get(&worker).filter(|_| worker != COORDINATOR) else {
            return Err(ClusterError::UnknownWorker(worker));
        };
        if record.secret != secret_hash(secret) {
            return Err(ClusterError::UnknownWorker(worker));
        }
        let registered = record.token.as_deref().filter(|t| *t != "shared");
        let presented = token.filter(|t| *t != "shared");
        if registered.is_some() && registered != presented {
            return Err(ClusterError::UnknownWorker(worker));
        }
        Ok(())
    }

    /// Marks a registered worker as seen now; unknown ids never count as live.
    fn touch(state: &mut State, worker: u64) -> bool {
        match state.workers.get_mut(&worker) {
            Some(w) => {
                w.seen = Instant::now();
                true
            }
            None => false,
        }
    }

    /// Marks a registered worker as seen now and active: it asked for work or reported.
    fn activate(state: &mut State, worker: u64) -> bool {
        match state.workers.get_mut(&worker) {
            Some(w) => {
                w.seen = Instant::now();
                w.active = true;
                true
            }
            None => false,
        }
    }

    /// Forgets the workers that registered more than a lease period ago and never leased
    /// nor reported (their calls are refused from then on; an honest one registers again).
    fn forget_phantoms(&self, state: &mut State) {
        let lease = self.params.lease;
        state
            .workers
            .retain(|_, w| w.active || w.registered.elapsed() <= lease);
    }

    /// A worker seen since this moment (three lease periods ago) counts as live.
    fn live_since(&self) -> Instant {
        Instant::now() - self.params.lease * 3
    }

    /// Workers that leased or reported, seen within three lease periods, not quarantined.
    fn live_workers(&self, state: &State) -> HashSet<u64> {
        let live = self.live_since();
        state
            .workers
            .iter()
            .filter(|(id, w)| w.active && w.seen >= live && !state.quarantined.contains(id))
            .map(|(id, _)| *id)
            .collect()
    }

    /// The jobs withdrawn from `worker` since it was last told, for the reply to its report:
    /// a worker of short jobs would have solved them before its next heartbeat.
    pub fn take_withdrawn(&self, worker: u64) -> Vec<JobId> {
        let mut state = self.lock();
        let Some(record) = state.workers.get_mut(&worker) else {
            return Vec::new();
        };
        let withdrawn = std::mem::take(&mut record.withdrawn);
        let taken_back = std::mem::take(&mut record.taken_back);
        // A job leased again since is needed again, unless it was taken back for another.
        let mut cancelled = Self::no_longer_needed(&state, worker, &withdrawn);
        cancelled.extend(taken_back);
        cancelled
    }

    /// Of the jobs `worker` says it holds, those the run no longer needs: withdrawn by the
    /// plan or answered by another worker (neither queued nor leased), unless the worker
    /// holds it as the audit's re-run of that answer (a re-run keeps its job's id).
    fn no_longer_needed(state: &State, worker: u64, ids: &[JobId]) -> Vec<JobId> {
        ids.iter()
            .filter(|id| {
                let idle = state
                    .jobs
                    .get(id)
                    .is_some_and(|entry| entry.state == JobState::Idle);
                let rechecking = state
                    .rechecks
                    .get(id)
                    .is_some_and(|r| r.holder.is_some_and(|(w, _)| w == worker));
                idle && !rechecking
            })
            .copied()
            .collect()
    }

    /// True when every worker seen within three lease periods has been told that the run is
    /// over (so a finished coordinator need not linger for them).
    pub fn all_told(&self) -> bool {
        let live = self.live_since();
        self.lock()
            .workers
            .values()
            .all(|w| w.told || !w.active || w.seen < live)
    }

    /// Extends the leases of jobs still being solved, only those `worker` holds, and names
    /// the held jobs no longer needed; a worker heartbeating more than
    /// [`HEARTBEATS_PER_SECOND`] times a second is refused (`Busy`).
    pub fn heartbeat(&self, worker: u64, ids: &[JobId]) -> Result<Vec<JobId>, ClusterError> {
        let mut state = self.lock();
        let now = Instant::now();
        let Some(record) = state.workers.get_mut(&worker) else {
            return Ok(Vec::new());
        };
        let (since, count) = &mut record.heartbeats;
        if now.duration_since(*since) >= Duration::from_secs(1) {
            (*since, *count) = (now, 0);
        }
        *count += 1;
        if *count > HEARTBEATS_PER_SECOND {
            return Err(ClusterError::Busy(format!(
                "more than {HEARTBEATS_PER_SECOND} heartbeats a second from worker {worker}"
            )));
        }
        if !Self::touch(&mut state, worker) {
            return Ok(Vec::new());
        }
        let expiry = now + self.params.lease;
        for id in ids {
            if let Some(entry) = state.jobs.get_mut(id) {
                if let JobState::Leased { beta, holder, .. } = entry.state {
                    if holder.is_none_or(|h| h == worker) {
                        entry.state = JobState::Leased {
                            beta,
                            expiry,
                            holder,
                        };
                    }
                }
            }
        }
        for recheck in state.rechecks.values_mut() {
            if let Some((w, until)) = recheck.holder.as_mut() {
                if *w == worker && *until > now {
                    *until = expiry;
                }
            }
        }
        let mut cancelled = Self::no_longer_needed(&state, worker, ids);
        if let Some(record) = state.workers.get_mut(&worker) {
            // Jobs taken back for another worker's share are no longer this one's.
            cancelled.extend(ids.iter().filter(|id| record.taken_back.contains(id)));
            record.taken_back.retain(|id| ids.contains(id));
            // Every job it holds is answered for now: the next report need not repeat them.
            record.withdrawn.clear();
        }
        Ok(cancelled)
    }

    /// The spec of a job this run created.
    pub fn spec(&self, id: JobId) -> Option<Arc<JobSpec>> {
        self.lock().jobs.get(&id).map(|e| e.spec.clone())
    }

    /// Makes everything durable (for shutdown).
    pub fn flush(&self) -> Result<(), ClusterError> {
        if let Some(log) = &self.job_log {
            log.flush();
        }
        let (ranking, progress) = {
            let state = self.lock();
            (state.planner.ranking(), state.planner.progress())
        };
        if self.solution().is_none() {
            self.store.put_ranking(&ranking)?;
            self.store
                .put_ranking_file(&ranking, progress.total, progress.guesses_left, false)?;
        }
        self.store.touch()?;
        Ok(self.store.flush()?)
    }
}
