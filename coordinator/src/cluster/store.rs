//! The run database (sled): manifest, leased jobs (their spec once, their state and lease
//! expiry apart), results, the ranking of first guesses and, at the end, the optimal tree.
//! Results are made durable before a worker's report is acknowledged, so a killed
//! coordinator loses no finished job.
//!
//! Damage is found, counted and recomputed, never silently: every result and settled first
//! guess carries a CRC-32 of its bytes, and a ledger file beside sled's counts how many are
//! on disk. sled recovers a damaged log by dropping everything after the damage, which leaves
//! a database that looks like a run killed earlier; only a count kept outside the log tells
//! the two apart (see [`Reopened`]).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use hakase_core::solver::hard::HardState;
use hakase_core::solver::Node;
use hakase_core::solver::{FirstGuessValue, Outcome, Solution, SolverConfig};
use hakase_core::tree::Tree;
use hakase_core::{AnswerId, Game, GuessId};
use hakase_proto::job::{JobAnswer, JobId, JobKind, JobSpec};
use hakase_worker::group_commit::GroupCommit;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// Which first guesses the run settles. Absent from runs made before rankings were runs,
    /// which all searched for the best first guess.
    #[serde(default, skip_serializing_if = "RunScope::is_best")]
    pub scope: RunScope,
}

/// Which first guesses a run settles, and so what its ranking may claim: one database holds
/// one kind, since a search for the best first guess stores bounds a ranking cannot use.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunScope {
    /// The best first guess, with the others cut off by proven bounds.
    #[default]
    Best,
    /// Every first guess, each to its exact value (`--rank-all`).
    RankAll,
    /// These first guesses (ascending ids), each to its exact value (`--firsts FILE`).
    Listed(Vec<GuessId>),
}

impl RunScope {
    /// True for the default search, the one older runs made.
    pub fn is_best(&self) -> bool {
        *self == RunScope::Best
    }

    /// A ranking of exact values (every first guess, or a list of them).
    pub fn is_ranking(&self) -> bool {
        !self.is_best()
    }

    /// How a run directory of this scope is named after the whole game's run: nothing for
    /// the best first guess, `-rank-all`, or `-rank-N-HASH` for a list of N guesses.
    pub fn dir_suffix(&self) -> String {
        match self {
            RunScope::Best => String::new(),
            RunScope::RankAll => "-rank-all".into(),
            RunScope::Listed(list) => {
                // FNV-1a over the ids: stable across builds, unlike the std hasher.
                let hash = list.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, g| {
                    g.to_le_bytes()
                        .iter()
                        .fold(h, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
                });
                format!("-rank-{}-{:08x}", list.len(), hash as u32)
            }
        }
    }
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

/// Format 3 seals every result and settled first guess with a CRC-32 (see [`seal`]) and
/// keeps a ledger beside the database; format 2 stored them bare, and [`Store::open`] seals
/// them. Format 2 keeps job specs and job states in trees of their own; format 1 kept both in
/// one record (tree `jobs`), which [`Store::open`] converts.
const VERSION: u32 = 3;

/// The first format whose results and settled first guesses are sealed.
const SEALED: u32 = 3;

/// The ledger's file in the database directory, and the file it is written through (a rename
/// replaces it whole).
const LEDGER_FILE: &str = "hakase-ledger";
const LEDGER_TEMP: &str = "hakase-ledger.tmp";

/// Where the account of damage found so far lives in the `meta` tree.
pub(crate) const DAMAGE_KEY: &str = "damage";

/// What a reopened run could not read back. It is recomputed, never silently: the resumed
/// run says how much, and the run keeps the sum over its opens (see [`Store::damage_history`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Damage {
    /// Settled first guesses whose stored value failed its checksum or did not decode.
    pub settled_unreadable: u64,
    /// Settled first guesses the ledger counts as stored that the database no longer holds.
    pub settled_lost: u64,
    /// Job results whose stored value failed its checksum or did not decode.
    pub results_unreadable: u64,
    /// Job results the ledger counts as stored that the database no longer holds.
    pub results_lost: u64,
    /// True when the run had finished and its stored solution is gone.
    #[serde(default)]
    pub solution_lost: bool,
}

impl Damage {
    /// Settled first guesses to recompute, unreadable or lost: the figure a resumed run states.
    pub fn settled(&self) -> u64 {
        self.settled_unreadable + self.settled_lost
    }

