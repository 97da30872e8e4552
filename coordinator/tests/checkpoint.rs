//! The resumable run: interrupted part-way, it keeps the settled first guesses; run again, it
//! skips them and gives exactly the in-memory solver's result, then stores it as a run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use hakase_coordinator::cluster::checkpoint::{run_checkpointed, CheckpointOptions};
use hakase_core::presets::load_preset;
use hakase_core::solver::{FirstGuesses, Solution, Solver, SolverConfig};
use hakase_core::FeedbackTable;

fn essentials(s: &Solution) -> serde_json::Value {
    serde_json::json!({ "best": s.best, "tree": s.tree, "guesses_left": s.guesses_left })
}

#[test]
fn an_interrupted_run_resumes_to_the_in_memory_result() {
    let game = load_preset("pokemon-gen:1").expect("preset");
    let table = FeedbackTable::build(&game);
    let config = SolverConfig::default();
    let reference = Solver::new(&game, &table, config.clone(), 1_000_000)
        .solve_game(FirstGuesses::Best, &|_| {});
    let db = std::env::temp_dir().join(format!("hakase-checkpoint-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&db);
    let opts = CheckpointOptions {
        db: db.clone(),
        threads: Some(1),
        memo_entries: 1_000_000,
        sync_every: Duration::from_millis(10),
    };

    let stop = AtomicBool::new(false);
    let first = run_checkpointed(&game, &table, config.clone(), &opts, &stop, &|p| {
        if p.done >= 20 {
            stop.store(true, Ordering::Relaxed);
        }
    })
    .expect("first run");
    assert!(first.is_none(), "the run was stopped before the end");

    let never = AtomicBool::new(false);
    let second = run_checkpointed(&game, &table, config.clone(), &opts, &never, &|_| {})
        .expect("second run")
        .expect("finished");
    assert!(
        second.resumed >= 20,
        "only {} first guesses were kept",
        second.resumed
    );
    assert_eq!(essentials(&second.solution), essentials(&reference));
    assert_eq!(second.solution.ranking.len(), reference.ranking.len());

    // Finished: the stored solution comes back without a search.
    let third = run_checkpointed(&game, &table, config, &opts, &never, &|_| {})
        .expect("third run")
        .expect("finished");
    assert_eq!((third.resumed, third.nodes), (0, 0));
    assert_eq!(essentials(&third.solution), essentials(&reference));
    let _ = std::fs::remove_dir_all(&db);
}
