//! Properties of the feedback rule, the table and filtering, over random words.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use hakase_core::rules::history::{filter, Step};
use hakase_core::rules::word::Word;
use hakase_core::{feedback, AnswerId, Cell, FeedbackTable, Game, PatternStyle, WordListInput};
use proptest::prelude::*;

/// A word of `len` letters from a small alphabet, so letters repeat often.
fn word_of(
    alphabet: &'static [char],
    len: std::ops::RangeInclusive<usize>,
) -> BoxedStrategy<String> {
    proptest::collection::vec(proptest::sample::select(alphabet), len)
        .prop_map(|letters| letters.into_iter().collect())
        .boxed()
}

const LATIN: &[char] = &['a', 'b', 'c'];
const KANA: &[char] = &['コ', 'ー', 'ン', 'リ'];

fn alphabet() -> impl Strategy<Value = &'static [char]> {
    prop_oneof![Just(LATIN), Just(KANA)]
}

/// A game whose guesses and answers are exactly the given words (duplicates dropped).
fn game_of(guesses: &[String], answers: &[String]) -> Game {
    let dedup = |words: &[String]| -> Vec<String> {
        let mut seen = BTreeSet::new();
        words.iter().filter(|w| seen.insert(*w)).cloned().collect()
    };
    Game::new(
        "prop",
        WordListInput::from_words("guesses", &dedup(guesses)),
        WordListInput::from_words("answers", &dedup(answers)),
        6,
        PatternStyle::Digits,
    )
    .expect("valid game")
}

fn encoded<'g>(game: &'g Game, text: &str) -> &'g Word {
    &game.guesses()[game.find_guess(text).expect("known") as usize]
}

/// The rule written independently, on characters: for each letter, the greens, then the
/// leftmost other copies in the guess up to the copies left in the answer, are coloured.
fn expected_cells(guess: &str, answer: &str) -> Vec<Cell> {
    let g: Vec<char> = guess.chars().collect();
    let a: Vec<char> = answer.chars().collect();
    let green = |i: usize| a.get(i) == Some(&g[i]);
    (0..g.len())
        .map(|i| {
            if green(i) {
                return Cell::Green;
            }
            let letter = g[i];
            let in_answer = a.iter().filter(|&&c| c == letter).count();
            let greens = (0..g.len()).filter(|&j| g[j] == letter && green(j)).count();
            let earlier_yellows = (0..i).filter(|&j| g[j] == letter && !green(j)).count();
            if greens + earlier_yellows < in_answer {
                Cell::Yellow
            } else {
                Cell::Gray
            }
        })
        .collect()
}

/// Checks the per-letter counts and the full rule for one pair of words.
fn check_pair(game: &Game, guess: &str, answer: &str) -> Result<(), TestCaseError> {
    let g = encoded(game, guess);
    let cells = feedback(g, encoded(game, answer)).cells(g.len());
    let letters: Vec<char> = guess.chars().collect();
    for &letter in &letters {
        let in_guess = letters.iter().filter(|&&c| c == letter).count();
        let in_answer = answer.chars().filter(|&c| c == letter).count();
        let coloured = letters
            .iter()
            .zip(&cells)
            .filter(|(&c, &cell)| c == letter && cell != Cell::Gray)
            .count();
        prop_assert_eq!(coloured, in_guess.min(in_answer), "letter {}", letter);
    }
    prop_assert_eq!(cells, expected_cells(guess, answer));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_word_against_itself_is_all_green(
        word in alphabet().prop_flat_map(|a| word_of(a, 5..=5))
    ) {
        let game = game_of(std::slice::from_ref(&word), std::slice::from_ref(&word));
        let w = encoded(&game, &word);
        prop_assert!(feedback(w, w).is_win());
    }

    #[test]
    fn coloured_letters_never_exceed_the_answer(
        (guess, answer) in alphabet().prop_flat_map(|a| (word_of(a, 1..=5), word_of(a, 5..=5)))
    ) {
        let game = game_of(std::slice::from_ref(&guess), std::slice::from_ref(&answer));
        check_pair(&game, &guess, &answer)?;
    }

    #[test]
    fn filtering_keeps_exactly_the_answers_that_show_the_pattern(
        (guesses, answers, pick_guess, pick_answer) in alphabet().prop_flat_map(|a| (
            proptest::collection::vec(word_of(a, 1..=5), 1..8),
            proptest::collection::vec(word_of(a, 5..=5), 1..30),
            any::<prop::sample::Index>(),
            any::<prop::sample::Index>(),
        ))
    ) {
        let game = game_of(&guesses, &answers);
        let table = FeedbackTable::build(&game);
        // The table is the rule, cell for cell.
        for (g, gw) in game.guesses().iter().enumerate() {
            for (a, aw) in game.answers().iter().enumerate() {
                let pattern = feedback(gw, aw);
                prop_assert_eq!(table.get(g as u32, a as AnswerId), pattern);
                prop_assert_eq!(table.column(a as AnswerId)[g], pattern.0);
            }
        }
        let guess = pick_guess.index(game.guesses().len()) as u32;
        let answer = pick_answer.index(game.answers().len());
        let gw = &game.guesses()[guess as usize];
        let pattern = feedback(gw, &game.answers()[answer]);
        let kept = filter(&game, &table, &[Step { guess, pattern }]).expect("the answer fits");
        let expected: Vec<AnswerId> = game
            .all_answers()
            .into_iter()
            .filter(|&a| feedback(gw, &game.answers()[a as usize]) == pattern)
            .collect();
        prop_assert!(kept.contains(&(answer as AnswerId)));
        prop_assert_eq!(kept, expected);
    }

    #[test]
    fn pokemon_pairs_follow_the_rule(
        guess in any::<prop::sample::Index>(),
        answer in any::<prop::sample::Index>(),
    ) {
        let game = pokemon_today();
        let guess = game.guess_text(guess.index(game.guesses().len()) as u32);
        let answer = game.answer_text(answer.index(game.answers().len()) as u32);
        check_pair(game, guess, answer)?;
        let a = encoded(game, answer);
        prop_assert!(feedback(a, a).is_win());
    }
}

fn pokemon_today() -> &'static Game {
    static GAME: OnceLock<Game> = OnceLock::new();
    GAME.get_or_init(|| {
        hakase_core::rules::presets::load_preset("pokemon-today").expect("preset loads")
    })
}

#[test]
fn the_table_equals_direct_feedback_on_pokemon_today() {
    let game = pokemon_today();
    let table = FeedbackTable::build(game);
    assert_eq!(table.guesses(), 931);
    for (g, gw) in game.guesses().iter().enumerate() {
        let row = table.row(g as u32);
        assert_eq!(row.len(), 285);
        for (a, aw) in game.answers().iter().enumerate() {
            assert_eq!(row[a], feedback(gw, aw).0);
            assert_eq!(table.column(a as AnswerId)[g], feedback(gw, aw).0);
        }
    }
}

#[test]
fn the_wordle_table_equals_direct_feedback() {
    let game = hakase_core::rules::presets::load_preset("wordle").expect("preset loads");
    let table = FeedbackTable::build(&game);
    assert_eq!(table.guesses(), 12972);
    // Every third guess against every answer, both layouts: 10 million patterns.
    for (g, gw) in game.guesses().iter().enumerate().step_by(3) {
        let row = table.row(g as u32);
        for (a, aw) in game.answers().iter().enumerate() {
            let pattern = feedback(gw, aw).0;
            assert_eq!(row[a], pattern);
            assert_eq!(table.column(a as AnswerId)[g], pattern);
        }
    }
}
