//! The run database (sled): manifest, leased jobs (their spec once, their state and lease
//! expiry apart), results, the ranking of first guesses and, at the end, the optimal tree.
//! Results are made durable before a worker's report is acknowledged, so a killed
//! coordinator loses no finished job.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use hakase_core::solver::hard::HardState;
use hakase_core::solver::Node;
use hakase_core::solver::{FirstGuessValue, Outcome, Solution, SolverConfig};
use hakase_core::tree::Tree;
use hakase_core::{AnswerId, Game};
use hakase_proto::job::{JobAnswer, JobId, JobKind, JobSpec};
use hakase_worker::group_commit::GroupCommit;
use serde::{Deserialize, Serialize};

use super::audit::AuditSummary;
use super::error::ClusterError;

/// What run a database holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Format version of the database.
    pub version: u32,
    /// The game's name.
    pub game: String,
    /// The game's fingerprint.
    pub fingerprint: String,
    /// The solver options.
    pub config: SolverConfig,
    /// Unix seconds when the run started.
    pub started: u64,
    /// Unix seconds of the last update.
    pub updated: u64,
    /// True once the optimal tree is stored.
    pub finished: bool,
    /// The secret the audit draws its sample from. Made at random when the run starts, kept
    /// in this database only and never sent: a worker that could tell which of its claims
    /// will be re-run could lie on all the others. Absent from runs started before it
    /// existed (given one when they resume).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_key: Option<String>,
}

impl Manifest {
    /// The run's public name (fingerprint and start), which workers are told: one that sees
    /// it change registers again.
    pub fn run_id(&self) -> String {
        format!("{}-{}", self.fingerprint, self.started)
    }

    /// What the audit sample is drawn from, so that a re-run of the audit (`hakase audit`)
    /// picks the same claims: the secret key, or the public run id for a run finished
    /// before keys existed (its run drew with an older hash, so `hakase audit` picks
    /// other claims of it, as many).
    pub fn audit_seed(&self) -> String {
        match &self.audit_key {
            Some(key) => format!("{}-{key}", self.fingerprint),
            None => self.run_id(),
        }
    }
}

/// A fresh audit key: 128 bits from the operating system's entropy, in hex.
pub fn new_audit_key() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// Where a job stands, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StoredState {
    /// Not wanted right now (written by format 1 only).
    Idle,
    /// Waiting for a worker, with the cutoff asked (written by format 1 only: a job never
    /// leased is made again by the planner).
    Queued {
        /// The cutoff asked.
        beta: u32,
    },
    /// Handed to a worker until `expiry` (Unix milliseconds).
    Leased {
        /// The cutoff the worker solves with.
        beta: u32,
        /// When the lease lapses, in Unix milliseconds.
        expiry: u64,
    },
    /// A result is stored.
    Done,
}

/// A job as loaded: its spec joined with its status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobRecord {
    /// The subproblem.
    pub spec: JobSpec,
    /// Its state.
    pub state: StoredState,
    /// Results received for it (more than one only after a duplicate or a deeper re-run).
    pub completions: u32,
}

/// A job's status as stored, apart from its spec. A lease or a result rewrites only these
/// few bytes: the spec of a first-guess job holds every answer (4.6 KB on Wordle), and
/// writing it with each of a job's states was the coordinator's largest cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobStatus {
    /// Its state.
    pub state: StoredState,
    /// Results received for it.
    pub completions: u32,
}

/// A job's spec as stored. Nearly every job of a run is a whole first guess, whose candidates
/// are every answer: those are left out (they were 4.6 KB of each Wordle job).
#[derive(Debug, Clone, Serialize, Deserialize)]
enum StoredSpec {
    /// A job on every answer.
    EveryAnswer {
        kind: JobKind,
        guesses_left: u32,
        hard: HardState,
    },
    /// Any other job, whole.
    Whole(JobSpec),
}

