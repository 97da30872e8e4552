//! Trees on disk: a versioned JSON document and the one-line-per-answer text format of the
//! published optimal Wordle trees (`salet BBBBB1 courd BBBBB2 … whiff GGGGG4`).
//!
//! Files name words and patterns as people write them, so they can be read, diffed and
//! checked by other tools; reading resolves them against a game and checks the structure,
//! and [`crate::verify`] then checks the play itself.

use crate::plural::plural;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::rules::game::{AnswerId, Game};
use crate::rules::history::partition;
use crate::rules::pattern::Pattern;
use crate::rules::table::FeedbackTable;
use crate::trees::tree::Tree;

/// The JSON schema identifier written into every document.
pub const SCHEMA: &str = "hakase-tree/1";

/// What can be wrong with a tree file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TreeFileError {
    /// The JSON could not be parsed or has another schema.
    #[error("not a hakase tree document: {0}")]
    Json(String),
    /// A word or pattern that the game does not know.
    #[error("line {line}: {why}")]
    Line {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// The file has no lines.
    #[error("the tree file is empty")]
    Empty,
}

/// A tree with the facts needed to read it back: game and configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TreeDocument {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// The game's name.
    pub game: String,
    /// The game's fingerprint: a tree read against another game is refused.
    pub fingerprint: String,
    /// Free-form facts about how the tree was made (objective, mode, proven, total).
    pub about: serde_json::Value,
    /// The tree, in words.
    pub root: NodeDoc,
}

/// One node of a [`TreeDocument`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NodeDoc {
    /// The guess, as typed.
    pub guess: String,
    /// Subtrees by the pattern shown, in the game's pattern style.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<BranchDoc>,
}

/// A pattern and the subtree it leads to.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BranchDoc {
    /// The feedback.
    pub pattern: String,
    /// What to do next.
    pub node: NodeDoc,
}

/// Writes the JSON document of a tree.
pub fn to_json(game: &Game, tree: &Tree, about: serde_json::Value) -> String {
    fn node(game: &Game, tree: &Tree) -> NodeDoc {
        let len = game.guesses()[tree.guess as usize].len();
        NodeDoc {
            guess: game.guess_text(tree.guess).to_string(),
            branches: tree
                .branches
                .iter()
                .map(|(p, t)| BranchDoc {
                    pattern: p.format(len, game.style()),
                    node: node(game, t),
                })
                .collect(),
        }
    }
    let doc = TreeDocument {
        schema: SCHEMA.to_string(),
        game: game.name().to_string(),
        fingerprint: game.fingerprint().to_string(),
        about,
        root: node(game, tree),
    };
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// Reads a JSON document against `game`.
pub fn from_json(game: &Game, text: &str) -> Result<Tree, TreeFileError> {
    tree_of(game, &parse_document(text)?)
}

/// Parses a JSON document without resolving it against a game (a BOM is fine; nesting is
/// bounded by serde_json's recursion limit).
pub fn parse_document(text: &str) -> Result<TreeDocument, TreeFileError> {
    serde_json::from_str(strip_bom(text)).map_err(|e| TreeFileError::Json(e.to_string()))
}

/// `text` without a leading byte-order mark, which editors on Windows like to add.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Resolves a parsed document against `game`: the fingerprint must match, every word and
/// pattern must be the game's, and no path may be longer than the game's tries.
pub fn tree_of(game: &Game, doc: &TreeDocument) -> Result<Tree, TreeFileError> {
    if doc.schema != SCHEMA {
        return Err(TreeFileError::Json(format!(
            "schema {:?}, expected {SCHEMA:?}",
            doc.schema
        )));
    }
    if doc.fingerprint != game.fingerprint() {
        return Err(TreeFileError::Json(format!(
            "the tree is for game {} ({}), not {} ({})",
            doc.game,
            doc.fingerprint,
            game.name(),
            game.fingerprint()
        )));
    }
    fn node(game: &Game, doc: &NodeDoc, depth: u32) -> Result<Tree, TreeFileError> {
        // A JSON document has no lines worth naming: say what is wrong in the tree.
        let bad = |why: String| TreeFileError::Json(why);
        if depth > game.tries() {
            return Err(bad(format!(
                "the tree is deeper than the game's {}",
                plural(game.tries(), "try", "tries")
            )));
        }
        let guess = game
            .find_guess(&doc.guess)
            .map_err(|e| bad(e.to_string()))?;
        let len = game.guesses()[guess as usize].len();
        let mut branches = Vec::with_capacity(doc.branches.len());
        for b in &doc.branches {
            let pattern = Pattern::parse(&b.pattern, len).map_err(|e| bad(e.to_string()))?;
            branches.push((pattern, node(game, &b.node, depth + 1)?));
        }
        branches.sort_by_key(|(p, _)| *p);
        if branches.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err(bad(format!(
                "{} has two branches for one pattern",
                doc.guess
            )));
        }
        Ok(Tree { guess, branches })
    }
    node(game, &doc.root, 1)
}

