//! The first guesses a ranking is restricted to, as `--firsts FILE` and repeated `--first W`
//! give them: read the same way by `solve` and `coordinator`, so that both name the same
//! words the same way, refuse the same mistakes, and so make the same run.

use std::path::Path;

use anyhow::{bail, Context, Result};
use hakase_core::solver::{Mode, SolverConfig};
use hakase_core::{Game, GuessId};

/// The words asked for, each with where it came from (for errors): the lines of `firsts`,
/// then the `--first` words. `None` when no list is asked for, which is when there is no
/// file and fewer than `list_from` `--first` words (`solve` takes one `--first` as a run of
/// that guess alone, `coordinator` as a list of one).
pub fn listed_words(
    firsts: Option<&Path>,
    first: &[String],
    list_from: usize,
) -> Result<Option<Vec<(String, String)>>> {
    let mut words: Vec<(String, String)> = Vec::new();
    if let Some(path) = firsts {
        let label = path.display().to_string();
        let bytes = std::fs::read(path).with_context(|| format!("reading --firsts {label}"))?;
        let list = hakase_core::rules::word::read_word_list(&bytes, &label)
            .with_context(|| format!("reading --firsts {label}"))?;
        words.extend(
            list.into_iter()
                .map(|(line, word)| (format!("--firsts {label} line {line}:"), word)),
        );
    }
    if firsts.is_none() && first.len() < list_from.max(1) {
        return Ok(None);
    }
    words.extend(first.iter().map(|w| ("--first".to_string(), w.clone())));
    Ok(Some(words))
}

/// The guess ids of `words`, ascending and without repeats; every word must be a guess of
/// `game` that the rules allow first (in strict mode, a possible answer).
pub fn listed_ids(
    game: &Game,
    config: &SolverConfig,
    words: &[(String, String)],
) -> Result<Vec<GuessId>> {
    let mut ids = words
        .iter()
        .map(|(flag, word)| first_guess_id(game, config, word, flag))
        .collect::<Result<Vec<_>>>()?;
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// One first guess, checked as [`listed_ids`] says. At the start of a game hard mode has no
/// clue to keep yet, so only strict mode narrows what may be played.
fn first_guess_id(game: &Game, config: &SolverConfig, word: &str, flag: &str) -> Result<GuessId> {
    let guess = game
        .find_guess(word)
        .with_context(|| format!("{flag} {word}"))?;
    if config.mode == Mode::Strict && game.guess_as_answer(guess).is_none() {
        bail!("{flag} {word} is not allowed as a first guess in this mode");
    }
    Ok(guess)
}
