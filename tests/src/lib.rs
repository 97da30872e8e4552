//! Helpers for the end-to-end tests: find the built `hakase` binary, run it as real processes
//! on 127.0.0.1 with their output in a scratch directory, and compute reference solutions
//! with the core solver in-process.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{FirstGuesses, SharedSolver, Solution, SolverConfig};
use hakase_core::GameTable;

/// The token every test cluster uses.
pub const TOKEN: &str = "test-token-7f3a-5c0e9b21";

/// The `hakase` binary of this build: `target/<profile>/hakase`, next to the directory that
/// holds the test executable, or the one `HAKASE_BIN` names. Built by `cargo test --workspace` (the coordinator package's
/// own tests need it); built here with cargo when missing.
pub fn hakase_bin() -> PathBuf {
    // Another build's binary (say, the last release's, to see a new test fail on it).
    if let Some(bin) = std::env::var_os("HAKASE_BIN") {
        return PathBuf::from(bin);
    }
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps")
        .to_path_buf();
    let bin = profile_dir.join(format!("hakase{}", std::env::consts::EXE_SUFFIX));
    if !bin.exists() {
        let target = profile_dir.parent().expect("target dir");
        let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cargo
            .args(["build", "-p", "hakase-coordinator", "--bin", "hakase"])
            .env("CARGO_TARGET_DIR", target);
        match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") | None => {}
            Some(profile) => {
                cargo.args(["--profile", profile]);
            }
        }
        let status = cargo.status().expect("running cargo build");
        assert!(status.success(), "building hakase failed");
    }
    bin
}

/// A scratch directory removed when dropped.
pub struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// A fresh empty directory.
    pub fn new(label: &str) -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "hakase-e2e-{label}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("creating a scratch directory");
        Scratch { path }
    }

    /// A path inside the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::env::var_os("HAKASE_KEEP_SCRATCH").is_none() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// A running `hakase` process, killed when dropped.
pub struct Proc {
    child: Option<Child>,
    /// Where its stdout goes.
    pub stdout: PathBuf,
    /// Where its stderr goes.
    pub stderr: PathBuf,
}

impl Proc {
    /// Starts `hakase ARGS` with the test token, output to `<name>.out` / `<name>.err`.
    pub fn start(dir: &Scratch, name: &str, args: &[&str]) -> Proc {
        Proc::start_with_input(dir, name, args, Stdio::null())
    }

    /// [`Proc::start`] with its standard input written through the returned pipe.
    pub fn start_piped(dir: &Scratch, name: &str, args: &[&str]) -> (Proc, ChildStdin) {
        let mut proc = Proc::start_with_input(dir, name, args, Stdio::piped());
        let input = proc
            .child
            .as_mut()
            .and_then(|child| child.stdin.take())
            .expect("a piped stdin");
        (proc, input)
    }

    fn start_with_input(dir: &Scratch, name: &str, args: &[&str], stdin: Stdio) -> Proc {
        let stdout = dir.join(&format!("{name}.out"));
        let stderr = dir.join(&format!("{name}.err"));
        let child = Command::new(hakase_bin())
            .args(args)
            .env("HAKASE_TOKEN", TOKEN)
            .env("RUST_LOG", "info")
            .stdin(stdin)
            .stdout(File::create(&stdout).expect("stdout file"))
            .stderr(File::create(&stderr).expect("stderr file"))
            .spawn()
            .expect("starting hakase");
        Proc {
            child: Some(child),
            stdout,
            stderr,
        }
    }

    /// Process id.
    pub fn id(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// Its exit status if it has exited (reaping it), else `None`.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        let status = self.child.as_mut()?.try_wait().ok().flatten()?;
        self.child = None;
        Some(status)
    }

