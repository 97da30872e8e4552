//! `hakase puzzle`: generated puzzles with unique solutions and graded difficulty, one at a
//! time or a resumable batch (a year of daily puzzles).

mod show;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use hakase_core::puzzle::level::KINDS;
use hakase_core::puzzle::{plan, Generator, Kind, Level, LevelMix, Puzzle, Slot};
use hakase_core::{FeedbackTable, Game, GameTable};
use hakase_device::{render_puzzle, write_png, PanelColour};

use super::write_json;
use crate::game_args::GameArgs;
use hakase_batch::sheet::{puzzle_text, solution_text};
use hakase_batch::{write_summary, BatchError, BatchRun, Header};
use show::device_view;

/// The largest batch `--count` asks for: a batch is planned in memory before any puzzle is
/// written, so a mistyped count must be refused, not abort on allocation.
pub const MAX_BATCH: usize = 1_000_000;

/// Generate puzzles: deduction puzzles (name the one answer that fits the rows) and best-move
/// problems (find the one right guess), graded easy, medium or hard and proven.
///
/// One puzzle: `hakase puzzle --kind best-move --level hard --seed 7`.
/// A year of daily puzzles, resumable (rerun the same command to continue):
/// `hakase puzzle --count 365 --levels easy:40%,medium:40%,hard:20% --seed 1 --out year`.
/// Add `--listen ADDR` to have workers (`hakase worker --connect http://ADDR`) make the days:
/// the files are the same, byte for byte.
#[derive(Debug, Args)]
pub struct PuzzleCommand {
    /// Which game.
    #[command(flatten)]
    pub game: GameArgs,

    /// One puzzle: its kind (deduction, best-move).
    #[arg(long, default_value = "deduction", conflicts_with = "count")]
    pub kind: Kind,

    /// One puzzle: its level (easy, medium, hard).
    #[arg(long, default_value = "medium", conflicts_with = "count")]
    pub level: Level,

    /// The seed: the same seed and options give the same puzzles.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// A batch of this many days, written to --out.
    #[arg(long, value_name = "N", requires = "out")]
    pub count: Option<usize>,

    /// A batch's share of each level, as LEVEL:WEIGHT[%] separated by commas.
    #[arg(
        long,
        value_name = "MIX",
        default_value = "easy:40%,medium:40%,hard:20%"
    )]
    pub levels: String,

    /// A batch's kinds, alternated within each level (default: both).
    #[arg(long, value_name = "KINDS", value_delimiter = ',')]
    pub kinds: Vec<Kind>,

    /// The batch directory (created; rerun with the same options to resume).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Also draw each puzzle as an e-paper page: DIR/day-NNN.png and day-NNN-x4.png.
    #[arg(long, value_name = "DIR")]
    pub png: Option<PathBuf>,

    /// One puzzle: leave the solution out.
    #[arg(long)]
    pub hide_solution: bool,

    /// Text or JSON.
    #[command(flatten)]
    pub output: crate::output::JsonArg,

    /// A batch made by workers.
    #[command(flatten)]
    pub serve: hakase_batch::ServeArgs,
}

impl PuzzleCommand {
    /// Generates one puzzle or a batch.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let mix: LevelMix = self
            .levels
            .parse()
            .map_err(|e: String| anyhow::anyhow!("--levels: {e}"))?;
        // Shared: a batch served to workers lends it to the server's tasks.
        let tables = Arc::new(self.game.load_with_table()?);
        match (self.count, &self.out) {
            (Some(count), _) if count > MAX_BATCH => bail!(
                "--count must be at most {MAX_BATCH} days (about 2,700 years of daily \
                 puzzles), not {count}"
            ),
            (Some(count), Some(dir)) => self.batch(out, tables, count, &mix, dir),
            _ => self.one(out, &tables.game, &tables.table),
        }
    }

    fn one(&self, out: &mut dyn Write, game: &Game, table: &FeedbackTable) -> Result<()> {
        let slot = Slot {
            day: 1,
            level: self.level,
            kind: self.kind,
        };
        let generator = Generator::new(game, table);
        let Some(puzzle) = generator.generate(&slot, self.seed, 0) else {
            bail!(
                "no {} {} puzzle found for seed {} in {}; try another seed",
                self.level,
                self.kind,
                self.seed,
                game.name()
            );
        };
        if let Some(dir) = &self.png {
            write_page(game, &puzzle, dir)?;
        }
        if self.output.json {
            return write_json(out, &puzzle);
        }
        write!(out, "{}", puzzle_text(&puzzle))?;
        if puzzle.level != self.level {
            writeln!(
                out,
                "(no {} puzzle found; this one grades {})",
                self.level, puzzle.level
            )?;
        }
        if !self.hide_solution {
            writeln!(out, "----------------------------------------")?;
            write!(out, "{}", solution_text(&puzzle))?;
        }
        Ok(())
    }

    fn batch(
        &self,
        out: &mut dyn Write,
        tables: Arc<GameTable>,
        count: usize,
        mix: &LevelMix,
        dir: &Path,
    ) -> Result<()> {
        if count == 0 {
            bail!("--count must be at least 1");
        }
        let game = &tables.game;
        let kinds: Vec<Kind> = if self.kinds.is_empty() {
            KINDS.to_vec()
        } else {
            self.kinds.clone()
        };
        let header = Header {
            game: game.name().to_string(),
            fingerprint: game.fingerprint().to_string(),
            seed: self.seed,
            count,
            levels: self.levels.clone(),
            kinds: kinds.clone(),
        };
        let slots = plan(count, mix, &kinds, self.seed);
        let tokens = match self.serve.listen {
            Some(_) => Some(self.serve.check().map_err(batch_error)?),
            None => None,
        };
        let mut run = BatchRun::open(dir, &header, slots)?;
        let mut checked = None;
        if let (Some(listen), Some(tokens)) = (self.serve.listen, tokens) {
            let (served, line) =
                hakase_batch::serve(&self.serve, listen, run, tokens, &tables, self.seed)
                    .map_err(batch_error)?;
            run = served;
            checked = Some(line);
        } else {
            let generator = Generator::new(game, &tables.table);
            loop {
                let Some((slot, attempt)) = run.order.wanted().next() else {
                    break;
                };
                let start = Instant::now();
                let made = generator.generate(&slot, self.seed, attempt);
                let ms = start.elapsed().as_secs_f64() * 1000.0;
                run.made(&slot, attempt, made, Some(ms))?;
            }
        }
        let (all, mut summary) = run.finish(game.name())?;
        summary.checked = checked;
        if let Some(png) = &self.png {
            for puzzle in &all {
                write_page(game, puzzle, png)?;
            }
        }
        if self.output.json {
            return write_json(out, &summary);
        }
        Ok(write_summary(out, &summary)?)
    }
}

/// A batch's error for `main`: an interrupted server as the [`hakase_serving::Interrupted`]
/// `main` looks for (its exit status is 128 + the signal), anything else as it is.
fn batch_error(err: BatchError) -> anyhow::Error {
    match err {
        BatchError::Interrupted(interrupted) => interrupted.into(),
        err => err.into(),
    }
}

/// Draws a puzzle's e-paper page into `dir` at panel size and four times larger.
fn write_page(game: &Game, puzzle: &Puzzle, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let frame = render_puzzle(&device_view(game, puzzle)?)
        .with_context(|| format!("drawing day {}", puzzle.day))?;
    for (scale, suffix) in [(1, ""), (4, "-x4")] {
        let path = dir.join(format!("day-{:03}{suffix}.png", puzzle.day));
        write_png(&frame, &path, scale, PanelColour::Red)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
