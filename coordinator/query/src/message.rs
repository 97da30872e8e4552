//! Messages a page can word in its own language. The service's errors carry English text for
//! the command line, gRPC and logs; the ones a player causes also carry a stable key and its
//! arguments (strings, in order), which the HTTP API sends next to the text as `error.key`
//! and `error.args` so the page shows them in Japanese too. A cause without a key (a damaged
//! run, an internal failure) is shown in English.

use hakase_core::oracle::{QueryError, HARD_MODE_RULE, STRICT_MODE_RULE};
use hakase_core::review::ReviewError;
use hakase_core::rules::history::{ALREADY_WON, NEVER_SHOWN, NO_ANSWER_FITS};
use hakase_core::Error;
pub use hakase_serving::http::errors::Message;

use super::catalog::CatalogError;

/// The key of a core error about what a player typed, `step` naming the step (0: none).
pub fn of_core(e: &Error, step: usize) -> Option<Message> {
    Some(match e {
        // The game and the preset the word belongs to come last: older pages read the
        // first arguments only.
        Error::UnknownWord {
            word,
            game,
            suggestions,
            elsewhere,
        } => Message::new(
            "unknown_word",
            [
                step.to_string(),
                word.clone(),
                suggestions.join(", "),
                game.to_string(),
                elsewhere.unwrap_or_default().to_string(),
            ],
        ),
        Error::UnknownAnswer {
            word,
            game,
            suggestions,
            elsewhere,
        } => Message::new(
            "unknown_answer",
            [
                word.clone(),
                suggestions.join(", "),
                game.to_string(),
                elsewhere.unwrap_or_default().to_string(),
            ],
        ),
        Error::NotAnAnswer { word, game } => {
            Message::new("not_an_answer", [word.clone(), game.to_string()])
        }
        Error::BadPattern { text, .. } => {
            Message::new("bad_pattern", [step.to_string(), text.clone()])
        }
        Error::InconsistentHistory {
            step,
            guess,
            pattern,
            why,
        } => {
            let key = match why.as_str() {
                NO_ANSWER_FITS => "no_answer_fits",
                NEVER_SHOWN => "never_shown",
                ALREADY_WON => "already_won",
                _ => return None,
            };
            Message::new(key, [step.to_string(), guess.clone(), pattern.clone()])
        }
        _ => return None,
    })
}

/// The key of a query error.
pub fn of_query(e: &QueryError) -> Option<Message> {
    Some(match e {
        QueryError::BadStep { step, error } => return of_core(error, *step),
        QueryError::History(source) => return of_core(source, 0),
        QueryError::TooLong { steps, tries } => {
            Message::new("too_long", [steps.to_string(), tries.to_string()])
        }
        QueryError::NotAllowed { step, guess, why } => {
            let key = match why.as_str() {
                HARD_MODE_RULE => "hard_mode",
                STRICT_MODE_RULE => "strict_mode",
                _ => return None,
            };
            Message::new(key, [step.to_string(), guess.clone()])
        }
        QueryError::Infeasible { guesses_left } => Message::new("infeasible", [guesses_left]),
        QueryError::TooManyToSolve { candidates, limit } => {
            Message::new("too_many_to_solve", [candidates, limit])
        }
        QueryError::BadFirst(_) | QueryError::NoTree(_) | QueryError::Halted => return None,
    })
}

/// The key of a review error.
pub fn of_review(e: &ReviewError) -> Option<Message> {
    Some(match e {
        ReviewError::Query(e) => return of_query(e),
        ReviewError::Empty => Message::new("review_empty", Vec::<String>::new()),
        ReviewError::ColoursWords { rows, words } => Message::new("colours_words", [rows, words]),
        ReviewError::NoColours => Message::new("no_colours", Vec::<String>::new()),
        ReviewError::Answer(e) => return of_core(e, 0),
        ReviewError::NotTheAnswer {
            step,
            guess,
            pattern,
            answer,
            shows,
        } => Message::new(
            "not_the_answer",
            [
                step.to_string(),
                guess.clone(),
                pattern.clone(),
                answer.clone(),
                shows.clone(),
            ],
        ),
    })
}

/// The key of a run the catalog cannot give.
pub fn of_catalog(e: &CatalogError) -> Option<Message> {
    Some(match e {
        CatalogError::Unknown { name, available } => {
            Message::new("unknown_run", [name.clone(), available.clone()])
        }
        CatalogError::Ambiguous(names) => Message::new("several_runs", [names.clone()]),
        CatalogError::Empty => Message::new("no_runs", Vec::<String>::new()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hakase_core::oracle::parse_history;
    use hakase_core::rules::presets::load_preset;
    use hakase_core::FeedbackTable;

    #[test]
    fn the_errors_a_player_causes_have_keys() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        let err = parse_history(
            &game,
            &[("レントラー", "灰灰灰灰緑"), ("ピカチュウX", "灰")],
        )
        .expect_err("unknown word");
        let m = of_query(&err).expect("a key");
        assert_eq!(m.key, "unknown_word");
        assert_eq!(m.args[..2], ["2".to_string(), "ピカチュウx".to_string()]);
        let steps = parse_history(
            &game,
            &[("アーボック", "黄黄灰灰灰"), ("オニドリル", "灰灰灰灰灰")],
        )
        .expect("readable");
        let err =
            hakase_core::rules::history::filter(&game, &table, &steps).expect_err("no answer");
        let m = of_core(&err, 0).expect("a key");
        assert_eq!(
            m,
            Message::new("no_answer_fits", ["2", "オニドリル", "灰灰灰灰灰"])
        );
        let m = of_query(&QueryError::TooLong {
            steps: 11,
            tries: 10,
        })
        .expect("a key");
        assert_eq!(m, Message::new("too_long", ["11", "10"]));
        assert_eq!(
            of_review(&ReviewError::ColoursWords { rows: 2, words: 3 }),
            Some(Message::new("colours_words", ["2", "3"]))
        );
    }
}
