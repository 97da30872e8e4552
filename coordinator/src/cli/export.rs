//! `hakase export`: a run's optimal tree as JSON, text or a Graphviz drawing.

use crate::output::plural;
use std::io::Write;

use std::path::PathBuf;

use crate::output::{emit, JsonArg, View};
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use hakase_core::trees::treefile;
use hakase_query::treerun::tree_about;
use hakase_runs::LoadedRun;
use serde::Serialize;

use super::query::RunSource;

/// Write a run's optimal tree: the JSON document, one line per answer, or Graphviz dot.
///
/// The tree goes to standard output, or to --out FILE; with --out, --json prints a summary of
/// what was written (the tree itself is the file).
#[derive(Debug, Args)]
#[command(mut_arg("json", |a| a.requires("out")))]
pub struct Export {
    /// The run.
    #[command(flatten)]
    pub run: RunSource,

    /// json (versioned document, readable by `hakase verify`), text (one line per answer) or
    /// dot (the first two levels, for Graphviz: `dot -Tsvg`).
    #[arg(long, value_enum, default_value = "json")]
    pub format: ExportFormat,

    /// Write the tree into FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// With --out: a summary as text or JSON.
    #[command(flatten)]
    pub output: JsonArg,
}

/// What `export --out` wrote.
#[derive(Debug, Serialize)]
struct ExportReport {
    game: String,
    run: String,
    format: ExportFormat,
    /// The file written.
    path: String,
    first_guess: String,
    answers: usize,
    /// Guesses over all answers, and the most any answer needs.
    total: u64,
    worst: u32,
}

impl View for ExportReport {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        writeln!(
            out,
            "wrote {} ({}): {} on {}, total {}, worst {}",
            self.path,
            self.format
                .to_possible_value()
                .map_or_else(String::new, |v| v.get_name().to_string()),
            self.first_guess,
            self.game,
            self.total,
            self.worst
        )?;
        Ok(())
    }
}

/// `--format` values.
#[derive(Debug, Clone, Copy, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// The versioned JSON document.
    Json,
    /// One line per answer with its whole path.
    Text,
    /// Graphviz: the first guess and the second guesses.
    Dot,
}

impl Export {
    /// Loads the run and writes the tree to standard output or --out.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let run = self.run.load()?;
        let Some(path) = &self.out else {
            return self.write_tree(&run, out);
        };
        let mut file = std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
        );
        self.write_tree(&run, &mut file)
            .and_then(|()| file.flush().map_err(anyhow::Error::from))
            .with_context(|| format!("writing {}", path.display()))?;
        let oracle = run.oracle()?;
        let eval = oracle
            .tree()
            .evaluate(&run.game, &run.table, &run.game.all_answers());
        let report = ExportReport {
            game: run.game.name().to_string(),
            run: run.name.clone(),
            format: self.format,
            path: path.display().to_string(),
            first_guess: run.game.guess_text(oracle.tree().guess).to_string(),
            answers: run.game.answers().len(),
            total: eval.total,
            worst: eval.worst,
        };
        emit(out, self.output, &report)
    }

    /// Writes the tree in the chosen format.
    fn write_tree(&self, run: &LoadedRun, out: &mut dyn Write) -> Result<()> {
        let oracle = run.oracle()?;
        let tree = oracle.tree();
        match self.format {
            ExportFormat::Json => writeln!(
                out,
                "{}",
                treefile::to_json(&run.game, tree, tree_about(run))
            )?,
            ExportFormat::Text => write!(
                out,
                "{}",
                treefile::to_text(&run.game, &run.table, tree, false)
            )?,
            ExportFormat::Dot => write_dot(out, run).context("drawing the tree")?,
        }
        Ok(())
    }
}

fn quote(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The first two levels of the tree as a Graphviz digraph: the first guess, one edge per
/// pattern labelled with the pattern, to the second guess with its answers and total.
pub fn write_dot(out: &mut dyn Write, run: &LoadedRun) -> Result<()> {
    let oracle = run.oracle()?;
    let chart = oracle.chart(None)?;
    let game = &run.game;
    let len = game.guesses()[chart.first as usize].len();
    writeln!(out, "digraph hakase {{")?;
    writeln!(out, "  rankdir=LR;")?;
    writeln!(out, "  node [shape=box, fontname=\"sans-serif\"];")?;
    writeln!(
        out,
        "  root [label=\"{}\\n{}, total {}\"];",
        quote(game.guess_text(chart.first)),
        plural(game.answers().len() as u64, "answer", "answers"),
        chart.total
    )?;
    for (i, row) in chart.rows.iter().enumerate() {
        let pattern = row.row.pattern.format(len, game.style());
        let label = match row.row.second {
            Some(second) => format!(
                "{}\\n{} left, total {}, worst {}",
                quote(game.guess_text(second)),
                row.row.candidates.len(),
                row.total,
                row.worst
            ),
            None => "won".to_string(),
        };
        writeln!(out, "  n{i} [label=\"{label}\"];")?;
        writeln!(out, "  root -> n{i} [label=\"{}\"];", quote(&pattern))?;
    }
    writeln!(out, "}}")?;
    Ok(())
}
