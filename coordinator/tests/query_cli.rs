//! `hakase query`, `play`, `chart --run`, `export`, `runs`, `plot` and `display` run as a
//! user would, against a run the real `hakase solve` wrote.

use crate::common;

use std::ffi::OsStr;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use hakase_core::rules::presets::load_preset;
use hakase_core::{FeedbackTable, PatternStyle};
use hakase_runs::load_path;
use serde_json::Value;

/// The data directory holding run `qiita`, made once per test binary.
fn data_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let data = common::scratch("query-cli");
        common::solve_run("pokemon-qiita2023", &data.join("qiita"));
        data
    })
}

fn hakase(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hakase"))
        .args(args)
        .arg("--data")
        .arg(data_dir())
        .output()
        .expect("the binary runs")
}

fn ok(args: &[&str]) -> String {
    let out = hakase(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn failure(args: &[&str]) -> String {
    let out = hakase(args);
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8(out.stderr).expect("UTF-8")
}

/// The steps the run's tree plays against `answer`, as WORD=PATTERN in `style`.
fn path_to(answer: &str, style: PatternStyle) -> Vec<(String, String)> {
    let game = load_preset("pokemon-qiita2023").expect("preset");
    let table = FeedbackTable::build(&game);
    let run = load_path(&data_dir().join("qiita")).expect("run");
    let tree = run.solution.and_then(|s| s.tree).expect("tree");
    let a = game.find_answer(answer).expect("answer");
    let mut node = &tree;
    let mut steps = Vec::new();
    loop {
        let p = table.get(node.guess, a);
        let len = game.guesses()[node.guess as usize].len();
        steps.push((
            game.guess_text(node.guess).to_string(),
            p.format(len, style),
        ));
        if p.is_win() {
            return steps;
        }
        node = node.branch(p).expect("covered");
    }
}

#[test]
fn query_plays_answers_in_the_trees_number_of_guesses() {
    for answer in [
        "レントラー",
        "ジーランス",
        "ミュウツー",
        "シェルダー",
        "ファイヤー",
        "ニャルマー",
    ] {
        let expected = path_to(answer, PatternStyle::Kanji);
        let mut history: Vec<String> = Vec::new();
        loop {
            let mut args = vec!["query", "--run", "qiita", "--json"];
            for h in &history {
                args.push("-H");
                args.push(h);
            }
            let v: Value = serde_json::from_str(&ok(&args)).expect("JSON");
            if v["won"].as_bool() == Some(true) {
                break;
            }
            assert_eq!(v["source"], "tree");
            let step = &expected[history.len()];
            assert_eq!(v["guess"].as_str(), Some(step.0.as_str()));
            history.push(format!("{}={}", step.0, step.1));
        }
        assert_eq!(history.len(), expected.len(), "{answer}");
    }
}

#[test]
fn query_text_and_errors() {
    let text = ok(&["query", "--run", "qiita"]);
    assert!(
        text.contains("next guess: ジーランス (from the optimal tree)"),
        "{text}"
    );
    assert!(text.contains("total 964"), "{text}");
    let text = ok(&["query", "--run", "qiita", "-H", "レントラー=00002"]);
    assert!(text.contains("computed on the spot"), "{text}");
    assert!(text.contains("23 answers left"), "{text}");
    let err = failure(&[
        "query",
        "--run",
        "qiita",
        "-H",
        "レントラー=BBBBG",
        "-H",
        "ゴーリキー=BBBBB",
    ]);
    assert!(
        err.contains("step 2") && err.contains("no answer fits"),
        "{err}"
    );
    let err = failure(&["query", "--run", "qiita", "-H", "ナゾノクサナ=00000"]);
    assert!(err.contains("step 1"), "{err}");
    let err = failure(&["query", "--run", "nothing-here"]);
    assert!(err.contains("no run \"nothing-here\""), "{err}");
}

fn play(script: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hakase"))
        .args(["play", "--run", "qiita", "--data"])
        .arg(data_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(script.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn play_follows_a_scripted_session_to_the_win() {
    let styles = [
        PatternStyle::Kanji,
        PatternStyle::Letters,
        PatternStyle::Digits,
        PatternStyle::Emoji,
    ];
    for (i, answer) in ["レントラー", "ミュウツー", "ホエルオー"]
        .iter()
        .enumerate()
    {
        let steps = path_to(answer, styles[i % styles.len()]);
        let mut script = String::new();
        for (_, pattern) in &steps {
            script.push_str(pattern);
            script.push('\n');
        }
        script.push_str("q\n");
        let out = play(&script);
        let won = format!("won in {} guesses: {answer}", steps.len());
        assert!(out.contains(&won), "{out}");
    }
}

#[test]
fn play_handles_off_tree_words_undo_restart_and_bad_input() {
    let out = play("レントラー=灰灰灰灰緑\nzzz\nu\nu\nレントラー=灰灰灰灰緑\nr\nq\n");
    assert!(out.contains("computed on the spot"), "{out}");
    assert!(
        out.contains("23 answers left after レントラー=灰灰灰灰緑"),
        "{out}"
    );
    assert!(out.contains("? "), "bad input is reported: {out}");
    assert!(out.contains("nothing to undo"), "{out}");
    assert_eq!(
        out.matches("285 answers left before any guess").count(),
        3,
        "{out}"
    );
}

#[test]
fn chart_export_runs_plot_and_display() {
    let chart = ok(&["chart", "--run", "qiita"]);
    assert!(
        chart.lines().any(|l| l.split_whitespace().eq([
            "灰灰灰灰灰",
            "71",
            "ソルロック",
            "281",
            "5"
        ])),
        "{chart}"
    );
    assert!(chart.contains("total 964"), "{chart}");
    let json: Value =
        serde_json::from_str(&ok(&["export", "--run", "qiita", "--format", "json"])).expect("JSON");
    assert_eq!(json["schema"], "hakase-tree/1");
    assert_eq!(json["root"]["guess"], "ジーランス");
    let text = ok(&["export", "--run", "qiita", "--format", "text"]);
    assert_eq!(text.lines().count(), 285);
    let dot = ok(&["export", "--run", "qiita", "--format", "dot"]);
    assert!(
        dot.starts_with("digraph") && dot.contains("ソルロック"),
        "{dot}"
    );
    let runs = ok(&["runs"]);
    assert!(
        runs.contains("qiita") && runs.contains("964") && runs.contains("finished"),
        "{runs}"
    );

    let dir = data_dir().join("out");
    std::fs::create_dir_all(&dir).expect("dir");
    let png = dir.join("plot.png");
    ok(&[
        "plot",
        "--run",
        "qiita",
        "--png",
        png.to_str().expect("path"),
    ]);
    let bytes = std::fs::read(&png).expect("plot written");
    assert_eq!(&bytes[1..4], b"PNG");
    let pages = dir.join("pages");
    ok(&[
        "display",
        "--run",
        "qiita",
        "--png",
        pages.to_str().expect("path"),
    ]);
    assert!(pages.join("page-01.png").is_file() && pages.join("page-01-x4.png").is_file());
    let header = dir.join("chart.h");
    ok(&[
        "display",
        "--run",
        "qiita",
        "--c-header",
        header.to_str().expect("path"),
    ]);
    assert!(std::fs::metadata(&header).expect("header").len() > 1000);
}

#[test]
fn tree_files_and_custom_list_runs_answer_queries() {
    let dir = data_dir().join("trees");
    std::fs::create_dir_all(&dir).expect("dir");
    let json_tree = dir.join("qiita.json");
    let text_tree = dir.join("qiita.txt");
    std::fs::write(
        &json_tree,
        ok(&["export", "--run", "qiita", "--format", "json"]),
    )
    .expect("w");
    std::fs::write(
        &text_tree,
        ok(&["export", "--run", "qiita", "--format", "text"]),
    )
    .expect("w");
    let (json_path, text_path) = (json_tree.to_str().unwrap(), text_tree.to_str().unwrap());
    let from_json = ok(&["query", "--tree", json_path, "-H", "ジーランス=灰灰灰灰灰"]);
    assert_eq!(
        from_json.lines().take(3).collect::<Vec<_>>(),
        [
            "71 answers left after ジーランス=灰灰灰灰灰",
            "next guess: ソルロック (from the optimal tree)",
            "expected 2.95775 more guesses (total 210), worst 4, 9 guesses left",
        ]
    );
    let from_text = ok(&[
        "query",
        "--tree",
        text_path,
        "--game",
        "pokemon-qiita2023",
        "-H",
        "ジーランス=灰灰灰灰灰",
    ]);
    // A text tree records no proof: the same answer, claimed only as an upper bound.
    assert_eq!(
        from_text.replace(
            "from the run's tree: UPPER BOUND ONLY (not proven optimal)",
            "from the optimal tree"
        ),
        from_json
    );
    assert_ne!(from_text, from_json);
    let err = failure(&["query", "--tree", text_path]);
    assert!(
        err.contains(
            "is in the text format, which does not name its game: give the game (--game G)"
        ),
        "{err}"
    );
    let err = failure(&["query", "--tree", json_path, "--run", "qiita"]);
    assert!(err.contains("cannot be used with"), "{err}");

    // A run of custom word lists reloads from the list its name records.
    let game = load_preset("pokemon-qiita2023").expect("preset");
    let words: Vec<&str> = (0..12).map(|a| game.answer_text(a)).collect();
    let answers = dir.join("answers.txt");
    std::fs::write(&answers, words.join("\n")).expect("answers");
    let custom = data_dir().join("custom");
    common::hakase_ok([
        OsStr::new("solve"),
        OsStr::new("--game"),
        OsStr::new("pokemon-qiita2023"),
        OsStr::new("--answers"),
        answers.as_os_str(),
        OsStr::new("--db"),
        custom.as_os_str(),
    ]);
    let text = ok(&["query", "--run", "custom"]);
    assert!(
        text.starts_with("12 answers left before any guess\n"),
        "{text}"
    );
    let runs = ok(&["runs"]);
    let line = runs
        .lines()
        .find(|l| l.starts_with("custom"))
        .expect("listed");
    assert!(line.contains("finished (proven)"), "{runs}");
    // The run keeps its own copy of the list: a change to the original changes nothing.
    std::fs::write(&answers, words[..11].join("\n")).expect("answers");
    let text = ok(&["query", "--run", "custom"]);
    assert!(
        text.starts_with("12 answers left before any guess\n"),
        "{text}"
    );
    // A run without its copy (one made before copies were kept) is rebuilt from the recorded
    // list: changed, the run is refused, saying why.
    std::fs::remove_file(custom.join("hakase-answers.txt")).expect("the kept copy");
    let err = failure(&["query", "--run", "custom"]);
    assert!(
        err.contains("the word lists changed since the run was made"),
        "{err}"
    );
}

#[test]
fn ranking_prints_every_first_guess_with_its_exact_value_and_rank() {
    let data = common::scratch("ranking-cli");
    let dir = |name: &str| data.join(name).display().to_string();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_hakase"))
            .args(args)
            .arg("--data")
            .arg(&data)
            .output()
            .expect("the binary runs");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let solve = |args: &[&str]| {
        let out = common::hakase(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    };
    solve(&[
        "solve",
        "--game",
        "pokemon-qiita2023",
        "--rank-all",
        "--db",
        &dir("all"),
    ]);
    assert_eq!(
        run(&["ranking", "--run", "all", "--top", "3"]),
        "all (pokemon-qiita2023, 285 answers): exact values of every first guess\n\
         RANK  GUESS       TOTAL    MEAN\n   \
         1  ジーランス    964  3.3825\n   \
         2  レントラー    966  3.3895\n   \
         3  グラードン    969  3.4000\n"
    );

    // Every value and rank equals the in-memory solver's full ranking.
    let game = load_preset("pokemon-qiita2023").expect("preset");
    let table = FeedbackTable::build(&game);
    let solver = hakase_core::solver::Solver::new(&game, &table, Default::default(), 1 << 20);
    let truth = solver.solve_game(hakase_core::solver::FirstGuesses::RankAll, &|_| {});
    let tsv = run(&["ranking", "--run", "all", "--format", "tsv"]);
    let lines: Vec<&str> = tsv.lines().collect();
    assert_eq!(
        lines[0],
        "rank\tguess\ttotal\tmean\texact\tsettled\tunchecked"
    );
    assert_eq!(lines.len(), truth.ranking.len() + 1);
    for line in &lines[1..] {
        let cells: Vec<&str> = line.split('\t').collect();
        let guess = game.find_guess(cells[1]).expect("a guess");
        let value = truth
            .ranking
            .iter()
            .find(|r| r.guess == guess)
            .map(|r| r.outcome.value())
            .expect("ranked");
        let better = truth
            .ranking
            .iter()
            .filter(|r| r.outcome.value() < value)
            .count();
        assert_eq!(cells[0], (better + 1).to_string(), "{line}");
        assert_eq!(cells[2], value.to_string(), "{line}");
        assert_eq!(cells[4..], ["true", "true", "false"], "{line}");
    }
    let words = run(&[
        "ranking",
        "--run",
        "all",
        "--word",
        "レントラー",
        "--word",
        "ミュウ",
    ]);
    assert!(
        words.contains("   2  レントラー    966  3.3895\n"),
        "{words}"
    );
    let json: Value =
        serde_json::from_str(&run(&["ranking", "--run", "all", "--json"])).expect("json");
    assert_eq!(json["scope"], "rank_all");
    assert_eq!(
        (json["settled"].as_u64(), json["first_guesses"].as_u64()),
        (Some(493), Some(493))
    );
    assert_eq!(json["rows"].as_array().map(Vec::len), Some(493));

    // A ranking of chosen first guesses: exact values, and its best claims only itself.
    let listed = solve(&[
        "solve",
        "--game",
        "pokemon-qiita2023",
        "--first",
        "ミュウ",
        "--first",
        "レントラー",
        "--first",
        "ピカチュウ",
        "--db",
        &dir("listed"),
    ]);
    assert!(
        listed.contains(
            "best first guess of the 3 first guesses listed レントラー: total 966, mean 3.3895, \
             worst 6 — proven optimal GIVEN THE FIRST GUESS レントラー"
        ),
        "{listed}"
    );
    let text = run(&["ranking", "--run", "listed"]);
    assert!(
        text.starts_with(
            "listed (pokemon-qiita2023, 285 answers): exact values of the 3 first guesses listed\n"
        ),
        "{text}"
    );
    assert_eq!(text.lines().count(), 5, "{text}");

    // The search for the best first guess: its other rows are lower bounds, without a rank.
    solve(&["solve", "--game", "pokemon-qiita2023", "--db", &dir("best")]);
    let best = run(&["ranking", "--run", "best", "--top", "2"]);
    assert!(best.contains("   1  ジーランス    964  3.3825\n"), "{best}");
    assert!(
        best.lines()
            .nth(3)
            .is_some_and(|l| l.starts_with("   —") && l.contains("≥ ")),
        "{best}"
    );

    // Bad input is refused by name.
    let out = common::hakase(&[
        "ranking",
        "--run",
        "all",
        "--data",
        &data.display().to_string(),
        "--word",
        "abc",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("abc"));
}
