//! Helpers shared by the acceptance tests.
#![allow(dead_code)]

use hakase_core::rules::presets::load_preset;
use hakase_core::rules::word::Word;
use hakase_core::{FeedbackTable, Game};

/// A preset with its feedback table.
pub fn preset(name: &str) -> (Game, FeedbackTable) {
    let game = load_preset(name).expect("preset loads");
    let table = FeedbackTable::build(&game);
    (game, table)
}

/// The encoded word behind an allowed guess of `game`.
pub fn word<'g>(game: &'g Game, text: &str) -> &'g Word {
    let id = game.find_guess(text).expect("word is an allowed guess");
    &game.guesses()[id as usize]
}

/// The feedback of `guess` against `answer`, written in the game's style.
pub fn pattern_of(game: &Game, guess: &str, answer: &str) -> String {
    let g = word(game, guess);
    hakase_core::feedback(g, word(game, answer)).format(g.len(), game.style())
}
