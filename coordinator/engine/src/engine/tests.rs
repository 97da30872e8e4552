use super::lease::{pick, AFFINITY_WINDOW};
use super::*;
use crate::audit::Reason;
use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{Solver, INFEASIBLE};
use hakase_proto::job::{JobAnswer, JobKind};

fn open(db: &std::path::Path) -> Engine {
    open_with(db, None)
}

/// An engine over pokemon-gen:1, planned once, whose leases do not run out in a test.
fn open_with(db: &std::path::Path, audit: Option<AuditPolicy>) -> Engine {
    let params = EngineParams {
        lease: Duration::from_secs(600),
        audit,
        ..EngineParams::default()
    };
    let game = load_preset("pokemon-gen:1").expect("preset");
    let engine = Engine::new(game, SolverConfig::default(), db, params).expect("engine");
    engine.replan(&mut engine.lock());
    engine
}

/// A fresh run directory for the test `name` (one per process), emptied of what an earlier
/// run left.
fn fresh_db(name: &str) -> std::path::PathBuf {
    let db = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&db);
    db
}

/// pokemon-gen:1 with its table, for the tests that solve the jobs they lease themselves.
struct Gen1 {
    game: Game,
    table: FeedbackTable,
}

impl Gen1 {
    fn new() -> Gen1 {
        let game = load_preset("pokemon-gen:1").expect("preset");
        let table = FeedbackTable::build(&game);
        Gen1 { game, table }
    }

    fn solver(&self) -> Solver<'_> {
        Solver::new(&self.game, &self.table, SolverConfig::default(), 1 << 16)
    }
}

/// Every claim in the audit's sample, so that a test does not hang on the run's secret.
fn every_claim() -> Option<AuditPolicy> {
    Some(AuditPolicy::with_fraction(1.0))
}

#[test]
fn a_restarted_engine_never_hands_out_a_job_a_worker_holds() {
    let db = fresh_db("hakase-lease");
    let held: Vec<JobId> = {
        let engine = open(&db);
        let worker = engine.register(1, None).expect("register");
        let jobs = engine.lease(worker, 2).expect("lease").expect("running");
        assert_eq!(jobs.len(), 2);
        // Dropped without `flush`: only what the lease itself stored survives.
        jobs.iter().map(|j| j.id).collect()
    };
    let engine = open(&db);
    let other = engine.register(1, None).expect("register");
    // The held jobs come first in search order: without their stored leases they would
    // be the ones handed out here.
    let jobs = engine.lease(other, 2).expect("lease").expect("running");
    assert_eq!(jobs.len(), 2);
    for job in &jobs {
        assert!(!held.contains(&job.id), "job {} handed out twice", job.id);
    }
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
}

#[test]
fn workers_watching_the_incumbent_are_told_each_better_first_guess_as_it_is_taken() {
    let db = fresh_db("hakase-told");
    let engine = open(&db);
    let mut told = engine.watch_incumbent();
    assert_eq!(*told.borrow_and_update(), Told::Nothing);
    let worker = engine.register(1, None).expect("register");
    let jobs = engine.lease(worker, 2).expect("lease").expect("running");
    let solver = Solver::new(
        engine.game(),
        engine.table(),
        engine.config.clone(),
        1 << 16,
    );
    let mut best: Option<(u32, u32)> = None;
    for job in &jobs {
        let i = job.first.expect("the first jobs are whole first guesses");
        let answer = hakase_worker::solve_job(&solver, &job.spec, job.beta);
        let Outcome::Exact { value, .. } = answer.outcome else {
            panic!("a first lease has no cutoff: {:?}", answer.outcome);
        };
        assert!(engine
            .complete(worker, job.id, answer, false)
            .expect("taken"));
        // Told before any planning pass, and only if better (value, then search order).
        best = Some(best.map_or((value, i), |b| b.min((value, i))));
        let (v, at) = best.expect("set above");
        assert_eq!(*told.borrow_and_update(), Told::Best(v, at));
    }
    // A worse total is not told; a better one is.
    let (v, at) = best.expect("two jobs");
    engine.tell(v + 1, 0);
    assert!(!told.has_changed().expect("open"));
    engine.tell(v - 1, at + 1);
    assert_eq!(*told.borrow_and_update(), Told::Best(v - 1, at + 1));
    // Once closed, nothing reopens the streams.
    engine.close_watches();
    engine.tell(1, 0);
    assert_eq!(*told.borrow_and_update(), Told::Closed);
    drop(solver);
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
}

