//! The `hakase` command line: one subcommand per module in `commands/`.

mod commands;
mod game_args;

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

const LONG_ABOUT: &str = "\
hakase (博士, \"professor\") computes proven-optimal strategies for Wordle-family games.

Pokémon Wordle: the answer is a Pokémon whose Japanese (katakana) name has exactly 5 letters,
e.g. レントラー. You may guess any Pokémon name of at most 5 letters and have 10 tries. After
each guess every letter is coloured: gray (not in the answer), yellow (in the answer at
another place) or green (right letter, right place). English Wordle works the same with
5-letter English words and 6 tries.

Patterns are written one cell per letter in any of these notations (all accepted as input):
  灰黄緑   gray/yellow/green as Japanese players write them     灰灰黄灰緑
  BYG      black/yellow/green letters                             BBYBG
  012      digits                                                 00102
  ⬛🟨🟩   the emoji the game shares

Words are typed as they are written: katakana for Pokémon (ポリゴン2 is found as ポリゴン２),
lower or upper case for Wordle. Choose the game with --game (see `hakase games`), or bring
your own word lists with --answers/--guesses.";

/// The hakase command line.
#[derive(Debug, Parser)]
#[command(
    name = "hakase",
    version,
    about = "Proven-optimal strategies for Pokémon Wordle and English Wordle",
    long_about = LONG_ABOUT
)]
struct Cli {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The subcommands; each is implemented in `commands/<name>.rs`.
#[derive(Debug, Subcommand)]
enum Command {
    Games(commands::games::Games),
    Feedback(commands::feedback::Feedback),
    Candidates(commands::candidates::Candidates),
    Rank(commands::rank::Rank),
    Evaluate(commands::evaluate::Evaluate),
    Compare(commands::compare::Compare),
    Chart(commands::chart::Chart),
    Solve(commands::solve::Solve),
    Verify(commands::verify::Verify),
    Audit(commands::audit::Audit),
    Coordinator(commands::coordinator::Coordinator),
    Worker(commands::worker::Worker),
    Status(commands::status::Status),
    Query(commands::query::Query),
    Play(commands::play::Play),
    Serve(commands::serve::Serve),
    Export(commands::export::Export),
    Runs(commands::runs::Runs),
    Plot(commands::plot::Plot),
    Display(commands::display::Display),
    Puzzle(commands::puzzle::PuzzleCommand),
    Design(commands::design::Design),
}

impl Command {
    /// Runs the chosen subcommand, writing its output to `out`.
    fn run(self, out: &mut dyn Write) -> Result<()> {
        match self {
            Command::Games(c) => c.run(out),
            Command::Feedback(c) => c.run(out),
            Command::Candidates(c) => c.run(out),
            Command::Rank(c) => c.run(out),
            Command::Evaluate(c) => c.run(out),
            Command::Compare(c) => c.run(out),
            Command::Chart(c) => c.run(out),
            Command::Solve(c) => c.run(out),
            Command::Verify(c) => c.run(out),
            Command::Audit(c) => c.run(out),
            Command::Coordinator(c) => c.run(out),
            Command::Worker(c) => c.run(out),
            Command::Status(c) => c.run(out),
            Command::Query(c) => c.run(out),
            Command::Play(c) => c.run(out),
            Command::Serve(c) => c.run(out),
            Command::Export(c) => c.run(out),
            Command::Runs(c) => c.run(out),
            Command::Plot(c) => c.run(out),
            Command::Display(c) => c.run(out),
            Command::Puzzle(c) => c.run(out),
            Command::Design(c) => c.run(out),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut out = BufWriter::new(io::stdout().lock());
    let result = cli
        .command
        .run(&mut out)
        .and_then(|()| out.flush().map_err(anyhow::Error::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // `hakase rank --top 0 | head` closes the pipe early: not an error worth reporting.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        // Stopped by a signal after saving: say so, and exit 130 (SIGINT) or 143 (SIGTERM).
        Err(err) if err.downcast_ref::<commands::guard::Interrupted>().is_some() => {
            eprintln!("{err:#}");
            ExitCode::from(
                err.downcast_ref::<commands::guard::Interrupted>()
                    .map_or(130, |i| i.exit_code()),
            )
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
