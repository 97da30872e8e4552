//! What a newcomer tripped on (issue 59), each checked as the user met it: the built binary
//! run from a scratch directory (its exact output), or the HTTP API served in-process.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::SolverConfig;
use hakase_engine::audit::AuditPolicy;
use hakase_engine::engine::{Engine, EngineParams};
use hakase_query::Sources;
use hakase_worker::{solve_job, Workbench};
use serde_json::Value;

use crate::common::{fails, hakase, json_of, ok, scratch, solve_run};
use crate::json_contract::with_input;
use crate::query_http::{call, start};

/// A finished run of pokemon-gen:1 by the engine, every claim taken on the worker's word
/// (trusted, nothing sampled): the result rests on unchecked claims. Returns how many.
fn run_resting_on_claims(db: &Path) -> usize {
    let params = EngineParams {
        audit: Some(AuditPolicy::with_fraction(0.0).trusting()),
        ..EngineParams::default()
    };
    let game = load_preset("pokemon-gen:1").expect("preset");
    let engine = Engine::new(game, SolverConfig::default(), db, params).expect("engine");
    let bench = Workbench::new(
        engine.game().clone(),
        SolverConfig::default(),
        None,
        1 << 20,
    );
    let worker = engine.register(2, None).expect("register");
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| engine.drive(&stop));
        while engine.wait(Duration::ZERO).expect("no failure").is_none() {
            let jobs = engine
                .lease(worker, 4)
                .expect("a lease")
                .unwrap_or_default();
            if jobs.is_empty() {
                std::thread::sleep(Duration::from_millis(1));
            }
            for job in jobs {
                let answer = solve_job(bench.solver(), &job.spec, job.beta);
                let _ = engine.complete(worker, job.id, answer, false);
            }
        }
        stop.store(true, Ordering::Relaxed);
        engine.poke();
    });
    engine.snapshot().audit.unchecked_guesses.len()
}

/// Issue 59, 1: after a cluster run resting on unchecked worker claims, no view calls it
/// plainly proven: `runs` (text and JSON), `chart`, `query`, `ranking`, an exported tree (and
/// that tree served), and the web API the page reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_resting_on_unchecked_claims_is_never_called_plainly_proven() {
    let dir = scratch("newcomer-claims");
    let db = dir.join("data").join("gen1");
    let n = run_resting_on_claims(&db);
    assert!(n > 1, "the trusted run rests on unchecked claims: {n}");
    let claim = format!("proven optimal if {n} unchecked worker claims hold");
    let data = dir.join("data");
    let data = data.to_str().expect("UTF-8");
    let run = db.to_str().expect("UTF-8");

    let runs = ok(&["runs", "--data", data]);
    assert!(
        runs.lines()
            .nth(1)
            .is_some_and(|l| l.contains(&format!("finished ({claim})"))),
        "{runs}"
    );
    assert!(!runs.contains("finished (proven)"), "{runs}");
    let listed = json_of(&["runs", "--data", data, "--json"]);
    let row = &listed["runs"][0];
    assert_eq!(row["label"], "proven-if-claims-hold", "{row}");
    assert_eq!(row["claim"], claim.as_str(), "{row}");
    assert_eq!(row["state"], "proven if claims hold", "{row}");
    assert_eq!(row["proven"], false, "{row}");
    assert_eq!(row["unchecked_claims"].as_u64(), Some(n as u64), "{row}");

    let chart = ok(&["chart", "--run", run]);
    let head = chart.lines().next().unwrap_or_default();
    assert!(head.ends_with(&format!(", {claim}")), "{chart}");
    let query = ok(&["query", "--run", run]);
    assert!(
        query.contains(&format!("(from the run's tree: {claim})")),
        "{query}"
    );
    let ranking = ok(&["ranking", "--run", run, "--top", "3"]);
    let head = ranking.lines().next().unwrap_or_default();
    assert!(
        head.ends_with(&format!(", if {n} unchecked worker claims hold, marked *")),
        "{ranking}"
    );

    // The tree file says what the run does, and reading it back keeps the condition.
    let tree = dir.join("tree.json");
    let exported = crate::common::hakase_ok([
        OsStr::new("export"),
        OsStr::new("--format"),
        OsStr::new("json"),
        OsStr::new("--run"),
        db.as_os_str(),
    ]);
    std::fs::write(&tree, &exported).expect("the tree file");
    let doc: Value = serde_json::from_slice(&exported).expect("JSON");
    assert_eq!(doc["about"]["claim"], claim.as_str(), "{}", doc["about"]);
    assert_eq!(doc["about"]["label"], "proven-if-claims-hold");
    assert_eq!(
        doc["about"]["unchecked_claims"].as_array().map(Vec::len),
        Some(n)
    );
    let query = ok(&["query", "--tree", tree.to_str().expect("UTF-8")]);
    assert!(
        query.contains(&format!("(from the run's tree: {claim})")),
        "{query}"
    );

    // The page reads the label and the count from the API; the first chart says it too.
    let served = start(Sources {
        data_dirs: vec![dir.join("data")],
        ..Sources::default()
    })
    .await;
    let addr = served.addr.as_str();
    let runs = get_json(addr, "/api/v1/runs").await;
    let row = &runs["runs"][0];
    assert_eq!(row["label"], "proven-if-claims-hold", "{row}");
    assert_eq!(row["unchecked_claims"].as_u64(), Some(n as u64), "{row}");
    assert_eq!(row["claim"], claim.as_str(), "{row}");
    let ranking = get_json(addr, "/api/v1/ranking?run=gen1").await;
    assert_eq!(ranking["unchecked_claims"].as_u64(), Some(n as u64));
    let marked = ranking["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["unchecked"] == true)
        .count();
    assert_eq!(marked, n, "the rows marked unchecked");
}

