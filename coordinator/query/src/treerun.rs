//! Tree files as runs: a tree written by `hakase solve --tree-out` (JSON document or one line
//! per answer) answers the same questions as a run database, so results of
//! `solve --first W --in-memory` can be queried and served; and the tree document of a run,
//! as `export` and the query service write it.

use std::path::Path;

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{FirstGuessValue, Outcome, Solution, SolverConfig};
use hakase_core::trees::tree::{Evaluation, Tree};
use hakase_core::trees::treefile::{self, TreeDocument};
use hakase_core::{FeedbackTable, Game};
use thiserror::Error;

use hakase_core::label::Label;
use hakase_runs::Manifest;
use hakase_runs::{LoadedRun, RunError};

/// Largest tree file read: a full Wordle tree in JSON is a few MiB.
pub const MAX_TREE_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Why a tree file could not be served.
#[derive(Debug, Error)]
pub enum TreeRunError {
    /// The file could not be read.
    #[error("tree file {path}: {why}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        why: String,
    },
    /// A file that is neither of the two tree formats (a JSON document that does not parse
    /// is said to be one, with the parser's words): refused before any game is asked for.
    #[error("tree file {path} is {what}")]
    NotATree {
        /// The file.
        path: String,
        /// What it is instead.
        what: String,
    },
    /// A text tree names no game and none was given.
    #[error(
        "tree file {0} is in the text format, which does not name its game: give the game \
         (--game G)"
    )]
    NoGame(String),
    /// The game could not be loaded.
    #[error("tree file {path}: game {game:?}: {why}")]
    Game {
        /// The file.
        path: String,
        /// The game asked for.
        game: String,
        /// Why it did not load.
        why: String,
    },
    /// The tree does not parse against the game, or does not win every answer.
    #[error("tree file {path}: {why}")]
    Tree {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
}

/// Loads a tree file as a run named after the file (its stem). The game is the one the JSON
/// document names unless `game` is given (a text tree needs it); the tree is checked against
/// every answer, so a wrong tree is refused rather than served.
pub fn load_tree_file(path: &Path, game: Option<&str>) -> Result<LoadedRun, TreeRunError> {
    let shown = path.display().to_string();
    let text = read_limited(path, &shown)?;
    let doc = read_format(&text).map_err(|what| TreeRunError::NotATree {
        path: shown.clone(),
        what,
    })?;
    let game = game_of(game, doc.as_ref(), &shown)?;
    let bad_tree = |why: String| TreeRunError::Tree {
        path: shown.clone(),
        why,
    };
    let tree = match &doc {
        Some(_) => treefile::from_json(&game, &text),
        None => treefile::from_text(&game, &text),
    }
    .map_err(|e| bad_tree(e.to_string()))?;
    let config: SolverConfig = doc
        .as_ref()
        .and_then(|d| serde_json::from_value(d.about["config"].clone()).ok())
        .unwrap_or_default();
    let table = FeedbackTable::build(&game);
    let cap = config.guess_cap(&game);
    let evaluation = tree.evaluate(&game, &table, &game.all_answers());
    if !evaluation.unsolved.is_empty() || evaluation.worst > cap {
        return Err(bad_tree(format!(
            "the tree does not find every answer within {cap} guesses ({} never found, worst {})",
            evaluation.unsolved.len(),
            evaluation.worst
        )));
    }
    let stated = Stated::of(doc.as_ref(), cap);
    let first = stated.first.clone();
    // Read back as the run held them, so every view of the file words its claim the same.
    let mut unchecked: Vec<_> = stated
        .unchecked
        .iter()
        .filter_map(|w| game.lookup_guess(w))
        .collect();
    unchecked.sort_unstable();
    unchecked.dedup();
    let name = path
        .file_stem()
        .map_or_else(|| shown.clone(), |s| s.to_string_lossy().into_owned());
    Ok(LoadedRun {
        name,
        path: path.to_path_buf(),
        manifest: manifest(&game, &config, modified_secs(path)),
        table,
        solution: Some(solution(config, tree, evaluation, stated)),
        first,
        game,
        damage: Default::default(),
        unchecked,
    })
}

/// The JSON document of a tree file, `None` for a text tree; what the file is instead when
/// it is neither. A text tree's lines are pairs of a guess and its pattern ending in the
/// guess's number (`salet BBYBB1 crane GGGGG2`): a file whose first line is not is no tree,
/// and reading it as one would only complain about its first word.
fn read_format(text: &str) -> Result<Option<TreeDocument>, String> {
    let start = text.trim_start_matches('\u{feff}').trim_start();
    if start.starts_with('{') {
        return serde_json::from_str(start)
            .map(Some)
            .map_err(|e| format!("not a valid JSON tree document: {e}"));
    }
    let first = start.lines().next().unwrap_or_default();
    let tokens: Vec<&str> = first.split_whitespace().collect();
    let numbered = |pattern: &&str| pattern.ends_with(|c: char| c.is_ascii_digit());
    let looks_like_text = !tokens.is_empty()
        && tokens.len().is_multiple_of(2)
        && tokens.iter().skip(1).step_by(2).all(numbered);
    if looks_like_text {
        return Ok(None);
    }
    Err(if start.is_empty() {
        "empty: a tree file is the JSON document `hakase solve --tree-out` writes, or its \
         text form"
            .to_string()
    } else {
        "neither a JSON tree document nor a text tree (lines such as \"salet BBYBB1 crane \
         GGGGG2\", as `hakase export --format text` writes)"
            .to_string()
    })
}

