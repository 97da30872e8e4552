//! Every command × (text, `--json`, an error under `--json`): each JSON output must use only
//! the field names docs/json.md lists for that command, and carry every top-level one.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{check_fields, documented, hakase};
use serde_json::{json, Value};

/// Runs `args` with --json and checks the document against `command`'s documented fields.
fn check_json(docs: &BTreeMap<String, BTreeSet<String>>, command: &str, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = hakase(&all);
    assert!(
        out.status.success(),
        "{all:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let value: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    check_fields(docs, command, &value);
    value
}

/// Runs `args` with --json expecting failure: a JSON error of `kind`, exit status `code`.
fn check_error(docs: &BTreeMap<String, BTreeSet<String>>, args: &[&str], kind: &str, code: i32) {
    let mut all = args.to_vec();
    all.push("--json");
    let out = hakase(&all);
    assert_eq!(out.status.code(), Some(code), "{all:?}");
    let value: Value = serde_json::from_slice(&out.stdout).expect("a JSON error");
    check_fields(docs, "error", &value);
    assert_eq!(value["error"]["kind"], kind, "{all:?}: {value}");
    assert!(value["error"]["message"]
        .as_str()
        .is_some_and(|m| !m.is_empty()));
}

/// Runs `args` with `input` on standard input; returns standard output, which must be a
/// success.
pub(crate) fn with_input(args: &[&str], input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hakase"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hakase starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("input written");
    let out = child.wait_with_output().expect("hakase ends");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Each line of `text` as a JSON document: `command`'s, or an `error` one.
fn check_lines(docs: &BTreeMap<String, BTreeSet<String>>, command: &str, text: &str) -> Vec<Value> {
    text.lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line).expect("one JSON document per line");
            let kind = if value.get("error").is_some() {
                "error"
            } else {
                command
            };
            check_fields(docs, kind, &value);
            value
        })
        .collect()
}

