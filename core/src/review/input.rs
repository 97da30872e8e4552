//! Reading a finished (or abandoned) game for a review, in the three forms players have it:
//! the guesses with their colours (`WORD=PATTERN`, as every command takes a history); the
//! emoji grid the game shares plus the words, which the grid does not show; or only the words
//! and the answer, the colours then following from the game's feedback rule.

use crate::error::Error;
use crate::oracle::QueryError;
use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::history::Step;
use crate::rules::pattern::Pattern;
use crate::rules::table::FeedbackTable;

use super::ReviewError;

/// Where the colours of a game come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Colours<'s> {
    /// One pattern per word, in any notation a pattern is read in (灰黄緑, BYG, ⬛🟨🟩, 012).
    Each(Vec<&'s str>),
    /// The emoji grid the game shares: one row of squares per guess; lines that are not rows
    /// (the game's title, a score, a link) are skipped.
    Grid(&'s str),
    /// No colours: they follow from the answer, which must then be given.
    FromAnswer,
}

/// A game as a player gives it for a review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameText<'s> {
    /// The words played, in order (hiragana, half-width kana and capitals are read as
    /// everywhere).
    pub words: Vec<&'s str>,
    /// Their colours.
    pub colours: Colours<'s>,
    /// The answer, when known: needed without colours; with colours it is checked against
    /// them, and it lets a review of an unfinished game say how optimal play would end it.
    pub answer: Option<&'s str>,
}

/// A game read against its rules: the steps, and the answer when given or won.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadGame {
    /// The guesses and colours, in order.
    pub steps: Vec<Step>,
    /// The answer: given, or the last guess when its colours are all green.
    pub answer: Option<AnswerId>,
}

/// The rows of a shared emoji grid, each as digits (0 gray, 1 yellow, 2 green). Both the
/// usual squares (⬛ or ⬜ gray, 🟨 yellow, 🟩 green) and the high-contrast ones (🟦 yellow,
/// 🟧 green) are read; a line holding anything else is not a row and is skipped, so the
/// whole text a game shares can be pasted as it is.
pub fn grid_rows(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let mut digits = String::new();
            for ch in line.chars() {
                match ch {
                    '⬛' | '⬜' => digits.push('0'),
                    '🟨' | '🟦' => digits.push('1'),
                    '🟩' | '🟧' => digits.push('2'),
                    // Variation selectors and spaces between squares are not cells.
                    '\u{FE0F}' | '\u{200D}' => {}
                    c if c.is_whitespace() => {}
                    _ => return None,
                }
            }
            (!digits.is_empty()).then_some(digits)
        })
        .collect()
}

