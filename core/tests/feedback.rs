//! The colouring rule on hand-checked examples, and the pattern notations.

use crate::common::{pattern_of, preset};
use hakase_core::{Cell, Error, Pattern, PatternStyle};

const STYLES: [PatternStyle; 4] = [
    PatternStyle::Kanji,
    PatternStyle::Letters,
    PatternStyle::Emoji,
    PatternStyle::Digits,
];

#[test]
fn a_letter_guessed_twice_but_in_the_answer_once_is_yellow_only_once() {
    let (game, _) = preset("pokemon-today");
    // チコリータ has one コ: the first コ of キノココ takes it, the second stays gray.
    assert_eq!(pattern_of(&game, "キノココ", "チコリータ"), "灰灰黄灰");
    // ココロモリ has two: both コ are yellow.
    assert_eq!(pattern_of(&game, "キノココ", "ココロモリ"), "灰灰黄黄");
}

#[test]
fn wordle_duplicate_letters_follow_the_game() {
    let (game, _) = preset("wordle");
    assert_eq!(pattern_of(&game, "drill", "slosh"), "BBBYB");
    assert_eq!(pattern_of(&game, "asset", "slosh"), "BYYBB");
    assert_eq!(pattern_of(&game, "slosh", "slosh"), "GGGGG");
    // Greens are taken before yellows: both s of slosh are matched in place by sassy, so the
    // middle s, although left of the second green, stays gray.
    assert_eq!(pattern_of(&game, "sassy", "slosh"), "GBBGB");
}

#[test]
fn short_guesses_compare_by_position_from_the_left() {
    let (game, _) = preset("pokemon-today");
    // ヤドン (3 letters) against ヤドキング: ヤ and ド in place, ン elsewhere.
    assert_eq!(pattern_of(&game, "ヤドン", "ヤドキング"), "緑緑黄");
    // ゼニガメ (4) against カメックス: only メ, at another place; ガ is not カ.
    assert_eq!(pattern_of(&game, "ゼニガメ", "カメックス"), "灰灰灰黄");
    // コダック (4) against ゴルダック: ダ, ッ and ク all sit one place further right.
    assert_eq!(pattern_of(&game, "コダック", "ゴルダック"), "灰黄黄黄");
    // ピィ (2) against ピカチュウ.
    assert_eq!(pattern_of(&game, "ピィ", "ピカチュウ"), "緑灰");
}

#[test]
fn every_pattern_round_trips_in_every_style() {
    for len in 1..=5usize {
        for code in 0..3usize.pow(len as u32) {
            let mut cells = Vec::new();
            let mut rest = code;
            for _ in 0..len {
                cells.push([Cell::Gray, Cell::Yellow, Cell::Green][rest % 3]);
                rest /= 3;
            }
            let pattern = Pattern::from_cells(&cells);
            assert_eq!(pattern.cells(len), cells);
            for style in STYLES {
                let text = pattern.format(len, style);
                assert_eq!(text.chars().count(), len);
                assert_eq!(Pattern::parse(&text, len), Ok(pattern), "{text}");
            }
        }
    }
}

#[test]
fn patterns_are_written_in_each_notation() {
    let p = Pattern::from_cells(&[
        Cell::Green,
        Cell::Yellow,
        Cell::Gray,
        Cell::Gray,
        Cell::Green,
    ]);
    assert_eq!(p.format(5, PatternStyle::Kanji), "緑黄灰灰緑");
    assert_eq!(p.format(5, PatternStyle::Letters), "GYBBG");
    assert_eq!(p.format(5, PatternStyle::Emoji), "🟩🟨⬛⬛🟩");
    assert_eq!(p.format(5, PatternStyle::Digits), "21002");
    assert_eq!(p.0, 2 * 81 + 27 + 2);
    for text in [
        "緑黄灰灰緑",
        "gybbg",
        "🟩🟨⬛\u{FE0F}⬛\u{FE0F}🟩",
        "21002",
        " 21002 ",
        "GY--G",
        "gyxxg",
    ] {
        assert_eq!(Pattern::parse(text, 5), Ok(p), "{text}");
    }
    assert!(Pattern::ALL_GREEN.is_win());
    assert_eq!(
        Pattern::ALL_GREEN.format(5, PatternStyle::Kanji),
        "緑緑緑緑緑"
    );
    assert_eq!(Pattern(0).format(3, PatternStyle::Kanji), "灰灰灰");
}

#[test]
fn patterns_sort_in_chart_order() {
    let gray = Pattern::parse("灰灰灰灰灰", 5).expect("valid");
    let last_yellow = Pattern::parse("灰灰灰灰黄", 5).expect("valid");
    let first_green = Pattern::parse("緑灰灰灰灰", 5).expect("valid");
    assert!(gray < last_yellow && last_yellow < first_green);
    assert!(first_green < Pattern::ALL_GREEN);
}

#[test]
fn bad_patterns_are_errors_naming_the_text() {
    for (text, len) in [
        ("灰灰灰灰", 5),
        ("灰灰灰灰灰灰", 5),
        ("", 5),
        ("灰灰灰灰赤", 5),
        ("BYGBQ", 5),
        ("00003", 5),
        ("灰灰灰灰灰", 4),
        // Six cells would be read as five: a pattern has at most five.
        ("灰灰灰灰灰灰", 6),
        ("GGGGGY", 6),
    ] {
        match Pattern::parse(text, len) {
            Err(Error::BadPattern { text: got, .. }) => assert_eq!(got, text),
            other => panic!("{text:?} gave {other:?}"),
        }
    }
}

#[test]
fn style_names_parse() {
    assert_eq!("kanji".parse(), Ok(PatternStyle::Kanji));
    assert_eq!("letters".parse(), Ok(PatternStyle::Letters));
    assert_eq!("BYG".parse(), Ok(PatternStyle::Letters));
    assert_eq!("emoji".parse(), Ok(PatternStyle::Emoji));
    assert_eq!("012".parse(), Ok(PatternStyle::Digits));
    assert!("rainbow".parse::<PatternStyle>().is_err());
}
