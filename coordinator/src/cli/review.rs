//! `hakase review`: "how well did I play?", answered exactly, move by move.

use crate::output::plural;
use std::io::{Read, Write};
use std::path::PathBuf;

use crate::output::JsonArg;
use anyhow::{bail, Context, Result};
use clap::Args;
use hakase_core::review::{read_game, ReviewCache, Rules};
use hakase_core::rules::presets::{load_preset, DEFAULT_GAME};
use hakase_core::{FeedbackTable, Game};
use hakase_query::review::{ColoursInput, GameInput, MoveState, MoveView, ReviewView, Subject};
use hakase_runs::LoadedRun;

use super::query::RunSource;
use super::run_args::RunArgs;
use super::{write_json, HistoryArgs};

/// Positions solved on the spot by default at most: the root of every Pokémon game fits; the
/// root of English Wordle (2315 answers) does not, so review it against a run to judge the
/// first move.
pub const DEFAULT_SOLVE_LIMIT: usize = 1000;

/// Review a game you played: every move judged exactly against optimal play.
///
/// For each move: the answers left before and after it; the optimal guess or guesses and the
/// guesses they need on average from there; your guess and the guesses it needs on average
/// (it, then optimal play); the loss (yours − optimal, in guesses on average over the answers
/// still possible: 0 when your guess was one of the optimal ones); and the luck: the further
/// guesses optimal play expected after your guess before its colours were seen, minus those
/// it needs from where the colours left you (positive when the colours were kind). A won game
/// took exactly: optimum from the start + total loss − total luck guesses.
///
/// Give the game as WORD=PATTERN steps (-H, as `query` takes), as the words plus the emoji
/// grid the game shares (--grid), or as the words plus the answer (--answer: the colours
/// follow). Against a run (--run) or tree file (--tree), positions on its optimal tree are read
/// from it; every other position is solved exactly on the spot (without a run, all of them,
/// under --hard or --strict if given).
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  hakase review --run qiita -H 'レントラー=灰灰灰灰緑' -H 'ゴーリキー=灰黄黄灰緑' -H 'スリーパー=緑緑緑緑緑'
  hakase review --tree salet.json crane pride --answer pride
  hakase review --tree salet-hard.json salet humid dummy gummy mummy --grid \"$(cat share.txt)\"
  hakase review --game pokemon-qiita2023 --hard れんとらー ごーりきー すりーぱー --answer すりーぱー

Figures: docs/review.md; JSON fields: docs/json.md (the review document).")]
pub struct Review {
    /// The words you played, in order (with --grid or --answer; -H carries its own words).
    #[arg(value_name = "WORD", conflicts_with = "steps")]
    pub words: Vec<String>,

    /// The guesses with their colours.
    #[command(flatten)]
    pub history: HistoryArgs,

    /// The emoji grid the game shares (⬛🟨🟩, or high-contrast 🟦🟧), one row per word; other
    /// lines (the title, a link) are skipped. "-" reads it from standard input.
    #[arg(long, value_name = "TEXT", requires = "words")]
    pub grid: Option<String>,

    /// The answer: enough, with the words, for the colours; with colours, it is checked
    /// against them and tells an unfinished game's review how optimal play would end it.
    #[arg(long, value_name = "WORD")]
    pub answer: Option<String>,

    /// Judge against this run.
    #[command(flatten)]
    pub at: RunArgs,

    /// Judge against this tree file (JSON or text, as `solve --tree-out` writes).
    #[arg(long, value_name = "FILE", conflicts_with = "run")]
    pub tree: Option<PathBuf>,

    /// The game: without a run, the one solved on the spot (default pokemon-today); with a
    /// text tree file, its game.
    #[arg(long, short = 'g', value_name = "G", conflicts_with = "run")]
    pub game: Option<String>,

    /// Without a run: hard mode (greens stay in place, revealed letters are reused).
    #[arg(long, conflicts_with_all = ["run", "tree", "strict"])]
    pub hard: bool,

    /// Without a run: every guess must be a possible answer given the clues so far.
    #[arg(long, conflicts_with_all = ["run", "tree"])]
    pub strict: bool,

    /// Without a run: never more than N guesses (below the game's tries).
    #[arg(long, value_name = "N", conflicts_with_all = ["run", "tree"])]
    pub max_guesses: Option<u32>,

    /// Solve positions of at most N answers on the spot (0: no limit); larger ones are
    /// reported as not judged.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SOLVE_LIMIT)]
    pub solve_limit: usize,

    #[command(flatten)]
    pub output: JsonArg,
}

