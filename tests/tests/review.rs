//! Reviews by the real binary (issue 40), every number checked against the core solver asked
//! directly: `POST /api/v1/review` of `hakase serve` on English Wordle (normal and hard mode,
//! trees of `solve --first salet`) and Pokémon Wordle (a solved run, words typed in
//! hiragana), and `hakase review --hard` solving a Pokémon game on the spot. For each move the
//! test solves f of every part the player's guess and the optimal guess split the position
//! into, so the loss must be f(after the player's guess) − f(after the optimal guess) per
//! answer, exactly; the luck, the further guesses expected before the colours minus after.
//!
//! Then 200 reviews of the 6-move Wordle game over one keep-alive connection: the p99
//! latency must stay under a second (the positions off the tree are solved on the first
//! request and read from the run's review cache after).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use hakase_core::rules::history::partition;
use hakase_core::rules::presets::load_preset;
use hakase_core::solver::hard::HardState;
use hakase_core::solver::{Mode, Node, Outcome, Solver, SolverConfig, INFEASIBLE};
use hakase_core::{AnswerId, FeedbackTable, Game, GuessId, Pattern};
use hakase_tests::{hakase_bin, wait_for, Proc, Scratch};
use serde_json::{json, Value};

/// The normal-mode Wordle game: the tree's guess after salet's colours is courd, not round,
/// so every later position is off the tree.
const WORDLE_GAME: [&str; 6] = ["salet", "round", "humid", "dummy", "gummy", "mummy"];

/// The hard-mode game (every guess keeps the greens U and M): off the tree after salet.
const HARD_GAME: [&str; 5] = ["salet", "humid", "dummy", "gummy", "mummy"];

/// The core's view of one reviewed game: the game, its table and rules.
struct Rules<'a> {
    game: &'a Game,
    table: &'a FeedbackTable,
    config: SolverConfig,
}

