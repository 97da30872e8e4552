//! `hakase rank`: every allowed guess ranked by the information its colours give.

use std::io::Write;

use anyhow::Result;
use clap::Args;
use hakase_core::entropy::rank;
use serde::Serialize;

use super::{pad, write_json, HistoryArgs};
use crate::game_args::GameArgs;

/// Rank the allowed guesses by entropy (bits of information about the answer).
///
/// Entropy is what a guess's colours tell you about the answer, on average, in bits. A guess whose colours split the possible answers into many small, even groups scores
/// high. Ties keep list order (Pokédex order for Pokémon). With --history, only the
/// answers still possible count.
#[derive(Debug, Args)]
pub struct Rank {
    /// How many guesses to show; 0 shows all.
    #[arg(long, value_name = "N", default_value_t = 15)]
    pub top: usize,

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

/// One ranked guess.
#[derive(Debug, Serialize)]
struct RankedJson<'a> {
    rank: usize,
    word: &'a str,
    bits: f64,
    /// True when the guess could itself be the answer.
    possible_answer: bool,
}

/// The JSON document.
#[derive(Debug, Serialize)]
struct RankJson<'a> {
    game: &'a str,
    history: Vec<String>,
    candidates: usize,
    guesses: usize,
    ranking: Vec<RankedJson<'a>>,
}

impl Rank {
    /// Ranks every guess over the remaining answers and prints the best.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let loaded = self.game.load_with_table()?;
        let game = &loaded.game;
        let (steps, candidates) = self.history.candidates(game, &loaded.table)?;
        let mut ranked = rank(&loaded.table, &candidates);
        let total = ranked.len();
        if self.top > 0 {
            ranked.truncate(self.top);
        }
        let history: Vec<String> = steps.iter().map(|s| s.display(game)).collect();
        if self.json {
            let ranking = ranked
                .iter()
                .enumerate()
                .map(|(i, r)| RankedJson {
                    rank: i + 1,
                    word: game.guess_text(r.guess),
                    bits: r.bits,
                    possible_answer: game
                        .guess_as_answer(r.guess)
                        .is_some_and(|a| candidates.binary_search(&a).is_ok()),
                })
                .collect();
            return write_json(
                out,
                &RankJson {
                    game: game.name(),
                    history,
                    candidates: candidates.len(),
                    guesses: total,
                    ranking,
                },
            );
        }
        writeln!(
            out,
            "{} of {total} guesses by entropy over {} possible answers ({}{}{})",
            if ranked.len() == total {
                "All".to_string()
            } else {
                format!("Best {}", ranked.len())
            },
            candidates.len(),
            game.name(),
            if history.is_empty() { "" } else { ", after " },
            history.join(" ")
        )?;
        writeln!(out, "RANK  {}  BITS", pad("WORD", 10))?;
        for (i, r) in ranked.iter().enumerate() {
            writeln!(
                out,
                "{:>4}  {}  {:.5}",
                i + 1,
                pad(game.guess_text(r.guess), 10),
                r.bits
            )?;
        }
        Ok(())
    }
}
