//! The shipped rankings of English Wordle (`core/data/wordle/rankings`), re-solved from
//! scratch: every run of the suite draws a few rows at random (seed printed; set
//! HAKASE_SEED to replay one) and solves each opener exactly, so a wrong row cannot hide
//! behind the rows that were checked before.

use std::time::{SystemTime, UNIX_EPOCH};

use hakase_core::rankings::{ShippedRanking, SHIPPED_GAME};
use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{FirstGuesses, Mode, Solver, SolverConfig, INFEASIBLE};
use hakase_core::FeedbackTable;
use rand::seq::IteratorRandom;
use rand::SeedableRng;

/// Rows re-solved per mode and run: each costs about 2–5 CPU-s.
const ROWS_PER_RUN: usize = 2;

#[test]
fn random_shipped_rows_match_a_solve_from_scratch() {
    let seed = std::env::var("HAKASE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
    eprintln!("shipped rows drawn with HAKASE_SEED={seed}");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let game = load_preset(SHIPPED_GAME).expect("preset");
    let table = FeedbackTable::build(&game);
    let mut checked = 0;
    for mode in [Mode::Normal, Mode::Hard] {
        let config = SolverConfig {
            mode,
            ..SolverConfig::default()
        };
        let shipped = ShippedRanking::load(&game, &config).expect("shipped data");
        for row in shipped
            .values
            .iter()
            .choose_multiple(&mut rng, ROWS_PER_RUN)
        {
            let solver = Solver::new(&game, &table, config.clone(), 4_000_000);
            let solution = solver.solve_game(FirstGuesses::Only(row.guess), &|_| {});
            let solved = solution
                .ranking
                .iter()
                .find(|v| v.guess == row.guess)
                .map_or(INFEASIBLE, |v| v.outcome.value());
            assert_eq!(
                solved,
                row.outcome.value(),
                "{mode:?} {}: shipped {:?}, solved {solved} (HAKASE_SEED={seed})",
                game.guess_text(row.guess),
                row.outcome
            );
            checked += 1;
        }
    }
    // Normal mode has shipped rows from its first chunk on; hard mode may have none yet.
    assert!(checked >= ROWS_PER_RUN, "only {checked} rows drawn");
}
