//! `hakase ranking --check`: the rows shown, re-solved from scratch with the exact solver, so
//! a value read from a run or from the shipped data never has to be taken on trust.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use crate::output::View;
use anyhow::{Context, Result};
use hakase_core::solver::{FirstGuesses, SharedSolver, DEFAULT_MEMO_ENTRIES, INFEASIBLE};
use hakase_core::GameTable;
use hakase_query::ranking::{RankedGuess, RankingView, RunRanking};
use serde::Serialize;

/// One row of a ranking against the exact solver's value of the same opener.
#[derive(Debug, Clone, Serialize)]
pub struct RowCheck {
    /// The opener.
    pub guess: String,
    /// The total the ranking states (`None`: cannot win, or not settled).
    pub stated: Option<u32>,
    /// True when the ranking states a lower bound, not an exact total.
    pub stated_bound: bool,
    /// The exact total the solver finds now (`None`: cannot win).
    pub solved: Option<u32>,
    /// True when they agree: equal for an exact total, at least the bound for a bound.
    pub matches: bool,
    /// Wall seconds the re-solve took.
    pub seconds: f64,
}

/// A ranking view with its rows' checks, for `--format json` (the `ranking` document with a
/// `checks` array).
#[derive(Debug, Serialize)]
pub struct CheckedView<'a> {
    /// The ranking as shown.
    #[serde(flatten)]
    pub view: &'a RankingView,
    /// The re-solved rows, when --check was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checks: Option<&'a [RowCheck]>,
}

impl View for CheckedView<'_> {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        self.view.text(out)?;
        if let Some(checks) = self.checks {
            RowCheck::write_text(out, checks)?;
        }
        Ok(())
    }
}

impl RowCheck {
    /// Re-solves each settled row of `rows` (a view of `ranking`) from scratch: one exact
    /// solve of that opener, with a fresh memo, in the ranking's game and options.
    pub fn all(ranking: &RunRanking, rows: &[RankedGuess]) -> Result<Vec<RowCheck>> {
        let tables = Arc::new(GameTable::build(ranking.game.clone()));
        rows.iter()
            .filter(|row| row.settled)
            .map(|row| {
                let guess = ranking
                    .game
                    .find_guess(&row.guess)
                    .with_context(|| format!("--check {}", row.guess))?;
                let solver =
                    SharedSolver::new(tables.clone(), ranking.config.clone(), DEFAULT_MEMO_ENTRIES);
                let start = Instant::now();
                let solution = solver
                    .solver()
                    .solve_game(FirstGuesses::Only(guess), &|_| {});
                let value = solution
                    .ranking
                    .iter()
                    .find(|v| v.guess == guess)
                    .map(|v| v.outcome.value())
                    .unwrap_or(INFEASIBLE);
                let solved = (value < INFEASIBLE).then_some(value);
                let matches = if row.exact || row.total.is_none() {
                    solved == row.total
                } else {
                    solved.is_none_or(|s| Some(s) >= row.total)
                };
                Ok(RowCheck {
                    guess: row.guess.clone(),
                    stated: row.total,
                    stated_bound: !row.exact && row.total.is_some(),
                    solved,
                    matches,
                    seconds: start.elapsed().as_secs_f64(),
                })
            })
            .collect()
    }

    /// One line per re-solved row, then a verdict.
    pub fn write_text(out: &mut dyn Write, checks: &[RowCheck]) -> Result<()> {
        let show = |v: Option<u32>| v.map_or_else(|| "cannot win".to_string(), |v| v.to_string());
        writeln!(out)?;
        for c in checks {
            let stated = match (c.stated_bound, c.stated) {
                (true, Some(t)) => format!("≥ {t}"),
                (_, t) => show(t),
            };
            writeln!(
                out,
                "re-solved {}: {} (stated {stated}) in {:.1} s: {}",
                c.guess,
                show(c.solved),
                c.seconds,
                if c.matches { "matches" } else { "DIFFERS" }
            )?;
        }
        let differ = checks.iter().filter(|c| !c.matches).count();
        if differ == 0 {
            writeln!(out, "all {} re-solved rows match", checks.len())?;
        }
        Ok(())
    }
}