#[test]
fn a_displaced_incumbents_sampled_claim_is_re_run_while_the_search_goes_on() {
    let db = fresh_db("hakase-displaced");
    let engine = open_with(&db, every_claim());
    let worker = engine.register(1, None).expect("register");
    let jobs = engine.lease(worker, 2).expect("lease").expect("running");
    assert_eq!(jobs.len(), 2);
    let solver = Solver::new(
        engine.game(),
        engine.table(),
        engine.config.clone(),
        1 << 16,
    );
    for job in &jobs {
        let answer = hakase_worker::solve_job(&solver, &job.spec, job.beta);
        assert!(answer.outcome.is_exact(), "a first lease has no cutoff");
        assert!(engine
            .complete(worker, job.id, answer, false)
            .expect("taken"));
    }
    // Both totals were the best known when they arrived (no planning pass in between):
    // neither is re-run yet.
    assert!(engine.lock().rechecks.is_empty());
    engine.replan(&mut engine.lock());
    let state = engine.lock();
    let (_, best) = state.planner.incumbent().expect("two exact totals");
    let (kept, displaced): (Vec<&Leased>, Vec<&Leased>) =
        jobs.iter().partition(|job| job.first == Some(best as u32));
    let displaced = displaced[0];
    let i = displaced.first.expect("a whole first guess") as usize;
    assert!(
        state.planner.lower(i) < state.planner.cutoff(i),
        "the admissible bound alone settles first guess {i}: pick another game"
    );
    assert!(!state.auditing, "the search is not over");
    let recheck = state
        .rechecks
        .get(&displaced.id)
        .expect("the displaced claim is re-run now, not after the search");
    assert_eq!(recheck.reason, Reason::Policy);
    // Re-run at the value the claim states (above the cutoff it must hold to), so that an
    // inflated total cannot stand in the ranking either.
    assert!(recheck.claimed.value() > state.planner.cutoff(i));
    assert_eq!(recheck.beta, recheck.claimed.value());
    assert!(
        !state.rechecks.contains_key(&kept[0].id),
        "the incumbent's claim waits for the final audit"
    );
    drop(state);
    drop(solver);
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
}

#[test]
fn the_final_audit_tells_the_best_total_again_for_idle_workers_to_take_its_re_runs() {
    let db = fresh_db("hakase-nudge");
    let engine = open_with(&db, every_claim());
    let mut told = engine.watch_incumbent();
    let solver = Solver::new(
        engine.game(),
        engine.table(),
        engine.config.clone(),
        1 << 16,
    );
    // One worker: it may not re-run its own claims, so the search ends with the audit's
    // re-runs waiting for another worker.
    let worker = engine.register(1, None).expect("register");
    let mut passes = 0;
    loop {
        let before = *told.borrow_and_update();
        engine.replan(&mut engine.lock());
        if engine.lock().auditing {
            assert!(
                told.has_changed().expect("open"),
                "idle workers were not told"
            );
            assert_eq!(
                *told.borrow_and_update(),
                before,
                "the same total, told again"
            );
            assert!(matches!(before, Told::Best(..)));
            break;
        }
        assert!(!told.has_changed().expect("open") || before == Told::Nothing);
        let jobs = engine.lease(worker, 64).expect("lease").expect("running");
        for job in jobs.iter().filter(|job| !job.recheck) {
            let answer = hakase_worker::solve_job(&solver, &job.spec, job.beta);
            engine
                .complete(worker, job.id, answer, false)
                .expect("taken");
        }
        passes += 1;
        assert!(passes < 10_000, "the search never finished");
    }
    let state = engine.lock();
    assert!(state.rechecks.values().any(|r| r.holder.is_none()));
    drop(state);
    drop(solver);
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
}

