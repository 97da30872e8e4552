//! Designing a first guess: the best string of the game's length over its alphabet, used as
//! the first guess only (later guesses are the game's real words).
//!
//! The seed article asked which non-existent Pokémon name would be the strongest opener and
//! answered with a hill climb on entropy. This module answers it exactly where it can:
//! [`entropy::max_entropy`] finds the maximum-entropy strings by branch and bound with an
//! admissible bound (a proof), [`score::Scorer`] gives a string's exact optimal total with the
//! exact solver, [`exhaustive::min_total`] searches the whole space by branch and bound (a
//! proof, feasible on small games) and [`local::improve`] proposes strings for big games,
//! whose result is then the best found, not a proof.

pub mod classes;
pub mod derived;
pub mod entropy;
pub mod exhaustive;
pub mod local;
pub mod run;
pub mod score;
pub mod space;

use crate::plural::plural;
use thiserror::Error;

use crate::rules::game::Game;
use crate::rules::pattern::{feedback, Pattern};
use crate::rules::word::{Word, BOARD};

pub use space::{Space, SpaceOptions};

/// A designed string: one letter id per board position.
pub type Letters = [u8; BOARD];

/// Bad design options: each names what the user typed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DesignError {
    /// Positions are counted 1 to the board width.
    #[error("position {0} is outside the board (1 to {BOARD})")]
    BadPosition(usize),
    /// Designed strings fill the board.
    #[error(
        "{text:?} has {}; designed strings have exactly {BOARD}",
        plural(*len as u64, "letter", "letters")
    )]
    BadLength {
        /// What was typed.
        text: String,
        /// Its number of letters.
        len: usize,
    },
    /// A letter no word of the game uses cannot tell anything a blank could not.
    #[error("{0:?} is not a letter of this game's words")]
    UnknownLetter(char),
    /// Options that leave no string to search.
    #[error("no string satisfies the options (position {0} has no allowed letter)")]
    EmptySpace(usize),
    /// A fixed position given twice with different letters.
    #[error("position {position} is fixed twice ({first} and {second})")]
    Conflict {
        /// The 1-based position.
        position: usize,
        /// The letter fixed first.
        first: char,
        /// The letter fixed second.
        second: char,
    },
}

/// The word behind a designed string, for the feedback rule and the hard-mode state.
pub fn word(letters: Letters) -> Word {
    Word::from_letters(letters)
}

/// The text of a designed string.
pub fn text(game: &Game, letters: Letters) -> String {
    letters.iter().map(|&l| game.alphabet().letter(l)).collect()
}

/// Reads a string of exactly the board's length whose letters the game uses.
pub fn parse(game: &Game, text: &str) -> Result<Letters, DesignError> {
    let chars: Vec<char> = text.trim().chars().collect();
    if chars.len() != BOARD {
        return Err(DesignError::BadLength {
            text: text.trim().to_string(),
            len: chars.len(),
        });
    }
    let mut letters = [0u8; BOARD];
    for (slot, &c) in letters.iter_mut().zip(&chars) {
        *slot = game.alphabet().id(c).ok_or(DesignError::UnknownLetter(c))?;
    }
    Ok(letters)
}

/// The pattern a designed string shows against every answer, in answer order.
pub fn patterns(game: &Game, letters: Letters) -> Vec<Pattern> {
    let guess = word(letters);
    game.answers().iter().map(|a| feedback(&guess, a)).collect()
}

/// Entropy in bits of a designed string's pattern distribution over all answers.
pub fn string_entropy(game: &Game, letters: Letters) -> f64 {
    let mut counts = [0u32; crate::rules::pattern::PATTERNS];
    for p in patterns(game, letters) {
        counts[p.0 as usize] += 1;
    }
    crate::heuristics::entropy::entropy_of_counts(&counts, game.answers().len())
}
