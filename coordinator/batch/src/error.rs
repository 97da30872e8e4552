//! What can go wrong making or serving a batch, typed so the binary adds its own context
//! and tests can tell a mismatched directory from a disk error.

use std::path::PathBuf;

use hakase_serving::ServingError;
use thiserror::Error;

/// A batch that could not be opened, written or served.
#[derive(Debug, Error)]
pub enum BatchError {
    /// A file of the batch directory could not be read, written, synced or removed.
    #[error("{what} {}", path.display())]
    Io {
        /// What was being done ("reading", "appending to", …).
        what: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// A file of the batch directory is not the JSON it should be.
    #[error("reading {}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        #[source]
        source: serde_json::Error,
    },
    /// A puzzle or claim could not be written as JSON.
    #[error("writing JSON")]
    Encode(#[source] serde_json::Error),
    /// The directory holds a batch made with other options.
    #[error(
        "{} holds another batch ({game} seed {seed} count {count} levels {levels}); use another --out",
        dir.display()
    )]
    Another {
        /// The batch directory.
        dir: PathBuf,
        /// The stored batch's game.
        game: String,
        /// Its seed.
        seed: u64,
        /// Its day count.
        count: usize,
        /// Its level mix.
        levels: String,
    },
    /// Claims were appended before the claims file was opened.
    #[error("{} is not open", path.display())]
    ClaimsNotOpen {
        /// The claims file.
        path: PathBuf,
    },
    /// `--audit-fraction` is outside 0–1.
    #[error("--audit-fraction must be between 0 and 1, not {0}")]
    AuditFraction(f64),
    /// The serving shell refused to start (tokens, TLS, listener, runtime).
    #[error(transparent)]
    Serving(#[from] ServingError),
    /// The listen address could not be bound (a message only, as the coordinator reports
    /// it: `--json` calls it a failure, not an I/O error).
    #[error("{0}")]
    Listen(String),
    /// The server stopped with an error.
    #[error("serving the batch")]
    Transport(#[source] tonic::transport::Error),
    /// The server's shared state outlived it or was poisoned by a panic.
    #[error("{0}")]
    State(&'static str),
    /// The days were not all made: the server was stopped by a signal.
    #[error(transparent)]
    Interrupted(#[from] hakase_serving::Interrupted),
}

impl BatchError {
    /// An I/O error on `path` while doing `what`.
    pub(crate) fn io(
        what: &'static str,
        path: &std::path::Path,
    ) -> impl FnOnce(std::io::Error) -> BatchError {
        let path = path.to_path_buf();
        move |source| BatchError::Io { what, path, source }
    }
}

/// What the batch functions return.
pub type Result<T, E = BatchError> = std::result::Result<T, E>;
