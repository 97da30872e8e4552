//! `hakase query`: the optimal next guess of a game in progress, answered from a run.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{ArgGroup, Args};
use hakase_core::oracle::NextGuess;
use hakase_core::rules::history::Step;
use hakase_query::ranking::{load_ranking, RankingView, RunRanking};
use hakase_query::treerun::load_tree_file;
use hakase_query::view::NextView;
use hakase_runs::{self as run, LoadedRun};

use super::run_args::RunArgs;
use super::{write_json, write_words, HistoryArgs};
use crate::output::plural;

/// What to answer from, a run or a tree file; shared by every command that reads one
/// (`query`, `play`, `plot`, `export`, `chart --run`, `review`).
#[derive(Debug, Clone, Args)]
#[command(group(ArgGroup::new("source").args(["run", "tree"]).required(true)))]
pub struct RunSource {
    /// The run.
    #[command(flatten)]
    pub at: RunArgs,

    /// Answer from a tree file instead (JSON or text, as `solve --tree-out` writes).
    #[arg(long, value_name = "FILE", conflicts_with = "run")]
    pub tree: Option<PathBuf>,

    /// The game of a text tree file (a JSON tree names its own).
    #[arg(long, value_name = "G", requires = "tree")]
    pub game: Option<String>,
}

impl RunSource {
    /// The run `at`, not a tree file.
    pub fn of(at: RunArgs) -> RunSource {
        RunSource {
            at,
            tree: None,
            game: None,
        }
    }

    /// Loads the run or tree file into memory (a run database is closed again at once).
    pub fn load(&self) -> Result<LoadedRun> {
        match (&self.tree, self.at.spec()) {
            (Some(tree), _) => load_tree_file(tree, self.game.as_deref())
                .with_context(|| format!("loading tree file {}", tree.display())),
            (None, Some(spec)) => run::load(spec, &self.at.data_dir())
                .with_context(|| format!("loading run {spec:?}")),
            (None, None) => bail!("name a run (--run R) or a tree file (--tree FILE)"),
        }
    }
}

/// The optimal next guess after the guesses played so far, from a solved run.
///
/// Follows the run's proven-optimal tree; if you played something else, the optimum for the
/// answers left is computed on the spot (and the output says so).
#[derive(Debug, Args)]
pub struct Query {
    /// The run to answer from.
    #[command(flatten)]
    pub run: RunSource,

    /// The guesses played so far.
    #[command(flatten)]
    pub history: HistoryArgs,

    /// Instead of a next guess: the exact value and rank of this first guess in the run's
    /// ranking (repeatable); works on a run still in progress.
    #[arg(long, value_name = "W", conflicts_with = "steps")]
    pub opener: Vec<String>,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

impl Query {
    /// Loads the run, answers and prints.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        if !self.opener.is_empty() {
            return self.openers(out);
        }
        let run = self.run.load()?;
        let steps = self.history.parse(&run.game)?;
        let oracle = run.oracle()?;
        let next = oracle.next_guess(&steps)?;
        if self.json {
            return write_json(out, &NextView::new(&run, &next));
        }
        write_next(out, &run, &steps, &next)
    }
}

impl Query {
    /// `--opener W…`: each word's row of the run's ranking.
    fn openers(&self, out: &mut dyn Write) -> Result<()> {
        let ranking = match (&self.run.tree, self.run.at.spec()) {
            (None, Some(spec)) => load_ranking(spec, &self.run.at.data_dir())
                .with_context(|| format!("reading the ranking of run {spec:?}"))?,
            _ => {
                let run = self.run.load()?;
                RunRanking::of_loaded(&run)
                    .with_context(|| format!("run {} has no stored values yet", run.name))?
            }
        };
        let view = RankingView::select(&ranking, &self.opener, None).context("--opener")?;
        if self.json {
            return write_json(out, &view);
        }
        let of = if ranking.finished {
            ranking.settled()
        } else {
            ranking.first_guesses
        };
        for row in &view.rows {
            if !row.settled {
                writeln!(out, "{}: not settled yet", row.guess)?;
                continue;
            }
            let place = match (row.rank, row.exact, row.total) {
                (Some(rank), ..) => format!("rank {rank} of {}", ranking.settled()),
                (None, true, _) => {
                    "exact, not ranked: a guess cut off at a lower bound may be worth less"
                        .to_string()
                }
                (None, false, Some(_)) => "a proven lower bound, not ranked".to_string(),
                (None, false, None) => "not ranked".to_string(),
            };
            let mean = row
                .mean
                .map_or_else(String::new, |m| format!(" (mean {m:.4})"));
            writeln!(
                out,
                "{}: total {}{mean}, {place}",
                row.guess,
                row.total_cell()
            )?;
        }
        writeln!(
            out,
            "{} ({}, {} first guesses): {}",
            view.run, view.game, of, view.claim
        )?;
        Ok(())
    }
}

/// Prints an answer as text (shared with `hakase play`), rendered from the query side's one
/// view model.
pub fn write_next(
    out: &mut dyn Write,
    run: &LoadedRun,
    steps: &[Step],
    next: &NextGuess,
) -> Result<()> {
    let view = NextView::new(run, next);
    if view.won {
        let answer = view
            .candidates
            .as_ref()
            .and_then(|c| c.first())
            .map_or("?", |a| a.as_str());
        writeln!(
            out,
            "won in {}: {answer}",
            plural(view.steps as u64, "guess", "guesses")
        )?;
        return Ok(());
    }
    let history: Vec<String> = steps.iter().map(|s| s.display(&run.game)).collect();
    let after = if history.is_empty() {
        "before any guess".to_string()
    } else {
        format!("after {}", history.join(" "))
    };
    writeln!(
        out,
        "{} {after}",
        plural(view.count as u64, "answer left", "answers left")
    )?;
    match &view.guess {
        Some(guess) => {
            writeln!(out, "next guess: {guess} ({})", view.origin())?;
            writeln!(
                out,
                "expected {:.5} more guesses (total {}), worst {}, {} left",
                view.mean.unwrap_or(0.0),
                view.total.unwrap_or(0),
                view.worst.unwrap_or(0),
                plural(view.guesses_left, "guess", "guesses")
            )?;
        }
        None => writeln!(
            out,
            "no strategy can find every remaining answer within the {} left",
            plural(view.guesses_left, "guess", "guesses")
        )?,
    }
    if let Some(words) = &view.candidates {
        write_words(out, words)?;
    }
    Ok(())
}
