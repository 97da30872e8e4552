//! Printing a finished run: best first guess, proven value, the top of the ranking and the
//! chart (each feedback of the first guess, answers left, second guess), as text or JSON.

use std::io::{self, Write};

use hakase_core::label::{proof_words, Label};
use hakase_core::oracle::Oracle;
use hakase_core::solver::Solution;
use hakase_core::{FeedbackTable, Game, GuessId};
use serde_json::json;

use super::chart_table::{write_chart_lines, ChartLine};
use hakase_runs::{Damage, Reopened};

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

/// An account of damage in words, for the views that show it after the resume that
/// printed it (`runs`, `status`).
pub fn damage_text(damage: &Damage) -> String {
    let mut parts = Vec::new();
    if damage.settled() > 0 {
        parts.push(super::plural(
            damage.settled(),
            "settled first guess",
            "settled first guesses",
        ));
    }
    if damage.results() > 0 {
        parts.push(super::plural(damage.results(), "job result", "job results"));
    }
    if damage.solution_lost {
        parts.push("the stored solution".to_string());
    }
    format!("found damaged and recomputed: {}", parts.join(", "))
}

/// Writes the human-readable report. `unchecked` names the first guesses whose row rests on
/// a worker's claim the audit did not re-run: the result is proven only if those hold, so
/// the headline and those rows say so instead of a bare "proven". `listed` is the number of
/// first guesses of a listed ranking: its best is the optimum only given that first guess,
/// and the headline says so.
pub fn write_text(
    out: &mut dyn Write,
    game: &Game,
    table: &FeedbackTable,
    solution: &Solution,
    (top, listed): (usize, Option<usize>),
    unchecked: &[GuessId],
) -> anyhow::Result<()> {
    let mut proven = proof_words(solution.proven, unchecked.len());
    let Some(best) = solution.best else {
        writeln!(
            out,
            "{}: no strategy wins every answer within {} ({proven})",
            game.name(),
            super::plural(solution.guesses_left, "guess", "guesses")
        )?;
        return Ok(());
    };
    let n = game.answers().len();
    let value = best.outcome.value();
    let of = match listed {
        Some(count) => {
            let joint = if solution.proven && unchecked.is_empty() {
                " optimal"
            } else {
                "; optimal"
            };
            proven.push_str(&format!(
                "{joint} GIVEN THE FIRST GUESS {}",
                game.guess_text(best.guess)
            ));
            format!(" of the {count} first guesses listed")
        }
        None => String::new(),
    };
    writeln!(
        out,
        "{}: best first guess{of} {} — {} in total over {}, mean {:.4} ({proven}, {} allowed)",
        game.name(),
        game.guess_text(best.guess),
        super::plural(value, "guess", "guesses"),
        super::plural(n as u64, "answer", "answers"),
        f64::from(value) / n.max(1) as f64,
        super::plural(solution.guesses_left, "guess", "guesses")
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
        let mark = if unchecked.binary_search(&v.guess).is_ok() {
            "  *"
        } else {
            ""
        };
        writeln!(
            out,
            "{:>4}. {}  {value}{mark}",
            rank + 1,
            game.guess_text(v.guess)
        )?;
    }
    write_chart(out, game, table, solution)
}

/// Writes the chart of the optimal first guess in the layout `chart --run` prints: each
/// feedback, answers left, second guess, the branch's total and worst case, and the winning
/// row. A solution without a tree (an impossible game) has no chart.
pub fn write_chart(
    out: &mut dyn Write,
    game: &Game,
    table: &FeedbackTable,
    solution: &Solution,
) -> anyhow::Result<()> {
    let Ok(oracle) = Oracle::new(game, table, solution) else {
        return Ok(());
    };
    let chart = oracle.chart(None)?;
    let len = game.guesses()[chart.first as usize].len();
    writeln!(out, "chart of {}:", game.guess_text(chart.first))?;
    let lines: Vec<ChartLine> = chart
        .rows
        .iter()
        .map(|r| ChartLine {
            pattern: r.row.pattern.format(len, game.style()),
            count: r.row.candidates.len(),
            second_guess: r.row.second.map(|g| game.guess_text(g).to_string()),
            total: r.row.second.map(|_| r.total),
            worst: r.row.second.map(|_| r.worst),
        })
        .collect();
    write_chart_lines(out, &lines, true)
}

/// The machine-readable report: the whole solution plus names for people, and the first
/// guesses whose row rests on an unchecked worker claim (see [`write_text`]).
pub fn to_json(
    game: &Game,
    solution: &Solution,
    listed: Option<usize>,
    unchecked: &[GuessId],
) -> serde_json::Value {
    // The claim every view words: a listed ranking's best is optimal only given itself.
    let first = listed
        .and(solution.best)
        .map(|b| game.guess_text(b.guess).to_string());
    let label = Label::of_result(solution.proven, first.is_some()).resting_on(unchecked.len());
    json!({
        "game": game.name(),
        "fingerprint": game.fingerprint(),
        "first_guesses_listed": listed,
        "first_guess": solution.best.map(|b| game.guess_text(b.guess).to_string()),
        "total": solution.best.map(|b| b.outcome.value()),
        "guesses_left": solution.guesses_left,
        "proven": solution.proven,
        "unchecked_claims": unchecked.iter().map(|&g| game.guess_text(g)).collect::<Vec<_>>(),
        "label": label,
        "claim": label.claim(first.as_deref()),
        "ranking": solution.ranking.iter().take(20).map(|v| json!({
            "guess": game.guess_text(v.guess),
            "exact": v.outcome.is_exact(),
            "value": v.outcome.value(),
        })).collect::<Vec<_>>(),
        "solution": solution,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hakase_core::rules::presets::load_preset;
    use hakase_core::solver::{FirstGuesses, Solver, SolverConfig};

    fn report(unchecked_rank: Option<usize>) -> (Vec<String>, Vec<GuessId>) {
        let game = load_preset("pokemon-gen:1").expect("preset");
        let table = FeedbackTable::build(&game);
        let solver = Solver::new(&game, &table, SolverConfig::default(), 100_000);
        let solution = solver.solve_game(FirstGuesses::Best, &|_| {});
        let unchecked: Vec<GuessId> = unchecked_rank
            .map(|r| solution.ranking[r].guess)
            .into_iter()
            .collect();
        let mut out = Vec::new();
        write_text(&mut out, &game, &table, &solution, (5, None), &unchecked).expect("write");
        let text = String::from_utf8(out).expect("utf-8");
        (text.lines().map(str::to_string).collect(), unchecked)
    }

    #[test]
    fn a_row_resting_on_an_unchecked_claim_is_marked_and_the_headline_says_so() {
        let (lines, _) = report(Some(2));
        assert!(
            lines[0].contains(
                "(proven if 1 unchecked worker claim holds, marked *; --audit-fraction 1 checks all, "
            ),
            "{}",
            lines[0]
        );
        let rows: Vec<&String> = lines.iter().filter(|l| l.starts_with("   ")).collect();
        let marked: Vec<usize> = rows
            .iter()
            .enumerate()
            .filter(|(_, l)| l.ends_with("  *"))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(marked, vec![2], "{rows:?}");
    }

    #[test]
    fn a_fully_checked_result_is_plainly_proven_with_no_marks() {
        let (lines, _) = report(None);
        assert!(lines[0].contains("(proven, "), "{}", lines[0]);
        assert!(!lines.iter().any(|l| l.ends_with("  *")));
    }
}
