//! The feedback table: every (guess, answer) pattern computed once, so searches only look up.

use rayon::prelude::*;

use crate::game::{AnswerId, Game, GuessId};
use crate::pattern::{feedback, Pattern};

/// Patterns of all guesses against all answers, one byte each, row per guess.
#[derive(Debug, Clone)]
pub struct FeedbackTable {
    answers: usize,
    cells: Vec<u8>,
    /// The same patterns answer-major: scanning many guesses over a few answers then reads a
    /// few contiguous columns instead of one scattered byte per cache line.
    by_answer: Vec<u8>,
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
        // Computing the patterns again is cheaper than a cache-hostile transpose.
        let mut by_answer = vec![0u8; cells.len()];
        by_answer
            .par_chunks_mut(game.guesses().len().max(1))
            .zip(answers.par_iter())
            .for_each(|(column, answer)| {
                for (cell, guess) in column.iter_mut().zip(game.guesses()) {
                    *cell = feedback(guess, answer).0;
                }
            });
        FeedbackTable {
            answers: width,
            cells,
            by_answer,
        }
    }

    /// The patterns every guess shows for one answer, indexed by guess id.
    #[inline]
    pub fn column(&self, answer: AnswerId) -> &[u8] {
        let guesses = self.guesses();
        let start = answer as usize * guesses;
        &self.by_answer[start..start + guesses]
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
