//! A game whose guess list also holds one string no list has, so any string can be played
//! first (`--allow-any-first`): the solver, charts and the e-paper display then work on it
//! unchanged. The derived game has its own fingerprint, so its results never mix with the
//! real game's.

use crate::error::Result;
use crate::rules::game::{Game, GuessId, WordListInput};

/// `game` with `text` appended to its guesses (the same game when `text` is already an
/// allowed guess), and the guess id of `text`. The string may be played at any step, but
/// below the first it shows one pattern on every answer still possible, so an optimal
/// strategy never plays it again: values equal those of [`super::score::Scorer`].
pub fn with_first_guess(game: &Game, text: &str) -> Result<(Game, GuessId)> {
    if let Ok(id) = game.find_guess(text) {
        return Ok((game.clone(), id));
    }
    let text = text.trim();
    let mut guesses: Vec<&str> = (0..game.guesses().len() as GuessId)
        .map(|g| game.guess_text(g))
        .collect();
    guesses.push(text);
    let answers: Vec<&str> = (0..game.answers().len() as u32)
        .map(|a| game.answer_text(a))
        .collect();
    // Same name (the game is the same to its players), different fingerprint.
    let derived = Game::new(
        game.name(),
        WordListInput::from_words(&format!("{} guesses + {text}", game.name()), &guesses),
        WordListInput::from_words(&format!("{} answers", game.name()), &answers),
        game.tries(),
        game.style(),
    )?;
    let id = derived.find_guess(text)?;
    Ok((derived, id))
}
