//! The engine under a liar, without the network: random schedules of honest results and
//! forged ones (inflated bounds, valid but suboptimal trees, false exact values, reports of
//! jobs another worker holds) must end in the true optimum, or in a result that says which
//! rows rest on unchecked claims — never in a wrong row printed as proven. Honest workers are
//! never refused or quarantined.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{FirstGuesses, Objective, Outcome, Solver, SolverConfig, INFEASIBLE};
use hakase_core::{FeedbackTable, GuessId};
use hakase_engine::audit::AuditPolicy;
use hakase_engine::engine::{Engine, EngineParams};
use hakase_engine::error::ClusterError;
use hakase_proto::job::{JobAnswer, JobId, JobSpec};
use hakase_worker::{solve_job, Workbench};

const GAME: &str = "pokemon-gen:1";

/// A small deterministic generator (the schedule must replay from its seed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A job a worker leased and solved but has not reported yet: id, answer, cutoff, spec.
type Held = (JobId, JobAnswer, u32, Arc<JobSpec>);

/// The exact value of every first guess, from the single-process solver.
fn truth() -> (u32, HashMap<GuessId, u32>) {
    let game = load_preset(GAME).expect("preset");
    let table = FeedbackTable::build(&game);
    let solver = Solver::new(&game, &table, SolverConfig::default(), 1_000_000);
    let all = solver.solve_game(FirstGuesses::RankAll, &|_| {});
    let values: HashMap<GuessId, u32> = all
        .ranking
        .iter()
        .map(|v| {
            assert!(v.outcome.is_exact(), "rank-all gives exact values");
            (v.guess, v.outcome.value())
        })
        .collect();
    let best = all.best.expect("a best first guess").outcome.value();
    (best, values)
}

/// What one run did, for the figures of the test.
#[derive(Debug, Default)]
struct Tally {
    messages: u64,
    forged: u64,
    caught: bool,
    unchecked_rows: usize,
    exact: bool,
}

/// One forged answer to `honest` (the true answer to the job at cutoff `beta`), or `None`
/// when the kind drawn does not apply to this job.
fn forge(
    rng: &mut Rng,
    inflate_only: bool,
    honest: &JobAnswer,
    worse: impl FnOnce() -> Option<JobAnswer>,
    beta: u32,
) -> Option<JobAnswer> {
    let lie = |outcome, tree| JobAnswer {
        outcome,
        tree,
        ..honest.clone()
    };
    let kind = if inflate_only { 0 } else { rng.below(3) };
    match kind {
        // An inflated bound: the most tempting lie, it prunes the guess.
        0 => {
            let bound = (honest.outcome.value() + 1 + rng.below(40) as u32).max(beta);
            Some(lie(Outcome::AtLeast(bound), None))
        }
        // A valid tree that totals more than the optimum of the job.
        1 => {
            let worse = worse()?;
            (worse.outcome.value() > honest.outcome.value() && honest.outcome.is_exact())
                .then_some(worse)
        }
        // A false exact value below its tree's total.
        _ => match honest.outcome {
            Outcome::Exact { value, guess } if value > 1 => Some(lie(
                Outcome::Exact {
                    value: value - 1,
                    guess,
                },
                honest.tree.clone(),
            )),
            _ => None,
        },
    }
}

/// A solver of the engine's game under `config`, for the workers of a schedule.
fn workbench(engine: &Engine, config: SolverConfig) -> Workbench {
    Workbench::new(engine.game().clone(), config, None, 1_000_000)
}

/// A valid tree for `spec` that is not the optimal one: the least-worst-case tree, its
/// total counted. Exact with that total (which may equal the optimum: then no lie).
fn suboptimal(worst: &Workbench, spec: &JobSpec) -> Option<JobAnswer> {
    let answer = solve_job(worst.solver(), spec, INFEASIBLE);
    let tree = answer.tree.clone()?;
    let eval = tree.evaluate(worst.game(), worst.table(), &spec.node.candidates);
    Some(JobAnswer {
        outcome: Outcome::Exact {
            value: u32::try_from(eval.total).ok()?,
            guess: tree.guess,
        },
        ..answer
    })
}