    /// Job results to recompute, unreadable or lost.
    pub fn results(&self) -> u64 {
        self.results_unreadable + self.results_lost
    }

    /// True when nothing was damaged, so that callers print nothing.
    pub fn is_empty(&self) -> bool {
        *self == Damage::default()
    }

    fn add(&mut self, other: &Damage) {
        self.settled_unreadable += other.settled_unreadable;
        self.settled_lost += other.settled_lost;
        self.results_unreadable += other.results_unreadable;
        self.results_lost += other.results_lost;
        self.solution_lost |= other.solution_lost;
    }
}

/// The wire form of [`Damage`] (`hakase status`).
impl From<Damage> for hakase_proto::v1::StoreDamage {
    fn from(d: Damage) -> Self {
        hakase_proto::v1::StoreDamage {
            settled_unreadable: d.settled_unreadable,
            settled_lost: d.settled_lost,
            results_unreadable: d.results_unreadable,
            results_lost: d.results_lost,
            solution_lost: d.solution_lost,
        }
    }
}

impl From<hakase_proto::v1::StoreDamage> for Damage {
    fn from(d: hakase_proto::v1::StoreDamage) -> Self {
        Damage {
            settled_unreadable: d.settled_unreadable,
            settled_lost: d.settled_lost,
            results_unreadable: d.results_unreadable,
            results_lost: d.results_lost,
            solution_lost: d.solution_lost,
        }
    }
}

/// What opening the run read back, for the resumed run's summary: a resume that recomputes
/// damaged work must say so, or damage looks like nothing happened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reopened {
    /// Settled first guesses read intact.
    pub settled: u64,
    /// Job results read intact.
    pub results: u64,
    /// What could not be read (dropped from the database, so it is recomputed).
    pub damage: Damage,
    /// Why losses could not be checked this time (no ledger, or an unreadable one), if so:
    /// said, since a loss would then go unnoticed.
    pub unchecked: Option<String>,
}

/// How many results and settled first guesses are on disk, and whether the run finished:
/// what the ledger holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Tally {
    settled: u64,
    results: u64,
    finished: bool,
}

/// The ledger as found at open.
enum LedgerRead {
    Absent,
    Unreadable(String),
    Found { run: String, tally: Tally },
}

/// The ledger's text: the run it belongs to, the tally, and a CRC-32 of the lines above it.
fn ledger_text(run: &str, tally: Tally) -> String {
    let body = format!(
        "hakase ledger 1\nrun {run}\nsettled {}\nresults {}\nfinished {}\n",
        tally.settled,
        tally.results,
        u8::from(tally.finished)
    );
    format!("{body}crc {:08x}\n", crc32fast::hash(body.as_bytes()))
}

/// Reads a ledger's text back, or says why it cannot be trusted.
fn parse_ledger(text: &str) -> Result<(String, Tally), String> {
    let text = text.strip_suffix('\n').ok_or("it is cut short")?;
    let (head, crc) = text.rsplit_once("\ncrc ").ok_or("it has no checksum")?;
    let crc = u32::from_str_radix(crc, 16).map_err(|_| "its checksum is not hex")?;
    if crc != crc32fast::hash(format!("{head}\n").as_bytes()) {
        return Err("it fails its checksum".into());
    }
    let mut lines = head.lines();
    if lines.next() != Some("hakase ledger 1") {
        return Err("it is of an unknown format".into());
    }
    let mut field = |name: &str| {
        lines
            .next()
            .and_then(|line| line.strip_prefix(name))
            .and_then(|rest| rest.strip_prefix(' '))
            .map(str::to_string)
            .ok_or_else(|| format!("it has no {name} line"))
    };
    let run = field("run")?;
    let mut number = |name: &str| {
        field(name)?
            .parse::<u64>()
            .map_err(|_| format!("its {name} line is not a number"))
    };
    let settled = number("settled")?;
    let results = number("results")?;
    let finished = match number("finished")? {
        0 => false,
        1 => true,
        _ => return Err("its finished line is neither 0 nor 1".into()),
    };
    Ok((
        run,
        Tally {
            settled,
            results,
            finished,
        },
    ))
}

