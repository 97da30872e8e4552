//! `hakase rank`: every allowed guess ranked by the information its colours give.

use std::io::Write;

use anyhow::Result;
use clap::Args;
use hakase_core::heuristics::entropy::rank;
use serde::Serialize;

use super::HistoryArgs;
use crate::game_args::GameArgs;
use crate::output::{emit, plural, JsonArg, Table, View};

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

    /// Text or JSON.
    #[command(flatten)]
    pub output: JsonArg,
}

/// One ranked guess.
#[derive(Debug, Serialize)]
struct RankedJson<'a> {
    rank: usize,
    guess: &'a str,
    bits: f64,
    /// True when the guess could itself be the answer.
    possible_answer: bool,
}

/// The JSON document.
#[derive(Debug, Serialize)]
struct RankJson<'a> {
    game: &'a str,
    history: Vec<String>,
    /// Possible answers the entropy is measured over.
    answers: usize,
    /// Guesses ranked (the list shows the best `--top`).
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
        let ranking = ranked
            .iter()
            .enumerate()
            .map(|(i, r)| RankedJson {
                rank: i + 1,
                guess: game.guess_text(r.guess),
                bits: r.bits,
                possible_answer: game
                    .guess_as_answer(r.guess)
                    .is_some_and(|a| candidates.binary_search(&a).is_ok()),
            })
            .collect();
        let view = RankJson {
            game: game.name(),
            history,
            answers: candidates.len(),
            guesses: total,
            ranking,
        };
        emit(out, self.output, &view)
    }
}

impl View for RankJson<'_> {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        let shown = self.ranking.len();
        writeln!(
            out,
            "{} of {} by entropy over {} ({}{}{})",
            if shown == self.guesses {
                "All".to_string()
            } else {
                format!("Best {shown}")
            },
            plural(self.guesses as u64, "guess", "guesses"),
            plural(self.answers as u64, "possible answer", "possible answers"),
            self.game,
            if self.history.is_empty() {
                ""
            } else {
                ", after "
            },
            self.history.join(" ")
        )?;
        let mut table = Table::new(&[">RANK", "GUESS", ">BITS"]);
        for r in &self.ranking {
            table.row(vec![
                r.rank.to_string(),
                r.guess.to_string(),
                format!("{:.5}", r.bits),
            ]);
        }
        table.write(out)
    }
}
