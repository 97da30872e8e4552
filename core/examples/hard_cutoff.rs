//! What first guesses cost when the best total is already known, as in a whole-game proof:
//! `cargo run --profile ci -p hakase-core --example hard_cutoff -- GAME CUTOFF FROM COUNT
//! [--hard]`. Takes the root's search order, skips FROM guesses and settles the next COUNT at
//! cutoff CUTOFF (e.g. wordle 8122 0 200 --hard: the 200 most expensive first guesses of the
//! hard-mode proof). Prints the solver's counters and how many guesses were proven worse.

use std::time::Instant;

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{Mode, Solver, SolverConfig, DEFAULT_MEMO_ENTRIES};
use hakase_core::FeedbackTable;
use rayon::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (flags, args): (Vec<String>, Vec<String>) =
        std::env::args().skip(1).partition(|a| a.starts_with("--"));
    let [name, cutoff, from, count] = args.as_slice() else {
        return Err("usage: hard_cutoff GAME CUTOFF FROM COUNT [--hard]".into());
    };
    let game = load_preset(name)?;
    let table = FeedbackTable::build(&game);
    let mut config = SolverConfig::default();
    for flag in &flags {
        match flag.as_str() {
            "--hard" => config.mode = Mode::Hard,
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    let (cutoff, from, count): (u32, usize, usize) =
        (cutoff.parse()?, from.parse()?, count.parse()?);
    let solver = Solver::new(&game, &table, config.clone(), DEFAULT_MEMO_ENTRIES);
    let root = solver.root(config.guess_cap(&game));
    let order = solver.guess_order(&root);
    let start = Instant::now();
    let guesses: Vec<_> = order.guesses.iter().skip(from).take(count).collect();
    let exact: usize = guesses
        .par_iter()
        .map(|g| usize::from(solver.evaluate_guess(&root, g.guess, cutoff).is_exact()))
        .sum();
    println!(
        "{name} guesses {} below cutoff {exact} wall {:.3}s {}",
        guesses.len(),
        start.elapsed().as_secs_f64(),
        solver.stats.summary(),
    );
    Ok(())
}
