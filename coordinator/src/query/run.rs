//! Loading runs for queries: find a run by path or name, read its manifest and solution into
//! memory and close the database at once, so queries never hold sled's lock (and a running
//! coordinator's lock is reported, not waited on).

use std::path::{Path, PathBuf};

use hakase_core::presets::load_preset;
use hakase_core::query::{Oracle, QueryError};
use hakase_core::solver::{Solution, SolverConfig};
use hakase_core::{FeedbackTable, Game};
use serde::Serialize;
use thiserror::Error;

use super::custom;
use hakase_worker::sled_guard::{self, SledDamage};

use crate::cluster::store::{Damage, Manifest, DAMAGE_KEY};

/// The data directory used when no `--data` is given; each run lives in `<data>/<name>/`.
pub const DEFAULT_DATA_DIR: &str = "hakase-data";

/// Why a run could not be loaded.
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
    /// A directory without a run database in it.
    #[error("{0} is not a run database")]
    NotARun(PathBuf),
    /// sled's lock is held: someone is writing the run.
    #[error("run {0} is in use by another process (is its coordinator still running?)")]
    InUse(PathBuf),
    /// The database could not be opened or read.
    #[error("run {path}: {why}")]
    Open {
        /// The run directory.
        path: PathBuf,
        /// The underlying error.
        why: String,
    },
    /// A record could not be decoded.
    #[error("run {path}: cannot read {what}: {why}")]
    Corrupt {
        /// The run directory.
        path: PathBuf,
        /// Which record.
        what: &'static str,
        /// The decoder's message.
        why: String,
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
    /// The database files are damaged: sled panicked or found corruption reading them.
    #[error(
        "run {path} is damaged: {why}; its results can be recomputed: move the directory \
         away and run its solve again with the same game and options"
    )]
    Damaged {
        /// The run directory.
        path: PathBuf,
        /// What sled said.
        why: String,
    },
    /// The run is not finished: it has no optimal tree to answer from yet.
    #[error("run {0} is not finished: it has no optimal tree yet (resume its solve first)")]
    Unfinished(PathBuf),
    /// The run is finished but no strategy exists. The oracle's words are the message, not a `source()`, so they print once.
    #[error("run {path}: {error}")]
    Query {
        /// The run directory.
        path: PathBuf,
        /// What the oracle said.
        error: QueryError,
    },
}

/// A run read into memory: its manifest, its game rebuilt from the preset, and its solution.
pub struct LoadedRun {
    /// The name it is served under: the directory's name.
    pub name: String,
    /// The run directory.
    pub path: PathBuf,
    /// What the run is.
    pub manifest: Manifest,
    /// The game, verified against the manifest's fingerprint.
    pub game: Game,
    /// The game's feedback table.
    pub table: FeedbackTable,
    /// The stored solution, once the run finished.
    pub solution: Option<Solution>,
    /// The first guess the solve was restricted to (`solve --first W`): its result is optimal
    /// only given that guess.
    pub first: Option<String>,
    /// What its opens found damaged and recomputed, so that a listing can say so long after
    /// the resume that printed it.
    pub damage: Damage,
}

impl LoadedRun {
    /// An oracle over the run's optimal tree; an error says why the run cannot answer.
    pub fn oracle(&self) -> Result<Oracle<'_>, RunError> {
        let solution = self
            .solution
            .as_ref()
            .ok_or_else(|| RunError::Unfinished(self.path.clone()))?;
        Oracle::new(&self.game, &self.table, solution).map_err(|error| RunError::Query {
            path: self.path.clone(),
            error,
        })
    }

    /// True when the stored solution is a proof (given [`LoadedRun::first`], if any).
    pub fn proven(&self) -> bool {
        self.solution.as_ref().is_some_and(|s| s.proven)
    }

    /// What the run's result may claim, in the words every view uses.
    pub fn claim(&self) -> String {
        self.result_label().claim(self.first.as_deref())
    }

    /// The label of the run's result as a whole (proven optimal, exact given its fixed first
    /// guess, or an upper bound): the one decision every view's claim is worded from.
    pub fn result_label(&self) -> crate::output::Label {
        crate::output::Label::of_result(self.proven(), self.first.is_some())
    }

    /// The label of a chart of `first` from this run: a run restricted to its first guess
    /// proves the optimum only after that guess, so it is never "proven optimal" as a whole.
    pub fn label(&self, first: hakase_core::GuessId) -> crate::output::Label {
        match (&self.first, self.proven()) {
            (Some(_), true) => crate::output::Label::Exact,
            (Some(_), false) => crate::output::Label::Heuristic,
            (None, _) => crate::output::Label::of_first(self.solution.as_ref(), first),
        }
    }

    /// The one-line summary `hakase runs` and the `Runs` RPC show.
    pub fn summary(&self) -> RunSummary {
        let best = self.solution.as_ref().and_then(|s| s.best);
        RunSummary {
            name: self.name.clone(),
            path: self.path.clone(),
            game: self.manifest.game.clone(),
            fingerprint: self.manifest.fingerprint.clone(),
            options: Some(self.manifest.config.clone()),
            finished: self.manifest.finished && self.solution.is_some(),
            proven: self.proven(),
            first_guess_fixed: self.first.clone(),
            label: Some(self.result_label()),
            claim: self.claim(),
            first_guess: best.map(|b| self.game.guess_text(b.guess).to_string()),
            total: best.map(|b| u64::from(b.outcome.value())),
            answers: self.game.answers().len(),
            tries: self.game.tries(),
            damage: (!self.damage.is_empty()).then_some(self.damage),
            error: None,
        }
    }
}