/// The game of a tree file: `game` when given, else the one its JSON document names.
fn game_of(
    game: Option<&str>,
    doc: Option<&TreeDocument>,
    shown: &str,
) -> Result<Game, TreeRunError> {
    let name = match (game, doc) {
        (Some(g), _) => g.to_string(),
        (None, Some(doc)) => doc.game.clone(),
        (None, None) => return Err(TreeRunError::NoGame(shown.to_string())),
    };
    load_preset(&name).map_err(|e| TreeRunError::Game {
        path: shown.to_string(),
        game: name.clone(),
        why: e.to_string(),
    })
}

/// The manifest a finished run of `game` under `config` would have, stamped `stamp`.
fn manifest(game: &Game, config: &SolverConfig, stamp: u64) -> Manifest {
    Manifest {
        version: 0,
        game: game.name().to_string(),
        fingerprint: game.fingerprint().to_string(),
        config: config.clone(),
        started: stamp,
        updated: stamp,
        finished: true,
        audit_key: None,
        scope: Default::default(),
    }
}

/// The solution a checked tree stands for: its root as the one ranked first guess, with
/// the proof and guess budget the document states.
fn solution(config: SolverConfig, tree: Tree, evaluation: Evaluation, stated: Stated) -> Solution {
    let total = u32::try_from(evaluation.total).unwrap_or(u32::MAX);
    let best = FirstGuessValue {
        guess: tree.guess,
        outcome: Outcome::Exact {
            value: total,
            guess: tree.guess,
        },
    };
    Solution {
        config,
        guesses_left: stated.guesses_left,
        best: Some(best),
        ranking: vec![best],
        proven: stated.proven,
        tree: Some(tree),
        evaluation: Some(evaluation),
    }
}

/// Reads the file whole, refusing one bigger than a tree file may be.
fn read_limited(path: &Path, shown: &str) -> Result<String, TreeRunError> {
    let read_err = |why: String| TreeRunError::Read {
        path: shown.to_string(),
        why,
    };
    let size = std::fs::metadata(path)
        .map_err(|e| read_err(e.to_string()))?
        .len();
    if size > MAX_TREE_FILE_BYTES {
        return Err(read_err(format!(
            "{size} bytes, more than the {MAX_TREE_FILE_BYTES} a tree file may have"
        )));
    }
    std::fs::read_to_string(path).map_err(|e| read_err(e.to_string()))
}

/// The `about` object of a tree document: what the solve was (options, proof, the first
/// guess it was restricted to, its claim, total and guess budget) and the run it came from.
/// Every writer of a tree file (`solve --tree-out`, `coordinator --tree-out`, `export`, the
/// `Tree` RPC) calls this, and [`load_tree_file`] reads these fields back.
/// `unchecked` names the first guesses whose row rests on a worker claim nobody re-ran (a
/// coordinator's run): the claim then holds only if they do, and a reader of the file says so.
pub fn about(
    run: Option<&str>,
    config: &SolverConfig,
    solution: Option<&Solution>,
    first: Option<&str>,
    unchecked: &[String],
) -> serde_json::Value {
    let proven = solution.is_some_and(|s| s.proven);
    let label = Label::of_result(proven, first.is_some()).resting_on(unchecked.len());
    serde_json::json!({
        "run": run,
        "config": config,
        "proven": solution.map(|s| s.proven),
        "unchecked_claims": unchecked,
        "first_guess": first,
        "label": label,
        "claim": label.claim(first),
        "total": solution.and_then(|s| s.best).map(|b| b.outcome.value()),
        "guesses_left": solution.map(|s| s.guesses_left),
    })
}

/// The two ways a tree is written: the JSON document (with the run's facts, see [`about`])
/// or one line per answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeFormat {
    /// The JSON tree document.
    Json,
    /// One line per answer, the guesses and colours that find it.
    Text,
}

/// The optimal tree of `run` written in `format`.
pub fn document(run: &LoadedRun, format: TreeFormat) -> Result<String, RunError> {
    let oracle = run.oracle()?;
    Ok(match format {
        TreeFormat::Text => treefile::to_text(&run.game, &run.table, oracle.tree(), false),
        TreeFormat::Json => treefile::to_json(&run.game, oracle.tree(), tree_about(run)),
    })
}

/// The facts written into a tree document of a run: options, proof, total.
pub fn tree_about(run: &LoadedRun) -> serde_json::Value {
    about(
        Some(&run.name),
        &run.manifest.config,
        run.solution.as_ref(),
        run.first.as_deref(),
        &run.unchecked_names(),
    )
}

/// What a JSON tree document says of its solve; a text tree says nothing, so it is not
/// proven and has the game's whole guess budget.
struct Stated {
    proven: bool,
    first: Option<String>,
    guesses_left: u32,
    /// The first guesses the document names as resting on unchecked worker claims.
    unchecked: Vec<String>,
}

impl Stated {
    fn of(doc: Option<&TreeDocument>, cap: u32) -> Stated {
        let about = doc.map(|d| &d.about);
        Stated {
            proven: about.and_then(|a| a["proven"].as_bool()).unwrap_or(false),
            unchecked: about
                .and_then(|a| a["unchecked_claims"].as_array())
                .map(|names| {
                    names
                        .iter()
                        .filter_map(|n| n.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            first: about
                .and_then(|a| a["first_guess"].as_str())
                .map(str::to_string),
            guesses_left: about
                .and_then(|a| a["guesses_left"].as_u64())
                .and_then(|g| u32::try_from(g).ok())
                .unwrap_or(cap),
        }
    }
}

/// Unix seconds of the file's last change (0 when unknown).
fn modified_secs(path: &Path) -> u64 {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs())
}
