//! `hakase design` and `--allow-any-first`, run as a user would (release builds only: the
//! searches are slow in debug).

use crate::common::{hakase, json_of};
use serde_json::Value;

#[test]
fn design_over_a_letter_set_is_proven_and_solve_agrees() {
    if cfg!(debug_assertions) {
        return;
    }
    let doc = json_of(&[
        "design",
        "--game",
        "pokemon-qiita2023",
        "--letters",
        "ラルイーン",
        "--top",
        "2",
        "--json",
    ]);
    assert_eq!(doc["strings"], 3125.0);
    let entropy = &doc["entropy_search"];
    assert_eq!(entropy["proven"], true);
    assert_eq!(entropy["rows"][0]["string"], "ラルイーン");
    let total = &doc["total_search"];
    assert_eq!(total["method"], "exhaustive");
    assert_eq!(total["proven"], true);
    assert_eq!(total["rows"][0]["string"], "ラルイーン");
    assert_eq!(total["rows"][0]["total"], 924);
    assert_eq!(total["lower_bound"], 924);
    assert_eq!(doc["best_real"]["first_guess"], "ジーランス");
    assert_eq!(doc["best_real"]["total"], 964);

    let solved = hakase(&[
        "solve",
        "--game",
        "pokemon-qiita2023",
        "--first",
        "ラルイーン",
        "--allow-any-first",
        "--in-memory",
        "--json",
    ]);
    assert!(solved.status.success());
    let solved: Value = serde_json::from_slice(&solved.stdout).expect("JSON");
    assert_eq!(solved["total"], 924);
    assert_eq!(solved["first_guess"], "ラルイーン");
}

#[test]
fn bad_design_input_is_an_error_not_a_panic() {
    for args in [
        &["design", "--fix", "7=ン"][..],
        &["design", "--fix", "5ン"],
        &["design", "--letters", "abc"],
        &["design", "--show", "ラルイン"],
        &["solve", "--first", "ラルイーン", "--in-memory"],
    ] {
        let out = hakase(args);
        assert!(!out.status.success(), "{args:?} should fail");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
    }
}
