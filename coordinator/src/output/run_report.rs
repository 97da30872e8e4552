//! Printing a finished run: best first guess, proven value, the top of the ranking and the
//! chart (each feedback of the first guess, answers left, second guess), as text or JSON.

use std::io::{self, Write};

use hakase_core::history::partition;
use hakase_core::solver::Solution;
use hakase_core::{FeedbackTable, Game};
use serde_json::json;

use crate::cluster::store::Reopened;

/// Writes what a reopened run found beyond the counts its resume line states (a lost
/// solution, or why losses could not be checked): damage is recomputed, never silently.
pub fn write_damage_notes(out: &mut dyn Write, reopened: &Reopened) -> io::Result<()> {
    if reopened.damage.solution_lost {
        writeln!(
            out,
            "damaged: the finished run's stored solution was lost; it is solved again from \
             what could be read"
        )?;
    }
    if let Some(why) = &reopened.unchecked {
        writeln!(
            out,
            "note: whether stored results were lost cannot be checked this time: {why}"
        )?;
    }
    Ok(())
}

/// Writes the human-readable report.
pub fn write_text(
    out: &mut dyn Write,
    game: &Game,
    table: &FeedbackTable,
    solution: &Solution,
    top: usize,
) -> io::Result<()> {
    let proven = if solution.proven {
        "proven"
    } else {
        "not proven (restricted search)"
    };
    let Some(best) = solution.best else {
        writeln!(
            out,
            "{}: no strategy wins every answer within {} guesses ({proven})",
            game.name(),
            solution.guesses_left
        )?;
        return Ok(());
    };
    let n = game.answers().len();
    let value = best.outcome.value();
    writeln!(
        out,
        "{}: best first guess {} — {} guesses in total over {} answers, mean {:.4} ({proven}, {} guesses allowed)",
        game.name(),
        game.guess_text(best.guess),
        value,
        n,
        f64::from(value) / n.max(1) as f64,
        solution.guesses_left
    )?;
    if let Some(eval) = &solution.evaluation {
        let dist = super::distribution_text(&eval.distribution);
        writeln!(out, "distribution {dist}  worst {}", eval.worst)?;
    }
    writeln!(out, "ranking (top {top}):")?;
    for (rank, v) in solution.ranking.iter().take(top).enumerate() {
        let value = if v.outcome.is_exact() {
            format!("{}", v.outcome.value())
        } else {
            format!(">= {}", v.outcome.value())
        };
        writeln!(
            out,
            "{:>4}. {}  {value}",
            rank + 1,
            game.guess_text(v.guess)
        )?;
    }
    write_chart(out, game, table, solution)
}

/// Writes the chart of the optimal first guess: each feedback, answers left, second guess.
pub fn write_chart(
    out: &mut dyn Write,
    game: &Game,
    table: &FeedbackTable,
    solution: &Solution,
) -> io::Result<()> {
    if let Some(tree) = &solution.tree {
        let len = game.guesses()[tree.guess as usize].len();
        writeln!(out, "chart of {}:", game.guess_text(tree.guess))?;
        let parts = partition(table, tree.guess, &game.all_answers());
        for (pattern, sub) in &tree.branches {
            let count = parts
                .iter()
                .find(|(p, _)| p == pattern)
                .map_or(0, |(_, part)| part.len());
            writeln!(
                out,
                "{} {} {}",
                pattern.format(len, game.style()),
                count,
                game.guess_text(sub.guess)
            )?;
        }
    }
    Ok(())
}

/// The machine-readable report: the whole solution plus names for people.
pub fn to_json(game: &Game, solution: &Solution) -> serde_json::Value {
    json!({
        "game": game.name(),
        "fingerprint": game.fingerprint(),
        "first_guess": solution.best.map(|b| game.guess_text(b.guess).to_string()),
        "total": solution.best.map(|b| b.outcome.value()),
        "guesses_left": solution.guesses_left,
        "proven": solution.proven,
        "ranking": solution.ranking.iter().take(20).map(|v| json!({
            "guess": game.guess_text(v.guess),
            "exact": v.outcome.is_exact(),
            "value": v.outcome.value(),
        })).collect::<Vec<_>>(),
        "solution": solution,
    })
}
