//! `hakase compare`: the strategies people use, each played against every answer, next to
//! the proven optimum.
//!
//! Prints the seed blog's table (answers, universe, min, mean, max, failures) with the total,
//! the guesses lost against the optimum and the share of answers found as fast as the optimal
//! strategy finds them; `--json` gives the same as data, `--png`/`--svg` the plot of guesses
//! per answer and `--html` a self-contained report with the worst answers of each strategy
//! played side by side with the optimum.

mod html;
mod reference;

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::builder::PossibleValuesParser;
use clap::Args;
use hakase_core::heuristics::strategies::catalog::{contender, Contender, Options, COMPARE_NAMES};
use hakase_core::heuristics::strategies::scoreboard::{
    game_of, guesses_per_answer, row, worst_losses, Loss, Row,
};
use hakase_core::heuristics::strategies::universe::Universe;
use hakase_core::rules::history::Step;
use hakase_core::rules::word::read_word_list;
use hakase_core::{FeedbackTable, Game, GuessId};
use rayon::prelude::*;
use serde::Serialize;

use super::plot::{write_plot, Bar};
use super::{pad, write_json};
use crate::game_args::GameArgs;
use crate::output::Label;
use reference::Reference;

/// Compare strategies against every answer, with the proven optimum as the reference.
///
/// Every strategy plays every answer; the optimum comes from a solved run (--run) or is
/// solved on the spot when that is quick (every Pokémon preset, or any game with --first).
/// `top-k` is the seed article's restricted search: its total is an upper bound.
#[derive(Debug, Args)]
pub struct Compare {
    /// Which game.
    #[command(flatten)]
    pub game: GameArgs,

    /// Force the first guess of every strategy and of the optimum, e.g. レントラー or salet.
    #[arg(long, value_name = "W")]
    pub first: Option<String>,

    /// The strategies, comma-separated (all by default).
    #[arg(long, value_name = "LIST", value_delimiter = ',',
          value_parser = PossibleValuesParser::new(COMPARE_NAMES))]
    pub strategies: Vec<String>,

    /// Take the optimum from this solved run.
    #[command(flatten)]
    pub at: crate::cli::run_args::RunArgs,

    /// Where the frequency-* strategies take their candidates from, in order: `answers`,
    /// `guesses` or a word-list file, comma-separated (the first list with a word that fits
    /// the clues is used). Default: answers.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub universe: Vec<String>,

    /// frequency-probe/-differing: probe while this many candidates or more remain.
    #[arg(long, value_name = "N", default_value_t = Options::default().probe_at)]
    pub probe_at: usize,

    /// frequency-differing: look for differing letters from this many candidates on ...
    #[arg(long, value_name = "N", default_value_t = Options::default().differ_min)]
    pub differ_min: usize,

    /// ... when they share at least this many letters.
    #[arg(long, value_name = "N", default_value_t = Options::default().differ_common)]
    pub differ_common: usize,

    /// top-k: guesses searched at each node.
    #[arg(long, value_name = "K", default_value_t = 10,
          value_parser = clap::value_parser!(u16).range(1..))]
    pub top_k: u16,

    /// How many worst answers to show per strategy.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub worst: usize,

    /// Text or JSON.
    #[command(flatten)]
    pub output: crate::output::JsonArg,

    /// Also write the plot of guesses per answer as PNG.
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,

    /// Also write the plot as SVG.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Also write a self-contained HTML report.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// One strategy's result: its row, its guesses per answer and its worst answers.
pub struct Entry {
    /// The table row.
    pub row: Row,
    /// Guesses per answer (`None`: never found).
    pub guesses: Vec<Option<u32>>,
    /// The answers it loses most on, with both games.
    pub worst: Vec<WorstGame>,
}

/// An answer a strategy loses on, with its game and the optimal one.
#[derive(Debug, Clone, Serialize)]
pub struct WorstGame {
    /// The answer.
    pub answer: String,
    /// Guesses the strategy needs (`None`: never found).
    pub guesses: Option<u32>,
    /// Guesses the optimum needs.
    pub optimum: u32,
    /// The strategy's game, as WORD=PATTERN.
    pub played: Vec<String>,
    /// The optimum's game.
    pub optimal: Vec<String>,
    /// The same games as (word, pattern cells 0/1/2) for drawing.
    #[serde(skip)]
    pub tiles: [Vec<(String, Vec<u8>)>; 2],
}

/// Everything the outputs show.
pub struct Comparison {
    /// The game's name.
    pub game: String,
    /// Answers and tries.
    pub answers: usize,
    /// The game's tries.
    pub tries: u32,
    /// The forced first guess, if any.
    pub first: Option<String>,
    /// The universe, as shown.
    pub universe: String,
    /// The reference row first (when there is one), then each strategy.
    pub entries: Vec<Entry>,
    /// Where the reference came from, or why there is none.
    pub reference_note: String,
    /// Strategies that produced no strategy (top-k with no way to win).
    pub skipped: Vec<String>,
}

