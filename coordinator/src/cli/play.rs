//! `hakase play`: an interactive assistant for a game in progress, line by line.

use crate::output::plural;
use std::io::{BufRead, Write};

use crate::output::error::{ErrorJson, ErrorKind};
use crate::output::JsonArg;
use anyhow::Result;
use clap::Args;
use hakase_core::oracle::Oracle;
use hakase_core::rules::history::Step;
use hakase_core::Pattern;
use hakase_query::view::NextView;

use super::query::{write_next, RunSource};

/// Play with the optimal strategy at your side.
///
/// hakase proposes a guess; type the colours the game showed (灰黄緑, BYG, ⬛🟨🟩 or 012).
/// If you played another word, type WORD=COLOURS instead. Commands: u (undo the last step),
/// r (restart), q (quit). Reads lines from standard input, so it can be scripted; with
/// --json every turn is one line of JSON (the `query` document), and a line that cannot be
/// read is answered by an error document on its own line.
#[derive(Debug, Args)]
pub struct Play {
    /// The run whose strategy to follow.
    #[command(flatten)]
    pub run: RunSource,

    /// Write each turn as one JSON line instead of text.
    #[command(flatten)]
    pub output: JsonArg,
}

/// Where a session writes: text for a person at a terminal, or JSON lines for a program.
struct Voice<'a> {
    out: &'a mut dyn Write,
    json: bool,
}

impl Voice<'_> {
    /// A line for people only (the banner, the prompt, hints).
    fn say(&mut self, text: &str) -> Result<()> {
        if !self.json {
            writeln!(self.out, "{text}")?;
        }
        Ok(())
    }

    /// An input line that could not be used: "? why" as text, an error document as JSON.
    fn refuse(&mut self, why: &dyn std::fmt::Display) -> Result<()> {
        if self.json {
            let doc = ErrorJson::new(ErrorKind::Input, why.to_string());
            writeln!(self.out, "{}", serde_json::to_string(&doc)?)?;
        } else {
            writeln!(self.out, "? {why}")?;
        }
        self.out.flush()?;
        Ok(())
    }
}

/// What one input line asks for.
enum Input {
    Quit,
    Undo,
    Restart,
    Step(Step),
    Nothing,
}

impl Play {
    /// Runs the session on standard input.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let run = self.run.load()?;
        let oracle = run.oracle()?;
        let stdin = std::io::stdin();
        session(&oracle, &run, &mut stdin.lock(), out, self.output.json)
    }
}

/// The session loop over any line source (tests drive it with a script); `json` writes
/// JSON lines instead of text.
pub fn session(
    oracle: &Oracle<'_>,
    run: &hakase_runs::LoadedRun,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    json: bool,
) -> Result<()> {
    let game = &run.game;
    let mut voice = Voice { out, json };
    voice.say(&format!(
        "hakase play: {} ({}, {}). Type the colours shown, or WORD=COLOURS; u undo, r restart, q quit.",
        game.name(),
        plural(game.answers().len() as u64, "answer", "answers"),
        plural(game.tries(), "try", "tries")
    ))?;
    let mut steps: Vec<Step> = Vec::new();
    let mut turn = show(oracle, run, &steps, &mut voice)?;
    let mut bytes = Vec::new();
    loop {
        if !voice.json {
            write!(voice.out, "> ")?;
        }
        voice.out.flush()?;
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            voice.say("")?;
            return Ok(());
        }
        // One garbled line (a terminal in another encoding) is answered, not fatal.
        let Ok(line) = std::str::from_utf8(&bytes) else {
            voice.refuse(&"that line is not valid UTF-8; type it again")?;
            continue;
        };
        let parsed = match read_input(game, line.trim(), turn) {
            Ok(p) => p,
            Err(e) => {
                voice.refuse(&e)?;
                continue;
            }
        };
        match parsed {
            Input::Quit => return Ok(()),
            Input::Nothing => continue,
            Input::Undo => {
                if steps.pop().is_none() {
                    voice.refuse(&"nothing to undo")?;
                    continue;
                }
            }
            Input::Restart => steps.clear(),
            Input::Step(step) => {
                steps.push(step);
                if let Err(e) = oracle.next_guess(&steps) {
                    voice.refuse(&e)?;
                    steps.pop();
                    continue;
                }
            }
        }
        turn = show(oracle, run, &steps, &mut voice)?;
    }
}

/// Where the game stands after a turn: the guess proposed, or that it is won.
#[derive(Debug, Clone, Copy)]
enum Turn {
    /// The game goes on; the guess proposed, if any strategy still wins.
    Playing(Option<hakase_core::GuessId>),
    /// The last step won: only undo, restart and quit make sense.
    Won,
}

/// The words for a step typed after the win (neither colours nor WORD=COLOURS can follow).
const AFTER_THE_WIN: &str = "the game is won: r to play again, u to undo the last step, q to quit";

/// Writes where the game stands.
fn show(
    oracle: &Oracle<'_>,
    run: &hakase_runs::LoadedRun,
    steps: &[Step],
    voice: &mut Voice<'_>,
) -> Result<Turn> {
    let next = match oracle.next_guess(steps) {
        Ok(next) => next,
        Err(e) => {
            voice.refuse(&e)?;
            return Ok(Turn::Playing(None));
        }
    };
    if voice.json {
        let view = NextView::new(run, &next);
        writeln!(voice.out, "{}", serde_json::to_string(&view)?)?;
    } else {
        write_next(&mut *voice.out, run, steps, &next)?;
        if next.won {
            voice.say("r to play again, u to undo the last step, q to quit")?;
        }
    }
    Ok(if next.won {
        Turn::Won
    } else {
        Turn::Playing(next.guess)
    })
}

fn read_input(game: &hakase_core::Game, line: &str, turn: Turn) -> Result<Input> {
    Ok(match line {
        "" => Input::Nothing,
        "q" | "quit" | "exit" => Input::Quit,
        "u" | "undo" => Input::Undo,
        "r" | "restart" => Input::Restart,
        _ if matches!(turn, Turn::Won) => anyhow::bail!(AFTER_THE_WIN),
        _ if line.contains(['=', ':', ' ']) => Input::Step(Step::parse(game, line)?),
        _ => {
            let Turn::Playing(Some(guess)) = turn else {
                anyhow::bail!("no guess is proposed; type WORD=COLOURS");
            };
            let len = game.guesses()[guess as usize].len();
            Input::Step(Step {
                guess,
                pattern: Pattern::parse(line, len)?,
            })
        }
    })
}