impl Rules<'_> {
    /// f(node) from a fresh solver.
    fn f(&self, node: &Node) -> u32 {
        if node.candidates.is_empty() {
            return 0;
        }
        let solver = Solver::new(self.game, self.table, self.config.clone(), 1 << 20);
        match solver.evaluate(node, INFEASIBLE) {
            Outcome::Exact { value, .. } => value,
            Outcome::AtLeast(_) => panic!(
                "an infeasible position in a test game: {} answers, {} left, {:?}",
                node.candidates.len(),
                node.guesses_left,
                self.config.mode
            ),
        }
    }

    /// The node after `guess` showed `pattern`.
    fn child(&self, node: &Node, guess: GuessId, pattern: Pattern) -> Node {
        Node {
            candidates: node
                .candidates
                .iter()
                .copied()
                .filter(|&a| self.table.get(guess, a) == pattern)
                .collect(),
            guesses_left: node.guesses_left - 1,
            hard: if self.config.mode == Mode::Hard {
                node.hard
                    .after(&self.game.guesses()[guess as usize], pattern)
            } else {
                HardState::default()
            },
        }
    }

    /// Σ f over the non-winning parts `guess` splits `node` into: f(position after it).
    fn after(&self, node: &Node, guess: GuessId) -> u32 {
        partition(self.table, guess, &node.candidates)
            .into_iter()
            .filter(|(p, _)| !p.is_win())
            .map(|(p, _)| self.f(&self.child(node, guess, p)))
            .sum()
    }

    /// Checks every figure of `review` (a review document) of the game `words` with answer
    /// `answer`; `root_solved` says whether f of the start is solved here too (not for
    /// English Wordle: its optimum there is the tree's first guess, checked through its parts).
    fn check(&self, review: &Value, words: &[&str], answer: AnswerId, root_solved: bool) {
        let moves = review["moves"].as_array().expect("moves");
        assert_eq!(moves.len(), words.len(), "{review}");
        let mut node = Node {
            candidates: self.game.all_answers(),
            guesses_left: self.config.guess_cap(self.game),
            hard: HardState::default(),
        };
        let (mut loss_sum, mut luck_sum) = (0.0, 0.0);
        for (i, (m, word)) in moves.iter().zip(words).enumerate() {
            let guess = self.game.find_guess(word).expect("a word");
            let pattern = self.table.get(guess, answer);
            let n = node.candidates.len();
            let best = self
                .game
                .find_guess(m["optimal"]["guesses"][0].as_str().expect("a best guess"))
                .expect("a word");
            let after_best = self.after(&node, best);
            let after_played = self.after(&node, guess);
            let f = n as u32 + after_best;
            if i > 0 || root_solved {
                assert_eq!(self.f(&node), f, "move {} of {words:?}", i + 1);
            }
            let loss = i64::from(after_played) - i64::from(after_best);
            let child = self.child(&node, guess, pattern);
            let luck_after = if pattern.is_win() {
                0.0
            } else {
                f64::from(self.f(&child)) / child.candidates.len() as f64
            };
            let luck = f64::from(after_played) / n as f64 - luck_after;
            let what = format!("move {} ({word}) of {words:?}", i + 1);
            // The counts and totals are integers, compared exactly; each mean is one of them
            // over `n`.
            assert_eq!(
                (
                    &m["count"],
                    &m["optimal"]["total"],
                    &m["played"]["total"],
                    &m["loss_total"],
                    &m["after"]["count"],
                    &m["state"],
                ),
                (
                    &json!(n),
                    &json!(f),
                    &json!(n as u32 + after_played),
                    &json!(loss),
                    &json!(if pattern.is_win() {
                        0
                    } else {
                        child.candidates.len()
                    }),
                    &json!("exact"),
                ),
                "{what}"
            );
            same(&m["optimal"]["mean"], f64::from(f) / n as f64, &what);
            same(
                &m["played"]["mean"],
                f64::from(n as u32 + after_played) / n as f64,
                &what,
            );
            same(&m["loss"], loss as f64 / n as f64, &what);
            same(&m["luck"]["value"], luck, &what);
            loss_sum += loss as f64 / n as f64;
            luck_sum += luck;
            node = child;
        }
        let summary = &review["summary"];
        let close = |got: &Value, want: f64| (got.as_f64().expect("a number") - want).abs() < 1e-9;
        assert!(close(&summary["loss"], loss_sum), "{summary}");
        assert!(close(&summary["luck"], luck_sum), "{summary}");
        // A won game: guesses = the optimum from the start + Σ loss − Σ luck.
        let start = moves[0]["optimal"]["mean"].as_f64().expect("a mean");
        assert!(
            (start + loss_sum - luck_sum - words.len() as f64).abs() < 1e-9,
            "{summary}"
        );
    }
}

/// `got` is `want`. The server prints the exact f64 (shortest round-trip form); serde_json's
/// default parser, which reads it here, may land one or two units in the last place away, so
/// a float is equal when within 4 ulp (1e-15 relative): far below any rounding of the figures.
fn same(got: &Value, want: f64, what: &str) {
    let got = got
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: {got} is not a number"));
    assert!(
        (got - want).abs() <= 4.0 * f64::EPSILON * want.abs().max(f64::MIN_POSITIVE),
        "{what}: {got} against the solver's {want}"
    );
}

/// A keep-alive HTTP/1.1 connection speaking just enough to post JSON.
struct Http {
    reader: BufReader<TcpStream>,
    host: String,
}

impl Http {
    fn connect(base: &str) -> Http {
        let host = base.trim_start_matches("http://").to_string();
        let stream = TcpStream::connect(&host).expect("connecting");
        stream.set_nodelay(true).expect("nodelay");
        Http {
            reader: BufReader::new(stream),
            host,
        }
    }

    /// Posts `body` to `path`; the status and the JSON answer. A kept-alive connection the
    /// server closed while it sat idle (as servers do) is opened again and the request sent
    /// once more, as any HTTP client does.
    fn post(&mut self, path: &str, body: &Value) -> (u16, Value) {
        let body = body.to_string();
        let request = format!(
            "POST {path} HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\n\
             content-length: {}\r\n\r\n{body}",
            self.host,
            body.len()
        );
        let mut status = String::new();
        for attempt in 0..2 {
            if attempt > 0 {
                *self = Http::connect(&format!("http://{}", self.host));
            }
            let sent = self.reader.get_mut().write_all(request.as_bytes());
            if sent.is_ok() && self.reader.read_line(&mut status).unwrap_or(0) > 0 {
                break;
            }
        }
        let code = status
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("status line {status:?}"));
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).expect("header");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().expect("a length");
                }
            }
        }
        let mut bytes = vec![0; length];
        self.reader.read_exact(&mut bytes).expect("body");
        (code, serde_json::from_slice(&bytes).expect("JSON"))
    }
}

