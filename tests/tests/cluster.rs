//! End-to-end: a coordinator and worker processes on 127.0.0.1 must give exactly the
//! single-process solver's result, survive kill -9 of either side without redoing finished
//! work, and refuse bad peers and bad requests without panicking.

use std::time::Duration;

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::SolverConfig;
use hakase_tests::*;

const LIMIT: Duration = Duration::from_secs(300);

fn final_status(stdout: &str) -> serde_json::Value {
    let doc: serde_json::Value = serde_json::from_str(stdout).expect("JSON output");
    doc["status"].clone()
}

#[test]
fn three_workers_match_the_resumable_run_and_the_core_solver() {
    let game = "pokemon-qiita2023";
    let reference = core_solution(game, SolverConfig::default());
    assert_eq!(reference.best.map(|b| b.outcome.value()), Some(964));

    let dir = Scratch::new("three");
    let (mut coordinator, url) = start_coordinator(
        &dir,
        "coordinator",
        &dir.join("db"),
        &["--game", game, "--lease-secs", "20"],
    );
    let mut workers: Vec<Proc> = (0..3)
        .map(|i| start_worker(&dir, &format!("worker{i}"), &url, &[]))
        .collect();
    let status = coordinator.wait(LIMIT);
    assert!(
        status.success(),
        "coordinator failed:\n{}",
        coordinator.errors()
    );
    let cluster = essentials_of_output(&coordinator.output());
    assert_eq!(cluster, essentials(&reference), "cluster differs from core");
    for w in &mut workers {
        assert!(w.wait(Duration::from_secs(60)).success(), "{}", w.errors());
    }

    // The resumable run on one machine (`hakase solve --db`), on its real path.
    let loaded = load_preset(game).expect("preset");
    let table = hakase_core::FeedbackTable::build(&loaded);
    let options = hakase_engine::checkpoint::CheckpointOptions {
        db: dir.join("resumable-db"),
        threads: Some(2),
        memo_entries: 1 << 20,
        sync_every: Duration::from_millis(200),
    };
    let resumable = hakase_engine::checkpoint::run_checkpointed(
        &loaded,
        &table,
        SolverConfig::default(),
        &hakase_runs::RunScope::Best,
        &options,
        &std::sync::atomic::AtomicBool::new(false),
        &|_| {},
    )
    .expect("resumable run")
    .expect("not interrupted");
    assert_eq!(essentials(&resumable.solution), essentials(&reference));
}

#[test]
fn a_killed_workers_job_is_leased_again_and_the_result_is_unchanged() {
    let game = "pokemon-gen:1";
    let reference = core_solution(game, SolverConfig::default());
    let dir = Scratch::new("killworker");
    let (mut coordinator, url) = start_coordinator(
        &dir,
        "coordinator",
        &dir.join("db"),
        &["--game", game, "--lease-secs", "2"],
    );
    let log_a = dir.join("a.log");
    let mut a = start_worker(
        &dir,
        "a",
        &url,
        &[
            "--job-delay-ms",
            "60000",
            "--job-log",
            log_a.to_str().expect("utf-8"),
        ],
    );
    // A holds its first job for a minute: kill it in the middle of that job.
    let held = wait_for(Duration::from_secs(60), "worker A to start a job", || {
        job_log(&log_a).into_iter().find(|e| e.event == "started")
    });
    a.kill9();
    let log_b = dir.join("b.log");
    let mut b = start_worker(
        &dir,
        "b",
        &url,
        &[
            "--job-delay-ms",
            "20",
            "--job-log",
            log_b.to_str().expect("utf-8"),
        ],
    );
    assert!(
        coordinator.wait(LIMIT).success(),
        "{}",
        coordinator.errors()
    );
    assert_eq!(
        essentials_of_output(&coordinator.output()),
        essentials(&reference)
    );
    let status = final_status(&coordinator.output());
    assert!(
        status["counters"]["lease_expiries"].as_u64() >= Some(1),
        "no lease expired: {status}"
    );
    let events_b = job_log(&log_b);
    assert!(
        events_b
            .iter()
            .any(|e| e.event == "acked" && e.id == held.id),
        "the killed worker's job {} was not solved by the other worker",
        held.id
    );
    assert!(b.wait(Duration::from_secs(60)).success());
}

