//! The query service over gRPC, served in-process on a free loopback port, against a run the
//! real `hakase solve` wrote.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use hakase_core::rules::history::Step;
use hakase_core::rules::presets::load_preset;
use hakase_core::trees::tree::Tree;
use hakase_core::{FeedbackTable, Game, PatternStyle};
use hakase_proto::v1::query_client::QueryClient;
use hakase_proto::v1::{
    AnswerSource, ChartRequest, HistoryStep, NextGuessRequest, RankingRequest, RunsRequest,
    TreeFormat, TreeRequest,
};
use hakase_query::{serve, RunCatalog};
use tonic::transport::Channel;
use tonic::Code;

/// A finished run of pokemon-qiita2023, made once per test binary.
fn run_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = common::scratch("query-grpc").join("qiita");
        common::solve_run("pokemon-qiita2023", &dir);
        dir
    })
}

struct Served {
    client: QueryClient<Channel>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

async fn start() -> Served {
    start_at(run_dir()).await
}

/// A finished ranking of every first guess of pokemon-qiita2023, made once per test binary.
fn rank_all_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = common::scratch("query-grpc-rank-all").join("ranked");
        common::hakase_ok([
            "solve",
            "--game",
            "pokemon-qiita2023",
            "--rank-all",
            "--db",
            dir.to_str().expect("UTF-8 path"),
        ]);
        dir
    })
}

async fn start_at(dir: &Path) -> Served {
    let catalog = RunCatalog::single(dir).expect("the run loads");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve(Arc::new(catalog), listener, async move {
        let _ = stopped.await;
    }));
    let client = QueryClient::connect(format!("http://{addr}"))
        .await
        .expect("connect");
    Served {
        client,
        _stop: stop,
    }
}

fn game() -> (Game, FeedbackTable) {
    let game = load_preset("pokemon-qiita2023").expect("preset");
    let table = FeedbackTable::build(&game);
    (game, table)
}

fn request(history: &[(&str, &str)]) -> NextGuessRequest {
    NextGuessRequest {
        run: String::new(),
        history: history
            .iter()
            .map(|(g, p)| HistoryStep {
                guess: g.to_string(),
                pattern: p.to_string(),
            })
            .collect(),
    }
}

