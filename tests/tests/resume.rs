//! The resumable solve killed with kill -9 in the part of a search that used to keep nothing:
//! the worst-case objective first proves that fewer guesses cannot always win (pokemon-verbum:
//! budget 5 refuted first guess by first guess, most of its 15 s), and every refutation must
//! survive the kill, as every settled first guess of a total search does (issue 59, 2).

use std::time::Duration;

use hakase_tests::{read, wait_for, Proc, Scratch};

const LIMIT: Duration = Duration::from_secs(300);

/// The refuted first guesses the run's ranking file shows at budget 5, if it is at it.
fn refuted_at_five(db: &std::path::Path) -> usize {
    let text = read(&db.join("hakase-ranking.json"));
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(&text) else {
        return 0;
    };
    if doc["guesses_left"] != 5 {
        return 0;
    }
    doc["values"].as_array().map_or(0, Vec::len)
}

#[test]
fn a_worst_case_solve_killed_while_refuting_a_budget_resumes_there() {
    let dir = Scratch::new("worst-resume");
    let db = dir.join("db");
    let db_arg = db.to_string_lossy().to_string();
    let args = [
        "solve",
        "--game",
        "pokemon-verbum",
        "--objective",
        "worst",
        "--db",
        db_arg.as_str(),
    ];
    let mut first = Proc::start(&dir, "first", &args);
    // Killed inside budget 5's refutation: once 20 refuted first guesses are on disk, or
    // (where nothing is kept) once the progress line says the search is at budget 5.
    wait_for(
        LIMIT,
        "the search to refute first guesses at budget 5",
        || {
            let at_five = first.errors().contains("(≤ 5 guesses)");
            assert!(
                first.exited().is_none(),
                "the solve ended before it was killed:\n{}",
                first.errors()
            );
            (refuted_at_five(&db) >= 20 || at_five).then_some(())
        },
    );
    first.kill9();

    let mut second = Proc::start(&dir, "second", &args);
    assert!(second.wait(LIMIT).success(), "{}", second.errors());
    let errors = second.errors();
    let resumed: usize = errors
        .lines()
        .find_map(|l| l.strip_prefix("resumed ")?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no `resumed` line:\n{errors}"));
    assert!(resumed >= 1, "{errors}");
    // Budgets 3 and 4 refuted whole, 5 in part: a first guess counts once per budget.
    assert!(errors.contains(" (over 3 guess budgets) from "), "{errors}");
    let output = second.output();
    assert_eq!(
        output.lines().nth(1),
        Some("best first guess ランドロス: total 1875, mean 3.6408, worst 6 — proven optimal"),
        "{output}"
    );
}
