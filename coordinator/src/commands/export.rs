//! `hakase export`: a run's optimal tree as JSON, text or a Graphviz drawing.

use std::io::Write;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use hakase_coordinator::query::service::tree_about;
use hakase_coordinator::query::LoadedRun;
use hakase_core::treefile;

use super::query::RunArgs;

/// Write a run's optimal tree: the JSON document, one line per answer, or Graphviz dot.
#[derive(Debug, Args)]
pub struct Export {
    /// The run.
    #[command(flatten)]
    pub run: RunArgs,

    /// json (versioned document, readable by `hakase verify`), text (one line per answer) or
    /// dot (the first two levels, for Graphviz: `dot -Tsvg`).
    #[arg(long, value_enum, default_value = "json")]
    pub format: ExportFormat,
}

/// `--format` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ExportFormat {
    /// The versioned JSON document.
    Json,
    /// One line per answer with its whole path.
    Text,
    /// Graphviz: the first guess and the second guesses.
    Dot,
}

impl Export {
    /// Loads the run and writes the tree to standard output.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let run = self.run.load()?;
        let oracle = run.oracle()?;
        let tree = oracle.tree();
        match self.format {
            ExportFormat::Json => writeln!(
                out,
                "{}",
                treefile::to_json(&run.game, tree, tree_about(&run))
            )?,
            ExportFormat::Text => write!(
                out,
                "{}",
                treefile::to_text(&run.game, &run.table, tree, false)
            )?,
            ExportFormat::Dot => write_dot(out, &run).context("drawing the tree")?,
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
        "  root [label=\"{}\\n{} answers, total {}\"];",
        quote(game.guess_text(chart.first)),
        game.answers().len(),
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
