//! `hakase ranking`: every first guess of a run with its exact value and rank, while the run
//! goes on and after, as text, TSV for spreadsheets, or JSON.

use std::io::Write;
use std::path::PathBuf;

use crate::output::{emit, plural, JsonArg, Table, View};
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use hakase_query::ranking::{load_ranking, RankedGuess, RankingError, RankingView};
use hakase_runs::DEFAULT_DATA_DIR;

/// Print the ranking of first guesses of a run: each one's exact total, mean and rank (or a
/// proven lower bound where the run cut it off). Works on a run still in progress.
#[derive(Debug, Args)]
pub struct Ranking {
    /// The run: a directory, or a name under --data (see `hakase runs`), e.g.
    /// wordle-rank-all from `hakase solve --game wordle --rank-all`.
    #[arg(long, value_name = "R")]
    pub run: String,

    /// The data directory the run name is looked up in.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DATA_DIR)]
    pub data: PathBuf,

    /// Rows to print, best first (default: 20 as text, all as TSV or JSON).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,

    /// Print only these first guesses, with their ranks (repeatable).
    #[arg(long, value_name = "W")]
    pub word: Vec<String>,

    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: RankingFormat,

    /// The same as --format json (and errors as JSON).
    #[command(flatten)]
    pub output: JsonArg,
}

/// `--format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RankingFormat {
    /// An aligned table with a header line.
    Text,
    /// Tab-separated values with a header row, every row (for spreadsheets and papers).
    Tsv,
    /// One JSON object (field names: docs/json.md).
    Json,
}

impl Ranking {
    /// Reads the run's ranking and prints it.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        // A run error is passed on as itself, so that its kind (not found, …) is reported.
        let ranking = load_ranking(&self.run, &self.data).map_err(|e| match e {
            RankingError::Run(e) => anyhow::Error::new(e),
            other => anyhow::Error::new(other),
        })?;
        let format = if self.output.json {
            RankingFormat::Json
        } else {
            self.format
        };
        // Text shows the best 20 unless asked; TSV and JSON are exports, whole by default.
        let top = self.top.or((format == RankingFormat::Text).then_some(20));
        let view = RankingView::select(&ranking, &self.word, top).context("--word")?;
        match format {
            RankingFormat::Tsv => write_tsv(out, &view.rows),
            RankingFormat::Json => emit(out, JsonArg { json: true }, &view),
            RankingFormat::Text => emit(out, JsonArg { json: false }, &view),
        }
    }
}

/// Every row as tab-separated values: rank, guess, total, mean, exact, settled, unchecked.
fn write_tsv(out: &mut dyn Write, rows: &[RankedGuess]) -> Result<()> {
    writeln!(out, "rank\tguess\ttotal\tmean\texact\tsettled\tunchecked")?;
    for row in rows {
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}",
            row.rank.map_or_else(String::new, |r| r.to_string()),
            row.guess,
            row.total.map_or_else(String::new, |t| t.to_string()),
            row.mean.map_or_else(String::new, |m| format!("{m:.6}")),
            row.exact,
            row.settled,
            row.unchecked
        )?;
    }
    Ok(())
}

/// The ranking as text: a table, best first.
impl View for RankingView {
    fn text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(
            out,
            "{} ({}, {}): {}",
            self.run,
            self.game,
            plural(self.answers as u64, "answer", "answers"),
            self.claim
        )?;
        let mut table = Table::new(&[">RANK", "GUESS", ">TOTAL", ">MEAN"]);
        for row in &self.rows {
            let rank = row.rank.map_or_else(|| "—".to_string(), |r| r.to_string());
            table.row(vec![
                rank,
                row.guess.clone(),
                row.total_cell(),
                row.mean_cell(),
            ]);
        }
        table.write(out)
    }
}
