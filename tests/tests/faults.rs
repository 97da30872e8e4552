//! The fault suite: every process of a local cluster (coordinator and workers) is killed
//! with SIGKILL at seeded random moments during a run and started again. The run must end
//! with exactly the single-process solver's result and tree, and no acknowledged job may be
//! lost; the work done twice per kill is reported (`--nocapture`).

use std::time::{Duration, Instant};

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::SolverConfig;
use hakase_tests::*;

/// A small seeded generator (the kill schedule must be reproducible from its seed).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// What a chaotic run came to.
#[derive(Debug)]
struct Chaos {
    kills: usize,
    coordinator_kills: usize,
    acked: usize,
    lost: usize,
    recomputed: usize,
    /// Coordinator starts that reported damage or unchecked losses: a kill -9 damages
    /// nothing, so any is a false alarm.
    damage_reports: usize,
    seconds: f64,
}

impl Chaos {
    /// The figures, for the bench script.
    fn line(&self) -> String {
        format!(
            "kills survived: {} ({} of the coordinator); acknowledged jobs: {}, lost: {}; \
             recomputed: {} ({:.2} per kill); {:.1} s",
            self.kills,
            self.coordinator_kills,
            self.acked,
            self.lost,
            self.recomputed,
            self.recomputed as f64 / self.kills.max(1) as f64,
            self.seconds
        )
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Runs `game` with a coordinator and `n` workers, killing one process (picked at random)
/// `kills` times at random moments `gap_ms` apart on average, restarting each at once.
fn chaos(
    game: &str,
    workers: usize,
    kills: usize,
    seed: u64,
    delay_ms: &str,
    gap_ms: u64,
) -> Chaos {
    let reference = core_solution(game, SolverConfig::default());
    let dir = Scratch::new(&format!("faults-{seed}"));
    let db = dir.join("db");
    let listen = format!("127.0.0.1:{}", free_port());
    let args = [
        "--listen",
        listen.as_str(),
        "--game",
        game,
        "--lease-secs",
        "1",
    ];
    let mut rng = Lcg(seed);
    let started = Instant::now();
    let (mut coordinator, url) = start_coordinator(&dir, "c0", &db, &args);
    let mut logs = Vec::new();
    let start = |k: usize, logs: &mut Vec<std::path::PathBuf>| {
        let log = dir.join(&format!("w{k}-{}.log", logs.len()));
        logs.push(log.clone());
        start_worker(
            &dir,
            &format!("w{k}-{}", logs.len()),
            &url,
            &[
                "--job-delay-ms",
                delay_ms,
                "--job-log",
                log.to_str().expect("utf-8"),
            ],
        )
    };
    let mut pool: Vec<Proc> = (0..workers).map(|k| start(k, &mut logs)).collect();
    let (mut done, mut coordinator_kills, mut incarnation) = (0, 0, 0);
    while done < kills {
        std::thread::sleep(Duration::from_millis(gap_ms / 2 + rng.below(gap_ms)));
        if coordinator.exited().is_some() {
            break;
        }
        let victim = rng.below(workers as u64 + 1) as usize;
        if victim == workers {
            coordinator.kill9();
            incarnation += 1;
            coordinator_kills += 1;
            coordinator = start_coordinator(&dir, &format!("c{incarnation}"), &db, &args).0;
        } else {
            pool[victim].kill9();
            pool[victim] = start(victim, &mut logs);
        }
        done += 1;
    }
    let status = coordinator.wait(Duration::from_secs(600));
    assert!(status.success(), "{}", coordinator.errors());
    // The value, the first guess and the whole tree (checked over every answer) are the
    // single-process solver's.
    assert_eq!(
        essentials_of_output(&coordinator.output()),
        essentials(&reference)
    );
    for w in &mut pool {
        let _ = w.wait(Duration::from_secs(60));
    }
    let events: Vec<JobEvent> = logs.iter().flat_map(|l| job_log(l)).collect();
    let store = hakase_runs::Store::open(
        &db,
        &load_preset(game).expect("preset"),
        &SolverConfig::default(),
    )
    .expect("the run database");
    let stored: std::collections::HashSet<String> = store
        .load_results()
        .expect("results")
        .into_iter()
        .map(|(id, _, _)| id.to_string())
        .collect();
    let acked: std::collections::HashSet<&str> = events
        .iter()
        .filter(|e| e.event == "acked")
        .map(|e| e.id.as_str())
        .collect();
    Chaos {
        kills: done,
        coordinator_kills,
        acked: acked.len(),
        lost: acked.iter().filter(|id| !stored.contains(**id)).count(),
        // Claims re-run by the audit are marked in the logs and not counted.
        recomputed: recomputed(&events).len(),
        damage_reports: (0..=incarnation)
            .map(|k| read(&dir.join(&format!("c{k}.err"))))
            .filter(|e| e.contains("damaged") || e.contains("cannot be checked"))
            .count(),
        seconds: started.elapsed().as_secs_f64(),
    }
}

#[test]
fn five_random_kills_lose_no_job_and_change_no_result() {
    let report = chaos("pokemon-gen:1", 2, 5, 0x5eed_0005, "40", 500);
    println!("{}", report.line());
    assert_eq!(report.lost, 0, "{report:?}");
    assert_eq!(report.damage_reports, 0, "{report:?}");
    assert!(report.acked > 0, "{report:?}");
}

/// The full version: twenty kills (scripts/bench-faults runs it and prints the figures).
#[test]
#[ignore]
fn twenty_random_kills_lose_no_job_and_change_no_result() {
    let seed = std::env::var("HAKASE_FAULT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_0020);
    let report = chaos("pokemon-gen:1", 3, 20, seed, "60", 700);
    println!("{}", report.line());
    assert_eq!(
        report.kills, 20,
        "the run ended before 20 kills: {report:?}"
    );
    assert_eq!(report.lost, 0, "{report:?}");
    assert_eq!(report.damage_reports, 0, "{report:?}");
}
