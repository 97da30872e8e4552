//! A run's ranking of first guesses as it stands, in a small JSON file inside its directory.
//!
//! sled locks a database for the one process that has it open, so while a solve or a
//! coordinator works on a run nobody else can read its store. A night-long ranking must still
//! answer "what is adieu worth, and where does it rank?" before it ends: the process that
//! holds the run rewrites this file (atomically, by rename) as first guesses settle, and
//! `hakase ranking` reads it whether or not the run is held.

use std::io;
use std::path::{Path, PathBuf};

use hakase_core::solver::{FirstGuessValue, SolverConfig};
use serde::{Deserialize, Serialize};

use super::RunScope;

/// The file's name inside the run directory.
pub const RANKING_FILE: &str = "hakase-ranking.json";

/// The format written; a reader refuses newer ones instead of misreading them.
pub const RANKING_FILE_VERSION: u32 = 1;

/// What the file holds: enough to print the ranking without opening the database.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankingSnapshot {
    /// Format of the file.
    pub version: u32,
    /// The game's name.
    pub game: String,
    /// The game's fingerprint, so a reader rebuilds the same word lists.
    pub fingerprint: String,
    /// The solver options of the run.
    pub config: SolverConfig,
    /// Which first guesses the run settles.
    pub scope: RunScope,
    /// First guesses the run settles in all at this budget (0 while not yet known).
    pub first_guesses: usize,
    /// The guess budget the values are at.
    pub guesses_left: u32,
    /// True once the run's solution is stored: the values are final.
    pub finished: bool,
    /// Unix seconds of this snapshot.
    pub updated: u64,
    /// Every first guess settled so far, best first (exact values before bounds equal to
    /// them, then search order): the same order as a finished solution's ranking.
    pub values: Vec<FirstGuessValue>,
}

/// Why the file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RankingFileError {
    /// Reading failed.
    #[error("reading {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The file is not a ranking this hakase reads.
    #[error("{path} is not a readable ranking: {why}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        why: String,
    },
}

/// Writes `snapshot` into the run directory `dir`, replacing the last one at once: a reader
/// sees the old file or the new one, never half of one.
pub fn write(dir: &Path, snapshot: &RankingSnapshot) -> io::Result<()> {
    let bytes = serde_json::to_vec(snapshot).map_err(io::Error::other)?;
    let tmp = dir.join(format!("{RANKING_FILE}.tmp"));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, dir.join(RANKING_FILE))
}

/// Reads the ranking file of the run directory `dir`; `None` when the run has none (a run
/// made before the file existed, or one that has settled nothing yet).
pub fn read(dir: &Path) -> Result<Option<RankingSnapshot>, RankingFileError> {
    let path = dir.join(RANKING_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(RankingFileError::Io { path, source }),
    };
    let snapshot: RankingSnapshot =
        serde_json::from_slice(&bytes).map_err(|e| RankingFileError::Corrupt {
            path: path.clone(),
            why: e.to_string(),
        })?;
    if snapshot.version > RANKING_FILE_VERSION {
        return Err(RankingFileError::Corrupt {
            path,
            why: format!(
                "format {} is newer than this hakase reads ({RANKING_FILE_VERSION})",
                snapshot.version
            ),
        });
    }
    Ok(Some(snapshot))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hakase_core::solver::Outcome;

    fn snapshot() -> RankingSnapshot {
        RankingSnapshot {
            version: RANKING_FILE_VERSION,
            game: "pokemon-qiita2023".into(),
            fingerprint: "0123456789abcdef".into(),
            config: SolverConfig::default(),
            scope: RunScope::Listed(vec![3, 7]),
            first_guesses: 2,
            guesses_left: 10,
            finished: false,
            updated: 1,
            values: vec![FirstGuessValue {
                guess: 7,
                outcome: Outcome::Exact {
                    value: 964,
                    guess: 7,
                },
            }],
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hakase-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir
    }

    #[test]
    fn a_written_ranking_reads_back_and_a_missing_one_is_none() {
        let dir = scratch("ranking-roundtrip");
        assert!(read(&dir).expect("no file is no error").is_none());
        write(&dir, &snapshot()).expect("write");
        assert_eq!(read(&dir).expect("read"), Some(snapshot()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_damaged_or_newer_ranking_is_refused_by_name() {
        let dir = scratch("ranking-damaged");
        std::fs::write(dir.join(RANKING_FILE), b"{\"version\":").expect("write");
        let err = read(&dir).expect_err("damaged");
        assert!(err.to_string().contains(RANKING_FILE), "{err}");
        let mut newer = snapshot();
        newer.version = RANKING_FILE_VERSION + 1;
        write(&dir, &newer).expect("write");
        let err = read(&dir).expect_err("newer");
        assert!(err.to_string().contains("newer"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
