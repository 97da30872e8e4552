//! `hakase puzzle` run as a user would: one puzzle, a batch, an interrupted batch resumed,
//! and bad options.

use std::path::PathBuf;

use crate::common::{hakase, ok};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hakase-puzzle-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn one_puzzle_prints_the_solution_below_a_line_and_json_agrees() {
    let base = [
        "puzzle",
        "-g",
        "pokemon-qiita2023",
        "--kind",
        "deduction",
        "--level",
        "hard",
    ];
    let text = ok(&[&base[..], &["--seed", "4"]].concat());
    let (puzzle, solution) = text
        .split_once("-----")
        .expect("a line before the solution");
    assert!(puzzle.starts_with("Day 1 · deduction · hard · pokemon-qiita2023\n"));
    let json: Value =
        serde_json::from_str(&ok(&[&base[..], &["--seed", "4", "--json"]].concat())).expect("JSON");
    let answer = json["solution"].as_str().expect("solution");
    assert!(solution.contains(&format!("Day 1: {answer}\n")));
    assert!(!puzzle.contains(answer));
    assert_eq!(json["level"], "hard");
    assert_eq!(json["grade"]["deduction"]["reasoning"], "letter-counts");
    let hidden = ok(&[&base[..], &["--seed", "4", "--hide-solution"]].concat());
    assert_eq!(hidden, puzzle);
}

/// A puzzle line as versions before the names moved onto docs/json.md's scheme wrote it.
fn in_old_names(line: &str) -> String {
    fn rename(object: &mut Value, from: &str, to: &str) {
        if let Some(map) = object.as_object_mut() {
            if let Some(value) = map.remove(from) {
                map.insert(to.to_string(), value);
            }
        }
    }
    let mut puzzle: Value = serde_json::from_str(line).expect("a puzzle line");
    let grade = &mut puzzle["grade"];
    if let Some(deduction) = grade.get_mut("deduction") {
        rename(deduction, "counts", "left_after_rows");
    }
    if let Some(best) = grade.get_mut("best_move") {
        rename(best, "candidates", "answers");
        rename(best, "total", "best_total");
        rename(best, "worst", "best_worst");
        rename(&mut best["goal"], "win_within", "win-within");
    }
    rename(grade, "best_move", "best-move");
    puzzle.to_string()
}

#[test]
fn an_interrupted_batch_resumes_to_the_same_puzzles() {
    let dir = scratch("resume");
    let out = dir.to_str().expect("UTF-8 path");
    let args = [
        "puzzle",
        "-g",
        "pokemon-qiita2023",
        "--count",
        "6",
        "--levels",
        "easy:1,medium:1,hard:1",
        "--seed",
        "8",
        "--out",
        out,
        "--json",
    ];
    let summary: Value = serde_json::from_str(&ok(&args)).expect("JSON");
    assert_eq!(summary["made"], 6);
    assert_eq!(summary["resumed"], 0);
    let whole = std::fs::read_to_string(dir.join("puzzles.json")).expect("puzzles.json");
    let sheet = std::fs::read_to_string(dir.join("sheet.txt")).expect("sheet");
    assert_eq!(sheet.matches("Day ").count(), 6);

    // Kill it mid-write: two days kept, the third torn. The two kept are rewritten in the
    // names an older version wrote, which a resume must still read.
    let lines = std::fs::read_to_string(dir.join("puzzles.jsonl")).expect("lines");
    let keep: Vec<&str> = lines.lines().take(3).collect();
    let third = keep[2].as_bytes();
    let (first, second) = (in_old_names(keep[0]), in_old_names(keep[1]));
    assert_ne!((first.as_str(), second.as_str()), (keep[0], keep[1]));
    let torn = [
        first.as_bytes(),
        b"\n",
        second.as_bytes(),
        b"\n",
        &third[..third.len() / 2],
    ]
    .concat();
    std::fs::write(dir.join("puzzles.jsonl"), torn).expect("tear");
    std::fs::remove_file(dir.join("puzzles.json")).expect("remove");

    let summary: Value = serde_json::from_str(&ok(&args)).expect("JSON");
    assert_eq!(summary["resumed"], 2);
    assert_eq!(summary["made"], 6);
    let again = std::fs::read_to_string(dir.join("puzzles.json")).expect("puzzles.json");
    assert_eq!(again, whole);

    // The same directory with another seed is refused, not mixed.
    let mut other = args.to_vec();
    other[8] = "9";
    let refused = hakase(&other);
    assert!(!refused.status.success());
    // Under --json the error is a JSON document on stdout.
    let error: Value = serde_json::from_slice(&refused.stdout).expect("JSON error");
    assert!(error["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("holds another batch")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_options_are_errors_not_panics() {
    for (args, message) in [
        (
            vec!["--levels", "easy:lots", "--count", "3", "--out", "x"],
            "the weight is not a number",
        ),
        (vec!["--level", "extreme"], "unknown level"),
        (vec!["--kind", "riddle"], "unknown puzzle kind"),
        (vec!["--count", "3"], "--out"),
        // Once an allocation abort (exit 134).
        (
            vec![
                "--count",
                "1000000000000",
                "--levels",
                "easy:1",
                "--out",
                "x",
            ],
            "--count must be at most 1000000 days",
        ),
    ] {
        let out = hakase(&[&["puzzle", "-g", "pokemon-qiita2023"][..], &args[..]].concat());
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
}
