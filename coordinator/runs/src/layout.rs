//! The names inside a run directory: sled's trees and keys, the files beside the database,
//! and the format version. Every module of the run store names them from here.

/// The tree of the run's single records (manifest, solution, ranking, audit, damage account,
/// registered workers, the fixed first guess).
pub(super) const META_TREE: &str = "meta";
/// Job specs, written once per job.
pub(super) const SPECS_TREE: &str = "job_specs";
/// Job states, rewritten at every lease and result.
pub(super) const STATES_TREE: &str = "job_states";
/// Job results (sealed).
pub(super) const RESULTS_TREE: &str = "results";
/// Settled first guesses of a checkpointed run (sealed).
pub(super) const SETTLED_TREE: &str = "settled";
/// Which worker made each stored result.
pub(super) const CLAIMS_TREE: &str = "claims";
/// Workers caught lying.
pub(super) const QUARANTINE_TREE: &str = "quarantine";
/// Format 1's tree of whole job records.
pub(super) const LEGACY_JOBS: &str = "jobs";

/// The manifest, in `meta`.
pub(super) const MANIFEST_KEY: &str = "manifest";
/// The finished run's solution, in `meta`.
pub(super) const SOLUTION_KEY: &str = "solution";
/// The ranking of first guesses as it stands, in `meta`.
pub(super) const RANKING_KEY: &str = "ranking";
/// How the finished run was checked, in `meta`.
pub(super) const AUDIT_KEY: &str = "audit";
/// The next worker id to hand out, in `meta`.
pub(super) const NEXT_WORKER_KEY: &str = "next_worker";
/// Where worker records live in the `meta` tree: this prefix and the id.
pub(super) const WORKER_KEY: &[u8] = b"worker/";
/// Where the account of damage found so far lives in the `meta` tree.
pub(super) const DAMAGE_KEY: &str = "damage";
/// The first guess a `--first W` run is restricted to (UTF-8 text), in `meta`.
pub(super) const FIRST_KEY: &str = "first";
/// Where the jobs cut finer live in the `meta` tree: this prefix and the job id.
pub(super) const RECUT_KEY: &[u8] = b"recut/";

/// Format 3 seals every result and settled first guess with a CRC-32 (see
/// [`super::encoding::seal`]) and keeps a ledger beside the database; format 2 stored them
/// bare, and [`super::Store::open`] seals them. Format 2 keeps job specs and job states in
/// trees of their own; format 1 kept both in one record (tree `jobs`), which
/// [`super::Store::open`] converts.
pub(super) const VERSION: u32 = 3;

/// The first format whose results and settled first guesses are sealed.
pub(super) const SEALED: u32 = 3;

/// The ledger's file in the database directory, and the file it is written through (a rename
/// replaces it whole).
pub(super) const LEDGER_FILE: &str = "hakase-ledger";
pub(super) const LEDGER_TEMP: &str = "hakase-ledger.tmp";

/// The files sled keeps in a run directory: both present means a database is there (checked
/// without opening, which would create one).
pub(super) const SLED_FILES: [&str; 2] = ["conf", "db"];