#[test]
fn a_killed_coordinator_resumes_without_recomputing_finished_jobs() {
    let game = "pokemon-gen:1";
    let reference = core_solution(game, SolverConfig::default());
    let dir = Scratch::new("killcoord");
    let db = dir.join("db");
    // Only the runner-up's claim is re-run (on purpose) before the result is declared.
    let args = ["--game", game, "--lease-secs", "2", "--audit-fraction", "0"];
    let (mut first, url) = start_coordinator(&dir, "coordinator1", &db, &args);
    let (mut workers, logs) = start_slow_workers(&dir, &url, 2);
    wait_for(Duration::from_secs(120), "some finished jobs", || {
        (distinct_acked(&logs) >= 8).then_some(())
    });
    first.kill9();
    let acked_before = distinct_acked(&logs);
    let listen = url.trim_start_matches("http://").to_string();
    let mut restart_args = vec!["--listen", listen.as_str()];
    restart_args.extend_from_slice(&args);
    // Same address: the workers keep retrying it and carry on.
    let (mut second, _) = start_coordinator(&dir, "coordinator2", &db, &restart_args);
    assert!(second.wait(LIMIT).success(), "{}", second.errors());
    assert_eq!(
        essentials_of_output(&second.output()),
        essentials(&reference)
    );
    let status = final_status(&second.output());
    assert!(
        status["counters"]["results_loaded"].as_u64() >= Some(acked_before as u64),
        "the restarted coordinator did not find the finished jobs: {status}"
    );
    let events: Vec<JobEvent> = logs.iter().flat_map(|l| job_log(l)).collect();
    let again = recomputed(&events);
    // Nothing is sampled at fraction 0. The decisive re-runs are the runner-up's claim, the
    // best first guess's lower side (its tree proves only that its total is reached), and
    // the claims that state more than their cutoff (leased before the incumbent fell), re-run
    // at the cutoff.
    assert_eq!(
        status["audit"]["rerun_policy"].as_u64(),
        Some(0),
        "{status}"
    );
    let decisive = status["audit"]["rerun_decisive"].as_u64().unwrap_or(0);
    assert!(decisive >= 2, "{status}");
    // Outside the sample (fraction 0) every other needed claim is accepted unchecked, and
    // the result names each first guess resting on one (one whole job each here: no split).
    let doc: serde_json::Value = serde_json::from_str(&second.output()).expect("JSON output");
    let named = doc["unchecked_claims"]
        .as_array()
        .expect("unchecked_claims");
    assert_eq!(
        Some(named.len() as u64),
        status["audit"]["unchecked"].as_u64(),
        "{doc}"
    );
    assert!(
        !named.contains(&doc["first_guess"]),
        "the best is always re-run"
    );
    // `hakase ranking` marks the same rows, read from the stored audit. Exact rows too: a
    // tree proves that its total is reached, not that no strategy does better.
    let ranking = std::process::Command::new(hakase_bin())
        .args(["ranking", "--json", "--run"])
        .arg(&db)
        .output()
        .expect("hakase ranking");
    assert!(ranking.status.success(), "{ranking:?}");
    let ranking: serde_json::Value = serde_json::from_slice(&ranking.stdout).expect("JSON");
    let rows = ranking["rows"].as_array().expect("rows");
    let marked: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| r["unchecked"] == true)
        .map(|r| &r["guess"])
        .collect();
    let mut named_sorted: Vec<&serde_json::Value> = named.iter().collect();
    let key = |v: &&serde_json::Value| v.as_str().unwrap_or_default().to_string();
    named_sorted.sort_by_key(key);
    let mut marked_sorted = marked.clone();
    marked_sorted.sort_by_key(key);
    assert_eq!(marked_sorted, named_sorted, "{ranking}");
    if !named.is_empty() {
        assert!(
            ranking["claim"]
                .as_str()
                .is_some_and(|c| c.contains(" unchecked worker claim")
                    && c.ends_with(", marked *")),
            "{ranking}"
        );
    }
    assert!(
        events.iter().any(|e| e.recheck),
        "the runner-up's re-run is marked in the job logs"
    );
    // The audit's re-runs, marked, are the only work done twice.
    assert!(again.is_empty(), "finished jobs computed again: {again:?}");
    for w in &mut workers {
        assert!(w.wait(Duration::from_secs(60)).success(), "{}", w.errors());
    }
}

