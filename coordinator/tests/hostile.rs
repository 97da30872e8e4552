//! The fast cases of the hostile-input review (issue 10), run as a user would run them: the
//! built binary in a scratch directory, asserting exit codes and messages exactly. The slow
//! and networked cases (signals, linger, TLS mismatch, damaged databases served) are in
//! `scripts/hostile-inputs`, `damaged_runs.rs` and the cluster tests.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// What a run of the binary gave.
#[derive(Debug)]
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// `hakase ARGS` in `dir`, with `stdin` fed in and `env` set (HAKASE_TOKEN unset otherwise).
fn hakase_in(dir: &Path, args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Ran {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hakase"));
    command
        .args(args)
        .current_dir(dir)
        .env_remove("HAKASE_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("hakase runs");
    if let Some(mut input) = child.stdin.take() {
        input.write_all(stdin).expect("stdin");
    }
    let out = child.wait_with_output().expect("hakase finishes");
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn hakase(dir: &Path, args: &[&str]) -> Ran {
    hakase_in(dir, args, b"", &[])
}

/// Asserts a refusal: exit 1 and exactly `message` on stderr.
fn refused(ran: Ran, message: &str) {
    assert_eq!(ran.code, Some(1), "{ran:?}");
    assert_eq!(ran.stderr.trim_end(), message, "{ran:?}");
}

const COORDINATOR: [&str; 7] = [
    "coordinator",
    "--listen",
    "127.0.0.1:0",
    "--db",
    "run",
    "--game",
    "pokemon-qiita2023",
];

#[test]
fn empty_blank_and_short_tokens_stop_the_coordinator() {
    let dir = scratch("tokens");
    let with = |token: &str| {
        let mut args = COORDINATOR.to_vec();
        args.extend(["--token", token]);
        hakase(&dir, &args)
    };
    let hint = "generate one with `openssl rand -hex 32`";
    for token in ["", " "] {
        refused(
            with(token),
            &format!("error: --token (or HAKASE_TOKEN): the token is empty; {hint}"),
        );
    }
    refused(
        hakase_in(&dir, &COORDINATOR, b"", &[("HAKASE_TOKEN", "")]),
        &format!("error: --token (or HAKASE_TOKEN): the token is empty; {hint}"),
    );
    refused(
        with("abc"),
        &format!(
            "error: --token (or HAKASE_TOKEN): the token has 3 characters, fewer than 16; {hint}"
        ),
    );
    let mut open = COORDINATOR.to_vec();
    open[2] = "0.0.0.0:0";
    open.extend(["--token", "0123456789abcdef0123"]);
    let ran = hakase(&dir, &open);
    assert_eq!(ran.code, Some(1), "{ran:?}");
    assert!(
        ran.stderr
            .starts_with("error: refusing to listen on 0.0.0.0:0 without TLS"),
        "{ran:?}"
    );
    assert!(ran.stderr.contains("--insecure"), "{ran:?}");
    assert!(!dir.join("run").exists(), "nothing was created");
}

#[test]
fn seconds_that_are_no_duration_stop_the_coordinator() {
    let dir = scratch("seconds");
    for (flag, value) in [
        ("--lease-secs", "nan"),
        ("--linger-secs", "-1"),
        ("--http-linger-secs", "inf"),
    ] {
        // `--flag=-1`: a separate `-1` would read as an option.
        let given = format!("{flag}={value}");
        let mut args = COORDINATOR.to_vec();
        args.extend([
            "--token",
            "0123456789abcdef0123",
            "--http",
            "127.0.0.1:0",
            &given,
        ]);
        refused(
            hakase(&dir, &args),
            &format!(
                "error: {flag} must be a number of seconds, 0 or more, not {}",
                value.parse::<f64>().expect("a float")
            ),
        );
    }
    let mut args = COORDINATOR.to_vec();
    args.extend(["--token", "0123456789abcdef0123", "--http", "0.0.0.0:0"]);
    let ran = hakase(&dir, &args);
    assert_eq!(ran.code, Some(1), "{ran:?}");
    assert!(
        ran.stderr
            .starts_with("error: refusing to serve --http on 0.0.0.0:0: "),
        "{ran:?}"
    );
}

#[test]
fn capitalised_custom_lists_read_like_typed_words() {
    let dir = scratch("caps");
    std::fs::write(dir.join("caps.txt"), "CRANE\nSLATE\nTRACE\n").expect("list");
    let custom = ["--game", "wordle", "--answers", "caps.txt"];
    let mut args = vec!["feedback", "crane", "CRANE"];
    args.extend(custom);
    let ran = hakase(&dir, &args);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert_eq!(ran.stdout.trim(), "GGGGG");
    let mut args = vec!["candidates", "-H", "crane=BBBBB"];
    args.extend(custom);
    refused(
        hakase(&dir, &args),
        "error: no possible answer fits the history: step 1 (crane BBBBB): the game never \
         shows this pattern for this guess",
    );
    let mut args = vec!["candidates", "-H", "Slate=GGGGG", "--json"];
    args.extend(custom);
    let doc: serde_json::Value = serde_json::from_str(&hakase(&dir, &args).stdout).expect("JSON");
    assert_eq!(doc["history"], serde_json::json!(["slate=GGGGG"]));
    assert_eq!(doc["candidates"], serde_json::json!(["slate"]));
}

#[test]
fn limits_give_errors_not_aborts() {
    let dir = scratch("limits");
    let steps: Vec<String> = (1..60_000).map(|i| format!("salet BBBBB{i}")).collect();
    std::fs::write(
        dir.join("deep.txt"),
        format!("{} salet GGGGG60000\n", steps.join(" ")),
    )
    .expect("tree");
    let ran = hakase(&dir, &["verify", "deep.txt", "--game", "wordle"]);
    assert_eq!(ran.code, Some(1), "{:?}", &ran.stderr);
    assert!(
        ran.stderr.starts_with("error: ") && ran.stderr.contains("line 1"),
        "{}",
        ran.stderr
    );
    refused(
        hakase(
            &dir,
            &[
                "solve",
                "--game",
                "pokemon-qiita2023",
                "--in-memory",
                "--threads",
                "100000",
            ],
        ),
        "error: --threads 100000: give a number between 1 and 1024",
    );
    refused(
        hakase(
            &dir,
            &[
                "solve",
                "--game",
                "wordle",
                "--max-guesses",
                "7",
                "--in-memory",
            ],
        ),
        "error: --max-guesses 7 is more than the game's 6 tries (use --tries to change the game)",
    );
    refused(
        hakase(
            &dir,
            &[
                "solve",
                "--game",
                "pokemon-verbum",
                "--in-memory",
                "--tree-out",
                "missing/tree.json",
            ],
        ),
        "error: --tree-out missing/tree.json: the directory missing does not exist",
    );
}

#[test]
fn tree_files_metadata_bom_and_runs_that_are_files() {
    let dir = scratch("trees");
    for (file, format) in [("tree.json", "json"), ("tree.txt", "text")] {
        let ran = hakase(
            &dir,
            &[
                "solve",
                "--game",
                "pokemon-qiita2023",
                "--in-memory",
                "--tree-out",
                file,
                "--format",
                format,
            ],
        );
        assert_eq!(ran.code, Some(0), "{ran:?}");
    }
    let json = std::fs::read_to_string(dir.join("tree.json")).expect("tree");
    let mut doc: serde_json::Value = serde_json::from_str(&json).expect("JSON tree");
    doc["about"]["total"] = 900.into();
    std::fs::write(dir.join("false.json"), doc.to_string()).expect("write");
    let ran = hakase(&dir, &["verify", "false.json"]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let warning = "warning: the file says total 900, but the tree takes 964 guesses in total";
    assert!(
        ran.stderr
            .lines()
            .chain(ran.stdout.lines())
            .any(|l| l == warning),
        "{ran:?}"
    );
    let ran = hakase(&dir, &["verify", "false.json", "--strict-meta"]);
    assert_eq!(ran.code, Some(1), "{ran:?}");
    assert!(ran.stderr.contains("(--strict-meta)"), "{ran:?}");

    let text = std::fs::read(dir.join("tree.txt")).expect("tree");
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend(text);
    std::fs::write(dir.join("bom.txt"), bom).expect("write");
    let ran = hakase(&dir, &["verify", "bom.txt", "--game", "pokemon-qiita2023"]);
    assert_eq!(ran.code, Some(0), "{ran:?}");

    refused(
        hakase(&dir, &["query", "--run", "tree.json", "-H", "ジーランス=灰灰灰灰灰"]),
        "error: loading run \"tree.json\": tree.json is a file, not a run: --run takes a run directory or the name of one \
         under the data directory (see `hakase runs`); a tree file is checked with `hakase \
         verify FILE`",
    );
}

#[test]
fn play_survives_a_line_that_is_not_utf8() {
    let dir = scratch("play");
    let ran = hakase(&dir, &["solve", "--game", "pokemon-qiita2023"]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let mut input = b"x\xff\xfey\n".to_vec();
    input.extend("灰灰灰灰灰\nq\n".as_bytes());
    let ran = hakase_in(&dir, &["play", "--run", "pokemon-qiita2023"], &input, &[]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(
        ran.stdout
            .contains("? that line is not valid UTF-8; type it again"),
        "{ran:?}"
    );
}
