//! `hakase query`: the optimal next guess of a game in progress, answered from a run.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use hakase_coordinator::query::run::{self, LoadedRun, DEFAULT_DATA_DIR};
use hakase_coordinator::query::treerun::load_tree_file;
use hakase_core::history::Step;
use hakase_core::query::{NextGuess, Source};
use serde::Serialize;

use super::{answer_words, write_json, write_words, HistoryArgs};

/// Which run to answer from; shared by every command that reads runs.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// The run: a run directory, or the name of one under --data (see `hakase runs`).
    #[arg(long, value_name = "R", required_unless_present = "tree")]
    pub run: Option<String>,

    /// Answer from a tree file instead (JSON or text, as `solve --tree-out` writes).
    #[arg(long, value_name = "FILE", conflicts_with = "run")]
    pub tree: Option<PathBuf>,

    /// The game of a text tree file (a JSON tree names its own).
    #[arg(long, value_name = "G", requires = "tree")]
    pub game: Option<String>,

    /// The data directory run names are looked up in.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DATA_DIR)]
    pub data: PathBuf,
}

impl RunArgs {
    /// The run called `run` under `data`.
    pub fn named(run: &str, data: &std::path::Path) -> RunArgs {
        RunArgs {
            run: Some(run.to_string()),
            tree: None,
            game: None,
            data: data.to_path_buf(),
        }
    }

    /// Loads the run or tree file into memory (a run database is closed again at once).
    pub fn load(&self) -> Result<LoadedRun> {
        match (&self.tree, &self.run) {
            (Some(tree), _) => load_tree_file(tree, self.game.as_deref())
                .with_context(|| format!("loading tree file {}", tree.display())),
            (None, Some(spec)) => {
                run::load(spec, &self.data).with_context(|| format!("loading run {spec:?}"))
            }
            (None, None) => bail!("name a run (--run R) or a tree file (--tree FILE)"),
        }
    }
}

/// The optimal next guess after the guesses played so far, from a solved run.
///
/// Follows the run's proven-optimal tree; if you played something else, the optimum for the
/// answers left is computed on the spot (and the output says so).
#[derive(Debug, Args)]
pub struct Query {
    /// The run to answer from.
    #[command(flatten)]
    pub run: RunArgs,

    /// The guesses played so far.
    #[command(flatten)]
    pub history: HistoryArgs,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The JSON answer.
#[derive(Debug, Serialize)]
pub struct NextJson {
    /// Run name.
    pub run: String,
    /// Steps played.
    pub steps: usize,
    /// The game is won.
    pub won: bool,
    /// Some strategy still wins every candidate.
    pub feasible: bool,
    /// The optimal next guess.
    pub guess: Option<String>,
    /// How many answers are left.
    pub candidate_count: usize,
    /// The answers left when at most 20.
    pub candidates: Option<Vec<String>>,
    /// Further guesses in total over the candidates.
    pub total: Option<u64>,
    /// total / candidate_count.
    pub expected: Option<f64>,
    /// Most further guesses.
    pub worst: Option<u32>,
    /// "tree" or "computed".
    pub source: Source,
    /// Guesses still allowed.
    pub guesses_left: u32,
}

impl NextJson {
    /// The JSON form of an answer.
    pub fn new(run: &LoadedRun, next: &NextGuess) -> NextJson {
        NextJson {
            run: run.name.clone(),
            steps: next.steps,
            won: next.won,
            feasible: next.feasible(),
            guess: next.guess.map(|g| run.game.guess_text(g).to_string()),
            candidate_count: next.candidates.len(),
            candidates: (next.candidates.len() <= 20)
                .then(|| answer_words(&run.game, &next.candidates)),
            total: next.total,
            expected: next.expected(),
            worst: next.worst,
            source: next.source,
            guesses_left: next.guesses_left,
        }
    }
}

impl Query {
    /// Loads the run, answers and prints.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let run = self.run.load()?;
        let steps = self.history.parse(&run.game)?;
        let oracle = run.oracle()?;
        let next = oracle.next_guess(&steps)?;
        if self.json {
            return write_json(out, &NextJson::new(&run, &next));
        }
        write_next(out, &run, &steps, &next)
    }
}

/// Prints an answer as text (shared with `hakase play`).
pub fn write_next(
    out: &mut dyn Write,
    run: &LoadedRun,
    steps: &[Step],
    next: &NextGuess,
) -> Result<()> {
    let game = &run.game;
    if next.won {
        let answer = next
            .candidates
            .first()
            .map_or("?", |&a| game.answer_text(a));
        writeln!(out, "won in {} guesses: {answer}", next.steps)?;
        return Ok(());
    }
    let history: Vec<String> = steps.iter().map(|s| s.display(game)).collect();
    let after = if history.is_empty() {
        "before any guess".to_string()
    } else {
        format!("after {}", history.join(" "))
    };
    writeln!(out, "{} answers left {after}", next.candidates.len())?;
    match next.guess {
        Some(guess) => {
            let from = match next.source {
                Source::Tree => "from the optimal tree",
                Source::Computed => "computed on the spot: the history left the stored tree",
            };
            writeln!(out, "next guess: {} ({from})", game.guess_text(guess))?;
            writeln!(
                out,
                "expected {:.5} more guesses (total {}), worst {}, {} guesses left",
                next.expected().unwrap_or(0.0),
                next.total.unwrap_or(0),
                next.worst.unwrap_or(0),
                next.guesses_left
            )?;
        }
        None => writeln!(
            out,
            "no strategy can find every remaining answer within the {} guesses left",
            next.guesses_left
        )?,
    }
    if next.candidates.len() <= 20 {
        write_words(out, &answer_words(game, &next.candidates))?;
    }
    Ok(())
}
