//! The console examples of README.md and docs/*.md are real output: every block fenced as
//! ```` ```console ```` is run and its output compared with what the page shows.
//!
//! - Each line starting with `$ ` is a command, run by `sh -c` (so pipes such as
//!   `| sed -n 2p` work); the lines after it, up to the next `$ ` line or the end of the
//!   block, are its expected standard output. `hakase` is this build's binary
//!   (`target/<profile>/hakase`, through a `bin/` directory put first on `PATH`).
//! - The commands of one block run in turn in a fresh empty directory of their own, so a
//!   block can `solve` and then `query` the run it stored; every command must exit with 0.
//! - In an expected line, `[..]` matches any text (a time, say); a line that is only `...`
//!   matches any number of lines.
//! - A block that cannot run here (a server that runs until stopped, minutes of proof) is
//!   marked by the line `<!-- not checked: REASON -->` right above its fence, and is listed,
//!   never run. Any other info string starting with `console` is refused, so a block is
//!   either checked or visibly marked.
//! - `HAKASE_DOCS_BLESS=1` writes the actual output into the pages instead of failing (the
//!   wildcards of a rewritten command are lost: put them back by hand).
//!
//! The other tests here keep the pages' relative links pointing at files (and headings) that
//! exist, and the README's first screen to the two set-up commands.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hakase_tests::{hakase_bin, Scratch};

/// Longest a single command may take before it is killed and the block fails.
const COMMAND_LIMIT: Duration = Duration::from_secs(120);
/// A checked block slower than this is reported: mark it not checked, or make it smaller.
const SLOW_BLOCK: Duration = Duration::from_secs(5);
const SKIP_MARK: &str = "<!-- not checked:";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// README.md and every docs/*.md, as paths relative to the root.
fn pages() -> Vec<String> {
    let root = repo_root();
    let mut pages = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|entry| entry.expect("docs entry").file_name())
        .filter_map(|name| name.to_str().map(str::to_string))
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

struct Example {
    /// 1-based line of the `$ ` line.
    line: usize,
    command: String,
    expected: Vec<String>,
}

struct Block {
    page: String,
    /// 1-based line of the opening fence.
    line: usize,
    examples: Vec<Example>,
}

struct Skipped {
    page: String,
    line: usize,
    reason: String,
}

/// The console blocks of one page: checked ones, and the ones marked not checked.
fn console_blocks(page: &str, text: &str) -> (Vec<Block>, Vec<Skipped>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut skipped = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim_start();
        let ticks = trimmed.chars().take_while(|&c| c == '`').count();
        if ticks < 3 {
            assert!(
                !lines[i].starts_with(SKIP_MARK)
                    || lines
                        .get(i + 1)
                        .is_some_and(|next| next.starts_with("```console")),
                "{page}:{}: a not-checked mark must be right above a ```console fence",
                i + 1
            );
            i += 1;
            continue;
        }
        let info = trimmed[ticks..].trim();
        let fence = &trimmed[..ticks];
        let end = (i + 1..lines.len())
            .find(|&j| lines[j].trim_start().starts_with(fence) && lines[j].trim() == fence)
            .unwrap_or_else(|| panic!("{page}:{}: code block never closed", i + 1));
        if info.starts_with("console") {
            assert_eq!(
                info,
                "console",
                "{page}:{}: a console block is either ```console (checked) or marked with \
                 `{SKIP_MARK} REASON -->` on the line above",
                i + 1
            );
            let mark = i.checked_sub(1).map(|k| lines[k]).unwrap_or("");
            if let Some(rest) = mark.strip_prefix(SKIP_MARK) {
                let reason = rest.trim().trim_end_matches("-->").trim().to_string();
                assert!(
                    !reason.is_empty(),
                    "{page}:{i}: a not-checked mark needs its reason"
                );
                skipped.push(Skipped {
                    page: page.to_string(),
                    line: i + 1,
                    reason,
                });
            } else {
                blocks.push(parse_block(page, i, &lines[i + 1..end]));
            }
        }
        i = end + 1;
    }
    (blocks, skipped)
}

fn parse_block(page: &str, fence: usize, body: &[&str]) -> Block {
    let mut examples: Vec<Example> = Vec::new();
    for (k, line) in body.iter().enumerate() {
        let number = fence + 2 + k;
        if let Some(command) = line.strip_prefix("$ ") {
            examples.push(Example {
                line: number,
                command: command.to_string(),
                expected: Vec::new(),
            });
        } else {
            let example = examples.last_mut().unwrap_or_else(|| {
                panic!("{page}:{number}: output before the block's first `$ ` command")
            });
            example.expected.push(line.to_string());
        }
    }
    assert!(
        !examples.is_empty(),
        "{page}:{}: a console block without a `$ ` command",
        fence + 1
    );
    Block {
        page: page.to_string(),
        line: fence + 1,
        examples,
    }
}

