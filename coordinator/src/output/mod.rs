//! The one output layer of the `hakase` command: every command computes a plain view model
//! and hands it here, to be written as text (for people) or as JSON (for programs, with the
//! field names documented in docs/json.md). Keeping both renderings behind one call is what
//! keeps the commands speaking with one voice.

pub mod chart_table;
pub mod error;
pub mod progress;
pub mod run_report;
pub mod table;

use std::io::Write;

use anyhow::{Context, Result};
use clap::Args;
use serde::Serialize;
use unicode_width::UnicodeWidthStr;

pub use hakase_core::label::Label;
pub use table::Table;

/// The `--json` flag, defined once and flattened into every command that prints results.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct JsonArg {
    /// Print JSON instead of text (field names: docs/json.md). Errors are then printed as
    /// {"error": {"kind", "message"}} on standard output, with a non-zero exit status.
    #[arg(long)]
    pub json: bool,
}

/// A command's result: serialisable as JSON, and able to write itself as text.
pub trait View: Serialize {
    /// Writes the human-readable form.
    fn text(&self, out: &mut dyn Write) -> Result<()>;
}

/// Writes `view` as JSON when `json`, else as text.
pub fn emit(out: &mut dyn Write, json: JsonArg, view: &impl View) -> Result<()> {
    if json.json {
        write_json(out, view)
    } else {
        view.text(out)
    }
}

/// Writes `value` as pretty JSON followed by a newline.
pub fn write_json(out: &mut dyn Write, value: &impl Serialize) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).context("writing JSON")?;
    writeln!(out)?;
    Ok(())
}

/// "1 guess", "2 guesses": spelled in one place for every crate ([`hakase_core::plural`]).
pub use hakase_core::plural::plural;

/// Terminal columns `text` takes: katakana and emoji take two, ♀ and ♂ one.
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// `text` padded with spaces to `columns` terminal columns, so tables of katakana names
/// line up.
pub fn pad(text: &str, columns: usize) -> String {
    format!("{text}{}", " ".repeat(columns.saturating_sub(width(text))))
}

/// Guesses per answer as text, `1:1 2:34 3:838` (k guesses: n answers), the one spelling of
/// a distribution in every command's text.
pub fn distribution_text<N: std::fmt::Display>(distribution: &[N]) -> String {
    distribution
        .iter()
        .enumerate()
        .map(|(k, n)| format!("{}:{n}", k + 1))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Writes words ten to a line, so long candidate lists stay readable.
pub fn write_words(out: &mut dyn Write, words: &[String]) -> Result<()> {
    for line in words.chunks(10) {
        writeln!(out, "{}", line.join(" "))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths() {
        assert_eq!(width("レントラー"), 10);
        assert_eq!(width("ニドラン♀"), 9);
        assert_eq!(pad("ニドラン♀", 11), "ニドラン♀  ");
        assert_eq!(pad("salet", 3), "salet");
        assert_eq!(distribution_text(&[1u32, 34, 838]), "1:1 2:34 3:838");
        assert_eq!(distribution_text::<u64>(&[]), "");
    }
}