#[derive(Serialize)]
struct CompareJson<'a> {
    game: &'a str,
    answers: usize,
    tries: u32,
    #[serde(rename = "first_guess")]
    first: Option<&'a str>,
    universe: &'a str,
    reference: &'a str,
    rows: Vec<&'a Row>,
    worst: Vec<WorstJson<'a>>,
    skipped: &'a [String],
}

#[derive(Serialize)]
struct WorstJson<'a> {
    strategy: &'a str,
    answers: &'a [WorstGame],
}

impl Compare {
    /// Plays every strategy, builds the table and writes the outputs asked for.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let loaded = self.game.load_with_table()?;
        let (game, table) = (&loaded.game, &loaded.table);
        let first = match &self.first {
            Some(word) => Some(game.find_guess(word).context("reading --first")?),
            None => None,
        };
        let universe = self.universe(game)?;
        let options = Options {
            probe_at: self.probe_at,
            differ_min: self.differ_min,
            differ_common: self.differ_common,
            top_k: usize::from(self.top_k),
        };
        let names: Vec<&str> = if self.strategies.is_empty() {
            COMPARE_NAMES.to_vec()
        } else {
            self.strategies.iter().map(String::as_str).collect()
        };
        let contenders: Vec<Contender> = names
            .iter()
            .filter_map(|name| contender(name, &options))
            .collect();
        let reference = Reference::find(game, table, first, self.at.spec(), &self.at.data_dir())?;
        let comparison = compare(
            game,
            table,
            &contenders,
            &universe,
            first,
            &reference,
            self.worst,
        );
        let title = format!(
            "{}: guesses per answer{}",
            game.name(),
            first.map_or(String::new(), |g| format!(
                ", first guess {}",
                game.guess_text(g)
            ))
        );
        let bars: Vec<Bar> = comparison
            .entries
            .iter()
            .map(|e| Bar {
                label: e.row.strategy.clone(),
                guesses: e.guesses.clone(),
            })
            .collect();
        for path in [&self.png, &self.svg].into_iter().flatten() {
            write_plot(path, &title, &bars)?;
        }
        if let Some(path) = &self.html {
            let page = html::report(&comparison, &title, &bars)?;
            std::fs::write(path, page).with_context(|| format!("writing {}", path.display()))?;
        }
        if self.output.json {
            return write_json(out, &comparison.json());
        }
        comparison.write_text(out)?;
        for path in [&self.png, &self.svg, &self.html].into_iter().flatten() {
            writeln!(out, "wrote {}", path.display())?;
        }
        Ok(())
    }

    /// The universe from `--universe`: keywords for the game's lists, or files.
    fn universe(&self, game: &Game) -> Result<Universe> {
        if self.universe.is_empty() {
            return Ok(Universe::answers(game));
        }
        let levels = self
            .universe
            .iter()
            .map(|spec| universe_level(game, spec).map(|words| (short_name(spec), words)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Universe::new(levels, game))
    }
}

/// The words of one universe list: `answers`, `guesses` or a file of allowed guesses.
fn universe_level(game: &Game, spec: &str) -> Result<Vec<GuessId>> {
    match spec {
        "answers" => Ok(game
            .all_answers()
            .into_iter()
            .map(|a| game.answer_as_guess(a))
            .collect()),
        "guesses" => Ok((0..game.guesses().len() as GuessId).collect()),
        path => {
            let bytes =
                std::fs::read(path).with_context(|| format!("reading --universe {path}"))?;
            read_word_list(&bytes, path)?
                .into_iter()
                .map(|(line, word)| {
                    game.find_guess(&word)
                        .with_context(|| format!("{path}: line {line}"))
                })
                .collect()
        }
    }
}

/// A universe list's name in tables: the keyword, or the file name without its extension.
fn short_name(spec: &str) -> String {
    std::path::Path::new(spec)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(spec)
        .to_string()
}

/// Plays every contender (in parallel), then tabulates them after the reference.
pub fn compare(
    game: &Game,
    table: &FeedbackTable,
    contenders: &[Contender],
    universe: &Universe,
    first: Option<GuessId>,
    reference: &Reference,
    worst: usize,
) -> Comparison {
    let answers = game.answers().len();
    let trees: Vec<_> = contenders
        .par_iter()
        .map(|c| c.play(game, table, universe, first))
        .collect();
    let optimum = reference
        .tree
        .as_ref()
        .map(|t| guesses_per_answer(t, table, answers));
    let mut entries = Vec::new();
    if let (Some(tree), Some(best)) = (&reference.tree, &optimum) {
        let row = row(
            game,
            &reference.label,
            tree.guess,
            None,
            reference.trust.name(),
            best,
            Some(best),
        );
        entries.push(Entry {
            row,
            guesses: best.clone(),
            worst: Vec::new(),
        });
    }
    let mut skipped = Vec::new();
    for (contender, tree) in contenders.iter().zip(trees) {
        let Some(tree) = tree else {
            skipped.push(contender.label());
            continue;
        };
        let guesses = guesses_per_answer(&tree, table, answers);
        // Every contender, top-k included, only bounds the optimum from above.
        let universe_label = contender.uses_universe().then(|| universe.label());
        let row = row(
            game,
            &contender.label(),
            tree.guess,
            universe_label,
            Label::Heuristic.name(),
            &guesses,
            optimum.as_deref(),
        );
        let worst = match (&reference.tree, &optimum) {
            (Some(best_tree), Some(best)) => worst_losses(&guesses, best, worst)
                .into_iter()
                .map(|loss| worst_game(game, table, &tree, best_tree, loss))
                .collect(),
            _ => Vec::new(),
        };
        entries.push(Entry {
            row,
            guesses,
            worst,
        });
    }
    Comparison {
        game: game.name().to_string(),
        answers,
        tries: game.tries(),
        first: first.map(|g| game.guess_text(g).to_string()),
        universe: universe.label().to_string(),
        entries,
        reference_note: reference.note.clone(),
        skipped,
    }
}