    /// SIGKILL, no chance to clean up.
    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Waits for exit, at most `limit`; kills and panics past it.
    pub fn wait(&mut self, limit: Duration) -> ExitStatus {
        let child = self.child.as_mut().expect("process already reaped");
        let started = Instant::now();
        loop {
            if let Some(status) = child.try_wait().expect("waiting") {
                self.child = None;
                return status;
            }
            if started.elapsed() > limit {
                let _ = child.kill();
                panic!(
                    "process did not exit within {limit:?}; stderr:\n{}",
                    read(&self.stderr)
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Everything it printed on stdout.
    pub fn output(&self) -> String {
        read(&self.stdout)
    }

    /// Everything it printed on stderr.
    pub fn errors(&self) -> String {
        read(&self.stderr)
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// A file's text (empty when missing).
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Polls `check` every 50 ms until it returns `Some`, for at most `limit`.
pub fn wait_for<T>(limit: Duration, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let started = Instant::now();
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(started.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Starts a coordinator on a free port and returns it with its URL.
pub fn start_coordinator(dir: &Scratch, name: &str, db: &Path, extra: &[&str]) -> (Proc, String) {
    let db = db.to_string_lossy().to_string();
    let mut args = vec!["coordinator"];
    if !extra.contains(&"--listen") {
        args.extend_from_slice(&["--listen", "127.0.0.1:0"]);
    }
    args.extend_from_slice(&[
        "--db",
        &db,
        "--json",
        "--linger-secs",
        "1",
        "--log-format",
        "json",
    ]);
    args.extend_from_slice(extra);
    let mut proc = Proc::start(dir, name, &args);
    let url = wait_for(Duration::from_secs(60), "the coordinator to listen", || {
        if let Some(child) = proc.child.as_mut() {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("the coordinator exited ({status}):\n{}", read(&proc.stderr));
            }
        }
        proc.errors()
            .lines()
            .find_map(|l| l.strip_prefix("hakase coordinator listening on "))
            .map(|addr| format!("http://{}", addr.trim()))
    });
    (proc, url)
}

/// Starts a worker of `url` with its own cache.
pub fn start_worker(dir: &Scratch, name: &str, url: &str, extra: &[&str]) -> Proc {
    let cache = dir
        .join(&format!("{name}-cache"))
        .to_string_lossy()
        .to_string();
    let mut args = vec![
        "worker",
        "--connect",
        url,
        "--threads",
        "1",
        "--cache",
        &cache,
        "--log-format",
        "json",
    ];
    args.extend_from_slice(extra);
    Proc::start(dir, name, &args)
}

/// The single-process reference: core's `solve_game(Best)`.
pub fn core_solution(game: &str, config: SolverConfig) -> Solution {
    core_solver(game, config)
        .solver()
        .solve_game(FirstGuesses::Best, &|_| {})
}

/// A core solver of the preset `game`, for tests that need more than its best solution (a
/// ranking, its counters); it owns its game and table.
pub fn core_solver(game: &str, config: SolverConfig) -> SharedSolver {
    let tables = GameTable::build(load_preset(game).expect("preset"));
    SharedSolver::new(Arc::new(tables), config, 4_000_000)
}

/// The parts of a result that must match exactly: value, first guess and tree, as JSON.
pub fn essentials(solution: &Solution) -> serde_json::Value {
    serde_json::json!({
        "best": solution.best,
        "guesses_left": solution.guesses_left,
        "tree": solution.tree,
        "evaluation": solution.evaluation,
    })
}

/// The same parts of a coordinator's `--json` output.
pub fn essentials_of_output(stdout: &str) -> serde_json::Value {
    let doc: serde_json::Value = serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("coordinator output is not JSON ({e}):\n{stdout}"));
    let solution: Solution =
        serde_json::from_value(doc["solution"].clone()).expect("a solution in the output");
    essentials(&solution)
}

/// Waits for a coordinator to finish, asserts that its result is `reference`'s (value,
/// first guess and tree) and returns its whole `--json` document, for the counters and the
/// audit.
pub fn finished_as(coordinator: &mut Proc, reference: &Solution) -> serde_json::Value {
    let output = finished_like(coordinator, reference);
    serde_json::from_str(&output).expect("JSON")
}

/// Waits for the coordinator to exit successfully and checks that its result (text or
/// JSON) is `reference`'s; returns its output.
pub fn finished_like(coordinator: &mut Proc, reference: &Solution) -> String {
    assert!(
        coordinator.wait(Duration::from_secs(300)).success(),
        "{}",
        coordinator.errors()
    );
    let output = coordinator.output();
    assert_eq!(essentials_of_output(&output), essentials(reference));
    output
}

/// One line of a worker's job log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobEvent {
    /// Wall-clock microseconds.
    pub micros: u128,
    /// "started" or "acked".
    pub event: String,
    /// Job id (hex).
    pub id: String,
    /// Cutoff for "started"; for "acked": Some(value) when exact, else the bound.
    pub beta: u32,
    /// For "acked": true when exact.
    pub exact: bool,
    /// For "started": a re-run of another worker's claim (the audit), done twice on purpose.
    pub recheck: bool,
}

/// Reads a worker's job log.
pub fn job_log(path: &Path) -> Vec<JobEvent> {
    read(path)
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            match f.as_slice() {
                [micros, "started", id, beta, rest @ ..] => Some(JobEvent {
                    micros: micros.parse().ok()?,
                    event: "started".into(),
                    id: id.to_string(),
                    beta: beta.parse().ok()?,
                    exact: false,
                    recheck: match rest {
                        [] => false,
                        ["recheck"] => true,
                        _ => return None,
                    },
                }),
                [micros, "acked", id, kind, value] => Some(JobEvent {
                    micros: micros.parse().ok()?,
                    event: "acked".into(),
                    id: id.to_string(),
                    beta: value.parse().ok()?,
                    exact: *kind == "exact",
                    recheck: false,
                }),
                _ => None,
            }
        })
        .collect()
}

/// Job starts that an earlier acknowledged result already answered: work done twice (the
/// audit's re-runs, done twice on purpose, are left out).
pub fn recomputed(events: &[JobEvent]) -> Vec<JobEvent> {
    let mut sorted = events.to_vec();
    sorted.sort_by_key(|e| e.micros);
    let mut acked: std::collections::HashMap<String, (bool, u32)> = Default::default();
    let mut again = Vec::new();
    for e in sorted {
        if e.event == "acked" {
            let entry = acked.entry(e.id.clone()).or_insert((e.exact, e.beta));
            if e.exact || (!entry.0 && e.beta > entry.1) {
                *entry = (e.exact, e.beta);
            }
        } else if e.recheck {
            continue;
        } else if let Some(&(exact, bound)) = acked.get(&e.id) {
            if exact || bound >= e.beta {
                again.push(e);
            }
        }
    }
    again
}

/// Starts `n` one-thread workers of `url` whose jobs take 30 ms more (so that a test can
/// stop the coordinator half-way), each keeping a job log; returns them with their logs.
pub fn start_slow_workers(dir: &Scratch, url: &str, n: usize) -> (Vec<Proc>, Vec<PathBuf>) {
    let logs: Vec<PathBuf> = (0..n).map(|i| dir.join(&format!("w{i}.log"))).collect();
    let workers = logs
        .iter()
        .enumerate()
        .map(|(i, log)| {
            let log = log.to_string_lossy();
            let args = ["--job-delay-ms", "30", "--job-log", log.as_ref()];
            start_worker(dir, &format!("w{i}"), url, &args)
        })
        .collect();
    (workers, logs)
}

/// Distinct jobs the workers' logs saw acknowledged (a re-run of a claim, the audit's, is
/// acknowledged under the same id).
pub fn distinct_acked(logs: &[PathBuf]) -> usize {
    logs.iter()
        .flat_map(|l| job_log(l))
        .filter(|e| e.event == "acked")
        .map(|e| e.id)
        .collect::<std::collections::HashSet<_>>()
        .len()
}
