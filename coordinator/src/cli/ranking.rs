//! `hakase ranking`: every first guess of a run with its exact value and rank, while the run
//! goes on and after, as text, TSV for spreadsheets, or JSON; without a run, the rankings of
//! English Wordle shipped with hakase.

use std::io::Write;

use crate::output::{emit, plural, JsonArg, Table, View};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use hakase_core::rankings::SHIPPED_GAME;
use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{Mode, SolverConfig};
use hakase_query::ranking::{load_ranking, RankedGuess, RankingError, RankingView, RunRanking};

use crate::cli::ranking_check::{CheckedView, RowCheck};

/// Print the ranking of first guesses of a run: each one's exact total, mean and rank (or a
/// proven lower bound where the run cut it off). Works on a run still in progress. Without
/// --run, `--game wordle [--hard]` answers from the exact rankings shipped with hakase.
///
/// The run is e.g. wordle-rank-all from `hakase solve --game wordle --rank-all`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("ranked").args(["run", "game"]).required(true)))]
pub struct Ranking {
    /// The run to rank the first guesses of.
    #[command(flatten)]
    pub at: crate::cli::run_args::RunArgs,

    /// Without --run: the game whose shipped ranking to read (only `wordle` is shipped: every
    /// opener of the original lists, 2315 answers and 12,972 guesses).
    #[arg(long, short = 'g', value_name = "G", conflicts_with = "run")]
    pub game: Option<String>,

    /// With --game: the hard-mode ranking (an opener that cannot win every answer within 6
    /// is listed as such).
    #[arg(long, requires = "game")]
    pub hard: bool,

    /// Re-solve the rows shown (--word, or the --top rows) from scratch with the exact
    /// solver and say whether each matches; exit status 1 when one does not.
    #[arg(long)]
    pub check: bool,

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
    /// Reads the run's ranking (or the shipped one) and prints it, re-solving the rows shown
    /// with --check.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let ranking = self.load()?;
        let format = if self.output.json {
            RankingFormat::Json
        } else {
            self.format
        };
        // Text shows the best 20 unless asked; TSV and JSON are exports, whole by default.
        let top = self.top.or((format == RankingFormat::Text).then_some(20));
        let view = RankingView::select(&ranking, &self.word, top).context("--word")?;
        let checks = if self.check {
            Some(RowCheck::all(&ranking, &view.rows)?)
        } else {
            None
        };
        let checked = CheckedView {
            view: &view,
            checks: checks.as_deref(),
        };
        match format {
            RankingFormat::Tsv => {
                write_tsv(out, &view.rows)?;
                if let Some(checks) = &checks {
                    RowCheck::write_text(&mut std::io::stderr(), checks)?;
                }
            }
            RankingFormat::Json => emit(out, JsonArg { json: true }, &checked)?,
            RankingFormat::Text => emit(out, JsonArg { json: false }, &checked)?,
        }
        let differ = checks.iter().flatten().filter(|c| !c.matches).count();
        if differ > 0 {
            bail!(
                "{differ} of {} re-solved rows differ from the ranking",
                checks.map_or(0, |c| c.len())
            );
        }
        Ok(())
    }

    /// The run's ranking, or with --game the shipped one.
    fn load(&self) -> Result<RunRanking> {
        // A run error is passed on as itself, so that its kind (not found, …) is reported.
        let unwrap = |e: RankingError| match e {
            RankingError::Run(e) => anyhow::Error::new(e),
            other => anyhow::Error::new(other),
        };
        match (self.at.spec(), &self.game) {
            (Some(run), _) => load_ranking(run, &self.at.data_dir()).map_err(unwrap),
            (None, Some(game)) => {
                let game = load_preset(game).with_context(|| format!("loading game {game:?}"))?;
                let config = SolverConfig {
                    mode: if self.hard { Mode::Hard } else { Mode::Normal },
                    ..SolverConfig::default()
                };
                RunRanking::shipped(game, config).map_err(unwrap)
            }
            (None, None) => bail!("give --run R, or --game {SHIPPED_GAME} for the shipped ranking"),
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
