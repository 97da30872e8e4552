//! `hakase compare` run as a user would: the table, JSON, plots, the HTML report and bad input.

use crate::common::{fails, ok};
use serde_json::Value;

#[test]
fn compare_from_rentorar_lists_every_strategy_against_the_optimum() {
    let json: Value = serde_json::from_str(&ok(&[
        "compare",
        "--game",
        "pokemon-qiita2023",
        "--first",
        "レントラー",
        "--json",
    ]))
    .expect("JSON");
    let rows = json["rows"].as_array().expect("rows");
    let got: Vec<(&str, u64, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["strategy"].as_str().expect("name"),
                r["total"].as_u64().expect("total"),
                r["label"].as_str().expect("label"),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            // Solved from the given first guess: optimal only given it, so "exact".
            ("optimum", 966, "exact"),
            ("entropy", 1007, "heuristic"),
            ("min-expected-size", 972, "heuristic"),
            ("most-parts", 974, "heuristic"),
            ("minimax", 988, "heuristic"),
            ("frequency", 994, "heuristic"),
            ("frequency-candidates", 996, "heuristic"),
            ("frequency-probe", 1001, "heuristic"),
            ("frequency-differing", 1001, "heuristic"),
            ("top-10", 966, "heuristic"),
        ]
    );
    assert_eq!(rows[1]["extra"], 41);
    assert_eq!(rows[0]["optimal_percent"], 100.0);
    let worst = json["worst"][0]["answers"][0].clone();
    assert_eq!(worst["answer"], "バシャーモ");
    assert_eq!(
        (worst["guesses"].as_u64(), worst["optimum"].as_u64()),
        (Some(5), Some(3))
    );
    assert_eq!(worst["played"][0], "レントラー=灰灰灰灰黄");
}

#[test]
fn compare_writes_the_plots_and_a_self_contained_report() {
    let dir = std::env::temp_dir().join(format!("hakase-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = |name: &str| dir.join(name).to_str().expect("path").to_string();
    let text = ok(&[
        "compare",
        "--game",
        "pokemon-qiita2023",
        "--first",
        "レントラー",
        "--strategies",
        "entropy,frequency-probe",
        "--png",
        &path("c.png"),
        "--svg",
        &path("c.svg"),
        "--html",
        &path("c.html"),
    ]);
    assert!(text.contains("optimum"), "{text}");
    assert!(text.contains("worst for entropy: バシャーモ 5/3"), "{text}");
    let png = std::fs::read(path("c.png")).expect("png");
    assert_eq!(&png[1..4], b"PNG");
    let svg = std::fs::read_to_string(path("c.svg")).expect("svg");
    assert!(svg.starts_with("<svg") && svg.contains("frequency-probe"));
    let html = std::fs::read_to_string(path("c.html")).expect("html");
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<svg") && html.contains("バシャーモ"));
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn compare_reports_bad_input() {
    let unknown = fails(&["compare", "--strategies", "entropy,psychic"]);
    assert!(unknown.contains("psychic"), "{unknown}");
    let word = fails(&[
        "compare",
        "--game",
        "pokemon-qiita2023",
        "--first",
        "ピカチュウX",
    ]);
    assert!(word.contains("--first"), "{word}");
    let file = fails(&["compare", "--universe", "answers,/nonexistent/list.txt"]);
    assert!(file.contains("/nonexistent/list.txt"), "{file}");
    let plot = fails(&["compare", "--game", "pokemon-qiita2023", "--png", "out.gif"]);
    assert!(plot.contains(".png or .svg"), "{plot}");
    let top = fails(&["compare", "--top-k", "0"]);
    assert!(top.contains("--top-k"), "{top}");
}

#[test]
fn compare_rows_list_failures_as_evaluate_does_and_null_where_nothing_applies() {
    let game = ["--game", "pokemon-qiita2023", "--tries", "5", "--json"];
    let evaluate: Value =
        serde_json::from_str(&ok(&[&["evaluate"], &game[..]].concat())).expect("JSON");
    let strategies = ["--strategies", "entropy,frequency-candidates"];
    let compare: Value =
        serde_json::from_str(&ok(&[&["compare"], &game[..], &strategies[..]].concat()))
            .expect("JSON");
    let rows = compare["rows"].as_array().expect("rows");
    let entropy = rows
        .iter()
        .find(|r| r["strategy"] == "entropy")
        .expect("an entropy row");
    // The same answers lost, in the same shape, as `evaluate` of the same strategy.
    assert_eq!(
        entropy["failures"],
        serde_json::json!(["フシギバナ", "ピカチュウ", "ジグザグマ", "エネコロロ"])
    );
    assert_eq!(entropy["failures"], evaluate["failures"]);
    assert_eq!(entropy["unsolved"], serde_json::json!([]));
    assert_eq!(entropy["unsolved"], evaluate["unsolved"]);
    // Null, not a dash, where a row has no universe; the table still shows the dash.
    let universes: Vec<&Value> = rows.iter().map(|r| &r["universe"]).collect();
    assert_eq!(
        universes,
        [&Value::Null, &Value::Null, &Value::from("answers")]
    );
    let text = ok(&[
        "compare",
        "--game",
        "pokemon-qiita2023",
        "--tries",
        "5",
        "--strategies",
        "entropy",
    ]);
    let entropy_line = text
        .lines()
        .find(|l| l.starts_with("entropy "))
        .expect("an entropy line");
    assert!(
        entropy_line.contains(" —  ") && entropy_line.contains("    4    1007"),
        "{entropy_line}"
    );
}
