//! A cheap stand-in for the full English Wordle proof: most of that proof is spent showing that
//! first guesses other than the best cannot beat its total, each searched with the best total
//! as the cutoff. This evaluates a sample of first guesses spread over the root's search order
//! at that cutoff and prints each one's time and counters, then the sum.
//!
//! `cargo bench -p hakase-core --bench first_guesses -- [GAME] [--sample N] [--cutoff C]
//! [--from INDEX]` (defaults: wordle, 48 guesses, 7920, from the second guess in order).
//! With `RAYON_NUM_THREADS=1` the counters are the same on every run, so a change to the
//! search can be judged without a quiet machine.

use std::time::Instant;

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{Solver, SolverConfig, DEFAULT_MEMO_ENTRIES};
use hakase_core::FeedbackTable;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut game_name = "wordle".to_string();
    let mut sample = 48usize;
    let mut cutoff = 7920u32;
    let mut from = 1usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--sample" => sample = args.next().ok_or("--sample N")?.parse()?,
            "--cutoff" => cutoff = args.next().ok_or("--cutoff C")?.parse()?,
            "--from" => from = args.next().ok_or("--from INDEX")?.parse()?,
            // What `cargo bench` passes to every bench binary.
            "--bench" => {}
            other if !other.starts_with('-') => game_name = other.to_string(),
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    let game = load_preset(&game_name)?;
    let start = Instant::now();
    let table = FeedbackTable::build(&game);
    println!("table build {:.3}s", start.elapsed().as_secs_f64());
    let config = SolverConfig::default();
    let solver = Solver::new(&game, &table, config.clone(), DEFAULT_MEMO_ENTRIES);
    let root = solver.root(config.guess_cap(&game));
    let start = Instant::now();
    let order = solver.guess_order(&root).guesses;
    println!(
        "root order of {} guesses {:.3}s",
        order.len(),
        start.elapsed().as_secs_f64()
    );
    // Spread over the order from `from` on (default 1, after the best by bound): the head of
    // the order is searched deeply, the rest only until it reaches the cutoff.
    let from = from.min(order.len().saturating_sub(1));
    let picks: Vec<usize> = (0..sample)
        .map(|i| from + i * (order.len() - from) / sample.max(1))
        .collect();
    let total = Instant::now();
    let mut last = solver.stats.snapshot();
    println!("index guess lower outcome seconds nodes scans pairs memo_hits");
    for index in picks {
        let guess = order[index];
        let start = Instant::now();
        let outcome = solver.evaluate_guess(&root, guess.guess, cutoff);
        let now = solver.stats.snapshot();
        println!(
            "{index} {} {} {:?} {:.4} {} {} {} {}",
            game.guess_text(guess.guess),
            guess.lower,
            outcome,
            start.elapsed().as_secs_f64(),
            now[0] - last[0],
            now[1] - last[1],
            now[2] - last[2],
            now[3] - last[3],
        );
        last = now;
    }
    println!(
        "sample of {sample} at cutoff {cutoff}: {:.3}s nodes {} scans {} scanned_pairs {} memo_hits {}",
        total.elapsed().as_secs_f64(),
        last[0],
        last[1],
        last[2],
        last[3]
    );
    Ok(())
}