/// Runs the game through two honest workers and one liar that forges `lie_percent` of its
/// answers (only as inflated bounds when `inflate_only`), with the audit re-running `fraction` of the claims; checks the result against
/// `truth` and returns what happened.
fn run(
    seed: u64,
    fraction: f64,
    lie_percent: u64,
    inflate_only: bool,
    truth: &(u32, HashMap<GuessId, u32>),
) -> Tally {
    let db = std::env::temp_dir().join(format!(
        "hakase-adversary-{seed}-{}-{}",
        (fraction * 100.0) as u32,
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&db);
    let params = EngineParams {
        lease: Duration::from_secs(120),
        min_outstanding: 16,
        audit: Some(AuditPolicy::with_fraction(fraction)),
        ..EngineParams::default()
    };
    let engine = Engine::new(
        load_preset(GAME).expect("preset"),
        SolverConfig::default(),
        &db,
        params,
    )
    .expect("engine");
    let bench = workbench(&engine, SolverConfig::default());
    let worst = workbench(
        &engine,
        SolverConfig {
            objective: Objective::Worst,
            ..SolverConfig::default()
        },
    );
    let stop = AtomicBool::new(false);
    let mut rng = Rng(seed);
    let mut tally = Tally::default();
    let honest = [
        engine.register(2, None).expect("register"),
        engine.register(2, None).expect("register"),
    ];
    let liar = engine.register(4, None).expect("register");
    let solution = std::thread::scope(|scope| {
        scope.spawn(|| engine.drive(&stop));
        // A failed assertion below must end the run, not leave the scope waiting for it.
        let _stops = StopOnDrop(&stop, &engine);
        let workers = [honest[0], honest[1], liar];
        // Leased, solved, not reported yet: reports come later, in any order.
        let mut pending: HashMap<u64, Vec<Held>> = HashMap::new();
        let mut steps = 0u64;
        let solution = loop {
            if let Some(solution) = engine.wait(Duration::ZERO).expect("no failure") {
                break solution;
            }
            steps += 1;
            assert!(steps < 2_000_000, "the run never finished (seed {seed})");
            let worker = workers[rng.below(3) as usize];
            let is_liar = worker == liar;
            if is_liar && tally.caught {
                continue;
            }
            let queue = pending.entry(worker).or_default();
            if !queue.is_empty() && rng.below(2) == 0 {
                // Report some held jobs, most recent or oldest first.
                let k = 1 + rng.below(queue.len() as u64) as usize;
                let batch: Vec<_> = if rng.below(2) == 0 {
                    queue.drain(..k).collect()
                } else {
                    let at = queue.len() - k;
                    queue.drain(at..).collect()
                };
                for (id, answer, beta, spec) in batch {
                    tally.messages += 1;
                    let sent = if is_liar && rng.below(100) < lie_percent {
                        forge(
                            &mut rng,
                            inflate_only,
                            &answer,
                            || suboptimal(&worst, &spec),
                            beta,
                        )
                    } else {
                        None
                    };
                    tally.forged += u64::from(sent.is_some());
                    let result = engine.complete(worker, id, sent.unwrap_or(answer), false);
                    if is_liar {
                        tally.caught |= engine.snapshot().audit.quarantined.contains(&liar);
                    } else {
                        // A job leased to it twice is reported twice; the second finds no
                        // lease left (a real worker is told NotFound and goes on).
                        match result {
                            Ok(_) | Err(ClusterError::NotHeld(_)) => {}
                            Err(err) => {
                                panic!("an honest report was refused (seed {seed}): {err}")
                            }
                        }
                    }
                }
                continue;
            }
            if is_liar && rng.below(8) == 0 {
                // A report of a job an honest worker holds, under the liar's own id. Near
                // the end a job may be leased to the liar as well (a duplicate lease); its
                // report is then the liar's own, so such a job is not picked.
                let liar_holds: Vec<JobId> = pending
                    .get(&liar)
                    .into_iter()
                    .flatten()
                    .map(|held| held.0)
                    .collect();
                let held = honest
                    .iter()
                    .flat_map(|w| pending.get(w).into_iter().flatten())
                    .find(|held| !liar_holds.contains(&held.0))
                    .cloned();
                if let Some((id, answer, beta, _)) = held {
                    tally.messages += 1;
                    tally.forged += 1;
                    let lie = JobAnswer {
                        outcome: Outcome::AtLeast((answer.outcome.value() + 5).max(beta)),
                        tree: None,
                        ..answer
                    };
                    assert!(
                        engine.complete(liar, id, lie, false).is_err(),
                        "a report of a job the liar does not hold was taken (seed {seed})"
                    );
                }
                continue;
            }
            tally.messages += 1;
            let leased = match engine.lease(worker, 1 + rng.below(6) as usize) {
                Ok(Some(jobs)) => jobs,
                Ok(None) => continue,
                Err(_) if is_liar => {
                    tally.caught = true;
                    continue;
                }
                Err(err) => panic!("an honest lease was refused (seed {seed}): {err}"),
            };
            if leased.is_empty() {
                std::thread::sleep(Duration::from_millis(1));
            }
            for job in leased {
                let answer = solve_job(bench.solver(), &job.spec, job.beta);
                pending
                    .entry(worker)
                    .or_default()
                    .push((job.id, answer, job.beta, job.spec));
            }
        };
        stop.store(true, Ordering::Relaxed);
        engine.poke();
        solution
    });
    let (best, optimum) = check_result(&engine, &solution, liar, truth, seed, fraction);
    tally.unchecked_rows = engine.snapshot().audit.unchecked_guesses.len();
    tally.exact = best == optimum;
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
    tally
}

/// Checks a finished run's result against `truth`: no honest worker quarantined, every
/// row not named unchecked true (a bound at most the truth), and a wrong best total only
/// with unchecked rows; returns the best total and the optimum.
fn check_result(
    engine: &Engine,
    solution: &hakase_core::solver::Solution,
    liar: u64,
    truth: &(u32, HashMap<GuessId, u32>),
    seed: u64,
    fraction: f64,
) -> (u32, u32) {
    let status = engine.snapshot();
    assert!(
        status.audit.quarantined.iter().all(|&w| w == liar),
        "an honest worker was quarantined (seed {seed}): {:?}",
        status.audit.quarantined
    );
    let unchecked = &status.audit.unchecked_guesses;
    let (optimum, values) = truth;
    let best = solution.best.expect("a best first guess").outcome.value();
    if fraction >= 1.0 {
        assert!(unchecked.is_empty(), "every claim is checked at fraction 1");
    }
    if best != *optimum {
        assert!(
            !unchecked.is_empty(),
            "a wrong total {best} (truth {optimum}) printed as plainly proven (seed {seed})"
        );
    }
    for row in &solution.ranking {
        if unchecked.binary_search(&row.guess).is_ok() {
            continue;
        }
        let truth = values[&row.guess];
        match row.outcome {
            Outcome::Exact { value, .. } => assert_eq!(
                value, truth,
                "a wrong exact row printed as proven (seed {seed}, guess {})",
                row.guess
            ),
            Outcome::AtLeast(bound) => assert!(
                bound <= truth,
                "a false bound >= {bound} (truth {truth}) printed as proven (seed {seed})"
            ),
        }
    }
    (best, *optimum)
}

/// The two lies of issue 36, case 2, told once, on the best first guess.
#[derive(Debug, Clone, Copy)]
enum BestLie {
    /// "It totals at least 1000 more": ranked last, never the runner-up's.
    FarBound,
    /// A valid tree that totals more than the optimum: it proves only the upper side.
    WorseTree,
}

/// Issue 36, case 2: a liar takes the first jobs and lies once, on the best first guess,
/// at the default audit. The result must be the true optimum: a bound far above the
/// cutoff ranked last and was never re-run, and a valid tree proves only the upper side.
#[test]
fn one_lie_on_the_best_first_guess_never_makes_a_wrong_result_proven() {
    let truth = truth();
    let policy = AuditPolicy::with_fraction(AuditPolicy::DEFAULT_FRACTION);
    for (seed, lie) in [(101, BestLie::FarBound), (102, BestLie::WorseTree)] {
        let (lied, best, unchecked) = lie_on_the_best(seed, lie, policy, &truth);
        assert!(lied, "the liar never held the best first guess ({lie:?})");
        assert_eq!(best, truth.0, "one lie changed the result ({lie:?})");
        eprintln!(
            "{lie:?}: best total {best} (truth {}), unchecked rows {unchecked}",
            truth.0
        );
    }
}

/// `--trust-workers`: the decisive claims are not re-run, so one lie on the best first
/// guess may change the result, but never silently: the best's row is named unchecked and
/// the headline says "proven if". Without a lie the result is the optimum.
#[test]
fn with_trusted_workers_a_lie_on_the_best_is_never_called_proven() {
    let truth = truth();
    let policy = AuditPolicy::with_fraction(0.0).trusting();
    for (seed, lie) in [(111, BestLie::FarBound), (112, BestLie::WorseTree)] {
        let (lied, best, unchecked) = lie_on_the_best(seed, lie, policy, &truth);
        assert!(lied, "the liar never held the best first guess ({lie:?})");
        assert!(
            unchecked > 0,
            "a trusted run named no unchecked row ({lie:?}, best {best}, truth {})",
            truth.0
        );
        eprintln!(
            "trusted, {lie:?}: best total {best} (truth {}), unchecked rows {unchecked}",
            truth.0
        );
    }
}

/// One run of [`one_lie_on_the_best_first_guess_never_makes_a_wrong_result_proven`]: the
/// liar leases and reports jobs until it has lied on the job of the best first guess (the
/// one whose true answer is exact at the optimum), then one honest worker does the rest.
/// Returns whether it lied, the best total and the unchecked rows.
fn lie_on_the_best(
    seed: u64,
    lie: BestLie,
    policy: AuditPolicy,
    truth: &(u32, HashMap<GuessId, u32>),
) -> (bool, u32, usize) {
    let db = std::env::temp_dir().join(format!("hakase-best-lie-{seed}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&db);
    let fraction = policy.fraction();
    // The silent liar counts as live: a re-run of an honest claim waits one lease period
    // for another worker before the coordinator takes it.
    let params = EngineParams {
        lease: Duration::from_secs(1),
        audit: Some(policy),
        ..EngineParams::default()
    };
    let engine = Engine::new(
        load_preset(GAME).expect("preset"),
        SolverConfig::default(),
        &db,
        params,
    )
    .expect("engine");
    let bench = workbench(&engine, SolverConfig::default());
    let worst = workbench(
        &engine,
        SolverConfig {
            objective: Objective::Worst,
            ..SolverConfig::default()
        },
    );
    let greedy = workbench(
        &engine,
        SolverConfig {
            top_k: Some(1),
            ..SolverConfig::default()
        },
    );
    let liar = engine.register(2, None).expect("register");
    let honest = engine.register(2, None).expect("register");
    let stop = AtomicBool::new(false);
    // Whether the liar lied, and whether it is done (then the honest worker takes over).
    let (mut lied, mut done, mut idle) = (false, false, 0);
    let started = std::time::Instant::now();
    let solution = std::thread::scope(|scope| {
        scope.spawn(|| engine.drive(&stop));
        // A failed assertion below must end the run, not leave the scope waiting for it.
        let _stops = StopOnDrop(&stop, &engine);
        let mut steps = 0u64;
        let solution = loop {
            if let Some(solution) = engine.wait(Duration::ZERO).expect("no failure") {
                break solution;
            }
            steps += 1;
            assert!(steps < 1_000_000, "the run never finished ({lie:?})");
            let worker = if done { honest } else { liar };
            let leased = match engine.lease(worker, 4) {
                Ok(Some(jobs)) => jobs,
                Ok(None) => continue,
                Err(_) if worker == liar => {
                    done = true;
                    continue;
                }
                Err(err) => panic!("an honest lease was refused: {err}"),
            };
            if leased.is_empty() {
                if worker == liar {
                    // Nothing left for the liar to take (the plan may refill the queue).
                    idle += 1;
                    done |= idle > 2000;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            for job in leased {
                let answer = solve_job(bench.solver(), &job.spec, job.beta);
                let best_job = job.first.is_some()
                    && answer.outcome.is_exact()
                    && answer.outcome.value() == truth.0;
                let sent = match (worker == liar && best_job, lie) {
                    (false, _) => answer,
                    (true, BestLie::FarBound) => JobAnswer {
                        outcome: Outcome::AtLeast(answer.outcome.value() + 1000),
                        tree: None,
                        ..answer
                    },
                    // The least-worst-case tree, or the greedy one, if either totals more.
                    (true, BestLie::WorseTree) => [&worst, &greedy]
                        .into_iter()
                        .filter_map(|bench| suboptimal(bench, &job.spec))
                        .find(|worse| worse.outcome.value() > truth.0)
                        .unwrap_or(answer),
                };
                if best_job && sent.outcome.value() != truth.0 {
                    lied = true;
                    done = true;
                }
                match engine.complete(worker, job.id, sent, false) {
                    Ok(_) | Err(ClusterError::NotHeld(_)) => {}
                    Err(_) if worker == liar => {}
                    Err(err) => panic!("an honest report was refused: {err}"),
                }
            }
        };
        stop.store(true, Ordering::Relaxed);
        engine.poke();
        solution
    });
    eprintln!("{lie:?}: the run took {:?}", started.elapsed());
    let (best, _) = check_result(&engine, &solution, liar, truth, seed, fraction);
    let audit = engine.snapshot().audit;
    if !policy.decisive {
        assert_eq!(
            audit.rerun_decisive, 0,
            "trusted claims were re-run as decisive"
        );
        assert!(
            audit.trusted,
            "the account does not say the workers were trusted"
        );
    }
    let unchecked = audit.unchecked_guesses.len();
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
    (lied, best, unchecked)
}

/// Stops the engine's planning thread when dropped: on every way out of a run's scope,
/// a panic included, so a failing check is reported instead of hanging the test.
struct StopOnDrop<'a>(&'a AtomicBool, &'a Engine);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
        self.1.poke();
    }
}

#[test]
fn a_liar_never_makes_a_wrong_result_proven() {
    let truth = truth();
    let mut runs = Vec::new();
    // Every kind of lie, or only inflated bounds (the lie a tree cannot expose), at each
    // audit fraction.
    let mut seed = 0;
    for inflate_only in [false, true] {
        for fraction in [1.0, 0.5, 0.1, 0.0] {
            for lie_percent in [100, 30, 5] {
                seed += 1;
                let tally = run(seed, fraction, lie_percent, inflate_only, &truth);
                runs.push((seed, fraction, lie_percent, tally));
            }
        }
    }
    let messages: u64 = runs.iter().map(|r| r.3.messages).sum();
    let forged: u64 = runs.iter().map(|r| r.3.forged).sum();
    eprintln!(
        "{} runs, {messages} messages, {forged} forged, 0 wrong \"proven\" results",
        runs.len()
    );
    for (seed, fraction, lie_percent, tally) in &runs {
        eprintln!("seed {seed} fraction {fraction} lies {lie_percent}%: {tally:?}");
    }
    assert!(
        forged > 0,
        "the liar never lied: the test would prove nothing"
    );
    // At fraction 1 every result is the true optimum.
    assert!(runs
        .iter()
        .filter(|r| r.1 >= 1.0)
        .all(|r| r.3.exact && r.3.unchecked_rows == 0));
}

/// A one-guess run (`--first W`) rests on its parts' claims. A valid but suboptimal tree sent
/// for a part (or a slice) proves only that its total is reached; at the default audit it
/// must not raise the first guess's total unseen (it is re-run at its value and the liar is
/// quarantined), and with trusted workers it must be named unchecked.
#[test]
fn a_worse_tree_for_a_part_never_makes_a_wrong_total_proven() {
    let game = load_preset(GAME).expect("preset");
    let table = FeedbackTable::build(&game);
    let solver = Solver::new(&game, &table, SolverConfig::default(), 1 << 20);
    let root = solver.root(game.tries());
    // The guess leaving the largest part (sliced when it has at least 64 answers).
    let largest = |g: GuessId| {
        hakase_core::rules::history::partition(&table, g, &root.candidates)
            .iter()
            .map(|(_, part)| part.len())
            .max()
            .unwrap_or(0)
    };
    let guess = solver
        .guess_order(&root)
        .guesses
        .iter()
        .map(|b| b.guess)
        .max_by_key(|&g| largest(g))
        .expect("guesses");
    let truth = solver.evaluate_guess(&root, guess, INFEASIBLE).value();
    let default = AuditPolicy::with_fraction(0.0);
    for (seed, policy) in [(121, default), (122, default.trusting())] {
        let (lied, total, unchecked) = lie_on_a_part(seed, guess, policy);
        assert!(lied, "no part had a worse tree to send (seed {seed})");
        if policy.decisive {
            assert_eq!(
                total, truth,
                "a worse part tree raised the total (seed {seed})"
            );
            assert_eq!(unchecked, 0, "(seed {seed})");
        } else {
            assert!(
                unchecked > 0,
                "a trusted one-guess run named no unchecked row"
            );
        }
        eprintln!("seed {seed}: total {total} (truth {truth}), unchecked rows {unchecked}");
    }
}

/// One run of [`a_worse_tree_for_a_part_never_makes_a_wrong_total_proven`]: the liar takes
/// jobs until it has sent one worse tree for a part job, then an honest worker does the
/// rest. Returns whether it lied, the total and the unchecked rows.
fn lie_on_a_part(seed: u64, guess: GuessId, policy: AuditPolicy) -> (bool, u32, usize) {
    let db = std::env::temp_dir().join(format!("hakase-part-lie-{seed}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&db);
    let params = EngineParams {
        lease: Duration::from_secs(1),
        audit: Some(policy),
        ..EngineParams::default()
    };
    let scope = hakase_runs::RunScope::Listed(vec![guess]);
    let engine = Engine::open(
        load_preset(GAME).expect("preset"),
        SolverConfig::default(),
        &db,
        params,
        scope,
    )
    .expect("engine");
    let bench = workbench(&engine, SolverConfig::default());
    let liar = engine.register(2, None).expect("register");
    let honest = engine.register(2, None).expect("register");
    let stop = AtomicBool::new(false);
    let mut lied = false;
    let solution = std::thread::scope(|scope| {
        scope.spawn(|| engine.drive(&stop));
        // A failed assertion below must end the run, not leave the scope waiting for it.
        let _stops = StopOnDrop(&stop, &engine);
        let mut steps = 0u64;
        let solution = loop {
            if let Some(solution) = engine.wait(Duration::ZERO).expect("no failure") {
                break solution;
            }
            steps += 1;
            assert!(steps < 1_000_000, "the run never finished (seed {seed})");
            let worker = if lied { honest } else { liar };
            let leased = match engine.lease(worker, 4) {
                Ok(Some(jobs)) => jobs,
                Ok(None) => continue,
                Err(err) => panic!("a lease was refused: {err}"),
            };
            if leased.is_empty() {
                std::thread::sleep(Duration::from_millis(1));
            }
            for job in leased {
                let answer = solve_job(bench.solver(), &job.spec, job.beta);
                let worse = (worker == liar)
                    .then(|| worse_tree(&bench, &job.spec, &answer))
                    .flatten();
                let sent = match worse {
                    Some(worse) => {
                        lied = true;
                        worse
                    }
                    None => answer,
                };
                match engine.complete(worker, job.id, sent, false) {
                    Ok(_) | Err(ClusterError::NotHeld(_)) => {}
                    Err(_) if worker == liar => {}
                    Err(err) => panic!("an honest report was refused: {err}"),
                }
            }
        };
        stop.store(true, Ordering::Relaxed);
        engine.poke();
        solution
    });
    let total = solution.best.expect("a best first guess").outcome.value();
    let audit = engine.snapshot().audit;
    if policy.decisive && lied {
        assert_eq!(
            audit.quarantined,
            vec![liar],
            "the liar was not caught (seed {seed}, total {total}): {audit:?}"
        );
    }
    let unchecked = audit.unchecked_guesses.len();
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
    (lied, total, unchecked)
}

/// A valid tree for a part or slice job that totals more than the honest exact `answer`: the
/// honest tree with one branch's play replaced by a worse one (after the last guess of the
/// branch's search order that totals more). `None` for a bound or when no branch has one.
fn worse_tree(bench: &Workbench, spec: &JobSpec, answer: &JobAnswer) -> Option<JobAnswer> {
    let (Outcome::Exact { value, guess }, Some(honest)) = (answer.outcome, &answer.tree) else {
        return None;
    };
    let (solver, game, table) = (bench.solver(), bench.game(), bench.table());
    let total = |tree: &hakase_core::trees::tree::Tree, candidates: &[hakase_core::AnswerId]| {
        u32::try_from(tree.evaluate(game, table, candidates).total).ok()
    };
    let parts = hakase_core::rules::history::partition(table, guess, &spec.node.candidates);
    let mut tree = honest.clone();
    for (pattern, part) in parts.iter().filter(|(_, part)| part.len() >= 3) {
        let child = hakase_core::solver::Node {
            candidates: part.clone(),
            guesses_left: spec.node.guesses_left.checked_sub(1)?,
            hard: Default::default(),
        };
        let at = tree.branches.iter().position(|(p, _)| p == pattern)?;
        let now = total(&tree.branches[at].1, part)?;
        let order = solver.guess_order(&child).guesses;
        let worse = order.iter().rev().take(8).find_map(|b| {
            let other = solver.tree_with_first(&child, b.guess)?;
            (total(&other, part)? > now).then_some(other)
        });
        if let Some(worse) = worse {
            tree.branches[at].1 = worse;
            let lie = total(&tree, &spec.node.candidates)?;
            assert!(lie > value, "the replaced branch did not raise the total");
            return Some(JobAnswer {
                outcome: Outcome::Exact { value: lie, guess },
                tree: Some(tree),
                ..answer.clone()
            });
        }
    }
    None
}
