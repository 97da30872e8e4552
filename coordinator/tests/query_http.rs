//! The JSON-over-HTTP API of `hakase serve`, served in-process on a free loopback port over a
//! run the real `hakase solve` wrote and a tree file made from it: answers, errors, limits,
//! slow clients and rescans.

use crate::common;

use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use hakase_query::web::router;
use hakase_query::{QueryService, RescannedCatalog, ServiceLimits, Sources, TreeSource};
use hakase_runs::load_path;
use hakase_serving::http::{serve_http, WebLimits};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::Request;
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

/// A scratch directory holding a finished run of pokemon-qiita2023 (`data/qiita`) and its
/// tree as a JSON file (`tree.json`), made once per test binary.
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = common::scratch("query-http");
        let run = dir.join("data").join("qiita");
        common::solve_run("pokemon-qiita2023", &run);
        let tree = common::hakase_ok([
            OsStr::new("export"),
            OsStr::new("--format"),
            OsStr::new("json"),
            OsStr::new("--run"),
            run.as_os_str(),
        ]);
        std::fs::write(dir.join("tree.json"), tree).expect("writing the tree");
        dir
    })
}

/// Short limits, so the slow-client test sees its 408 soon; the request timeout still leaves
/// room for a subtree solved on the spot on a loaded machine (300 ms did not: 408s at load 10).
const TEST_LIMITS: WebLimits = WebLimits {
    body_bytes: 16 * 1024,
    request_timeout: Duration::from_secs(2),
    header_timeout: Duration::from_millis(300),
    max_connections: 64,
    connections_per_address: 64,
};

pub(crate) struct Served {
    pub(crate) addr: String,
    catalog: Arc<RescannedCatalog>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

pub(crate) async fn start(sources: Sources) -> Served {
    let (catalog, _) = RescannedCatalog::scan(sources);
    let catalog = Arc::new(catalog);
    // The answers are what is checked, not the budget a loaded machine might exceed.
    let limits = ServiceLimits {
        solve_time: Duration::from_secs(600),
        ..ServiceLimits::default()
    };
    let service = QueryService::new(catalog.clone(), limits);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_http(
        router(service, TEST_LIMITS),
        listener,
        TEST_LIMITS,
        async move {
            let _ = stopped.await;
        },
    ));
    Served {
        addr,
        catalog,
        _stop: stop,
    }
}

async fn start_default() -> Served {
    start(Sources {
        data_dirs: vec![scratch().join("data")],
        runs: Vec::new(),
        trees: vec![TreeSource {
            path: scratch().join("tree.json"),
            game: None,
        }],
    })
    .await
}

async fn connect(addr: &str) -> SendRequest<Full<Bytes>> {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(connection);
    sender
}

/// Sends a request; returns the status and the body as JSON (or as a JSON string).
pub(crate) async fn call(
    addr: &str,
    method: &str,
    path: &str,
    body: impl Into<Bytes>,
) -> (u16, Value) {
    let mut sender = connect(addr).await;
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header("host", addr)
        .header("content-type", "application/json")
        .body(Full::new(body.into()))
        .expect("request");
    let response = sender.send_request(request).await.expect("response");
    let status = response.status().as_u16();
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    (status, value)
}

async fn post(addr: &str, path: &str, body: Value) -> (u16, Value) {
    call(addr, "POST", path, body.to_string()).await
}

