//! The strategies of `hakase compare` on pokemon-qiita2023 from レントラー: exact totals, each
//! cross-checked by replaying every game with feedback recomputed from the words; every game
//! legal; the optimum row equal to the solver's total.

use crate::common::preset;
use hakase_core::heuristics::strategies::catalog::{contender, Contender, Options, COMPARE_NAMES};
use hakase_core::heuristics::strategies::frequency::FrequencyFamily;
use hakase_core::heuristics::strategies::play::play_tree;
use hakase_core::heuristics::strategies::scoreboard::{guesses_per_answer, row, worst_losses};
use hakase_core::heuristics::strategies::universe::Universe;
use hakase_core::heuristics::strategies::Player;
use hakase_core::rules::history::Step;
use hakase_core::solver::{FirstGuesses, Mode, Solver, SolverConfig};
use hakase_core::trees::tree::{Tree, MAX_DEPTH};
use hakase_core::{feedback, Game, GuessId, PatternStyle, WordListInput};

/// Walks every answer down the tree with feedback computed from the words themselves (not
/// the feedback table), checking that each guess is an allowed word and, for a strategy that
/// claims strict play, that it fits every clue shown before. Returns the total guesses and
/// the answers never found.
fn replay(game: &Game, tree: &Tree, mode: Mode) -> (u64, usize) {
    let mut total = 0;
    let mut lost = 0;
    for answer in game.answers() {
        let mut node = tree;
        let mut seen: Vec<Step> = Vec::new();
        let mut found = None;
        for guesses in 1..=MAX_DEPTH {
            assert!((node.guess as usize) < game.guesses().len(), "allowed word");
            let word = &game.guesses()[node.guess as usize];
            if mode == Mode::Strict {
                for step in &seen {
                    let before = &game.guesses()[step.guess as usize];
                    assert_eq!(feedback(before, word), step.pattern, "strict play");
                }
            }
            let pattern = feedback(word, answer);
            if pattern.is_win() {
                found = Some(guesses);
                break;
            }
            seen.push(Step {
                guess: node.guess,
                pattern,
            });
            match node.branch(pattern) {
                Some(next) => node = next,
                None => break,
            }
        }
        match found {
            Some(g) => total += u64::from(g),
            None => lost += 1,
        }
    }
    (total, lost)
}

/// Expected totals from レントラー (and answers never found), asserted exactly.
const EXPECTED: [(&str, u64, usize); 9] = [
    ("entropy", 1007, 0),
    ("min-expected-size", 972, 0),
    ("most-parts", 974, 0),
    ("minimax", 988, 0),
    ("frequency", 994, 0),
    ("frequency-candidates", 996, 0),
    ("frequency-probe", 1001, 0),
    ("frequency-differing", 1001, 0),
    ("top-k", 966, 0),
];

#[test]
fn every_strategy_from_rentorar_on_pokemon_qiita2023() {
    let (game, table) = preset("pokemon-qiita2023");
    let first = game.find_guess("レントラー").expect("word");
    let universe = Universe::answers(&game);
    let options = Options::default();
    let mut totals = Vec::new();
    for name in COMPARE_NAMES {
        let c = contender(name, &options).expect("known name");
        let tree = c
            .play(&game, &table, &universe, Some(first))
            .expect("a tree");
        assert_eq!(tree.guess, first);
        let mode = match &c {
            Contender::Heuristic(p) => p.mode(),
            Contender::TopK(_) => Mode::Normal,
        };
        let (total, lost) = replay(&game, &tree, mode);
        let guesses = guesses_per_answer(&tree, &table, game.answers().len());
        let r = row(
            &game,
            name,
            first,
            Some("answers"),
            "heuristic",
            &guesses,
            None,
        );
        assert_eq!(
            (r.total, r.unsolved.len()),
            (total, lost),
            "{name}: tree and replay agree"
        );
        totals.push((name, total, lost));
    }
    assert_eq!(totals, EXPECTED);
}

#[test]
fn the_optimum_row_is_the_solvers_total_and_bounds_every_strategy() {
    let (game, table) = preset("pokemon-qiita2023");
    let first = game.find_guess("レントラー").expect("word");
    let solver = Solver::new(&game, &table, SolverConfig::default(), 1 << 20);
    let solution = solver.solve_game(FirstGuesses::Only(first), &|_| {});
    let best = solution.best.expect("solved").outcome.value();
    assert_eq!(best, 966);
    let tree = solution.tree.expect("tree");
    let optimum = guesses_per_answer(&tree, &table, game.answers().len());
    let r = row(
        &game,
        "optimum",
        first,
        None,
        "proven optimum",
        &optimum,
        Some(&optimum),
    );
    assert_eq!(
        (r.total, r.extra, r.optimal_percent),
        (966, Some(0), Some(100.0))
    );
    assert_eq!(replay(&game, &tree, Mode::Normal), (966, 0));
    for (name, total, _) in EXPECTED {
        assert!(total >= 966, "{name} cannot beat the optimum");
    }
    // The worst answers of entropy are where it needs more guesses than the optimum.
    let c = contender("entropy", &Options::default()).expect("known");
    let entropy = c
        .play(&game, &table, &Universe::answers(&game), Some(first))
        .expect("tree");
    let mine = guesses_per_answer(&entropy, &table, game.answers().len());
    let losses = worst_losses(&mine, &optimum, 3);
    assert_eq!(losses.len(), 3);
    assert!(losses.iter().all(|l| l.mine.expect("found") > l.optimum));
}

