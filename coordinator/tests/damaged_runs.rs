//! Damaged databases: a real run written by `hakase solve`, and a real worker memo, are
//! truncated and scribbled on at many offsets. Reading them must give a value or a typed
//! error — never a panic — and one damaged run must not stop `runs` listing the others.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::memo::{Memo, MemoEntry, MemoKey};
use hakase_core::solver::SolverConfig;
use hakase_runs::sled_guard;
use hakase_runs::Store;
use hakase_runs::{load_path, RunError};
use hakase_worker::SledMemo;

use crate::common::{scratch, solve_run};

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

/// The files of a sled directory, largest first (the log is where damage hurts).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<(u64, PathBuf)> = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push((entry.metadata().map_or(0, |m| m.len()), path));
            }
        }
    }
    found.sort_by(|a, b| b.cmp(a));
    found.into_iter().map(|(_, p)| p).collect()
}

/// One way to damage a file.
#[derive(Debug, Clone, Copy)]
enum Damage {
    /// Cut the file at this fraction of its length (per mille).
    Truncate(u64),
    /// Overwrite 64 bytes at this fraction (per mille) with a pattern.
    Scribble(u64, u8),
}

fn apply(file: &Path, damage: Damage) {
    let mut bytes = std::fs::read(file).expect("read");
    let len = bytes.len() as u64;
    match damage {
        Damage::Truncate(per_mille) => bytes.truncate((len * per_mille / 1000) as usize),
        Damage::Scribble(per_mille, pattern) => {
            let at = (len * per_mille / 1000) as usize;
            for (i, b) in bytes.iter_mut().skip(at).take(64).enumerate() {
                *b = pattern.wrapping_add(i as u8 * 37);
            }
        }
    }
    std::fs::write(file, bytes).expect("write");
}

/// Truncations and scribbles spread over each file.
fn damages() -> Vec<Damage> {
    let mut all = Vec::new();
    for k in 0..24 {
        all.push(Damage::Truncate(k * 1000 / 24));
    }
    for k in 0..24u64 {
        all.push(Damage::Scribble(k * 1000 / 24 + 7, (k * 53) as u8));
    }
    all
}

/// A finished run of pokemon-qiita2023 made by the real command, made once and copied by each
/// test. The resumable run stores little (settled first guesses and the solution), so a few
/// MB of other records are added to its database, as a long run accumulates: with a log that
/// spans several segments, damage in it makes sled panic, which is what the isolation is for.
fn solved_run() -> &'static PathBuf {
    static RUN: OnceLock<PathBuf> = OnceLock::new();
    RUN.get_or_init(|| {
        let run = solve_qiita();
        let db = sled::open(&run).expect("the solved run opens");
        let filler = db.open_tree("test-filler").expect("a tree");
        for i in 0u32..5000 {
            let value: Vec<u8> = (0..1024u32)
                .map(|j| (i.wrapping_mul(2_654_435_761) ^ j.wrapping_mul(40_503)) as u8)
                .collect();
            filler.insert(i.to_be_bytes(), value).expect("insert");
        }
        db.flush().expect("flush");
        drop(filler);
        drop(db);
        run
    })
}

/// A finished run of pokemon-qiita2023 made by the real command.
fn solve_qiita() -> PathBuf {
    let run = scratch("damaged-source").join("qiita");
    solve_run("pokemon-qiita2023", &run);
    run
}

