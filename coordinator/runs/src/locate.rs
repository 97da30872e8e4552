//! Finding runs: the data directory, a run's directory from the name or path a user gives,
//! the name a run is listed and served under, and how a run of one first guess is named.

use std::path::{Path, PathBuf};

use hakase_core::solver::SolverConfig;

use super::layout::SLED_FILES;
use super::{RunError, RunScope};

/// The data directory used when no `--data` is given; each run lives in `<data>/<name>/`.
pub const DEFAULT_DATA_DIR: &str = "hakase-data";

/// True when `dir` holds a sled database (checked without opening, which would create one).
pub fn is_run_dir(dir: &Path) -> bool {
    SLED_FILES.iter().all(|file| dir.join(file).is_file())
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

/// The name a run is served and listed under: its directory's name.
pub fn run_name(path: &Path) -> String {
    path.canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| path.display().to_string())
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

/// The run directory of a `--first W` solve: the whole game's run name with `-first-W`.
pub fn first_run_dir(whole_game_dir: &Path, word: &str) -> PathBuf {
    let mut name = whole_game_dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    name.push_str("-first-");
    name.push_str(&word.replace(['/', ':', ' '], "-"));
    whole_game_dir.with_file_name(name)
}

/// The directory of a run of `scope` beside the whole game's run `whole` (e.g.
/// `hakase-data/wordle-rank-all`).
pub fn scoped_run_dir(whole: &Path, scope: &RunScope) -> PathBuf {
    let mut name = whole
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    name.push_str(&scope.dir_suffix());
    whole.with_file_name(name)
}

/// Where a run lives when `--run` is not given: its own directory under the data directory
/// `data` (`--data`, by default hakase-data), named after the game and every option that
/// changes the result, so runs never collide.
pub fn default_run_dir(data: &Path, game: &str, config: &SolverConfig) -> PathBuf {
    let name = game.replace([':', '/', ' '], "-") + &config.slug();
    data.join(name)
}
