//! A puzzle batch made by workers (`hakase puzzle --count N --listen ADDR` and ordinary
//! `hakase worker`s) writes the same files, byte for byte, as the same batch made locally:
//! with two workers, after the coordinator is killed mid-batch and restarted, and next to a
//! worker that lies about a best-move problem (refused; its day made by the honest ones).

use std::path::Path;
use std::time::Duration;

use hakase_core::puzzle::{Generator, Slot};
use hakase_core::rules::presets::load_preset;
use hakase_core::FeedbackTable;
use hakase_proto::client::{channel, Auth};
use hakase_proto::v1::cluster_client::ClusterClient;
use hakase_proto::v1::puzzles_client::PuzzlesClient;
use hakase_proto::v1::{PuzzleCompleteRequest, PuzzleLeaseRequest, PuzzleResult, RegisterRequest};
use hakase_tests::*;
use tonic::Code;

const GAME: &str = "pokemon-today";
const FILES: [&str; 5] = [
    "batch.json",
    "puzzles.jsonl",
    "puzzles.json",
    "sheet.txt",
    "solutions.txt",
];

/// The batch options every run here shares (6 days, both kinds, every level).
fn batch(out: &Path) -> Vec<String> {
    [
        "puzzle",
        "-g",
        GAME,
        "--count",
        "6",
        "--levels",
        "easy:1,medium:1,hard:1",
        "--seed",
        "4",
        "--json",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([out.to_string_lossy().to_string()])
    .collect()
}

/// Makes the batch locally and returns its directory.
fn local(dir: &Scratch) -> std::path::PathBuf {
    let out = dir.join("local");
    let args = batch(&out);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut proc = Proc::start(dir, "local", &args);
    assert!(
        proc.wait(Duration::from_secs(120)).success(),
        "{}",
        proc.errors()
    );
    out
}

/// Starts the coordinator of the batch in `out` on `listen`; returns it and its URL.
fn coordinator(
    dir: &Scratch,
    name: &str,
    out: &Path,
    listen: &str,
    extra: &[&str],
) -> (Proc, String) {
    let mut args = batch(out);
    args.extend(["--listen", listen, "--linger-secs", "1"].map(String::from));
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut proc = Proc::start(dir, name, &args);
    let url = wait_for(Duration::from_secs(60), "the coordinator to listen", || {
        if let Some(status) = proc.exited() {
            panic!("the coordinator exited ({status}):\n{}", proc.errors());
        }
        proc.errors()
            .lines()
            .find_map(|l| l.strip_prefix("hakase coordinator listening on "))
            .map(|addr| format!("http://{}", addr.trim()))
    });
    (proc, url)
}

/// Waits for a successful exit and returns the JSON summary.
fn finished(proc: &mut Proc) -> serde_json::Value {
    let status = proc.wait(Duration::from_secs(120));
    assert!(status.success(), "exit {status}:\n{}", proc.errors());
    serde_json::from_str(&proc.output()).expect("JSON summary")
}

fn assert_same_files(local: &Path, cluster: &Path) {
    for name in FILES {
        let (a, b) = (read(&local.join(name)), read(&cluster.join(name)));
        assert!(!a.is_empty(), "{name} is empty");
        assert!(a == b, "{name} differs:\n--- local\n{a}\n--- cluster\n{b}");
    }
    assert!(!cluster.join("claims.jsonl").exists());
}

#[test]
fn two_workers_make_the_local_batch_byte_for_byte() {
    let dir = Scratch::new("puzzle-cluster");
    let local = local(&dir);
    let out = dir.join("cluster");
    let (mut coord, url) = coordinator(&dir, "coord", &out, "127.0.0.1:0", &[]);
    let mut workers = [
        start_worker(&dir, "w1", &url, &[]),
        start_worker(&dir, "w2", &url, &[]),
    ];
    let summary = finished(&mut coord);
    for w in &mut workers {
        assert!(w.wait(Duration::from_secs(30)).success(), "{}", w.errors());
    }
    assert_eq!(summary["made"], 6);
    assert_eq!(summary["missing"], serde_json::json!([]));
    let checked = summary["checked"].as_str().expect("checked line");
    assert!(checked.contains("; 0 workers refused"), "{checked}");
    assert_eq!(coord.errors().matches("worker registered").count(), 2);
    assert_same_files(&local, &out);
}

#[test]
fn a_killed_coordinator_resumes_without_losing_days() {
    let dir = Scratch::new("puzzle-cluster-kill");
    let local = local(&dir);
    let out = dir.join("cluster");
    let (mut first, url) = coordinator(&dir, "coord1", &out, "127.0.0.1:0", &["--lease-secs", "1"]);
    let port = url.rsplit(':').next().expect("port").to_string();
    // One slow worker, so the coordinator dies with days still to make.
    let mut worker = start_worker(&dir, "w", &url, &["--job-delay-ms", "400"]);
    wait_for(Duration::from_secs(60), "two claims", || {
        (read(&out.join("claims.jsonl")).lines().count() >= 2).then_some(())
    });
    first.kill9();
    let kept = read(&out.join("claims.jsonl")).lines().count();
    let listen = format!("127.0.0.1:{port}");
    let (mut second, _) = coordinator(&dir, "coord2", &out, &listen, &[]);
    let summary = finished(&mut second);
    assert!(
        worker.wait(Duration::from_secs(30)).success(),
        "{}",
        worker.errors()
    );
    assert_eq!(summary["made"], 6);
    assert!(kept >= 2);
    assert_same_files(&local, &out);
}

#[test]
fn a_worker_lying_about_a_best_move_is_refused() {
    let dir = Scratch::new("puzzle-cluster-liar");
    let local = local(&dir);
    let out = dir.join("cluster");
    let (mut coord, url) = coordinator(
        &dir,
        "coord",
        &out,
        "127.0.0.1:0",
        &["--audit-fraction", "1"],
    );
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let auth = || Auth::new(TOKEN).expect("auth");
        let mut cluster =
            ClusterClient::with_interceptor(channel(&url, None, None).unwrap(), auth());
        let mut puzzles =
            PuzzlesClient::with_interceptor(channel(&url, None, None).unwrap(), auth());
        // A name that would forge a line in the batch server's log is refused, as on
        // the search coordinator (the batch server took any name before).
        let forged = cluster
            .register(RegisterRequest {
                worker_name: "liar\n2026-01-01T00:00:00Z  INFO forged line".into(),
                fingerprint: String::new(),
                threads: 6,
            })
            .await
            .map(|_| ())
            .map_err(|status| status.code());
        assert_eq!(forged, Err(tonic::Code::InvalidArgument));
        let reply = cluster
            .register(RegisterRequest {
                worker_name: "liar".into(),
                fingerprint: String::new(),
                threads: 6,
            })
            .await
            .expect("register")
            .into_inner();
        assert!(reply.puzzle_batch);
        let jobs = puzzles
            .lease(PuzzleLeaseRequest {
                worker_id: reply.worker_id,
                fingerprint: reply.fingerprint.clone(),
                max_jobs: 6,
            })
            .await
            .expect("lease")
            .into_inner()
            .jobs;
        assert_eq!(jobs.len(), 6);
        let job = jobs
            .iter()
            .find(|j| j.kind == "best-move")
            .expect("a best-move day");
        // The honest puzzle with another guess as the solution: its rows still check.
        let game = load_preset(GAME).expect("preset");
        let table = FeedbackTable::build(&game);
        let slot = Slot {
            day: job.day as usize,
            level: job.level.parse().expect("level"),
            kind: job.kind.parse().expect("kind"),
        };
        let mut lie = Generator::new(&game, &table)
            .generate(&slot, job.seed, job.attempt)
            .expect("a puzzle");
        let other = (0..game.guesses().len() as u32)
            .map(|g| game.guess_text(g).to_string())
            .find(|g| *g != lie.solution)
            .expect("another guess");
        lie.solution = other;
        let refused = puzzles
            .complete(PuzzleCompleteRequest {
                worker_id: reply.worker_id,
                fingerprint: reply.fingerprint.clone(),
                results: vec![PuzzleResult {
                    job_id: job.id.clone(),
                    found: true,
                    puzzle_json: serde_json::to_string(&lie).expect("json"),
                    millis: 1,
                }],
            })
            .await
            .expect_err("a lie is refused");
        assert_eq!(refused.code(), Code::PermissionDenied, "{refused:?}");
        let again = puzzles
            .lease(PuzzleLeaseRequest {
                worker_id: reply.worker_id,
                fingerprint: reply.fingerprint.clone(),
                max_jobs: 1,
            })
            .await
            .expect_err("the liar is refused");
        assert_eq!(again.code(), Code::PermissionDenied);
    });
    let mut workers = [
        start_worker(&dir, "w1", &url, &[]),
        start_worker(&dir, "w2", &url, &[]),
    ];
    let summary = finished(&mut coord);
    for w in &mut workers {
        assert!(w.wait(Duration::from_secs(30)).success(), "{}", w.errors());
    }
    let checked = summary["checked"].as_str().expect("checked line");
    assert!(checked.contains("; 1 worker refused"), "{checked}");
    assert_same_files(&local, &out);
}
