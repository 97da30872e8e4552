//! What the coordinator's integration tests share: scratch directories, a finished run the
//! real `hakase solve` writes, and the JSON field names docs/json.md documents (so every
//! front end — CLI, HTTP, gRPC — is checked against the one list).

// Each test binary uses only some of these.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// An empty directory `NAME-PID` under the test target's temporary directory.
pub fn scratch(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Runs `hakase ARGS` as a user would.
pub fn hakase(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hakase"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs `hakase ARGS`, which must succeed; returns its standard output as text.
pub fn ok(args: &[&str]) -> String {
    String::from_utf8(hakase_ok(args)).expect("UTF-8 output")
}

/// Runs `hakase ARGS`, which must succeed, and parses its JSON output.
pub fn json_of(args: &[&str]) -> Value {
    serde_json::from_slice(&hakase_ok(args)).expect("valid JSON")
}

/// Runs `hakase ARGS`, which must fail; returns its standard error.
pub fn fails(args: &[&str]) -> String {
    let out = hakase(args);
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8(out.stderr).expect("UTF-8 errors")
}

/// Runs `hakase ARGS`, which must succeed; returns its standard output.
pub fn hakase_ok<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_hakase"))
        .args(args)
        .output()
        .expect("hakase runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A finished, proven run of `game` at `run`, written by `hakase solve --db` as a user would.
pub fn solve_run(game: &str, run: &Path) {
    hakase_ok([
        OsStr::new("solve"),
        OsStr::new("--game"),
        OsStr::new(game),
        OsStr::new("--db"),
        run.as_os_str(),
    ]);
}

/// The documented field paths per document, read from docs/json.md: every line
/// ``- `NAME`: `a` `a.b` `c[]` ...``.
pub fn documented() -> BTreeMap<String, BTreeSet<String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/json.md");
    let text = std::fs::read_to_string(path).expect("docs/json.md");
    let mut docs = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("- `") else {
            continue;
        };
        let Some((command, fields)) = rest.split_once("`: ") else {
            continue;
        };
        let paths = fields
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        docs.insert(command.to_string(), paths);
    }
    docs
}

/// Every field path of `value`: `a.b` for object fields, `a[]` for array items.
pub fn paths(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                out.insert(path.clone());
                paths(v, &path, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                let path = format!("{prefix}[]");
                out.insert(path.clone());
                paths(item, &path, out);
            }
        }
        _ => {}
    }
}

/// Checks `value` against the fields docs/json.md lists for `document`: none undocumented,
/// every top-level one present.
pub fn check_fields(docs: &BTreeMap<String, BTreeSet<String>>, document: &str, value: &Value) {
    let documented = docs
        .get(document)
        .unwrap_or_else(|| panic!("{document} not in docs/json.md"));
    let mut found = BTreeSet::new();
    paths(value, "", &mut found);
    let extra: Vec<_> = found.difference(documented).collect();
    assert!(
        extra.is_empty(),
        "{document}: undocumented fields {extra:?}"
    );
    let missing: Vec<_> = documented
        .iter()
        .filter(|p| !p.contains(['.', '[']) && !found.contains(*p))
        .collect();
    assert!(missing.is_empty(), "{document}: missing fields {missing:?}");
}
