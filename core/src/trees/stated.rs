//! What a tree document says about itself (game, total, guesses left, mode) compared with
//! what checking the tree finds: a file whose words are right but whose facts are not is
//! reported, never believed.

use crate::plural::plural;
use serde_json::Value;

use crate::rules::game::Game;
use crate::solver::Mode;
use crate::trees::tree::Evaluation;
use crate::trees::treefile::TreeDocument;

/// The facts a tree document states, each when present and readable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatedFacts {
    /// The game's name.
    pub game: Option<String>,
    /// Total guesses over all answers.
    pub total: Option<u64>,
    /// Guesses allowed at the root.
    pub guesses_left: Option<u32>,
    /// The cap on guesses the solve used.
    pub max_guesses: Option<u32>,
    /// Normal, hard or strict play.
    pub mode: Option<Mode>,
}

impl StatedFacts {
    /// The facts of a JSON tree document (its `game` and the `about` object).
    pub fn of(doc: &TreeDocument) -> StatedFacts {
        let about = &doc.about;
        let config = &about["config"];
        StatedFacts {
            game: Some(doc.game.clone()),
            total: about["total"].as_u64(),
            guesses_left: about["guesses_left"]
                .as_u64()
                .and_then(|n| u32::try_from(n).ok()),
            max_guesses: config["max_guesses"]
                .as_u64()
                .and_then(|n| u32::try_from(n).ok()),
            mode: match &config["mode"] {
                Value::Null => None,
                v => serde_json::from_value(v.clone()).ok(),
            },
        }
    }

    /// Every stated fact that the game or the checked tree contradicts, as sentences.
    pub fn mismatches(&self, game: &Game, evaluation: &Evaluation, mode: Mode) -> Vec<String> {
        let mut found = Vec::new();
        if let Some(name) = &self.game {
            if name != game.name() {
                found.push(format!(
                    "the file says game {name}, but it was checked as {}",
                    game.name()
                ));
            }
        }
        if let Some(total) = self.total {
            if total != evaluation.total {
                found.push(format!(
                    "the file says total {total}, but the tree takes {} guesses in total",
                    evaluation.total
                ));
            }
        }
        if let Some(left) = self.guesses_left {
            if left > game.tries() {
                found.push(format!(
                    "the file says {} left, but the game has {}",
                    plural(left, "guess", "guesses"),
                    plural(game.tries(), "try", "tries")
                ));
            }
            if evaluation.worst > left {
                found.push(format!(
                    "the file says {} left, but the tree needs {} in the worst case",
                    plural(left, "guess", "guesses"),
                    evaluation.worst
                ));
            }
        }
        if let Some(cap) = self.max_guesses {
            if evaluation.worst > cap {
                found.push(format!(
                    "the file says at most {}, but the tree needs {} in the worst case",
                    plural(cap, "guess", "guesses"),
                    evaluation.worst
                ));
            }
        }
        if let Some(stated) = self.mode {
            if stated != mode {
                let hint = match stated {
                    Mode::Normal => "check it without --hard or --strict",
                    Mode::Hard => "pass --hard to check that",
                    Mode::Strict => "pass --strict to check that",
                };
                found.push(format!(
                    "the file says {} mode, but it was checked in {} mode ({hint})",
                    stated.word(),
                    mode.word(),
                ));
            }
        }
        found
    }
}