/// A result as stored: the answer with its tree pre-encoded.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredResult {
    beta: u32,
    outcome: Outcome,
    tree: Vec<u8>,
    nodes: u64,
    millis: u64,
}

/// A worker caught lying, as stored: a restart keeps refusing it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuarantineRecord {
    /// The worker id.
    pub worker: u64,
    /// The name of its per-worker token, refused too.
    pub token: Option<String>,
    /// What it was caught at.
    pub why: String,
}

/// A registered worker, as stored: a restarted coordinator still knows it (its leases,
/// claims and secret), so it need not register again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerRecord {
    /// The worker id.
    pub id: u64,
    /// Its job slots (threads).
    pub slots: usize,
    /// The name of the per-worker token it registered with.
    pub token: Option<String>,
    /// SHA-256 of its secret (the secret itself is never stored).
    pub secret_sha256: [u8; 32],
}

/// Where worker records live in the `meta` tree: this prefix and the id.
const WORKER_KEY: &[u8] = b"worker/";

/// Format 2 keeps job specs and job states in trees of their own; format 1 kept both in one
/// record (tree `jobs`), which [`Store::open`] converts.
const VERSION: u32 = 2;

/// Format 1's tree of whole job records.
const LEGACY_JOBS: &str = "jobs";

/// The open database of one run.
pub struct Store {
    path: PathBuf,
    db: sled::Db,
    meta: sled::Tree,
    specs: sled::Tree,
    statuses: sled::Tree,
    results: sled::Tree,
    settled: sled::Tree,
    claims: sled::Tree,
    quarantine: sled::Tree,
    manifest: Mutex<Manifest>,
    /// The manifest's audit seed, fixed once the run is open: read for every arriving claim.
    audit_seed: String,
    guesses: usize,
    /// The candidates of a job on every answer (left out of its stored spec).
    all_answers: Vec<AnswerId>,
    commit: GroupCommit,
}

fn bincode_config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// Unix seconds now.
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Unix milliseconds now.
pub fn unix_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn describe(game: &str, fingerprint: &str, config: &SolverConfig) -> String {
    let options = serde_json::to_string(config).unwrap_or_default();
    format!("game {game} (fingerprint {fingerprint}) with options {options}")
}

impl Store {
    /// Opens or creates the database at `path` for `game` under `config`. A database of
    /// another game or other options is refused, naming both.
    pub fn open(path: &Path, game: &Game, config: &SolverConfig) -> Result<Store, ClusterError> {
        let err = |source| ClusterError::Store {
            path: path.to_path_buf(),
            source,
        };
        let db = hakase_worker::sled_guard::open(path).map_err(|damage| match damage {
            hakase_worker::sled_guard::SledDamage::Error(source) if damage.is_locked() => {
                err(source)
            }
            other => ClusterError::Damaged {
                path: path.to_path_buf(),
                why: other.to_string(),
            },
        })?;
        let meta = db.open_tree("meta").map_err(err)?;
        let specs = db.open_tree("job_specs").map_err(err)?;
        let statuses = db.open_tree("job_states").map_err(err)?;
        let results = db.open_tree("results").map_err(err)?;
        let settled = db.open_tree("settled").map_err(err)?;
        let claims = db.open_tree("claims").map_err(err)?;
        let quarantine = db.open_tree("quarantine").map_err(err)?;
        let manifest = match meta.get("manifest").map_err(err)? {
            Some(bytes) => {
                let stored: Manifest =
                    serde_json::from_slice(&bytes).map_err(|e| ClusterError::Corrupt {
                        path: path.to_path_buf(),
                        what: "the manifest".into(),
                        why: e.to_string(),
                    })?;
                if stored.version > VERSION {
                    return Err(ClusterError::Corrupt {
                        path: path.to_path_buf(),
                        what: "the manifest".into(),
                        why: format!(
                            "format {} is newer than this hakase reads ({VERSION}); \
                             use the hakase that made it",
                            stored.version
                        ),
                    });
                }
                if stored.fingerprint != game.fingerprint() || stored.config != *config {
                    return Err(ClusterError::Mismatch {
                        path: path.to_path_buf(),
                        stored: describe(&stored.game, &stored.fingerprint, &stored.config),
                        requested: describe(game.name(), game.fingerprint(), config),
                    });
                }
                let mut stored = stored;
                if stored.audit_key.is_none() && !stored.finished {
                    stored.audit_key = Some(new_audit_key());
                }
                stored
            }
            None => Manifest {
                version: VERSION,
                game: game.name().to_string(),
                fingerprint: game.fingerprint().to_string(),
                config: config.clone(),
                started: unix_now(),
                updated: unix_now(),
                finished: false,
                audit_key: Some(new_audit_key()),
            },
        };
        let store = Store {
            path: path.to_path_buf(),
            db,
            meta,
            specs,
            statuses,
            results,
            settled,
            claims,
            quarantine,
            audit_seed: manifest.audit_seed(),
            manifest: Mutex::new(manifest),
            guesses: game.guesses().len(),
            all_answers: game.all_answers(),
            commit: GroupCommit::default(),
        };
        store.convert_legacy_jobs()?;
        store
            .manifest
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .version = VERSION;
        store.write_manifest()?;
        Ok(store)
    }

