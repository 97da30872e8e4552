//! Strategy evaluation through trees agrees with playing every game out by hand.

use crate::common::preset;
use hakase_core::heuristics::strategy::{by_name, Strategy, STRATEGY_NAMES};
use hakase_core::trees::tree::{build_tree, Evaluation, MAX_DEPTH};
use hakase_core::{feedback, AnswerId, FeedbackTable, Game, GuessId};

/// Plays every answer step by step, with feedback computed directly from the words (not
/// the table) and the candidates filtered by hand, then tallies like the tree evaluation.
fn replay(
    game: &Game,
    table: &FeedbackTable,
    strategy: &dyn Strategy,
    first: Option<GuessId>,
) -> Evaluation {
    let mut eval = Evaluation::new(game.tries());
    for answer in game.all_answers() {
        let target = &game.answers()[answer as usize];
        let mut candidates: Vec<AnswerId> = game.all_answers();
        let mut guess = first.unwrap_or_else(|| strategy.choose(game, table, &candidates));
        let mut outcome = None;
        for guesses in 1..=MAX_DEPTH {
            let word = &game.guesses()[guess as usize];
            let pattern = feedback(word, target);
            if pattern.is_win() {
                outcome = Some(guesses);
                break;
            }
            let before = candidates.len();
            candidates.retain(|&c| feedback(word, &game.answers()[c as usize]) == pattern);
            assert!(candidates.contains(&answer));
            if candidates.len() == before {
                break;
            }
            guess = strategy.choose(game, table, &candidates);
        }
        eval.record(answer, outcome);
    }
    eval
}

/// The tree evaluation, forcing `first` at depth 1 as `hakase evaluate --first` does.
fn evaluate(
    game: &Game,
    table: &FeedbackTable,
    strategy: &dyn Strategy,
    first: Option<GuessId>,
) -> Evaluation {
    let answers = game.all_answers();
    let choose = |c: &[AnswerId], depth: u32| match first {
        Some(g) if depth == 1 => g,
        _ => strategy.choose(game, table, c),
    };
    build_tree(table, &answers, 1, &choose).evaluate(game, table, &answers)
}

#[test]
fn entropy_from_rentorar_on_pokemon_qiita2023() {
    let (game, table) = preset("pokemon-qiita2023");
    let strategy = by_name("entropy").expect("known strategy");
    let first = game.find_guess("レントラー").expect("known");
    let eval = evaluate(&game, &table, strategy.as_ref(), Some(first));
    assert_eq!(eval.distribution, [1, 22, 124, 104, 30, 4]);
    assert_eq!(eval.total, 1007);
    assert_eq!(eval.solved, 285);
    assert_eq!(eval.worst, 6);
    assert_eq!(format!("{:.5}", eval.mean()), "3.53333");
    assert!(eval.failures.is_empty() && eval.unsolved.is_empty());
    assert_eq!(eval, replay(&game, &table, strategy.as_ref(), Some(first)));
}

#[test]
fn every_strategy_matches_its_replay_on_pokemon_qiita2023() {
    let (game, table) = preset("pokemon-qiita2023");
    let rentorar = game.find_guess("レントラー").expect("known");
    let mut results = Vec::new();
    for name in STRATEGY_NAMES {
        let strategy = by_name(name).expect("known strategy");
        let own = evaluate(&game, &table, strategy.as_ref(), None);
        assert_eq!(
            own,
            replay(&game, &table, strategy.as_ref(), None),
            "{name}"
        );
        let forced = evaluate(&game, &table, strategy.as_ref(), Some(rentorar));
        let replayed = replay(&game, &table, strategy.as_ref(), Some(rentorar));
        assert_eq!(forced, replayed, "{name} from レントラー");
        let first = strategy.choose(&game, &table, &game.all_answers());
        results.push(format!(
            "{name}: {} {} worst {} {:?}; レントラー {} worst {} {:?}",
            game.guess_text(first),
            own.total,
            own.worst,
            own.distribution,
            forced.total,
            forced.worst,
            forced.distribution,
        ));
    }
    assert_eq!(
        results,
        [
            "entropy: レントラー 1007 worst 6 [1, 22, 124, 104, 30, 4]; \
             レントラー 1007 worst 6 [1, 22, 124, 104, 30, 4]",
            "min-expected-size: レントラー 972 worst 6 [1, 34, 126, 96, 27, 1]; \
             レントラー 972 worst 6 [1, 34, 126, 96, 27, 1]",
            "frequency: グラードン 987 worst 7 [1, 47, 112, 81, 33, 10, 1]; \
             レントラー 994 worst 6 [1, 40, 112, 92, 31, 9]",
            "most-parts: グラードン 972 worst 7 [1, 44, 117, 91, 25, 6, 1]; \
             レントラー 974 worst 6 [1, 34, 136, 80, 27, 7]",
            "minimax: レントラー 988 worst 6 [1, 34, 113, 106, 30, 1]; \
             レントラー 988 worst 6 [1, 34, 113, 106, 30, 1]",
        ]
    );
}
