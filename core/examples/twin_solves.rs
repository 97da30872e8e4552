//! Two one-thread solves at once in one process, over one shared feedback table or over two
//! separate ones: what sharing the table is worth to workers on one machine.
//! `cargo run --release -p hakase-core --example twin_solves -- GAME [--separate | --one]`
//! (`--one` runs a single solve, for the time alone).

use std::time::Instant;

use hakase_core::presets::load_preset;
use hakase_core::solver::{FirstGuesses, Solver, SolverConfig, DEFAULT_MEMO_ENTRIES};
use hakase_core::{FeedbackTable, Game};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (flags, args): (Vec<String>, Vec<String>) =
        std::env::args().skip(1).partition(|a| a.starts_with("--"));
    let name = args.first().map_or("wordle", String::as_str);
    let separate = flags.iter().any(|f| f == "--separate");
    let solves = if flags.iter().any(|f| f == "--one") {
        1
    } else {
        2
    };
    let game = load_preset(name)?;
    let tables: Vec<FeedbackTable> = (0..if separate { solves } else { 1 })
        .map(|_| FeedbackTable::build(&game))
        .collect();
    let started = Instant::now();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..solves)
            .map(|i| {
                let (game, table) = (&game, &tables[i % tables.len()]);
                scope.spawn(move || solve_alone(i, game, table))
            })
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().map_err(|_| "a solve panicked")?)
    })?;
    println!(
        "{name}: {solves} solve(s), {} table(s), {:.2}s",
        tables.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// One solve on a pool of one thread, like a worker started with `--threads 1`.
fn solve_alone(i: usize, game: &Game, table: &FeedbackTable) -> Result<(), String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let solver = Solver::new(game, table, SolverConfig::default(), DEFAULT_MEMO_ENTRIES);
    let solution = pool.install(|| solver.solve_game(FirstGuesses::Best, &|_| {}));
    let value = solution.best.map(|b| b.outcome.value());
    println!(
        "solve {i}: {value:?} in {:.2}s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
