//! Checks made before a long command starts, so a bad flag fails in a second instead of
//! after hours of work. (A command stopped by a signal says so with
//! [`hakase_serving::Interrupted`].)

use crate::output::plural;
use std::fs::OpenOptions;
use std::path::Path;

use anyhow::{bail, Context, Result};
use hakase_core::Game;

/// Most threads (or jobs at once) a command accepts: more only wastes memory on stacks.
pub const MAX_THREADS: usize = 1024;

/// Fails unless `path` can be written: its directory exists and takes new files, and the
/// file itself (when it exists) is a writable file. Nothing is created or changed.
pub fn check_output_path(path: &Path, flag: &str) -> Result<()> {
    if path.is_dir() {
        bail!("{flag} {}: is a directory", path.display());
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        bail!(
            "{flag} {}: the directory {} does not exist",
            path.display(),
            parent.display()
        );
    }
    if path.exists() {
        OpenOptions::new()
            .append(true)
            .open(path)
            .with_context(|| format!("{flag} {}: cannot write it", path.display()))?;
        return Ok(());
    }
    // Create and remove a probe file: permission bits alone do not tell (ACLs, read-only
    // mounts, root).
    let probe = parent.join(format!(".hakase-write-probe-{}", std::process::id()));
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .with_context(|| {
            format!(
                "{flag} {}: cannot create files in {}",
                path.display(),
                parent.display()
            )
        })?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Refuses `--max-guesses` beyond the game's tries (it would promise what the game forbids)
/// and 0.
pub fn check_max_guesses(game: &Game, max_guesses: Option<u32>) -> Result<()> {
    match max_guesses {
        Some(0) => bail!("--max-guesses must be at least 1"),
        Some(n) if n > game.tries() => bail!(
            "--max-guesses {n} is more than the game's {} (use --tries to change the game)",
            plural(game.tries(), "try", "tries")
        ),
        _ => Ok(()),
    }
}

/// Checks `--threads`: between 1 and [`MAX_THREADS`].
pub fn check_threads(threads: Option<usize>) -> Result<()> {
    match threads {
        Some(n) if n == 0 || n > MAX_THREADS => {
            bail!("--threads {n}: give a number between 1 and {MAX_THREADS}")
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_paths_are_checked_without_creating_anything() {
        let dir = std::env::temp_dir().join(format!("hakase-guard-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("tree.json");
        check_output_path(&file, "--tree-out").unwrap();
        assert!(!file.exists());
        let missing = dir.join("no/such/tree.json");
        let err = check_output_path(&missing, "--tree-out").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "--tree-out {}: the directory {} does not exist",
                missing.display(),
                dir.join("no/such").display()
            )
        );
        let err = check_output_path(&dir, "--tree-out").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("--tree-out {}: is a directory", dir.display())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn threads_and_max_guesses_are_bounded() {
        assert!(check_threads(Some(MAX_THREADS)).is_ok());
        assert!(check_threads(Some(100_000)).is_err());
        assert!(check_threads(Some(0)).is_err());
        let game = hakase_core::rules::presets::load_preset("wordle").unwrap();
        assert!(check_max_guesses(&game, Some(6)).is_ok());
        assert_eq!(
            check_max_guesses(&game, Some(7)).unwrap_err().to_string(),
            "--max-guesses 7 is more than the game's 6 tries (use --tries to change the game)"
        );
    }
}