/// `GET path` of the server at `addr`, which must answer 200, as JSON.
async fn get_json(addr: &str, path: &str) -> Value {
    let (status, body) = call(addr, "GET", path, "").await;
    assert_eq!(status, 200, "{path}: {body}");
    body
}

/// Issue 59, 3: English lists without `--game` play by Wordle's rules (6 tries, B/Y/G), and
/// the game is named after wordle, not pokemon-today.
#[test]
fn english_lists_without_a_game_play_by_wordles_rules() {
    let dir = scratch("newcomer-english");
    std::fs::write(dir.join("en.txt"), "crane\nslate\nplace\nshale\ntrace\n").expect("list");
    let out = Command::new(env!("CARGO_BIN_EXE_hakase"))
        .current_dir(&dir)
        .args([
            "solve",
            "--in-memory",
            "--answers",
            "en.txt",
            "--guesses",
            "en.txt",
        ])
        .output()
        .expect("hakase runs");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().next(),
        Some(
            "wordle (answers from en.txt, guesses from en.txt): 5 answers, 5 allowed guesses; \
             objective: fewest guesses in total, normal mode"
        ),
        "{text}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("(≤ 6 guesses)"),
        "{out:?}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_hakase"))
        .current_dir(&dir)
        .args([
            "candidates",
            "--answers",
            "en.txt",
            "--guesses",
            "en.txt",
            "-H",
            "crane=BBBBB",
        ])
        .output()
        .expect("hakase runs");
    // B/Y/G, as Wordle writes colours: the pattern is echoed so.
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: no possible answer fits the history: step 1 (crane BBBBB): the game never \
         shows this pattern for this guess\n"
    );
}

/// Issue 59, 4: `hakase puzzle --help` (and `hakase --help`) say what `puzzle` does, not
/// the doc of the batch server's options.
#[test]
fn puzzle_help_says_what_puzzle_does() {
    let help = ok(&["puzzle", "--help"]);
    assert!(
        help.starts_with("Generate puzzles: deduction puzzles (name the one answer that fits"),
        "{help}"
    );
    let all = ok(&["--help"]);
    let line = all
        .lines()
        .find(|l| l.trim_start().starts_with("puzzle "))
        .expect("a puzzle line");
    assert!(line.contains("Generate puzzles"), "{line}");
}

