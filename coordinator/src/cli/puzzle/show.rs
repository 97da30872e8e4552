//! How a puzzle reads: the text of one puzzle (with or without its solution), the batch
//! sheets, and the e-paper view.

use std::fmt::Write as _;

use anyhow::{Context, Result};
use hakase_core::puzzle::{Goal, Grade, Puzzle, Reasoning};
use hakase_core::{Game, Pattern};
use hakase_device::{PuzzleView, PuzzleViewRow};

use crate::cli::pad;

/// The puzzle as a player sees it: header, rows, question (and the answers left for a
/// best-move problem, which the player needs).
pub fn puzzle_text(puzzle: &Puzzle) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Day {} · {} · {} · {}",
        puzzle.day, puzzle.kind, puzzle.level, puzzle.game
    );
    for row in &puzzle.rows {
        let _ = writeln!(out, "  {} {}", pad(&row.guess, 11), row.pattern);
    }
    if let Grade::BestMove(grade) = &puzzle.grade {
        let _ = writeln!(out, "  answers left: {}", grade.candidates.join(" "));
    }
    let _ = writeln!(out, "{}", puzzle.question);
    out
}

/// The solution with the grade that explains the level.
pub fn solution_text(puzzle: &Puzzle) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Day {}: {}", puzzle.day, puzzle.solution);
    match &puzzle.grade {
        Grade::Deduction(g) => {
            let left: Vec<String> = g.counts.iter().map(usize::to_string).collect();
            let careless = if g.careless_keeps_answer {
                "including the answer"
            } else {
                "not including the answer"
            };
            let _ = writeln!(
                out,
                "  answers left after each row {}; reasoning {}; a careless reader keeps {} ({careless})",
                left.join(" → "),
                reasoning_name(g.reasoning),
                g.careless_left
            );
        }
        Grade::BestMove(g) => {
            let goal = match g.goal {
                Goal::WinWithin { guesses } => format!("the only guess that wins within {guesses}"),
                Goal::UniqueOptimum => "the only optimal guess".to_string(),
            };
            let _ = writeln!(
                out,
                "  {goal}: total {} over {} answers, worst {} (proven)",
                g.total,
                g.candidates.len(),
                g.worst
            );
            for t in &g.tempting {
                let _ = writeln!(
                    out,
                    "  {} would play {}: total {}, worst {}",
                    t.strategy, t.guess, t.total, t.worst
                );
            }
            let unit = match g.goal {
                Goal::WinWithin { .. } => "worst-case guesses",
                Goal::UniqueOptimum => "total guesses",
            };
            let _ = writeln!(out, "  margin {} {unit}", g.margin);
        }
    }
    out
}

/// The reasoning as written in files.
fn reasoning_name(reasoning: Reasoning) -> &'static str {
    match reasoning {
        Reasoning::GreensOnly => "greens only",
        Reasoning::YellowsPlaced => "yellows placed",
        Reasoning::LetterCounts => "letter counts (duplicate-letter rule)",
    }
}

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
