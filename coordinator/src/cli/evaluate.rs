//! `hakase evaluate`: how a strategy fares when it plays against every possible answer.

use std::io::Write;

use anyhow::{Context, Result};
use clap::builder::PossibleValuesParser;
use clap::Args;
use hakase_core::heuristics::strategy::STRATEGY_NAMES;
use hakase_core::trees::tree::build_tree;
use serde::Serialize;

use super::{answer_words, strategy};
use crate::game_args::GameArgs;
use crate::output::{emit, plural, write_words, JsonArg, Table, View};

/// Play a strategy against every answer: guesses needed, mean, worst, failures.
///
/// The strategy is written out once as a decision tree (a strategy depends only on the
/// answers still possible, so every game that saw the same colours plays the same), then
/// every answer is played through the tree. Reports the distribution of guesses, the total
/// and mean, the worst case and the answers not found within the game's tries.
#[derive(Debug, Args)]
pub struct Evaluate {
    /// The strategy: entropy (most information), min-expected-size (smallest expected
    /// group left) or frequency (a candidate made of common letters, as people play).
    #[arg(long, short = 's', value_name = "S", default_value = "entropy",
          value_parser = PossibleValuesParser::new(STRATEGY_NAMES))]
    pub strategy: String,

    /// Force the first guess, e.g. レントラー; the strategy plays every later guess.
    #[arg(long, value_name = "W")]
    pub first: Option<String>,

    /// Which game.
    #[command(flatten)]
    pub game: GameArgs,

    /// Text or JSON.
    #[command(flatten)]
    pub output: JsonArg,
}

/// The JSON document. Only games won within the tries count: `distribution[k]` answers
/// were found with `k + 1` guesses (k < tries), `total` and `mean` are over those `won`
/// answers, and `failures` are the answers not found within the tries.
#[derive(Debug, Serialize)]
struct EvaluateJson<'a> {
    game: &'a str,
    strategy: &'a str,
    first_guess: &'a str,
    forced_first: bool,
    answers: usize,
    tries: u32,
    won: u32,
    distribution: Vec<u32>,
    total: u64,
    mean: f64,
    worst: u32,
    failures: Vec<String>,
    unsolved: Vec<String>,
}

impl Evaluate {
    /// Builds the strategy's tree and plays every answer through it.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let loaded = self.game.load_with_table()?;
        let (game, table) = (&loaded.game, &loaded.table);
        let strategy = strategy(&self.strategy)?;
        let answers = game.all_answers();
        let first = match &self.first {
            Some(word) => game.find_guess(word).context("reading --first")?,
            None => strategy.choose(game, table, &answers),
        };
        let choose = |candidates: &[u32], depth: u32| {
            if depth == 1 {
                first
            } else {
                strategy.choose(game, table, candidates)
            }
        };
        let tree = build_tree(table, &answers, 1, &choose);
        let eval = tree.evaluate(game, table, &answers);
        // A game lost after the last try is a failure, not a win in more guesses.
        let tries = game.tries() as usize;
        let distribution: Vec<u32> = eval.distribution.iter().take(tries).copied().collect();
        let won: u32 = distribution.iter().sum();
        let total: u64 = (1u64..)
            .zip(&distribution)
            .map(|(k, &n)| k * u64::from(n))
            .sum();
        let view = EvaluateJson {
            game: game.name(),
            strategy: strategy.name(),
            first_guess: game.guess_text(first),
            forced_first: self.first.is_some(),
            answers: answers.len(),
            tries: game.tries(),
            won,
            worst: distribution
                .iter()
                .rposition(|&n| n > 0)
                .map_or(0, |k| k as u32 + 1),
            distribution,
            total,
            mean: if won == 0 {
                0.0
            } else {
                total as f64 / f64::from(won)
            },
            failures: answer_words(game, &eval.failures),
            unsolved: answer_words(game, &eval.unsolved),
        };
        emit(out, self.output, &view)
    }
}

impl View for EvaluateJson<'_> {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        // A customised game's name already says its tries ("wordle (4 tries)", "(1 try)").
        let tries = if self.game.ends_with(" tries)") || self.game.ends_with(" try)") {
            String::new()
        } else {
            format!(", {}", plural(self.tries, "try", "tries"))
        };
        writeln!(
            out,
            "Strategy {}, first guess {}, on {} ({}{tries})",
            self.strategy,
            self.first_guess,
            self.game,
            plural(self.answers as u64, "answer", "answers"),
        )?;
        let mut table = Table::new(&[">GUESSES", ">ANSWERS"]);
        for (k, count) in self.distribution.iter().enumerate() {
            table.row(vec![(k + 1).to_string(), count.to_string()]);
        }
        table.write(out)?;
        writeln!(
            out,
            "won {} of {}: total {}, mean {:.5}, worst {}; {}",
            self.won,
            self.answers,
            plural(self.total, "guess", "guesses"),
            self.mean,
            self.worst,
            plural(self.failures.len() as u64, "failure", "failures"),
        )?;
        if !self.failures.is_empty() {
            writeln!(
                out,
                "not found within {} ({} never found at all):",
                plural(self.tries, "try", "tries"),
                self.unsolved.len()
            )?;
            write_words(out, &self.failures)?;
        }
        Ok(())
    }
}