/// Guesses the stored tree needs for `answer`.
fn depth(tree: &Tree, table: &FeedbackTable, answer: u32) -> u32 {
    let mut node = tree;
    let mut n = 1;
    loop {
        let p = table.get(node.guess, answer);
        if p.is_win() {
            return n;
        }
        node = node.branch(p).expect("the tree covers every answer");
        n += 1;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_is_found_in_the_trees_guesses_and_they_sum_to_964() {
    let mut served = start().await;
    let (game, table) = game();
    let run = hakase_runs::load_path(run_dir()).expect("run");
    let tree = run
        .solution
        .as_ref()
        .and_then(|s| s.tree.clone())
        .expect("tree");
    let styles = [
        PatternStyle::Kanji,
        PatternStyle::Letters,
        PatternStyle::Digits,
        PatternStyle::Emoji,
    ];
    let mut sum = 0u32;
    for answer in game.all_answers() {
        let mut history: Vec<HistoryStep> = Vec::new();
        loop {
            let reply = served
                .client
                .next_guess(NextGuessRequest {
                    run: "qiita".into(),
                    history: history.clone(),
                })
                .await
                .expect("next guess")
                .into_inner();
            if reply.won {
                break;
            }
            assert_eq!(reply.source, AnswerSource::Tree as i32);
            assert!(reply.feasible);
            let guess = game.find_guess(&reply.guess).expect("a word");
            let len = game.guesses()[guess as usize].len();
            let style = styles[history.len() % styles.len()];
            history.push(HistoryStep {
                guess: reply.guess.clone(),
                pattern: table.get(guess, answer).format(len, style),
            });
            assert!(
                history.len() <= 10,
                "no end for {}",
                game.answer_text(answer)
            );
        }
        let used = history.len() as u32;
        assert_eq!(
            used,
            depth(&tree, &table, answer),
            "{}",
            game.answer_text(answer)
        );
        sum += used;
    }
    assert_eq!(sum, 964);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_tree_guesses_are_solved_on_the_spot() {
    let mut served = start().await;
    let reply = served
        .client
        .next_guess(request(&[("レントラー", "灰灰灰灰緑")]))
        .await
        .expect("answer")
        .into_inner();
    assert_eq!(reply.source, AnswerSource::Computed as i32);
    assert_eq!(reply.count, 23);
    assert_eq!(reply.guess, "ゴーリキー");
    assert_eq!((reply.total, reply.worst), (61, 4));
    assert!(reply.candidates.is_empty(), "23 > 20 are not listed");
    let reply = served
        .client
        .next_guess(request(&[
            ("レントラー", "灰灰灰灰緑"),
            ("ゴーリキー", "灰灰灰灰緑"),
        ]))
        .await
        .expect("answer")
        .into_inner();
    assert_eq!(reply.count, 9);
    assert_eq!(reply.candidates.len(), 9);
}

async fn error_of(served: &mut Served, history: &[(&str, &str)]) -> tonic::Status {
    served
        .client
        .next_guess(request(history))
        .await
        .expect_err("an error")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bad_input_gets_its_specific_error() {
    let mut served = start().await;
    let e = error_of(
        &mut served,
        &[("レントラー", "灰灰灰灰緑"), ("ピカチュウウ", "灰灰灰灰灰")],
    )
    .await;
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains("step 2") && e.message().contains("not an allowed guess"),
        "{}",
        e.message()
    );
    let e = error_of(&mut served, &[("レントラー", "灰灰灰")]).await;
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains("step 1") && e.message().contains("3 cells"),
        "{}",
        e.message()
    );
    let e = error_of(&mut served, &[("レントラー", "緑緑緑緑黄")]).await;
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains("step 1") && e.message().contains("never shows"),
        "{}",
        e.message()
    );
    let e = error_of(
        &mut served,
        &[("レントラー", "灰灰灰灰緑"), ("ゴーリキー", "灰灰灰灰灰")],
    )
    .await;
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains("step 2") && e.message().contains("no answer fits"),
        "{}",
        e.message()
    );
    let e = error_of(
        &mut served,
        &[("ジーランス", "緑緑緑緑緑"), ("レントラー", "灰灰灰灰灰")],
    )
    .await;
    assert!(
        e.message().contains("step 2") && e.message().contains("already won"),
        "{}",
        e.message()
    );
    let long: Vec<(&str, &str)> = vec![("レントラー", "灰灰灰灰灰"); 11];
    let e = error_of(&mut served, &long).await;
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("only 10"), "{}", e.message());
    let e = served
        .client
        .next_guess(NextGuessRequest {
            run: "nope".into(),
            history: vec![],
        })
        .await
        .expect_err("unknown run");
    assert_eq!(e.code(), Code::NotFound);
    let huge = "ア".repeat(20_000);
    let e = error_of(&mut served, &[(huge.as_str(), "灰灰灰灰灰")]).await;
    assert_eq!(e.code(), Code::OutOfRange, "{}", e.message());
    let e = served
        .client
        .chart(ChartRequest {
            run: String::new(),
            first_guess: "xyz".into(),
        })
        .await
        .expect_err("unknown first guess");
    assert_eq!(e.code(), Code::InvalidArgument);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chart_tree_and_runs_answer_with_the_runs_values() {
    let mut served = start().await;
    let chart = served
        .client
        .chart(ChartRequest::default())
        .await
        .expect("chart")
        .into_inner();
    assert_eq!(chart.first_guess, "ジーランス");
    assert_eq!(chart.total, 964);
    assert!(chart.proven);
    assert_eq!(chart.rows.iter().map(|r| r.total).sum::<u64>(), 964);
    assert_eq!(chart.rows.iter().map(|r| r.count).sum::<u32>(), 285);
    let first = &chart.rows[0];
    assert_eq!(
        (
            first.pattern.as_str(),
            first.count,
            first.second_guess.as_str(),
            first.total,
            first.worst
        ),
        ("灰灰灰灰灰", 71, "ソルロック", 281, 5)
    );
    let other = served
        .client
        .chart(ChartRequest {
            run: String::new(),
            first_guess: "レントラー".into(),
        })
        .await
        .expect("chart")
        .into_inner();
    assert_eq!(other.source, AnswerSource::Computed as i32);
    assert_eq!(other.rows[0].count, 67);
    assert!(other.total > 964);

    let (game, _) = game();
    let mut stream = served
        .client
        .tree(TreeRequest {
            run: String::new(),
            format: TreeFormat::Json as i32,
        })
        .await
        .expect("tree")
        .into_inner();
    let mut text = String::new();
    while let Some(chunk) = stream.message().await.expect("chunk") {
        text.push_str(&chunk.text);
    }
    let tree = hakase_core::trees::treefile::from_json(&game, &text).expect("a tree document");
    let run = hakase_runs::load_path(run_dir()).expect("run");
    assert_eq!(
        Some(&tree),
        run.solution.as_ref().and_then(|s| s.tree.as_ref())
    );

    let runs = served
        .client
        .runs(RunsRequest {})
        .await
        .expect("runs")
        .into_inner();
    assert_eq!(runs.runs.len(), 1);
    assert_eq!(
        (
            runs.runs[0].name.as_str(),
            runs.runs[0].total,
            runs.runs[0].first_guess.as_str()
        ),
        ("qiita", 964, "ジーランス")
    );
    // The options are a message with the JSON object's fields, no longer a JSON string.
    assert_eq!(
        runs.runs[0].options,
        Some(hakase_proto::v1::SolverOptions {
            objective: "total".into(),
            max_guesses: None,
            mode: "normal".into(),
            top_k: None,
        })
    );
    assert_eq!(
        (runs.runs[0].claim.as_str(), runs.runs[0].label.as_str()),
        ("proven optimal", "proven-optimal")
    );
}