impl Review {
    /// Reads the game, judges every move and prints the review.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let run = self.load_run()?;
        let standalone;
        let subject = match &run {
            Some(run) => Subject::of_run(run),
            None => {
                standalone = self.standalone_game()?;
                Subject {
                    game: &standalone.0,
                    table: &standalone.1,
                    rules: self.rules(),
                    run: None,
                }
            }
        };
        let input = self.game_input()?;
        let game =
            read_game(subject.game, subject.table, &input.text()).context("reading the game")?;
        let cache = ReviewCache::default();
        let limit = (self.solve_limit > 0).then_some(self.solve_limit);
        let review = subject
            .reviewer(&cache, limit)
            .review(&game)
            .context("reviewing the game")?;
        let view = ReviewView::new(&subject, &review, limit);
        if self.output.json {
            return write_json(out, &view);
        }
        write_text(out, &view)
    }

    /// The run or tree file judged against, if one is named.
    fn load_run(&self) -> Result<Option<LoadedRun>> {
        if self.at.spec().is_none() && self.tree.is_none() {
            return Ok(None);
        }
        let args = RunSource {
            at: self.at.clone(),
            tree: self.tree.clone(),
            game: self.game.clone(),
        };
        args.load().map(Some)
    }

    /// Without a run: the game every position is solved in, and its feedback table.
    fn standalone_game(&self) -> Result<(Game, FeedbackTable)> {
        let name = self.game.as_deref().unwrap_or(DEFAULT_GAME);
        let game = load_preset(name).with_context(|| format!("loading game {name:?}"))?;
        let table = FeedbackTable::build(&game);
        Ok((game, table))
    }

    /// Without a run: the rules given on the command line.
    fn rules(&self) -> Rules {
        Rules {
            mode: super::solver_args::mode_of(self.hard, self.strict),
            max_guesses: self.max_guesses,
        }
    }

    /// The game as given: -H steps, or the words with the grid (read from standard input
    /// for "-") or with the answer.
    fn game_input(&self) -> Result<GameInput> {
        let grid = match self.grid.as_deref() {
            Some("-") => {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .context("reading the grid from standard input")?;
                Some(text)
            }
            other => other.map(str::to_string),
        };
        let words: Vec<String> = self
            .words
            .iter()
            .flat_map(|w| w.split(','))
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        let steps: Vec<(String, String)> = self
            .history
            .steps
            .iter()
            .map(|s| {
                s.split_once(['=', ':', ' '])
                    .map(|(word, pattern)| (word.to_string(), pattern.to_string()))
                    .with_context(|| format!("reading --history {s:?}: write it as WORD=PATTERN"))
            })
            .collect::<Result<_>>()?;
        let (words, colours) = match (grid, steps.is_empty()) {
            (Some(grid), _) => (words, ColoursInput::Grid(grid)),
            (None, false) => {
                let (words, patterns) = steps.into_iter().unzip();
                (words, ColoursInput::Each(patterns))
            }
            (None, true) if words.is_empty() => {
                bail!("no game to review: give -H WORD=PATTERN steps, or the words with --grid or --answer")
            }
            (None, true) => (words, ColoursInput::FromAnswer),
        };
        Ok(GameInput {
            words,
            colours,
            answer: self.answer.clone(),
        })
    }
}

/// `x` with 5 decimals and its sign, for losses and luck.
fn signed(x: f64) -> String {
    format!("{:+.5}", unsigned_zero(x))
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "?".to_string(), |x| format!("{:.5}", unsigned_zero(x)))
}

/// `x`, with a difference that rounds to zero at 5 decimals shown as 0, not "-0.00000".
fn unsigned_zero(x: f64) -> f64 {
    if x.abs() < 5e-6 {
        0.0
    } else {
        x
    }
}

