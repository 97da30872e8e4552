//! Reloading runs of custom word lists. Such a run stores the game's name as the command
//! line wrote it — `PRESET (answers from FILE, guesses from FILE, N tries)` — and the game's
//! fingerprint, which hashes both lists and the tries. The command that makes the run keeps a
//! copy of each list in the run directory ([`keep_lists`]); rebuilding the game from those
//! copies and checking the fingerprint reloads the run exactly, or says why it cannot. A run
//! made before copies were kept is rebuilt from the recorded paths, except in a server
//! ([`forbid_outside_lists`]): an anonymous client's rescan must not make it read files
//! outside its data directory.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use hakase_core::rules::presets::load_preset;
use hakase_core::rules::word::read_word_list;
use hakase_core::{Game, WordListInput};

/// What a custom game's name says it is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomSpec {
    /// The preset it starts from.
    pub preset: String,
    /// The answers file, if replaced.
    pub answers: Option<PathBuf>,
    /// The guesses file, if replaced.
    pub guesses: Option<PathBuf>,
    /// The tries, if changed.
    pub tries: Option<u32>,
}

/// Reads `PRESET (answers from A, guesses from G, N tries)`; `None` for any other name.
pub fn parse_name(name: &str) -> Option<CustomSpec> {
    let (preset, rest) = name.split_once(" (")?;
    let inner = rest.strip_suffix(')')?;
    let mut spec = CustomSpec {
        preset: preset.to_string(),
        answers: None,
        guesses: None,
        tries: None,
    };
    for part in inner.split(", ") {
        if let Some(path) = part.strip_prefix("answers from ") {
            spec.answers = Some(PathBuf::from(path));
        } else if let Some(path) = part.strip_prefix("guesses from ") {
            spec.guesses = Some(PathBuf::from(path));
        } else if let Some(n) = part
            .strip_suffix(" tries")
            .or_else(|| part.strip_suffix(" try"))
        {
            spec.tries = Some(n.parse().ok()?);
        } else {
            return None;
        }
    }
    Some(spec)
}

/// Rebuilds the game a run of `name` was made for and checks it against `fingerprint`.
/// Relative list paths are tried from the current directory, then from the run's parent
/// directory (where `solve` usually ran). The error says what is missing or changed.
pub fn rebuild(name: &str, fingerprint: &str, run_dir: &Path) -> Result<Game, String> {
    let spec = parse_name(name).ok_or_else(|| format!("{name:?} names no preset"))?;
    let preset = load_preset(&spec.preset).map_err(|e| e.to_string())?;
    let list = |path: &Option<PathBuf>, which: &str, count: usize, text: &dyn Fn(u32) -> String| {
        match path {
            Some(path) => read_list(path, run_dir, which),
            None => {
                let words: Vec<String> = (0..count as u32).map(text).collect();
                Ok(WordListInput::from_words(
                    &format!("{} {which}", spec.preset),
                    &words,
                ))
            }
        }
    };
    let guesses = list(&spec.guesses, "guesses", preset.guesses().len(), &|i| {
        preset.guess_text(i).to_string()
    })?;
    let answers = list(&spec.answers, "answers", preset.answers().len(), &|i| {
        preset.answer_text(i).to_string()
    })?;
    let tries = spec.tries.unwrap_or(preset.tries());
    let game =
        Game::new(name, guesses, answers, tries, preset.style()).map_err(|e| e.to_string())?;
    if game.fingerprint() != fingerprint {
        return Err(format!(
            "the word lists changed since the run was made (fingerprint {} now, {fingerprint} \
             stored)",
            game.fingerprint()
        ));
    }
    // A run made before copies were kept gets them now, where this process may write.
    if let Err(e) = keep_lists(run_dir, name) {
        tracing::debug!(error = %e, "kept no copy of the run's word lists");
    }
    Ok(game)
}

/// Set by a server: runs without kept copies are not rebuilt from their recorded paths.
static OUTSIDE_LISTS_FORBIDDEN: AtomicBool = AtomicBool::new(false);

/// Makes this process rebuild custom-list runs from the copies in their run directories
/// only (`hakase serve`, whose rescans anyone may ask for).
pub fn forbid_outside_lists() {
    OUTSIDE_LISTS_FORBIDDEN.store(true, Ordering::Relaxed);
}

/// The file in the run directory that keeps a copy of the `which` list (`answers` or
/// `guesses`).
fn kept_copy(run_dir: &Path, which: &str) -> PathBuf {
    run_dir.join(format!("hakase-{which}.txt"))
}

/// Keeps a copy of each replaced list of the custom game `name` in `run_dir`, so the run
/// can be reloaded without its original files (and without reading outside the run). A run
/// of a preset, or one whose copies exist, is left alone; a list that cannot be read now is
/// skipped (the run is then rebuilt from its recorded path, as before copies were kept).
pub fn keep_lists(run_dir: &Path, name: &str) -> std::io::Result<()> {
    let Some(spec) = parse_name(name) else {
        return Ok(());
    };
    for (path, which) in [(&spec.answers, "answers"), (&spec.guesses, "guesses")] {
        let (Some(path), kept) = (path, kept_copy(run_dir, which)) else {
            continue;
        };
        if kept.is_file() {
            continue;
        }
        if let Some(found) = locate_list(path, run_dir) {
            let bytes = std::fs::read(found)?;
            let partial = kept.with_extension("txt.partial");
            std::fs::write(&partial, bytes)?;
            std::fs::rename(&partial, &kept)?;
        }
    }
    Ok(())
}

/// Where a recorded list path is: as given (from the current directory), then from the
/// run's parent directory (where `solve` usually ran).
fn locate_list(path: &Path, run_dir: &Path) -> Option<PathBuf> {
    let mut tried = vec![path.to_path_buf()];
    if path.is_relative() {
        if let Some(parent) = run_dir.parent() {
            tried.push(parent.join(path));
        }
    }
    tried.into_iter().find(|p| p.is_file())
}

/// Reads the `which` list recorded as `path`: the run's kept copy, else (where allowed) the
/// recorded file.
fn read_list(path: &Path, run_dir: &Path, which: &str) -> Result<WordListInput, String> {
    let label = path.display().to_string();
    let kept = kept_copy(run_dir, which);
    let (found, outside) = if kept.is_file() {
        (kept, false)
    } else if OUTSIDE_LISTS_FORBIDDEN.load(Ordering::Relaxed) {
        return Err(format!(
            "the run keeps no copy of its word list {label}, and this server reads no file \
             outside its data directory; read the run once with a local command where the \
             list is (e.g. `hakase runs --data DIR`), which keeps a copy"
        ));
    } else {
        let found =
            locate_list(path, run_dir).ok_or_else(|| format!("the word list {label} is gone"))?;
        (found, true)
    };
    let bytes = std::fs::read(&found).map_err(|e| format!("{}: {e}", found.display()))?;
    let words = read_word_list(&bytes, &label).map_err(|e| {
        // A file outside the run may be anything now: its words are not repeated.
        if outside {
            format!("the word list {label} is no longer a word list")
        } else {
            e.to_string()
        }
    })?;
    Ok(WordListInput { label, words })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_written_by_the_command_line_are_read_back() {
        assert_eq!(
            parse_name("wordle (answers from my/a.txt, 7 tries)"),
            Some(CustomSpec {
                preset: "wordle".into(),
                answers: Some(PathBuf::from("my/a.txt")),
                guesses: None,
                tries: Some(7),
            })
        );
        assert_eq!(parse_name("wordle"), None);
        assert_eq!(parse_name("wordle (something else)"), None);
    }
}
