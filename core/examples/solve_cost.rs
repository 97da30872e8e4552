//! What one exact solve costs, in the solver's own counters: `cargo run --release -p
//! hakase-core --example solve_cost -- GAME [FIRST] [--worst] [--hard]`. With
//! `RAYON_NUM_THREADS=1` the counters are the same on every run, so a change to the search can
//! be judged without a quiet machine.

use std::time::Instant;

use hakase_core::presets::load_preset;
use hakase_core::solver::{
    FirstGuesses, Mode, Objective, Solver, SolverConfig, DEFAULT_MEMO_ENTRIES,
};
use hakase_core::FeedbackTable;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (flags, mut args): (Vec<String>, Vec<String>) =
        std::env::args().skip(1).partition(|a| a.starts_with("--"));
    args.reverse();
    let name = args.pop().unwrap_or_else(|| "pokemon-qiita2023".into());
    let game = load_preset(&name)?;
    let table = FeedbackTable::build(&game);
    let first = match args.pop() {
        Some(word) => FirstGuesses::Only(game.find_guess(&word)?),
        None => FirstGuesses::Best,
    };
    let mut config = SolverConfig::default();
    for flag in &flags {
        match flag.as_str() {
            "--worst" => config.objective = Objective::Worst,
            "--hard" => config.mode = Mode::Hard,
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    let solver = Solver::new(&game, &table, config, DEFAULT_MEMO_ENTRIES);
    let start = Instant::now();
    // Progress to stderr every 25 first guesses, so a long run shows where it is.
    let solution = solver.solve_game(first, &|p| {
        if p.done % 25 == 0 || p.done == p.total {
            eprintln!(
                "[{:8.1}s] within {}: {}/{} first guesses",
                start.elapsed().as_secs_f64(),
                p.guesses_left,
                p.done,
                p.total
            );
        }
    });
    let best = solution
        .best
        .map_or("none".to_string(), |b| format!("{}", b.outcome.value()));
    println!(
        "{name} value {best} within {} wall {:.3}s {}",
        solution.guesses_left,
        start.elapsed().as_secs_f64(),
        solver.stats.summary(),
    );
    Ok(())
}
