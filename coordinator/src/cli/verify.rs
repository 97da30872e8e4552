//! `hakase verify`: check a strategy tree from a file without trusting anything in it.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use hakase_core::solver::Mode;
use hakase_core::trees::stated::StatedFacts;
use hakase_core::trees::treefile;
use hakase_core::verify;
use serde::Serialize;

use crate::game_args::GameArgs;
use crate::output::{distribution_text, emit, plural, JsonArg, View};

/// Check a tree file: every guess allowed (and legal in hard or strict mode when asked),
/// every pattern the one the game shows (recomputed from the words), every answer solved
/// exactly once within the tries. Prints the distribution, total, mean and worst case.
#[derive(Debug, Args)]
pub struct Verify {
    /// The tree file: the JSON document or the one-line-per-answer text format (full or
    /// with shared prefixes replaced by spaces).
    pub tree: PathBuf,

    /// Which game the tree plays.
    #[command(flatten)]
    pub game: GameArgs,

    /// Also check hard-mode legality.
    #[arg(long, conflicts_with = "strict")]
    pub hard: bool,

    /// Also check that every guess is a possible answer.
    #[arg(long)]
    pub strict: bool,

    /// The file's format; by default JSON when it starts with `{`, else text.
    #[arg(long, value_enum)]
    pub format: Option<FileFormat>,

    /// Text or JSON.
    #[command(flatten)]
    pub output: JsonArg,

    /// Fail (exit status 1) when the file's stated facts (game, total, guesses left, mode)
    /// disagree with what checking the tree finds; by default they are reported only.
    #[arg(long)]
    pub strict_meta: bool,
}

/// Tree file formats.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum FileFormat {
    /// The JSON document.
    Json,
    /// One line per answer.
    Text,
}

#[derive(Debug, Serialize)]
struct Report {
    game: String,
    /// True when the game was taken from the file (no --game or lists given).
    game_from_file: bool,
    answers: usize,
    distribution: Vec<u32>,
    total: u64,
    mean: f64,
    worst: u32,
    /// Stated facts of the file that the check contradicts.
    mismatches: Vec<String>,
}

impl Verify {
    /// Reads, checks and reports.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let text = std::fs::read_to_string(&self.tree)
            .with_context(|| format!("reading {}", self.tree.display()))?;
        let text = treefile::strip_bom(&text);
        let format = self
            .format
            .unwrap_or(if text.trim_start().starts_with('{') {
                FileFormat::Json
            } else {
                FileFormat::Text
            });
        let reading = || format!("reading the tree in {}", self.tree.display());
        let doc = match format {
            FileFormat::Json => Some(treefile::parse_document(text).with_context(reading)?),
            FileFormat::Text => None,
        };
        // The game the file names is the one checked, unless the command line chose one.
        let chosen = self.game.chosen()
            || self.game.answers.is_some()
            || self.game.guesses.is_some()
            || self.game.tries.is_some();
        let stated = doc.as_ref().filter(|_| !chosen).map(|d| d.game.clone());
        let game = match &stated {
            Some(name) => GameArgs {
                game: Some(name.clone()),
                ..self.game.clone()
            }
            .load()
            .with_context(|| format!("loading the game {name:?} the tree file names"))?,
            None => self.game.load()?,
        };
        let (tree, facts) = match &doc {
            Some(doc) => {
                let tree = treefile::tree_of(&game, doc).with_context(reading)?;
                (tree, Some(StatedFacts::of(doc)))
            }
            None => (
                treefile::from_text(&game, text).with_context(reading)?,
                None,
            ),
        };
        let mode = if self.hard {
            Mode::Hard
        } else if self.strict {
            Mode::Strict
        } else {
            Mode::Normal
        };
        let evaluation = verify(&game, &tree, mode)
            .with_context(|| format!("{} is not a valid strategy", self.tree.display()))?;
        let mismatches = facts.map_or_else(Vec::new, |f| f.mismatches(&game, &evaluation, mode));
        let report = Report {
            game: game.name().to_string(),
            game_from_file: stated.is_some(),
            answers: game.answers().len(),
            distribution: evaluation.distribution.clone(),
            total: evaluation.total,
            mean: evaluation.mean(),
            worst: evaluation.worst,
            mismatches,
        };
        emit(out, self.output, &report)?;
        self.judge_meta(&report.mismatches)
    }

    /// With --strict-meta, a mismatch between stated and found facts is an error.
    fn judge_meta(&self, mismatches: &[String]) -> Result<()> {
        if self.strict_meta && !mismatches.is_empty() {
            bail!(
                "{}: {} stated fact(s) of the file are false (--strict-meta)",
                self.tree.display(),
                mismatches.len()
            );
        }
        Ok(())
    }
}

impl View for Report {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        let from = if self.game_from_file {
            " (the game the file names)"
        } else {
            ""
        };
        writeln!(
            out,
            "valid on {}{from}: {} solved, total {}, mean {:.4}, worst {}",
            self.game,
            plural(self.answers as u64, "answer", "answers"),
            self.total,
            self.mean,
            self.worst
        )?;
        writeln!(
            out,
            "guesses needed: {}",
            distribution_text(&self.distribution)
        )?;
        for mismatch in &self.mismatches {
            writeln!(out, "warning: {mismatch}")?;
        }
        Ok(())
    }
}
