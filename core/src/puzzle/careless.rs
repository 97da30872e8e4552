//! The careless reader: takes each cell on its own (green = here, yellow = elsewhere in the
//! answer, gray = not in the answer), ignoring the rule that a letter is coloured only as many
//! times as the answer has it. How many answers that reader still thinks possible grades how
//! much a puzzle leans on the duplicate-letter rule.

use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::pattern::{Cell, Pattern};
use crate::rules::word::{Word, BOARD};

use super::Reasoning;

/// The colours a careless reader expects: every cell judged on its own.
pub fn naive_feedback(guess: &Word, answer: &Word) -> Pattern {
    let a = answer.letters();
    let mut cells = [Cell::Gray; BOARD];
    for (i, (&letter, cell)) in guess.letters().iter().zip(cells.iter_mut()).enumerate() {
        *cell = if a.get(i) == Some(&letter) {
            Cell::Green
        } else if a.contains(&letter) {
            Cell::Yellow
        } else {
            Cell::Gray
        };
    }
    Pattern::from_cells(&cells[..guess.len()])
}

/// The answers a careless reader thinks fit every row.
pub fn careless_candidates(game: &Game, rows: &[(GuessId, Pattern)]) -> Vec<AnswerId> {
    (0..game.answers().len() as AnswerId)
        .filter(|&a| {
            let answer = &game.answers()[a as usize];
            rows.iter()
                .all(|&(g, p)| naive_feedback(&game.guesses()[g as usize], answer) == p)
        })
        .collect()
}

/// The reasoning the rows need to single out `answer`: letter counts when the careless reader
/// does not arrive at exactly `answer`, else yellows when any row has one, else greens only.
pub fn reasoning(
    rows: &[(GuessId, Pattern)],
    careless: &[AnswerId],
    answer: AnswerId,
) -> Reasoning {
    if careless != [answer] {
        Reasoning::LetterCounts
    } else if rows
        .iter()
        .any(|(_, p)| p.cells(BOARD).contains(&Cell::Yellow))
    {
        Reasoning::YellowsPlaced
    } else {
        Reasoning::GreensOnly
    }
}