/// Does an expected line (with `[..]` wildcards) match an actual one?
fn line_matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split("[..]").collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Does the expected output (with `...` lines) match the actual lines?
fn output_matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| output_matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(line, more)| line_matches(first, line) && output_matches(rest, more)),
    }
}

/// A line diff of expected (`-`) against actual (`+`), by longest common subsequence.
fn diff(expected: &[String], actual: &[&str]) -> String {
    let (n, m) = (expected.len(), actual.len());
    let mut common = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            common[i][j] = if line_matches(&expected[i], actual[j]) {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let mut out = String::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && line_matches(&expected[i], actual[j]) {
            let _ = writeln!(out, "    {}", actual[j]);
            i += 1;
            j += 1;
        } else if i < n && (j == m || common[i + 1][j] >= common[i][j + 1]) {
            let _ = writeln!(out, "  - {}", expected[i]);
            i += 1;
        } else {
            let _ = writeln!(out, "  + {}", actual[j]);
            j += 1;
        }
    }
    out
}

struct Outcome {
    status: Option<i32>,
    timed_out: bool,
    stdout: String,
    stderr: String,
}

/// Runs one command line by `sh -c` in `work`, with `bin` first on PATH.
fn run(scratch: &Scratch, work: &Path, bin: &Path, command: &str, n: usize) -> Outcome {
    let stdout_path = scratch.join(&format!("out-{n}"));
    let stderr_path = scratch.join(&format!("err-{n}"));
    let path = match std::env::var_os("PATH") {
        Some(old) => {
            let mut paths = vec![bin.to_path_buf()];
            paths.extend(std::env::split_paths(&old));
            std::env::join_paths(paths).expect("PATH")
        }
        None => bin.as_os_str().to_owned(),
    };
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(work)
        .env("PATH", path)
        .env_remove("HAKASE_TOKEN")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(File::create(&stdout_path).expect("stdout file"))
        .stderr(File::create(&stderr_path).expect("stderr file"))
        // Its own process group, so a command that runs too long is killed with its pipe.
        .process_group(0)
        .spawn()
        .expect("starting sh");
    let started = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for sh") {
            break status;
        }
        if started.elapsed() > COMMAND_LIMIT {
            timed_out = true;
            let _ = Command::new("kill")
                .args(["-KILL", &format!("-{}", child.id())])
                .status();
            break child.wait().expect("waiting for sh");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let read = |path: &Path| String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
    Outcome {
        status: status.code(),
        timed_out,
        stdout: read(&stdout_path),
        stderr: read(&stderr_path),
    }
}

