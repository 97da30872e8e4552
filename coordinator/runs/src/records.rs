//! The records a run keeps: what run it is ([`Manifest`], [`RunScope`]), its jobs, the
//! workers it knows and the damage its opens found.

use hakase_core::solver::SolverConfig;
use hakase_core::GuessId;
use hakase_proto::job::JobSpec;
use serde::{Deserialize, Serialize};

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

    pub(super) fn add(&mut self, other: &Damage) {
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
