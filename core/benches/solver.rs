//! The exact solver on the targets: whole Pokémon games (every first guess, proven)
//! and English Wordle from fixed first guesses. Each sample builds a fresh solver, so the
//! transposition table starts empty every time. Run with `scripts/bench-solver` for whole
//! commands, or `cargo bench -p hakase-core --bench solver [-- FILTER]`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{FirstGuesses, Solver, SolverConfig, DEFAULT_MEMO_ENTRIES};
use hakase_core::FeedbackTable;

fn solve(c: &mut Criterion, group_name: &str, game: &str, firsts: &[Option<&str>]) {
    let game = load_preset(game).expect("preset loads");
    let table = FeedbackTable::build(&game);
    let mut group = c.benchmark_group(group_name);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for first in firsts {
        let which = match first {
            Some(word) => FirstGuesses::Only(game.find_guess(word).expect("known word")),
            None => FirstGuesses::Best,
        };
        group.bench_function(first.unwrap_or("all-first-guesses"), |b| {
            b.iter(|| {
                let solver =
                    Solver::new(&game, &table, SolverConfig::default(), DEFAULT_MEMO_ENTRIES);
                black_box(solver.solve_game(which, &|_| {}).best)
            })
        });
    }
    group.finish();
}

fn solver(c: &mut Criterion) {
    solve(c, "pokemon-qiita2023", "pokemon-qiita2023", &[None]);
    solve(c, "pokemon-today", "pokemon-today", &[None]);
    solve(c, "pokemon-verbum", "pokemon-verbum", &[None]);
    solve(
        c,
        "wordle",
        "wordle",
        &[Some("salet"), Some("crane"), Some("trace")],
    );
}

criterion_group!(benches, solver);
criterion_main!(benches);