/// A tiny game with batch/hatch/match/patch/watch: four letters shared, b h m p w differ.
fn tch_game() -> (Game, hakase_core::FeedbackTable) {
    let answers = ["batch", "hatch", "match", "patch", "watch"];
    let guesses = ["abcde", "bumpy", "whomp", "xylyl"];
    let game = Game::new(
        "tch",
        WordListInput::from_words("guesses", &guesses),
        WordListInput::from_words("answers", &answers),
        6,
        PatternStyle::Letters,
    )
    .expect("game");
    let table = hakase_core::FeedbackTable::build(&game);
    (game, table)
}

#[test]
fn the_differing_letters_probe_splits_words_that_share_four_letters() {
    let (game, table) = tch_game();
    let text = |g: GuessId| game.guess_text(g).to_string();
    let universe = Universe::answers(&game);
    // bumpy and whomp both hold three of b m p w (h is shared); bumpy comes first.
    let differing = FrequencyFamily::differing(9, 4, 4);
    let tree = play_tree(&game, &table, &differing, &universe, None);
    assert_eq!(text(tree.guess), "bumpy");
    assert_eq!(replay(&game, &tree, Mode::Normal).1, 0);
    // Needing five shared letters, it falls back to the richest candidate (batch: first).
    let strict = FrequencyFamily::differing(9, 4, 5);
    let tree = play_tree(&game, &table, &strict, &universe, None);
    assert_eq!(text(tree.guess), "batch");
    let candidates = FrequencyFamily::candidates();
    assert_eq!(candidates.mode(), Mode::Strict);
    let tree = play_tree(&game, &table, &candidates, &universe, None);
    assert_eq!(replay(&game, &tree, Mode::Strict), (1 + 2 + 3 + 4 + 5, 0));
}

#[test]
fn a_universe_of_all_guesses_draws_candidates_that_fit_every_clue() {
    // pokemon-today allows names of #494–1025 that are never answers.
    let (game, table) = preset("pokemon-today");
    let first = game.find_guess("レントラー").expect("word");
    let all: Vec<GuessId> = (0..game.guesses().len() as GuessId).collect();
    let universe = Universe::new(vec![("guesses".into(), all)], &game);
    assert_eq!(universe.label(), "guesses");
    let player = FrequencyFamily::candidates();
    let tree = play_tree(&game, &table, &player, &universe, Some(first));
    // Strict play still holds: every guess fits the clues, though not every one is an answer.
    assert_eq!(replay(&game, &tree, Mode::Strict), (1020, 0));
    fn guesses(tree: &Tree, out: &mut Vec<GuessId>) {
        out.push(tree.guess);
        for (_, t) in &tree.branches {
            guesses(t, out);
        }
    }
    let mut played = Vec::new();
    guesses(&tree, &mut played);
    assert!(played.iter().any(|&g| game.guess_as_answer(g).is_none()));
}

/// A strategy played on a part proves an upper bound on its optimum within the guesses
/// left, and none when it cannot find every answer in time.
#[test]
fn a_played_strategy_bounds_the_optimum_from_above() {
    use hakase_core::heuristics::strategy::{total_within, EntropyStrategy};
    use hakase_core::solver::{Node, Solver, SolverConfig, INFEASIBLE};
    let game = hakase_core::rules::presets::load_preset("pokemon-qiita2023").expect("preset");
    let table = hakase_core::FeedbackTable::build(&game);
    let solver = Solver::new(&game, &table, SolverConfig::default(), 1 << 18);
    let all = game.all_answers();
    let mut checked = 0;
    for first in ["ジーランス", "ピカチュウ", "ミュウ"] {
        let guess = game.find_guess(first).expect("known word");
        for (_, part) in hakase_core::rules::history::open_parts(&table, guess, &all) {
            for left in 1..=4u32 {
                let node = Node {
                    candidates: part.clone(),
                    guesses_left: left,
                    hard: Default::default(),
                };
                let optimum = solver.evaluate(&node, INFEASIBLE);
                let played = total_within(&EntropyStrategy, &game, &table, &part, left);
                match played {
                    Some(total) => {
                        assert!(
                            optimum.is_exact() && optimum.value() <= total,
                            "{first} {left}"
                        )
                    }
                    None => assert!(part.len() > 1, "one answer is always found"),
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
    let three = &all[..3];
    assert_eq!(
        total_within(&EntropyStrategy, &game, &table, three, 1),
        None
    );
    assert_eq!(
        total_within(&EntropyStrategy, &game, &table, &all[..1], 1),
        Some(1)
    );
}