/// Waits for the coordinator to finish, and reads its JSON output and the solution in it.
fn finished_solution(coordinator: &mut Proc) -> (serde_json::Value, hakase_core::solver::Solution) {
    assert!(
        coordinator.wait(LIMIT).success(),
        "coordinator failed:\n{}",
        coordinator.errors()
    );
    let doc: serde_json::Value = serde_json::from_str(&coordinator.output()).expect("JSON output");
    let solution =
        serde_json::from_value(doc["solution"].clone()).expect("a solution in the output");
    (doc, solution)
}

/// Every claim of `--rank-all` is exact and solved without a cutoff; the audit re-runs some
/// of them. An honest re-run finds the same value, which once counted as a refutation: both
/// workers were quarantined and the run never finished.
#[test]
fn rank_all_through_two_workers_gives_every_exact_value_of_the_core_solver() {
    let game = "pokemon-gen:1";
    let shared = core_solver(game, SolverConfig::default());
    let solver = shared.solver();
    let reference = solver.solve_game(hakase_core::solver::FirstGuesses::RankAll, &|_| {});
    assert!(reference.ranking.iter().all(|v| v.outcome.is_exact()));

    let dir = Scratch::new("rank-all");
    let (mut coordinator, url) = start_coordinator(
        &dir,
        "coordinator",
        &dir.join("db"),
        &["--game", game, "--rank-all", "--audit-fraction", "0.2"],
    );
    let mut workers: Vec<Proc> = (0..2)
        .map(|i| start_worker(&dir, &format!("worker{i}"), &url, &[]))
        .collect();
    let (_, solution) = finished_solution(&mut coordinator);
    assert_eq!(solution.ranking, reference.ranking);
    for w in &mut workers {
        assert!(w.wait(Duration::from_secs(60)).success(), "{}", w.errors());
    }
}

/// A listed ranking (`--firsts FILE` and a repeated `--first`) through the coordinator
/// settles exactly those first guesses, each to the value the in-memory solver gives, in the
/// same order; the headline says the best is optimal only given that first guess; and the
/// run is the directory `solve --firsts` names, which `hakase ranking` reads.
#[test]
fn a_listed_ranking_through_a_worker_gives_the_in_memory_values_of_those_guesses() {
    let game = "pokemon-qiita2023";
    let shared = core_solver(game, SolverConfig::default());
    let solver = shared.solver();
    let words = ["ミュウ", "レントラー", "ピカチュウ"];
    let mut ids: Vec<u32> = words
        .iter()
        .map(|w| solver.game().find_guess(w).expect("a guess"))
        .collect();
    ids.sort_unstable();
    let reference = solver.solve_game(hakase_core::solver::FirstGuesses::Listed(&ids), &|_| {});

    let dir = Scratch::new("listed");
    let list = dir.join("firsts.txt");
    std::fs::write(&list, "ミュウ\nレントラー\n").expect("list");
    let list_arg = list.to_string_lossy().into_owned();
    let (mut coordinator, url) = start_coordinator(
        &dir,
        "coordinator",
        &dir.join("db"),
        &[
            "--game",
            game,
            "--firsts",
            &list_arg,
            "--first",
            "ピカチュウ",
        ],
    );
    let mut worker = start_worker(&dir, "worker", &url, &[]);
    assert!(
        coordinator.wait(LIMIT).success(),
        "coordinator failed:\n{}",
        coordinator.errors()
    );
    let doc: serde_json::Value = serde_json::from_str(&coordinator.output()).expect("JSON output");
    assert_eq!(doc["first_guesses_listed"], 3);
    let solution: hakase_core::solver::Solution =
        serde_json::from_value(doc["solution"].clone()).expect("a solution in the output");
    assert_eq!(solution.ranking, reference.ranking);
    let values: Vec<(String, u32)> = solution
        .ranking
        .iter()
        .map(|v| {
            (
                solver.game().guess_text(v.guess).to_string(),
                v.outcome.value(),
            )
        })
        .collect();
    assert_eq!(
        values,
        [("レントラー", 966), ("ピカチュウ", 1113), ("ミュウ", 1161)]
            .map(|(w, v)| (w.to_string(), v))
    );
    assert!(
        worker.wait(Duration::from_secs(60)).success(),
        "{}",
        worker.errors()
    );
    let ranking = std::process::Command::new(hakase_bin())
        .args(["ranking", "--run"])
        .arg(dir.join("db"))
        .args(["--format", "tsv"])
        .output()
        .expect("hakase ranking");
    let text = String::from_utf8_lossy(&ranking.stdout);
    assert!(
        ranking.status.success(),
        "{}",
        String::from_utf8_lossy(&ranking.stderr)
    );
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert!(rows[0].starts_with("1\tレントラー\t966\t"), "{text}");
}

