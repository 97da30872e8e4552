//! The feedback table: every (guess, answer) pattern computed once, so searches only look up.

use rayon::prelude::*;

use crate::game::{AnswerId, Game, GuessId};
use crate::pattern::{feedback, Pattern};

/// Patterns of all guesses against all answers, one byte each, row per guess.
#[derive(Debug, Clone)]
pub struct FeedbackTable {
    answers: usize,
    cells: Vec<u8>,
}

impl FeedbackTable {
    /// Builds the table in parallel, one row per guess.
    pub fn build(game: &Game) -> FeedbackTable {
        let answers = game.answers();
        let width = answers.len();
        let mut cells = vec![0u8; game.guesses().len() * width];
        cells
            .par_chunks_mut(width.max(1))
            .zip(game.guesses().par_iter())
            .for_each(|(row, guess)| {
                for (cell, answer) in row.iter_mut().zip(answers) {
                    *cell = feedback(guess, answer).0;
                }
            });
        FeedbackTable {
            answers: width,
            cells,
        }
    }

    /// The pattern `guess` shows when the answer is `answer`.
    #[inline]
    pub fn get(&self, guess: GuessId, answer: AnswerId) -> Pattern {
        Pattern(self.cells[guess as usize * self.answers + answer as usize])
    }

    /// The patterns of one guess against every answer, indexed by answer id.
    #[inline]
    pub fn row(&self, guess: GuessId) -> &[u8] {
        let start = guess as usize * self.answers;
        &self.cells[start..start + self.answers]
    }

    /// Number of guesses (rows).
    pub fn guesses(&self) -> usize {
        self.cells.len() / self.answers.max(1)
    }
}