#[test]
fn a_lease_leaves_a_letter_set_to_the_live_worker_that_took_it_last() {
    let (a, b) = ([1, 0, 0, 0], [2, 0, 0, 0]);
    // Jobs 0 and 1 have letter set a, job 2 has b, the others none (part jobs).
    let letters = |job: JobId| match job.0 {
        0 | 1 => Some(a),
        2 => Some(b),
        _ => None,
    };
    let queue_of = |ids: &[u128]| -> BTreeSet<QueueKey> {
        (0u32..)
            .zip(ids)
            .map(|(at, &id)| ((at, 0, 0), JobId(id)))
            .collect()
    };
    let affinity = HashMap::from([(a, 7), (b, 8)]);
    let both = HashSet::from([7, 8]);
    let picked = |worker, live: &HashSet<u64>, queue: &BTreeSet<QueueKey>| {
        pick(queue, letters, &affinity, live, worker).map(|key| key.1 .0)
    };
    let queue = queue_of(&[0, 1, 2, 3]);
    assert_eq!(picked(7, &both, &queue), Some(0), "its own set, first");
    assert_eq!(picked(8, &both, &queue), Some(2), "a's jobs are left to 7");
    assert_eq!(
        picked(9, &both, &queue),
        Some(3),
        "a new worker takes an unowned job"
    );
    let only_eight = HashSet::from([8]);
    assert_eq!(
        picked(8, &only_eight, &queue),
        Some(0),
        "a dead owner keeps nothing"
    );
    // Past the window the search order wins: 7's jobs fill it, job 3 is behind it.
    let ids: Vec<u128> = (100..100 + AFFINITY_WINDOW as u128).chain([3]).collect();
    let letters_far = |job: JobId| (job.0 >= 100).then_some(a);
    let far = queue_of(&ids);
    let front = pick(&far, letters_far, &affinity, &both, 8).map(|key| key.1 .0);
    assert_eq!(front, Some(100), "nothing free in the window: the first");
    let near = pick(&far, letters_far, &affinity, &both, 7).map(|key| key.1 .0);
    assert_eq!(near, Some(100));
    assert_eq!(picked(8, &both, &BTreeSet::new()), None);
}

/// Issue 36, case 3: a worker that lowers a cutoff below what the coordinator asked (by an
/// incumbent the planner does not hold, or a stale one) answered with a bound that settles
/// nothing, and got the same job back with the same index to lower again, for ever. Once
/// answered below its cutoff, a job is leased without its first-guess index.
#[test]
fn a_job_answered_below_its_cutoff_is_leased_again_without_its_first_index() {
    let db = fresh_db("hakase-untightened");
    let engine = open(&db);
    let worker = engine.register(16, None).expect("register");
    let jobs = engine.lease(worker, 4).expect("lease").expect("running");
    let job = jobs
        .iter()
        .find(|j| j.first.is_some() && !j.recheck)
        .expect("a whole first-guess job");
    let below = job.beta.min(INFEASIBLE) - 1;
    let answer = JobAnswer {
        beta: below,
        outcome: Outcome::AtLeast(below),
        tree: None,
        nodes: 0,
        millis: 0,
    };
    engine
        .complete(worker, job.id, answer, false)
        .expect("taken");
    let mut again = None;
    for _ in 0..64 {
        engine.replan(&mut engine.lock());
        let leased = engine.lease(worker, 64).expect("lease").expect("running");
        if let Some(j) = leased.into_iter().find(|j| j.id == job.id) {
            again = Some(j);
            break;
        }
    }
    let again = again.expect("the job is asked for again: its answer settled nothing");
    assert_eq!(again.first, None, "leased again with its index: {again:?}");
    assert!(again.beta > below);
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
}

