//! Every bad input a user can give is a typed error that says where the problem is.

use crate::common::preset;
use hakase_core::rules::history::{filter, Step};
use hakase_core::rules::presets::preset_with_guess;
use hakase_core::rules::word::read_word_list;
use hakase_core::{Error, Game, PatternStyle, WordListInput};

fn game(guesses: &[&str], answers: &[&str]) -> Result<Game, Error> {
    Game::new(
        "test",
        WordListInput::from_words("guesses", guesses),
        WordListInput::from_words("answers", answers),
        6,
        PatternStyle::Letters,
    )
}

fn step(game: &Game, text: &str) -> Step {
    Step::parse(game, text).expect("step parses")
}

#[test]
fn unknown_words_are_reported_as_typed() {
    let (game, _) = preset("pokemon-today");
    assert_eq!(
        game.find_guess("ナゾ"),
        Err(Error::UnknownWord {
            word: "ナゾ".into(),
            game: "pokemon-today".into(),
            suggestions: Vec::new(),
            elsewhere: None,
        })
    );
    assert_eq!(
        game.find_guess(" ピカチュウ "),
        game.find_guess("ピカチュウ")
    );
    // A typo gets the closest allowed guesses, closest first, in plain text.
    let typo = game.find_guess("レントラ").unwrap_err();
    assert_eq!(
        typo.to_string(),
        "\"レントラ\" is not an allowed guess in pokemon-today; did you mean レントラー or ガントル?"
    );
    // Half-width katakana and hiragana are the same word as katakana.
    assert_eq!(game.find_guess("ﾚﾝﾄﾗｰ"), game.find_guess("レントラー"));
    assert_eq!(game.find_guess("れんとらー"), game.find_guess("レントラー"));
    assert_eq!(game.find_guess("ポリゴンz"), game.find_guess("ポリゴンＺ"));
    // Allowed as a guess (generation 5), but pokemon-today's answers stop at #493.
    assert_eq!(
        game.find_answer("ココロモリ"),
        Err(Error::NotAnAnswer {
            word: "ココロモリ".into(),
            game: "pokemon-today".into()
        })
    );
    // ASCII digits and letters are widened to the full-width forms the data uses.
    assert_eq!(game.find_guess("ポリゴン2"), game.find_guess("ポリゴン２"));
    let (wordle, _) = preset("wordle");
    assert_eq!(wordle.find_guess("CRANE"), wordle.find_guess("crane"));
    let crane = wordle.find_guess("crane").expect("allowed");
    assert_eq!(wordle.guess_text(crane), "crane");
}

/// The default game is easily forgotten: a word error names the game, and the preset the
/// word belongs to with the flag that chooses it.
#[test]
fn a_word_of_another_game_is_named_with_its_game() {
    let (pokemon, _) = preset("pokemon-today");
    assert_eq!(
        pokemon.find_guess("salet").unwrap_err().to_string(),
        "\"salet\" is not an allowed guess in pokemon-today; it is a word of wordle \
         (--game wordle)"
    );
    let (wordle, _) = preset("wordle");
    assert_eq!(
        wordle.find_answer("レントラー").unwrap_err().to_string(),
        "\"レントラー\" is not a word of wordle, so it cannot be the answer; it is a word of \
         pokemon-today (--game pokemon-today)"
    );
    assert_eq!(
        wordle.find_answer("aahed").unwrap_err().to_string(),
        "\"aahed\" is an allowed guess but never the answer in wordle"
    );
    // A word of no preset gets no hint; a customised game gets one only to the other
    // family (its own lists left the word out on purpose).
    assert!(matches!(
        pokemon.find_guess("ナゾ"),
        Err(Error::UnknownWord {
            elsewhere: None,
            ..
        })
    ));
    let custom = "wordle (answers from en.txt, guesses from en.txt)";
    assert_eq!(preset_with_guess("salet", custom), None);
    assert_eq!(
        preset_with_guess("レントラー", custom),
        Some("pokemon-today")
    );
    assert_eq!(
        preset_with_guess("salet", "wordle-answers-only"),
        Some("wordle")
    );
}

#[test]
fn a_guess_longer_than_the_board_names_its_line() {
    assert_eq!(
        game(&["abcde", "abcdef"], &["abcde"]).err(),
        Some(Error::GuessTooLong {
            list: "guesses".into(),
            line: 2,
            word: "abcdef".into(),
            len: 6,
            board: 5,
        })
    );
}

#[test]
fn answers_must_fill_the_board() {
    for (word, len) in [("abcd", 4), ("abcdef", 6), ("ピカチュ", 4)] {
        assert_eq!(
            game(&["abcde"], &["abcde", word]).err(),
            Some(Error::AnswerLength {
                list: "answers".into(),
                line: 2,
                word: word.into(),
                len,
                board: 5,
            })
        );
    }
}

#[test]
fn duplicates_name_both_lines() {
    let words = read_word_list(b"abcde\nfghij\n\nabcde\n", "mine.txt").expect("reads");
    assert_eq!(
        words,
        [
            (1, "abcde".into()),
            (2, "fghij".into()),
            (4, "abcde".into())
        ]
    );
    let list = WordListInput {
        label: "mine.txt".into(),
        words,
    };
    let result = Game::new(
        "test",
        list.clone(),
        WordListInput::from_words("answers", &["fghij"]),
        6,
        PatternStyle::Letters,
    );
    assert_eq!(
        result.err(),
        Some(Error::Duplicate {
            list: "mine.txt".into(),
            word: "abcde".into(),
            first: 1,
            second: 4,
        })
    );
}