/// The review as text: one block per move, then the summary and what the figures mean.
pub fn write_text(out: &mut dyn Write, view: &ReviewView) -> Result<()> {
    let against = match &view.run {
        Some(run) => format!("against {run}"),
        None => "every position solved on the spot".to_string(),
    };
    writeln!(
        out,
        "Review of a game of {} ({}, {} mode): {}",
        view.game,
        against,
        view.options.mode.word(),
        view.claim
    )?;
    let guesses = plural(view.steps as u64, "guess", "guesses");
    match (&view.answer, view.won) {
        (Some(answer), true) => writeln!(out, "answer {answer}, found in {guesses}")?,
        (Some(answer), false) => writeln!(out, "answer {answer}, not found in {guesses}")?,
        (None, _) => writeln!(out, "not won in {guesses}; answer unknown")?,
    }
    for m in &view.moves {
        writeln!(out)?;
        write_move(out, m)?;
    }
    let s = &view.summary;
    writeln!(out)?;
    let verdict = match s.perfect {
        Some(true) => "a perfect game: every move optimal".to_string(),
        _ => format!(
            "{} of {} optimal",
            s.optimal_moves,
            plural(s.guesses as u64, "move", "moves")
        ),
    };
    writeln!(
        out,
        "summary: {verdict}; loss {} guesses in all; luck {}",
        opt(s.loss),
        s.luck.map_or("?".to_string(), signed)
    )?;
    writeln!(
        out,
        "  optimal play from the start: {} guesses on average",
        opt(s.mean)
    )?;
    let same = &s.same_first_guess;
    // A game not won has no count of the player's to compare: they never found the answer.
    let finds = match (&view.answer, same.guesses, view.won) {
        (Some(answer), Some(g), true) => format!("; it finds {answer} in {g} (you: {})", s.guesses),
        (Some(answer), Some(g), false) => format!(
            "; it finds {answer} in {g} (you had not found it after {})",
            plural(s.guesses as u64, "guess", "guesses")
        ),
        _ => String::new(),
    };
    writeln!(
        out,
        "  optimal play from your first guess {}: {} on average{finds}; your moves after it lost {}",
        s.first_guess,
        opt(same.mean),
        opt(same.loss)
    )?;
    if let (true, Some(mean), Some(loss), Some(luck)) = (view.won, s.mean, s.loss, s.luck) {
        writeln!(
            out,
            "  {} = {mean:.5} (optimum) + {loss:.5} (loss) − ({}) (luck)",
            plural(s.guesses as u64, "guess", "guesses"),
            signed(luck)
        )?;
    }
    writeln!(
        out,
        "\nloss: guesses your choice cost on average against the optimal one (then optimal play)\n\
         luck: further guesses expected after your guess before its colours, minus after them \
         (positive: the colours helped)"
    )?;
    Ok(())
}

fn write_move(out: &mut dyn Write, m: &MoveView) -> Result<()> {
    writeln!(
        out,
        "{}. {} {}   {} → {} ({} left)",
        m.step,
        m.guess,
        m.pattern,
        m.count,
        plural(m.after.count as u64, "answer", "answers"),
        plural(m.guesses_left, "guess", "guesses")
    )?;
    match &m.optimal {
        Some(o) => {
            let mut names = o.guesses.join(", ");
            if o.count > o.guesses.len() {
                names.push_str(&format!(" and {} more", o.count - o.guesses.len()));
            }
            if !o.complete {
                names.push_str(" (perhaps others)");
            }
            let given = if o.label == crate::output::Label::Exact {
                ", the run's first guess: optimal only given it"
            } else {
                ""
            };
            writeln!(
                out,
                "   optimal: {names}: {:.5} guesses on average (total {} over {}){given}",
                o.mean, o.total, m.count
            )?;
        }
        None => writeln!(out, "   optimal: {}", unjudged(m.state))?,
    }
    match (m.played.mean, m.played.optimal, m.loss, m.loss_total) {
        (Some(mean), Some(true), _, _) => {
            writeln!(out, "   yours:   optimal ({mean:.5} on average)")?
        }
        (Some(mean), _, Some(loss), Some(total)) => writeln!(
            out,
            "   yours:   {mean:.5} on average (total {}): loss {loss:.5} ({} over {})",
            m.played.total.unwrap_or_default(),
            plural(total, "guess", "guesses"),
            plural(m.count as u64, "answer", "answers")
        )?,
        (Some(mean), _, _, _) => writeln!(out, "   yours:   {mean:.5} on average")?,
        (None, _, _, _) => writeln!(out, "   yours:   {}", unjudged(m.state))?,
    }
    match &m.luck {
        Some(luck) => writeln!(
            out,
            "   luck:    {} ({:.5} further guesses expected before the colours, {:.5} after; {}, {:.2} on average)",
            signed(luck.value),
            luck.before,
            luck.after,
            plural(m.after.count as u64, "answer left", "answers left"),
            m.after.count_mean
        )?,
        None => writeln!(
            out,
            "   luck:    ? ({}, {:.2} on average)",
            plural(m.after.count as u64, "answer left", "answers left"),
            m.after.count_mean
        )?,
    }
    if let Some(words) = &m.after.candidates {
        if !words.is_empty() {
            writeln!(out, "   left:    {}", words.join(" "))?;
        }
    }
    Ok(())
}

fn unjudged(state: MoveState) -> &'static str {
    match state {
        MoveState::TooLarge => "not judged: the position is larger than --solve-limit",
        MoveState::Infeasible => "no strategy finds every answer within the guesses left",
        MoveState::Exact => "?",
    }
}
