//! The catalog a long-running server answers from, rescanned while it runs: runs that appear
//! or finish under a data directory, and tree files that change, are picked up without a
//! restart. A rescan reloads only what changed on disk and swaps the catalog in one step, so
//! requests never see half a scan.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::SystemTime;

use serde::Serialize;

use super::catalog::RunCatalog;
use super::treerun::load_tree_file;
use hakase_runs::{self as run, LoadedRun, RunError};

/// A tree file to serve, with the game to read it against when the file does not name one.
#[derive(Debug, Clone)]
pub struct TreeSource {
    /// The file.
    pub path: PathBuf,
    /// The game (`None`: the one a JSON document names).
    pub game: Option<String>,
}

/// Where a server finds its runs.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// Data directories: every run directory directly under each (or the directory itself).
    pub data_dirs: Vec<PathBuf>,
    /// Single run directories.
    pub runs: Vec<PathBuf>,
    /// Tree files.
    pub trees: Vec<TreeSource>,
}

/// A run that could not be loaded, and why (shown by `serve` and the `rescan` endpoint).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The run directory or tree file.
    pub path: PathBuf,
    /// The error, as the command line would print it.
    pub error: String,
}

/// What a rescan found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ScanReport {
    /// Names of the runs served after the scan.
    pub runs: Vec<String>,
    /// Runs that could not be loaded.
    pub skipped: Vec<Skipped>,
    /// Runs (re)loaded by this scan because they were new or changed on disk.
    pub reloaded: Vec<String>,
}

/// What the last scan saw of one path: its stamp and what loading it gave.
struct Seen {
    stamp: Stamp,
    loaded: Result<Arc<LoadedRun>, String>,
    /// Load again at the next scan even if nothing changed (the run was busy).
    retry: bool,
}

/// Loads a run directory (`game` `None`) or a tree file. The stamp is taken after loading:
/// a run loads only while no writer holds it, so what was read is what the stamp describes.
fn load(path: &Path, game: Option<&Option<String>>) -> Seen {
    let (loaded, retry) = match game {
        Some(game) => (
            load_tree_file(path, game.as_deref()).map_err(|e| e.to_string()),
            false,
        ),
        None => match run::load_path(path) {
            Ok(run) => (Ok(run), false),
            Err(e) => {
                let busy = matches!(e, RunError::InUse(_));
                (Err(hakase_proto::error::Chain(&e).to_string()), busy)
            }
        },
    };
    Seen {
        stamp: stamp_of(path),
        loaded: loaded.map(Arc::new),
        retry,
    }
}

/// Size and last change of the files of a run or tree: unchanged stamps are not reloaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    bytes: u64,
    modified: Option<SystemTime>,
}

/// The served runs, swapped whole by each rescan.
pub struct RescannedCatalog {
    sources: Option<Sources>,
    current: RwLock<Arc<RunCatalog>>,
    seen: Mutex<HashMap<PathBuf, Seen>>,
}

impl RescannedCatalog {
    /// A catalog that never changes (tests, embedded use).
    pub fn fixed(catalog: RunCatalog) -> RescannedCatalog {
        RescannedCatalog {
            sources: None,
            current: RwLock::new(Arc::new(catalog)),
            seen: Mutex::new(HashMap::new()),
        }
    }

    /// A catalog over `sources`, scanned once now.
    pub fn scan(sources: Sources) -> (RescannedCatalog, ScanReport) {
        let catalog = RescannedCatalog {
            sources: Some(sources),
            current: RwLock::new(Arc::new(RunCatalog::default())),
            seen: Mutex::new(HashMap::new()),
        };
        let report = catalog.rescan();
        (catalog, report)
    }

    /// The catalog as of the last scan.
    pub fn current(&self) -> Arc<RunCatalog> {
        match self.current.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Looks at every source again, reloads what is new or changed, and swaps the catalog.
    /// A fixed catalog reports what it holds.
    pub fn rescan(&self) -> ScanReport {
        let Some(sources) = &self.sources else {
            return ScanReport {
                runs: self.current().names(),
                ..ScanReport::default()
            };
        };
        let mut seen = match self.seen.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut report = ScanReport::default();
        let mut loaded = Vec::new();
        let mut next = HashMap::new();
        for (path, game) in candidates(sources) {
            let entry = match seen.remove(&path) {
                Some(old) if !old.retry && old.stamp == stamp_of(&path) => old,
                _ => {
                    let entry = load(&path, game.as_ref());
                    if let Ok(run) = &entry.loaded {
                        report.reloaded.push(run.name.clone());
                    }
                    entry
                }
            };
            match &entry.loaded {
                Ok(run) => loaded.push(run.clone()),
                Err(error) => report.skipped.push(Skipped {
                    path: path.clone(),
                    error: error.clone(),
                }),
            }
            next.insert(path, entry);
        }
        *seen = next;
        let catalog = RunCatalog::from_shared(loaded);
        report.runs = catalog.names();
        match self.current.write() {
            Ok(mut guard) => *guard = Arc::new(catalog),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(catalog),
        }
        report
    }
}

/// Every path to look at: run directories (game `None`) and tree files (game `Some`).
fn candidates(sources: &Sources) -> Vec<(PathBuf, Option<Option<String>>)> {
    let mut out = Vec::new();
    for data in &sources.data_dirs {
        out.extend(run::run_dirs(data).into_iter().map(|p| (p, None)));
    }
    out.extend(sources.runs.iter().map(|p| (p.clone(), None)));
    out.extend(
        sources
            .trees
            .iter()
            .map(|t| (t.path.clone(), Some(t.game.clone()))),
    );
    out
}

/// The stamp of a file, or of the files directly inside a directory.
fn stamp_of(path: &Path) -> Stamp {
    let mut stamp = Stamp {
        bytes: 0,
        modified: None,
    };
    let mut add = |meta: std::fs::Metadata| {
        stamp.bytes += meta.len();
        stamp.modified = stamp.modified.max(meta.modified().ok());
    };
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => {
            if let Ok(entries) = std::fs::read_dir(path) {
                for meta in entries.filter_map(|e| e.ok()?.metadata().ok()) {
                    add(meta);
                }
            }
        }
        Ok(meta) => add(meta),
        Err(_) => {}
    }
    stamp
}
