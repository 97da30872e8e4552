//! What can stop a worker.

use thiserror::Error;

/// Errors of the worker library. Messages leave out their cause, which the error chain
/// carries (`anyhow` prints it once; logs use [`Chain`]).
#[derive(Debug, Error)]
pub enum WorkerError {
    /// The memo database could not be opened or written.
    #[error("worker cache {path}")]
    Cache {
        /// The cache directory.
        path: String,
        /// sled's error.
        source: sled::Error,
    },
    /// The memo database is damaged (sled panicked or found corruption reading it).
    #[error(
        "worker cache {path} is damaged: {why}; it only holds a cache: delete the directory \
         (or give another --cache) and the worker starts with an empty one"
    )]
    CacheDamaged {
        /// The cache directory.
        path: String,
        /// What sled said.
        why: String,
    },
    /// The coordinator refused us for good (wrong token, different game, bad request).
    #[error("coordinator refused the worker: {0}")]
    Refused(String),
    /// The coordinator sent something we cannot use.
    #[error("bad message from the coordinator: {0}")]
    Protocol(String),
    /// The address or TLS settings are unusable.
    #[error("connection settings: {0}")]
    Connect(String),
    /// A local file (CA certificate, job log) could not be read or written.
    #[error("{path}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl From<hakase_proto::client::ClientError> for WorkerError {
    fn from(error: hakase_proto::client::ClientError) -> WorkerError {
        use hakase_proto::client::ClientError;
        match error {
            ClientError::Settings(why) => WorkerError::Connect(why),
            ClientError::Io { path, source } => WorkerError::Io { path, source },
        }
    }
}

pub use hakase_proto::error::Chain;
