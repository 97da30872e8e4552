//! The open database of one run, for writing: leased jobs (their spec once, their state and
//! lease expiry apart), results, the ranking of first guesses and, at the end, the optimal
//! tree. Results are made durable before a worker's report is acknowledged, so a killed
//! coordinator loses no finished job.
//!
//! Damage is found, counted and recomputed, never silently: every result and settled first
//! guess carries a CRC-32 of its bytes, and a ledger file beside sled's counts how many are
//! on disk. sled recovers a damaged log by dropping everything after the damage, which leaves
//! a database that looks like a run killed earlier; only a count kept outside the log tells
//! the two apart (see [`Reopened`] and [`super::ledger`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::group_commit::GroupCommit;
use hakase_core::solver::Node;
use hakase_core::solver::{FirstGuessValue, Outcome, Solution};
use hakase_core::trees::tree::Tree;
use hakase_core::AnswerId;
use hakase_proto::job::{JobAnswer, JobId, JobSpec};
use serde::de::DeserializeOwned;

use super::clock::unix_now;
use super::encoding::{bincode_config, decode, seal, unseal, StoredResult, StoredSpec};
use super::layout::*;
use super::ledger::Tally;
use super::records::{JobRecord, JobStatus, Manifest, QuarantineRecord, Reopened, WorkerRecord};
use super::RunError;
use crate::audit::AuditSummary;

/// The open database of one run.
pub struct Store {
    pub(super) path: PathBuf,
    pub(super) db: sled::Db,
    pub(super) meta: sled::Tree,
    pub(super) specs: sled::Tree,
    pub(super) statuses: sled::Tree,
    pub(super) results: sled::Tree,
    pub(super) settled: sled::Tree,
    pub(super) claims: sled::Tree,
    pub(super) quarantine: sled::Tree,
    pub(super) manifest: Mutex<Manifest>,
    /// The manifest's audit seed, fixed once the run is open: read for every arriving claim.
    pub(super) audit_seed: String,
    pub(super) guesses: usize,
    /// The candidates of a job on every answer (left out of its stored spec).
    pub(super) all_answers: Vec<AnswerId>,
    pub(super) commit: GroupCommit,
    /// The run's name in its ledger (see [`run_key`]).
    pub(super) run_key: String,
    /// Settled first guesses stored (in memory, flushed or not).
    pub(super) settled_count: AtomicU64,
    /// Results stored (in memory, flushed or not).
    pub(super) results_count: AtomicU64,
    /// The tally last written to the ledger; its lock orders every ledger write.
    pub(super) ledger: Mutex<Option<Tally>>,
    /// The first storage fault of this open (see [`Store::fault`]).
    pub(super) fault: Mutex<Option<String>>,
    /// When the disk sync under way began (see [`Store::watch_syncs`]).
    pub(super) flushing: Mutex<Option<Instant>>,
    /// What the open read back.
    pub(super) reopened: Reopened,
}

