//! hakase-runs: where a run lives on disk, in one place: its directory's layout and name,
//! opening it to write ([`Store`]), reading it without holding it ([`read`]), the account of
//! how its result was checked ([`audit`]) and the ranking file read while another process
//! holds the run ([`ranking_file`]). The search engine and the query service both go through
//! this crate; nothing else opens a run's sled database. The sled helpers every sled database
//! of hakase goes through (the worker's memo too) live here: [`sled_guard`] turns sled's
//! panics on damaged files into errors, [`group_commit`] shares one disk sync among many
//! writers.
//!
//! A run directory (`<data>/<name>/`, see [`locate`]) holds:
//! - a sled database (`conf`, `db`, `blobs/`), with the trees named in [`layout`]: `meta`
//!   (manifest, solution, ranking, audit, damage account, workers, fixed first guess), the
//!   job specs and states, the results, the settled first guesses, the claims and the
//!   quarantine;
//! - the ledger `hakase-ledger`, which counts what the database holds, so damage that sled's
//!   recovery drops is found ([`ledger`]);
//! - the ranking file `hakase-ranking.json` ([`ranking_file`]);
//! - for a game of custom word lists, nothing more: the lists are read again from where the
//!   game's name says ([`custom`]).

#![warn(missing_docs)]

pub mod audit;
mod clock;
pub mod custom;
mod encoding;
pub mod error;
mod first;
pub mod group_commit;
mod layout;
mod ledger;
pub mod locate;
mod open;
pub mod ranking_file;
pub mod read;
mod readonly;
pub mod records;
pub mod sled_guard;
mod store;
#[cfg(test)]
mod tests;

pub use audit::AuditSummary;
pub use clock::{unix_millis, unix_now};
pub use error::RunError;
pub use locate::{check_data_dir, is_run_dir, resolve, run_dirs, run_name, DEFAULT_DATA_DIR};
pub use read::{list, load, load_path, rebuild_game, LoadedRun};
pub use records::{
    new_audit_key, Damage, JobRecord, JobStatus, Manifest, QuarantineRecord, Reopened, RunScope,
    StoredState, WorkerRecord,
};
pub use store::Store;