/// Issue 36, case 5: one lease of a worker claiming many threads took every job, and the
/// honest worker had none. While another worker is live, a worker holds at most half the
/// outstanding jobs, and at most twice its share by threads.
#[test]
fn a_worker_holds_at_most_its_share_of_the_outstanding_jobs() {
    use super::lease::share;
    assert_eq!(share(493, 1024, &[]), 493, "alone, everything");
    assert_eq!(share(0, 1, &[]), 1);
    assert_eq!(share(493, 1024, &[1]), 247, "never more than half");
    assert_eq!(share(493, 1, &[1024]), 1);
    assert_eq!(share(493, 4, &[1024]), 4);
    assert_eq!(share(493, 1, &[1]), 247);
    assert_eq!(share(493, 2, &[2, 2, 2, 2, 2, 2, 2]), 124);
    assert_eq!(share(100, 32, &[1024]), 32, "one job per thread");
    assert_eq!(share(1, 4, &[4]), 1);

    let db = fresh_db("hakase-share");
    let engine = open(&db);
    let greedy = engine.register(1024, None).expect("register");
    let honest = engine.register(1, None).expect("register");
    let outstanding = engine.lock().queue.len();
    // The honest worker has not asked yet: the greedy one is alone and may take everything.
    let taken = engine
        .lease(greedy, 1 << 16)
        .expect("lease")
        .expect("running");
    assert_eq!(taken.len(), outstanding);
    let left = engine.lease(honest, 64).expect("lease").expect("running");
    assert!(!left.is_empty(), "the honest worker found no job");
    // Now both are live: the greedy one keeps at most half.
    let more = engine
        .lease(greedy, 1 << 16)
        .expect("lease")
        .expect("running");
    assert!(more.is_empty(), "{} more past its share", more.len());
    let held = |worker| {
        engine
            .lock()
            .jobs
            .values()
            .filter(|e| matches!(e.state, JobState::Leased { holder: Some(h), .. } if h == worker))
            .count()
    };
    assert!(held(greedy) <= outstanding.div_ceil(2), "{}", held(greedy));
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
}

/// Issue 58, case 6: alone at the start, an attacker leases every job and heartbeats them;
/// the honest worker that arrives next must get work at once (before, it got none until the
/// attacker's leases ran out, which heartbeats never let happen), and the attacker must hear
/// that the jobs taken back are no longer its own.
#[test]
fn jobs_held_beyond_a_share_are_taken_back_when_another_worker_arrives() {
    let db = fresh_db("hakase-take-back");
    let engine = open(&db);
    let attacker = engine.register(1024, None).expect("register");
    let all = engine
        .lease(attacker, 1 << 16)
        .expect("lease")
        .expect("running");
    let ids: Vec<JobId> = all.iter().map(|j| j.id).collect();
    assert!(ids.len() >= 4, "{} jobs", ids.len());
    assert!(engine
        .heartbeat(attacker, &ids)
        .expect("heartbeat")
        .is_empty());
    let honest = engine.register(1, None).expect("register");
    let got = engine.lease(honest, 64).expect("lease").expect("running");
    assert!(!got.is_empty(), "the honest worker got no job");
    let cancelled = engine.heartbeat(attacker, &ids).expect("heartbeat");
    assert!(
        got.iter().all(|j| cancelled.contains(&j.id)),
        "the attacker was not told that the honest worker's jobs are no longer its own"
    );
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
}

/// Issue 58, case 7: sixty registrations claiming 1024 threads each that never lease
/// (phantoms) must not shrink an honest worker's share: before, they counted as live
/// workers, and a two-thread worker got two jobs per lease instead of all it could use.
#[test]
fn registrations_that_never_lease_take_no_share() {
    let db = fresh_db("hakase-phantoms");
    let engine = open(&db);
    for _ in 0..60 {
        engine.register(1024, None).expect("register");
    }
    let honest = engine.register(2, None).expect("register");
    let outstanding = engine.lock().queue.len();
    let got = engine.lease(honest, 64).expect("lease").expect("running");
    assert_eq!(
        got.len(),
        outstanding.min(64),
        "the honest worker got {} of {outstanding} jobs",
        got.len()
    );
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
}

