//! `/api/v1/puzzles…`: the committed puzzle batches (`core/data/puzzles/`, made by `hakase
//! puzzle`) played on the page. A puzzle is sent without its solution; the player's answer is
//! checked here (spelling normalised as everywhere: hiragana, half-width kana, capitals), and
//! only then the solution and its grade are given.
//!
//! | method and path | body | answer |
//! | --- | --- | --- |
//! | `GET /puzzles` | | `{"batches": [...]}`: name, game, count |
//! | `GET /puzzles/{batch}/{day}` | | rows, question, kind, level (no solution) |
//! | `POST /puzzles/{batch}/{day}/answer` | `{"answer"}` | right or wrong, the solution, the grade |

use std::sync::{Arc, OnceLock};

use axum::extract::rejection::JsonRejection;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use hakase_core::normalize::normalize_word;
use hakase_core::puzzle::{Grade, Kind, Level, Puzzle, Row};
use serde::{Deserialize, Serialize};

use super::errors::ApiError;
use crate::query::QueryService;

/// The committed batches, by name, as `hakase puzzle` wrote them.
const BATCHES: [(&str, &str); 2] = [
    (
        "pokemon-today",
        include_str!("../../../core/data/puzzles/pokemon-today/puzzles.json"),
    ),
    (
        "wordle",
        include_str!("../../../core/data/puzzles/wordle/puzzles.json"),
    ),
];

/// The batches, parsed once; a batch that does not parse is served empty (and the committed
/// ones are parsed by this module's test).
fn batches() -> &'static Vec<(&'static str, Vec<Puzzle>)> {
    static PARSED: OnceLock<Vec<(&'static str, Vec<Puzzle>)>> = OnceLock::new();
    PARSED.get_or_init(|| {
        BATCHES
            .iter()
            .map(|(name, text)| (*name, serde_json::from_str(text).unwrap_or_default()))
            .collect()
    })
}

/// The puzzle routes, to be nested under `/api/v1`.
pub fn routes() -> Router<Arc<QueryService>> {
    Router::new()
        .route("/puzzles", get(list))
        .route("/puzzles/{batch}/{day}", get(show))
        .route("/puzzles/{batch}/{day}/answer", post(answer))
}

/// A batch on offer.
#[derive(Debug, Serialize)]
pub struct BatchJson {
    /// Its name, used in the paths.
    pub name: &'static str,
    /// The game its puzzles are played in.
    pub game: String,
    /// How many puzzles (days 1..=count).
    pub count: usize,
}

/// The answer to `/puzzles`: an object, as every JSON document of hakase is.
#[derive(Debug, Serialize)]
pub struct BatchesJson {
    /// The batches on offer.
    pub batches: Vec<BatchJson>,
}

/// `GET /puzzles`.
async fn list() -> Json<BatchesJson> {
    Json(BatchesJson {
        batches: batches()
            .iter()
            .map(|(name, puzzles)| BatchJson {
                name,
                game: puzzles.first().map(|p| p.game.clone()).unwrap_or_default(),
                count: puzzles.len(),
            })
            .collect(),
    })
}

/// A puzzle as the player sees it: no solution, no grade.
#[derive(Debug, Serialize)]
pub struct PuzzleJson {
    /// The batch.
    pub batch: &'static str,
    /// Its day.
    pub day: usize,
    /// Puzzles in the batch.
    pub count: usize,
    /// The game.
    pub game: String,
    /// Deduction or best move.
    pub kind: Kind,
    /// Its level.
    pub level: Level,
    /// The rows shown.
    pub rows: Vec<Row>,
    /// The question.
    pub question: String,
}

fn find(batch: &str, day: usize) -> Result<(&'static str, usize, &'static Puzzle), ApiError> {
    let (name, puzzles) = batches()
        .iter()
        .find(|(name, _)| *name == batch)
        .ok_or_else(|| {
            let names: Vec<&str> = batches().iter().map(|(n, _)| *n).collect();
            ApiError::new(
                StatusCode::NOT_FOUND,
                "not_found",
                format!(
                    "no puzzle batch {batch:?} (available: {})",
                    names.join(", ")
                ),
            )
        })?;
    let puzzle = day
        .checked_sub(1)
        .and_then(|i| puzzles.get(i))
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "not_found",
                format!("batch {name} has days 1 to {}, not {day}", puzzles.len()),
            )
        })?;
    Ok((name, puzzles.len(), puzzle))
}

/// `GET /puzzles/{batch}/{day}`.
async fn show(Path((batch, day)): Path<(String, usize)>) -> Result<Json<PuzzleJson>, ApiError> {
    let (batch, count, p) = find(&batch, day)?;
    Ok(Json(PuzzleJson {
        batch,
        day,
        count,
        game: p.game.clone(),
        kind: p.kind,
        level: p.level,
        rows: p.rows.clone(),
        question: p.question.clone(),
    }))
}

/// The player's answer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerJson {
    /// The word named (any spelling the game's input accepts).
    pub answer: String,
}

/// The verdict on an answer.
#[derive(Debug, Serialize)]
pub struct VerdictJson {
    /// The answer matches the solution.
    pub correct: bool,
    /// The answer as read (normalised).
    pub answer: String,
    /// The solution.
    pub solution: String,
    /// Why it is the solution: the grade, with every number proven when graded exactly.
    pub grade: Grade,
}

/// `POST /puzzles/{batch}/{day}/answer`.
async fn answer(
    Path((batch, day)): Path<(String, usize)>,
    body: Result<Json<AnswerJson>, JsonRejection>,
) -> Result<Json<VerdictJson>, ApiError> {
    let (_, _, p) = find(&batch, day)?;
    let Json(body) = body?;
    let answer = normalize_word(&body.answer);
    if answer.is_empty() {
        return Err(ApiError::bad_request("the answer is empty"));
    }
    Ok(Json(VerdictJson {
        correct: answer == normalize_word(&p.solution),
        answer,
        solution: p.solution.clone(),
        grade: p.grade.clone(),
    }))
}

#[cfg(test)]
mod tests {
    use super::batches;

    #[test]
    fn committed_batches_parse() {
        let counts: Vec<(&str, usize)> = batches().iter().map(|(n, p)| (*n, p.len())).collect();
        assert_eq!(counts, [("pokemon-today", 90), ("wordle", 90)]);
    }
}
