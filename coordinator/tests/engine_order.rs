//! The engine's result must not depend on how jobs are cut, how many are in flight or the
//! order their results arrive in: whatever the schedule, it is exactly the single-process
//! solver's value, first guess and tree.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{FirstGuesses, Solution, Solver, SolverConfig};
use hakase_core::FeedbackTable;
use hakase_engine::engine::{Engine, EngineParams, Leased, Told};
use hakase_engine::plan::PlanParams;
use hakase_proto::job::JobKind;
use hakase_worker::{solve_job, Workbench};

fn scratch(label: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hakase-order-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn essentials(s: &Solution) -> serde_json::Value {
    serde_json::json!({ "best": s.best, "tree": s.tree, "guesses_left": s.guesses_left })
}

fn reference(game: &str, config: &SolverConfig) -> Solution {
    let game = load_preset(game).expect("preset");
    let table = FeedbackTable::build(&game);
    let solver = Solver::new(&game, &table, config.clone(), 1_000_000);
    solver.solve_game(FirstGuesses::Best, &|_| {})
}

/// Drives `engine` with one worker of 8 threads: each lease of up to 12 jobs goes to
/// `batch` (which completes what it chooses) until it answers false or the run is solved;
/// the solution, if it was.
fn drive_batches(
    engine: &Engine,
    mut batch: impl FnMut(u64, Vec<Leased>) -> bool,
) -> Option<std::sync::Arc<Solution>> {
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| engine.drive(&stop));
        let worker = engine.register(8, None).expect("register");
        let solution = loop {
            if let Some(solution) = engine.wait(Duration::ZERO).expect("no failure") {
                break Some(solution);
            }
            let Some(jobs) = engine.lease(worker, 12).expect("lease") else {
                continue;
            };
            if jobs.is_empty() {
                std::thread::sleep(Duration::from_millis(2));
                continue;
            }
            if !batch(worker, jobs) {
                break None;
            }
        };
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        engine.poke();
        solution
    })
}

/// Runs a whole game through the engine, completing each batch of leased jobs in an order
/// scrambled by `seed`.
fn run_shuffled(game: &str, config: SolverConfig, plan: PlanParams, seed: u64) -> Solution {
    let db = scratch(&format!("{seed}-{}", plan.split_min));
    let params = EngineParams {
        plan,
        lease: Duration::from_secs(600),
        min_outstanding: 16,
        audit: None,
        recut_after: None,
    };
    let engine = Engine::new(
        load_preset(game).expect("preset"),
        config.clone(),
        &db,
        params,
    )
    .expect("engine");
    let bench = Workbench::new(engine.game().clone(), config.clone(), None, 1_000_000);
    let told = engine.watch_incumbent();
    let mut rng = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let solution = drive_batches(&engine, |worker, jobs| {
        let mut answers: Vec<_> = jobs
            .iter()
            .map(|j| (j.id, solve_job(bench.solver(), &j.spec, j.beta)))
            .collect();
        for i in (1..answers.len()).rev() {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            answers.swap(i, (rng >> 33) as usize % (i + 1));
        }
        for (id, answer) in answers {
            engine
                .complete(worker, id, answer, false)
                .expect("complete");
        }
        true
    })
    .expect("solved");
    // Workers' incumbent streams end with the run (that is how they hear it is over at
    // once), and a finished run opened again has nothing to tell either.
    assert_eq!(*told.borrow(), Told::Closed, "the stream outlived the run");
    drop(engine);
    let again = Engine::new(load_preset(game).expect("preset"), config, &db, params)
        .expect("reopen the finished run");
    assert_eq!(*again.watch_incumbent().borrow(), Told::Closed);
    drop(again);
    let _ = std::fs::remove_dir_all(&db);
    (*solution).clone()
}

#[test]
fn any_completion_order_gives_the_solvers_result() {
    let config = SolverConfig::default();
    let expected = essentials(&reference("pokemon-gen:1", &config));
    for seed in [1, 2, 3] {
        let plan = PlanParams {
            whole_first: false,
            split_tail: 0,
            rank_all: false,
            inline_max: 3,
            split_min: usize::MAX,
            split_window: 4,
            slice_max: 128,
        };
        let got = run_shuffled("pokemon-gen:1", config.clone(), plan, seed);
        assert_eq!(essentials(&got), expected, "seed {seed}");
    }
}

