//! The resumable run: interrupted part-way, it keeps the settled first guesses; run again, it
//! skips them and gives exactly the in-memory solver's result, then stores it as a run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{FirstGuesses, Solution, Solver, SolverConfig};
use hakase_core::FeedbackTable;
use hakase_engine::checkpoint::{run_checkpointed, CheckpointOptions};
use hakase_runs::RunScope;

/// Options of a test run: a small memo, and syncs often enough to stop anywhere.
fn options(db: &std::path::Path, threads: usize) -> CheckpointOptions {
    CheckpointOptions {
        db: db.to_path_buf(),
        threads: Some(threads),
        memo_entries: 1_000_000,
        sync_every: Duration::from_millis(10),
    }
}

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
    let opts = options(&db, 1);

    let stop = AtomicBool::new(false);
    let first = run_checkpointed(
        &game,
        &table,
        config.clone(),
        &RunScope::Best,
        &opts,
        &stop,
        &|p| {
            if p.done >= 20 {
                stop.store(true, Ordering::Relaxed);
            }
        },
    )
    .expect("first run");
    assert!(first.is_none(), "the run was stopped before the end");

    let never = AtomicBool::new(false);
    let second = run_checkpointed(
        &game,
        &table,
        config.clone(),
        &RunScope::Best,
        &opts,
        &never,
        &|_| {},
    )
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
    let third = run_checkpointed(
        &game,
        &table,
        config,
        &RunScope::Best,
        &opts,
        &never,
        &|_| {},
    )
    .expect("third run")
    .expect("finished");
    assert_eq!((third.resumed, third.nodes), (0, 0));
    assert_eq!(essentials(&third.solution), essentials(&reference));
    let _ = std::fs::remove_dir_all(&db);
}

/// The values a ranking holds, by guess, for comparing rankings whatever their tie order.
fn values(s: &Solution) -> Vec<(u32, u32, bool)> {
    let mut v: Vec<(u32, u32, bool)> = s
        .ranking
        .iter()
        .map(|r| (r.guess, r.outcome.value(), r.outcome.is_exact()))
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn an_interrupted_ranking_resumes_to_the_in_memory_ranking_and_keeps_a_ranking_file() {
    use hakase_runs::ranking_file;
    let game = load_preset("pokemon-qiita2023").expect("preset");
    let table = FeedbackTable::build(&game);
    let config = SolverConfig::default();
    let reference = Solver::new(&game, &table, config.clone(), 1_000_000)
        .solve_game(FirstGuesses::RankAll, &|_| {});
    assert!(reference.ranking.iter().all(|r| r.outcome.is_exact()));
    let db = std::env::temp_dir().join(format!("hakase-rank-all-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&db);
    let opts = options(&db, 1);
    let stop = AtomicBool::new(false);
    let scope = RunScope::RankAll;
    let first = run_checkpointed(&game, &table, config.clone(), &scope, &opts, &stop, &|p| {
        if p.done >= 100 {
            stop.store(true, Ordering::Relaxed);
        }
    })
    .expect("first run");
    assert!(first.is_none(), "the ranking was stopped before the end");
    let partial = ranking_file::read(&db)
        .expect("readable")
        .expect("a ranking file");
    assert!(!partial.finished);
    assert_eq!(partial.first_guesses, reference.ranking.len());
    assert!(
        partial.values.len() >= 100,
        "{} values",
        partial.values.len()
    );
    for v in &partial.values {
        let truth = reference.ranking.iter().find(|r| r.guess == v.guess);
        assert_eq!(truth.map(|r| r.outcome.value()), Some(v.outcome.value()));
    }

    // A ranking is not the search for the best first guess: the same directory refuses it.
    let err = run_checkpointed(
        &game,
        &table,
        config.clone(),
        &RunScope::Best,
        &opts,
        &stop,
        &|_| {},
    )
    .expect_err("another scope is refused");
    assert!(
        err.to_string().contains("ranking every first guess"),
        "{err}"
    );

    let never = AtomicBool::new(false);
    let second = run_checkpointed(&game, &table, config, &scope, &opts, &never, &|_| {})
        .expect("second run")
        .expect("finished");
    assert!(second.resumed >= 100, "only {} kept", second.resumed);
    assert_eq!(values(&second.solution), values(&reference));
    assert_eq!(essentials(&second.solution), essentials(&reference));
    let last = ranking_file::read(&db).expect("readable").expect("file");
    assert!(last.finished);
    assert_eq!(last.values, second.solution.ranking);
    let _ = std::fs::remove_dir_all(&db);
}

#[test]
fn a_listed_ranking_gives_each_listed_guess_its_exact_value() {
    let game = load_preset("pokemon-qiita2023").expect("preset");
    let table = FeedbackTable::build(&game);
    let config = SolverConfig::default();
    let solver = Solver::new(&game, &table, config.clone(), 1_000_000);
    let all = solver.solve_game(FirstGuesses::RankAll, &|_| {});
    // The 2nd, the 100th and the last of the full ranking, so none is the best.
    let mut listed: Vec<u32> = [1, 99, all.ranking.len() - 1]
        .iter()
        .map(|&i| all.ranking[i].guess)
        .collect();
    listed.sort_unstable();
    let db = std::env::temp_dir().join(format!("hakase-listed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&db);
    let opts = options(&db, 2);
    let never = AtomicBool::new(false);
    let scope = RunScope::Listed(listed.clone());
    let run = run_checkpointed(&game, &table, config, &scope, &opts, &never, &|_| {})
        .expect("run")
        .expect("finished");
    let want: Vec<(u32, u32, bool)> = {
        let mut v: Vec<(u32, u32, bool)> = values(&all)
            .into_iter()
            .filter(|(g, _, _)| listed.contains(g))
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(values(&run.solution), want);
    assert_eq!(
        run.solution.best.map(|b| b.guess),
        Some(all.ranking[1].guess),
        "the best of the list is the full ranking's second"
    );
    let _ = std::fs::remove_dir_all(&db);
}
