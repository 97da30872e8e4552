//! The run database (sled): manifest, jobs with their state and lease expiry, results, the
//! ranking of first guesses and, at the end, the optimal tree. Results are made durable
//! before a worker's report is acknowledged, so a killed coordinator loses no finished job.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use hakase_core::solver::{FirstGuessValue, Outcome, Solution, SolverConfig};
use hakase_core::tree::Tree;
use hakase_core::Game;
use hakase_proto::job::{JobAnswer, JobId, JobSpec};
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
}

impl Manifest {
    /// The run's name for reproducible choices (the audit sample): fingerprint and start.
    pub fn run_id(&self) -> String {
        format!("{}-{}", self.fingerprint, self.started)
    }
}

/// Where a job stands, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StoredState {
    /// Not wanted right now.
    Idle,
    /// Waiting for a worker, with the cutoff asked.
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

/// A job as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobRecord {
    /// The subproblem.
    pub spec: JobSpec,
    /// Its state.
    pub state: StoredState,
    /// Results received for it (more than one only after a duplicate or a deeper re-run).
    pub completions: u32,
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

const VERSION: u32 = 1;

/// The open database of one run.
pub struct Store {
    path: PathBuf,
    db: sled::Db,
    meta: sled::Tree,
    jobs: sled::Tree,
    results: sled::Tree,
    settled: sled::Tree,
    claims: sled::Tree,
    quarantine: sled::Tree,
    manifest: Mutex<Manifest>,
    guesses: usize,
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
        let jobs = db.open_tree("jobs").map_err(err)?;
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
                if stored.fingerprint != game.fingerprint() || stored.config != *config {
                    return Err(ClusterError::Mismatch {
                        path: path.to_path_buf(),
                        stored: describe(&stored.game, &stored.fingerprint, &stored.config),
                        requested: describe(game.name(), game.fingerprint(), config),
                    });
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
            },
        };
        let store = Store {
            path: path.to_path_buf(),
            db,
            meta,
            jobs,
            results,
            settled,
            claims,
            quarantine,
            manifest: Mutex::new(manifest),
            guesses: game.guesses().len(),
            commit: GroupCommit::default(),
        };
        store.write_manifest()?;
        Ok(store)
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

    /// Every stored job.
    pub fn load_jobs(&self) -> Result<Vec<(JobId, JobRecord)>, ClusterError> {
        let mut out = Vec::new();
        for item in self.jobs.iter() {
            let (key, value) = item.map_err(|e| self.err(e))?;
            let id = JobId::from_bytes(&key).map_err(|e| self.corrupt("a job key", e))?;
            let (record, _): (JobRecord, usize) =
                bincode::serde::decode_from_slice(&value, bincode_config())
                    .map_err(|e| self.corrupt("a job", e))?;
            out.push((id, record));
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

    /// Records a job (not flushed: a lost job record is only re-created).
    pub fn put_job(&self, id: JobId, record: &JobRecord) -> Result<(), ClusterError> {
        let bytes = bincode::serde::encode_to_vec(record, bincode_config())
            .map_err(|e| self.corrupt("a job", e))?;
        self.jobs
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

    /// The run's name for reproducible choices (see [`Manifest::run_id`]).
    pub fn run_id(&self) -> String {
        self.manifest().run_id()
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
