//! How a puzzle reads: the text of one puzzle and of its solution, as `hakase puzzle`
//! prints them and as a batch writes them to `sheet.txt` and `solutions.txt`.

use std::fmt::Write as _;

use hakase_core::puzzle::{Goal, Grade, Puzzle, Reasoning};
use unicode_width::UnicodeWidthStr;

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

/// `text` padded with spaces to `columns` terminal columns, so rows of katakana guesses
/// line up (the same rule as the binary's tables).
fn pad(text: &str, columns: usize) -> String {
    let width = UnicodeWidthStr::width(text);
    format!("{text}{}", " ".repeat(columns.saturating_sub(width)))
}