/// Rewrites the expected output of the given examples (page line of the `$ ` line, old
/// expected line count, new lines) in one page.
fn bless(page: &str, mut rewrites: Vec<(usize, usize, Vec<String>)>) {
    let path = repo_root().join(page);
    let text = std::fs::read_to_string(&path).expect("page");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    rewrites.sort_by_key(|rewrite| std::cmp::Reverse(rewrite.0));
    for (line, old, new) in rewrites {
        lines.splice(line..line + old, new);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    std::fs::write(&path, out).expect("writing the page");
}

#[test]
fn console_examples_show_real_output() {
    let root = repo_root();
    let hakase = hakase_bin();
    let blessing = std::env::var_os("HAKASE_DOCS_BLESS").is_some();
    let started = Instant::now();
    let mut failures = Vec::new();
    let mut slow = Vec::new();
    let mut checked = 0;
    let mut all_skipped = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(root.join(&page)).expect("page");
        let (blocks, skipped) = console_blocks(&page, &text);
        all_skipped.extend(skipped);
        let mut rewrites = Vec::new();
        for block in blocks {
            checked += 1;
            let block_started = Instant::now();
            let scratch = Scratch::new("docs");
            let (bin, work) = (scratch.join("bin"), scratch.join("work"));
            std::fs::create_dir_all(&bin).expect("bin dir");
            std::fs::create_dir_all(&work).expect("work dir");
            std::os::unix::fs::symlink(&hakase, bin.join("hakase")).expect("linking hakase");
            for (n, example) in block.examples.iter().enumerate() {
                let outcome = run(&scratch, &work, &bin, &example.command, n);
                let actual: Vec<&str> = outcome.stdout.lines().collect();
                let matches = output_matches(&example.expected, &actual);
                let ok = matches && outcome.status == Some(0) && !outcome.timed_out;
                if ok {
                    continue;
                }
                if blessing && outcome.status == Some(0) {
                    rewrites.push((
                        example.line,
                        example.expected.len(),
                        actual.iter().map(|s| s.to_string()).collect(),
                    ));
                    continue;
                }
                let mut report =
                    format!("{}:{}: $ {}\n", block.page, example.line, example.command);
                if outcome.timed_out {
                    let _ = writeln!(report, "  killed after {COMMAND_LIMIT:?}");
                } else if outcome.status != Some(0) {
                    let _ = writeln!(report, "  exit status {:?}", outcome.status);
                }
                if !matches {
                    let _ = writeln!(report, "  output differs (- the page, + the command):");
                    report.push_str(&diff(&example.expected, &actual));
                }
                if !outcome.stderr.trim().is_empty() {
                    let tail: Vec<&str> = outcome.stderr.lines().rev().take(8).collect();
                    let _ = writeln!(report, "  stderr (last lines):");
                    for line in tail.into_iter().rev() {
                        let _ = writeln!(report, "    {line}");
                    }
                }
                failures.push(report);
                // The later commands of the block may need this one's files.
                break;
            }
            let took = block_started.elapsed();
            println!("{}:{} {:.2} s", block.page, block.line, took.as_secs_f64());
            if took > SLOW_BLOCK {
                slow.push(format!(
                    "{}:{} took {:.1} s",
                    block.page,
                    block.line,
                    took.as_secs_f64()
                ));
            }
        }
        if !rewrites.is_empty() {
            println!("rewrote {} examples in {page}", rewrites.len());
            bless(&page, rewrites);
        }
    }
    for skipped in &all_skipped {
        println!(
            "not checked: {}:{} ({})",
            skipped.page, skipped.line, skipped.reason
        );
    }
    for line in &slow {
        println!("slow (over {SLOW_BLOCK:?}; mark it or shorten it): {line}");
    }
    println!(
        "{checked} console blocks checked, {} not checked, in {:.1} s",
        all_skipped.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(checked > 0, "no console block found");
    assert!(
        failures.is_empty(),
        "{} console examples do not show their real output:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown page's headings (outside code blocks).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            let base = anchor(line.trim_start_matches('#'));
            let mut name = base.clone();
            let mut n = 1;
            while set.contains(&name) {
                name = format!("{base}-{n}");
                n += 1;
            }
            set.insert(name);
        }
    }
    set
}

/// The targets of the inline links `[text](target)` of a page, outside code.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut links = Vec::new();
    let mut in_code = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Drop inline code spans, then look for `](`.
        let mut plain = String::new();
        for (k, part) in line.split('`').enumerate() {
            if k % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            links.push((n + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    links
}

#[test]
fn relative_links_of_the_pages_resolve() {
    let root = repo_root();
    let mut broken = Vec::new();
    let mut count = 0;
    for page in pages() {
        let text = std::fs::read_to_string(root.join(&page)).expect("page");
        let dir = Path::new(&page).parent().unwrap_or(Path::new(""));
        for (line, target) in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            count += 1;
            let (file, fragment) = match target.split_once('#') {
                Some((file, fragment)) => (file, Some(fragment)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() {
                root.join(&page)
            } else {
                root.join(dir).join(file)
            };
            if !path.exists() {
                broken.push(format!("{page}:{line}: {target} (no such file)"));
                continue;
            }
            if let Some(fragment) = fragment {
                if path.extension().is_some_and(|ext| ext == "md") {
                    let target_text = std::fs::read_to_string(&path).expect("linked page");
                    if !anchors(&target_text).contains(fragment) {
                        broken.push(format!("{page}:{line}: {target} (no such heading)"));
                    }
                }
            }
        }
    }
    assert!(count > 0, "no relative link found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_opens_with_the_two_set_up_commands() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let lines: Vec<&str> = readme.lines().collect();
    let open = lines
        .iter()
        .position(|line| line.starts_with("```"))
        .expect("a code block");
    assert!(open < 30, "the set-up commands are not on the first screen");
    assert_eq!(
        lines[open], "```sh",
        "the first block is the set-up commands"
    );
    let close = open
        + 1
        + lines[open + 1..]
            .iter()
            .position(|line| line.starts_with("```"))
            .expect("closed");
    let commands: Vec<&str> = lines[open + 1..close]
        .iter()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|command| !command.is_empty())
        .collect();
    assert_eq!(commands, ["cargo run --release -- solve", "scripts/test"]);
    assert!(repo_root().join("scripts/test").exists());
    let default_run = repo_root().join("Cargo.toml");
    let manifest = std::fs::read_to_string(default_run).expect("Cargo.toml");
    assert!(
        manifest.contains("default-members = [\"coordinator\"]"),
        "`cargo run` at the root needs a default binary"
    );
}