/// Issue 59, 6: a word error names the game, and the game the word belongs to with the flag
/// that chooses it.
#[test]
fn a_word_error_names_the_game_and_where_the_word_belongs() {
    assert_eq!(
        fails(&["feedback", "salet", "crane"]),
        "error: reading the guess: \"salet\" is not an allowed guess in pokemon-today; it is \
         a word of wordle (--game wordle)\n"
    );
    assert_eq!(
        fails(&["candidates", "--game", "wordle", "-H", "レントラー=BBBBB"]),
        "error: reading --history step 1 (\"レントラー=BBBBB\"): \"レントラー\" is not an \
         allowed guess in wordle; it is a word of pokemon-today (--game pokemon-today)\n"
    );
}

/// Issue 59, 7: `solve --db FILE` names the mistake, not a damaged run to move away.
#[test]
fn a_db_that_is_a_file_is_called_a_file() {
    let dir = scratch("newcomer-db-file");
    let file = dir.join("plain");
    std::fs::write(&file, "hi\n").expect("a file");
    let path = file.to_str().expect("UTF-8");
    assert_eq!(
        fails(&["solve", "--game", "pokemon-gen:1", "--db", path]),
        format!(
            "error: solving with the run database {path}: {path} is a file, not a run \
             database: --db takes a directory (made when missing); give another path, or move \
             the file away\n"
        )
    );
    assert_eq!(std::fs::read_to_string(&file).expect("kept"), "hi\n");
}

/// Issue 59, 8: a file that is no tree is called so, before any game is asked for; a JSON
/// document that does not parse says why.
#[test]
fn a_file_that_is_no_tree_is_called_so() {
    let dir = scratch("newcomer-not-a-tree");
    let text = dir.join("notes.txt");
    std::fs::write(&text, "not json at all\n").expect("a file");
    let json = dir.join("broken.json");
    std::fs::write(&json, "{ \"game\": ").expect("a file");
    let (text, json) = (text.to_str().expect("UTF-8"), json.to_str().expect("UTF-8"));
    assert_eq!(
        fails(&["query", "--tree", text]),
        format!(
            "error: loading tree file {text}: tree file {text} is neither a JSON tree \
             document nor a text tree (lines such as \"salet BBYBB1 crane GGGGG2\", as `hakase \
             export --format text` writes)\n"
        )
    );
    let err = fails(&["query", "--tree", json]);
    assert!(
        err.starts_with(&format!(
            "error: loading tree file {json}: tree file {json} is not a valid JSON tree \
             document: "
        )),
        "{err}"
    );
}

/// A finished run of pokemon-qiita2023 under `dir`, made once per test.
fn qiita(dir: &Path) -> PathBuf {
    let run = dir.join("qiita");
    solve_run("pokemon-qiita2023", &run);
    run
}

/// The path of `p` as text.
fn text(p: &Path) -> &str {
    p.to_str().expect("UTF-8")
}

/// Issue 59, 10: counted nouns agree with their count, wherever a count can be 1.
#[test]
fn one_of_anything_is_singular() {
    let dir = scratch("newcomer-plurals");
    let run = qiita(&dir);
    let steps = [
        "-H",
        "ジーランス=灰灰灰灰灰",
        "-H",
        "ソルロック=灰灰灰灰灰",
        "-H",
        "イシツブテ=灰灰灰灰灰",
        "-H",
        "ミニリュウ=灰灰灰灰灰",
    ];
    let query = ok(&[&["query", "--run", text(&run)][..], &steps].concat());
    assert_eq!(
        query.lines().next(),
        Some(
            "1 answer left after ジーランス=灰灰灰灰灰 ソルロック=灰灰灰灰灰 イシツブテ=灰灰灰灰灰 \
             ミニリュウ=灰灰灰灰灰"
        ),
        "{query}"
    );
    let review = ok(&[
        "review",
        "--run",
        text(&run),
        "-H",
        "ジーランス=灰灰灰灰灰",
        "--answer",
        "ユキメノコ",
    ]);
    let lines: Vec<&str> = review.lines().collect();
    assert_eq!(
        lines[1], "answer ユキメノコ, not found in 1 guess",
        "{review}"
    );
    let tried = ok(&["evaluate", "--game", "pokemon-gen:1", "--tries", "1"]);
    assert!(
        tried
            .lines()
            .next()
            .is_some_and(|l| l.ends_with(", on pokemon-gen:1 (1 try) (84 answers)")),
        "{tried}"
    );
}

