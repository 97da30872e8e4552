//! `hakase query`: the optimal next guess of a game in progress, answered from a run.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use hakase_coordinator::query::run::{self, LoadedRun, DEFAULT_DATA_DIR};
use hakase_coordinator::query::treerun::load_tree_file;
use hakase_coordinator::query::view::NextView;
use hakase_core::history::Step;
use hakase_core::query::{NextGuess, Source};
use serde::Serialize;

use super::{answer_words, write_json, write_words, HistoryArgs};

/// Which run to answer from; shared by every command that reads runs.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// The run: a run directory, or the name of one under --data (see `hakase runs`).
    #[arg(long, value_name = "R", required_unless_present = "tree")]
    pub run: Option<String>,

    /// Answer from a tree file instead (JSON or text, as `solve --tree-out` writes).
    #[arg(long, value_name = "FILE", conflicts_with = "run")]
    pub tree: Option<PathBuf>,

    /// The game of a text tree file (a JSON tree names its own).
    #[arg(long, value_name = "G", requires = "tree")]
    pub game: Option<String>,

    /// The data directory run names are looked up in.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DATA_DIR)]
    pub data: PathBuf,
}

impl RunArgs {
    /// The run called `run` under `data`.
    pub fn named(run: &str, data: &std::path::Path) -> RunArgs {
        RunArgs {
            run: Some(run.to_string()),
            tree: None,
            game: None,
            data: data.to_path_buf(),
        }
    }

    /// Loads the run or tree file into memory (a run database is closed again at once).
    pub fn load(&self) -> Result<LoadedRun> {
        match (&self.tree, &self.run) {
            (Some(tree), _) => load_tree_file(tree, self.game.as_deref())
                .with_context(|| format!("loading tree file {}", tree.display())),
            (None, Some(spec)) => {
                run::load(spec, &self.data).with_context(|| format!("loading run {spec:?}"))
            }
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
    pub run: RunArgs,

    /// The guesses played so far.
    #[command(flatten)]
    pub history: HistoryArgs,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

impl Query {
    /// Loads the run, answers and prints.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
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
        writeln!(out, "won in {} guesses: {answer}", view.steps)?;
        return Ok(());
    }
    let history: Vec<String> = steps.iter().map(|s| s.display(&run.game)).collect();
    let after = if history.is_empty() {
        "before any guess".to_string()
    } else {
        format!("after {}", history.join(" "))
    };
    writeln!(out, "{} answers left {after}", view.candidate_count)?;
    match &view.guess {
        Some(guess) => {
            writeln!(out, "next guess: {guess} ({})", view.origin())?;
            writeln!(
                out,
                "expected {:.5} more guesses (total {}), worst {}, {} guesses left",
                view.expected.unwrap_or(0.0),
                view.total.unwrap_or(0),
                view.worst.unwrap_or(0),
                view.guesses_left
            )?;
        }
        None => writeln!(
            out,
            "no strategy can find every remaining answer within the {} guesses left",
            view.guesses_left
        )?,
    }
    if let Some(words) = &view.candidates {
        write_words(out, words)?;
    }
    Ok(())
}

/// One line of `hakase chart --run --json`.
#[derive(Debug, Serialize)]
struct RunChartRow {
    pattern: String,
    digits: String,
    count: usize,
    second: Option<String>,
    total: u64,
    worst: u32,
    candidates: Vec<String>,
}

/// The JSON of `hakase chart --run`.
#[derive(Debug, Serialize)]
struct RunChartJson {
    run: String,
    game: String,
    first: String,
    source: Source,
    proven: bool,
    claim: String,
    answers: usize,
    total: u64,
    worst: u32,
    rows: Vec<RunChartRow>,
}

/// `hakase chart --run R`: the chart of the run's optimal strategy, in the seed article's
/// layout (`灰灰灰灰灰 67 ゴルダック`) with each branch's total and worst case added.
pub fn write_run_chart(
    out: &mut dyn Write,
    run: &RunArgs,
    first: Option<&str>,
    style: Option<hakase_core::PatternStyle>,
    json: bool,
) -> Result<()> {
    let run = run.load()?;
    let game = &run.game;
    let first = first
        .map(|w| game.find_guess(w).context("reading --first"))
        .transpose()?;
    let oracle = run.oracle()?;
    let chart = oracle.chart(first)?;
    let len = super::guess_len(game, chart.first);
    let style = super::style_or_default(game, style);
    let proven = run.proven();
    if json {
        let rows = chart
            .rows
            .iter()
            .map(|r| RunChartRow {
                pattern: r.row.pattern.format(len, style),
                digits: r.row.pattern.format(len, hakase_core::PatternStyle::Digits),
                count: r.row.candidates.len(),
                second: r.row.second.map(|g| game.guess_text(g).to_string()),
                total: r.total,
                worst: r.worst,
                candidates: answer_words(game, &r.row.candidates),
            })
            .collect();
        return write_json(
            out,
            &RunChartJson {
                run: run.name.clone(),
                game: game.name().to_string(),
                first: game.guess_text(chart.first).to_string(),
                source: chart.source,
                proven,
                claim: run.claim(),
                answers: game.answers().len(),
                total: chart.total,
                worst: chart.worst,
                rows,
            },
        );
    }
    let how = match chart.source {
        Source::Tree => "the run's optimal tree",
        Source::Computed => "the optimum after this first guess, computed on the spot",
    };
    writeln!(
        out,
        "{} on {}: {} answers, {} patterns, second guesses from {how}; total {} (mean {:.5}), worst {}{}",
        game.guess_text(chart.first),
        game.name(),
        game.answers().len(),
        chart.rows.len(),
        chart.total,
        chart.total as f64 / game.answers().len().max(1) as f64,
        chart.worst,
        if proven {
            format!(", {}", run.claim())
        } else {
            String::new()
        }
    )?;
    writeln!(out, "PATTERN LEFT SECOND TOTAL WORST")?;
    for r in &chart.rows {
        let pattern = r.row.pattern.format(len, style);
        match r.row.second {
            Some(g) => writeln!(
                out,
                "{pattern} {} {} {} {}",
                r.row.candidates.len(),
                game.guess_text(g),
                r.total,
                r.worst
            )?,
            None => writeln!(out, "{pattern} {}", r.row.candidates.len())?,
        }
    }
    Ok(())
}
