//! `hakase play`: an interactive assistant for a game in progress, line by line.

use std::io::{BufRead, Write};

use anyhow::Result;
use clap::Args;
use hakase_core::history::Step;
use hakase_core::query::Oracle;
use hakase_core::Pattern;

use super::query::{write_next, RunArgs};

/// Play with the optimal strategy at your side.
///
/// hakase proposes a guess; type the colours the game showed (灰黄緑, BYG, ⬛🟨🟩 or 012).
/// If you played another word, type WORD=COLOURS instead. Commands: u (undo the last step),
/// r (restart), q (quit). Reads lines from standard input, so it can be scripted.
#[derive(Debug, Args)]
pub struct Play {
    /// The run whose strategy to follow.
    #[command(flatten)]
    pub run: RunArgs,
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
        session(&oracle, &run, &mut stdin.lock(), out)
    }
}

/// The session loop over any line source (tests drive it with a script).
pub fn session(
    oracle: &Oracle<'_>,
    run: &hakase_coordinator::query::LoadedRun,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<()> {
    let game = &run.game;
    writeln!(
        out,
        "hakase play: {} ({} answers, {} tries). Type the colours shown, or WORD=COLOURS; u undo, r restart, q quit.",
        game.name(),
        game.answers().len(),
        game.tries()
    )?;
    let mut steps: Vec<Step> = Vec::new();
    let mut proposed = show(oracle, run, &steps, out)?;
    let mut bytes = Vec::new();
    loop {
        write!(out, "> ")?;
        out.flush()?;
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            writeln!(out)?;
            return Ok(());
        }
        // One garbled line (a terminal in another encoding) is answered, not fatal.
        let Ok(line) = std::str::from_utf8(&bytes) else {
            writeln!(out, "? that line is not valid UTF-8; type it again")?;
            continue;
        };
        let parsed = match read_input(game, line.trim(), proposed) {
            Ok(p) => p,
            Err(e) => {
                writeln!(out, "? {e}")?;
                continue;
            }
        };
        match parsed {
            Input::Quit => return Ok(()),
            Input::Nothing => continue,
            Input::Undo => {
                if steps.pop().is_none() {
                    writeln!(out, "nothing to undo")?;
                    continue;
                }
            }
            Input::Restart => steps.clear(),
            Input::Step(step) => {
                steps.push(step);
                if let Err(e) = oracle.next_guess(&steps) {
                    writeln!(out, "? {e}")?;
                    steps.pop();
                    continue;
                }
            }
        }
        proposed = show(oracle, run, &steps, out)?;
    }
}

/// Prints where the game stands; returns the guess proposed, if any.
fn show(
    oracle: &Oracle<'_>,
    run: &hakase_coordinator::query::LoadedRun,
    steps: &[Step],
    out: &mut dyn Write,
) -> Result<Option<hakase_core::GuessId>> {
    match oracle.next_guess(steps) {
        Ok(next) => {
            write_next(out, run, steps, &next)?;
            if next.won {
                writeln!(out, "r to play again, q to quit")?;
            }
            Ok(next.guess)
        }
        Err(e) => {
            writeln!(out, "? {e}")?;
            Ok(None)
        }
    }
}

fn read_input(
    game: &hakase_core::Game,
    line: &str,
    proposed: Option<hakase_core::GuessId>,
) -> Result<Input> {
    Ok(match line {
        "" => Input::Nothing,
        "q" | "quit" | "exit" => Input::Quit,
        "u" | "undo" => Input::Undo,
        "r" | "restart" => Input::Restart,
        _ if line.contains(['=', ':', ' ']) => Input::Step(Step::parse(game, line)?),
        _ => {
            let Some(guess) = proposed else {
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
