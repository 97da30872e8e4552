//! `hakase chart`: the printed crib sheet for one first guess.

use std::io::Write;

use anyhow::{Context, Result};
use clap::builder::PossibleValuesParser;
use clap::Args;
use hakase_core::heuristics::strategy::STRATEGY_NAMES;
use hakase_core::trees::chart::Chart as CoreChart;
use hakase_core::{AnswerId, PatternStyle};
use serde::Serialize;

use super::query::RunSource;
use super::run_args::RunArgs;
use super::{answer_words, guess_len, strategy, style_or_default};
use crate::game_args::GameArgs;
use crate::output::chart_table::{write_chart_lines, ChartLine};
use crate::output::{emit, plural, JsonArg, Label, View};

/// Print a first guess's chart: each pattern, answers left, second guess.
///
/// One line per pattern the first guess can show, with how many answers are left after it
/// and what the strategy guesses second. A line like `灰灰灰灰灰  67  ゴルダック` reads: if レントラー
/// comes back all gray, 67 answers remain and the strategy guesses ゴルダック next. The
/// all-green line, `(won)`, is the win.
///
/// With --run, the chart is a solved run's optimal strategy, with each branch's total and
/// worst case as extra columns; the run decides the game and the strategy, so --game,
/// --answers, --guesses, --tries and --strategy are refused with it.
#[derive(Debug, Args)]
#[command(group(
    clap::ArgGroup::new("from_run")
        .args(["run"])
        .conflicts_with_all(["game", "answers", "guesses", "tries", "strategy"])
))]
pub struct Chart {
    /// The first guess, e.g. レントラー. Default: the strategy's own first guess.
    #[arg(long, value_name = "W")]
    pub first: Option<String>,

    /// Let --first be any string of at most 5 letters, not only an allowed guess (e.g. a
    /// string from `hakase design`); later guesses are still the game's words.
    #[arg(long, requires = "first", conflicts_with = "run")]
    pub allow_any_first: bool,

    /// The strategy choosing the second guesses: entropy, min-expected-size or frequency.
    #[arg(long, short = 's', value_name = "S", default_value = "entropy",
          value_parser = PossibleValuesParser::new(STRATEGY_NAMES))]
    pub strategy: String,

    /// How to print patterns: kanji (灰黄緑), letters (BYG), emoji (⬛🟨🟩) or digits (012).
    /// Default: the game's own.
    #[arg(long, value_name = "STYLE")]
    pub style: Option<PatternStyle>,

    /// Which game.
    #[command(flatten)]
    pub game: GameArgs,

    /// Text or JSON.
    #[command(flatten)]
    pub output: JsonArg,

    /// The solved run to chart instead.
    #[command(flatten)]
    pub at: RunArgs,
}

/// One chart line; `second_guess` is null on the winning line, `total` and `worst` (the
/// branch's guesses under optimal play) are null on a heuristic chart.
#[derive(Debug, Serialize)]
struct RowJson {
    pattern: String,
    digits: String,
    count: usize,
    second_guess: Option<String>,
    total: Option<u64>,
    worst: Option<u32>,
    candidates: Vec<String>,
}

/// The JSON document of both kinds of chart.
#[derive(Debug, Serialize)]
struct ChartJson {
    game: String,
    /// The run charted, null for a heuristic chart.
    run: Option<String>,
    first_guess: String,
    /// The heuristic choosing second guesses; null when they are optimal (a run's).
    strategy: Option<String>,
    /// The quality of the numbers: "proven-optimal", "exact" or "heuristic".
    label: Label,
    answers: usize,
    total: Option<u64>,
    worst: Option<u32>,
    rows: Vec<RowJson>,
}