/// What is known about a run at a glance.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    /// Name under the data directory.
    pub name: String,
    /// Directory.
    pub path: PathBuf,
    /// Game name.
    pub game: String,
    /// Game fingerprint.
    pub fingerprint: String,
    /// The solver options (`None` when the run could not be read).
    pub options: Option<SolverConfig>,
    /// True once the optimal tree is stored.
    pub finished: bool,
    /// True when the solution is a proof (given `first_guess_fixed`, if set).
    pub proven: bool,
    /// The first guess the solve was restricted to (`solve --first W`).
    pub first_guess_fixed: Option<String>,
    /// The kind of claim (proven-optimal, exact, heuristic): what a front end localises,
    /// so it never decides the claim itself (`None` when the run could not be read).
    pub label: Option<crate::output::Label>,
    /// What the result may claim ("proven optimal", "proven optimal GIVEN THE FIRST GUESS W").
    pub claim: String,
    /// The best first guess.
    pub first_guess: Option<String>,
    /// Its total.
    pub total: Option<u64>,
    /// Answers of the game.
    pub answers: usize,
    /// Tries of the game.
    pub tries: u32,
    /// What its opens found damaged and recomputed; `None` when nothing was.
    pub damage: Option<Damage>,
    /// Why the run could not be read, when it could not.
    pub error: Option<String>,
}

/// True when `dir` holds a sled database (checked without opening, which would create one).
pub fn is_run_dir(dir: &Path) -> bool {
    dir.join("conf").is_file() && dir.join("db").is_file()
}

/// Resolves `--run R`: a path to a run directory, or a name under the data directory.
pub fn resolve(spec: &str, data: &Path) -> Result<PathBuf, RunError> {
    let direct = PathBuf::from(spec);
    if is_run_dir(&direct) {
        return Ok(direct);
    }
    let named = data.join(spec);
    if is_run_dir(&named) {
        return Ok(named);
    }
    if direct.is_dir() {
        return Err(RunError::NotARun(direct));
    }
    if direct.is_file() {
        return Err(RunError::File(direct));
    }
    if named.is_dir() {
        return Err(RunError::NotARun(named));
    }
    Err(RunError::NotFound {
        spec: spec.to_string(),
        under: named,
    })
}

/// Loads `--run R` (see [`resolve`]).
pub fn load(spec: &str, data: &Path) -> Result<LoadedRun, RunError> {
    load_path(&resolve(spec, data)?)
}

/// Reads the manifest and solution of the run at `path` and closes the database.
pub fn load_path(path: &Path) -> Result<LoadedRun, RunError> {
    if !is_run_dir(path) {
        return Err(RunError::NotARun(path.to_path_buf()));
    }
    let RunRecords {
        manifest,
        solution,
        first,
        damage,
    } = read_records(path)?;
    let game = rebuild_game(path, &manifest.game, &manifest.fingerprint)?;
    // A ranking of chosen first guesses is optimal only given its best one, as a --first run
    // is given its own.
    let first = match (&manifest.scope, &solution) {
        (crate::cluster::store::RunScope::Listed(_), Some(solution)) => solution
            .best
            .map(|b| game.guess_text(b.guess).to_string())
            .or(first),
        _ => first,
    };
    let table = FeedbackTable::build(&game);
    Ok(LoadedRun {
        name: run_name(path),
        path: path.to_path_buf(),
        manifest,
        game,
        table,
        solution,
        first,
        damage,
    })
}

/// The name a run is served and listed under: its directory's name.
pub fn run_name(path: &Path) -> String {
    path.canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| path.display().to_string())
}