#[test]
fn whole_first_guess_jobs_give_the_solvers_result() {
    let config = SolverConfig::default();
    let expected = essentials(&reference("pokemon-gen:1", &config));
    for seed in [8, 9] {
        let got = run_shuffled("pokemon-gen:1", config.clone(), PlanParams::default(), seed);
        assert_eq!(essentials(&got), expected, "seed {seed}");
    }
    let worst = SolverConfig {
        objective: hakase_core::solver::Objective::Worst,
        ..SolverConfig::default()
    };
    let expected = essentials(&reference("pokemon-gen:1", &worst));
    let got = run_shuffled("pokemon-gen:1", worst, PlanParams::default(), 10);
    assert_eq!(essentials(&got), expected);
}

#[test]
fn second_move_jobs_give_the_solvers_result() {
    let config = SolverConfig::default();
    let expected = essentials(&reference("pokemon-gen:1", &config));
    for (seed, split_min, window, slice_max) in [(4, 10, 1, 128), (5, 16, 3, 2), (6, 25, 8, 32)] {
        let plan = PlanParams {
            whole_first: false,
            split_tail: 0,
            rank_all: false,
            inline_max: 2,
            split_min,
            split_window: window,
            slice_max,
        };
        let got = run_shuffled("pokemon-gen:1", config.clone(), plan, seed);
        assert_eq!(
            essentials(&got),
            expected,
            "split at {split_min}, slices of at most {slice_max}, seed {seed}"
        );
    }
}

#[test]
fn the_worst_case_objective_deepens_like_the_solver() {
    let config = SolverConfig {
        objective: hakase_core::solver::Objective::Worst,
        ..SolverConfig::default()
    };
    let expected = essentials(&reference("pokemon-gen:1", &config));
    let plan = PlanParams {
        whole_first: false,
        split_tail: 0,
        rank_all: false,
        inline_max: 4,
        split_min: 30,
        split_window: 2,
        slice_max: 128,
    };
    let got = run_shuffled("pokemon-gen:1", config, plan, 7);
    assert_eq!(essentials(&got), expected);
}

/// A ranking asked to cut its last 16 first guesses into part jobs, and by default their
/// largest parts (at least 64 of Generation 1's 151 answers) into slice jobs over runs of
/// second guesses: every first guess still gets the in-memory value.
#[test]
fn a_ranking_whose_tail_is_cut_into_slices_gives_the_in_memory_values() {
    let config = SolverConfig::default();
    let game = load_preset("pokemon-gen:1").expect("preset");
    let table = FeedbackTable::build(&game);
    let solver = Solver::new(&game, &table, config.clone(), 1_000_000);
    let expected = solver.solve_game(FirstGuesses::RankAll, &|_| {});
    // The tail holds a part large enough to be sliced, so slices are what this checks.
    let root = solver.root(game.tries());
    let order = solver.guess_order(&root).guesses;
    let sliced = order[order.len() - 16..].iter().any(|first| {
        hakase_core::rules::history::partition(&table, first.guess, &root.candidates)
            .iter()
            .any(|(_, part)| part.len() >= 64)
    });
    assert!(sliced, "no part of the tail is large enough to be sliced");
    let plan = PlanParams {
        rank_all: true,
        split_tail: 16,
        ..PlanParams::default()
    };
    for seed in [11, 12] {
        let got = run_shuffled("pokemon-gen:1", config.clone(), plan, seed);
        assert_eq!(got.ranking, expected.ranking, "seed {seed}");
        assert_eq!(got.best, expected.best, "seed {seed}");
    }
}

