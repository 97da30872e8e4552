//! Universes: the ordered word lists a player takes its candidates from (the seed blog's
//! 検索母集団, e.g. a list of common words first, then every allowed word).

use crate::rules::game::{Game, GuessId};
use crate::rules::history::Step;
use crate::rules::pattern::feedback;
use crate::rules::table::FeedbackTable;
use crate::rules::word::BOARD;

/// An ordered list of word lists; the first with a word that fits the clues is the pool.
#[derive(Debug, Clone)]
pub struct Universe {
    label: String,
    levels: Vec<Vec<GuessId>>,
}

impl Universe {
    /// The game's own answers: the pool is exactly the candidates (the default).
    pub fn answers(game: &Game) -> Universe {
        let answers = game
            .all_answers()
            .into_iter()
            .map(|a| game.answer_as_guess(a))
            .collect();
        Universe {
            label: "answers".into(),
            levels: vec![answers],
        }
    }

    /// Lists of allowed guesses, tried in order. Words shorter than the board can never be the
    /// answer and are left out; an empty list is kept (it is simply never the pool).
    pub fn new(levels: Vec<(String, Vec<GuessId>)>, game: &Game) -> Universe {
        let label = levels
            .iter()
            .map(|(name, _)| name.as_str())
            .collect::<Vec<_>>()
            .join("→");
        let levels = levels
            .into_iter()
            .map(|(_, words)| {
                words
                    .into_iter()
                    .filter(|&g| game.guesses()[g as usize].len() == BOARD)
                    .collect()
            })
            .collect();
        Universe { label, levels }
    }

    /// How the universe is shown in tables, e.g. `answers→allowed`.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The lists, in order.
    pub fn levels(&self) -> &[Vec<GuessId>] {
        &self.levels
    }
}

/// The words of `level` that could still be the answer after `step`: those that, were they
/// the answer, would have shown the same colours.
pub fn narrow(game: &Game, table: &FeedbackTable, level: &[GuessId], step: Step) -> Vec<GuessId> {
    let guess = &game.guesses()[step.guess as usize];
    level
        .iter()
        .copied()
        .filter(|&w| {
            let pattern = match game.guess_as_answer(w) {
                Some(answer) => table.get(step.guess, answer),
                None => feedback(guess, &game.guesses()[w as usize]),
            };
            pattern == step.pattern
        })
        .collect()
}