/// The game of the run at `path`, from its preset or its custom lists, checked against the
/// fingerprint the run stored.
pub fn rebuild_game(path: &Path, name: &str, fingerprint: &str) -> Result<Game, RunError> {
    let game = match load_preset(name) {
        Ok(game) => game,
        Err(_) => custom::rebuild(name, fingerprint, path).map_err(|why| RunError::CustomGame {
            path: path.to_path_buf(),
            game: name.to_string(),
            why,
        })?,
    };
    if game.fingerprint() != fingerprint {
        return Err(RunError::Fingerprint {
            path: path.to_path_buf(),
            game: name.to_string(),
            stored: fingerprint.to_string(),
            now: game.fingerprint().to_string(),
        });
    }
    Ok(game)
}

/// The manifest, solution and fixed first guess, read with sled and the database closed again before returning.
/// The records are the JSON the run store writes (`meta/manifest`, `meta/solution`). sled
/// panics on some damaged files: the open and the reads run isolated, so damage becomes
/// [`RunError::Damaged`] and never takes the process down.
pub(crate) fn read_records(path: &Path) -> Result<RunRecords, RunError> {
    let damaged = |why: String| RunError::Damaged {
        path: path.to_path_buf(),
        why,
    };
    let open_err = |e: SledDamage| {
        if e.is_locked() {
            RunError::InUse(path.to_path_buf())
        } else if matches!(e, SledDamage::Panicked(_))
            || matches!(e, SledDamage::Error(sled::Error::Corruption { .. }))
        {
            damaged(e.to_string())
        } else {
            RunError::Open {
                path: path.to_path_buf(),
                why: e.to_string(),
            }
        }
    };
    // Another query may hold the lock for the few milliseconds its read takes: the open waits
    // a moment before concluding that a writer holds the run.
    let config = sled::Config::new().path(path).flush_every_ms(None);
    let db = sled_guard::open_config(&config).map_err(open_err)?;
    let (manifest, solution, first, damage) = sled_guard::isolate(|| {
        let meta = db.open_tree("meta")?;
        let first = super::firstrun::read_first(&db)?;
        Ok::<_, sled::Error>((
            meta.get("manifest")?,
            meta.get("solution")?,
            first,
            meta.get(DAMAGE_KEY)?,
        ))
    })
    .map_err(open_err)?;
    drop(db);
    let corrupt = |what, why: String| RunError::Corrupt {
        path: path.to_path_buf(),
        what,
        why,
    };
    let manifest: Manifest = match manifest {
        Some(bytes) => {
            serde_json::from_slice(&bytes).map_err(|e| corrupt("the manifest", e.to_string()))?
        }
        None => return Err(RunError::NotARun(path.to_path_buf())),
    };
    let solution: Option<Solution> = match solution {
        Some(bytes) => Some(
            serde_json::from_slice(&bytes).map_err(|e| corrupt("the solution", e.to_string()))?,
        ),
        None => None,
    };
    Ok(RunRecords {
        manifest,
        solution,
        first,
        // An unreadable account of damage is itself no reason to refuse the run.
        damage: damage
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default(),
    })
}

/// What [`read_records`] reads of a run.
pub(crate) struct RunRecords {
    pub manifest: Manifest,
    pub solution: Option<Solution>,
    pub first: Option<String>,
    /// The damage its opens found (and recomputed), summed over them.
    pub damage: Damage,
}

/// Every run directory under `data`: `data` itself when it is a run, and each subdirectory
/// holding one, by name.
pub fn run_dirs(data: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if is_run_dir(data) {
        dirs.push(data.to_path_buf());
    }
    if let Ok(entries) = std::fs::read_dir(data) {
        let mut subdirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| is_run_dir(p))
            .collect();
        subdirs.sort();
        dirs.extend(subdirs);
    }
    dirs
}

/// Fails unless `data` is a directory, so a mistyped `--data` is reported instead of
/// listing nothing.
pub fn check_data_dir(data: &Path) -> Result<(), RunError> {
    match std::fs::metadata(data) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(RunError::DataIsFile(data.to_path_buf())),
        Err(_) => Err(RunError::NoDataDir(data.to_path_buf())),
    }
}

/// Every run under `data` (see [`run_dirs`]). Runs that cannot be read are listed with their
/// error.
pub fn list(data: &Path) -> Vec<Result<LoadedRun, (PathBuf, Box<RunError>)>> {
    run_dirs(data)
        .into_iter()
        .map(|dir| load_path(&dir).map_err(|e| (dir, Box::new(e))))
        .collect()
}