/// A worker's stop report counts the solver's work. With one worker of one thread, its
/// nodes are exactly those of the jobs the coordinator logged as its own, and its search is
/// the one-thread in-memory solver's less the root scan: the cluster adds no search work
/// (the coordinator's re-run of the decisive claim is its own, logged as worker 0).
#[test]
fn a_lone_workers_report_counts_the_same_search_as_the_one_thread_solver() {
    let game = "pokemon-qiita2023";
    let shared = core_solver(game, SolverConfig::default());
    let solver = shared.solver();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    pool.install(|| solver.solve_game(hakase_core::solver::FirstGuesses::Best, &|_| {}));
    let [nodes, scans, pairs, _] = solver.stats.snapshot();
    assert!(nodes > 0);
    // The one scan the worker does not make: the root's, which orders the first guesses
    // (the coordinator's work).
    let root_pairs = (solver.game().answers().len() * solver.game().guesses().len()) as u64;

    let dir = Scratch::new("counted");
    let log = dir.join("jobs.jsonl");
    let (mut coordinator, url) = start_coordinator(
        &dir,
        "coordinator",
        &dir.join("db"),
        &[
            "--game",
            game,
            "--audit-fraction",
            "0",
            "--job-log",
            log.to_str().expect("utf-8"),
        ],
    );
    let mut worker = start_worker(&dir, "worker", &url, &["--json"]);
    assert!(
        coordinator.wait(LIMIT).success(),
        "coordinator failed:\n{}",
        coordinator.errors()
    );
    assert!(
        worker.wait(Duration::from_secs(60)).success(),
        "{}",
        worker.errors()
    );
    let report: serde_json::Value =
        serde_json::from_str(&worker.output()).expect("the worker's JSON report");
    let own: Vec<serde_json::Value> = read(&log)
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).expect("a job line"))
        .filter(|job| job["worker"].as_u64() != Some(0))
        .collect();
    let logged: u64 = own.iter().filter_map(|job| job["nodes"].as_u64()).sum();
    assert_eq!(report["jobs_done"].as_u64(), Some(own.len() as u64));
    assert_eq!(report["nodes"].as_u64(), Some(logged));
    assert_eq!(report["nodes"].as_u64(), Some(nodes));
    assert_eq!(report["scans"].as_u64(), Some(scans - 1));
    assert_eq!(report["scanned_pairs"].as_u64(), Some(pairs - root_pairs));
    // Reports refill the slots they free: jobs come back with acknowledgements.
    assert!(report["report_leases"].as_u64() > Some(0), "{report}");
}

/// A worker with more threads than one lease may ask for (1,024 jobs) holds more jobs than
/// that: it leases and reports in pieces of that size instead of being refused (it was:
/// "max_jobs must be between 1 and 1024").
#[test]
fn a_worker_holding_more_jobs_than_one_lease_carries_is_served() {
    let game = "pokemon-today";
    let reference = core_solution(game, SolverConfig::default());
    let dir = Scratch::new("wide");
    let (mut coordinator, url) =
        start_coordinator(&dir, "coordinator", &dir.join("db"), &["--game", game]);
    let cache = dir.join("wide-cache").to_string_lossy().to_string();
    let mut worker = Proc::start(
        &dir,
        "worker",
        &[
            "worker",
            "--connect",
            &url,
            "--threads",
            "40",
            "--cache",
            &cache,
            "--json",
        ],
    );
    finished_like(&mut coordinator, &reference);
    assert!(
        worker.wait(Duration::from_secs(60)).success(),
        "{}",
        worker.errors()
    );
    let report: serde_json::Value =
        serde_json::from_str(&worker.output()).expect("the worker's JSON report");
    assert_eq!(report["run_finished"], serde_json::Value::Bool(true));
    assert!(report["jobs_done"].as_u64() > Some(0), "{report}");
}

