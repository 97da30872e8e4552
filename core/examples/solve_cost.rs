//! What one exact solve costs, in the solver's own counters: `cargo run --release -p
//! hakase-core --example solve_cost -- GAME [FIRST]`. With `RAYON_NUM_THREADS=1` the counters
//! are the same on every run, so a change to the search can be judged without a quiet machine.

use std::sync::atomic::Ordering;
use std::time::Instant;

use hakase_core::presets::load_preset;
use hakase_core::solver::{FirstGuesses, Solver, SolverConfig, DEFAULT_MEMO_ENTRIES};
use hakase_core::FeedbackTable;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "pokemon-qiita2023".into());
    let game = load_preset(&name)?;
    let table = FeedbackTable::build(&game);
    let first = match args.next() {
        Some(word) => FirstGuesses::Only(game.find_guess(&word)?),
        None => FirstGuesses::Best,
    };
    let solver = Solver::new(&game, &table, SolverConfig::default(), DEFAULT_MEMO_ENTRIES);
    let start = Instant::now();
    let solution = solver.solve_game(first, &|_| {});
    let best = solution
        .best
        .map_or("none".to_string(), |b| format!("{}", b.outcome.value()));
    let s = &solver.stats;
    println!(
        "{name} value {best} wall {:.3}s nodes {} scans {} scanned_pairs {} memo_hits {}",
        start.elapsed().as_secs_f64(),
        s.nodes.load(Ordering::Relaxed),
        s.scans.load(Ordering::Relaxed),
        s.scanned_pairs.load(Ordering::Relaxed),
        s.memo_hits.load(Ordering::Relaxed),
    );
    Ok(())
}
