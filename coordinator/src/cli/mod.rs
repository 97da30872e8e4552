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
pub mod first_list;
pub mod games;
pub mod guard;
pub mod outcome;
pub mod play;
pub mod plot;
pub mod puzzle;
pub mod query;
pub mod rank;
pub mod ranking;
pub mod ranking_check;
pub mod review;
pub mod run_args;
pub mod runs;
pub mod serve;
pub mod shell;
pub mod solve;
pub mod solver_args;
pub mod status;
pub mod verify;
pub mod worker;

pub use crate::output::{pad, write_json, write_words};
use anyhow::{anyhow, Context, Result};
use clap::Args;
use hakase_core::heuristics::strategy::{by_name, Strategy, STRATEGY_NAMES};
use hakase_core::rules::history::{filter, Step};
use hakase_core::{AnswerId, FeedbackTable, Game, GuessId, PatternStyle};

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