#[test]
fn a_worker_started_before_the_coordinator_reads_its_address_from_standard_input() {
    let game = "pokemon-qiita2023";
    let dir = Scratch::new("stdin-address");
    let cache = dir.join("early-cache").to_string_lossy().to_string();
    let args = [
        "worker",
        "--connect",
        "-",
        "--threads",
        "1",
        "--cache",
        &cache,
    ];
    // Started first, as `scripts/cluster-once` starts its workers: it waits for a URL.
    let (mut early, mut input) = Proc::start_piped(&dir, "early", &args);
    let (mut coordinator, url) =
        start_coordinator(&dir, "coordinator", &dir.join("db"), &["--game", game]);
    assert!(early.exited().is_none(), "{}", early.errors());
    use std::io::Write;
    writeln!(input, "{url}").expect("writing the URL");
    finished_like(
        &mut coordinator,
        &core_solution(game, SolverConfig::default()),
    );
    assert!(
        early.wait(Duration::from_secs(60)).success(),
        "{}",
        early.errors()
    );
    assert!(
        early.output().contains("run finished"),
        "{}",
        early.output()
    );

    // Standard input that ends before a URL is a clear error, not a wait or a panic.
    let (mut late, input) = Proc::start_piped(&dir, "late", &args);
    drop(input);
    let status = late.wait(Duration::from_secs(60));
    assert_eq!(status.code(), Some(1), "{}", late.errors());
    assert!(
        late.errors().contains("standard input ended before a URL"),
        "{}",
        late.errors()
    );
}

/// One first guess through the coordinator (`--first W`) is cut into part and slice jobs;
/// a kill -9 of the coordinator half-way loses none of them, and the resumed run gives the
/// in-memory value, with the slices' claims checked by the audit.
#[test]
fn a_one_guess_run_cut_into_slices_survives_a_killed_coordinator() {
    let game = "pokemon-verbum";
    // At least 64 answers in its largest part, so that it is sliced.
    let (word, truth, largest) = guess_with_the_largest_part(game);
    assert!(largest >= 64, "no part to slice");

    let dir = Scratch::new("oneguess");
    let db = dir.join("db");
    let coordinator_log = dir.join("jobs.jsonl");
    let coordinator_log_arg = coordinator_log.to_string_lossy().into_owned();
    let args = [
        "--game",
        game,
        "--first",
        word.as_str(),
        "--lease-secs",
        "2",
        "--job-log",
        coordinator_log_arg.as_str(),
    ];
    let (mut first, url) = start_coordinator(&dir, "coordinator1", &db, &args);
    let (mut workers, logs) = start_slow_workers(&dir, &url, 2);
    wait_for(Duration::from_secs(120), "some finished jobs", || {
        (distinct_acked(&logs) >= 8).then_some(())
    });
    first.kill9();
    assert!(
        first.output().trim().is_empty(),
        "the run was over before the kill: {}",
        first.output()
    );
    let acked_before = distinct_acked(&logs);
    let listen = url.trim_start_matches("http://").to_string();
    let mut restart_args = vec!["--listen", listen.as_str()];
    restart_args.extend_from_slice(&args);
    let (mut second, _) = start_coordinator(&dir, "coordinator2", &db, &restart_args);
    assert!(second.wait(LIMIT).success(), "{}", second.errors());
    let doc: serde_json::Value = serde_json::from_str(&second.output()).expect("JSON output");
    assert_eq!(doc["first_guess"], word.as_str(), "{doc}");
    assert_eq!(doc["total"].as_u64(), Some(u64::from(truth)), "{doc}");
    let status = &doc["status"];
    assert!(
        status["counters"]["results_loaded"].as_u64() >= Some(acked_before as u64),
        "the restarted coordinator did not find the finished jobs: {status}"
    );
    let kinds: Vec<String> = read(&coordinator_log)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["kind"].as_str().map(str::to_string))
        .collect();
    assert!(
        kinds.iter().any(|k| k == "slice"),
        "no slice job: {kinds:?}"
    );
    assert!(!kinds.iter().any(|k| k == "first"), "the guess was one job");
    // Every claim of a one-guess run decides its value: each bound is re-run.
    assert!(
        status["audit"]["rerun_decisive"].as_u64() > Some(0),
        "{status}"
    );
    let events: Vec<JobEvent> = logs.iter().flat_map(|l| job_log(l)).collect();
    let again = recomputed(&events);
    assert!(again.is_empty(), "finished jobs computed again: {again:?}");
    for w in &mut workers {
        assert!(w.wait(Duration::from_secs(60)).success(), "{}", w.errors());
    }
}