/// Issue 36, case 6: a result ready at 0.2 s was held back until 189.7 s, because the
/// coordinator re-ran a claim itself only when no other worker was live, and heartbeats
/// from made-up ids counted as live. They count for nothing now, and a re-run that no other
/// worker takes within a lease period goes to the coordinator, however many say they live.
#[test]
fn a_re_run_nobody_takes_within_a_lease_period_goes_to_the_coordinator() {
    let db = fresh_db("hakase-held-back");
    let params = EngineParams {
        lease: Duration::from_millis(400),
        audit: every_claim(),
        ..EngineParams::default()
    };
    let game = load_preset("pokemon-gen:1").expect("preset");
    let engine = Engine::new(game, SolverConfig::default(), &db, params).expect("engine");
    engine.replan(&mut engine.lock());
    let claimant = engine.register(1, None).expect("register");
    let idle = engine.register(1, None).expect("register");
    // It asks once (finding nothing it may take): a live worker from then on.
    engine.lease(idle, 0).expect("lease");
    let solver = Solver::new(
        engine.game(),
        engine.table(),
        engine.config.clone(),
        1 << 16,
    );
    // Claims until one waits for its re-run (every claim is in the sample at fraction 1;
    // the incumbent's waits for the final audit).
    let mut waiting = None;
    for _ in 0..64 {
        let jobs = engine.lease(claimant, 1).expect("lease").expect("running");
        let Some(job) = jobs.first() else { break };
        let answer = hakase_worker::solve_job(&solver, &job.spec, job.beta);
        engine
            .complete(claimant, job.id, answer, false)
            .expect("taken");
        engine.replan(&mut engine.lock());
        if engine.lock().rechecks.contains_key(&job.id) {
            waiting = Some(job.id);
            break;
        }
    }
    let waiting = waiting.expect("a claim waiting for its re-run");
    // Another worker is live: the re-run waits for it, for now.
    assert_eq!(engine.recheck_for_coordinator(&mut engine.lock()), None);
    // A made-up id is no worker, whatever it sends.
    engine.heartbeat(987_654_321, &[]).expect("ignored");
    assert_eq!(
        engine.live_workers(&engine.lock()),
        HashSet::from([claimant, idle])
    );
    std::thread::sleep(Duration::from_millis(450));
    engine.heartbeat(idle, &[]).expect("a heartbeat");
    let (taken, _, _) = engine
        .recheck_for_coordinator(&mut engine.lock())
        .expect("the coordinator takes a re-run that waited a lease period");
    let state = engine.lock();
    let held = state.rechecks[&taken].holder.map(|(w, _)| w);
    assert_eq!(held, Some(COORDINATOR));
    assert!(state.rechecks.contains_key(&waiting));
    drop(state);
    drop(solver);
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
}

/// A one-guess run cuts its first guess into parts and its largest part into slices; while
/// it runs, the status shows the parts settled and an interval that always holds the true
/// total, closing on it.
#[test]
fn a_one_guess_run_shows_its_parts_and_an_interval_that_holds_the_value() {
    let db = fresh_db("hakase-cut");
    let gen1 = Gen1::new();
    let (game, solver) = (gen1.game.clone(), gen1.solver());
    let root = solver.root(game.tries());
    // The guess leaving the largest part (at least 64 answers, so that it is sliced).
    let largest = |g: GuessId| {
        hakase_core::rules::history::partition(&gen1.table, g, &root.candidates)
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
    assert!(largest(guess) >= 64, "no part to slice");
    let truth = solver.evaluate_guess(&root, guess, INFEASIBLE).value();
    let params = EngineParams {
        lease: Duration::from_secs(600),
        ..EngineParams::default()
    };
    let scope = hakase_runs::RunScope::Listed(vec![guess]);
    let engine = Engine::open(game, SolverConfig::default(), &db, params, scope).expect("engine");
    let worker = engine.register(1, None).expect("register");
    let (mut slices, mut settled, mut seen_upper) = (0, 0, false);
    for _ in 0..10_000 {
        engine.replan(&mut engine.lock());
        if engine.solution().is_some() {
            break;
        }
        let snapshot = engine.snapshot();
        let [cut] = snapshot.cuts.as_slice() else {
            panic!("one open cut first guess expected: {:?}", snapshot.cuts);
        };
        assert_eq!(cut.guess, engine.game().guess_text(guess));
        assert!(cut.lower <= truth, "lower {} above {truth}", cut.lower);
        if let Some(upper) = cut.upper {
            assert!(upper >= truth, "upper {upper} below {truth}");
            seen_upper = true;
        }
        assert!(cut.parts_settled >= settled && cut.parts_settled < cut.parts);
        settled = cut.parts_settled;
        let jobs = engine.lease(worker, 1).expect("lease").expect("running");
        for job in jobs {
            slices += usize::from(matches!(job.spec.kind, JobKind::Slice { .. }));
            let answer = hakase_worker::solve_job(&solver, &job.spec, job.beta);
            engine
                .complete(worker, job.id, answer, false)
                .expect("taken");
        }
    }
    let solution = engine.solution().expect("the run finished");
    assert_eq!(solution.best.map(|b| b.outcome.value()), Some(truth));
    assert!(
        engine.snapshot().cuts.is_empty(),
        "a settled first guess is not open"
    );
    assert!(slices > 0, "no slice job: the largest part was not split");
    assert!(seen_upper, "the interval never had an upper end");
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
}

/// A part or slice claim in the audit's sample is re-run as soon as it arrives, at the value
/// it states, so a one-guess run's sampled re-runs overlap its search instead of following
/// it; a claim its floor already proves is not re-run.
#[test]
fn a_sampled_part_claim_is_re_run_as_it_arrives() {
    let db = fresh_db("hakase-early-part");
    let gen1 = Gen1::new();
    let (game, solver) = (gen1.game.clone(), gen1.solver());
    let root = solver.root(game.tries());
    let guess = solver.guess_order(&root).guesses[0].guess;
    let params = EngineParams {
        lease: Duration::from_secs(600),
        audit: every_claim(),
        ..EngineParams::default()
    };
    let scope = hakase_runs::RunScope::Listed(vec![guess]);
    let engine = Engine::open(game, SolverConfig::default(), &db, params, scope).expect("engine");
    let worker = engine.register(1, None).expect("register");
    let mut early = 0;
    'run: for _ in 0..1_000 {
        engine.replan(&mut engine.lock());
        let Some(jobs) = engine.lease(worker, 1).expect("lease") else {
            break;
        };
        if jobs.is_empty() {
            break;
        }
        for job in jobs {
            let answer = hakase_worker::solve_job(&solver, &job.spec, job.beta);
            let stated = answer.outcome.value();
            engine
                .complete(worker, job.id, answer, false)
                .expect("taken");
            let state = engine.lock();
            if state.auditing {
                break 'run;
            }
            let floor = state.jobs[&job.id]
                .claim_floor
                .expect("a one-guess run's jobs are part and slice jobs");
            match state.rechecks.get(&job.id) {
                Some(recheck) => {
                    assert!(stated > floor, "{stated} is proven by its floor {floor}");
                    assert_eq!(recheck.reason, Reason::Policy);
                    assert_eq!(recheck.beta, stated);
                    early += 1;
                }
                None => assert!(
                    stated <= floor,
                    "claim {stated} over its floor {floor} waits"
                ),
            }
        }
    }
    assert!(early > 0, "no claim was re-run as it arrived");
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
}