/// Reads the ledger of the database at `path`.
fn read_ledger(path: &Path) -> LedgerRead {
    match std::fs::read_to_string(path.join(LEDGER_FILE)) {
        Ok(text) => match parse_ledger(&text) {
            Ok((run, tally)) => LedgerRead::Found { run, tally },
            Err(why) => LedgerRead::Unreadable(why),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => LedgerRead::Absent,
        Err(e) => LedgerRead::Unreadable(e.to_string()),
    }
}

/// What names a run in its ledger: its game's fingerprint and options, hashed. A ledger whose
/// database lost its manifest is still matched to the run asked for.
fn run_key(fingerprint: &str, config: &SolverConfig) -> String {
    use sha2::{Digest, Sha256};
    let options = serde_json::to_string(config).unwrap_or_default();
    let digest = Sha256::digest(format!("{fingerprint} {options}").as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// A value as stored from format 3 on: a CRC-32 of its bytes (little-endian), then the
/// bytes. sled checks its own log, but a value handed back damaged (or written by a bug or
/// another tool) must be found and recomputed, not decoded into a wrong total.
fn seal(payload: &[u8]) -> Vec<u8> {
    let mut sealed = Vec::with_capacity(payload.len() + 4);
    sealed.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    sealed.extend_from_slice(payload);
    sealed
}

/// The bytes under a seal, if the seal holds.
fn unseal(bytes: &[u8]) -> Option<&[u8]> {
    let (crc, payload) = bytes.split_first_chunk::<4>()?;
    (u32::from_le_bytes(*crc) == crc32fast::hash(payload)).then_some(payload)
}

/// Decodes a whole bincode value (trailing bytes are damage too).
fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    match bincode::serde::decode_from_slice(bytes, bincode_config()) {
        Ok((value, read)) if read == bytes.len() => Ok(value),
        Ok((_, read)) => Err(format!("{} bytes after the value", bytes.len() - read)),
        Err(e) => Err(e.to_string()),
    }
}

/// True when a settled first guess's key and value read back whole and agree.
fn settled_ok(key: &[u8], payload: &[u8]) -> bool {
    key.len() == 8
        && decode::<FirstGuessValue>(payload)
            .is_ok_and(|value| key[4..] == value.guess.to_be_bytes())
}

/// True when a result's key and value read back whole.
fn result_ok(key: &[u8], payload: &[u8]) -> bool {
    JobId::from_bytes(key).is_ok() && decode::<StoredResult>(payload).is_ok()
}

/// What a scan of the sealed trees found.
#[derive(Debug, Default)]
struct Scan {
    settled: u64,
    settled_bad: u64,
    results: u64,
    results_bad: u64,
    resealed: u64,
}

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
    /// The run's name in its ledger (see [`run_key`]).
    run_key: String,
    /// Settled first guesses stored (in memory, flushed or not).
    settled_count: AtomicU64,
    /// Results stored (in memory, flushed or not).
    results_count: AtomicU64,
    /// The tally last written to the ledger; its lock orders every ledger write.
    ledger: Mutex<Option<Tally>>,
    /// What the open read back.
    reopened: Reopened,
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

fn describe(game: &str, fingerprint: &str, config: &SolverConfig, scope: &RunScope) -> String {
    let options = serde_json::to_string(config).unwrap_or_default();
    let settles = match scope {
        RunScope::Best => String::new(),
        RunScope::RankAll => ", ranking every first guess".into(),
        RunScope::Listed(list) => format!(", ranking {} listed first guesses", list.len()),
    };
    format!("game {game} (fingerprint {fingerprint}) with options {options}{settles}")
}

impl Store {
    /// Opens or creates the database at `path` for `game` under `config`, searching for the
    /// best first guess. A database of another game or other options is refused, naming both.
    pub fn open(path: &Path, game: &Game, config: &SolverConfig) -> Result<Store, ClusterError> {
        Store::open_scoped(path, game, config, &RunScope::Best)
    }

    /// [`Store::open`] for a run that settles `scope`; a database of another scope is
    /// refused like one of another game.
    pub fn open_scoped(
        path: &Path,
        game: &Game,
        config: &SolverConfig,
        scope: &RunScope,
    ) -> Result<Store, ClusterError> {
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
        let key = run_key(game.fingerprint(), config);
        let ledger = read_ledger(path);
        let fresh = |started| Manifest {
            version: VERSION,
            game: game.name().to_string(),
            fingerprint: game.fingerprint().to_string(),
            config: config.clone(),
            started,
            updated: unix_now(),
            finished: false,
            audit_key: Some(new_audit_key()),
            scope: scope.clone(),
        };
        let (manifest, stored_version, manifest_lost) = match meta.get("manifest").map_err(err)? {
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
                if stored.fingerprint != game.fingerprint()
                    || stored.config != *config
                    || stored.scope != *scope
                {
                    return Err(ClusterError::Mismatch {
                        path: path.to_path_buf(),
                        stored: describe(
                            &stored.game,
                            &stored.fingerprint,
                            &stored.config,
                            &stored.scope,
                        ),
                        requested: describe(game.name(), game.fingerprint(), config, scope),
                    });
                }
                let mut stored = stored;
                if stored.audit_key.is_none() && !stored.finished {
                    stored.audit_key = Some(new_audit_key());
                }
                let version = stored.version;
                (stored, version, false)
            }
            // No manifest, but a ledger that counts stored work: sled dropped the whole log.
            None => match &ledger {
                LedgerRead::Found { run, tally } if *tally != Tally::default() => {
                    if *run != key {
                        return Err(ClusterError::Damaged {
                            path: path.to_path_buf(),
                            why: "its manifest is lost, and its ledger is of another game or \
                                  other options"
                                .into(),
                        });
                    }
                    (fresh(unix_now()), VERSION, true)
                }
                _ => (fresh(unix_now()), VERSION, false),
            },
        };
        let mut store = Store {
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
            run_key: key,
            settled_count: AtomicU64::new(0),
            results_count: AtomicU64::new(0),
            ledger: Mutex::new(None),
            reopened: Reopened::default(),
        };
        store.convert_legacy_jobs()?;
        // sled may panic on damaged pages the open did not touch: the scan reads them all.
        let scan = hakase_worker::sled_guard::catch(|| store.scan(stored_version < SEALED))
            .map_err(|why| ClusterError::Damaged {
                path: path.to_path_buf(),
                why: format!("sled failed reading it: {why}"),
            })??;
        store.reopened = store.reconcile(&scan, &ledger, stored_version, manifest_lost)?;
        store.settled_count.store(scan.settled, Ordering::SeqCst);
        store.results_count.store(scan.results, Ordering::SeqCst);
        store
            .manifest
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .version = VERSION;
        store.write_manifest()?;
        if !store.reopened.damage.is_empty() {
            store.record_damage(&store.reopened.damage)?;
        }
        // Makes the removals and reseals durable, then writes the ledger for them.
        store.flush()?;
        Ok(store)
    }

    /// Checks every result and settled first guess, dropping those that fail (so they are
    /// recomputed) and sealing format 2's bare ones (`legacy`). Nothing else writes before
    /// this ends, so a crash midway only repeats it next time.
    fn scan(&self, legacy: bool) -> Result<Scan, ClusterError> {
        let (settled, settled_bad, resealed_settled) =
            self.scan_tree(&self.settled, legacy, settled_ok)?;
        let (results, results_bad, resealed_results) =
            self.scan_tree(&self.results, legacy, result_ok)?;
        let scan = Scan {
            settled,
            settled_bad,
            results,
            results_bad,
            resealed: resealed_settled + resealed_results,
        };
        if scan.resealed > 0 {
            tracing::info!(
                values = scan.resealed,
                "sealed the results of a format {} run database with checksums",
                SEALED - 1
            );
        }
        Ok(scan)
    }

    /// One tree of [`Store::scan`]: (intact, dropped, resealed).
    fn scan_tree(
        &self,
        tree: &sled::Tree,
        legacy: bool,
        valid: fn(&[u8], &[u8]) -> bool,
    ) -> Result<(u64, u64, u64), ClusterError> {
        let (mut reseal, mut drop) = (Vec::new(), Vec::new());
        let mut intact = 0;
        for item in tree.iter() {
            let (key, value) = item.map_err(|e| self.err(e))?;
            match unseal(&value) {
                Some(payload) if valid(&key, payload) => intact += 1,
                _ if legacy && valid(&key, &value) => reseal.push((key, seal(&value))),
                _ => drop.push(key),
            }
        }
        let (resealed, dropped) = (reseal.len() as u64, drop.len() as u64);
        for (key, sealed) in reseal {
            tree.insert(key, sealed).map_err(|e| self.err(e))?;
        }
        for key in drop {
            tree.remove(key).map_err(|e| self.err(e))?;
        }
        Ok((intact + resealed, dropped, resealed))
    }

    /// Compares what the scan found with what the ledger says was stored.
    fn reconcile(
        &self,
        scan: &Scan,
        ledger: &LedgerRead,
        stored_version: u32,
        manifest_lost: bool,
    ) -> Result<Reopened, ClusterError> {
        let present = Tally {
            settled: scan.settled + scan.settled_bad,
            results: scan.results + scan.results_bad,
            finished: self
                .meta
                .contains_key("solution")
                .map_err(|e| self.err(e))?,
        };
        let mut damage = Damage {
            settled_unreadable: scan.settled_bad,
            results_unreadable: scan.results_bad,
            ..Damage::default()
        };
        let mut unchecked = None;
        match ledger {
            LedgerRead::Found { run, tally } if *run == self.run_key => {
                damage.settled_lost = tally.settled.saturating_sub(present.settled);
                damage.results_lost = tally.results.saturating_sub(present.results);
                damage.solution_lost = tally.finished && !present.finished;
            }
            LedgerRead::Found { .. } => {
                unchecked = Some(format!("its ledger {LEDGER_FILE} is of another run"));
            }
            LedgerRead::Unreadable(why) => {
                unchecked = Some(format!("its ledger {LEDGER_FILE} cannot be read: {why}"));
            }
            LedgerRead::Absent if present == Tally::default() && !manifest_lost => {}
            LedgerRead::Absent if stored_version < SEALED => {
                unchecked = Some(format!(
                    "it was written by an older hakase (format {stored_version}), which kept \
                     no ledger"
                ));
            }
            LedgerRead::Absent => {
                unchecked = Some(format!("its ledger {LEDGER_FILE} is missing"));
            }
        }
        if !damage.is_empty() {
            tracing::warn!(
                db = %self.path.display(),
                settled_unreadable = damage.settled_unreadable,
                settled_lost = damage.settled_lost,
                results_unreadable = damage.results_unreadable,
                results_lost = damage.results_lost,
                solution_lost = damage.solution_lost,
                "the run database is damaged: what cannot be read is recomputed"
            );
        }
        if let Some(why) = &unchecked {
            tracing::warn!(db = %self.path.display(), "losses cannot be checked: {why}");
        }
        Ok(Reopened {
            settled: scan.settled,
            results: scan.results,
            damage,
            unchecked,
        })
    }

    /// Adds `damage` to the run's account of damage found (kept, so it is not forgotten once
    /// the damaged work is recomputed). An unreadable account is started over.
    fn record_damage(&self, damage: &Damage) -> Result<(), ClusterError> {
        let mut total = self.damage_history().unwrap_or_default();
        total.add(damage);
        let bytes = serde_json::to_vec(&total).map_err(|e| self.corrupt("damage", e))?;
        self.meta
            .insert(DAMAGE_KEY, bytes)
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// What opening the run read back and what it found damaged (and dropped, so that the
    /// run recomputes it).
    pub fn reopened(&self) -> &Reopened {
        &self.reopened
    }

    /// All the damage found by the opens of this run so far (nothing when none was).
    pub fn damage_history(&self) -> Result<Damage, ClusterError> {
        match self.meta.get(DAMAGE_KEY).map_err(|e| self.err(e))? {
            Some(bytes) => serde_json::from_slice(&bytes).map_err(|e| self.corrupt("damage", e)),
            None => Ok(Damage::default()),
        }
    }

    /// The tally as it stands in memory (read before a flush, it is on disk after it).
    fn tally(&self) -> Tally {
        Tally {
            settled: self.settled_count.load(Ordering::SeqCst),
            results: self.results_count.load(Ordering::SeqCst),
            finished: self
                .manifest
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .finished,
        }
    }

    /// Writes the ledger (through a temporary file and a rename, so it is whole or old). Not
    /// synced: a ledger that reaches the disk late only counts less than is stored, which
    /// hides nothing the next flush does not record.
    fn write_ledger(&self, last: &mut Option<Tally>, tally: Tally) -> Result<(), ClusterError> {
        if *last == Some(tally) {
            return Ok(());
        }
        let file = self.path.join(LEDGER_FILE);
        let temporary = self.path.join(LEDGER_TEMP);
        let io = |source| ClusterError::Io {
            path: file.clone(),
            source,
        };
        std::fs::write(&temporary, ledger_text(&self.run_key, tally)).map_err(io)?;
        std::fs::rename(&temporary, &file).map_err(io)?;
        *last = Some(tally);
        Ok(())
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
            let result: StoredResult = self.unsealed("a result", &value)?;
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
    pub fn remove_result(&self, id: JobId) -> Result<(), ClusterError> {
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
        let stored: StoredResult = self.unsealed("a result", &bytes)?;
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
            let settled: FirstGuessValue = self.unsealed("a settled first guess", &value)?;
            out.push((u32::from_be_bytes(budget), settled));
        }
        Ok(out)
    }

    /// Writes settled first guesses (at budget, value) in one batch; durable after the next
    /// [`Store::flush`].
    pub fn put_settled(&self, settled: &[(u32, FirstGuessValue)]) -> Result<(), ClusterError> {
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
    pub fn put_ranking(&self, ranking: &[FirstGuessValue]) -> Result<(), ClusterError> {
        let bytes = serde_json::to_vec(ranking).map_err(|e| self.corrupt("ranking", e))?;
        self.meta
            .insert("ranking", bytes)
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
    ) -> Result<(), ClusterError> {
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
        super::ranking_file::write(&self.path, &snapshot).map_err(|source| ClusterError::Io {
            path: self.path.join(super::ranking_file::RANKING_FILE),
            source,
        })
    }

    /// Stores the finished run's solution and marks the run finished.
    pub fn put_solution(&self, solution: &Solution) -> Result<(), ClusterError> {
        let bytes = serde_json::to_vec(solution).map_err(|e| self.corrupt("solution", e))?;
        self.meta
            .insert("solution", bytes)
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
        self.commit.sync(|| self.flush())
    }

    /// Waits until everything written so far is on disk, then records in the ledger how much
    /// that is.
    pub fn flush(&self) -> Result<(), ClusterError> {
        let mut last = self.ledger.lock().unwrap_or_else(|p| p.into_inner());
        // Read before the flush: everything it counts is on disk once the flush returns.
        let tally = self.tally();
        self.db.flush().map_err(|e| self.err(e))?;
        self.write_ledger(&mut last, tally)
    }

    /// Decodes a sealed value that the open's scan found intact; failing now, it was damaged
    /// while the run was open, and the error says so.
    fn unsealed<T: DeserializeOwned>(&self, what: &str, bytes: &[u8]) -> Result<T, ClusterError> {
        let payload = unseal(bytes).ok_or_else(|| self.corrupt(what, "it fails its checksum"))?;
        decode(payload).map_err(|why| self.corrupt(what, why))
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

    fn bound(beta: u32) -> JobAnswer {
        JobAnswer {
            beta,
            outcome: Outcome::AtLeast(beta + 1),
            tree: None,
            nodes: u64::from(beta) * 3,
            millis: 7,
        }
    }

    fn settled_value(guess: u32) -> FirstGuessValue {
        FirstGuessValue {
            guess,
            outcome: Outcome::AtLeast(900 + guess),
        }
    }

    /// Flips one bit of the stored value under `key` in `tree`, through sled directly, as
    /// damage on disk that sled did not catch would leave it.
    fn flip_value(dir: &Path, tree: &str, key: &[u8], at: usize) {
        let db = hakase_worker::sled_guard::open(dir).expect("sled");
        let tree = db.open_tree(tree).expect("tree");
        let mut value = tree.get(key).expect("read").expect("a value").to_vec();
        value[at] ^= 0x10;
        tree.insert(key, value).expect("write");
        db.flush().expect("flush");
    }

    #[test]
    fn a_flipped_byte_in_one_result_is_counted_and_the_others_load_exactly() {
        let dir = scratch("flip-result");
        let game = load_preset("pokemon-gen:1").expect("preset");
        let config = SolverConfig::default();
        let ids: Vec<JobId> = (1..=5).map(|k| JobId(k * 1_000_003)).collect();
        {
            let store = Store::open(&dir, &game, &config).expect("store");
            for (k, id) in ids.iter().enumerate() {
                store
                    .put_result(*id, &bound(300 + k as u32))
                    .expect("result");
            }
            store.flush().expect("flush");
        }
        // A byte of the payload of the third result (after its 4-byte checksum).
        flip_value(&dir, "results", &ids[2].to_bytes(), 5);
        let store = Store::open(&dir, &game, &config).expect("a damaged value is no error");
        let reopened = store.reopened();
        assert_eq!(
            reopened.damage,
            Damage {
                results_unreadable: 1,
                ..Damage::default()
            }
        );
        assert_eq!((reopened.results, reopened.unchecked.as_deref()), (4, None));
        let expected: Vec<(JobId, Outcome, u32)> = ids
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != 2)
            .map(|(k, id)| (*id, bound(300 + k as u32).outcome, 300 + k as u32))
            .collect();
        assert_eq!(store.load_results().expect("results"), expected);
        // The damaged value is dropped (so it is recomputed) and the account is kept.
        assert_eq!(store.tree(ids[2]).expect("no value, no error"), None);
        drop(store);
        let store = Store::open(&dir, &game, &config).expect("store");
        assert_eq!(store.reopened().damage, Damage::default());
        assert_eq!(
            store.damage_history().expect("history").results_unreadable,
            1
        );
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_flipped_byte_in_a_settled_first_guess_is_counted() {
        let dir = scratch("flip-settled");
        let game = load_preset("pokemon-gen:1").expect("preset");
        let config = SolverConfig::default();
        let values: Vec<(u32, FirstGuessValue)> = (0..6).map(|g| (10, settled_value(g))).collect();
        {
            let store = Store::open(&dir, &game, &config).expect("store");
            store.put_settled(&values).expect("settled");
            store.flush().expect("flush");
        }
        let mut key = 10u32.to_be_bytes().to_vec();
        key.extend_from_slice(&4u32.to_be_bytes());
        // The checksum itself damaged this time.
        flip_value(&dir, "settled", &key, 1);
        let store = Store::open(&dir, &game, &config).expect("store");
        assert_eq!(store.reopened().damage.settled(), 1);
        assert_eq!(store.reopened().damage.settled_unreadable, 1);
        let mut expected = values.clone();
        expected.remove(4);
        assert_eq!(store.load_settled().expect("settled"), expected);
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn values_gone_from_the_log_are_counted_by_the_ledger() {
        let dir = scratch("lost");
        let game = load_preset("pokemon-gen:1").expect("preset");
        let config = SolverConfig::default();
        let values: Vec<(u32, FirstGuessValue)> = (0..5).map(|g| (10, settled_value(g))).collect();
        {
            let store = Store::open(&dir, &game, &config).expect("store");
            store.put_settled(&values).expect("settled");
            store.put_result(JobId(5), &bound(400)).expect("result");
            store.flush().expect("flush");
        }
        // As sled leaves a log whose end it dropped: two values gone, no trace in the database.
        {
            let db = hakase_worker::sled_guard::open(&dir).expect("sled");
            let settled = db.open_tree("settled").expect("tree");
            let keys: Vec<_> = settled
                .iter()
                .keys()
                .take(2)
                .map(|k| k.expect("key"))
                .collect();
            for key in keys {
                settled.remove(key).expect("remove");
            }
            db.flush().expect("flush");
        }
        let store = Store::open(&dir, &game, &config).expect("store");
        assert_eq!(
            store.reopened().damage,
            Damage {
                settled_lost: 2,
                ..Damage::default()
            }
        );
        assert_eq!((store.reopened().settled, store.reopened().results), (3, 1));
        drop(store);
        // Reported once: the ledger now counts what is left.
        let store = Store::open(&dir, &game, &config).expect("store");
        assert!(store.reopened().damage.is_empty());
        assert_eq!(store.damage_history().expect("history").settled_lost, 2);
        drop(store);
        // A database whose whole log is gone, manifest and all, is still known as this run:
        // another game's request for it is refused as damaged, not started afresh, and this
        // run's counts it all as lost.
        {
            let db = hakase_worker::sled_guard::open(&dir).expect("sled");
            for tree in ["meta", "settled", "results"] {
                db.open_tree(tree).expect("tree").clear().expect("clear");
            }
            db.flush().expect("flush");
        }
        let other = load_preset("pokemon-gen:2").expect("preset");
        let err = Store::open(&dir, &other, &config).err().expect("refused");
        assert!(matches!(err, ClusterError::Damaged { .. }), "{err}");
        let store = Store::open(&dir, &game, &config).expect("store");
        assert_eq!(
            store.reopened().damage,
            Damage {
                settled_lost: 3,
                results_lost: 1,
                ..Damage::default()
            }
        );
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_removed_result_lowers_the_ledger_before_it_leaves_the_disk() {
        let dir = scratch("remove");
        let game = load_preset("pokemon-gen:1").expect("preset");
        let config = SolverConfig::default();
        {
            let store = Store::open(&dir, &game, &config).expect("store");
            for k in 1..=3 {
                store.put_result(JobId(k), &bound(300)).expect("result");
            }
            store.flush().expect("flush");
            store.remove_result(JobId(2)).expect("remove");
            // sled's own flush, not the store's: the ledger was lowered already.
            store.db().flush().expect("flush");
            // Written and never flushed by the store: not counted, no alarm either way.
            store.put_result(JobId(9), &bound(300)).expect("result");
        }
        let store = Store::open(&dir, &game, &config).expect("store");
        assert!(store.reopened().damage.is_empty(), "{:?}", store.reopened());
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unreadable_ledger_is_said_not_taken_for_damage() {
        let dir = scratch("ledger");
        let game = load_preset("pokemon-gen:1").expect("preset");
        let config = SolverConfig::default();
        {
            let store = Store::open(&dir, &game, &config).expect("store");
            store.put_result(JobId(1), &bound(300)).expect("result");
            store.flush().expect("flush");
        }
        let ledger = dir.join(LEDGER_FILE);
        let text = std::fs::read_to_string(&ledger).expect("a ledger");
        std::fs::write(&ledger, text.replace("results 1", "results 7")).expect("write");
        let store = Store::open(&dir, &game, &config).expect("store");
        assert!(store.reopened().damage.is_empty());
        let why = store.reopened().unchecked.clone().expect("said");
        assert!(why.contains("fails its checksum"), "{why}");
        drop(store);
        // The open wrote a good one again.
        let store = Store::open(&dir, &game, &config).expect("store");
        assert_eq!(store.reopened().unchecked, None);
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_format_2_database_is_sealed_and_its_damage_counted() {
        let dir = scratch("format2");
        let game = load_preset("pokemon-gen:1").expect("preset");
        let config = SolverConfig::default();
        let values: Vec<(u32, FirstGuessValue)> = (0..3).map(|g| (10, settled_value(g))).collect();
        {
            let store = Store::open(&dir, &game, &config).expect("store");
            store.put_settled(&values).expect("settled");
            store.put_result(JobId(1), &bound(300)).expect("result");
            store.put_result(JobId(2), &bound(310)).expect("result");
            store.flush().expect("flush");
        }
        // As format 2 wrote them: bare values, no ledger; one result cut short.
        {
            let db = hakase_worker::sled_guard::open(&dir).expect("sled");
            for name in ["settled", "results"] {
                let tree = db.open_tree(name).expect("tree");
                for item in tree.iter() {
                    let (key, value) = item.expect("item");
                    let bare = unseal(&value).expect("sealed").to_vec();
                    tree.insert(key, bare).expect("write");
                }
            }
            let results = db.open_tree("results").expect("tree");
            let bare = results
                .get(JobId(2).to_bytes())
                .expect("read")
                .expect("value");
            results
                .insert(JobId(2).to_bytes(), &bare[..bare.len() - 1])
                .expect("write");
            set_version(&db, 2);
        }
        std::fs::remove_file(dir.join(LEDGER_FILE)).expect("no ledger in format 2");
        let store = Store::open(&dir, &game, &config).expect("a format 2 database opens");
        assert_eq!(store.manifest().version, VERSION);
        assert_eq!(
            store.reopened().damage,
            Damage {
                results_unreadable: 1,
                ..Damage::default()
            }
        );
        let why = store.reopened().unchecked.clone().expect("said");
        assert!(why.contains("older hakase (format 2)"), "{why}");
        assert_eq!(store.load_settled().expect("settled"), values);
        assert_eq!(
            store.load_results().expect("results"),
            vec![(JobId(1), Outcome::AtLeast(301), 300)]
        );
        for item in store.results.iter().chain(store.settled.iter()) {
            let (_, value) = item.expect("item");
            assert!(unseal(&value).is_some(), "every value is sealed now");
        }
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
