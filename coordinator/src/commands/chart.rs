//! `hakase chart`: the printed crib sheet for one first guess.

use std::io::Write;

use anyhow::{Context, Result};
use clap::builder::PossibleValuesParser;
use clap::Args;
use hakase_core::chart::Chart as CoreChart;
use hakase_core::strategy::STRATEGY_NAMES;
use hakase_core::{AnswerId, PatternStyle};
use serde::Serialize;

use super::{answer_words, guess_len, strategy, style_or_default, write_json};
use crate::game_args::GameArgs;

/// Print a first guess's chart: each pattern, answers left, second guess.
///
/// One line per pattern the first guess can show, with how many answers are left after it
/// and what the strategy guesses second. Each line reads like `灰灰灰灰灰 67 ゴルダック`: if レントラー comes back all gray, 67
/// answers remain and the strategy guesses ゴルダック next. The all-green line is the win.
#[derive(Debug, Args)]
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

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,

    /// Chart the optimal strategy of a solved run instead (a run directory or a name under
    /// --data), with each branch's total and worst case as extra columns.
    #[arg(long, value_name = "R")]
    pub run: Option<String>,

    /// The data directory run names are looked up in.
    #[arg(long, value_name = "DIR", default_value = hakase_coordinator::query::DEFAULT_DATA_DIR)]
    pub data: std::path::PathBuf,
}

/// One chart line; `second` is null on the winning line.
#[derive(Debug, Serialize)]
struct RowJson<'a> {
    pattern: String,
    digits: String,
    count: usize,
    second: Option<&'a str>,
    candidates: Vec<String>,
}

/// The JSON document.
#[derive(Debug, Serialize)]
struct ChartJson<'a> {
    game: &'a str,
    first: &'a str,
    strategy: &'a str,
    answers: usize,
    rows: Vec<RowJson<'a>>,
}

impl Chart {
    /// Splits the answers by the first guess's patterns and asks the strategy for each part.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        if let Some(run) = &self.run {
            let run = super::query::RunArgs::named(run, &self.data);
            return super::query::write_run_chart(
                out,
                &run,
                self.first.as_deref(),
                self.style,
                self.json,
            );
        }
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
        if self.json {
            let rows = chart
                .rows
                .iter()
                .map(|row| RowJson {
                    pattern: row.pattern.format(len, style),
                    digits: row.pattern.format(len, PatternStyle::Digits),
                    count: row.candidates.len(),
                    second: row.second.map(|g| game.guess_text(g)),
                    candidates: answer_words(game, &row.candidates),
                })
                .collect();
            return write_json(
                out,
                &ChartJson {
                    game: game.name(),
                    first: game.guess_text(first),
                    strategy: strategy.name(),
                    answers: game.answers().len(),
                    rows,
                },
            );
        }
        writeln!(
            out,
            "{} on {}: {} answers, {} patterns, second guesses by {}",
            game.guess_text(first),
            game.name(),
            game.answers().len(),
            chart.rows.len(),
            strategy.name()
        )?;
        for row in &chart.rows {
            let pattern = row.pattern.format(len, style);
            match row.second {
                Some(g) => writeln!(
                    out,
                    "{pattern} {} {}",
                    row.candidates.len(),
                    game.guess_text(g)
                )?,
                None => writeln!(out, "{pattern} {}", row.candidates.len())?,
            }
        }
        Ok(())
    }
}
