//! `POST /api/v1/review`: a played game judged move by move against a served run (the
//! `review` document of docs/json.md, as `hakase review --json` prints it).
//!
//! The body names the run and gives the game in one of three forms: `history` (guesses with
//! their colours, as `/next` takes), `words` with the `grid` the game shares, or `words` with
//! the `answer`; `answer` may accompany the others. The review runs on the service's bounded
//! solve pool; positions larger than the service's solve limit are reported as not judged,
//! and solved positions are kept in the run's bounded review cache between requests.

use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use hakase_core::review::{read_game, Colours, GameText};
use serde::Deserialize;
use tonic::Status;

use super::api::StepJson;
use super::errors::ApiError;
use crate::query::message::{self, Refusal};
use crate::query::review::{ReviewView, Subject};
use crate::query::QueryService;

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
    /// The game as the core reads it: the history's words and colours, else the words with
    /// the grid, else the words with the answer.
    fn text(&self) -> Result<GameText<'_>, ApiError> {
        let answer = self.answer.as_deref().filter(|a| !a.trim().is_empty());
        if !self.history.is_empty() {
            if !self.words.is_empty() || self.grid.is_some() {
                return Err(ApiError::bad_request(
                    "give the game once: a history, or words with a grid or the answer",
                ));
            }
            return Ok(GameText {
                words: self.history.iter().map(|s| s.guess.as_str()).collect(),
                colours: Colours::Each(self.history.iter().map(|s| s.pattern.as_str()).collect()),
                answer,
            });
        }
        let words = self.words.iter().map(String::as_str).collect();
        Ok(GameText {
            words,
            colours: match &self.grid {
                Some(grid) => Colours::Grid(grid),
                None => Colours::FromAnswer,
            },
            answer,
        })
    }
}

/// The status of a review error: bad input, with its message key.
fn review_refusal(e: hakase_core::review::ReviewError) -> Refusal {
    let keyed = message::of_review(&e);
    Refusal::new(Status::invalid_argument(e.to_string()), keyed)
}

/// `POST /review`.
async fn review(
    State(service): State<Arc<QueryService>>,
    body: Result<Json<ReviewJson>, JsonRejection>,
) -> Result<Json<ReviewView>, ApiError> {
    let Json(request) = body?;
    // Reject what cannot be read before taking a place in the solve pool.
    request.text()?;
    let run = service.run(&request.run)?;
    let limit = service.limits().max_solve_candidates;
    let caches = service.reviews().clone();
    let view = service
        .solve(move || -> Result<ReviewView, ApiError> {
            let input = request.text()?;
            let subject = Subject::of_run(&run);
            let game = read_game(subject.game, subject.table, &input).map_err(review_refusal)?;
            let cache = caches.of(&subject);
            let review = subject
                .reviewer(&cache, Some(limit))
                .review(&game)
                .map_err(review_refusal)?;
            Ok(ReviewView::new(&subject, &review, Some(limit)))
        })
        .await?;
    Ok(Json(view))
}
