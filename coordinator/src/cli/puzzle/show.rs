//! How a puzzle looks on the e-paper panel (its text is [`hakase_batch::sheet`]'s).

use anyhow::{Context, Result};
use hakase_core::puzzle::{Goal, Grade, Puzzle};
use hakase_core::{Game, Pattern};
use hakase_device::{PuzzleView, PuzzleViewRow};

/// The page for the e-paper panel. The question is shortened to plain ASCII.
pub fn device_view(game: &Game, puzzle: &Puzzle) -> Result<PuzzleView> {
    let rows = puzzle
        .rows
        .iter()
        .map(|row| {
            let guess = game.find_guess(&row.guess)?;
            let len = game.guesses()[guess as usize].len();
            let pattern = Pattern::parse(&row.pattern, len)?;
            Ok(PuzzleViewRow {
                letters: row.guess.to_uppercase().chars().collect(),
                cells: pattern.cells(len),
            })
        })
        .collect::<hakase_core::Result<Vec<_>>>()
        .with_context(|| format!("reading the rows of day {}", puzzle.day))?;
    let question = match &puzzle.grade {
        Grade::Deduction(_) => format!(
            "Exactly one answer fits these {} rows. Which?",
            puzzle.rows.len()
        ),
        Grade::BestMove(g) => match g.goal {
            Goal::WinWithin { guesses } => format!(
                "{} answers left. Which single guess wins within {guesses}, whatever the answer?",
                g.candidates.len()
            ),
            Goal::UniqueOptimum => format!(
                "{} answers left. Which single guess is optimal (fewest guesses in total)?",
                g.candidates.len()
            ),
        },
    };
    let words = match &puzzle.grade {
        Grade::BestMove(g) => g.candidates.clone(),
        Grade::Deduction(_) => Vec::new(),
    };
    Ok(PuzzleView {
        words,
        title: format!("Day {}  {}  {}", puzzle.day, puzzle.level, puzzle.kind),
        game: puzzle.game.clone(),
        rows,
        question,
    })
}
