//! `hakase runs`: the runs under the data directory.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use hakase_query::run::RunSummary;
use hakase_runs::check_data_dir;
use hakase_runs::{list, DEFAULT_DATA_DIR};

use crate::output::run_report::damage_text;
use crate::output::{emit, JsonArg, Label, Table, View};
use hakase_core::solver::SolverConfig;
use hakase_runs::Damage;
use serde::Serialize;

/// List the runs found under the data directory: name, game, options, state, best first
/// guess and total.
#[derive(Debug, Args)]
pub struct Runs {
    /// The data directory to list (itself a run, or holding one run per subdirectory).
    #[command(flatten)]
    pub data: super::run_args::DataArgs,

    /// Text or JSON.
    #[command(flatten)]
    pub output: JsonArg,
}

/// One run as listed; `options` is the solver options object, `error` says why a run could
/// not be read (its other fields are then empty).
#[derive(Debug, Serialize)]
struct RunRow {
    name: String,
    path: String,
    game: String,
    fingerprint: String,
    options: Option<SolverConfig>,
    state: &'static str,
    proven: bool,
    /// The worker claims nobody re-ran that the result rests on.
    unchecked_claims: usize,
    /// The kind of claim: proven-optimal, exact, heuristic or proven-if-claims-hold.
    label: Option<Label>,
    /// What the result may claim, as every view says it.
    claim: String,
    /// The first guess a `solve --first W` run was restricted to.
    first_guess_fixed: Option<String>,
    first_guess: Option<String>,
    total: Option<u64>,
    answers: usize,
    tries: u32,
    /// What the run's opens found damaged and recomputed (null when nothing was).
    damage: Option<Damage>,
    error: Option<String>,
}

/// The JSON document.
#[derive(Debug, Serialize)]
struct RunsJson {
    data: String,
    runs: Vec<RunRow>,
}

impl From<RunSummary> for RunRow {
    fn from(run: RunSummary) -> Self {
        RunRow {
            state: match (run.finished, run.proven, &run.first_guess_fixed) {
                (true, true, None) => "proven",
                (true, true, Some(_)) => "proven given first guess",
                (true, false, _) if run.unchecked_claims > 0 => "proven if claims hold",
                (true, false, _) => "finished",
                (false, _, _) => "unfinished",
            },
            unchecked_claims: run.unchecked_claims,
            claim: run.claim,
            first_guess_fixed: run.first_guess_fixed,
            options: run.options,
            label: run.label,
            name: run.name,
            path: run.path.display().to_string(),
            game: run.game,
            fingerprint: run.fingerprint,
            proven: run.proven,
            first_guess: run.first_guess,
            total: run.total,
            answers: run.answers,
            tries: run.tries,
            damage: run.damage,
            error: run.error,
        }
    }
}

/// Solver options in a few words ([`SolverConfig::brief`]); empty when unknown.
fn options_text(options: Option<&SolverConfig>) -> String {
    options.map_or_else(String::new, SolverConfig::brief)
}

impl View for RunsJson {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        if self.runs.is_empty() {
            writeln!(out, "no runs under {}", self.data)?;
            return Ok(());
        }
        let mut table = Table::new(&["NAME", "GAME", "STATE", "FIRST", ">TOTAL", "OPTIONS"]);
        for row in &self.runs {
            if let Some(err) = &row.error {
                // The reason goes last, so a long message does not widen the other columns.
                table.row(vec![
                    row.name.clone(),
                    "-".into(),
                    "unreadable".into(),
                    "-".into(),
                    "-".into(),
                    err.clone(),
                ]);
                continue;
            }
            let state = match (row.state, row.proven && row.first_guess_fixed.is_none()) {
                ("unfinished", _) => "unfinished".to_string(),
                (_, true) => "finished (proven)".to_string(),
                _ => format!("finished ({})", row.claim),
            };
            table.row(vec![
                row.name.clone(),
                row.game.clone(),
                state,
                row.first_guess.clone().unwrap_or_else(|| "-".into()),
                row.total.map_or("-".to_string(), |t| t.to_string()),
                options_text(row.options.as_ref()),
            ]);
        }
        table.write(out)?;
        for row in &self.runs {
            if let Some(damage) = &row.damage {
                writeln!(out, "{}: {}", row.name, damage_text(damage))?;
            }
        }
        Ok(())
    }
}

impl Runs {
    /// Reads every run's manifest and solution and prints the table.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        // A mistyped --data must not read as "no runs yet"; the default directory is only
        // missing until the first solve.
        let data = match self.data.data {
            Some(data) => {
                check_data_dir(&data)?;
                data
            }
            None => PathBuf::from(DEFAULT_DATA_DIR),
        };
        let runs = list(&data)
            .into_iter()
            .map(|item| match item {
                Ok(run) => RunSummary::of(&run).into(),
                Err((path, err)) => RunRow::from(RunSummary {
                    name: path.file_name().map_or_else(
                        || path.display().to_string(),
                        |n| n.to_string_lossy().into(),
                    ),
                    path,
                    game: String::new(),
                    fingerprint: String::new(),
                    options: None,
                    finished: false,
                    proven: false,
                    unchecked_claims: 0,
                    first_guess_fixed: None,
                    label: None,
                    claim: String::new(),
                    first_guess: None,
                    total: None,
                    answers: 0,
                    tries: 0,
                    damage: None,
                    error: Some(hakase_proto::error::Chain(&*err).to_string()),
                }),
            })
            .collect();
        let view = RunsJson {
            data: data.display().to_string(),
            runs,
        };
        emit(out, self.output, &view)
    }
}
