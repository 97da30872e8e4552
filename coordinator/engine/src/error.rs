//! What can go wrong in a cluster run.

use std::path::PathBuf;

use thiserror::Error;

/// Errors of the coordinator's library.
#[derive(Debug, Error)]
pub enum ClusterError {
    /// The run directory could not be opened, read or written, or holds another run.
    #[error(transparent)]
    Run(#[from] hakase_runs::RunError),
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
    /// The run database cannot be written (the disk is full or failing): the coordinator
    /// takes no more work and stops; what is settled is kept.
    #[error(
        "storage fault: {0}; the coordinator takes no more work and stops (every settled result \
         is kept: free some space and run the same command again to resume)"
    )]
    StorageFault(String),
    /// Serving or connecting failed.
    #[error("{0}")]
    Transport(String),
    /// A local file could not be read.
    #[error("{path}")]
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
