//! One module per subcommand; this module holds the small pieces several of them share.

pub mod audit;
pub mod candidates;
pub mod chart;
pub mod compare;
pub mod coordinator;
pub mod design;
pub mod display;
pub mod evaluate;
pub mod export;
pub mod feedback;
pub mod games;
pub mod guard;
pub mod play;
pub mod plot;
pub mod puzzle;
pub mod query;
pub mod rank;
pub mod runs;
pub mod serve;
pub mod solve;
pub mod status;
pub mod verify;
pub mod worker;

use std::io::Write;

use anyhow::{anyhow, Context, Result};
use clap::Args;
use hakase_core::history::{filter, Step};
use hakase_core::strategy::{by_name, Strategy, STRATEGY_NAMES};
use hakase_core::{AnswerId, FeedbackTable, Game, GuessId, PatternStyle};
use serde::Serialize;

/// The guesses already played, for commands that continue a game in progress.
#[derive(Debug, Clone, Args)]
pub struct HistoryArgs {
    /// A guess you played and the colours the game showed, as WORD=PATTERN, e.g.
    /// 'レントラー=灰灰灰灰緑' or 'crane=BYGBB'. Repeat for each guess, in order.
    #[arg(long = "history", short = 'H', value_name = "WORD=PATTERN")]
    pub steps: Vec<String>,
}

impl HistoryArgs {
    /// Reads every step; an error names the step that could not be read.
    pub fn parse(&self, game: &Game) -> Result<Vec<Step>> {
        self.steps
            .iter()
            .enumerate()
            .map(|(i, text)| {
                Step::parse(game, text)
                    .with_context(|| format!("reading --history step {} ({text:?})", i + 1))
            })
            .collect()
    }

    /// The answers that fit every step, with the steps as read.
    pub fn candidates(
        &self,
        game: &Game,
        table: &FeedbackTable,
    ) -> Result<(Vec<Step>, Vec<AnswerId>)> {
        let steps = self.parse(game)?;
        let candidates =
            filter(game, table, &steps).context("no possible answer fits the history")?;
        Ok((steps, candidates))
    }
}

/// Looks a strategy up by the name given on the command line.
pub fn strategy(name: &str) -> Result<Box<dyn Strategy>> {
    by_name(name).ok_or_else(|| {
        anyhow!(
            "unknown strategy {name:?} (choose one of {})",
            STRATEGY_NAMES.join(", ")
        )
    })
}

/// Display text of a list of answers.
pub fn answer_words(game: &Game, answers: &[AnswerId]) -> Vec<String> {
    answers
        .iter()
        .map(|&a| game.answer_text(a).to_string())
        .collect()
}

/// Number of letters of a guess: how many cells its pattern has.
pub fn guess_len(game: &Game, guess: GuessId) -> usize {
    game.guesses()[guess as usize].len()
}

/// The pattern style to print in: the one asked for, else the game's own.
pub fn style_or_default(game: &Game, style: Option<PatternStyle>) -> PatternStyle {
    style.unwrap_or_else(|| game.style())
}

/// Writes `value` as pretty JSON followed by a newline.
pub fn write_json(out: &mut dyn Write, value: &impl Serialize) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).context("writing JSON")?;
    writeln!(out)?;
    Ok(())
}

/// Writes words ten to a line, so long candidate lists stay readable.
pub fn write_words(out: &mut dyn Write, words: &[String]) -> Result<()> {
    for line in words.chunks(10) {
        writeln!(out, "{}", line.join(" "))?;
    }
    Ok(())
}

/// `text` padded with spaces to `width` terminal columns (CJK letters take two), so
/// tables of katakana names line up.
pub fn pad(text: &str, width: usize) -> String {
    let used: usize = text.chars().map(display_width).sum();
    format!("{text}{}", " ".repeat(width.saturating_sub(used)))
}

fn display_width(c: char) -> usize {
    let wide = matches!(
        u32::from(c),
        0x1100..=0x115F
            | 0x2E80..=0x303E
            | 0x3041..=0x33FF
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xA000..=0xA4CF
            | 0xAC00..=0xD7A3
            | 0xF900..=0xFAFF
            | 0xFE30..=0xFE4F
            | 0xFF00..=0xFF60
            | 0xFFE0..=0xFFE6
            | 0x1F300..=0x1F64F
            | 0x1F7E0..=0x1F7EB
            | 0x1F900..=0x1F9FF
    );
    if wide {
        2
    } else {
        1
    }
}
