//! `POST /api/v1/review`: a played game judged move by move against a served run (the
//! `review` document of docs/json.md, as `hakase review --json` prints it).
//!
//! The body names the run and gives the game in one of three forms: `history` (guesses with
//! their colours, as `/next` takes), `words` with the `grid` the game shares, or `words` with
//! the `answer`; `answer` may accompany the others. The body is read into the service's
//! [`GameInput`], which [`QueryService::review`] judges on its bounded solve pool.

use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;

use super::api::StepJson;
use crate::review::{ColoursInput, GameInput, ReviewView};
use crate::QueryService;
use hakase_serving::http::errors::ApiError;
use hakase_serving::http::ClientAddr;

/// The review route, to be nested under `/api/v1`.
pub fn routes() -> Router<Arc<QueryService>> {
    Router::new().route("/review", post(review))
}

/// A game to review.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewJson {
    /// The run (empty: the only one served).
    #[serde(default)]
    pub run: String,
    /// The guesses with their colours.
    #[serde(default)]
    pub history: Vec<StepJson>,
    /// The words, with `grid` or `answer`.
    #[serde(default)]
    pub words: Vec<String>,
    /// The emoji grid the game shares, one row per word.
    #[serde(default)]
    pub grid: Option<String>,
    /// The answer.
    #[serde(default)]
    pub answer: Option<String>,
}

impl ReviewJson {
    /// The game as the service reads it: the history's words and colours, else the words
    /// with the grid, else the words with the answer.
    fn into_game(self) -> Result<GameInput, ApiError> {
        let answer = self.answer.filter(|a| !a.trim().is_empty());
        if !self.history.is_empty() {
            if !self.words.is_empty() || self.grid.is_some() {
                return Err(ApiError::bad_request(
                    "give the game once: a history, or words with a grid or the answer",
                ));
            }
            let (words, patterns) = self
                .history
                .into_iter()
                .map(|s| (s.guess, s.pattern))
                .unzip();
            return Ok(GameInput {
                words,
                colours: ColoursInput::Each(patterns),
                answer,
            });
        }
        Ok(GameInput {
            words: self.words,
            colours: match self.grid {
                Some(grid) => ColoursInput::Grid(grid),
                None => ColoursInput::FromAnswer,
            },
            answer,
        })
    }
}

/// `POST /review`.
async fn review(
    State(service): State<Arc<QueryService>>,
    ClientAddr(caller): ClientAddr,
    body: Result<Json<ReviewJson>, JsonRejection>,
) -> Result<Json<ReviewView>, ApiError> {
    let Json(request) = body?;
    let run = request.run.clone();
    // What cannot be read is refused before it takes a place in the solve pool.
    let game = request.into_game()?;
    Ok(Json(service.review(caller, &run, game).await?))
}