/// Writes the text format: one line per answer with its whole path, each step as
/// `GUESS PATTERNn` (n = guesses so far), ending with the winning step. With `compact`, the
/// prefix a line shares with the line above is replaced by as many spaces as it has
/// characters. Lines follow the tree in pattern order.
pub fn to_text(game: &Game, table: &FeedbackTable, tree: &Tree, compact: bool) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut path: Vec<String> = Vec::new();
    walk(
        game,
        table,
        tree,
        &game.all_answers(),
        &mut path,
        &mut lines,
    );
    if !compact {
        return lines.iter().map(|l| format!("{l}\n")).collect();
    }
    let mut out = String::new();
    let mut previous: Vec<char> = Vec::new();
    for line in &lines {
        let chars: Vec<char> = line.chars().collect();
        // Share whole steps only, so a reader never has to split a word.
        let mut shared = 0;
        for (i, (a, b)) in chars.iter().zip(&previous).enumerate() {
            if a != b {
                break;
            }
            if *a == ' ' {
                shared = i + 1;
            }
        }
        out.extend(std::iter::repeat_n(' ', shared));
        out.extend(&chars[shared..]);
        out.push('\n');
        previous = chars;
    }
    out
}

fn walk(
    game: &Game,
    table: &FeedbackTable,
    tree: &Tree,
    set: &[AnswerId],
    path: &mut Vec<String>,
    lines: &mut Vec<String>,
) {
    let len = game.guesses()[tree.guess as usize].len();
    let depth = path.len() + 1;
    for (pattern, part) in partition(table, tree.guess, set) {
        let step = format!(
            "{} {}{}",
            game.guess_text(tree.guess),
            pattern.format(len, game.style()),
            depth
        );
        if pattern.is_win() {
            let mut line = path.clone();
            line.push(step);
            lines.push(line.join(" "));
        } else if let Some(child) = tree.branch(pattern) {
            path.push(step);
            walk(game, table, child, &part, path, lines);
            path.pop();
        }
    }
}

/// Reads the text format (full or compact lines) into a tree. Checks the structure: step
/// numbers count up from 1, every line ends with a win, one guess per node, no answer twice.
/// Whether the patterns are true is [`crate::verify`]'s job.
pub fn from_text(game: &Game, text: &str) -> Result<Tree, TreeFileError> {
    let mut root: Option<Tree> = None;
    let mut previous: Vec<char> = Vec::new();
    let mut answers_seen = std::collections::HashSet::new();
    for (index, raw) in strip_bom(text).lines().enumerate() {
        let line_no = index + 1;
        let bad = |why: String| TreeFileError::Line { line: line_no, why };
        let raw = raw.trim_end_matches('\r');
        if raw.trim().is_empty() {
            continue;
        }
        let indent = raw.chars().take_while(|c| *c == ' ').count();
        if indent > previous.len() {
            return Err(bad("indented further than the line above is long".into()));
        }
        let full: Vec<char> = previous[..indent]
            .iter()
            .copied()
            .chain(raw.chars().skip(indent))
            .collect();
        let line: String = full.iter().collect();
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.is_empty() || !tokens.len().is_multiple_of(2) {
            return Err(bad(
                "expected pairs of a guess and its pattern followed by the guess number, \
                 e.g. \"salet BBYBB1 crane GGGGG2\""
                    .into(),
            ));
        }
        // Deeper paths cannot be played; refusing them also bounds the recursion below.
        if tokens.len() / 2 > game.tries() as usize {
            return Err(bad(format!(
                "{} steps, more than the game's {}",
                tokens.len() / 2,
                plural(game.tries(), "try", "tries")
            )));
        }
        let mut steps = Vec::new();
        for (k, pair) in tokens.chunks(2).enumerate() {
            let guess = game.find_guess(pair[0]).map_err(|e| bad(e.to_string()))?;
            let len = game.guesses()[guess as usize].len();
            let digits: String = pair[1].chars().skip(len).collect();
            let cells: String = pair[1].chars().take(len).collect();
            let count: usize = digits
                .parse()
                .map_err(|_| bad(format!("{:?} should end with the guess number", pair[1])))?;
            if count != k + 1 {
                return Err(bad(format!("step {} is numbered {count}", k + 1)));
            }
            let pattern = Pattern::parse(&cells, len).map_err(|e| bad(e.to_string()))?;
            steps.push((guess, pattern));
        }
        let (last_guess, last_pattern) = steps[steps.len() - 1];
        if !last_pattern.is_win() {
            return Err(bad("the line does not end with the winning pattern".into()));
        }
        if steps[..steps.len() - 1].iter().any(|(_, p)| p.is_win()) {
            return Err(bad("a win before the end of the line".into()));
        }
        if !answers_seen.insert(last_guess) {
            return Err(bad(format!(
                "{} is solved twice",
                game.guess_text(last_guess)
            )));
        }
        insert(&mut root, &steps).map_err(bad)?;
        previous = full;
    }
    root.ok_or(TreeFileError::Empty)
}

fn insert(
    slot: &mut Option<Tree>,
    steps: &[(crate::rules::game::GuessId, Pattern)],
) -> Result<(), String> {
    let (guess, pattern) = steps[0];
    let node = slot.get_or_insert_with(|| Tree::leaf(guess));
    if node.guess != guess {
        return Err(format!(
            "this line guesses a different word at a node where an earlier line did (step {})",
            1
        ));
    }
    if pattern.is_win() {
        return Ok(());
    }
    let index = match node.branches.binary_search_by_key(&pattern, |(p, _)| *p) {
        Ok(i) => i,
        Err(i) => {
            node.branches.insert(i, (pattern, Tree::leaf(steps[1].0)));
            i
        }
    };
    let mut child = Some(std::mem::replace(
        &mut node.branches[index].1,
        Tree::leaf(0),
    ));
    let result = insert(&mut child, &steps[1..]);
    if let Some(c) = child {
        node.branches[index].1 = c;
    }
    result
}
