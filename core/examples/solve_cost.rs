//! What one exact solve costs, in the solver's own counters: `cargo run --release -p
//! hakase-core --example solve_cost -- GAME [FIRST | --firsts=FILE [--each]] [--worst]
//! [--hard]`. `--firsts` ranks the listed first guesses, each to its exact value, and prints
//! the sum of their values (one number to compare two versions of the search by); `--each`
//! prints the counters after every one. With `RAYON_NUM_THREADS=1` the counters are the same
//! on every run, so a change to the search can be judged without a quiet machine.

use std::time::Instant;

use hakase_core::rules::presets::load_preset;
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
    let mut listed = Vec::new();
    // Every settled first guess's time and counters, not only every 25th.
    let mut each = false;
    let mut config = SolverConfig::default();
    for flag in &flags {
        match flag.as_str() {
            "--worst" => config.objective = Objective::Worst,
            "--hard" => config.mode = Mode::Hard,
            "--each" => each = true,
            // A ranking of the listed first guesses, each to its exact value.
            other if other.starts_with("--firsts=") => {
                for word in std::fs::read_to_string(&other["--firsts=".len()..])?.lines() {
                    listed.push(game.find_guess(word.trim())?);
                }
            }
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    let first = match args.pop() {
        Some(word) => FirstGuesses::Only(game.find_guess(&word)?),
        None if !listed.is_empty() => FirstGuesses::Listed(&listed),
        None => FirstGuesses::Best,
    };
    let solver = Solver::new(&game, &table, config, DEFAULT_MEMO_ENTRIES);
    let start = Instant::now();
    // Progress to stderr every 25 first guesses, so a long run shows where it is.
    let solution = solver.solve_game(first, &|p| {
        if p.parts.is_none() && (each || p.done % 25 == 0 || p.done == p.total) {
            eprintln!(
                "[{:8.1}s] within {}: {}/{} first guesses {}",
                start.elapsed().as_secs_f64(),
                p.guesses_left,
                p.done,
                p.total,
                solver.stats.summary()
            );
        }
    });
    let best = solution
        .best
        .map_or("none".to_string(), |b| format!("{}", b.outcome.value()));
    // The ranked values, summed: one number to compare two versions of the search by.
    let ranked: u64 = solution
        .ranking
        .iter()
        .map(|v| u64::from(v.outcome.value()))
        .sum();
    println!(
        "{name} value {best} within {} ranked {} sum {ranked} wall {:.3}s {}",
        solution.guesses_left,
        solution.ranking.len(),
        start.elapsed().as_secs_f64(),
        solver.stats.summary(),
    );
    Ok(())
}
