//! What can go wrong finding, opening, reading or writing a run: one type for the whole run
//! directory, so a caller (the cluster, a query, `hakase runs`) matches the same variants
//! whichever way it reached the run.

use std::path::PathBuf;

use hakase_core::oracle::QueryError;
use thiserror::Error;

/// Why a run could not be found, opened, read or written.
#[derive(Debug, Error)]
pub enum RunError {
    /// Neither a run directory nor the name of one under the data directory.
    #[error("no run {spec:?}: not a run directory, and {under} does not exist")]
    NotFound {
        /// What the user asked for.
        spec: String,
        /// Where the name was looked up.
        under: PathBuf,
    },
    /// A file where a run directory or name was expected (a tree file, say).
    #[error(
        "{0} is a file, not a run: --run takes a run directory or the name of one under the \
         data directory (see `hakase runs`); a tree file is checked with `hakase verify FILE`"
    )]
    File(PathBuf),
    /// A data directory (`--data`) that does not exist: listing it would read as "no runs".
    #[error(
        "the data directory {0} does not exist (`hakase solve` stores its runs under \
         hakase-data/ by default; --data DIR lists another)"
    )]
    NoDataDir(PathBuf),
    /// A data directory (`--data`) that is a file.
    #[error("the data directory {0} is a file: --data takes a directory of runs (or one run)")]
    DataIsFile(PathBuf),
    /// A file where a run database (a directory) is to be opened or made (`--db FILE`): it
    /// is no damaged run, and nothing in it is to be moved away or recomputed.
    #[error(
        "{0} is a file, not a run database: --db takes a directory (made when missing); give \
         another path, or move the file away"
    )]
    DbIsFile(PathBuf),
    /// A directory without a run database in it.
    #[error("{0} is not a run database")]
    NotARun(PathBuf),
    /// sled's lock is held: someone is writing the run.
    #[error("run {0} is in use by another process (is its coordinator still running?)")]
    InUse(PathBuf),
    /// The database could not be opened, read or written.
    #[error("run database {path}")]
    Database {
        /// The database directory.
        path: PathBuf,
        /// sled's error.
        source: sled::Error,
    },
    /// A run this process may not write could not be copied to be read.
    #[error("run {path} is read-only here and could not be copied to read it: {why}")]
    Unreadable {
        /// The run directory.
        path: PathBuf,
        /// Why the copy failed.
        why: std::io::Error,
    },
    /// A stored record could not be decoded (a newer or damaged database).
    #[error("run {path}: cannot read {what}: {why}")]
    Corrupt {
        /// The run directory.
        path: PathBuf,
        /// Which record.
        what: String,
        /// The decoder's message.
        why: String,
    },
    /// The database files are damaged: sled panicked or found corruption reading them.
    #[error(
        "run {path} is damaged: {why}; its results can be recomputed: move the directory \
         away and run the same solve (or coordinator) command again"
    )]
    Damaged {
        /// The run directory.
        path: PathBuf,
        /// What sled said.
        why: String,
    },
    /// The database holds a run of another game, other options or another first guess.
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
    /// A file of the run directory (its ledger, its ranking file) could not be written.
    #[error("{path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The run's game is neither a preset nor custom word lists that can be read again.
    #[error("run {path} is of game {game:?}, whose word lists cannot be reloaded: {why}")]
    CustomGame {
        /// The run directory.
        path: PathBuf,
        /// The game's stored name.
        game: String,
        /// Why the preset did not load.
        why: String,
    },
    /// The preset changed since the run was made: its answers would be wrong.
    #[error(
        "run {path}: game {game} now has fingerprint {now}, but the run was made for {stored}; \
         its tree does not fit the current word lists"
    )]
    Fingerprint {
        /// The run directory.
        path: PathBuf,
        /// The game.
        game: String,
        /// Fingerprint stored in the run.
        stored: String,
        /// Fingerprint of the preset today.
        now: String,
    },
    /// The run is not finished: it has no optimal tree to answer from yet.
    #[error("run {0} is not finished: it has no optimal tree yet (resume its solve first)")]
    Unfinished(PathBuf),
    /// The run is finished but no strategy exists. The oracle's words are the message, not a
    /// `source()`, so they print once.
    #[error("run {path}: {error}")]
    Query {
        /// The run directory.
        path: PathBuf,
        /// What the oracle said.
        error: QueryError,
    },
}
