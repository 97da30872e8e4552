//! `hakase candidates`: the answers still possible after the guesses played so far.

use std::io::Write;

use anyhow::Result;
use clap::Args;
use serde::Serialize;

use super::{answer_words, write_json, write_words, HistoryArgs};
use crate::game_args::GameArgs;

/// List the answers that fit every guess played so far.
///
/// Example: `hakase candidates --game pokemon-qiita2023 --history 'レントラー=灰灰灰灰緑'`
/// prints the 23 names that end in ー and share no other letter with レントラー.
#[derive(Debug, Args)]
pub struct Candidates {
    /// The guesses played so far.
    #[command(flatten)]
    pub history: HistoryArgs,

    /// Which game.
    #[command(flatten)]
    pub game: GameArgs,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The JSON document.
#[derive(Debug, Serialize)]
struct CandidatesJson<'a> {
    game: &'a str,
    history: Vec<String>,
    count: usize,
    candidates: Vec<String>,
}

impl Candidates {
    /// Filters the answers by the history and prints what is left.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let loaded = self.game.load_with_table()?;
        let game = &loaded.game;
        let (steps, candidates) = self.history.candidates(game, &loaded.table)?;
        let history: Vec<String> = steps.iter().map(|s| s.display(game)).collect();
        let words = answer_words(game, &candidates);
        if self.json {
            return write_json(
                out,
                &CandidatesJson {
                    game: game.name(),
                    history,
                    count: words.len(),
                    candidates: words,
                },
            );
        }
        let plural = if words.len() == 1 { "" } else { "s" };
        if history.is_empty() {
            writeln!(
                out,
                "{} possible answer{plural} before any guess:",
                words.len()
            )?;
        } else {
            writeln!(
                out,
                "{} possible answer{plural} after {}:",
                words.len(),
                history.join(" ")
            )?;
        }
        write_words(out, &words)
    }
}
