//! What can go wrong in a cluster run.

use std::path::PathBuf;

use thiserror::Error;

/// Errors of the coordinator's library.
#[derive(Debug, Error)]
pub enum ClusterError {
    /// The run database could not be opened, read or written.
    #[error("run database {path}: {source}")]
    Store {
        /// The database directory.
        path: PathBuf,
        /// sled's error.
        source: sled::Error,
    },
    /// A stored record could not be decoded (a newer or damaged database).
    #[error("run database {path}: cannot read {what}: {why}")]
    Corrupt {
        /// The database directory.
        path: PathBuf,
        /// Which record.
        what: String,
        /// The decoder's message.
        why: String,
    },
    /// The database files are damaged (sled panicked or found corruption opening them).
    #[error(
        "run {path} is damaged: {why}; its results can be recomputed: move the directory \
         away and run the same solve (or coordinator) command again"
    )]
    Damaged {
        /// The database directory.
        path: PathBuf,
        /// What sled said.
        why: String,
    },
    /// The database holds a run of another game or other options.
    #[error(
        "run database {path} holds a run of {stored}; this command asks for {requested}. \
         Use another --db directory, or delete {path} to start over"
    )]
    Mismatch {
        /// The database directory.
        path: PathBuf,
        /// The stored run: game, fingerprint and options.
        stored: String,
        /// The requested run.
        requested: String,
    },
    /// A job result that contradicts its job (wrong tree, wrong value).
    #[error("result rejected: {0}")]
    BadResult(String),
    /// A worker caught lying earlier asks again.
    #[error("worker {0} is quarantined: a result it sent was false; its results are being redone")]
    Quarantined(u64),
    /// A result for a job this run never created.
    #[error("unknown job {0}")]
    UnknownJob(String),
    /// A call under a worker id that this run never registered, or without that
    /// registration's secret or token (the coordinator's own id among them).
    #[error("worker {0} is not registered with this run under these credentials; register again")]
    UnknownWorker(u64),
    /// A result or heartbeat for a job the caller does not hold.
    #[error("job {0} is not leased to this worker")]
    NotHeld(String),
    /// Too many calls of one kind at once.
    #[error("busy: {0}")]
    Busy(String),
    /// The finished run's optimal tree could not be assembled from the stored results.
    #[error("cannot assemble the optimal tree: {0}")]
    Assembly(String),
    /// Serving or connecting failed.
    #[error("{0}")]
    Transport(String),
    /// A local file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The worker library failed.
    #[error(transparent)]
    Worker(#[from] hakase_worker::WorkerError),
}