/// A ranking's ETA weighs first guesses by their expected cost and counts only this
/// session's work: a resumed run starts with what it found done and no ETA, and has one once
/// it settles a first guess of its own.
#[test]
fn a_resumed_rankings_eta_counts_only_the_work_of_this_session() {
    let db = fresh_db("hakase-eta");
    let gen1 = Gen1::new();
    let (game, solver) = (gen1.game.clone(), gen1.solver());
    let root = solver.root(game.tries());
    let listed: Vec<GuessId> = (0..game.guesses().len() as GuessId)
        .step_by(29)
        .take(4)
        .collect();
    let costs: HashMap<GuessId, f64> = listed
        .iter()
        .copied()
        .zip(solver.first_guess_costs(&root, &listed))
        .collect();
    let params = || EngineParams {
        lease: Duration::from_secs(600),
        ..EngineParams::default()
    };
    let open = || {
        let scope = hakase_runs::RunScope::Listed(listed.clone());
        let engine = Engine::open(game.clone(), SolverConfig::default(), &db, params(), scope)
            .expect("engine");
        engine.replan(&mut engine.lock());
        engine
    };
    // Settle one whole first guess job, and note which guess it was.
    let solve_one = |engine: &Engine| -> GuessId {
        let worker = engine.register(1, None).expect("register");
        let jobs = engine.lease(worker, 1).expect("lease").expect("running");
        let job = jobs.first().expect("a job");
        let JobKind::Guess(guess) = job.spec.kind else {
            panic!("a whole first guess expected: {:?}", job.spec.kind);
        };
        let answer = hakase_worker::solve_job(&solver, &job.spec, job.beta);
        engine
            .complete(worker, job.id, answer, false)
            .expect("taken");
        engine.replan(&mut engine.lock());
        guess
    };
    let total: f64 = costs.values().sum();
    let first = {
        let engine = open();
        assert_eq!(engine.snapshot().eta_secs, None, "nothing settled yet");
        let first = solve_one(&engine);
        engine.flush().expect("flush");
        first
    };
    let engine = open();
    let (at_start, work) = {
        let state = engine.lock();
        (state.work_at_start, state.planner.progress().work)
    };
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.max(1.0);
    assert!(close(work.total, total), "{} against {total}", work.total);
    assert!(close(work.done, costs[&first]) && close(at_start.expect("set"), costs[&first]));
    assert_eq!(
        engine.snapshot().eta_secs,
        None,
        "no work of this session yet"
    );
    let second = solve_one(&engine);
    let work = engine.lock().planner.progress().work;
    assert!(close(work.done, costs[&first] + costs[&second]));
    assert!(engine.snapshot().eta_secs.is_some_and(|s| s >= 0.0));
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
}