/// Reads `input` against `game`: every word must be an allowed guess, every pattern as long as
/// its word, the grid as many rows as there are words, and a given answer must show the
/// colours given. The history's consistency and the mode's rules are checked by the review.
pub fn read_game(
    game: &Game,
    table: &FeedbackTable,
    input: &GameText<'_>,
) -> Result<ReadGame, ReviewError> {
    if input.words.is_empty() {
        return Err(ReviewError::Empty);
    }
    let tries = game.tries();
    if input.words.len() > tries as usize {
        return Err(QueryError::TooLong {
            steps: input.words.len(),
            tries,
        }
        .into());
    }
    let bad = |step: usize| move |error: Error| QueryError::BadStep { step, error };
    let guesses = input
        .words
        .iter()
        .enumerate()
        .map(|(i, w)| game.find_guess(w).map_err(bad(i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    let answer = input
        .answer
        .map(|w| game.find_answer(w).map_err(ReviewError::Answer))
        .transpose()?;
    let patterns = read_patterns(game, table, &input.colours, &guesses, answer)?;
    if let Some(answer) = answer {
        check_answer(game, table, &guesses, &patterns, answer)?;
    }
    let steps: Vec<Step> = guesses
        .into_iter()
        .zip(patterns)
        .map(|(guess, pattern)| Step { guess, pattern })
        .collect();
    let won = steps
        .last()
        .filter(|s| s.pattern.is_win())
        .and_then(|s| game.guess_as_answer(s.guess));
    Ok(ReadGame {
        steps,
        answer: answer.or(won),
    })
}

/// The pattern of each guess: read from the colours given (one per word, or a grid with a
/// row per word), or, without colours, the ones the given answer shows.
fn read_patterns(
    game: &Game,
    table: &FeedbackTable,
    colours: &Colours<'_>,
    guesses: &[GuessId],
    answer: Option<AnswerId>,
) -> Result<Vec<Pattern>, ReviewError> {
    let rows: Vec<String> = match colours {
        Colours::Each(texts) => texts.iter().map(|t| t.to_string()).collect(),
        Colours::Grid(text) => grid_rows(text),
        Colours::FromAnswer => {
            let answer = answer.ok_or(ReviewError::NoColours)?;
            return Ok(guesses.iter().map(|&g| table.get(g, answer)).collect());
        }
    };
    if rows.len() != guesses.len() {
        return Err(ReviewError::ColoursWords {
            rows: rows.len(),
            words: guesses.len(),
        });
    }
    let len = |i: usize| game.guesses()[guesses[i] as usize].len();
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            Pattern::parse(r, len(i)).map_err(|error| QueryError::BadStep { step: i + 1, error })
        })
        .collect::<Result<_, _>>()
        .map_err(ReviewError::from)
}

/// Checks that `answer` shows every pattern given for its guess.
fn check_answer(
    game: &Game,
    table: &FeedbackTable,
    guesses: &[GuessId],
    patterns: &[Pattern],
    answer: AnswerId,
) -> Result<(), ReviewError> {
    for (i, (&guess, &pattern)) in guesses.iter().zip(patterns).enumerate() {
        let shows = table.get(guess, answer);
        if shows != pattern {
            let len = game.guesses()[guess as usize].len();
            return Err(ReviewError::NotTheAnswer {
                step: i + 1,
                guess: game.guess_text(guess).to_string(),
                pattern: pattern.format(len, game.style()),
                answer: game.answer_text(answer).to_string(),
                shows: shows.format(len, game.style()),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::presets::load_preset;

    #[test]
    fn a_shared_grid_is_read_without_its_title() {
        let shared =
            "Wordle 1,234 4/6\n\n⬛🟨⬛⬛⬛\n⬛⬛🟩🟨⬛\n🟦🟧⬜⬜⬜\n🟩🟩🟩🟩🟩\n\nhttps://x";
        assert_eq!(
            grid_rows(shared),
            ["01000", "00210", "12000", "22222"].map(String::from)
        );
        // Squares with variation selectors and spaces between them.
        assert_eq!(grid_rows("⬛\u{FE0F} 🟨 🟩"), ["012".to_string()]);
    }

    #[test]
    fn the_three_forms_give_the_same_steps() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        let words = vec!["れんとらー", "ジーランス"];
        let answer = game.find_answer("ジーランス").expect("answer");
        let rent = game.find_guess("レントラー").expect("word");
        let pattern = table.get(rent, answer).format(5, game.style());
        let by_answer = read_game(
            &game,
            &table,
            &GameText {
                words: words.clone(),
                colours: Colours::FromAnswer,
                answer: Some("ジーランス"),
            },
        )
        .expect("read");
        let each = read_game(
            &game,
            &table,
            &GameText {
                words: words.clone(),
                colours: Colours::Each(vec![pattern.as_str(), "緑緑緑緑緑"]),
                answer: None,
            },
        )
        .expect("read");
        let emoji = table
            .get(rent, answer)
            .format(5, crate::PatternStyle::Emoji);
        let grid = format!("ポケモンWordle 2/10\n{emoji}\n🟩🟩🟩🟩🟩\n");
        let from_grid = read_game(
            &game,
            &table,
            &GameText {
                words,
                colours: Colours::Grid(&grid),
                answer: None,
            },
        )
        .expect("read");
        assert_eq!(by_answer, each);
        assert_eq!(each, from_grid);
        assert_eq!(each.answer, Some(answer));
        assert_eq!(each.steps[0].guess, rent);
    }

    #[test]
    fn bad_input_names_what_to_fix() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        let read = |words: Vec<&str>, colours, answer| {
            read_game(
                &game,
                &table,
                &GameText {
                    words,
                    colours,
                    answer,
                },
            )
        };
        assert_eq!(
            read(vec![], Colours::FromAnswer, Some("ジーランス")),
            Err(ReviewError::Empty)
        );
        assert_eq!(
            read(vec!["レントラー"], Colours::FromAnswer, None),
            Err(ReviewError::NoColours)
        );
        assert_eq!(
            read(
                vec!["レントラー"],
                Colours::Grid("⬛⬛⬛⬛⬛\n⬛⬛⬛⬛⬛"),
                None
            ),
            Err(ReviewError::ColoursWords { rows: 2, words: 1 })
        );
        let err = read(
            vec!["レントラー", "ピカチュウX"],
            Colours::FromAnswer,
            Some("ジーランス"),
        )
        .expect_err("unknown word");
        assert!(
            matches!(err, ReviewError::Query(QueryError::BadStep { step: 2, .. })),
            "{err}"
        );
        let err = read(
            vec!["レントラー"],
            Colours::Each(vec!["緑緑緑緑緑"]),
            Some("ジーランス"),
        )
        .expect_err("colours of another answer");
        assert!(
            matches!(err, ReviewError::NotTheAnswer { step: 1, .. }),
            "{err}"
        );
        let eleven = vec!["レントラー"; 11];
        assert_eq!(
            read(eleven, Colours::FromAnswer, Some("ジーランス")),
            Err(ReviewError::Query(QueryError::TooLong {
                steps: 11,
                tries: 10
            }))
        );
    }
}