/// A ranking has no cutoffs to keep, so it hands out its first guesses from the end of the
/// search order, the costliest first: the long jobs start early instead of running alone at
/// the end while the other workers idle.
#[test]
fn a_ranking_leases_its_costliest_first_guesses_first() {
    let config = SolverConfig::default();
    let game = load_preset("pokemon-gen:1").expect("preset");
    let table = FeedbackTable::build(&game);
    let solver = Solver::new(&game, &table, config.clone(), 1_000_000);
    let order: Vec<_> = solver
        .guess_order(&solver.root(game.tries()))
        .guesses
        .iter()
        .map(|g| g.guess)
        .collect();
    let db = scratch("costliest-first");
    let params = EngineParams {
        plan: PlanParams {
            rank_all: true,
            ..PlanParams::default()
        },
        lease: Duration::from_secs(600),
        min_outstanding: 16,
        audit: None,
        recut_after: None,
    };
    let engine = Engine::new(game.clone(), config, &db, params).expect("engine");
    let stop = AtomicBool::new(false);
    let leased = std::thread::scope(|scope| {
        scope.spawn(|| engine.drive(&stop));
        let worker = engine.register(8, None).expect("register");
        let leased = loop {
            match engine.lease(worker, 8).expect("lease") {
                Some(jobs) if !jobs.is_empty() => break jobs,
                _ => std::thread::sleep(Duration::from_millis(2)),
            }
        };
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        engine.poke();
        leased
    });
    let guesses: Vec<_> = leased
        .iter()
        .map(|job| match job.spec.kind {
            JobKind::Guess(guess) => guess,
            ref other => panic!("a ranking's first jobs are whole first guesses, got {other:?}"),
        })
        .collect();
    let costliest: Vec<_> = order.iter().rev().take(guesses.len()).copied().collect();
    assert_eq!(guesses, costliest);
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
}

/// Jobs cut finer while they run ([`Engine::recut`]: a whole first guess into parts, a
/// part into slices, a slice into halves) and never answered, as a worker stops a withdrawn
/// job, leave the result exactly the solver's; and a coordinator restarted midway cuts the
/// same jobs again, so it never asks for a job it cut.
#[test]
fn jobs_cut_finer_midway_give_the_solvers_result_across_a_restart() {
    let config = SolverConfig::default();
    let expected = essentials(&reference("pokemon-gen:1", &config));
    let mut all_kinds = std::collections::BTreeSet::new();
    for (seed, plan) in [
        (21u64, PlanParams::default()),
        (
            22,
            PlanParams {
                whole_first: false,
                inline_max: 2,
                split_min: 20,
                split_window: 2,
                slice_max: 16,
                ..PlanParams::default()
            },
        ),
    ] {
        let db = scratch(&format!("recut-{seed}"));
        let params = EngineParams {
            plan,
            lease: Duration::from_secs(600),
            min_outstanding: 16,
            ..EngineParams::default()
        };
        let game = load_preset("pokemon-gen:1").expect("preset");
        let bench = Workbench::new(game.clone(), config.clone(), None, 1_000_000);
        let mut rng = seed;
        let mut coin = move |one_in: u64| {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 33) % one_in == 0
        };
        // Until the restart: every leased job has a chance to be cut instead of answered.
        let mut cut = Vec::new();
        let mut kinds = std::collections::BTreeSet::new();
        let engine = Engine::new(game.clone(), config.clone(), &db, params).expect("engine");
        let mut batches = 0;
        drive_batches(&engine, |worker, jobs| {
            for job in jobs {
                if coin(3) && engine.recut(job.id) {
                    kinds.insert(match job.spec.kind {
                        JobKind::Guess(_) => "first guess",
                        JobKind::Node => "part",
                        JobKind::Slice { .. } => "slice",
                    });
                    cut.push(job.id);
                    continue;
                }
                let answer = solve_job(bench.solver(), &job.spec, job.beta);
                engine
                    .complete(worker, job.id, answer, false)
                    .expect("complete");
            }
            batches += 1;
            batches < 12
        });
        assert!(!cut.is_empty(), "seed {seed}: nothing was cut");
        drop(engine);
        // After the restart: no job that was cut is asked for again.
        let engine = Engine::new(game.clone(), config.clone(), &db, params).expect("reopen");
        let solution = drive_batches(&engine, |worker, jobs| {
            for job in jobs {
                assert!(!cut.contains(&job.id), "seed {seed}: a cut job came back");
                let answer = solve_job(bench.solver(), &job.spec, job.beta);
                engine
                    .complete(worker, job.id, answer, false)
                    .expect("complete");
            }
            true
        })
        .expect("solved");
        assert_eq!(essentials(&solution), expected, "seed {seed}");
        eprintln!("seed {seed}: {} jobs cut: {kinds:?}", cut.len());
        all_kinds.extend(kinds);
        drop(engine);
        let _ = std::fs::remove_dir_all(&db);
    }
    assert_eq!(
        all_kinds.len(),
        3,
        "first guesses, parts and slices were all cut: {all_kinds:?}"
    );
}
