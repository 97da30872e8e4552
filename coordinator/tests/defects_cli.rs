//! The smaller defects of issue 41, each checked as a user meets it: the built binary run from
//! a scratch directory, its exact output and exit status.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

use crate::common::{fails, hakase, hakase_ok, json_of, ok, scratch};
use serde_json::{json, Value};

/// Lines of `text` from the one equal to `start` (excluded) to the end.
fn after<'a>(text: &'a str, start: &str) -> Vec<&'a str> {
    text.lines().skip_while(|l| *l != start).skip(1).collect()
}

#[test]
fn runs_refuses_a_data_directory_that_is_missing_or_a_file() {
    let dir = scratch("defects-runs");
    let missing = dir.join("missing");
    let out = hakase(&["runs", "--data", missing.to_str().expect("UTF-8")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: the data directory {} does not exist (`hakase solve` stores its runs under \
             hakase-data/ by default; --data DIR lists another)\n",
            missing.display()
        )
    );
    let json: Value = serde_json::from_slice(
        &hakase(&["runs", "--data", missing.to_str().expect("UTF-8"), "--json"]).stdout,
    )
    .expect("a JSON error");
    assert_eq!(json["error"]["kind"], "not_found");
    let file = dir.join("file");
    std::fs::write(&file, "").expect("a file");
    assert_eq!(
        fails(&["runs", "--data", file.to_str().expect("UTF-8")]),
        format!(
            "error: the data directory {} is a file: --data takes a directory of runs (or one \
             run)\n",
            file.display()
        )
    );
    // An existing directory without runs is still an empty list, not an error.
    let empty = dir.join("empty");
    std::fs::create_dir(&empty).expect("a directory");
    assert_eq!(
        ok(&["runs", "--data", empty.to_str().expect("UTF-8")]),
        format!("no runs under {}\n", empty.display())
    );
}

#[test]
fn serve_warns_of_a_missing_data_directory_and_refuses_a_file() {
    let dir = scratch("defects-serve");
    let missing = dir.join("later");
    // The warning comes before the listening line, which `serve --json` always prints: read
    // that line, stop the server, then read all it wrote on standard error.
    let mut child = Command::new(env!("CARGO_BIN_EXE_hakase"))
        .args([
            "serve",
            "--data",
            missing.to_str().expect("UTF-8"),
            "--listen",
            "127.0.0.1:0",
            "--http",
            "off",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("serve starts");
    let mut listening = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut listening)
        .expect("a line");
    let _ = child.kill();
    let mut line = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut line)
        .expect("standard error");
    let _ = child.wait();
    let listening: Value = serde_json::from_str(&listening).expect("the listening line");
    assert_eq!(listening["runs"], json!([]));
    assert_eq!(
        line,
        format!(
            "warning: the data directory {} does not exist (yet); runs written there are \
             served within 5 seconds\n",
            missing.display()
        )
    );
    let file = dir.join("file");
    std::fs::write(&file, "").expect("a file");
    assert_eq!(
        fails(&[
            "serve",
            "--data",
            file.to_str().expect("UTF-8"),
            "--http",
            "off"
        ]),
        format!(
            "error: the data directory {} is a file: --data takes a directory of runs (or one \
             run)\n",
            file.display()
        )
    );
}

