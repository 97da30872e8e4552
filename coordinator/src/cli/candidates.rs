//! `hakase candidates`: the answers still possible after the guesses played so far.

use std::io::Write;

use anyhow::Result;
use clap::Args;
use serde::Serialize;

use super::{answer_words, HistoryArgs};
use crate::game_args::GameArgs;
use crate::output::{emit, plural, write_words, JsonArg, View};

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

    /// Text or JSON.
    #[command(flatten)]
    pub output: JsonArg,
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
        emit(
            out,
            self.output,
            &CandidatesJson {
                game: game.name(),
                history,
                count: words.len(),
                candidates: words,
            },
        )
    }
}

impl View for CandidatesJson<'_> {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        let count = plural(self.count as u64, "possible answer", "possible answers");
        if self.history.is_empty() {
            writeln!(out, "{count} before any guess:")?;
        } else {
            writeln!(out, "{count} after {}:", self.history.join(" "))?;
        }
        write_words(out, &self.candidates)
    }
}
