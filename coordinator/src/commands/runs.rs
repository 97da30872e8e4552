//! `hakase runs`: the runs under the data directory.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use hakase_coordinator::query::run::{list, RunSummary, DEFAULT_DATA_DIR};

use super::{pad, write_json};

/// List the runs found under the data directory: name, game, options, state, best first
/// guess and total.
#[derive(Debug, Args)]
pub struct Runs {
    /// The data directory (itself a run, or holding one run per subdirectory).
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DATA_DIR)]
    pub data: PathBuf,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

impl Runs {
    /// Reads every run's manifest and solution and prints the table.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let rows: Vec<RunSummary> = list(&self.data)
            .into_iter()
            .map(|item| match item {
                Ok(run) => run.summary(),
                Err((path, err)) => RunSummary {
                    name: path.file_name().map_or_else(
                        || path.display().to_string(),
                        |n| n.to_string_lossy().into(),
                    ),
                    path,
                    game: String::new(),
                    fingerprint: String::new(),
                    options: String::new(),
                    finished: false,
                    proven: false,
                    first_guess_fixed: None,
                    claim: String::new(),
                    best_first_guess: None,
                    total: None,
                    answers: 0,
                    tries: 0,
                    error: Some(err.to_string()),
                },
            })
            .collect();
        if self.json {
            return write_json(out, &rows);
        }
        if rows.is_empty() {
            writeln!(out, "no runs under {}", self.data.display())?;
            return Ok(());
        }
        writeln!(out, "{} GAME  STATE  BEST  TOTAL  OPTIONS", pad("NAME", 20))?;
        for row in rows {
            if let Some(err) = &row.error {
                writeln!(out, "{} unreadable: {err}", pad(&row.name, 20))?;
                continue;
            }
            let whole_proof = row.proven && row.first_guess_fixed.is_none();
            let state = match (row.finished, whole_proof) {
                (true, true) => "finished (proven)".to_string(),
                (true, false) => format!("finished ({})", row.claim),
                (false, _) => "unfinished".to_string(),
            };
            writeln!(
                out,
                "{} {}  {state}  {}  {}  {}",
                pad(&row.name, 20),
                row.game,
                row.best_first_guess.as_deref().unwrap_or("-"),
                row.total.map_or("-".to_string(), |t| t.to_string()),
                row.options
            )?;
        }
        Ok(())
    }
}