/// A process killed when dropped, so a failed assertion leaves nothing running.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits up to a minute for `check` to give a value.
fn wait_for<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `args` as text: success and some output.
fn check_text(args: &[&str]) -> String {
    let out = hakase(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(!text.trim().is_empty(), "{args:?} printed nothing");
    text
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const G: &[&str] = &["--game", "pokemon-gen:1"];

fn with(base: &[&str], more: &[&str]) -> Vec<String> {
    base.iter().chain(more).map(|s| s.to_string()).collect()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn every_command_speaks_the_documented_json() {
    let docs = documented();
    let dir = TempDir(std::env::temp_dir().join(format!("hakase-json-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).expect("a temporary directory");
    let data = dir.0.join("data");
    let data = data.to_str().expect("UTF-8 path");
    let run = format!("{data}/g1");
    let tree = dir.0.join("tree.json");
    let tree = tree.to_str().expect("UTF-8 path");

    // games, feedback, candidates, rank, evaluate, chart: text, JSON, an error.
    check_text(&["games"]);
    let games = check_json(&docs, "games", &["games"]);
    assert_eq!(games["games"][0]["name"], "pokemon-qiita2023");
    check_error(&docs, &["games", "--bogus"], "usage", 2);

    assert_eq!(
        check_text(&["feedback", "キノココ", "チコリータ"]),
        "灰灰黄灰\n"
    );
    let fb = check_json(&docs, "feedback", &["feedback", "キノココ", "チコリータ"]);
    assert_eq!(fb["digits"], "0010");
    check_error(&docs, &["feedback", "xx", "チコリータ"], "input", 1);

    let cand = with(&["candidates", "-H", "レントラー=灰灰灰灰緑"], G);
    check_text(&strs(&cand));
    let c = check_json(&docs, "candidates", &strs(&cand));
    assert_eq!(
        c["count"].as_u64(),
        Some(c["candidates"].as_array().map_or(0, Vec::len) as u64)
    );
    check_error(&docs, &["candidates", "-H", "レントラー=灰灰"], "input", 1);

    let rank = with(&["rank", "--top", "3"], G);
    let text = check_text(&strs(&rank));
    assert!(text.starts_with("Best 3 of 931 guesses by entropy over 84 possible answers"));
    let r = check_json(&docs, "rank", &strs(&rank));
    assert_eq!(r["ranking"][0]["guess"], "ドータクン");
    check_error(&docs, &["rank", "--top", "x"], "usage", 2);

    let eval = ["evaluate", "--game", "wordle-answers-only", "--tries", "4"];
    let text = check_text(&eval);
    assert!(text.starts_with(
        "Strategy entropy, first guess raise, on wordle-answers-only (4 tries) (2315 answers)\n"
    ));
    let e = check_json(&docs, "evaluate", &eval);
    assert_eq!(e["distribution"], serde_json::json!([1, 34, 838, 1295]));
    assert_eq!(e["won"], 2168);
    assert_eq!(e["total"], 1 + 2 * 34 + 3 * 838 + 4 * 1295);
    assert_eq!(e["failures"].as_array().map(Vec::len), Some(147));
    check_error(&docs, &["evaluate", "--first", "zzzzz"], "input", 1);

    let chart = with(&["chart", "--first", "シンボラー"], G);
    check_text(&strs(&chart));
    let ch = check_json(&docs, "chart", &strs(&chart));
    assert_eq!(ch["label"], "heuristic");
    check_error(
        &docs,
        &["chart", "--run", "r", "--game", "wordle"],
        "usage",
        2,
    );

    // solve: in memory, then resumable into a run that the run commands read.
    let solve = with(
        &["solve", "--in-memory", "--top", "2", "--tree-out", tree],
        G,
    );
    let s = check_json(&docs, "solve", &strs(&solve));
    assert_eq!(
        (s["first_guess"].as_str(), s["total"].as_u64()),
        (Some("シンボラー"), Some(245))
    );
    assert_eq!(s["ranking"][0]["exact"], true);
    check_text(&strs(&with(&["solve", "--db", &run], G)));
    check_error(&docs, &["solve", "--top-k", "0"], "usage", 2);

    // verify the tree just written; the game is the one the file names.
    let text = check_text(&["verify", tree]);
    assert!(
        text.starts_with(
            "valid on pokemon-gen:1 (the game the file names): 84 answers solved, total 245"
        ),
        "{text}"
    );
    let v = check_json(&docs, "verify", &["verify", tree]);
    assert_eq!(v["game_from_file"], true);
    check_error(&docs, &["verify", "/nonexistent/tree.json"], "not_found", 1);

    // runs and a run's chart.
    let text = check_text(&["runs", "--data", data]);
    assert!(
        text.starts_with("NAME  GAME           STATE              FIRST       TOTAL  OPTIONS\n"),
        "{text}"
    );
    let runs = check_json(&docs, "runs", &["runs", "--data", data]);
    assert_eq!(runs["runs"][0]["options"]["objective"], "total");
    let text = check_text(&["chart", "--run", "g1", "--data", data]);
    assert!(
        text.contains("total 245 (mean 2.91667), worst 4, proven optimal"),
        "{text}"
    );
    let rc = check_json(&docs, "chart", &["chart", "--run", "g1", "--data", data]);
    assert_eq!(rc["label"], "proven-optimal");
    let other = check_json(
        &docs,
        "chart",
        &[
            "chart",
            "--run",
            "g1",
            "--data",
            data,
            "--first",
            "レントラー",
        ],
    );
    assert_eq!(other["label"], "exact");
    check_error(&docs, &["runs", "--data", data, "--top"], "usage", 2);
    let missing = format!("{data}/missing");
    check_error(&docs, &["runs", "--data", &missing], "not_found", 1);

    // compare against the run: its rows list answers as `evaluate` does, and a row without
    // a universe has null, not a dash.
    let cmp = with(&["compare"], G);
    check_text(&strs(&cmp));
    let c = check_json(&docs, "compare", &strs(&cmp));
    for row in c["rows"].as_array().expect("rows") {
        assert!(
            row["failures"].is_array() && row["unsolved"].is_array(),
            "{row}"
        );
        assert!(
            row["universe"].is_null() || row["universe"] == "answers",
            "{row}"
        );
    }
    assert!(e["failures"].is_array() && e["unsolved"].is_array());
    check_error(&docs, &["compare", "--no-such-flag"], "usage", 2);

    // A game no strategy wins: the solve document still, with exit status 3.
    let no_win = with(&["solve", "--in-memory", "--tries", "1", "--json"], G);
    let out = hakase(&strs(&no_win));
    assert_eq!(out.status.code(), Some(3));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    check_fields(&docs, "solve", &doc);
    assert_eq!(doc["possible"], false);

    // status: no coordinator listening is an error, as JSON.
    check_error(
        &docs,
        &[
            "status",
            "--connect",
            "http://127.0.0.1:9",
            "--token",
            "0123456789abcdef0123",
        ],
        "failed",
        1,
    );
}

/// The commands that write files or keep talking: query, play, export, plot, display.
#[test]
fn run_commands_speak_the_documented_json() {
    let docs = documented();
    let dir = TempDir(std::env::temp_dir().join(format!("hakase-json-run-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).expect("a temporary directory");
    let path = |name: &str| dir.0.join(name).to_str().expect("UTF-8 path").to_string();
    let data = path("data");
    check_text(&strs(&with(&["solve", "--db", &format!("{data}/g1")], G)));
    let run: &[&str] = &["--run", "g1", "--data", &data];

    // ranking: the first guesses of the run, the best one exact.
    let ranking = check_json(
        &docs,
        "ranking",
        &["ranking", "--run", "g1", "--data", &data],
    );
    assert_eq!(
        (ranking["scope"].as_str(), ranking["finished"].as_bool()),
        (Some("best"), Some(true))
    );
    assert_eq!(
        (
            ranking["rows"][0]["rank"].as_u64(),
            ranking["rows"][0]["exact"].as_bool()
        ),
        (Some(1), Some(true))
    );
    check_error(
        &docs,
        &["ranking", "--run", "nosuch", "--data", &data],
        "not_found",
        1,
    );
    // query --opener: the same document, with the rows asked about.
    let best = ranking["rows"][0]["guess"].as_str().expect("a guess");
    let opener = check_json(
        &docs,
        "ranking",
        &["query", "--run", "g1", "--data", &data, "--opener", best],
    );
    assert_eq!(opener["rows"], json!([ranking["rows"][0].clone()]));

    // query: the next guess.
    let q = with(&["query"], run);
    assert!(check_text(&strs(&q)).starts_with("84 answers left before any guess\n"));
    let next = check_json(&docs, "query", &strs(&q));
    assert_eq!(
        (
            next["guess"].as_str(),
            next["count"].as_u64(),
            next["total"].as_u64()
        ),
        (Some("シンボラー"), Some(84), Some(245))
    );
    check_error(
        &docs,
        &["query", "--run", "nosuch", "--data", &data],
        "not_found",
        1,
    );

    // review: a game judged against the run, as text and JSON; a grid of the wrong size.
    let r = with(
        &[
            "review",
            "レアコイル",
            "ピカチュウ",
            "--answer",
            "ピカチュウ",
        ],
        run,
    );
    let text = check_text(&strs(&r));
    assert!(
        text.starts_with("Review of a game of pokemon-gen:1 (against g1, normal mode)"),
        "{text}"
    );
    let review = check_json(&docs, "review", &strs(&r));
    assert_eq!(
        (
            review["moves"][0]["optimal"]["total"].as_u64(),
            review["moves"][0]["optimal"]["guesses"][0].as_str(),
            review["moves"][0]["count"].as_u64(),
            review["summary"]["guesses"].as_u64(),
            review["won"].as_bool()
        ),
        (Some(245), Some("シンボラー"), Some(84), Some(2), Some(true))
    );
    check_error(
        &docs,
        &strs(&with(
            &["review", "レアコイル", "ピカチュウ", "--grid", "⬛⬛⬛⬛⬛"],
            run,
        )),
        "input",
        1,
    );

    // play: text, then one JSON line per turn, a bad line answered with an error line.
    let p = with(&["play"], run);
    let text = with_input(&strs(&p), "q\n");
    assert!(
        text.starts_with("hakase play: pokemon-gen:1 (84 answers, 10 tries)"),
        "{text}"
    );
    let mut pj = p.clone();
    pj.push("--json".into());
    let lines = check_lines(&docs, "play", &with_input(&strs(&pj), "xyz\n00000\nq\n"));
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0]["count"], 84);
    assert_eq!(lines[1]["error"]["kind"], "input");
    assert_eq!(
        (lines[2]["steps"].as_u64(), lines[2]["won"].as_bool()),
        (Some(1), Some(false))
    );
    check_error(
        &docs,
        &["play", "--run", "nosuch", "--data", &data],
        "not_found",
        1,
    );

    // export: the tree to standard output, or a summary of the file written.
    let tree = path("tree.json");
    assert!(check_text(&strs(&with(&["export"], run))).contains("\"game\""));
    let e = check_json(
        &docs,
        "export",
        &strs(&with(&["export", "--out", &tree], run)),
    );
    assert_eq!(
        (
            e["total"].as_u64(),
            e["format"].as_str(),
            e["path"].as_str()
        ),
        (Some(245), Some("json"), Some(tree.as_str()))
    );
    assert!(std::fs::read_to_string(&tree)
        .expect("the tree file")
        .contains("シンボラー"));
    check_error(&docs, &strs(&with(&["export"], run)), "usage", 2);

    // plot: both files, the numbers of each bar.
    let (png, svg) = (path("plot.png"), path("plot.svg"));
    let plot = with(&["plot", "--png", &png, "--svg", &svg], run);
    assert!(
        check_text(&strs(&plot)).contains("optimum (シンボラー): total 245, mean 2.9167, worst 4")
    );
    let pl = check_json(&docs, "plot", &strs(&plot));
    assert_eq!(pl["bars"][0]["total"], 245);
    assert_eq!(pl["files"], serde_json::json!([&png, &svg]));
    assert_eq!(&std::fs::read(&png).expect("the PNG")[..4], b"\x89PNG");
    check_error(&docs, &strs(&with(&["plot"], run)), "usage", 2);

    // display: PNG pages and a C header.
    let pages = path("pages");
    let header = path("pages.h");
    let display = with(&["display", "--png", &pages, "--c-header", &header], run);
    assert!(check_text(&strs(&display)).contains("シンボラー on pokemon-gen:1: "));
    let d = check_json(&docs, "display", &strs(&display));
    let pages_n = d["pages"].as_u64().expect("pages");
    assert_eq!(d["label"], "proven-optimal");
    assert_eq!(
        d["files"].as_array().map(Vec::len),
        Some(2 * pages_n as usize + 1)
    );
    check_error(&docs, &strs(&with(&["display"], run)), "failed", 1);
}

/// The commands that keep running: serve announces where it listens; a worker reports when
/// the run is over.
#[test]
fn servers_and_workers_speak_the_documented_json() {
    let docs = documented();
    let dir = TempDir(std::env::temp_dir().join(format!("hakase-json-srv-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).expect("a temporary directory");
    let path = |name: &str| dir.0.join(name).to_str().expect("UTF-8 path").to_string();
    let data = path("data");
    check_text(&strs(&with(&["solve", "--db", &format!("{data}/g1")], G)));

    let mut serve = Running(
        Command::new(env!("CARGO_BIN_EXE_hakase"))
            .args([
                "serve",
                "--data",
                &data,
                "--listen",
                "127.0.0.1:0",
                "--http",
                "127.0.0.1:0",
                "--json",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("serve starts"),
    );
    let mut line = String::new();
    BufReader::new(serve.0.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("a line");
    let listening = check_lines(&docs, "serve", &line).remove(0);
    assert_eq!(listening["runs"], serde_json::json!(["g1"]));
    assert!(listening["grpc"]
        .as_str()
        .is_some_and(|a| a.starts_with("127.0.0.1:")));
    assert!(listening["http"]
        .as_str()
        .is_some_and(|a| a.starts_with("http://127.0.0.1:")));
    drop(serve);
    check_error(
        &docs,
        &["serve", "--data", &data, "--listen", "nowhere"],
        "io",
        1,
    );

    // A coordinator with two workers: one prints text, the other JSON. Without --db it keeps
    // the run where `solve` would: hakase-data/pokemon-gen-1 under its directory.
    const TOKEN: &str = "0123456789abcdef0123";
    let err = path("coordinator.err");
    let mut coordinator = Running(
        Command::new(env!("CARGO_BIN_EXE_hakase"))
            .args([
                "coordinator",
                "--listen",
                "127.0.0.1:0",
                "--linger-secs",
                "1",
            ])
            .args(G)
            .current_dir(&dir.0)
            .env("HAKASE_TOKEN", TOKEN)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&err).expect("stderr file"))
            .spawn()
            .expect("coordinator starts"),
    );
    let url = wait_for("the coordinator to listen", || {
        std::fs::read_to_string(&err).ok().and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("hakase coordinator listening on "))
                .map(|addr| format!("http://{}", addr.trim()))
        })
    });
    let worker = |json: bool| {
        let mut args = vec!["worker", "--connect", &url, "--threads", "1", "--no-cache"];
        if json {
            args.push("--json");
        }
        Command::new(env!("CARGO_BIN_EXE_hakase"))
            .args(args)
            .env("HAKASE_TOKEN", TOKEN)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("worker starts")
    };
    // status, while the run waits for its workers: text, then the documented JSON.
    let status: &[&str] = &["status", "--connect", &url, "--token", TOKEN];
    let text = check_text(status);
    assert!(text.starts_with("pokemon-gen:1 ("), "{text}");
    assert!(text.contains("\nfirst guesses "), "{text}");
    assert!(text.contains("; 0 workers; "), "{text}");
    let st = check_json(&docs, "status", status);
    assert_eq!(
        (
            st["game"].as_str(),
            st["options"]["objective"].as_str(),
            st["workers"].as_u64()
        ),
        (Some("pokemon-gen:1"), Some("total"), Some(0))
    );
    // The options travel as a SolverOptions message and print as the object they always did.
    assert_eq!(
        st["options"],
        serde_json::json!({"objective": "total", "max_guesses": null, "mode": "normal", "top_k": null})
    );
    check_error(
        &docs,
        &[
            "status",
            "--connect",
            &url,
            "--token",
            "wrong-token-0123456789",
        ],
        "failed",
        1,
    );

    let (text, json) = (worker(false), worker(true));
    let text = text.wait_with_output().expect("worker ends");
    let json = json.wait_with_output().expect("worker ends");
    assert!(text.status.success() && json.status.success());
    let text = String::from_utf8(text.stdout).expect("UTF-8");
    assert!(text.starts_with("worker stopped: "), "{text}");
    assert!(text.contains(", run finished; "), "{text}");
    let report: Value = serde_json::from_slice(&json.stdout).expect("one JSON document");
    check_fields(&docs, "worker", &report);
    assert_eq!(report["run_finished"], true);
    assert!(coordinator.0.wait().expect("coordinator ends").success());
    let runs = check_json(&docs, "runs", &["runs", "--data", &path("hakase-data")]);
    assert_eq!(
        (
            runs["runs"][0]["name"].as_str(),
            runs["runs"][0]["state"].as_str()
        ),
        (Some("pokemon-gen-1"), Some("proven if claims hold"))
    );
    // Under the default audit most claims are taken unchecked: the run says it rests on them.
    assert!(
        runs["runs"][0]["unchecked_claims"].as_u64() > Some(0),
        "{runs}"
    );
    assert_eq!(runs["runs"][0]["label"], "proven-if-claims-hold");
    // A game the worker cannot load is refused before it connects.
    check_error(
        &docs,
        &["worker", "--game", "nosuch", "--token", TOKEN, "--no-cache"],
        "input",
        1,
    );
}

/// `puzzle`: one puzzle of each kind and a batch, in the documented names.
#[test]
fn puzzles_speak_the_documented_json() {
    let docs = documented();
    let dir = TempDir(std::env::temp_dir().join(format!("hakase-json-pz-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).expect("a temporary directory");
    let one = |kind: &str, level: &str| -> Vec<String> {
        with(
            &["puzzle", "--kind", kind, "--level", level, "--seed", "4"],
            &["--game", "pokemon-qiita2023"],
        )
    };
    let deduction = one("deduction", "hard");
    check_text(&strs(&deduction));
    let d = check_json(&docs, "puzzle", &strs(&deduction));
    let counts = d["grade"]["deduction"]["counts"]
        .as_array()
        .expect("counts");
    assert_eq!(counts.last().and_then(Value::as_u64), Some(1));
    assert_eq!(counts.len(), d["rows"].as_array().map_or(0, Vec::len));
    let best = check_json(&docs, "puzzle", &strs(&one("best-move", "easy")));
    let grade = &best["grade"]["best_move"];
    assert!(grade["total"].as_u64().is_some_and(|t| t > 0), "{best}");
    assert!(grade["candidates"].as_array().is_some_and(|c| c.len() > 1));
    check_error(&docs, &["puzzle", "--level", "nope"], "usage", 2);

    let out = dir.0.join("batch");
    let out = out.to_str().expect("UTF-8 path");
    let batch = [
        "puzzle",
        "--game",
        "pokemon-qiita2023",
        "--count",
        "2",
        "--levels",
        "easy:1",
        "--seed",
        "8",
        "--out",
        out,
    ];
    let b = check_json(&docs, "puzzle --count", &batch);
    assert_eq!(
        (b["made"].as_u64(), b["checked"].is_null()),
        (Some(2), true)
    );
    // Every line of the batch file is a documented puzzle document.
    let lines =
        std::fs::read_to_string(dir.0.join("batch").join("puzzles.jsonl")).expect("puzzles.jsonl");
    assert_eq!(check_lines(&docs, "puzzle", &lines).len(), 2);
}

/// The messages of query.proto, as (message, its field names), read from the file.
fn proto_messages() -> BTreeMap<String, BTreeSet<String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto/proto/hakase/v1/query.proto");
    let text = std::fs::read_to_string(path).expect("query.proto");
    let mut messages = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("message ") {
            let name = rest.trim_end_matches(['{', ' ']).to_string();
            messages.insert(name.clone(), BTreeSet::new());
            current = Some(name);
        } else if line.starts_with('}') {
            current = None;
        } else if let (Some(name), Some((decl, _))) = (&current, line.split_once(" = ")) {
            if !line.starts_with("//") {
                let field = decl.split_whitespace().last().expect("a field name");
                messages
                    .get_mut(name)
                    .expect("open message")
                    .insert(field.to_string());
            }
        }
    }
    messages
}

/// Every field of the query service's messages is documented under `grpc MESSAGE`, and
/// every documented one exists: the gRPC names are the JSON names.
#[test]
fn grpc_messages_use_the_documented_names() {
    let docs = documented();
    let messages = proto_messages();
    assert!(messages.len() >= 10, "{messages:?}");
    for (name, fields) in &messages {
        let listed = docs
            .get(&format!("grpc {name}"))
            .cloned()
            .unwrap_or_default();
        assert_eq!(fields, &listed, "gRPC {name} against docs/json.md");
    }
    for key in docs.keys().filter(|k| k.starts_with("grpc ")) {
        assert!(
            messages.contains_key(&key["grpc ".len()..]),
            "{key} is not in query.proto"
        );
    }
}

/// The names docs/json.md retired are nowhere in a documented document, and every field name
/// is snake_case.
#[test]
fn every_documented_name_is_on_the_scheme() {
    const RETIRED: [&str; 10] = [
        "first",
        "best_guess",
        "best_first_guess",
        "candidate_count",
        "expected",
        "best_total",
        "best_worst",
        "left_after_rows",
        "next",
        "code",
    ];
    for (document, paths) in documented() {
        for path in paths {
            for name in path.split('.').map(|n| n.trim_end_matches("[]")) {
                assert!(!RETIRED.contains(&name), "{document}: {path}");
                assert!(
                    !name.is_empty()
                        && name
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                    "{document}: {path} is not snake_case"
                );
            }
        }
    }
}
