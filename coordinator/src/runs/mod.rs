//! Where a run lives on disk, in one place: its directory's layout and name, opening it to
//! write ([`Store`]), reading it without holding it ([`read`]), the resumable solve on one
//! machine that checkpoints into it ([`checkpoint`]), a run of one fixed first guess
//! ([`first`]) and the ranking file read while another process holds the run
//! ([`ranking_file`]). The cluster and the query side both go through this module; nothing
//! else opens a run's sled database.
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

pub mod checkpoint;
pub mod custom;
mod encoding;
pub mod error;
pub mod first;
mod layout;
mod ledger;
pub mod locate;
mod open;
pub mod ranking_file;
pub mod read;
mod readonly;
pub mod records;
mod store;
#[cfg(test)]
mod tests;

pub use error::RunError;
pub use locate::{check_data_dir, is_run_dir, resolve, run_dirs, run_name, DEFAULT_DATA_DIR};
pub use open::Reopened;
pub use read::{list, load, load_path, rebuild_game, LoadedRun};
pub use records::{
    new_audit_key, Damage, JobRecord, JobStatus, Manifest, QuarantineRecord, RunScope, StoredState,
    WorkerRecord,
};
pub use store::{unix_millis, unix_now, Store};