/// A small deterministic generator, so the fuzz cases are the same on every run.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fuzzed_histories_never_crash_the_server() {
    let mut served = start().await;
    let (game, table) = game();
    let mut rng = XorShift(0x5eed_1234_abcd_9876);
    let cells = [
        "灰", "黄", "緑", "B", "Y", "G", "0", "1", "2", "⬛", "🟨", "🟩", "x", "", "緑緑",
    ];
    let mut answered = 0;
    for _ in 0..3000 {
        let steps = rng.below(12);
        let mut history = Vec::new();
        let answer = rng.below(game.answers().len()) as u32;
        for _ in 0..steps {
            let guess_id = rng.below(game.guesses().len()) as u32;
            let guess = match rng.below(10) {
                0 => "ピカチュウウウ".to_string(),
                1 => String::new(),
                _ => game.guess_text(guess_id).to_string(),
            };
            // Half the patterns are true for some answer, half are random text.
            let pattern = if rng.below(2) == 0 {
                let len = game.guesses()[guess_id as usize].len();
                table.get(guess_id, answer).format(len, PatternStyle::Kanji)
            } else {
                (0..rng.below(7))
                    .map(|_| cells[rng.below(cells.len())])
                    .collect()
            };
            history.push(HistoryStep { guess, pattern });
        }
        match served
            .client
            .next_guess(NextGuessRequest {
                run: String::new(),
                history,
            })
            .await
        {
            Ok(_) => answered += 1,
            Err(status) => assert!(
                matches!(
                    status.code(),
                    Code::InvalidArgument | Code::ResourceExhausted
                ),
                "unexpected {status:?}"
            ),
        }
    }
    assert!(answered > 0, "some fuzzed histories are valid");
    // Still serving.
    let reply = served
        .client
        .next_guess(request(&[]))
        .await
        .expect("alive")
        .into_inner();
    assert_eq!(reply.guess, "ジーランス");
    let _ = Step::parse;
}