fn solve(dir: &Scratch, name: &str, args: &[&str]) {
    let mut proc = Proc::start(dir, name, args);
    assert!(
        proc.wait(Duration::from_secs(300)).success(),
        "{}",
        proc.errors()
    );
}

#[test]
fn reviews_are_exact_in_both_games_and_modes_and_fast() {
    let dir = Scratch::new("review");
    let s = |p: &Path| p.to_string_lossy().to_string();
    let data = dir.join("data");
    let salet = dir.join("salet.json");
    let hard = dir.join("salet-hard.json");
    solve(
        &dir,
        "solve-qiita",
        &[
            "solve",
            "--game",
            "pokemon-qiita2023",
            "--db",
            &s(&data.join("qiita")),
        ],
    );
    for (tree, extra) in [(&salet, None), (&hard, Some("--hard"))] {
        let mut args = vec![
            "solve",
            "--game",
            "wordle",
            "--first",
            "salet",
            "--in-memory",
            "--tree-out",
        ];
        let path = s(tree);
        args.push(&path);
        args.extend(extra);
        solve(&dir, "solve-salet", &args);
    }
    let serve = Proc::start(
        &dir,
        "serve",
        &[
            "serve",
            "--data",
            &s(&data),
            "--tree",
            &s(&salet),
            "--tree",
            &s(&hard),
            "--listen",
            "127.0.0.1:0",
            "--http",
            "127.0.0.1:0",
            // The values are what is checked, not the budget a loaded machine might exceed.
            "--solve-secs",
            "600",
        ],
    );
    let base = wait_for(Duration::from_secs(60), "serve to listen", || {
        serve
            .output()
            .lines()
            .find_map(|l| l.strip_prefix("web assistant and JSON API on "))
            .map(|u| u.trim().trim_end_matches('/').to_string())
    });
    let mut http = Http::connect(&base);

    let wordle = load_preset("wordle").expect("wordle");
    let wordle_table = FeedbackTable::build(&wordle);
    let mummy = wordle.find_answer("mummy").expect("an answer");
    let body = json!({"run": "salet", "words": WORDLE_GAME, "answer": "mummy"});
    let started = Instant::now();
    let (status, first) = http.post("/api/v1/review", &body);
    let cold = started.elapsed();
    assert_eq!(status, 200, "{first}");
    let normal = Rules {
        game: &wordle,
        table: &wordle_table,
        config: SolverConfig::default(),
    };
    normal.check(&first, &WORDLE_GAME, mummy, false);
    assert_eq!(first["moves"][0]["optimal"]["label"], "exact");
    // On the tree after salet (its guess there is courd), off it after round.
    assert_eq!(
        (
            &first["moves"][1]["optimal"]["source"],
            &first["moves"][1]["optimal"]["guesses"][0],
            &first["moves"][2]["optimal"]["source"]
        ),
        (&json!("tree"), &json!("courd"), &json!("computed"))
    );

    let (status, hard_review) = http.post(
        "/api/v1/review",
        &json!({"run": "salet-hard", "words": HARD_GAME, "answer": "mummy"}),
    );
    assert_eq!(status, 200, "{hard_review}");
    assert_eq!(hard_review["options"]["mode"], "hard");
    Rules {
        config: SolverConfig {
            mode: Mode::Hard,
            ..SolverConfig::default()
        },
        ..normal
    }
    .check(&hard_review, &HARD_GAME, mummy, false);
    // In hard mode round risks colours after which no strategy finds every answer within the
    // guesses left: its value is infinite, so the move says so instead of a loss.
    let (status, risky) = http.post(
        "/api/v1/review",
        &json!({"run": "salet-hard", "words": WORDLE_GAME, "answer": "mummy"}),
    );
    assert_eq!(status, 200, "{risky}");
    let second = &risky["moves"][1];
    assert_eq!(
        (
            &second["state"],
            &second["played"]["total"],
            &second["loss"],
            &second["optimal"]["total"]
        ),
        (
            &json!("infeasible"),
            &Value::Null,
            &Value::Null,
            &json!(622)
        )
    );
    assert_eq!(risky["summary"]["loss"], Value::Null);
    // chimp drops the yellow U: hard mode refuses it, naming the step, with its key.
    let (status, error) = http.post(
        "/api/v1/review",
        &json!({"run": "salet-hard", "words": ["salet", "round", "chimp"], "answer": "mummy"}),
    );
    assert_eq!(status, 400);
    assert_eq!(
        (&error["error"]["key"], &error["error"]["args"]),
        (&json!("hard_mode"), &json!(["3", "chimp"]))
    );

    let qiita = load_preset("pokemon-qiita2023").expect("preset");
    let qiita_table = FeedbackTable::build(&qiita);
    let pokemon = Rules {
        game: &qiita,
        table: &qiita_table,
        config: SolverConfig::default(),
    };
    let words = ["レントラー", "ピカチュウ", "ゴーリキー", "スリーパー"];
    let (status, review) = http.post(
        "/api/v1/review",
        &json!({"run": "qiita", "words": ["れんとらー", "ぴかちゅう", "ごーりきー", "すりーぱー"], "answer": "すりーぱー"}),
    );
    assert_eq!(status, 200, "{review}");
    let answer = qiita.find_answer("スリーパー").expect("an answer");
    pokemon.check(&review, &words, answer, true);

    // Hard mode without a run: every position solved on the spot by the command line.
    let out = std::process::Command::new(hakase_bin())
        .args([
            "review",
            "--game",
            "pokemon-qiita2023",
            "--hard",
            "レントラー",
            "ゴーリキー",
            "スリーパー",
            "--answer",
            "スリーパー",
            "--json",
        ])
        .output()
        .expect("hakase review");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let review: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        (&review["run"], &review["options"]["mode"]),
        (&Value::Null, &json!("hard"))
    );
    Rules {
        config: SolverConfig {
            mode: Mode::Hard,
            ..SolverConfig::default()
        },
        ..pokemon
    }
    .check(
        &review,
        &["レントラー", "ゴーリキー", "スリーパー"],
        answer,
        true,
    );

    // 200 reviews of the 6-move Wordle game: every answer the same, p99 under a second.
    let mut times = Vec::with_capacity(200);
    for _ in 0..200 {
        let started = Instant::now();
        let (status, again) = http.post("/api/v1/review", &body);
        times.push(started.elapsed());
        assert_eq!(status, 200);
        assert_eq!(again, first);
    }
    times.sort_unstable();
    let (median, p99) = (times[100], times[197]);
    eprintln!(
        "review of the 6-move Wordle game over HTTP: first (cold) {:.1} ms; 200 more: median \
         {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        cold.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        times[199].as_secs_f64() * 1e3
    );
    assert!(cold < Duration::from_secs(5), "cold review took {cold:?}");
    assert!(p99 < Duration::from_secs(1), "p99 {p99:?}");

    // 200 different 6-move games (the same five guesses, then the answer, for 200 answers):
    // each new one meets positions no review met before, solved on the spot.
    let fixed = ["salet", "round", "chimp", "gawky", "fizzy"];
    let answers: Vec<&str> = wordle
        .all_answers()
        .into_iter()
        .map(|a| wordle.answer_text(a))
        .filter(|a| !fixed.contains(a))
        .step_by(11)
        .take(200)
        .collect();
    assert_eq!(answers.len(), 200);
    let mut times = Vec::with_capacity(200);
    for answer in &answers {
        let mut words = fixed.to_vec();
        words.push(answer);
        let body = json!({"run": "salet", "words": words, "answer": answer});
        let started = Instant::now();
        let (status, review) = http.post("/api/v1/review", &body);
        times.push(started.elapsed());
        assert_eq!(status, 200, "{review}");
        assert_eq!(review["steps"], 6);
    }
    times.sort_unstable();
    let (median, p99) = (times[100], times[197]);
    eprintln!(
        "reviews of 200 different 6-move Wordle games over HTTP: median {:.2} ms, p99 {:.2} \
         ms, max {:.2} ms",
        median.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        times[199].as_secs_f64() * 1e3
    );
    assert!(p99 < Duration::from_secs(1), "p99 {p99:?}");
}