    /// Moves format 1's whole job records into the spec and status trees, then drops them.
    /// Nothing else writes before this ends, so a crash midway only repeats it next time.
    fn convert_legacy_jobs(&self) -> Result<(), ClusterError> {
        let legacy_exists = self
            .db
            .tree_names()
            .iter()
            .any(|name| name.as_ref() == LEGACY_JOBS.as_bytes());
        if !legacy_exists {
            return Ok(());
        }
        let legacy = self.db.open_tree(LEGACY_JOBS).map_err(|e| self.err(e))?;
        let mut moved = 0usize;
        for item in legacy.iter() {
            let (key, value) = item.map_err(|e| self.err(e))?;
            let (record, _): (JobRecord, usize) =
                bincode::serde::decode_from_slice(&value, bincode_config())
                    .map_err(|e| self.corrupt("a job of format 1", e))?;
            let id = JobId::from_bytes(&key).map_err(|e| self.corrupt("a job key", e))?;
            self.put_spec(id, &record.spec)?;
            self.put_status(
                id,
                JobStatus {
                    state: record.state,
                    completions: record.completions,
                },
            )?;
            moved += 1;
        }
        self.flush()?;
        self.db.drop_tree(LEGACY_JOBS).map_err(|e| self.err(e))?;
        self.flush()?;
        tracing::info!(
            jobs = moved,
            "converted the run database to format {VERSION}"
        );
        Ok(())
    }

    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The sled database, for trees other parts of the run keep in it (a first-guess run's
    /// own record).
    pub fn db(&self) -> &sled::Db {
        &self.db
    }

    /// The run's manifest.
    pub fn manifest(&self) -> Manifest {
        self.manifest
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn err(&self, source: sled::Error) -> ClusterError {
        ClusterError::Store {
            path: self.path.clone(),
            source,
        }
    }

    fn corrupt(&self, what: &str, why: impl ToString) -> ClusterError {
        ClusterError::Corrupt {
            path: self.path.clone(),
            what: what.to_string(),
            why: why.to_string(),
        }
    }

    fn write_manifest(&self) -> Result<(), ClusterError> {
        let bytes =
            serde_json::to_vec(&self.manifest()).map_err(|e| self.corrupt("manifest", e))?;
        self.meta
            .insert("manifest", bytes)
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Every stored job with a status. A status whose spec a crash kept from the disk is
    /// left out: the planner makes the job again if it is still needed.
    pub fn load_jobs(&self) -> Result<Vec<(JobId, JobRecord)>, ClusterError> {
        let mut out = Vec::new();
        for item in self.statuses.iter() {
            let (key, value) = item.map_err(|e| self.err(e))?;
            let id = JobId::from_bytes(&key).map_err(|e| self.corrupt("a job key", e))?;
            let (status, _): (JobStatus, usize) =
                bincode::serde::decode_from_slice(&value, bincode_config())
                    .map_err(|e| self.corrupt("a job's state", e))?;
            let Some(spec) = self.specs.get(&key).map_err(|e| self.err(e))? else {
                continue;
            };
            let (spec, _): (StoredSpec, usize) =
                bincode::serde::decode_from_slice(&spec, bincode_config())
                    .map_err(|e| self.corrupt("a job", e))?;
            let spec = match spec {
                StoredSpec::Whole(spec) => spec,
                StoredSpec::EveryAnswer {
                    kind,
                    guesses_left,
                    hard,
                } => JobSpec {
                    kind,
                    node: Node {
                        candidates: self.all_answers.clone(),
                        guesses_left,
                        hard,
                    },
                },
            };
            out.push((
                id,
                JobRecord {
                    spec,
                    state: status.state,
                    completions: status.completions,
                },
            ));
        }
        Ok(out)
    }

    /// Every stored result's outcome (trees stay on disk).
    pub fn load_results(&self) -> Result<Vec<(JobId, Outcome, u32)>, ClusterError> {
        let mut out = Vec::new();
        for item in self.results.iter() {
            let (key, value) = item.map_err(|e| self.err(e))?;
            let id = JobId::from_bytes(&key).map_err(|e| self.corrupt("a result key", e))?;
            let (result, _): (StoredResult, usize) =
                bincode::serde::decode_from_slice(&value, bincode_config())
                    .map_err(|e| self.corrupt("a result", e))?;
            out.push((id, result.outcome, result.beta));
        }
        Ok(out)
    }

    /// Records a job's spec, once, before its first status (not flushed).
    pub fn put_spec(&self, id: JobId, spec: &JobSpec) -> Result<(), ClusterError> {
        // Candidates are sorted and distinct, so as many as there are answers is all of them.
        let stored = if spec.node.candidates.len() == self.all_answers.len() {
            StoredSpec::EveryAnswer {
                kind: spec.kind,
                guesses_left: spec.node.guesses_left,
                hard: spec.node.hard.clone(),
            }
        } else {
            StoredSpec::Whole(spec.clone())
        };
        let bytes = bincode::serde::encode_to_vec(&stored, bincode_config())
            .map_err(|e| self.corrupt("a job", e))?;
        self.specs
            .insert(id.to_bytes(), bytes)
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Records a job's status (not flushed).
    pub fn put_status(&self, id: JobId, status: JobStatus) -> Result<(), ClusterError> {
        let bytes = bincode::serde::encode_to_vec(status, bincode_config())
            .map_err(|e| self.corrupt("a job's state", e))?;
        self.statuses
            .insert(id.to_bytes(), bytes)
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Records a result (call [`Store::flush`] before acknowledging it).
    pub fn put_result(&self, id: JobId, answer: &JobAnswer) -> Result<(), ClusterError> {
        let stored = StoredResult {
            beta: answer.beta,
            outcome: answer.outcome,
            tree: answer
                .tree
                .as_ref()
                .map(hakase_proto::tree::encode)
                .unwrap_or_default(),
            nodes: answer.nodes,
            millis: answer.millis,
        };
        let bytes = bincode::serde::encode_to_vec(&stored, bincode_config())
            .map_err(|e| self.corrupt("a result", e))?;
        self.results
            .insert(id.to_bytes(), bytes)
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Forgets a result (of a quarantined worker: it is computed again).
    pub fn remove_result(&self, id: JobId) -> Result<(), ClusterError> {
        self.results
            .remove(id.to_bytes())
            .map_err(|e| self.err(e))?;
        self.claims.remove(id.to_bytes()).map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Records which worker made the stored result of `id`.
    pub fn put_claim(&self, id: JobId, worker: u64) -> Result<(), ClusterError> {
        self.claims
            .insert(id.to_bytes(), &worker.to_be_bytes())
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Which worker made each stored result (results of older runs have none).
    pub fn load_claims(&self) -> Result<Vec<(JobId, u64)>, ClusterError> {
        let mut out = Vec::new();
        for item in self.claims.iter() {
            let (key, value) = item.map_err(|e| self.err(e))?;
            let id = JobId::from_bytes(&key).map_err(|e| self.corrupt("a claim key", e))?;
            let worker: [u8; 8] = value
                .as_ref()
                .try_into()
                .map_err(|_| self.corrupt("a claim", "not 8 bytes"))?;
            out.push((id, u64::from_be_bytes(worker)));
        }
        Ok(out)
    }

    /// Records a quarantined worker (durable at once: it must survive a crash).
    pub fn put_quarantine(&self, record: &QuarantineRecord) -> Result<(), ClusterError> {
        let bytes = serde_json::to_vec(record).map_err(|e| self.corrupt("a quarantine", e))?;
        self.quarantine
            .insert(record.worker.to_be_bytes(), bytes)
            .map_err(|e| self.err(e))?;
        self.flush()
    }

    /// Every quarantined worker.
    pub fn load_quarantine(&self) -> Result<Vec<QuarantineRecord>, ClusterError> {
        let mut out = Vec::new();
        for item in self.quarantine.iter() {
            let (_, value) = item.map_err(|e| self.err(e))?;
            out.push(serde_json::from_slice(&value).map_err(|e| self.corrupt("a quarantine", e))?);
        }
        Ok(out)
    }

    /// Records a registered worker (synced with the next sync).
    pub fn put_worker(&self, record: &WorkerRecord) -> Result<(), ClusterError> {
        let bytes = serde_json::to_vec(record).map_err(|e| self.corrupt("a worker", e))?;
        let key = [WORKER_KEY, &record.id.to_be_bytes()].concat();
        self.meta.insert(key, bytes).map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Every registered worker.
    pub fn load_workers(&self) -> Result<Vec<WorkerRecord>, ClusterError> {
        let mut out = Vec::new();
        for item in self.meta.scan_prefix(WORKER_KEY) {
            let (_, value) = item.map_err(|e| self.err(e))?;
            out.push(serde_json::from_slice(&value).map_err(|e| self.corrupt("a worker", e))?);
        }
        Ok(out)
    }

    /// The next worker id to hand out (ids stay unique across restarts, so claims and
    /// quarantines keep naming the right worker).
    pub fn next_worker(&self) -> Result<u64, ClusterError> {
        Ok(
            match self.meta.get("next_worker").map_err(|e| self.err(e))? {
                Some(bytes) => bytes
                    .as_ref()
                    .try_into()
                    .map(u64::from_be_bytes)
                    .map_err(|_| self.corrupt("next_worker", "not 8 bytes"))?,
                None => 1,
            },
        )
    }

    /// Stores the next worker id to hand out.
    pub fn put_next_worker(&self, next: u64) -> Result<(), ClusterError> {
        self.meta
            .insert("next_worker", &next.to_be_bytes())
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// The run's public name (see [`Manifest::run_id`]).
    pub fn run_id(&self) -> String {
        self.manifest().run_id()
    }

    /// What the audit sample is drawn from (see [`Manifest::audit_seed`]).
    pub fn audit_seed(&self) -> &str {
        &self.audit_seed
    }

    /// The subtree stored with an exact result.
    pub fn tree(&self, id: JobId) -> Result<Option<Tree>, ClusterError> {
        let Some(bytes) = self.results.get(id.to_bytes()).map_err(|e| self.err(e))? else {
            return Ok(None);
        };
        let (stored, _): (StoredResult, usize) =
            bincode::serde::decode_from_slice(&bytes, bincode_config())
                .map_err(|e| self.corrupt("a result", e))?;
        if stored.tree.is_empty() {
            return Ok(None);
        }
        hakase_proto::tree::decode(&stored.tree, self.guesses)
            .map(Some)
            .map_err(|e| self.corrupt("a subtree", e))
    }

    /// Every settled first guess stored by a checkpointed run, with its guess budget.
    pub fn load_settled(&self) -> Result<Vec<(u32, FirstGuessValue)>, ClusterError> {
        let mut out = Vec::new();
        for item in self.settled.iter() {
            let (key, value) = item.map_err(|e| self.err(e))?;
            let budget: [u8; 4] = key
                .get(..4)
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| self.corrupt("a settled first guess key", "shorter than 4 bytes"))?;
            let (settled, _): (FirstGuessValue, usize) =
                bincode::serde::decode_from_slice(&value, bincode_config())
                    .map_err(|e| self.corrupt("a settled first guess", e))?;
            out.push((u32::from_be_bytes(budget), settled));
        }
        Ok(out)
    }

    /// Writes settled first guesses (at budget, value) in one batch; durable after the next
    /// [`Store::flush`].
    pub fn put_settled(&self, settled: &[(u32, FirstGuessValue)]) -> Result<(), ClusterError> {
        let mut batch = sled::Batch::default();
        for (budget, value) in settled {
            let mut key = budget.to_be_bytes().to_vec();
            key.extend_from_slice(&value.guess.to_be_bytes());
            let bytes = bincode::serde::encode_to_vec(value, bincode_config())
                .map_err(|e| self.corrupt("a settled first guess", e))?;
            batch.insert(key, bytes);
        }
        self.settled.apply_batch(batch).map_err(|e| self.err(e))
    }

    /// Stores the ranking of first guesses as it stands.
    pub fn put_ranking(&self, ranking: &[FirstGuessValue]) -> Result<(), ClusterError> {
        let bytes = serde_json::to_vec(ranking).map_err(|e| self.corrupt("ranking", e))?;
        self.meta
            .insert("ranking", bytes)
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Stores the finished run's solution and marks the run finished.
    pub fn put_solution(&self, solution: &Solution) -> Result<(), ClusterError> {
        let bytes = serde_json::to_vec(solution).map_err(|e| self.corrupt("solution", e))?;
        self.meta
            .insert("solution", bytes)
            .map_err(|e| self.err(e))?;
        self.put_ranking(&solution.ranking)?;
        {
            let mut manifest = self.manifest.lock().unwrap_or_else(|p| p.into_inner());
            manifest.finished = true;
            manifest.updated = unix_now();
        }
        self.write_manifest()?;
        self.flush()
    }

    /// Stores how the finished run's result was checked.
    pub fn put_audit(&self, audit: &AuditSummary) -> Result<(), ClusterError> {
        let bytes = serde_json::to_vec(audit).map_err(|e| self.corrupt("audit", e))?;
        self.meta.insert("audit", bytes).map_err(|e| self.err(e))?;
        Ok(())
    }

    /// How the finished run's result was checked, if stored.
    pub fn audit(&self) -> Result<Option<AuditSummary>, ClusterError> {
        match self.meta.get("audit").map_err(|e| self.err(e))? {
            Some(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| self.corrupt("audit", e)),
            None => Ok(None),
        }
    }

    /// The finished run's solution, if stored.
    pub fn solution(&self) -> Result<Option<Solution>, ClusterError> {
        match self.meta.get("solution").map_err(|e| self.err(e))? {
            Some(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| self.corrupt("solution", e)),
            None => Ok(None),
        }
    }

    /// Notes activity in the manifest (not flushed).
    pub fn touch(&self) -> Result<(), ClusterError> {
        self.manifest
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .updated = unix_now();
        self.write_manifest()
    }

    /// Waits until everything this thread wrote so far is on disk, sharing one flush with
    /// every other thread waiting at the same time (so thousands of results per second cost
    /// a few disk syncs, not thousands).
    pub fn sync(&self) -> Result<(), ClusterError> {
        self.commit
            .sync(|| self.db.flush().map(|_| ()).map_err(|e| self.err(e)))
    }

    /// Waits until everything written so far is on disk.
    pub fn flush(&self) -> Result<(), ClusterError> {
        self.db.flush().map_err(|e| self.err(e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hakase_core::presets::load_preset;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hakase-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn first_guess_job(game: &Game, guess: u32) -> JobSpec {
        JobSpec {
            kind: JobKind::Guess(guess),
            node: Node {
                candidates: game.all_answers(),
                guesses_left: 10,
                hard: HardState::default(),
            },
        }
    }

    /// Rewrites the manifest's format number, as an older or newer hakase would have left it.
    fn set_version(db: &sled::Db, version: u32) {
        let meta = db.open_tree("meta").expect("meta");
        let bytes = meta.get("manifest").expect("read").expect("a manifest");
        let mut manifest: Manifest = serde_json::from_slice(&bytes).expect("manifest");
        manifest.version = version;
        let bytes = serde_json::to_vec(&manifest).expect("encode");
        meta.insert("manifest", bytes).expect("write");
        db.flush().expect("flush");
    }

    /// Rewrites the manifest as a hakase from before audit keys left it: no key, and
    /// `finished` as given.
    fn strip_audit_key(db: &sled::Db, finished: bool) {
        let meta = db.open_tree("meta").expect("meta");
        let bytes = meta.get("manifest").expect("read").expect("a manifest");
        let mut json: serde_json::Value = serde_json::from_slice(&bytes).expect("manifest");
        let fields = json.as_object_mut().expect("an object");
        assert!(fields.remove("audit_key").is_some(), "a new run has a key");
        fields.insert("finished".into(), finished.into());
        meta.insert("manifest", serde_json::to_vec(&json).expect("encode"))
            .expect("write");
        db.flush().expect("flush");
    }

    #[test]
    fn a_run_keeps_a_secret_audit_key_that_workers_are_not_told() {
        let game = load_preset("pokemon-gen:1").expect("preset");
        let config = SolverConfig::default();
        let (dir_a, dir_b) = (scratch("key-a"), scratch("key-b"));
        let key = |dir: &Path| {
            let store = Store::open(dir, &game, &config).expect("store");
            let manifest = store.manifest();
            (
                manifest.audit_key.clone().expect("a key"),
                store.run_id(),
                store.audit_seed().to_string(),
            )
        };
        let (key_a, run_a, seed_a) = key(&dir_a);
        assert_eq!(key_a.len(), 32);
        assert!(key_a.bytes().all(|b| b.is_ascii_hexdigit()), "{key_a}");
        // The public run id (sent at registration) does not carry the key; the seed does.
        assert!(!run_a.contains(&key_a), "{run_a}");
        assert!(seed_a.contains(&key_a) && seed_a != run_a);
        // Kept across a restart, so a resumed run and `hakase audit` draw the same sample.
        assert_eq!(key(&dir_a).0, key_a);
        // Another run started in the same second (same run id) has another key.
        assert_ne!(key(&dir_b).0, key_a);
        for dir in [dir_a, dir_b] {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    #[test]
    fn a_run_from_before_audit_keys_gets_one_unless_it_is_finished() {
        let game = load_preset("pokemon-gen:1").expect("preset");
        let config = SolverConfig::default();
        for finished in [false, true] {
            let dir = scratch(&format!("legacy-key-{finished}"));
            drop(Store::open(&dir, &game, &config).expect("store"));
            {
                let db = hakase_worker::sled_guard::open(&dir).expect("sled");
                strip_audit_key(&db, finished);
            }
            let store = Store::open(&dir, &game, &config).expect("an older run opens");
            let manifest = store.manifest();
            if finished {
                // Nothing is left to sample during the run: `hakase audit` draws from the
                // public run id.
                assert_eq!(manifest.audit_key, None);
                assert_eq!(store.audit_seed(), store.run_id());
            } else {
                // The rest of an unfinished run is sampled from a secret.
                assert_eq!(manifest.audit_key.as_ref().map(String::len), Some(32));
                assert_ne!(store.audit_seed(), store.run_id());
            }
            drop(store);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    #[test]
    fn leases_are_read_back_with_the_specs_stored_before_them() {
        let dir = scratch("status");
        let game = load_preset("pokemon-gen:1").expect("preset");
        let config = SolverConfig::default();
        let whole = first_guess_job(&game, 3);
        let part = JobSpec {
            kind: JobKind::Node,
            node: Node {
                candidates: vec![2, 3, 5, 8],
                guesses_left: 9,
                hard: HardState::default(),
            },
        };
        let (leased, part_leased, unleased) = (JobId(7), JobId(8), JobId(9));
        let lease = JobStatus {
            state: StoredState::Leased {
                beta: 400,
                expiry: 1_234,
            },
            completions: 0,
        };
        let done = JobStatus {
            state: StoredState::Done,
            completions: 1,
        };
        {
            let store = Store::open(&dir, &game, &config).expect("store");
            store.put_spec(leased, &whole).expect("spec");
            store.put_status(leased, lease).expect("status");
            store.put_spec(part_leased, &part).expect("spec");
            store.put_status(part_leased, lease).expect("status");
            store.put_status(part_leased, done).expect("status");
            // A status whose spec never reached the disk is left to the planner.
            store.put_status(unleased, lease).expect("status");
            store.flush().expect("flush");
        }
        let store = Store::open(&dir, &game, &config).expect("store");
        let jobs = store.load_jobs().expect("jobs");
        let record = |spec: &JobSpec, status: JobStatus| JobRecord {
            spec: spec.clone(),
            state: status.state,
            completions: status.completions,
        };
        assert_eq!(
            jobs,
            vec![
                (leased, record(&whole, lease)),
                (part_leased, record(&part, done))
            ]
        );
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_format_1_database_is_converted_and_keeps_its_jobs() {
        let dir = scratch("format1");
        let game = load_preset("pokemon-gen:1").expect("preset");
        let config = SolverConfig::default();
        let old = JobRecord {
            spec: first_guess_job(&game, 5),
            state: StoredState::Leased {
                beta: 390,
                expiry: 99,
            },
            completions: 2,
        };
        drop(Store::open(&dir, &game, &config).expect("store"));
        {
            let db = hakase_worker::sled_guard::open(&dir).expect("sled");
            let legacy = db.open_tree(LEGACY_JOBS).expect("tree");
            let bytes = bincode::serde::encode_to_vec(&old, bincode_config()).expect("encode");
            legacy.insert(JobId(11).to_bytes(), bytes).expect("insert");
            set_version(&db, 1);
        }
        let store = Store::open(&dir, &game, &config).expect("a format 1 database opens");
        assert_eq!(store.load_jobs().expect("jobs"), vec![(JobId(11), old)]);
        assert_eq!(store.manifest().version, VERSION);
        let names = store.db().tree_names();
        assert!(
            !names.iter().any(|n| n.as_ref() == LEGACY_JOBS.as_bytes()),
            "the format 1 tree is dropped"
        );
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_database_of_a_newer_format_is_refused_by_name() {
        let dir = scratch("newer");
        let game = load_preset("pokemon-gen:1").expect("preset");
        let config = SolverConfig::default();
        drop(Store::open(&dir, &game, &config).expect("store"));
        {
            let db = hakase_worker::sled_guard::open(&dir).expect("sled");
            set_version(&db, VERSION + 1);
        }
        let err = Store::open(&dir, &game, &config)
            .err()
            .expect("a newer format is refused");
        assert!(err.to_string().contains("newer"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