#[test]
fn invalid_utf8_names_its_line() {
    assert_eq!(
        read_word_list(b"abcde\n\xff\xfe\nfghij\n", "bad.txt"),
        Err(Error::InvalidUtf8 {
            list: "bad.txt".into(),
            line: 2,
        })
    );
}

#[test]
fn bom_crlf_blank_lines_and_spaces_are_accepted() {
    let bytes = "\u{FEFF}レントラー\r\n\r\n  ピカチュウ \r\nabcde".as_bytes();
    assert_eq!(
        read_word_list(bytes, "ok.txt"),
        Ok(vec![
            (1, "レントラー".into()),
            (3, "ピカチュウ".into()),
            (4, "abcde".into())
        ])
    );
}

#[test]
fn empty_lists_and_bad_tries_are_errors() {
    assert_eq!(
        read_word_list(b"\n \r\n", "empty.txt"),
        Err(Error::EmptyList {
            list: "empty.txt".into()
        })
    );
    assert_eq!(
        game(&[], &["abcde"]).err(),
        Some(Error::EmptyList {
            list: "guesses".into()
        })
    );
    for tries in [0, 65] {
        let result = Game::new(
            "test",
            WordListInput::from_words("g", &["abcde"]),
            WordListInput::from_words("a", &["abcde"]),
            tries,
            PatternStyle::Letters,
        );
        assert_eq!(result.err(), Some(Error::BadTries(tries)));
    }
}

#[test]
fn answers_missing_from_the_guesses_become_guesses() {
    let g = game(&["abc", "abcde"], &["vwxyz", "abcde"]).expect("valid");
    assert_eq!(g.guesses().len(), 3);
    assert_eq!(g.guess_text(2), "vwxyz");
    assert_eq!(g.answer_as_guess(0), 2);
    assert_eq!(g.answer_as_guess(1), 1);
    assert_eq!(g.guess_as_answer(0), None);
}

#[test]
fn inconsistent_history_names_the_step() {
    let (game, table) = preset("pokemon-qiita2023");
    let first = step(&game, "レントラー=灰灰灰灰緑");
    // ピカチュウ does not end in ー, so no answer left after step 1 can turn all green.
    let second = step(&game, "ピカチュウ=緑緑緑緑緑");
    assert_eq!(
        filter(&game, &table, &[first, second]),
        Err(Error::InconsistentHistory {
            step: 2,
            guess: "ピカチュウ".into(),
            pattern: "緑緑緑緑緑".into(),
            why: "no answer fits this step together with the earlier ones".into(),
        })
    );
    // Four greens and a gray can never happen: the fifth letter would be green too or
    // there would be no answer left to match.
    assert_eq!(
        filter(&game, &table, &[step(&game, "レントラー=緑緑緑緑灰")]),
        Err(Error::InconsistentHistory {
            step: 1,
            guess: "レントラー".into(),
            pattern: "緑緑緑緑灰".into(),
            why: "the game never shows this pattern for this guess".into(),
        })
    );
    let won = step(&game, "レントラー=緑緑緑緑緑");
    assert_eq!(
        filter(&game, &table, &[won, first]),
        Err(Error::InconsistentHistory {
            step: 2,
            guess: "レントラー".into(),
            pattern: "灰灰灰灰緑".into(),
            why: "the game was already won at the step before".into(),
        })
    );
}

#[test]
fn history_steps_are_read_in_any_notation_and_errors_say_why() {
    let (game, _) = preset("pokemon-qiita2023");
    let kanji = step(&game, "レントラー=灰灰灰灰緑");
    assert_eq!(step(&game, "レントラー:00002"), kanji);
    assert_eq!(step(&game, "レントラー BBBBG"), kanji);
    assert_eq!(kanji.display(&game), "レントラー=灰灰灰灰緑");
    assert!(matches!(
        Step::parse(&game, "レントラー"),
        Err(Error::BadPattern { .. })
    ));
    assert_eq!(
        Step::parse(&game, "ナゾ=灰灰"),
        Err(Error::UnknownWord {
            word: "ナゾ".into(),
            game: "pokemon-qiita2023".into(),
            suggestions: Vec::new(),
            elsewhere: None,
        })
    );
    assert!(matches!(
        Step::parse(&game, "レントラー=灰灰灰緑"),
        Err(Error::BadPattern { .. })
    ));
}

#[test]
fn custom_lists_are_read_like_typed_words() {
    let game = Game::new(
        "custom",
        WordListInput::from_words("guesses", &["crane", "Salet"]),
        WordListInput::from_words("answers", &["CRANE", "SLATE", "TRACE"]),
        6,
        PatternStyle::Letters,
    )
    .expect("game");
    // CRANE in the answers is the guess crane, not a second word.
    assert_eq!(game.guesses().len(), 4);
    assert_eq!(game.guess_text(0), "crane");
    assert_eq!(game.guess_text(1), "salet");
    let crane = game.find_answer("crane").expect("answer");
    assert_eq!(game.find_answer("CRANE"), Ok(crane));
    let pattern = hakase_core::feedback(
        &game.guesses()[game.find_guess("crane").expect("guess") as usize],
        &game.answers()[crane as usize],
    );
    assert!(pattern.is_win());
    // Two spellings of one word in a list are a duplicate.
    assert_eq!(
        Game::new(
            "custom",
            WordListInput::from_words("guesses", &["crane", "CRANE"]),
            WordListInput::from_words("answers", &["crane"]),
            6,
            PatternStyle::Letters,
        )
        .unwrap_err(),
        Error::Duplicate {
            list: "guesses".into(),
            word: "crane".into(),
            first: 1,
            second: 2
        }
    );
}
