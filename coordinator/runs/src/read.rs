//! Reading a run without holding it: the manifest, solution and fixed first guess read into
//! memory and the database closed at once, so readers never hold sled's lock (and a running
//! coordinator's lock is reported, not waited on). The game is rebuilt from its preset or its
//! custom lists and checked against the fingerprint the run stored.

use std::path::{Path, PathBuf};

use crate::sled_guard::{self, SledDamage};
use hakase_core::oracle::Oracle;
use hakase_core::rules::presets::load_preset;
use hakase_core::solver::Solution;
use hakase_core::{FeedbackTable, Game, GuessId};

use super::layout::{AUDIT_KEY, DAMAGE_KEY, MANIFEST_KEY, META_TREE, SOLUTION_KEY};
use super::locate::{is_run_dir, resolve, run_dirs, run_name};
use super::readonly::{self, ReadOnlyCopy};
use super::records::{Damage, Manifest, RunScope};
use super::{custom, first, RunError};
use crate::audit::AuditSummary;

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
    /// The first guesses whose stored row rests on an unchecked worker claim (ascending ids;
    /// empty for embedded runs, whose workers are trusted).
    pub unchecked: Vec<GuessId>,
}

impl LoadedRun {
    /// True when the stored solution is a proof (given [`LoadedRun::first`], if any).
    pub fn proven(&self) -> bool {
        self.solution.as_ref().is_some_and(|s| s.proven)
    }

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

    /// What the run's result may claim, in the words every view uses.
    pub fn claim(&self) -> String {
        self.result_label().claim(self.first.as_deref())
    }

    /// The label of the run's result as a whole (proven optimal, exact given its fixed first
    /// guess, or an upper bound; a proof resting on unchecked worker claims only if they
    /// hold): the one decision every view's claim is worded from.
    pub fn result_label(&self) -> hakase_core::label::Label {
        hakase_core::label::Label::of_result(self.proven(), self.first.is_some())
            .resting_on(self.unchecked.len())
    }

    /// The label of a chart of `first` from this run: a run restricted to its first guess
    /// proves the optimum only after that guess, so it is never "proven optimal" as a whole;
    /// the chart of the run's own best rests on its unchecked worker claims, as the run does
    /// (another first guess is solved here, on nobody's word).
    pub fn label(&self, first: hakase_core::GuessId) -> hakase_core::label::Label {
        let label = match (&self.first, self.proven()) {
            (Some(_), true) => hakase_core::label::Label::Exact,
            (Some(_), false) => hakase_core::label::Label::Heuristic,
            (None, _) => hakase_core::label::Label::of_first(self.solution.as_ref(), first),
        };
        let best = self.solution.as_ref().and_then(|s| s.best).map(|b| b.guess);
        if best == Some(first) {
            label.resting_on(self.unchecked.len())
        } else {
            label
        }
    }

    /// True when the result is a proof on nobody's word: proven, and resting on no unchecked
    /// worker claim (what a view's plain `proven` flag says).
    pub fn proven_outright(&self) -> bool {
        self.proven() && self.unchecked.is_empty()
    }

    /// The first guesses whose row rests on an unchecked worker claim, as the game writes
    /// them (what a tree document or a JSON report names).
    pub fn unchecked_names(&self) -> Vec<String> {
        self.unchecked
            .iter()
            .map(|&g| self.game.guess_text(g).to_string())
            .collect()
    }
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
        unchecked,
    } = read_records(path)?;
    let game = rebuild_game(path, &manifest.game, &manifest.fingerprint)?;
    // A ranking of chosen first guesses is optimal only given its best one, as a --first run
    // is given its own.
    let first = match (&manifest.scope, &solution) {
        (RunScope::Listed(_), Some(solution)) => solution
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
        unchecked,
    })
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
pub fn read_records(path: &Path) -> Result<RunRecords, RunError> {
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
            match e {
                SledDamage::Error(source) => RunError::Database {
                    path: path.to_path_buf(),
                    source,
                },
                other => damaged(other.to_string()),
            }
        }
    };
    // Another query may hold the lock for the few milliseconds its read takes: the open waits
    // a moment before concluding that a writer holds the run.
    let config = sled::Config::new().path(path).flush_every_ms(None);
    // Where this process may not write, the run is read from a private copy (kept until the
    // database is dropped below).
    let (db, _copy) = match sled_guard::open_config(&config) {
        Err(e) if readonly::refused_for_writing(&e) => {
            let copy = ReadOnlyCopy::of(path).map_err(|why| RunError::Unreadable {
                path: path.to_path_buf(),
                why,
            })?;
            let config = sled::Config::new().path(copy.path()).flush_every_ms(None);
            (
                sled_guard::open_config(&config).map_err(open_err)?,
                Some(copy),
            )
        }
        other => (other.map_err(open_err)?, None),
    };
    let (manifest, solution, first, damage, audit) = sled_guard::isolate(|| {
        let meta = db.open_tree(META_TREE)?;
        let first = first::read_first(&db)?;
        Ok::<_, sled::Error>((
            meta.get(MANIFEST_KEY)?,
            meta.get(SOLUTION_KEY)?,
            first,
            meta.get(DAMAGE_KEY)?,
            meta.get(AUDIT_KEY)?,
        ))
    })
    .map_err(open_err)?;
    drop(db);
    let corrupt = |what: &str, why: serde_json::Error| RunError::Corrupt {
        path: path.to_path_buf(),
        what: what.to_string(),
        why: why.to_string(),
    };
    let manifest: Manifest = match manifest {
        Some(bytes) => serde_json::from_slice(&bytes).map_err(|e| corrupt("the manifest", e))?,
        None => return Err(RunError::NotARun(path.to_path_buf())),
    };
    let solution: Option<Solution> = match solution {
        Some(bytes) => {
            Some(serde_json::from_slice(&bytes).map_err(|e| corrupt("the solution", e))?)
        }
        None => None,
    };
    // The marks must not be lost silently: an unreadable audit refuses the run.
    let unchecked = match audit {
        Some(bytes) => {
            serde_json::from_slice::<AuditSummary>(&bytes)
                .map_err(|e| corrupt("the audit", e))?
                .unchecked_guesses
        }
        None => Vec::new(),
    };
    Ok(RunRecords {
        manifest,
        solution,
        first,
        unchecked,
        // An unreadable account of damage is itself no reason to refuse the run.
        damage: damage
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default(),
    })
}

/// What [`read_records`] reads of a run.
pub struct RunRecords {
    /// What run it is.
    pub manifest: Manifest,
    /// The solution, once the run finished.
    pub solution: Option<Solution>,
    /// The first guess a `--first W` run is restricted to.
    pub first: Option<String>,
    /// The damage its opens found (and recomputed), summed over them.
    pub damage: Damage,
    /// The first guesses (ascending ids) whose stored row rests on a worker claim the
    /// coordinator's audit did not re-run (see [`AuditSummary::unchecked_guesses`]).
    pub unchecked: Vec<GuessId>,
}

/// Every run under `data` (see [`run_dirs`]). Runs that cannot be read are listed with their
/// error.
pub fn list(data: &Path) -> Vec<Result<LoadedRun, (PathBuf, Box<RunError>)>> {
    run_dirs(data)
        .into_iter()
        .map(|dir| load_path(&dir).map_err(|e| (dir, Box::new(e))))
        .collect()
}
