//! Damaged run databases (issue 36, case 9): stored values with flipped bytes, and flipped
//! bytes anywhere in sled's log file, must be reported with the exact count of what is
//! recomputed, never recomputed silently; the result stays the undamaged one, and a file sled
//! cannot open is a clear error with a nonzero exit, not a panic.

use std::path::Path;
use std::process::{Command, ExitStatus};
use std::time::Duration;

use hakase_core::solver::SolverConfig;
use hakase_tests::*;

/// 515 first guesses, solved in about two seconds on one thread: long enough to interrupt.
const GAME: &str = "pokemon-verbum";
const FIRST_GUESSES: u64 = 515;
const LIMIT: Duration = Duration::from_secs(300);

/// The optimal tree of the undamaged solve, one line per answer (in memory, no database).
fn reference_tree(dir: &Scratch) -> String {
    let out = dir.join("reference.txt");
    let out_arg = out.to_str().expect("utf-8");
    let mut proc = Proc::start(
        dir,
        "reference",
        &[
            "solve",
            "--game",
            GAME,
            "--in-memory",
            "--tree-out",
            out_arg,
            "--format",
            "text",
        ],
    );
    assert!(proc.wait(LIMIT).success(), "{}", proc.errors());
    read(&out)
}

/// `hakase solve` on the run `db`, writing its tree; returns the process (exited), its exit
/// status and the tree.
fn solve(dir: &Scratch, name: &str, db: &Path, extra: &[&str]) -> (Proc, ExitStatus, String) {
    let tree = dir.join(&format!("{name}.txt"));
    let mut args = vec![
        "solve",
        "--game",
        GAME,
        "--threads",
        "1",
        "--db",
        db.to_str().expect("utf-8"),
        "--tree-out",
        tree.to_str().expect("utf-8"),
        "--format",
        "text",
    ];
    args.extend_from_slice(extra);
    let mut proc = Proc::start(dir, name, &args);
    let status = proc.wait(LIMIT);
    let tree = read(&tree);
    (proc, status, tree)
}

/// The keys of one tree of the run database, in order (read with sled directly, the run
/// closed).
fn keys(db: &Path, tree: &str) -> Vec<Vec<u8>> {
    let db = hakase_runs::sled_guard::open(db).expect("the run opens with sled");
    let tree = db.open_tree(tree).expect("tree");
    tree.iter()
        .keys()
        .map(|k| k.expect("a key").to_vec())
        .collect()
}

/// Flips one bit in the last byte of the stored value under each of `keys` (inside the
/// value, past its checksum), through sled, as damage sled itself did not catch.
fn flip_values(db: &Path, tree: &str, keys: &[Vec<u8>]) {
    let db = hakase_runs::sled_guard::open(db).expect("the run opens with sled");
    let tree = db.open_tree(tree).expect("tree");
    for key in keys {
        let mut value = tree.get(key).expect("read").expect("a value").to_vec();
        let last = value.len() - 1;
        value[last] ^= 0x01;
        tree.insert(key.as_slice(), value).expect("write");
    }
    db.flush().expect("flush");
}

/// Sends SIGINT to `proc`.
fn interrupt(proc: &Proc) {
    let status = Command::new("kill")
        .args(["-INT", &proc.id().to_string()])
        .status()
        .expect("kill -INT");
    assert!(status.success());
}

/// A run of [`GAME`] in `db` interrupted with SIGINT part-way; returns how many settled first
/// guesses it stored. The moment is adapted until the run stops with some settled and some
/// not (the machine's speed decides how far it gets).
fn interrupted_run(dir: &Scratch, db: &Path) -> usize {
    let mut delay = Duration::from_millis(700);
    for attempt in 0..8 {
        let _ = std::fs::remove_dir_all(db);
        let name = format!("interrupted-{attempt}");
        let db_arg = db.to_str().expect("utf-8");
        let mut proc = Proc::start(
            dir,
            &name,
            &["solve", "--game", GAME, "--threads", "1", "--db", db_arg],
        );
        std::thread::sleep(delay);
        interrupt(&proc);
        let status = proc.wait(LIMIT);
        if status.success() {
            // Finished before the signal.
            delay /= 2;
            continue;
        }
        let settled = if db.join("db").exists() {
            keys(db, "settled").len()
        } else {
            0
        };
        if status.code() == Some(130) && settled >= 10 {
            return settled;
        }
        // Stopped before its handler was set, or before much was settled.
        delay = delay * 3 / 2;
    }
    panic!("no SIGINT left a run part-way");
}