#[test]
fn damaged_runs_give_errors_not_panics() {
    let data = scratch("damaged-runs");
    // Work on copies only: opening a run may rewrite its files, and the other tests copy it.
    let good = data.join("good");
    copy_dir(solved_run(), &good);
    let game = load_preset("pokemon-qiita2023").expect("preset");
    let config = SolverConfig::default();
    let mut cases = 0;
    let (mut damaged, mut panics) = (0, 0);
    let targets = files(&good).len().min(3);
    for (f, file) in files(&good).iter().take(targets).enumerate() {
        let relative = file.strip_prefix(&good).expect("inside");
        for (d, damage) in damages().into_iter().enumerate() {
            let copy = data.join(format!("case-{f}-{d}"));
            copy_dir(&good, &copy);
            apply(&copy.join(relative), damage);
            // The query side (runs, serve, query) and the run store (solve, coordinator).
            let read = load_path(&copy);
            if let Err(RunError::Damaged { path, why }) = &read {
                assert_eq!(path, &copy);
                damaged += 1;
                panics += usize::from(why.starts_with("sled failed reading it: "));
            }
            let _ = Store::open(&copy, &game, &config);
            cases += 1;
            std::fs::remove_dir_all(&copy).expect("clean");
        }
    }
    assert_eq!(cases, targets * damages().len());
    eprintln!("{cases} damaged copies: {damaged} reported damaged, {panics} of them sled panics");
    // Some damage makes sled panic, and that panic is reported as damage (the rest reads as
    // an older state, or as a plain error): the isolation is exercised, not just present.
    assert!(panics > 0, "no case made sled panic");
    std::fs::remove_dir_all(&data).expect("clean");
}

#[test]
fn runs_lists_the_good_run_next_to_a_damaged_one() {
    let data = scratch("damaged-listing");
    let good = data.join("good");
    copy_dir(solved_run(), &good);
    // The first scribble on the log that makes sled panic (where depends on the run's
    // layout, which thread timing changes from one solve to the next).
    let bad = data.join("bad");
    let panics = damages().into_iter().any(|damage| {
        let _ = std::fs::remove_dir_all(&bad);
        copy_dir(&good, &bad);
        let log = files(&bad).into_iter().next().expect("a file");
        apply(&log, damage);
        let probe = data.join("probe");
        copy_dir(&bad, &probe);
        let read = load_path(&probe);
        std::fs::remove_dir_all(&probe).expect("clean");
        matches!(read, Err(RunError::Damaged { why, .. }) if why.starts_with("sled failed"))
    });
    assert!(panics, "no damage made sled panic");
    let out = Command::new(env!("CARGO_BIN_EXE_hakase"))
        .args(["runs", "--data"])
        .arg(&data)
        .output()
        .expect("hakase runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[1].starts_with("bad "), "{stdout}");
    assert!(
        lines[1].contains("is damaged: sled failed reading it: "),
        "{stdout}"
    );
    assert!(lines[2].starts_with("good "), "{stdout}");
    assert!(lines[2].contains("finished (proven)"), "{stdout}");
    // Asking for the damaged run is an error naming it, with exit status 1, not a crash.
    let out = Command::new(env!("CARGO_BIN_EXE_hakase"))
        .args(["query", "--run"])
        .arg(&bad)
        .output()
        .expect("hakase query");
    assert_eq!(out.status.code(), Some(1));
    std::fs::remove_dir_all(&data).expect("clean");
}

#[test]
fn damaged_worker_memos_give_errors_not_panics() {
    let dir = scratch("damaged-memo");
    let good = dir.join("good");
    {
        let db = sled_guard::open(&good).expect("open");
        let tree = db.open_tree("memo").expect("tree");
        let memo = SledMemo::open(tree, "fp", 1 << 12, 0, "memo").expect("memo");
        for k in 0..30_000u64 {
            memo.put(
                MemoKey(u128::from(k) * 0x9E37_79B9_7F4A_7C15),
                MemoEntry {
                    value: k as u32 % 40 + 3,
                    exact: true,
                    guess: k as u32 % 80,
                },
            );
        }
        memo.flush().expect("flush");
    }
    let mut cases = 0;
    let targets = files(&good).len().min(3);
    for (f, file) in files(&good).iter().take(targets).enumerate() {
        let relative = file.strip_prefix(&good).expect("inside");
        for (d, damage) in damages().into_iter().enumerate() {
            let copy = dir.join(format!("case-{f}-{d}"));
            copy_dir(&good, &copy);
            apply(&copy.join(relative), damage);
            if let Ok(db) = sled_guard::open(&copy) {
                if let Ok(tree) = sled_guard::isolate(|| db.open_tree("memo")) {
                    let _ = SledMemo::open_guarded(tree, "fp", 1 << 12, 0, "memo");
                }
            }
            cases += 1;
            std::fs::remove_dir_all(&copy).expect("clean");
        }
    }
    assert_eq!(cases, targets * damages().len());
    std::fs::remove_dir_all(&dir).expect("clean");
}