#[test]
fn chart_text_has_a_header_aligned_columns_and_the_winning_row() {
    let text = ok(&["chart", "-g", "pokemon-qiita2023", "--first", "レントラー"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 43);
    assert_eq!(
        lines[0],
        "レントラー on pokemon-qiita2023: 285 answers, 41 patterns, second guesses by entropy"
    );
    assert_eq!(lines[1], "PATTERN     LEFT  SECOND");
    assert_eq!(lines[2], "灰灰灰灰灰    67  ゴルダック");
    assert_eq!(lines[42], "緑緑緑緑緑     1  (won)");
}

#[test]
fn solve_prints_the_chart_of_chart_run_with_the_winning_row() {
    let dir = scratch("defects-solve-chart");
    let run = dir.join("run");
    let run = run.to_str().expect("UTF-8");
    let solved = ok(&["solve", "--game", "pokemon-qiita2023", "--db", run]);
    let chart = after(&solved, "chart of ジーランス:");
    assert_eq!(chart.len(), 45, "{solved}");
    assert_eq!(chart[0], "PATTERN     LEFT  SECOND      TOTAL  WORST");
    assert_eq!(chart[1], "灰灰灰灰灰    71  ソルロック    281      5");
    assert_eq!(chart[44], "緑緑緑緑緑     1  (won)");
    // The same rows as `chart --run` prints, line for line.
    let from_run = ok(&["chart", "--run", run]);
    assert_eq!(from_run.lines().skip(1).collect::<Vec<_>>(), chart);
}

#[test]
fn plot_of_a_first_guess_run_says_optimal_given_that_guess() {
    let dir = scratch("defects-plot");
    let run = dir.join("first");
    let run = run.to_str().expect("UTF-8");
    hakase_ok([
        "solve",
        "--game",
        "pokemon-qiita2023",
        "--first",
        "レントラー",
        "--db",
        run,
    ]);
    let svg = dir.join("plot.svg");
    let svg = svg.to_str().expect("UTF-8");
    let text = ok(&["plot", "--run", run, "--svg", svg]);
    assert_eq!(
        text.lines().nth(1),
        Some(
            "optimum given the first guess レントラー: total 966, mean 3.3895, worst 6, guesses \
             1:1 2:35 3:133 4:89 5:22 6:5"
        )
    );
    let drawn = std::fs::read_to_string(svg).expect("the SVG");
    assert!(drawn
        .lines()
        .any(|l| l == "optimum given the first guess レントラー"));
    let json = json_of(&["plot", "--run", run, "--svg", svg, "--json"]);
    assert_eq!(json["bars"][0]["strategy"], "optimum");
    assert_eq!(json["bars"][0]["label"], "exact");
    assert_eq!(json["bars"][1]["label"], "heuristic");
}

#[test]
fn solve_with_too_few_tries_says_so_plainly_and_exits_3() {
    let out = hakase(&[
        "solve",
        "--game",
        "pokemon-qiita2023",
        "--tries",
        "2",
        "--in-memory",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "pokemon-qiita2023 (2 tries): 285 answers, 493 allowed guesses; objective: fewest \
         guesses in total, normal mode\n\
         no strategy wins every answer within 2 tries (proven)\n\
         allow more with --tries N\n"
    );
    // The JSON document is still the result, and the status tells a script.
    let out = hakase(&[
        "solve",
        "--game",
        "pokemon-qiita2023",
        "--tries",
        "2",
        "--in-memory",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let json: Value = serde_json::from_slice(&out.stdout).expect("the solve document");
    assert_eq!(json["possible"], false);
    assert_eq!(json["first_guess"], Value::Null);
    // A stored run answers the same on the first call and when read back.
    let dir = scratch("defects-no-win");
    let run = dir.join("run");
    let run = run.to_str().expect("UTF-8");
    for _ in 0..2 {
        let out = hakase(&[
            "solve",
            "--game",
            "pokemon-qiita2023",
            "--tries",
            "2",
            "--db",
            run,
        ]);
        assert_eq!(out.status.code(), Some(3));
        assert!(String::from_utf8_lossy(&out.stdout)
            .contains("\nno strategy wins every answer within 2 tries (proven)\n"));
    }
}

#[test]
fn feedback_names_the_answer_when_the_answer_is_unknown() {
    assert_eq!(
        fails(&["feedback", "ピカチュウ", "ピカチ"]),
        "error: reading the answer: \"ピカチ\" is not a word of pokemon-today, so it cannot be \
         the answer\n"
    );
    assert_eq!(
        fails(&["feedback", "ピカチュウ", "ピカチュ"]),
        "error: reading the answer: \"ピカチュ\" is not a word of pokemon-today, so it cannot \
         be the answer; did you mean ピカチュウ?\n"
    );
    assert_eq!(
        fails(&["feedback", "ピカチ", "ピカチュウ"]),
        "error: reading the guess: \"ピカチ\" is not an allowed guess in pokemon-today\n"
    );
}

#[test]
fn display_refuses_a_file_as_its_page_directory_with_a_clear_message() {
    let dir = scratch("defects-display");
    let file = dir.join("chart.png");
    std::fs::write(&file, "keep").expect("a file");
    let out = hakase(&[
        "display",
        "--game",
        "pokemon-gen:1",
        "--png",
        file.to_str().expect("UTF-8"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: --png {}: is a file, but --png takes a directory to write the pages into \
             (page-01.png, page-01-x4.png, …; pages already there are overwritten)\n",
            file.display()
        )
    );
    assert_eq!(std::fs::read(&file).expect("still there"), b"keep");
    // A directory is written into again, its pages replaced.
    let pages = dir.join("pages");
    let pages = pages.to_str().expect("UTF-8");
    for _ in 0..2 {
        hakase_ok(["display", "--game", "pokemon-gen:1", "--png", pages]);
    }
}

#[test]
fn review_says_each_cause_once() {
    assert_eq!(
        fails(&[
            "review",
            "--game",
            "pokemon-qiita2023",
            "-H",
            "ジーランズ=灰灰灰灰灰"
        ]),
        "error: reading the game: step 1: \"ジーランズ\" is not an allowed guess in \
         pokemon-qiita2023; did you mean ジーランス?\n"
    );
    let json: Value = serde_json::from_slice(
        &hakase(&[
            "review",
            "--game",
            "pokemon-qiita2023",
            "-H",
            "ジーランズ=灰灰灰灰灰",
            "--json",
        ])
        .stdout,
    )
    .expect("a JSON error");
    assert_eq!(
        json,
        json!({"error": {
            "kind": "input",
            "message": "reading the game: step 1: \"ジーランズ\" is not an allowed guess in \
                        pokemon-qiita2023; did you mean ジーランス?"
        }})
    );
}