#[test]
fn damaged_settled_first_guesses_are_counted_and_recomputed() {
    let dir = Scratch::new("damaged-settled");
    let reference = reference_tree(&dir);
    let db = dir.join("run");
    let stored = interrupted_run(&dir, &db);
    // The first three settled first guesses, in key order, get one flipped bit each.
    let damaged: Vec<Vec<u8>> = keys(&db, "settled").into_iter().take(3).collect();
    flip_values(&db, "settled", &damaged);

    let (proc, status, tree) = solve(&dir, "resumed", &db, &["--json"]);
    let errors = proc.errors();
    assert!(status.success(), "{errors}");
    let doc: serde_json::Value = serde_json::from_str(&proc.output()).expect("JSON output");
    assert_eq!(doc["damage"]["settled_unreadable"], 3, "{doc}");
    assert_eq!(doc["damage"]["results_lost"], 0, "{doc}");
    let expected = format!(
        "resumed {} settled first guesses from {}, 3 damaged (recomputed)",
        stored - 3,
        db.display()
    );
    assert!(
        errors.lines().any(|l| l == expected),
        "expected the line {expected:?}; stderr:\n{errors}"
    );
    assert_eq!(tree, reference, "the resumed run's tree differs");
    println!("{stored} settled first guesses stored, 3 damaged: {expected}");

    // Reported once: the damaged values were dropped and recomputed, and the run is finished.
    let (proc, _, tree) = solve(&dir, "again", &db, &["--json"]);
    assert!(
        !proc.errors().contains("damaged"),
        "damage reported twice:\n{}",
        proc.errors()
    );
    assert_eq!(tree, reference);
    let doc: serde_json::Value = serde_json::from_str(&proc.output()).expect("JSON output");
    assert!(doc["damage"].is_null(), "{doc}");

    // The run keeps its account: `hakase runs` shows it long after the resume said it.
    let data = db.to_str().expect("utf-8");
    let mut runs = Proc::start(&dir, "runs-json", &["runs", "--data", data, "--json"]);
    assert!(runs.wait(LIMIT).success(), "{}", runs.errors());
    let doc: serde_json::Value = serde_json::from_str(&runs.output()).expect("JSON output");
    assert_eq!(doc["runs"][0]["damage"]["settled_unreadable"], 3, "{doc}");
    let mut runs = Proc::start(&dir, "runs-text", &["runs", "--data", data]);
    assert!(runs.wait(LIMIT).success(), "{}", runs.errors());
    let line = "run: found damaged and recomputed: 3 settled first guesses";
    assert!(
        runs.output().lines().any(|l| l == line),
        "expected {line:?} in:\n{}",
        runs.output()
    );
}