impl Store {
    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The run's manifest.
    pub fn manifest(&self) -> Manifest {
        self.manifest
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub(super) fn err(&self, source: sled::Error) -> RunError {
        if let sled::Error::Io(io) = &source {
            self.note_fault(&format!("{io}"));
        }
        RunError::Database {
            path: self.path.clone(),
            source,
        }
    }

    /// Records the first fault of the disk under the database (no space, an I/O error) and
    /// logs it at once: from then on the run takes no more work (see [`Store::fault`]).
    pub(super) fn note_fault(&self, why: &str) {
        let mut fault = self.fault.lock().unwrap_or_else(|p| p.into_inner());
        if fault.is_none() {
            let why = format!("writing {}: {why}", self.path.display());
            tracing::error!(%why, "storage fault: the run takes no more work; what is settled is kept");
            *fault = Some(why);
        }
    }

    /// The first storage fault of this open, if any: the disk is full or failing, so nothing
    /// more can be made durable.
    pub fn fault(&self) -> Option<String> {
        self.fault.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub(super) fn corrupt(&self, what: &str, why: impl ToString) -> RunError {
        RunError::Corrupt {
            path: self.path.clone(),
            what: what.to_string(),
            why: why.to_string(),
        }
    }

    pub(super) fn write_manifest(&self) -> Result<(), RunError> {
        let bytes =
            serde_json::to_vec(&self.manifest()).map_err(|e| self.corrupt("manifest", e))?;
        self.meta
            .insert(MANIFEST_KEY, bytes)
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Every stored job with a status. A status whose spec a crash kept from the disk is
    /// left out: the planner makes the job again if it is still needed.
    pub fn load_jobs(&self) -> Result<Vec<(JobId, JobRecord)>, RunError> {
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
    pub fn load_results(&self) -> Result<Vec<(JobId, Outcome, u32)>, RunError> {
        let mut out = Vec::new();
        for item in self.results.iter() {
            let (key, value) = item.map_err(|e| self.err(e))?;
            let id = JobId::from_bytes(&key).map_err(|e| self.corrupt("a result key", e))?;
            let result: StoredResult = self.unsealed("a result", &value)?;
            out.push((id, result.outcome, result.beta));
        }
        Ok(out)
    }

    /// Records a job's spec, once, before its first status (not flushed).
    pub fn put_spec(&self, id: JobId, spec: &JobSpec) -> Result<(), RunError> {
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
    pub fn put_status(&self, id: JobId, status: JobStatus) -> Result<(), RunError> {
        let bytes = bincode::serde::encode_to_vec(status, bincode_config())
            .map_err(|e| self.corrupt("a job's state", e))?;
        self.statuses
            .insert(id.to_bytes(), bytes)
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Records a result (call [`Store::flush`] before acknowledging it).
    pub fn put_result(&self, id: JobId, answer: &JobAnswer) -> Result<(), RunError> {
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
        let previous = self
            .results
            .insert(id.to_bytes(), seal(&bytes))
            .map_err(|e| self.err(e))?;
        // Counted after the insert: a flush that reads the count first has the value on disk.
        if previous.is_none() {
            self.results_count.fetch_add(1, Ordering::SeqCst);
        }
        Ok(())
    }

    /// Forgets a result (of a quarantined worker: it is computed again).
    pub fn remove_result(&self, id: JobId) -> Result<(), RunError> {
        let key = id.to_bytes();
        let mut last = self.ledger.lock().unwrap_or_else(|p| p.into_inner());
        if self.results.contains_key(key).map_err(|e| self.err(e))? {
            // The ledger is lowered before the removal can reach the disk (sled flushes on its
            // own too), so that it never counts more than is stored.
            if let Some(written) = *last {
                let lowered = Tally {
                    results: written.results.saturating_sub(1),
                    ..written
                };
                self.write_ledger(&mut last, lowered)?;
            }
            if self.results.remove(key).map_err(|e| self.err(e))?.is_some() {
                self.results_count.fetch_sub(1, Ordering::SeqCst);
            }
        }
        drop(last);
        self.claims.remove(key).map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Records which worker made the stored result of `id`.
    pub fn put_claim(&self, id: JobId, worker: u64) -> Result<(), RunError> {
        self.claims
            .insert(id.to_bytes(), &worker.to_be_bytes())
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Which worker made each stored result (results of older runs have none).
    pub fn load_claims(&self) -> Result<Vec<(JobId, u64)>, RunError> {
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
    pub fn put_quarantine(&self, record: &QuarantineRecord) -> Result<(), RunError> {
        let bytes = serde_json::to_vec(record).map_err(|e| self.corrupt("a quarantine", e))?;
        self.quarantine
            .insert(record.worker.to_be_bytes(), bytes)
            .map_err(|e| self.err(e))?;
        self.flush()
    }

    /// Every quarantined worker.
    pub fn load_quarantine(&self) -> Result<Vec<QuarantineRecord>, RunError> {
        let mut out = Vec::new();
        for item in self.quarantine.iter() {
            let (_, value) = item.map_err(|e| self.err(e))?;
            out.push(serde_json::from_slice(&value).map_err(|e| self.corrupt("a quarantine", e))?);
        }
        Ok(out)
    }

    /// Records a registered worker (synced with the next sync).
    pub fn put_worker(&self, record: &WorkerRecord) -> Result<(), RunError> {
        let bytes = serde_json::to_vec(record).map_err(|e| self.corrupt("a worker", e))?;
        let key = [WORKER_KEY, &record.id.to_be_bytes()].concat();
        self.meta.insert(key, bytes).map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Every registered worker.
    pub fn load_workers(&self) -> Result<Vec<WorkerRecord>, RunError> {
        let mut out = Vec::new();
        for item in self.meta.scan_prefix(WORKER_KEY) {
            let (_, value) = item.map_err(|e| self.err(e))?;
            out.push(serde_json::from_slice(&value).map_err(|e| self.corrupt("a worker", e))?);
        }
        Ok(out)
    }

    /// Records that job `id` was cut finer (durable at once: the plan after a restart must
    /// cut it too, to find its pieces' results).
    pub fn put_recut(&self, id: JobId) -> Result<(), RunError> {
        let key = [RECUT_KEY, &id.to_bytes()[..]].concat();
        self.meta.insert(key, &[]).map_err(|e| self.err(e))?;
        self.flush()
    }

    /// Every job cut finer.
    pub fn load_recut(&self) -> Result<Vec<JobId>, RunError> {
        let mut out = Vec::new();
        for item in self.meta.scan_prefix(RECUT_KEY) {
            let (key, _) = item.map_err(|e| self.err(e))?;
            let id = JobId::from_bytes(&key[RECUT_KEY.len()..])
                .map_err(|e| self.corrupt("a recut job", e))?;
            out.push(id);
        }
        Ok(out)
    }

    /// The next worker id to hand out (ids stay unique across restarts, so claims and
    /// quarantines keep naming the right worker).
    pub fn next_worker(&self) -> Result<u64, RunError> {
        Ok(
            match self.meta.get(NEXT_WORKER_KEY).map_err(|e| self.err(e))? {
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
    pub fn put_next_worker(&self, next: u64) -> Result<(), RunError> {
        self.meta
            .insert(NEXT_WORKER_KEY, &next.to_be_bytes())
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
    pub fn tree(&self, id: JobId) -> Result<Option<Tree>, RunError> {
        let Some(bytes) = self.results.get(id.to_bytes()).map_err(|e| self.err(e))? else {
            return Ok(None);
        };
        let stored: StoredResult = self.unsealed("a result", &bytes)?;
        if stored.tree.is_empty() {
            return Ok(None);
        }
        hakase_proto::tree::decode(&stored.tree, self.guesses)
            .map(Some)
            .map_err(|e| self.corrupt("a subtree", e))
    }

    /// Every settled first guess stored by a checkpointed run, with its guess budget.
    pub fn load_settled(&self) -> Result<Vec<(u32, FirstGuessValue)>, RunError> {
        let mut out = Vec::new();
        for item in self.settled.iter() {
            let (key, value) = item.map_err(|e| self.err(e))?;
            let budget: [u8; 4] = key
                .get(..4)
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| self.corrupt("a settled first guess key", "shorter than 4 bytes"))?;
            let settled: FirstGuessValue = self.unsealed("a settled first guess", &value)?;
            out.push((u32::from_be_bytes(budget), settled));
        }
        Ok(out)
    }

    /// Writes settled first guesses (at budget, value) in one batch; durable after the next
    /// [`Store::flush`].
    pub fn put_settled(&self, settled: &[(u32, FirstGuessValue)]) -> Result<(), RunError> {
        // One insert each, not a batch: the ledger counts the values that were not there yet.
        for (budget, value) in settled {
            let mut key = budget.to_be_bytes().to_vec();
            key.extend_from_slice(&value.guess.to_be_bytes());
            let bytes = bincode::serde::encode_to_vec(value, bincode_config())
                .map_err(|e| self.corrupt("a settled first guess", e))?;
            let previous = self
                .settled
                .insert(key, seal(&bytes))
                .map_err(|e| self.err(e))?;
            if previous.is_none() {
                self.settled_count.fetch_add(1, Ordering::SeqCst);
            }
        }
        Ok(())
    }

    /// Stores the ranking of first guesses as it stands.
    pub fn put_ranking(&self, ranking: &[FirstGuessValue]) -> Result<(), RunError> {
        let bytes = serde_json::to_vec(ranking).map_err(|e| self.corrupt("ranking", e))?;
        self.meta
            .insert(RANKING_KEY, bytes)
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Rewrites the run's ranking file (see [`super::ranking_file`]): the ranking as it
    /// stands, readable while this process holds the database.
    pub fn put_ranking_file(
        &self,
        values: &[FirstGuessValue],
        first_guesses: usize,
        guesses_left: u32,
        finished: bool,
    ) -> Result<(), RunError> {
        let manifest = self.manifest();
        let snapshot = super::ranking_file::RankingSnapshot {
            version: super::ranking_file::RANKING_FILE_VERSION,
            game: manifest.game,
            fingerprint: manifest.fingerprint,
            config: manifest.config,
            scope: manifest.scope,
            first_guesses,
            guesses_left,
            finished,
            updated: unix_now(),
            values: values.to_vec(),
        };
        super::ranking_file::write(&self.path, &snapshot).map_err(|source| RunError::Io {
            path: self.path.join(super::ranking_file::RANKING_FILE),
            source,
        })
    }

    /// Stores the finished run's solution and marks the run finished.
    pub fn put_solution(&self, solution: &Solution) -> Result<(), RunError> {
        let bytes = serde_json::to_vec(solution).map_err(|e| self.corrupt("solution", e))?;
        self.meta
            .insert(SOLUTION_KEY, bytes)
            .map_err(|e| self.err(e))?;
        self.put_ranking(&solution.ranking)?;
        self.put_ranking_file(
            &solution.ranking,
            solution.ranking.len(),
            solution.guesses_left,
            true,
        )?;
        {
            let mut manifest = self.manifest.lock().unwrap_or_else(|p| p.into_inner());
            manifest.finished = true;
            manifest.updated = unix_now();
        }
        self.write_manifest()?;
        self.flush()
    }

    /// Stores how the finished run's result was checked.
    pub fn put_audit(&self, audit: &AuditSummary) -> Result<(), RunError> {
        let bytes = serde_json::to_vec(audit).map_err(|e| self.corrupt("audit", e))?;
        self.meta
            .insert(AUDIT_KEY, bytes)
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// How the finished run's result was checked, if stored.
    pub fn audit(&self) -> Result<Option<AuditSummary>, RunError> {
        match self.meta.get(AUDIT_KEY).map_err(|e| self.err(e))? {
            Some(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| self.corrupt("audit", e)),
            None => Ok(None),
        }
    }

    /// The finished run's solution, if stored.
    pub fn solution(&self) -> Result<Option<Solution>, RunError> {
        match self.meta.get(SOLUTION_KEY).map_err(|e| self.err(e))? {
            Some(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| self.corrupt("solution", e)),
            None => Ok(None),
        }
    }

    /// Notes activity in the manifest (not flushed).
    pub fn touch(&self) -> Result<(), RunError> {
        self.manifest
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .updated = unix_now();
        self.write_manifest()
    }

    /// Waits until everything this thread wrote so far is on disk, sharing one flush with
    /// every other thread waiting at the same time (so thousands of results per second cost
    /// a few disk syncs, not thousands).
    pub fn sync(&self) -> Result<(), RunError> {
        self.commit.sync(|| self.flush())
    }

    /// Waits until everything written so far is on disk, then records in the ledger how much
    /// that is.
    pub fn flush(&self) -> Result<(), RunError> {
        let mut last = self.ledger.lock().unwrap_or_else(|p| p.into_inner());
        // Read before the flush: everything it counts is on disk once the flush returns.
        let tally = self.tally();
        *self.flushing.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
        let flushed = self.db.flush().map_err(|e| self.err(e));
        *self.flushing.lock().unwrap_or_else(|p| p.into_inner()) = None;
        flushed?;
        self.write_ledger(&mut last, tally)
    }

    /// Declares a storage fault when a disk sync has been running for more than `stall`: sled
    /// waits for ever on a write the disk refused (no space), so a sync that never ends is
    /// how a full disk shows. Call it from a thread that never syncs.
    pub fn watch_syncs(&self, stall: std::time::Duration) {
        let started = *self.flushing.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(started) = started.filter(|at| at.elapsed() > stall) {
            self.note_fault(&format!(
                "a disk sync has not finished in {} s (is the disk full or failing?)",
                started.elapsed().as_secs()
            ));
        }
    }

    /// Decodes a sealed value that the open's scan found intact; failing now, it was damaged
    /// while the run was open, and the error says so.
    fn unsealed<T: DeserializeOwned>(&self, what: &str, bytes: &[u8]) -> Result<T, RunError> {
        let payload = unseal(bytes).ok_or_else(|| self.corrupt(what, "it fails its checksum"))?;
        decode(payload).map_err(|why| self.corrupt(what, why))
    }
}
