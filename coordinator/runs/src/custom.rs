//! Reloading runs of custom word lists. Such a run stores the game's name as the command
//! line wrote it — `PRESET (answers from FILE, guesses from FILE, N tries)` — and the game's
//! fingerprint, which hashes both lists and the tries. Rebuilding the game from those files
//! and checking the fingerprint reloads the run exactly, or says why it cannot.

use std::path::{Path, PathBuf};

use hakase_core::presets::load_preset;
use hakase_core::word::read_word_list;
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
            Some(path) => read_list(path, run_dir),
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
    Ok(game)
}

fn read_list(path: &Path, run_dir: &Path) -> Result<WordListInput, String> {
    let mut tried = vec![path.to_path_buf()];
    if path.is_relative() {
        if let Some(parent) = run_dir.parent() {
            tried.push(parent.join(path));
        }
    }
    let found = tried
        .iter()
        .find(|p| p.is_file())
        .ok_or_else(|| format!("the word list {} is gone", path.display()))?;
    let bytes = std::fs::read(found).map_err(|e| format!("{}: {e}", found.display()))?;
    let label = path.display().to_string();
    let words = read_word_list(&bytes, &label).map_err(|e| e.to_string())?;
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