fn history(steps: &[(&str, &str)]) -> Value {
    Value::Array(
        steps
            .iter()
            .map(|(g, p)| json!({"guess": g, "pattern": p}))
            .collect(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn next_candidates_chart_and_tree_answer_from_the_run() {
    let served = start_default().await;
    let a = &served.addr;
    let (status, runs) = call(a, "GET", "/api/v1/runs", "").await;
    assert_eq!(status, 200);
    let runs = &runs["runs"];
    let names: Vec<(&str, &str)> = runs
        .as_array()
        .expect("a list")
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(names, [("qiita", "run"), ("tree", "tree")]);
    let docs = common::documented();
    common::check_fields(&docs, "GET /runs", &json!({"runs": runs}));
    // The claim is the server's: its kind for a page to word, and its words.
    assert_eq!(
        (runs[0]["label"].as_str(), runs[0]["claim"].as_str()),
        (Some("proven-optimal"), Some("proven optimal"))
    );
    assert_eq!(runs[0]["options"]["objective"], "total");
    assert_eq!(runs[0]["total"], 964);
    assert_eq!(runs[0]["kana"], true);
    assert_eq!(runs[1]["total"], 964);

    for run in ["qiita", "tree"] {
        let (status, next) = post(a, "/api/v1/next", json!({"run": run})).await;
        assert_eq!(status, 200);
        assert_eq!(next["guess"], "ジーランス");
        assert_eq!(next["count"], 285);
        assert_eq!(next["total"], 964);
        assert_eq!(next["worst"], 5);
        assert_eq!(next["source"], "tree");
        common::check_fields(&docs, "query", &next);
    }
    let after = history(&[("ジーランス", "灰灰灰灰灰")]);
    let (status, next) = post(a, "/api/v1/next", json!({"run": "qiita", "history": after})).await;
    assert_eq!(status, 200);
    assert_eq!(next["guess"], "ソルロック");
    assert_eq!(next["count"], 71);
    assert_eq!(next["total"], 210);
    assert_eq!(next["worst"], 4);
    assert_eq!(next["candidates"], Value::Null);

    let (status, chart) = post(
        a,
        "/api/v1/chart",
        json!({"run": "qiita", "history": after}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(chart["guess"], "ソルロック");
    let rows = chart["rows"].as_array().expect("rows");
    let count: u64 = rows.iter().map(|r| r["count"].as_u64().unwrap()).sum();
    let total: u64 = rows.iter().map(|r| r["total"].as_u64().unwrap()).sum();
    assert_eq!((count, total), (71, 210));
    assert_eq!(rows[0]["pattern"], "灰灰灰灰灰");
    assert_eq!(rows[0]["count"], 24);
    common::check_fields(&docs, "POST /chart", &chart);

    // Off the stored tree (the run opens with ジーランス), every row still names its next
    // guess, read from the subtree solved on the spot, and the rows add up to the step's
    // total: 203, the same optimum the run restricted to レントラー stores for this step.
    let off = history(&[("レントラー", "灰灰灰灰灰")]);
    let (status, next) = post(a, "/api/v1/next", json!({"run": "qiita", "history": off})).await;
    assert_eq!(status, 200);
    assert_eq!(
        (next["source"].as_str(), next["total"].as_u64()),
        (Some("computed"), Some(203))
    );
    let (status, chart) = post(a, "/api/v1/chart", json!({"run": "qiita", "history": off})).await;
    assert_eq!(status, 200);
    assert_eq!(chart["source"], "computed");
    assert_eq!(chart["guess"], next["guess"]);
    let rows = chart["rows"].as_array().expect("rows");
    let count: u64 = rows.iter().map(|r| r["count"].as_u64().unwrap()).sum();
    let total: u64 = rows.iter().map(|r| r["total"].as_u64().unwrap()).sum();
    assert_eq!((count, total), (67, 203));
    assert!(
        rows.iter()
            .all(|r| r["next_guess"].is_string() || r["digits"] == "22222"),
        "{rows:?}"
    );

    // The first-guess chart adds up to the run's total.
    let (status, chart) = post(a, "/api/v1/chart", json!({"run": "qiita"})).await;
    assert_eq!(status, 200);
    let total: u64 = chart["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["total"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 964);

    let two = history(&[("レントラー", "灰灰灰灰緑"), ("ゴーリキー", "灰灰灰灰緑")]);
    let (status, left) = post(
        a,
        "/api/v1/candidates",
        json!({"run": "qiita", "history": two}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(left["count"], 9);
    common::check_fields(&docs, "POST /candidates", &left);
    assert_eq!(
        left["candidates"],
        json!([
            "シェルダー",
            "オムスター",
            "ファイヤー",
            "ミュウツー",
            "ヌマクロー",
            "サメハダー",
            "ホエルオー",
            "ミツハニー",
            "ニャルマー"
        ])
    );

    let (status, text) = call(a, "GET", "/api/v1/tree?run=qiita&format=text", "").await;
    assert_eq!(status, 200);
    assert_eq!(text.as_str().expect("text").lines().count(), 285);
    let (status, page) = call(a, "GET", "/", "").await;
    assert_eq!(status, 200);
    assert!(page
        .as_str()
        .expect("html")
        .contains("<script src=\"app.js\"></script>"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_json_errors_and_the_server_keeps_serving() {
    let docs = common::documented();
    let served = start_default().await;
    let a = &served.addr;
    let cases: Vec<(u16, &str, &str, Bytes, &str)> = vec![
        (
            404,
            "not_found",
            "/api/v1/next",
            Bytes::from(json!({"run": "nope"}).to_string()),
            "no run named \"nope\" (available: qiita, tree)",
        ),
        (
            400,
            "invalid_argument",
            "/api/v1/next",
            Bytes::from(json!({"run": "qiita", "history": history(&[("ジーランス", "灰灰")])}).to_string()),
            "step 1: cannot read pattern \"灰灰\": it has 2 cells but the guess has 5 letters",
        ),
        (
            400,
            "invalid_argument",
            "/api/v1/next",
            Bytes::from(json!({"history": history(&[("ジーランス", "灰灰灰灰灰")])}).to_string()),
            "several runs are served; name one of: qiita, tree",
        ),
        (
            413,
            "payload_too_large",
            "/api/v1/next",
            Bytes::from(vec![b' '; 20 * 1024]),
            "the request body is too large (a request is a run name and a history of a few guesses)",
        ),
        (
            404,
            "not_found",
            "/api/v2/next",
            Bytes::new(),
            "no such page or endpoint: /api/v2/next (the API is under /api/v1/)",
        ),
    ];
    for (status, code, path, body, message) in cases {
        let (got, error) = call(a, "POST", path, body).await;
        assert_eq!(got, status, "{error}");
        assert_eq!(error["error"]["kind"], code);
        common::check_fields(&docs, "error", &error);
        assert_eq!(error["error"]["message"], message);
    }
    let (got, error) = post(a, "/api/v1/next", json!({"run": "qiita", "history": 3})).await;
    assert_eq!(got, 422, "{error}");
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .contains("invalid type"));

    // A slow client: headers sent, body never finished. Others are served meanwhile, and the
    // slow one gets 408 once the request timeout passes.
    let mut slow = tokio::net::TcpStream::connect(a).await.expect("connect");
    slow.write_all(
        b"POST /api/v1/next HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{",
    )
    .await
    .expect("write");
    let (status, next) = post(a, "/api/v1/next", json!({"run": "qiita"})).await;
    assert_eq!((status, next["guess"].as_str()), (200, Some("ジーランス")));
    let mut reply = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), async {
        use tokio::io::AsyncReadExt;
        let mut buf = [0u8; 512];
        loop {
            match slow.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    reply.extend_from_slice(&buf[..n]);
                    if reply.windows(4).any(|w| w == b"\r\n\r\n") {
                        break;
                    }
                }
            }
        }
    })
    .await;
    assert!(read.is_ok(), "the slow request was never answered");
    let head = String::from_utf8_lossy(&reply);
    assert!(head.starts_with("HTTP/1.1 408"), "{head}");
    // Still serving.
    let (status, _) = call(a, "GET", "/api/v1/runs", "").await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rescan_picks_up_a_run_that_appears() {
    let data = scratch().join(format!("rescan-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(&data).expect("data dir");
    let served = start(Sources {
        data_dirs: vec![data.clone()],
        ..Sources::default()
    })
    .await;
    let a = &served.addr;
    let (status, runs) = call(a, "GET", "/api/v1/runs", "").await;
    assert_eq!((status, runs), (200, json!({"runs": []})));
    let (status, error) = post(a, "/api/v1/next", json!({})).await;
    assert_eq!(
        (status, &error["error"]["message"]),
        (400, &json!("no runs are loaded"))
    );

    // The run appears (as a link to the finished one, served under its own name) and a
    // rescan serves it.
    std::os::unix::fs::symlink(scratch().join("data").join("qiita"), data.join("late"))
        .expect("symlink");
    let (status, report) = post(a, "/api/v1/rescan", json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(report["runs"], json!(["qiita"]));
    assert_eq!(report["reloaded"], json!(["qiita"]));
    let (status, next) = post(a, "/api/v1/next", json!({})).await;
    assert_eq!((status, next["total"].as_u64()), (200, Some(964)));
    // Nothing changed: nothing is reloaded.
    let report = served.catalog.rescan();
    assert_eq!(report.reloaded, Vec::<String>::new());
    assert_eq!(report.runs, ["qiita"]);
    assert!(load_path(&data.join("late")).is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn puzzles_answer_in_the_documented_names() {
    let docs = common::documented();
    let served = start_default().await;
    let a = &served.addr;
    let (status, list) = call(a, "GET", "/api/v1/puzzles", "").await;
    assert_eq!(status, 200);
    common::check_fields(&docs, "GET /puzzles", &list);
    assert_eq!(
        list["batches"][0],
        json!({"name": "pokemon-today", "game": "pokemon-today", "count": 90})
    );
    let (status, day) = call(a, "GET", "/api/v1/puzzles/pokemon-today/1", "").await;
    assert_eq!(status, 200);
    common::check_fields(&docs, "GET /puzzles/{batch}/{day}", &day);
    assert_eq!(day["kind"], "best-move");
    // The committed batch was written with the old names (answers, best_total, best_worst);
    // it is read through the aliases and answered in the new ones.
    let (status, verdict) = post(
        a,
        "/api/v1/puzzles/pokemon-today/1/answer",
        json!({"answer": "らてぃあす"}),
    )
    .await;
    assert_eq!(status, 200);
    common::check_fields(&docs, "POST /puzzles/{batch}/{day}/answer", &verdict);
    let grade = &verdict["grade"]["best_move"];
    assert_eq!(
        (
            verdict["correct"].as_bool(),
            grade["total"].as_u64(),
            grade["worst"].as_u64(),
            grade["candidates"].as_array().map(Vec::len)
        ),
        (Some(true), Some(15), Some(2), Some(8))
    );
    assert_eq!(grade["goal"], json!({"win_within": {"guesses": 2}}));
}

/// `POST /review`: the three forms of a game give the same review, in the documented names,
/// with the exact figures of the core's own tests (the run's optimum 964; レントラー 966).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviews_answer_in_the_documented_names_in_every_input_form() {
    let docs = common::documented();
    let served = start_default().await;
    let a = &served.addr;
    let words = ["レントラー", "ピカチュウ", "ゴーリキー", "スリーパー"];
    let (status, by_answer) = post(
        a,
        "/api/v1/review",
        json!({"run": "qiita", "words": words, "answer": "すりーぱー"}),
    )
    .await;
    assert_eq!(status, 200, "{by_answer}");
    common::check_fields(&docs, "review", &by_answer);
    let moves = by_answer["moves"].as_array().expect("moves");
    let column = |f: &dyn Fn(&Value) -> Value| moves.iter().map(f).collect::<Vec<_>>();
    assert_eq!(
        column(&|m| m["optimal"]["total"].clone()),
        [json!(964), json!(61), json!(42), json!(3)]
    );
    assert_eq!(
        column(&|m| m["played"]["total"].clone()),
        [json!(966), json!(71), json!(44), json!(3)]
    );
    assert_eq!(
        column(&|m| m["loss_total"].clone()),
        [json!(2), json!(10), json!(2), json!(0)]
    );
    assert_eq!(moves[0]["loss"], json!(2.0 / 285.0));
    assert_eq!(
        moves[3]["optimal"]["guesses"],
        json!(["スリーパー", "フリーザー"])
    );
    assert_eq!(by_answer["summary"]["same_first_guess"]["guesses"], 3);
    assert_eq!(by_answer["summary"]["perfect"], false);
    assert_eq!(by_answer["label"], "proven-optimal");

    // The same game as a history, and as the shared grid with its title.
    let steps: Vec<(String, String)> = moves
        .iter()
        .map(|m| {
            (
                m["guess"].as_str().unwrap_or_default().to_string(),
                m["pattern"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let pairs: Vec<(&str, &str)> = steps
        .iter()
        .map(|(g, p)| (g.as_str(), p.as_str()))
        .collect();
    let (_, by_history) = post(
        a,
        "/api/v1/review",
        json!({"run": "qiita", "history": history(&pairs)}),
    )
    .await;
    let grid: String = moves
        .iter()
        .map(|m| {
            let row: String = m["digits"]
                .as_str()
                .unwrap_or_default()
                .chars()
                .map(|d| match d {
                    '2' => '🟩',
                    '1' => '🟨',
                    _ => '⬛',
                })
                .collect();
            row + "\n"
        })
        .collect();
    let (_, by_grid) = post(
        a,
        "/api/v1/review",
        json!({"run": "qiita", "words": words, "grid": format!("ポケモンWordle 4/10\n\n{grid}")}),
    )
    .await;
    assert_eq!(by_history, by_answer);
    assert_eq!(by_grid, by_answer);

    // Errors a player causes carry a message key and its arguments.
    let (status, error) = post(
        a,
        "/api/v1/review",
        json!({"run": "qiita", "words": words, "grid": "⬛⬛⬛⬛⬛"}),
    )
    .await;
    assert_eq!(status, 400);
    common::check_fields(&docs, "error", &error);
    assert_eq!(error["error"]["key"], "colours_words");
    assert_eq!(error["error"]["args"], json!(["1", "4"]));
    let (status, error) = post(
        a,
        "/api/v1/next",
        json!({"run": "qiita", "history": history(&[("アーボック", "黄黄灰灰灰"), ("オニドリル", "灰灰灰灰灰")])}),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        (&error["error"]["key"], &error["error"]["args"]),
        (
            &json!("no_answer_fits"),
            &json!(["2", "オニドリル", "灰灰灰灰灰"])
        )
    );
}

/// A puzzle lists a best move's answers and words its question by key; a wrong name or a
/// word that is no name gives nothing away; the solution is asked for separately.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn puzzles_let_players_try_again_and_ask_for_the_solution() {
    let docs = common::documented();
    let served = start_default().await;
    let a = &served.addr;
    let (_, day) = call(a, "GET", "/api/v1/puzzles/pokemon-today/1", "").await;
    assert_eq!(day["candidates"].as_array().map(Vec::len), Some(8));
    assert_eq!(
        (&day["question_key"], &day["question_args"]),
        (&json!("question_win_within"), &json!(["8", "2"]))
    );
    for (answer, name) in [("ピカチュウ", true), ("あいうえお", false)] {
        let (status, verdict) = post(
            a,
            "/api/v1/puzzles/pokemon-today/1/answer",
            json!({ "answer": answer }),
        )
        .await;
        assert_eq!(status, 200);
        common::check_fields(&docs, "POST /puzzles/{batch}/{day}/answer", &verdict);
        assert_eq!(
            (
                &verdict["correct"],
                &verdict["name"],
                &verdict["solution"],
                &verdict["grade"]
            ),
            (&json!(false), &json!(name), &Value::Null, &Value::Null),
            "{answer}"
        );
    }
    let (status, solution) = call(a, "GET", "/api/v1/puzzles/pokemon-today/1/solution", "").await;
    assert_eq!(status, 200);
    common::check_fields(&docs, "GET /puzzles/{batch}/{day}/solution", &solution);
    assert_eq!(solution["solution"], "ラティアス");
    let (status, error) = call(a, "GET", "/api/v1/puzzles/pokemon-today/999", "").await;
    assert_eq!(status, 404);
    assert_eq!(
        (&error["error"]["key"], &error["error"]["args"]),
        (&json!("puzzle_day"), &json!(["pokemon-today", "90", "999"]))
    );
}

/// A URL query value: the words percent-encoded (katakana is not ASCII).
fn encoded(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b',' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ranking_looks_up_any_first_guess_of_a_run() {
    let docs = common::documented();
    let served = start_default().await;
    let a = &served.addr;
    let (status, best) = call(a, "GET", "/api/v1/ranking?run=qiita&top=1", "").await;
    assert_eq!(status, 200, "{best}");
    common::check_fields(&docs, "ranking", &best);
    assert_eq!(
        (best["scope"].as_str(), best["settled"].as_u64()),
        (Some("best"), Some(493))
    );
    assert_eq!(best["rows"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        (
            best["rows"][0]["rank"].as_u64(),
            best["rows"][0]["guess"].as_str(),
            best["rows"][0]["total"].as_u64()
        ),
        (Some(1), Some("ジーランス"), Some(964))
    );
    // レントラー's exact total is 966 (docs/rankings.md): a search for the best holds it
    // exactly or as a lower bound no higher, and gives a bound no rank.
    let path = format!(
        "/api/v1/ranking?run=qiita&words={}",
        encoded("レントラー,ジーランス")
    );
    let (status, asked) = call(a, "GET", &path, "").await;
    assert_eq!(status, 200, "{asked}");
    let row = &asked["rows"][0];
    assert_eq!(row["guess"], "レントラー");
    assert_eq!(row["settled"], true);
    let total = row["total"].as_u64().expect("a value");
    if row["exact"] == true {
        assert_eq!(total, 966);
    } else {
        assert!(
            total <= 966 && row["rank"].is_null() && row["mean"].is_null(),
            "{row}"
        );
    }
    assert_eq!(asked["rows"][1]["rank"].as_u64(), Some(1));

    // A tree file holds only its first guess.
    let (status, tree) = call(a, "GET", "/api/v1/ranking?run=tree", "").await;
    assert_eq!(status, 200, "{tree}");
    assert_eq!(tree["rows"].as_array().map(Vec::len), Some(1));

    for (path, status, kind) in [
        (
            format!("/api/v1/ranking?run=qiita&words={}", encoded("ピカチュ")),
            400,
            "invalid_argument",
        ),
        (
            "/api/v1/ranking?run=qiita&top=x".to_string(),
            400,
            "invalid_argument",
        ),
        ("/api/v1/ranking?run=nope".to_string(), 404, "not_found"),
        (
            "/api/v1/ranking?run=qiita&color=red".to_string(),
            400,
            "invalid_argument",
        ),
    ] {
        let (got, body) = call(a, "GET", &path, "").await;
        assert_eq!(
            (got, body["error"]["kind"].as_str()),
            (status, Some(kind)),
            "{path}: {body}"
        );
    }
    let (_, unknown) = call(
        a,
        "GET",
        &format!("/api/v1/ranking?run=qiita&words={}", encoded("ピカチュ")),
        "",
    )
    .await;
    assert_eq!(unknown["error"]["key"], "unknown_word");
}
