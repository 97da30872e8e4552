//! The built `hakase` binary, run as a user would.

use crate::common::{hakase, json_of, ok};
use serde_json::{json, Value};

#[test]
fn games_lists_every_preset_with_its_sizes() {
    let value = json_of(&["games", "--json"]);
    let games = value["games"].as_array().expect("a list");
    let sizes: Vec<(&str, u64, u64, u64)> = games
        .iter()
        .map(|g| {
            (
                g["name"].as_str().expect("name"),
                g["guesses"].as_u64().expect("guesses"),
                g["answers"].as_u64().expect("answers"),
                g["tries"].as_u64().expect("tries"),
            )
        })
        .collect();
    assert_eq!(
        sizes,
        [
            ("pokemon-qiita2023", 493, 285, 10),
            ("pokemon-verbum", 515, 515, 10),
            ("pokemon-today", 931, 285, 10),
            ("pokemon-gen:1", 931, 84, 10),
            ("wordle", 12972, 2315, 6),
            ("wordle-answers-only", 2315, 2315, 6),
            ("wordle-nyt2022", 14855, 2309, 6),
            ("wordle-nyt2023", 14855, 3158, 6),
        ]
    );
    assert!(games
        .iter()
        .all(|g| g["fingerprint"].as_str().map(str::len) == Some(16)));
}

#[test]
fn feedback_prints_the_pattern_in_the_asked_style() {
    assert_eq!(ok(&["feedback", "キノココ", "チコリータ"]), "灰灰黄灰\n");
    assert_eq!(
        ok(&["feedback", "drill", "slosh", "--game", "wordle"]),
        "BBBYB\n"
    );
    assert_eq!(
        json_of(&[
            "feedback",
            "キノココ",
            "ココロモリ",
            "--style",
            "digits",
            "--json"
        ]),
        json!({
            "game": "pokemon-today",
            "guess": "キノココ",
            "answer": "ココロモリ",
            "answer_is_possible": false,
            "pattern": "0011",
            "digits": "0011",
        })
    );
}

#[test]
fn chart_json_has_the_seed_articles_rows() {
    let value = json_of(&[
        "chart",
        "--game",
        "pokemon-qiita2023",
        "--first",
        "レントラー",
        "--json",
    ]);
    assert_eq!(value["first_guess"], "レントラー");
    assert_eq!(value["strategy"], "entropy");
    assert_eq!(value["answers"], 285);
    let rows = value["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 41);
    assert_eq!(rows[0]["pattern"], "灰灰灰灰灰");
    assert_eq!(rows[0]["digits"], "00000");
    assert_eq!(rows[0]["count"], 67);
    assert_eq!(rows[0]["second_guess"], "ゴルダック");
    assert_eq!(rows[0]["candidates"].as_array().map(Vec::len), Some(67));
    let last = &rows[40];
    assert_eq!(last["pattern"], "緑緑緑緑緑");
    assert_eq!(last["second_guess"], Value::Null);
    assert_eq!(last["candidates"], json!(["レントラー"]));
}

#[test]
fn rank_and_candidates_follow_the_history() {
    let value = json_of(&["rank", "-g", "pokemon-qiita2023", "--top", "2", "--json"]);
    assert_eq!(value["answers"], 285);
    assert_eq!(value["guesses"], 493);
    let words: Vec<&str> = value["ranking"]
        .as_array()
        .expect("ranking")
        .iter()
        .map(|r| r["guess"].as_str().expect("guess"))
        .collect();
    assert_eq!(words, ["レントラー", "ジーランス"]);
    let value = json_of(&[
        "candidates",
        "-g",
        "pokemon-qiita2023",
        "--history",
        "レントラー=BBBBG",
        "--json",
    ]);
    assert_eq!(value["history"], json!(["レントラー=灰灰灰灰緑"]));
    assert_eq!(value["count"], 23);
    assert_eq!(value["candidates"][0], "キャタピー");
}

#[test]
fn evaluate_reports_the_distribution() {
    let value = json_of(&[
        "evaluate",
        "-g",
        "pokemon-qiita2023",
        "--first",
        "レントラー",
        "--json",
    ]);
    assert_eq!(value["distribution"], json!([1, 22, 124, 104, 30, 4]));
    assert_eq!(value["total"], 1007);
    assert_eq!(value["worst"], 6);
    assert_eq!(value["failures"], json!([]));
    assert_eq!(value["forced_first"], true);
}

#[test]
fn bad_input_fails_with_a_message_on_stderr() {
    let out = hakase(&["feedback", "ナゾ", "ピカチュウ"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: reading the guess: \"ナゾ\" is not an allowed guess in pokemon-today\n"
    );
    let out = hakase(&[
        "candidates",
        "-g",
        "pokemon-qiita2023",
        "-H",
        "レントラー=灰灰灰灰緑",
        "-H",
        "ピカチュウ=緑緑緑緑緑",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: no possible answer fits the history: step 2 (ピカチュウ 緑緑緑緑緑): \
         no answer fits this step together with the earlier ones\n"
    );
}

#[test]
fn word_list_files_replace_the_presets_lists() {
    let dir = std::env::temp_dir().join(format!("hakase-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let good = dir.join("answers.txt");
    std::fs::write(&good, "\u{FEFF}ピカチュウ\r\nレントラー\r\n").expect("write");
    let value = json_of(&[
        "candidates",
        "--answers",
        good.to_str().expect("UTF-8 path"),
        "--json",
    ]);
    assert_eq!(value["candidates"], json!(["ピカチュウ", "レントラー"]));
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "ピカチュウ\nレントラー\nピカチュウ\n").expect("write");
    let out = hakase(&["rank", "--answers", bad.to_str().expect("UTF-8 path")]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.ends_with("\"ピカチュウ\" appears twice (lines 1 and 3)\n"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}
