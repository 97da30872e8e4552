//! `hakase solve --first W` stores a run named after the game and W, which `runs`, `query`,
//! `chart --run` and tree files read back, labelled "proven optimal GIVEN THE FIRST GUESS W"
//! everywhere (never plain "proven optimal").

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hakase_query::RunSummary;
use hakase_runs::load_path;
use serde_json::Value;

const CLAIM: &str = "proven optimal GIVEN THE FIRST GUESS レントラー";
const RUN: &str = "pokemon-qiita2023-first-レントラー";

fn hakase(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hakase"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the binary runs")
}

fn ok(dir: &Path, args: &[&str]) -> (String, String) {
    let out = hakase(dir, args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {stderr}");
    (String::from_utf8(out.stdout).expect("UTF-8"), stderr)
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("query-first-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn first_guess_solve_is_a_run_labelled_given_the_first_guess() {
    let dir = fresh_dir("run");
    // Typed in hiragana: the run is named after the game's own spelling.
    let (text, _) = ok(
        &dir,
        &[
            "solve",
            "--game",
            "pokemon-qiita2023",
            "--first",
            "れんとらー",
        ],
    );
    assert!(
        text.contains(&format!(
            "best first guess レントラー: total 966, mean 3.3895, worst 6 — {CLAIM}\n"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("stored as run hakase-data/{RUN}")),
        "{text}"
    );
    let run_dir = dir.join("hakase-data").join(RUN);
    let run = load_path(&run_dir).expect("the stored run loads");
    assert_eq!(run.first.as_deref(), Some("レントラー"));
    assert_eq!(run.claim(), CLAIM);
    assert_eq!(RunSummary::of(&run).total, Some(966));

    // Run again: read back, not solved again, with the same JSON claim.
    let (json, stderr) = ok(
        &dir,
        &[
            "solve",
            "--game",
            "pokemon-qiita2023",
            "--first",
            "レントラー",
            "--json",
        ],
    );
    assert!(stderr.contains("read the finished run"), "{stderr}");
    let json: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(json["total"], 966);
    assert_eq!(json["claim"], CLAIM);
    assert_eq!(json["first_guess_fixed"], "レントラー");

    // Listed by `runs`, with the claim in text and JSON.
    let (runs, _) = ok(&dir, &["runs"]);
    let line = runs.lines().find(|l| l.contains(RUN)).expect("listed");
    assert!(line.contains(&format!("finished ({CLAIM})")), "{runs}");
    assert!(line.contains("966"), "{runs}");
    let (runs, _) = ok(&dir, &["runs", "--json"]);
    let runs: Value = serde_json::from_str(&runs).expect("JSON");
    assert_eq!(runs["runs"][0]["name"], RUN);
    assert_eq!(runs["runs"][0]["claim"], CLAIM);

    // Queried and charted by name.
    let (next, _) = ok(
        &dir,
        &["query", "--run", RUN, "-H", "レントラー=灰灰灰灰灰"],
    );
    assert!(
        next.contains(&format!(
            "next guess: ゴルダック (from the run's tree: {CLAIM})"
        )),
        "{next}"
    );
    assert!(next.starts_with("67 answers left"), "{next}");
    let (next, _) = ok(&dir, &["query", "--run", RUN, "--json"]);
    let next: Value = serde_json::from_str(&next).expect("JSON");
    assert_eq!(next["guess"], "レントラー");
    assert_eq!(next["total"], 966);
    assert_eq!(next["claim"], CLAIM);
    let (chart, _) = ok(&dir, &["chart", "--run", RUN]);
    assert!(
        chart
            .lines()
            .next()
            .expect("a header")
            .contains("worst 6, proven optimal GIVEN THE FIRST GUESS レントラー"),
        "{chart}"
    );

    // A run of another first guess is never mixed into it.
    let out = Command::new(env!("CARGO_BIN_EXE_hakase"))
        .current_dir(&dir)
        .args([
            "solve",
            "--game",
            "pokemon-qiita2023",
            "--first",
            "ジーランス",
            "--db",
        ])
        .arg(&run_dir)
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("holds a run of first guess レントラー"),
        "{stderr}"
    );
}

#[test]
fn in_memory_first_guess_tree_file_carries_the_claim() {
    let dir = fresh_dir("tree");
    let (text, _) = ok(
        &dir,
        &[
            "solve",
            "--game",
            "pokemon-qiita2023",
            "--first",
            "レントラー",
            "--in-memory",
            "--tree-out",
            "t.json",
        ],
    );
    assert!(
        text.contains(&format!("total 966, mean 3.3895, worst 6 — {CLAIM}")),
        "{text}"
    );
    assert!(
        !dir.join("hakase-data").exists(),
        "--in-memory stores no run"
    );
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("t.json")).expect("tree file"))
            .expect("JSON");
    assert_eq!(doc["about"]["claim"], CLAIM);
    assert_eq!(doc["about"]["first_guess"], "レントラー");
    let (next, _) = ok(&dir, &["query", "--tree", "t.json", "--json"]);
    let next: Value = serde_json::from_str(&next).expect("JSON");
    assert_eq!(next["claim"], CLAIM);
    assert_eq!(next["total"], 966);
}
