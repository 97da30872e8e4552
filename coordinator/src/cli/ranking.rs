//! `hakase ranking`: every first guess of a run with its exact value and rank, while the run
//! goes on and after, as text, TSV for spreadsheets, or JSON.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, ValueEnum};
use hakase_coordinator::output::{emit, plural, JsonArg, Table, View};
use hakase_coordinator::query::ranking::{load_ranking, RankedGuess, RankingError, RunRanking};
use hakase_coordinator::runs::DEFAULT_DATA_DIR;
use hakase_core::solver::SolverConfig;
use serde::Serialize;

use hakase_coordinator::runs::RunScope;

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

/// What `hakase ranking` prints as JSON.
#[derive(Debug, Serialize)]
struct RankingView {
    run: String,
    game: String,
    answers: usize,
    options: SolverConfig,
    /// `best`, `rank_all` or `listed`.
    scope: &'static str,
    /// First guesses the run settles in all (0 while not yet known).
    first_guesses: usize,
    settled: usize,
    finished: bool,
    /// What the values may claim.
    claim: String,
    rows: Vec<RankedGuess>,
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
        let rows = if self.word.is_empty() {
            let top = self.top.unwrap_or(match format {
                RankingFormat::Text => 20,
                _ => usize::MAX,
            });
            ranking.rows.iter().take(top).cloned().collect()
        } else {
            ranking.rows_of(&self.word)?
        };
        let view = RankingView {
            run: ranking.name.clone(),
            game: ranking.game.name().to_string(),
            answers: ranking.game.answers().len(),
            options: ranking.config.clone(),
            scope: match ranking.scope {
                RunScope::Best => "best",
                RunScope::RankAll => "rank_all",
                RunScope::Listed(_) => "listed",
            },
            first_guesses: ranking.first_guesses,
            settled: ranking.settled(),
            finished: ranking.finished,
            claim: claim(&ranking),
            rows,
        };
        match format {
            RankingFormat::Tsv => write_tsv(out, &view.rows),
            RankingFormat::Json => emit(out, JsonArg { json: true }, &view),
            RankingFormat::Text => emit(out, JsonArg { json: false }, &view),
        }
    }
}

/// What the values of a ranking may claim, in words.
fn claim(ranking: &RunRanking) -> String {
    let settled = ranking.settled();
    let state = match (ranking.finished, ranking.first_guesses) {
        (true, _) => String::new(),
        (false, 0) => format!(" so far ({settled} settled; in progress)"),
        (false, total) => format!(" so far ({settled} of {total} settled; in progress)"),
    };
    match &ranking.scope {
        RunScope::RankAll => format!("exact values of every first guess{state}"),
        RunScope::Listed(list) => format!(
            "exact values of the {} listed{state}",
            plural(list.len() as u64, "first guess", "first guesses")
        ),
        RunScope::Best => format!(
            "the best first guess exact, the others proven lower bounds (≥) where they were cut \
             off{state}"
        ),
    }
}

impl View for RankingView {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
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
            let (total, mean) = cells(row);
            let rank = row.rank.map_or_else(|| "—".to_string(), |r| r.to_string());
            table.row(vec![rank, row.guess.clone(), total, mean]);
        }
        table.write(out)
    }
}

/// The total and mean cells of a row: `≥ v` for a bound, `cannot win`, or `not settled`.
fn cells(row: &RankedGuess) -> (String, String) {
    let mean = row.mean.map_or_else(String::new, |m| format!("{m:.4}"));
    let total = match (row.settled, row.total, row.exact) {
        (false, _, _) => "not settled".to_string(),
        (true, Some(t), true) => t.to_string(),
        (true, Some(t), false) => format!("≥ {t}"),
        (true, None, _) => "cannot win".to_string(),
    };
    (total, mean)
}

/// Every row as tab-separated values: rank, guess, total, mean, exact, settled.
fn write_tsv(out: &mut dyn Write, rows: &[RankedGuess]) -> Result<()> {
    writeln!(out, "rank\tguess\ttotal\tmean\texact\tsettled")?;
    for row in rows {
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}",
            row.rank.map_or_else(String::new, |r| r.to_string()),
            row.guess,
            row.total.map_or_else(String::new, |t| t.to_string()),
            row.mean.map_or_else(String::new, |m| format!("{m:.6}")),
            row.exact,
            row.settled
        )?;
    }
    Ok(())
}
