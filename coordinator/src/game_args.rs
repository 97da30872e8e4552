//! The options every analysis command shares: which game to play, optionally with your own
//! word lists or number of tries.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use hakase_core::design::derived::with_first_guess;
use hakase_core::rules::presets::{load_preset, DEFAULT_GAME};
use hakase_core::rules::word::read_word_list;
use hakase_core::{Game, GameTable, WordListInput};

/// Which game to analyse: a preset, optionally with its lists or tries replaced.
#[derive(Debug, Clone, Args)]
pub struct GameArgs {
    /// The preset game (see `hakase games`): pokemon-today, pokemon-qiita2023, pokemon-verbum,
    /// pokemon-gen:N or pokemon-gen:N-M, wordle, wordle-answers-only, wordle-nyt2022,
    /// wordle-nyt2023. Default: pokemon-today, or wordle when the --answers/--guesses files
    /// hold English words (its 6 tries and B/Y/G colours).
    #[arg(long, short = 'g', value_name = "G")]
    pub game: Option<String>,

    /// Replace the preset's possible answers with this file: one word per line, UTF-8,
    /// every answer exactly 5 letters.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,

    /// Replace the preset's allowed guesses with this file: one word per line, UTF-8,
    /// at most 5 letters each (answers are always allowed too).
    #[arg(long, value_name = "FILE")]
    pub guesses: Option<PathBuf>,

    /// Number of guesses allowed (the preset's by default: 10 for Pokémon, 6 for Wordle).
    #[arg(long, value_name = "N")]
    pub tries: Option<u32>,
}

impl GameArgs {
    /// Builds the game: the preset, with each given file or `--tries` replacing its part.
    pub fn load(&self) -> Result<Game> {
        let given_guesses = self.guesses.as_deref().map(read_list).transpose()?;
        let given_answers = self.answers.as_deref().map(read_list).transpose()?;
        let name = match &self.game {
            Some(name) => name.clone(),
            None => preset_for(given_answers.iter().chain(&given_guesses)).to_string(),
        };
        let preset = load_preset(&name).with_context(|| format!("loading game {name:?}"))?;
        if self.answers.is_none() && self.guesses.is_none() && self.tries.is_none() {
            return Ok(preset);
        }
        let guesses = given_guesses.unwrap_or_else(|| {
            preset_list(&name, "guesses", preset.guesses().len(), |i| {
                preset.guess_text(i)
            })
        });
        let answers = given_answers.unwrap_or_else(|| {
            preset_list(&name, "answers", preset.answers().len(), |i| {
                preset.answer_text(i)
            })
        });
        let tries = self.tries.unwrap_or(preset.tries());
        Game::new(
            &self.describe(&name),
            guesses,
            answers,
            tries,
            preset.style(),
        )
        .context("building the game from the given lists")
    }

    /// True when `--game` was given: the game was chosen, not defaulted.
    pub fn chosen(&self) -> bool {
        self.game.is_some()
    }

    /// Builds the game and its feedback table.
    pub fn load_with_table(&self) -> Result<GameTable> {
        Ok(GameTable::build(self.load()?))
    }

    /// Builds the game and its table; with `allow_any`, a first guess that is not an
    /// allowed guess is added to the guesses (see [`allow_first`]).
    pub fn load_for_first(&self, first: Option<&str>, allow_any: bool) -> Result<GameTable> {
        Ok(GameTable::build(allow_first(
            self.load()?,
            first,
            allow_any,
        )?))
    }

    /// A name for a customised game of preset `name` that says what was replaced.
    fn describe(&self, name: &str) -> String {
        let mut parts = Vec::new();
        if let Some(path) = &self.answers {
            parts.push(format!("answers from {}", path.display()));
        }
        if let Some(path) = &self.guesses {
            parts.push(format!("guesses from {}", path.display()));
        }
        if let Some(tries) = self.tries {
            parts.push(crate::output::plural(tries, "try", "tries"));
        }
        format!("{name} ({})", parts.join(", "))
    }
}

/// With `allow_any` (`--allow-any-first`), `game` with `first` added to its guesses when
/// it is not one already: a derived game with its own fingerprint, so a designed string
/// (`hakase design`) can be solved, charted and displayed. Otherwise `game` unchanged.
pub fn allow_first(game: Game, first: Option<&str>, allow_any: bool) -> Result<Game> {
    match first {
        Some(word) if allow_any => Ok(with_first_guess(&game, word)
            .with_context(|| format!("--first {word} with --allow-any-first"))?
            .0),
        _ => Ok(game),
    }
}

/// The preset whose rules a game of these lists (given without `--game`) plays by: English
/// words play by wordle's (6 tries, B/Y/G colours), anything else by the default game's.
fn preset_for<'a>(lists: impl IntoIterator<Item = &'a WordListInput>) -> &'static str {
    let mut words = lists.into_iter().flat_map(|l| &l.words).peekable();
    let english =
        words.peek().is_some() && words.all(|(_, w)| w.chars().all(|c| c.is_ascii_alphabetic()));
    if english {
        "wordle"
    } else {
        DEFAULT_GAME
    }
}

/// Reads a word list file; errors name the file and, where it matters, the line.
fn read_list(path: &Path) -> Result<WordListInput> {
    let label = path.display().to_string();
    let bytes = std::fs::read(path).with_context(|| format!("reading {label}"))?;
    let words = read_word_list(&bytes, &label)?;
    Ok(WordListInput { label, words })
}

/// One of the preset's lists, as if it had been read from a file.
fn preset_list<'a>(
    game: &str,
    which: &str,
    len: usize,
    text: impl Fn(u32) -> &'a str,
) -> WordListInput {
    let words: Vec<&str> = (0..len as u32).map(text).collect();
    WordListInput::from_words(&format!("{game} {which}"), &words)
}
