//! The foundation's two hot spots on the largest game, English Wordle: building the
//! feedback table (12972 guesses × 2315 answers) and ranking every guess by entropy.
//! Targets: each under a second on 2 cores. Run with `scripts/bench-foundation`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use hakase_core::heuristics::entropy::rank;
use hakase_core::rules::presets::load_preset;
use hakase_core::FeedbackTable;

fn foundation(c: &mut Criterion) {
    let game = load_preset("wordle").expect("wordle preset loads");
    let mut group = c.benchmark_group("wordle");
    group.sample_size(10);
    group.bench_function("table_build_12972x2315", |b| {
        b.iter(|| FeedbackTable::build(black_box(&game)))
    });
    let table = FeedbackTable::build(&game);
    let answers = game.all_answers();
    group.bench_function("rank_12972_over_2315", |b| {
        b.iter(|| rank(black_box(&table), black_box(&answers)))
    });
    group.finish();
}

criterion_group!(benches, foundation);
criterion_main!(benches);