#[test]
fn held_jobs_that_settled_first_guesses_no_longer_need_are_cancelled_and_the_optimum_stands() {
    let db = fresh_db("hakase-cancel");
    let params = EngineParams {
        lease: Duration::from_secs(600),
        plan: PlanParams {
            whole_first: false,
            ..PlanParams::default()
        },
        ..EngineParams::default()
    };
    let gen1 = Gen1::new();
    let game = load_preset("pokemon-gen:1").expect("preset");
    let engine = Engine::new(game, SolverConfig::default(), &db, params).expect("engine");
    engine.replan(&mut engine.lock());
    let (a, b) = (
        engine.register(1, None).expect("register"),
        engine.register(1, None).expect("register"),
    );
    let solver = gen1.solver();
    // Worker a solves what it is given, `rounds` leases of up to 16 jobs (until none is left
    // for it); true once the run is over.
    let solve = |worker: u64, rounds: usize| {
        for _ in 0..rounds {
            engine.replan(&mut engine.lock());
            let Some(jobs) = engine.lease(worker, 16).expect("lease") else {
                return true;
            };
            if jobs.is_empty() {
                break;
            }
            for job in jobs {
                let answer = hakase_worker::solve_job(&solver, &job.spec, job.beta);
                engine
                    .complete(worker, job.id, answer, false)
                    .expect("taken");
            }
        }
        engine.replan(&mut engine.lock());
        engine.solution().is_some()
    };
    // Once a best total is known, a and b take two part jobs each, in turn, and a solves
    // its own: a first guess whose largest parts a refutes needs no more of its smaller
    // ones, which b holds.
    assert!(!solve(a, 3));
    assert!(
        engine.snapshot().best.is_some(),
        "a best total after three leases"
    );
    let mut held = Vec::new();
    for _ in 0..10 {
        let mine = engine.lease(a, 2).expect("lease").expect("running");
        held.extend(engine.lease(b, 2).expect("lease").expect("running"));
        for job in mine {
            let answer = hakase_worker::solve_job(&solver, &job.spec, job.beta);
            engine.complete(a, job.id, answer, false).expect("taken");
        }
        engine.replan(&mut engine.lock());
    }
    assert_eq!(held.len(), 20);
    let ids: Vec<JobId> = held.iter().map(|j| j.id).collect();
    assert!(
        !solve(a, usize::MAX),
        "the run cannot end while b holds needed jobs"
    );
    // Told with b's next report, or at its next heartbeat: the same jobs.
    let mut told = engine.take_withdrawn(b);
    assert!(engine.take_withdrawn(b).is_empty(), "told once");
    let mut cancelled = engine.heartbeat(b, &ids).expect("beat");
    told.sort_unstable();
    cancelled.sort_unstable();
    assert_eq!(told, cancelled);
    assert!(
        !cancelled.is_empty() && cancelled.len() < ids.len(),
        "{} of {} held jobs cancelled",
        cancelled.len(),
        ids.len()
    );
    assert!(engine.snapshot().counters.withdrawn >= cancelled.len() as u64);
    // b drops the cancelled jobs unsolved and solves the others: the run ends on the optimum.
    for job in held.iter().filter(|j| !cancelled.contains(&j.id)) {
        let answer = hakase_worker::solve_job(&solver, &job.spec, job.beta);
        engine.complete(b, job.id, answer, false).expect("taken");
    }
    assert!(
        solve(a, usize::MAX),
        "the run ends without the cancelled jobs"
    );
    let solution = engine.solution().expect("solved");
    let root = solver.root(gen1.game.tries());
    let best = solution.best.expect("a best first guess");
    assert!(solution.proven);
    assert_eq!(
        best.outcome.value(),
        solver.evaluate(&root, INFEASIBLE).value(),
        "the optimum"
    );
    drop(engine);
    let _ = std::fs::remove_dir_all(&db);
}