#[test]
fn flipped_bytes_in_the_database_file_are_reported_not_recomputed_silently() {
    let dir = Scratch::new("damaged-file");
    let reference = reference_tree(&dir);
    let good = dir.join("good");
    let (proc, status, tree) = solve(&dir, "good", &good, &[]);
    assert!(status.success(), "{}", proc.errors());
    assert_eq!(tree, reference);
    let log = std::fs::read(good.join("db")).expect("sled's log");
    let mut rng = 0x5eed_0036_u64;
    let mut next = |n: u64| {
        rng = rng
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (rng >> 33) % n
    };
    let (mut lossy, mut refused) = (0, 0);
    let trials = 12;
    for trial in 0..trials {
        let copy = dir.join(&format!("trial-{trial}"));
        copy_dir(&good, &copy);
        let flips = 1 + next(64);
        let mut bytes = log.clone();
        for _ in 0..flips {
            let at = next(bytes.len() as u64) as usize;
            bytes[at] ^= 1 << next(8);
        }
        std::fs::write(copy.join("db"), bytes).expect("write the damaged log");
        let name = format!("trial-{trial}");
        let (proc, status, tree) = solve(&dir, &name, &copy, &["--json"]);
        let (out, errors) = (proc.output(), proc.errors());
        assert!(!errors.contains("panicked"), "{errors}");
        if !status.success() {
            // sled refused the file: said so, by name.
            assert!(errors.contains("is damaged"), "trial {trial}: {errors}");
            refused += 1;
            continue;
        }
        assert_eq!(tree, reference, "trial {trial}: the result changed");
        let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON output");
        let searched = doc["nodes"].as_u64().expect("nodes") > 0;
        let line = errors
            .lines()
            .find(|l| l.starts_with("resumed ") && l.ends_with(" damaged (recomputed)"));
        match line {
            // A search ran on a finished run: everything it did not read is counted.
            Some(line) => {
                let words: Vec<&str> = line.split_whitespace().collect();
                let read: u64 = words[1].parse().expect("a count read");
                let damaged: u64 = words[words.len() - 3].parse().expect("a count damaged");
                assert_eq!(read + damaged, FIRST_GUESSES, "trial {trial}: {line}");
                assert!(
                    errors.contains("the finished run's stored solution was lost"),
                    "trial {trial}: {errors}"
                );
                println!("trial {trial}: {flips} flipped bytes: {line}");
                lossy += 1;
            }
            None => assert!(
                !searched,
                "trial {trial}: {flips} flipped bytes, recomputed with no word:\n{errors}"
            ),
        }
    }
    println!("{trials} trials: {lossy} reported losses, {refused} refused by sled");
    assert!(lossy > 0, "no trial damaged what the run had stored");

    // A file sled cannot open at all is an error that names the run, exit 1, no panic.
    let broken = dir.join("broken");
    copy_dir(&good, &broken);
    let mut conf = std::fs::read(broken.join("conf")).expect("conf");
    for b in conf.iter_mut().take(16) {
        *b ^= 0x5a;
    }
    std::fs::write(broken.join("conf"), conf).expect("write");
    let (proc, status, _) = solve(&dir, "broken", &broken, &[]);
    let errors = proc.errors();
    assert_eq!(status.code(), Some(1), "{errors}");
    assert!(errors.contains("is damaged"), "{errors}");
    assert!(!errors.contains("panicked"), "{errors}");
}

#[test]
fn damaged_results_of_a_coordinator_run_are_counted_and_recomputed() {
    let game = "pokemon-gen:1";
    let reference = core_solution(game, SolverConfig::default());
    let dir = Scratch::new("damaged-results");
    let db = dir.join("db");
    let args = ["--game", game, "--lease-secs", "2"];
    let (mut first, url) = start_coordinator(&dir, "coordinator1", &db, &args);
    let log = dir.join("w0.log");
    let log_arg = log.to_str().expect("utf-8").to_string();
    let mut worker = start_worker(
        &dir,
        "w0",
        &url,
        &["--job-delay-ms", "30", "--job-log", &log_arg],
    );
    wait_for(Duration::from_secs(120), "some finished jobs", || {
        let acked = job_log(&log).iter().filter(|e| e.event == "acked").count();
        (acked >= 8).then_some(())
    });
    first.kill9();
    worker.kill9();
    let stored = keys(&db, "results");
    assert!(stored.len() >= 3, "{} results stored", stored.len());
    flip_values(&db, "results", &stored[..2]);

    let (mut second, url) = start_coordinator(&dir, "coordinator2", &db, &args);
    // `hakase status` says it too, while the run goes on.
    let mut status = Proc::start(
        &dir,
        "status",
        &["status", "--connect", &url, "--token", TOKEN, "--json"],
    );
    assert!(status.wait(LIMIT).success(), "{}", status.errors());
    let doc: serde_json::Value = serde_json::from_str(&status.output()).expect("JSON output");
    assert_eq!(doc["damage"]["results_unreadable"], 2, "{doc}");
    let mut worker = start_worker(&dir, "w1", &url, &[]);
    let result = finished_as(&mut second, &reference);
    assert_eq!(
        result["status"]["damage"]["results_unreadable"], 2,
        "{result}"
    );
    let errors = second.errors();
    let expected = format!(
        "resumed {} results from {}, 2 damaged (recomputed)",
        stored.len() - 2,
        db.display()
    );
    assert!(
        errors.lines().any(|l| l == expected),
        "expected the line {expected:?}; stderr:\n{errors}"
    );
    println!("{}", expected);
    assert!(worker.wait(Duration::from_secs(60)).success());
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
