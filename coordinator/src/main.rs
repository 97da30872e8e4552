//! The `hakase` command line: one subcommand per module in `cli/` (its arguments, how it
//! calls the crates beside it — `hakase-runs`, `hakase-engine`, `hakase-query`,
//! `hakase-serving`, `hakase-batch` — and what it prints through [`output`]).

mod cli;
mod game_args;
mod output;

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use crate::output::error::{ErrorJson, ErrorKind};
use crate::output::write_json;
use anyhow::Result;
use clap::{CommandFactory, Parser, Subcommand};

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
    version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("HAKASE_COMMIT"), ")"),
    about = "Proven-optimal strategies for Pokémon Wordle and English Wordle",
    long_about = LONG_ABOUT
)]
struct Cli {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The subcommands; each is implemented in `cli/<name>.rs`.
#[derive(Debug, Subcommand)]
enum Command {
    Games(cli::games::Games),
    Feedback(cli::feedback::Feedback),
    Candidates(cli::candidates::Candidates),
    Rank(cli::rank::Rank),
    Evaluate(cli::evaluate::Evaluate),
    Compare(cli::compare::Compare),
    Chart(cli::chart::Chart),
    Solve(cli::solve::Solve),
    Verify(cli::verify::Verify),
    Audit(cli::audit::Audit),
    Coordinator(cli::coordinator::Coordinator),
    Worker(cli::worker::Worker),
    Status(cli::status::Status),
    Query(cli::query::Query),
    Play(cli::play::Play),
    Review(cli::review::Review),
    Serve(cli::serve::Serve),
    Export(cli::export::Export),
    Runs(cli::runs::Runs),
    Ranking(cli::ranking::Ranking),
    Plot(cli::plot::Plot),
    Display(cli::display::Display),
    Puzzle(cli::puzzle::PuzzleCommand),
    Design(cli::design::Design),
    Completions(cli::shell::Completions),
    Man(cli::shell::Man),
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
            Command::Review(c) => c.run(out),
            Command::Serve(c) => c.run(out),
            Command::Export(c) => c.run(out),
            Command::Runs(c) => c.run(out),
            Command::Ranking(c) => c.run(out),
            Command::Plot(c) => c.run(out),
            Command::Display(c) => c.run(out),
            Command::Puzzle(c) => c.run(out),
            Command::Design(c) => c.run(out),
            Command::Completions(c) => c.run(out, Cli::command()),
            Command::Man(c) => c.run(out, Cli::command()),
        }
    }
}

fn main() -> ExitCode {
    // Under --json every outcome is JSON on standard output, even a command line clap
    // refuses; help and --version stay as they are.
    let json = std::env::args_os()
        .take_while(|a| a != "--")
        .any(|a| a == "--json");
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if json && err.use_stderr() => {
            let message = err.render().to_string();
            // The first paragraph says what is wrong; the rest is a tip for people.
            let message = message.trim().trim_start_matches("error: ");
            let message = message.split("\n\n").next().unwrap_or(message);
            let doc = ErrorJson::new(ErrorKind::Usage, message.to_string());
            let _ = write_json(&mut io::stdout().lock(), &doc);
            return ExitCode::from(2);
        }
        Err(err) => err.exit(),
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let result = cli
        .command
        .run(&mut out)
        .and_then(|()| out.flush().map_err(anyhow::Error::from));
    let err = match result {
        Ok(()) => return ExitCode::SUCCESS,
        // `hakase rank --top 0 | head` closes the pipe early: not an error worth reporting.
        Err(err) if is_broken_pipe(&err) => return ExitCode::SUCCESS,
        Err(err) => err,
    };
    // A solve no strategy wins has printed its whole result: only the status tells.
    if err.downcast_ref::<cli::outcome::NoWin>().is_some() {
        let _ = out.flush();
        return ExitCode::from(cli::outcome::NO_WIN_EXIT);
    }
    // Stopped by a signal after saving: say so, and exit 130 (SIGINT) or 143 (SIGTERM).
    let interrupted = err
        .downcast_ref::<hakase_serving::Interrupted>()
        .map(|i| i.exit_code());
    if json {
        // Whatever the command printed before failing is dropped: the output is one document.
        let _ = out.into_parts();
        let _ = write_json(
            &mut io::stdout().lock(),
            &ErrorJson::of(&err, interrupted.is_some()),
        );
    } else if interrupted.is_some() {
        eprintln!("{err:#}");
    } else {
        eprintln!("error: {err:#}");
    }
    interrupted.map_or(ExitCode::FAILURE, ExitCode::from)
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Args;

    /// The about of a group of options flattened into commands (each has a doc comment of
    /// its own, which clap takes for a command that lacks one).
    fn group_abouts() -> Vec<String> {
        let about = |c: clap::Command| c.get_about().map(|a| a.to_string());
        [
            about(game_args::GameArgs::augment_args(clap::Command::new("g"))),
            about(cli::HistoryArgs::augment_args(clap::Command::new("g"))),
            about(cli::query::RunSource::augment_args(clap::Command::new("g"))),
            about(cli::run_args::RunArgs::augment_args(clap::Command::new(
                "g",
            ))),
            about(cli::run_args::DataArgs::augment_args(clap::Command::new(
                "g",
            ))),
            about(cli::solver_args::SolverArgs::augment_args(
                clap::Command::new("g"),
            )),
            about(cli::coordinator::CutArgs::augment_args(clap::Command::new(
                "g",
            ))),
            about(hakase_serving::ServerAuthArgs::augment_args(
                clap::Command::new("g"),
            )),
            about(hakase_batch::ServeArgs::augment_args(clap::Command::new(
                "g",
            ))),
            about(crate::output::JsonArg::augment_args(clap::Command::new(
                "g",
            ))),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// clap's own checks of the command line (ids named by groups and conflicts exist, no
    /// flag is defined twice), which it runs in debug builds only: `--run`/`--data` are
    /// flattened into many commands, so a misnamed group must fail here.
    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// `hakase puzzle --help` once described the command as "How a batch is served to
    /// workers", the doc of a group it flattens: every command says what it does itself.
    #[test]
    fn every_command_describes_itself() {
        let groups = group_abouts();
        let cli = Cli::command();
        let mut seen = std::collections::HashSet::new();
        for command in cli.get_subcommands() {
            let name = command.get_name();
            let about = command
                .get_about()
                .map(|a| a.to_string())
                .unwrap_or_default();
            assert!(!about.is_empty(), "`hakase {name}` has no description");
            assert!(
                !groups.contains(&about),
                "`hakase {name}` is described as {about:?}"
            );
            assert!(
                seen.insert(about.clone()),
                "`hakase {name}` shares {about:?}"
            );
        }
        let puzzle = cli.find_subcommand("puzzle").expect("puzzle");
        assert_eq!(
            puzzle.get_about().map(|a| a.to_string()),
            Some(
                "Generate puzzles: deduction puzzles (name the one answer that fits the rows) and \
                 best-move problems (find the one right guess), graded easy, medium or hard and \
                 proven"
                    .to_string()
            )
        );
    }
}