/// Issue 59, 13: the review of a game not won compares no count of the player's: they never
/// found the answer. (A loss that rounds to zero reads 0.00000, not -0.00000.)
#[test]
fn the_review_of_a_game_not_won_says_the_answer_was_not_found() {
    let dir = scratch("newcomer-review");
    let run = qiita(&dir);
    let review = ok(&[
        "review",
        "--run",
        text(&run),
        "-H",
        "ジーランス=灰灰灰灰灰",
        "--answer",
        "ユキメノコ",
    ]);
    assert!(
        review.contains(
            "it finds ユキメノコ in 5 (you had not found it after 1 guess); your moves after it \
             lost 0.00000"
        ),
        "{review}"
    );
}

/// Issue 59, 12: after a win, `play` says what can follow, and refuses a step in those words
/// instead of asking for WORD=COLOURS and then refusing that.
#[test]
fn play_after_a_win_says_what_can_follow() {
    let dir = scratch("newcomer-play");
    let run = qiita(&dir);
    let session = with_input(
        &["play", "--run", text(&run)],
        "緑緑緑緑緑\n灰灰灰灰灰\nソルロック=灰灰灰灰灰\nq\n",
    );
    let refusal = "? the game is won: r to play again, u to undo the last step, q to quit";
    assert_eq!(session.matches(refusal).count(), 2, "{session}");
    assert!(!session.contains("type WORD=COLOURS"), "{session}");
    assert!(!session.contains("already won"), "{session}");
    assert!(
        session.starts_with("hakase play: pokemon-qiita2023 (285 answers, 10 tries)."),
        "{session}"
    );
}

/// Issue 59, 9: every error of the web port is JSON, axum's path rejection and a method the
/// route does not take included; the icon is served, not a 404.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_http_error_is_json_and_the_icon_is_served() {
    let served = start(Sources::default()).await;
    let addr = served.addr.as_str();
    for (method, path, status, kind) in [
        ("GET", "/api/v1/puzzles/wordle/abc", 404, "not_found"),
        ("GET", "/api/v1/puzzles/wordle/0", 404, "not_found"),
        ("GET", "/api/v1/next", 405, "unimplemented"),
        ("GET", "/api/v1/tree?run=x&bogus=1", 400, "invalid_argument"),
        ("GET", "/nothing-here", 404, "not_found"),
    ] {
        let (got, doc) = call(addr, method, path, "").await;
        assert_eq!(got, status, "{method} {path}: {doc}");
        assert_eq!(doc["error"]["kind"], kind, "{method} {path}: {doc}");
        assert!(
            doc["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{doc}"
        );
    }
    let (_, doc) = call(addr, "GET", "/api/v1/puzzles/wordle/abc", "").await;
    assert_eq!(
        doc["error"]["message"],
        "batch wordle has days 1 to 90, not abc"
    );
    let (_, doc) = call(addr, "GET", "/api/v1/next", "").await;
    assert_eq!(
        doc["error"]["message"],
        "/api/v1/next does not answer GET (the `allow` header lists what it answers)"
    );
    let (status, icon) = call(addr, "GET", "/favicon.ico", "").await;
    assert_eq!(status, 200);
    assert!(
        icon.as_str().is_some_and(|i| i.starts_with("<svg")),
        "{icon}"
    );
}

/// The runs API lists a run made by `solve` with its plain claim (the contrast of the test
/// above: a proof on nobody's word is called proven).
#[test]
fn a_run_of_this_machine_is_plainly_proven() {
    let dir = scratch("newcomer-plain");
    let _ = qiita(&dir);
    let runs = ok(&["runs", "--data", text(&dir)]);
    assert!(runs.contains("finished (proven)"), "{runs}");
    let out = hakase(&["runs", "--data", text(&dir), "--json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["runs"][0]["label"], "proven-optimal");
    assert_eq!(doc["runs"][0]["unchecked_claims"].as_u64(), Some(0));
}