impl Chart {
    /// Splits the answers by the first guess's patterns and asks the strategy for each part.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let view = match self.at.spec() {
            Some(_) => self.run_view(&RunSource::of(self.at.clone()))?,
            None => self.heuristic_view()?,
        };
        emit(out, self.output, &view)
    }

    /// The chart of a heuristic strategy on --game.
    fn heuristic_view(&self) -> Result<ChartJson> {
        let loaded = self
            .game
            .load_for_first(self.first.as_deref(), self.allow_any_first)?;
        let (game, table) = (&loaded.game, &loaded.table);
        let strategy = strategy(&self.strategy)?;
        let first = match &self.first {
            Some(word) => game.find_guess(word).context("reading --first")?,
            None => strategy.choose(game, table, &game.all_answers()),
        };
        let second = |candidates: &[AnswerId]| strategy.choose(game, table, candidates);
        let chart = CoreChart::build(game, table, first, &second);
        let len = guess_len(game, first);
        let style = style_or_default(game, self.style);
        let rows = chart
            .rows
            .iter()
            .map(|row| RowJson {
                pattern: row.pattern.format(len, style),
                digits: row.pattern.format(len, PatternStyle::Digits),
                count: row.candidates.len(),
                second_guess: row.second.map(|g| game.guess_text(g).to_string()),
                total: None,
                worst: None,
                candidates: answer_words(game, &row.candidates),
            })
            .collect();
        Ok(ChartJson {
            game: game.name().to_string(),
            run: None,
            first_guess: game.guess_text(first).to_string(),
            strategy: Some(strategy.name().to_string()),
            label: Label::Heuristic,
            answers: game.answers().len(),
            total: None,
            worst: None,
            rows,
        })
    }

    /// The chart of a run's optimal strategy: from its tree, or computed exactly after
    /// another first guess.
    fn run_view(&self, run: &RunSource) -> Result<ChartJson> {
        let run = run.load()?;
        let game = &run.game;
        let first = self
            .first
            .as_deref()
            .map(|w| game.find_guess(w).context("reading --first"))
            .transpose()?;
        let oracle = run.oracle()?;
        let chart = oracle.chart(first)?;
        let len = guess_len(game, chart.first);
        let style = style_or_default(game, self.style);
        let rows = chart
            .rows
            .iter()
            .map(|r| RowJson {
                pattern: r.row.pattern.format(len, style),
                digits: r.row.pattern.format(len, PatternStyle::Digits),
                count: r.row.candidates.len(),
                second_guess: r.row.second.map(|g| game.guess_text(g).to_string()),
                total: r.row.second.map(|_| r.total),
                worst: r.row.second.map(|_| r.worst),
                candidates: answer_words(game, &r.row.candidates),
            })
            .collect();
        Ok(ChartJson {
            game: game.name().to_string(),
            run: Some(run.name.clone()),
            first_guess: game.guess_text(chart.first).to_string(),
            strategy: None,
            label: run.label(chart.first),
            answers: game.answers().len(),
            total: Some(chart.total),
            worst: Some(chart.worst),
            rows,
        })
    }
}

impl View for ChartJson {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        let second = match &self.strategy {
            Some(s) => format!("second guesses by {s}"),
            None => "second guesses optimal".to_string(),
        };
        let summary = match (self.total, self.worst) {
            (Some(total), Some(worst)) => format!(
                "; total {total} (mean {:.5}), worst {worst}, {}",
                total as f64 / self.answers.max(1) as f64,
                self.label.claim(
                    self.label
                        .given_first()
                        .then_some(self.first_guess.as_str())
                )
            ),
            _ => String::new(),
        };
        writeln!(
            out,
            "{} on {}: {}, {}, {second}{summary}",
            self.first_guess,
            self.game,
            plural(self.answers as u64, "answer", "answers"),
            plural(self.rows.len() as u64, "pattern", "patterns"),
        )?;
        let lines: Vec<ChartLine> = self
            .rows
            .iter()
            .map(|row| ChartLine {
                pattern: row.pattern.clone(),
                count: row.count,
                second_guess: row.second_guess.clone(),
                total: row.total,
                worst: row.worst,
            })
            .collect();
        write_chart_lines(out, &lines, self.strategy.is_none())
    }
}