/// `--trust-workers` on a one-guess run: the same value as the core solver, no claim re-run
/// (the sample is 0 %), and the result says what it rests on: the first guess is named as
/// resting on unchecked claims and the audit account says the workers were trusted.
#[test]
fn a_one_guess_run_with_trusted_workers_re_runs_nothing_and_says_so() {
    let game = "pokemon-gen:1";
    // Sliced, with claims above their floors.
    let (word, truth, _) = guess_with_the_largest_part(game);

    let dir = Scratch::new("trusted");
    let jobs = dir.join("jobs.jsonl");
    let jobs_arg = jobs.to_string_lossy().into_owned();
    let args = [
        "--game",
        game,
        "--first",
        word.as_str(),
        "--trust-workers",
        "--audit-fraction",
        "0",
        "--job-log",
        jobs_arg.as_str(),
    ];
    let (mut coordinator, url) = start_coordinator(&dir, "coordinator", &dir.join("db"), &args);
    let mut workers: Vec<Proc> = (0..2)
        .map(|i| start_worker(&dir, &format!("worker{i}"), &url, &[]))
        .collect();
    assert!(
        coordinator.wait(LIMIT).success(),
        "{}",
        coordinator.errors()
    );
    let doc: serde_json::Value = serde_json::from_str(&coordinator.output()).expect("JSON output");
    assert_eq!(doc["total"].as_u64(), Some(u64::from(truth)), "{doc}");
    let audit = &doc["status"]["audit"];
    assert_eq!(audit["trusted"], true, "{audit}");
    assert_eq!(audit["rerun_decisive"].as_u64(), Some(0), "{audit}");
    assert_eq!(audit["rerun_policy"].as_u64(), Some(0), "{audit}");
    assert_eq!(
        doc["unchecked_claims"],
        serde_json::json!([word.as_str()]),
        "{doc}"
    );
    let rechecks = read(&jobs)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["recheck"] == true)
        .count();
    assert_eq!(rechecks, 0, "trusted claims were re-run");
    for w in &mut workers {
        assert!(w.wait(Duration::from_secs(60)).success(), "{}", w.errors());
    }
}

