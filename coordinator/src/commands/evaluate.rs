//! `hakase evaluate`: how a strategy fares when it plays against every possible answer.

use std::io::Write;

use anyhow::{Context, Result};
use clap::builder::PossibleValuesParser;
use clap::Args;
use hakase_core::strategy::STRATEGY_NAMES;
use hakase_core::tree::build_tree;
use serde::Serialize;

use super::{answer_words, strategy, write_json, write_words};
use crate::game_args::GameArgs;

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

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The JSON document; `distribution[k]` answers took `k + 1` guesses.
#[derive(Debug, Serialize)]
struct EvaluateJson<'a> {
    game: &'a str,
    strategy: &'a str,
    first: &'a str,
    forced_first: bool,
    answers: usize,
    tries: u32,
    distribution: &'a [u32],
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
        let failures = answer_words(game, &eval.failures);
        let unsolved = answer_words(game, &eval.unsolved);
        if self.json {
            return write_json(
                out,
                &EvaluateJson {
                    game: game.name(),
                    strategy: strategy.name(),
                    first: game.guess_text(first),
                    forced_first: self.first.is_some(),
                    answers: answers.len(),
                    tries: game.tries(),
                    distribution: &eval.distribution,
                    total: eval.total,
                    mean: eval.mean(),
                    worst: eval.worst,
                    failures,
                    unsolved,
                },
            );
        }
        writeln!(
            out,
            "Strategy {}, first guess {}, on {} ({} answers, {} tries)",
            strategy.name(),
            game.guess_text(first),
            game.name(),
            answers.len(),
            game.tries()
        )?;
        writeln!(out, "GUESSES  ANSWERS")?;
        for (k, count) in eval.distribution.iter().enumerate() {
            writeln!(out, "{:>7}  {count:>7}", k + 1)?;
        }
        writeln!(
            out,
            "total {} guesses, mean {:.5}, worst {}, failures {}",
            eval.total,
            eval.mean(),
            eval.worst,
            failures.len()
        )?;
        if !failures.is_empty() {
            writeln!(
                out,
                "not found within {} tries ({} never found at all):",
                game.tries(),
                unsolved.len()
            )?;
            write_words(out, &failures)?;
        }
        Ok(())
    }
}
