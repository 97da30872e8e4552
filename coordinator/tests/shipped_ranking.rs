//! `hakase ranking --game wordle [--hard]`: the rankings shipped with hakase, read as a user
//! would, with `--check` re-solving a row from scratch and bad requests refused by name.

use crate::common::{fails, json_of, ok};

#[test]
fn the_shipped_ranking_answers_and_a_checked_row_matches_the_solver() {
    // crane is in the first shipped chunks; its exact total over the 2315 answers is 7930.
    let text = ok(&["ranking", "--game", "wordle", "--word", "crane", "--check"]);
    assert!(
        text.starts_with(
            "shipped-wordle (wordle, 2315 answers): exact values of every first guess"
        ),
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.contains(" crane "))
        .expect("crane's row");
    assert!(row.trim_end().ends_with("7930  3.4255"), "{row}");
    assert!(
        text.contains("re-solved crane: 7930 (stated 7930) in "),
        "{text}"
    );
    assert!(
        text.contains(": matches\nall 1 re-solved rows match"),
        "{text}"
    );

    let doc = json_of(&["ranking", "--game", "wordle", "--word", "crane", "--json"]);
    assert_eq!(doc["run"], "shipped-wordle");
    assert_eq!(doc["scope"], "rank_all");
    assert_eq!(doc["first_guesses"], 12_972);
    assert_eq!(doc["rows"][0]["total"], 7930);
    assert!(doc.get("checks").is_none(), "{doc}");

    let tsv = ok(&["ranking", "--game", "wordle", "--format", "tsv"]);
    let rows = tsv.lines().skip(1).count() as u64;
    assert_eq!(
        rows,
        doc["settled"].as_u64().expect("settled"),
        "every shipped row"
    );
}

#[test]
fn shipped_rankings_are_refused_for_other_games_and_without_a_source() {
    let err = fails(&["ranking", "--game", "pokemon-today"]);
    assert!(
        err.contains(
            "rankings are shipped for English Wordle (--game wordle) only, not for pokemon-today"
        ),
        "{err}"
    );
    let err = fails(&["ranking"]);
    assert!(err.contains("--run <NAME|DIR>"), "{err}");
    let err = fails(&["ranking", "--hard"]);
    assert!(err.contains("--game <G>"), "{err}");
    let err = fails(&["ranking", "--game", "wordle", "--word", "zzzzz"]);
    assert!(err.contains("zzzzz"), "{err}");
}