/// The first guess of `game` leaving the largest part (the one a one-guess run slices), its
/// value from the core solver, and that part's size.
fn guess_with_the_largest_part(game: &str) -> (String, u32, usize) {
    let shared = core_solver(game, SolverConfig::default());
    let solver = shared.solver();
    let root = solver.root(solver.game().tries());
    let largest = |g: u32| {
        hakase_core::rules::history::partition(solver.table(), g, &root.candidates)
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
    let truth = solver
        .evaluate_guess(&root, guess, hakase_core::solver::INFEASIBLE)
        .value();
    let word = solver.game().guess_text(guess).to_string();
    (word, truth, largest(guess))
}

/// Jobs a best search with part jobs stops needing (a sibling part refuted their first
/// guess) are withdrawn: a slow worker holding some drops them unstarted at its next
/// heartbeat or stops them midway, and once told the run is over it stops at once, though it is still solving a
/// job (it used to wait on that job and then retry its result against the coordinator,
/// which had already stopped, for ever).
#[test]
fn a_slow_worker_drops_jobs_no_longer_needed_and_stops_with_the_run() {
    let game = "pokemon-gen:1";
    let reference = core_solution(game, SolverConfig::default());
    let dir = Scratch::new("withdrawn");
    let (mut coordinator, url) = start_coordinator(
        &dir,
        "coordinator",
        &dir.join("db"),
        &[
            "--game",
            game,
            "--split-first",
            "--lease-secs",
            "2",
            "--audit-fraction",
            "0",
            "--trust-workers",
        ],
    );
    let mut slow = start_worker(&dir, "slow", &url, &["--job-delay-ms", "1000", "--json"]);
    let mut fast = start_worker(&dir, "fast", &url, &["--job-delay-ms", "5", "--json"]);
    let output = finished_like(&mut coordinator, &reference);
    let doc: serde_json::Value = serde_json::from_str(&output).expect("JSON output");
    let withdrawn = doc["status"]["counters"]["withdrawn"].as_u64();
    assert!(withdrawn > Some(0), "no job withdrawn: {}", doc["status"]);
    for worker in [&mut slow, &mut fast] {
        // The slow worker is told the run is over while it solves a job of a second.
        assert!(
            worker.wait(Duration::from_secs(30)).success(),
            "{}",
            worker.errors()
        );
    }
    let report: serde_json::Value =
        serde_json::from_str(&slow.output()).expect("the slow worker's JSON report");
    assert_eq!(report["run_finished"], true, "{report}");
    assert!(report["jobs_cancelled"].as_u64() > Some(0), "{report}");
    // Its jobs take a second, so some are withdrawn while they run: those stop midway.
    assert!(report["jobs_stopped"].as_u64() > Some(0), "{report}");
}

/// A job that runs long while another worker has nothing to do is cut finer (here a whole
/// first guess of a ranking, into its parts): the waiting worker takes the pieces, the slow
/// worker drops or stops the job (when told it is withdrawn, or when the pieces end the run first)
/// and never reports it, and every value is still the core's.
#[test]
fn a_long_job_is_cut_finer_for_a_waiting_worker_and_the_values_stand() {
    let game = "pokemon-gen:1";
    let expected = core_solver(game, SolverConfig::default())
        .solver()
        .solve_game(hakase_core::solver::FirstGuesses::RankAll, &|_| {});
    let dir = Scratch::new("recut");
    let (mut coordinator, url) = start_coordinator(
        &dir,
        "coordinator",
        &dir.join("db"),
        &[
            "--game",
            game,
            "--rank-all",
            "--trust-workers",
            "--audit-fraction",
            "0",
            "--lease-secs",
            "2",
            "--recut-secs",
            "0.3",
        ],
    );
    let slow_log = dir.join("slow-jobs.log").to_string_lossy().to_string();
    let mut slow = start_worker(
        &dir,
        "slow",
        &url,
        &["--job-delay-ms", "4000", "--json", "--job-log", &slow_log],
    );
    let mut fast = start_worker(&dir, "fast", &url, &["--job-delay-ms", "5", "--json"]);
    let (doc, solution) = finished_solution(&mut coordinator);
    assert_eq!(solution.ranking, expected.ranking);
    let recut = doc["status"]["counters"]["recut"].as_u64();
    assert!(
        recut > Some(0),
        "no job cut finer: {}",
        doc["status"]["counters"]
    );
    for worker in [&mut slow, &mut fast] {
        assert!(
            worker.wait(Duration::from_secs(30)).success(),
            "{}",
            worker.errors()
        );
    }
    let report: serde_json::Value =
        serde_json::from_str(&slow.output()).expect("the slow worker's JSON report");
    // A job cut finer is withdrawn from the slow worker: dropped unstarted if it was still
    // queued behind a 4-s job (which of the two depends on the machine's load), stopped
    // midway if it was running.
    let withdrawn = report["jobs_stopped"].as_u64().unwrap_or(0)
        + report["jobs_cancelled"].as_u64().unwrap_or(0);
    assert!(withdrawn > 0, "{report}");
    // The jobs cut finer were answered by their pieces, never by the slow worker holding them.
    let cut: Vec<String> = coordinator
        .errors()
        .lines()
        .filter(|line| line.contains("a long job is cut finer"))
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|line| line["fields"]["job"].as_str().map(str::to_string))
        .collect();
    assert_eq!(
        cut.len() as u64,
        recut.unwrap_or(0),
        "{}",
        coordinator.errors()
    );
    let slow_jobs = std::fs::read_to_string(&slow_log).expect("the slow worker's job log");
    for job in &cut {
        assert!(
            !slow_jobs.contains(&format!("acked {job}")),
            "the cut job {job} was still reported:\n{slow_jobs}"
        );
    }
}
