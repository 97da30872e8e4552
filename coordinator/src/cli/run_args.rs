//! Where runs live, spelled once: `--data DIR` ([`DataArgs`]) and `--run NAME|DIR` with
//! `--data` ([`RunArgs`]), flattened by every command that opens a run — the ones that read
//! runs and the ones that write them — so each flag means the same thing everywhere.

use std::path::{Path, PathBuf};

use clap::Args;
use hakase_runs::DEFAULT_DATA_DIR;

/// The data directory: one run per subdirectory.
#[derive(Debug, Clone, Default, Args)]
pub struct DataArgs {
    /// The data directory runs live in, one per subdirectory (default hakase-data, where
    /// `hakase solve` and `hakase coordinator` make their runs).
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
}

impl DataArgs {
    /// The data directory: --data, or hakase-data.
    pub fn dir(&self) -> PathBuf {
        self.data
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR))
    }
}

/// Which run a command opens: `--run` (alias `--db`) and the `--data` it is looked up in.
#[derive(Debug, Clone, Default, Args)]
pub struct RunArgs {
    /// The run: a run directory, or the name of one under --data (see `hakase runs`); --db
    /// is the same flag. A command that makes runs makes a new one at this path, or, without
    /// --run, under --data, named after the game and every option that changes the result
    /// (e.g. hakase-data/pokemon-today), so either solving command resumes the other's run.
    #[arg(long, visible_alias = "db", value_name = "NAME|DIR")]
    pub run: Option<String>,

    /// Where run names are looked up and new runs are made.
    #[command(flatten)]
    pub data: DataArgs,
}

impl RunArgs {
    /// The run as given, if one is.
    pub fn spec(&self) -> Option<&str> {
        self.run.as_deref()
    }

    /// The data directory: --data, or hakase-data.
    pub fn data_dir(&self) -> PathBuf {
        self.data.dir()
    }

    /// For commands that make or resume a run: the run --run names when it exists (a path,
    /// or a name under --data), else the path as given (as `--db` always took it), and
    /// without --run the directory `default` picks under --data.
    pub fn writer_dir(&self, default: impl FnOnce(&Path) -> PathBuf) -> PathBuf {
        let data = self.data_dir();
        match &self.run {
            Some(spec) => hakase_runs::resolve(spec, &data).unwrap_or_else(|_| PathBuf::from(spec)),
            None => default(&data),
        }
    }
}
