//! Every parser of user input, fed arbitrary and mangled text: each must return a value or a
//! typed error, never panic, and what it accepts must mean what it says.

use std::sync::OnceLock;

use hakase_core::rules::history::Step;
use hakase_core::rules::normalize::normalize_word;
use hakase_core::rules::pattern::Pattern;
use hakase_core::rules::presets::load_preset;
use hakase_core::rules::word::read_word_list;
use hakase_core::solver::{FirstGuesses, Solver, SolverConfig};
use hakase_core::trees::treefile;
use hakase_core::{FeedbackTable, Game, PatternStyle, WordListInput};
use proptest::prelude::*;

/// A small real game with its optimal tree, in both file formats.
struct Fixture {
    game: Game,
    json: String,
    text: String,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let game = load_preset("pokemon-gen:1").expect("preset");
        let table = FeedbackTable::build(&game);
        let solver = Solver::new(&game, &table, SolverConfig::default(), 1 << 16);
        let first = game.find_guess("ニドクイン").expect("word");
        let solution = solver.solve_game(FirstGuesses::Only(first), &|_| {});
        let tree = solution.tree.expect("a tree");
        let json = treefile::to_json(&game, &tree, serde_json::json!({}));
        let text = treefile::to_text(&game, &table, &tree, true);
        drop(solver);
        Fixture { game, json, text }
    })
}

/// Text made of the characters parsers care about, plus anything else.
fn noisy_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,40}",
        proptest::collection::vec(
            proptest::sample::select(vec![
                'コ', 'ー', '灰', '黄', '緑', 'B', 'Y', 'G', '0', '1', '2', '=', ':', ' ', '\n',
                '\r', '\u{feff}', 'ｺ', 'こ', '⬛', '🟨', '🟩', '{', '}', '"'
            ]),
            0..60
        )
        .prop_map(|c| c.into_iter().collect()),
    ]
}

/// `text` with bytes replaced, removed or duplicated at `edits` positions.
fn mangle(text: &str, edits: &[(usize, u8, u8)]) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    for &(at, op, byte) in edits {
        if bytes.is_empty() {
            break;
        }
        let at = at % bytes.len();
        match op % 3 {
            0 => bytes[at] = byte,
            1 => {
                bytes.remove(at);
            }
            _ => bytes.insert(at, byte),
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn histories_and_patterns_never_panic(text in noisy_text(), len in 0usize..8) {
        let game = &fixture().game;
        if let Ok(step) = Step::parse(game, &text) {
            // What is accepted reads back the same.
            prop_assert_eq!(Step::parse(game, &step.display(game)), Ok(step));
        }
        if let Ok(pattern) = Pattern::parse(&text, len) {
            for style in [PatternStyle::Kanji, PatternStyle::Letters, PatternStyle::Digits] {
                prop_assert_eq!(Pattern::parse(&pattern.format(len, style), len), Ok(pattern));
            }
        }
    }

    #[test]
    fn word_lists_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        if let Ok(words) = read_word_list(&bytes, "fuzz") {
            let list = WordListInput { label: "fuzz".into(), words };
            let _ = Game::new("fuzz", list.clone(), list, 6, PatternStyle::Letters);
        }
    }

    #[test]
    fn normalizing_twice_changes_nothing(text in noisy_text()) {
        let once = normalize_word(&text);
        prop_assert_eq!(normalize_word(&once), once);
    }

    #[test]
    fn mangled_tree_files_never_panic(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6),
        json in any::<bool>(),
    ) {
        let f = fixture();
        let source = if json { &f.json } else { &f.text };
        let bytes = mangle(source, &edits);
        let text = String::from_utf8_lossy(&bytes);
        let tree = if json {
            treefile::from_json(&f.game, &text)
        } else {
            treefile::from_text(&f.game, &text)
        };
        if let Ok(tree) = tree {
            // Whatever is read is then checked without trusting it.
            let _ = hakase_core::verify(&f.game, &tree, Default::default());
        }
    }

    #[test]
    fn arbitrary_text_is_not_a_tree(text in noisy_text()) {
        let game = &fixture().game;
        let _ = treefile::from_text(game, &text);
        let _ = treefile::from_json(game, &text);
    }
}

#[test]
fn the_fixture_trees_read_back() {
    let f = fixture();
    let from_json = treefile::from_json(&f.game, &f.json).expect("json");
    let from_text = treefile::from_text(&f.game, &f.text).expect("text");
    assert_eq!(from_json, from_text);
    // A byte-order mark in front changes nothing.
    let bom = format!("\u{feff}{}", f.text);
    assert_eq!(treefile::from_text(&f.game, &bom).expect("bom"), from_text);
    let bom = format!("\u{feff}{}", f.json);
    assert_eq!(treefile::from_json(&f.game, &bom).expect("bom"), from_json);
}

#[test]
fn a_very_deep_text_tree_is_refused_without_overflowing() {
    let game = load_preset("wordle").expect("preset");
    let mut line = String::new();
    for step in 1..=60_000 {
        line.push_str(&format!("salet BBBBB{step} "));
    }
    line.push_str("crane GGGGG60001\n");
    assert_eq!(
        treefile::from_text(&game, &line),
        Err(treefile::TreeFileError::Line {
            line: 1,
            why: "60001 steps, more than the game's 6 tries".into()
        })
    );
}

#[test]
fn a_very_deep_json_tree_is_refused_without_overflowing() {
    let game = load_preset("wordle").expect("preset");
    let mut doc = String::new();
    let depth = 60_000;
    for _ in 0..depth {
        doc.push_str(r#"{"guess":"salet","branches":[{"pattern":"BBBBB","node":"#);
    }
    doc.push_str(r#"{"guess":"crane"}"#);
    for _ in 0..depth {
        doc.push_str("}]}");
    }
    let text = format!(
        r#"{{"schema":"hakase-tree/1","game":"wordle","fingerprint":"{}","about":{{}},"root":{doc}}}"#,
        game.fingerprint()
    );
    match treefile::from_json(&game, &text) {
        Err(treefile::TreeFileError::Json(why)) => {
            assert!(why.starts_with("recursion limit exceeded"), "{why}")
        }
        other => panic!("expected a JSON error, got {other:?}"),
    }
}
