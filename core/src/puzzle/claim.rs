//! A puzzle made elsewhere (by a cluster worker) is a claim: the cheap checks every claim
//! gets before it is taken. The rows must be written exactly as the game writes them, the
//! answers they leave must be recomputed from the feedback table, and a deduction puzzle's
//! answer must be the only one left. The exact grade of a best-move problem is not re-proven
//! here: that is a full re-generation, which the coordinator runs by its audit policy.

use thiserror::Error;

use crate::rules::game::{AnswerId, Game};
use crate::rules::pattern::Pattern;
use crate::rules::table::FeedbackTable;

use super::batch::Slot;
use super::split::narrow;
use super::{Grade, Kind, Puzzle, Row};

/// Why a claimed puzzle is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClaimError {
    /// It is not for the slot it was asked for.
    #[error("the puzzle is for day {day} ({kind}) of {game}, not the slot asked")]
    WrongSlot {
        /// The day it names.
        day: usize,
        /// Its kind.
        kind: Kind,
        /// Its game.
        game: String,
    },
    /// A row is not a guess of the game with a pattern, written as the game writes it.
    #[error("row {0} is not a guess and pattern of this game")]
    BadRow(usize),
    /// The rows do not leave what the puzzle says.
    #[error("the rows leave {found:?}, the puzzle says {claimed:?}")]
    WrongAnswers {
        /// Answers the rows leave, recomputed.
        found: Vec<String>,
        /// What the puzzle claims.
        claimed: Vec<String>,
    },
    /// The answers left after each row are not what the grade says.
    #[error("the grade's answers left after each row are {claimed:?}, recomputed {found:?}")]
    WrongCounts {
        /// Recomputed.
        found: Vec<usize>,
        /// Claimed.
        claimed: Vec<usize>,
    },
    /// The grade is of the other kind, or the solution is not a word of the game.
    #[error("the grade or solution does not fit the puzzle's kind")]
    WrongGrade,
}

/// Checks `puzzle` against `slot` and the game; see the module comment for what is checked.
pub fn check(
    game: &Game,
    table: &FeedbackTable,
    slot: &Slot,
    puzzle: &Puzzle,
) -> Result<(), ClaimError> {
    if puzzle.day != slot.day || puzzle.kind != slot.kind || puzzle.game != game.name() {
        return Err(ClaimError::WrongSlot {
            day: puzzle.day,
            kind: puzzle.kind,
            game: puzzle.game.clone(),
        });
    }
    let mut left: Vec<AnswerId> = game.all_answers();
    let mut counts = Vec::with_capacity(puzzle.rows.len());
    for (i, row) in puzzle.rows.iter().enumerate() {
        let guess = game
            .find_guess(&row.guess)
            .map_err(|_| ClaimError::BadRow(i + 1))?;
        let len = game.guesses()[guess as usize].len();
        let pattern = Pattern::parse(&row.pattern, len).map_err(|_| ClaimError::BadRow(i + 1))?;
        if Row::new(game, guess, pattern) != *row {
            return Err(ClaimError::BadRow(i + 1));
        }
        left = narrow(table, &left, guess, pattern);
        counts.push(left.len());
    }
    let found: Vec<String> = left
        .iter()
        .map(|&a| game.answer_text(a).to_string())
        .collect();
    let claimed = match (&puzzle.grade, puzzle.kind) {
        (Grade::Deduction(grade), Kind::Deduction) => {
            if grade.counts != counts {
                return Err(ClaimError::WrongCounts {
                    found: counts,
                    claimed: grade.counts.clone(),
                });
            }
            vec![puzzle.solution.clone()]
        }
        (Grade::BestMove(grade), Kind::BestMove) => {
            let exact = game
                .find_guess(&puzzle.solution)
                .is_ok_and(|g| game.guess_text(g) == puzzle.solution);
            if !exact {
                return Err(ClaimError::WrongGrade);
            }
            grade.candidates.clone()
        }
        _ => return Err(ClaimError::WrongGrade),
    };
    if found != claimed || puzzle.rows.is_empty() {
        return Err(ClaimError::WrongAnswers { found, claimed });
    }
    Ok(())
}