/// Both games of a lost answer.
fn worst_game(
    game: &Game,
    table: &FeedbackTable,
    tree: &hakase_core::trees::tree::Tree,
    best: &hakase_core::trees::tree::Tree,
    loss: Loss,
) -> WorstGame {
    let played = game_of(tree, table, loss.answer);
    let optimal = game_of(best, table, loss.answer);
    let text = |steps: &[Step]| steps.iter().map(|s| s.display(game)).collect::<Vec<_>>();
    let tiles = |steps: &[Step]| {
        steps
            .iter()
            .map(|s| {
                let len = game.guesses()[s.guess as usize].len();
                let cells = s.pattern.cells(len).into_iter().map(|c| c as u8).collect();
                (game.guess_text(s.guess).to_string(), cells)
            })
            .collect::<Vec<_>>()
    };
    WorstGame {
        answer: game.answer_text(loss.answer).to_string(),
        guesses: loss.mine,
        optimum: loss.optimum,
        played: text(&played),
        optimal: text(&optimal),
        tiles: [tiles(&played), tiles(&optimal)],
    }
}

impl Comparison {
    fn json(&self) -> CompareJson<'_> {
        CompareJson {
            game: &self.game,
            answers: self.answers,
            tries: self.tries,
            first: self.first.as_deref(),
            universe: &self.universe,
            reference: &self.reference_note,
            rows: self.entries.iter().map(|e| &e.row).collect(),
            worst: self
                .entries
                .iter()
                .filter(|e| !e.worst.is_empty())
                .map(|e| WorstJson {
                    strategy: &e.row.strategy,
                    answers: &e.worst,
                })
                .collect(),
            skipped: &self.skipped,
        }
    }

    /// The table, then each strategy's worst answers in one line.
    fn write_text(&self, out: &mut dyn Write) -> Result<()> {
        writeln!(
            out,
            "{} of {}, {}{}; {}",
            crate::output::plural(self.answers as u64, "answer", "answers"),
            self.game,
            crate::output::plural(self.tries, "try", "tries"),
            self.first
                .as_ref()
                .map_or(String::new(), |f| format!(", first guess {f}")),
            self.reference_note
        )?;
        let width = self
            .entries
            .iter()
            .map(|e| e.row.strategy.chars().count())
            .max()
            .unwrap_or(8)
            .max(8);
        let universe_width = self.universe.chars().count().max(8);
        writeln!(
            out,
            "{} {} {}  MIN     MEAN  MAX  FAIL   TOTAL   EXTRA  OPTIMAL  LABEL",
            pad("STRATEGY", width),
            pad("FIRST", 10),
            pad("UNIVERSE", universe_width)
        )?;
        for e in &self.entries {
            let r = &e.row;
            writeln!(
                out,
                "{} {} {} {:>4} {:>8.4} {:>4} {:>5} {:>7} {:>7} {:>7}  {}",
                pad(&r.strategy, width),
                pad(&r.first, 10),
                pad(r.universe.as_deref().unwrap_or("—"), universe_width),
                r.min,
                r.mean,
                r.max,
                r.failures.len(),
                r.total,
                r.extra.map_or("—".to_string(), |x| format!("{x:+}")),
                r.optimal_percent
                    .map_or("—".to_string(), |p| format!("{p:.1}%")),
                r.label
            )?;
        }
        for name in &self.skipped {
            writeln!(
                out,
                "{name}: no strategy wins every answer within the tries"
            )?;
        }
        for e in self.entries.iter().filter(|e| !e.worst.is_empty()) {
            let list: Vec<String> = e
                .worst
                .iter()
                .map(|w| {
                    let mine = w.guesses.map_or("never".to_string(), |g| g.to_string());
                    format!("{} {mine}/{}", w.answer, w.optimum)
                })
                .collect();
            writeln!(out, "worst for {}: {}", e.row.strategy, list.join(", "))?;
        }
        Ok(())
    }
}