/// The exact total of `first` from the in-memory solver, a path the ranking does not share.
fn in_memory_total(first: &str) -> u64 {
    let out = common::hakase_ok([
        "solve",
        "--game",
        "pokemon-qiita2023",
        "--first",
        first,
        "--in-memory",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
    v["total"].as_u64().expect("a total")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ranking_call_gives_exact_values_and_ranks() {
    let mut served = start_at(rank_all_dir()).await;
    let top = served
        .client
        .ranking(RankingRequest {
            run: String::new(),
            words: Vec::new(),
            top: 3,
        })
        .await
        .expect("ranking")
        .into_inner();
    assert_eq!(
        (
            top.scope.as_str(),
            top.finished,
            top.settled,
            top.first_guesses
        ),
        ("rank_all", true, 493, 493)
    );
    assert_eq!(top.claim, "exact values of every first guess");
    let rows: Vec<(u32, &str, Option<u32>, bool)> = top
        .rows
        .iter()
        .map(|r| (r.rank, r.guess.as_str(), r.total, r.exact))
        .collect();
    assert_eq!(
        rows,
        [
            (1, "ジーランス", Some(964), true),
            (2, "レントラー", Some(966), true),
            (3, "グラードン", Some(969), true),
        ]
    );
    // The histogram counts every settled guess once, starting at the best total.
    let histogram = top.histogram.expect("a histogram");
    assert_eq!(histogram.from, 964);
    assert_eq!(histogram.counts.iter().sum::<u32>(), 493);
    assert!(histogram.counts.len() <= 32 && histogram.counts[0] >= 1);

    // Any spelling the game reads; the values are the in-memory solver's.
    let asked = served
        .client
        .ranking(RankingRequest {
            run: String::new(),
            words: vec!["ピカチュウ".into(), "ﾚﾝﾄﾗｰ".into()],
            top: 0,
        })
        .await
        .expect("ranking")
        .into_inner();
    assert_eq!(asked.rows.len(), 2);
    assert_eq!(
        (asked.rows[0].guess.as_str(), asked.rows[0].rank),
        ("ピカチュウ", 394)
    );
    assert_eq!(
        asked.rows[0].total.map(u64::from),
        Some(in_memory_total("ピカチュウ"))
    );
    assert_eq!(asked.rows[0].mean, Some(1113.0 / 285.0));
    assert_eq!(
        (asked.rows[1].guess.as_str(), asked.rows[1].rank),
        ("レントラー", 2)
    );
    assert_eq!(
        asked.rows[1].total.map(u64::from),
        Some(in_memory_total("レントラー"))
    );

    let e = served
        .client
        .ranking(RankingRequest {
            run: String::new(),
            words: vec!["ピカチュ".into()],
            top: 0,
        })
        .await
        .expect_err("not a guess");
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains("did you mean ピカチュウ"),
        "{}",
        e.message()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ranking_of_a_search_for_the_best_ranks_only_what_is_known() {
    let mut served = start().await;
    let reply = served
        .client
        .ranking(RankingRequest::default())
        .await
        .expect("ranking")
        .into_inner();
    assert_eq!((reply.scope.as_str(), reply.settled), ("best", 493));
    assert_eq!(
        (
            reply.rows[0].rank,
            reply.rows[0].guess.as_str(),
            reply.rows[0].total
        ),
        (1, "ジーランス", Some(964))
    );
    // Every other row is a bound, or an exact value no bound is below: only those ranked.
    let lowest_bound = reply
        .rows
        .iter()
        .filter(|r| !r.exact)
        .filter_map(|r| r.total)
        .min()
        .expect("bounds");
    for row in &reply.rows[1..] {
        let known = row.exact && row.total.is_some_and(|t| t <= lowest_bound);
        assert_eq!(row.rank != 0, known, "{row:?}");
        assert!(row.total.is_some_and(|t| t >= 964), "{row:?}");
    }
}
