//! `/api/v1/…`: the query service as JSON over HTTP.
//!
//! | method and path | body or query | answer |
//! | --- | --- | --- |
//! | `GET /runs` | | the runs served |
//! | `POST /next` | `{"run", "history": [{"guess", "pattern"}]}` | the optimal next guess |
//! | `POST /candidates` | same | every answer still possible |
//! | `POST /chart` | same, optional `"first_guess"` | the chart of the current step |
//! | `GET /tree` | `?run=R&format=json\|text` | the run's optimal tree |
//! | `GET /ranking` | `?run=R&words=W1,W2&top=N` | first guesses with exact value and rank (`ranking` of docs/json.md) |
//! | `POST /rescan` | | look for new or finished runs now |
//! | `POST /review` | `{"run", "history"}`, or `"words"` with `"grid"` or `"answer"` | the game judged move by move (see [`super::review`]) |
//!
//! A thin adapter over [`QueryService`], as the gRPC service is: it reads JSON into the
//! service's arguments and writes its answers back; refusals become JSON errors (see
//! [`super::errors`]). Answers on the stored tree are computed inline; anything needing a
//! solve goes through the service's bounded solve pool.

use std::sync::Arc;

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query as QueryParams, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use hakase_core::PatternStyle;
use serde::{Deserialize, Serialize};

use crate::ranking::RankingView;
use crate::stepchart::StepChart;
use crate::treerun::TreeFormat;
use crate::view::NextView;
use crate::{QueryService, RunSummary, ScanReport};
use hakase_runs::LoadedRun;
use hakase_serving::http::errors::ApiError;
use hakase_serving::http::ClientAddr;

type Shared = State<Arc<QueryService>>;

/// The API's routes, to be nested under `/api/v1`.
pub fn routes() -> Router<Arc<QueryService>> {
    Router::new()
        .route("/runs", get(runs))
        .route("/next", post(next))
        .route("/candidates", post(candidates))
        .route("/chart", post(chart))
        .route("/tree", get(tree))
        .route("/ranking", get(ranking))
        .route("/rescan", post(rescan))
}

/// One played guess and the colours shown, in any notation (灰黄緑, BYG, ⬛🟨🟩, 012).
#[derive(Debug, Clone, Deserialize)]
pub struct StepJson {
    /// The word played.
    pub guess: String,
    /// The colours.
    pub pattern: String,
}

/// A game in progress on a run.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryJson {
    /// The run (empty: the only one served).
    #[serde(default)]
    pub run: String,
    /// The guesses so far.
    #[serde(default)]
    pub history: Vec<StepJson>,
    /// For `/chart` before any guess: the first guess to chart (default: the run's best);
    /// `first_guess` as docs/json.md names it, `first` still accepted.
    #[serde(default, rename = "first_guess", alias = "first")]
    pub first: String,
}

/// A run on offer: its summary (as `hakase runs --json` gives it) and what the page needs to
/// read input for its game.
#[derive(Debug, Serialize)]
pub struct RunJson {
    /// Name, game, claim, best first guess, total, ...
    #[serde(flatten)]
    pub summary: RunSummary,
    /// "run" for a run database, "tree" for a tree file.
    pub kind: &'static str,
    /// How the game writes colours: "kanji" (灰黄緑) or "letters" (BYG).
    pub style: PatternStyle,
    /// The game's words are katakana (the page converts hiragana and half-width kana).
    pub kana: bool,
}

impl RunJson {
    fn new(run: &LoadedRun) -> RunJson {
        let kana = run
            .game
            .guesses()
            .first()
            .map(|_| run.game.guess_text(0))
            .is_some_and(|w| w.chars().any(|c| ('\u{30A0}'..='\u{30FF}').contains(&c)));
        RunJson {
            summary: RunSummary::of(run),
            kind: if run.path.is_file() { "tree" } else { "run" },
            style: run.game.style(),
            kana,
        }
    }
}

/// The answer to `/runs`: an object, as every JSON document of hakase is.
#[derive(Debug, Serialize)]
pub struct RunsJson {
    /// The runs served.
    pub runs: Vec<RunJson>,
}

/// `GET /runs`.
async fn runs(State(service): Shared) -> Json<RunsJson> {
    Json(RunsJson {
        runs: service.runs().iter().map(|r| RunJson::new(r)).collect(),
    })
}

/// The history as (guess, colours) pairs.
fn pairs(history: &[StepJson]) -> Vec<(&str, &str)> {
    history
        .iter()
        .map(|s| (s.guess.as_str(), s.pattern.as_str()))
        .collect()
}

/// `POST /next`.
async fn next(
    State(service): Shared,
    ClientAddr(caller): ClientAddr,
    body: Result<Json<HistoryJson>, JsonRejection>,
) -> Result<Json<NextView>, ApiError> {
    let Json(request) = body?;
    let view = service
        .next_view(caller, &request.run, &pairs(&request.history))
        .await?;
    Ok(Json(view))
}

/// The answer to `/candidates`.
#[derive(Debug, Serialize)]
pub struct CandidatesJson {
    /// How many.
    pub count: usize,
    /// All of them, in the game's order.
    pub candidates: Vec<String>,
}

/// `POST /candidates`.
async fn candidates(
    State(service): Shared,
    body: Result<Json<HistoryJson>, JsonRejection>,
) -> Result<Json<CandidatesJson>, ApiError> {
    let Json(request) = body?;
    let candidates = service.candidates(&request.run, &pairs(&request.history))?;
    Ok(Json(CandidatesJson {
        count: candidates.len(),
        candidates,
    }))
}

/// `POST /chart`: the chart of the step after the history; before any guess with `first`,
/// the chart of that first guess (solved on the spot when it is not the run's own).
async fn chart(
    State(service): Shared,
    ClientAddr(caller): ClientAddr,
    body: Result<Json<HistoryJson>, JsonRejection>,
) -> Result<Json<StepChart>, ApiError> {
    let Json(request) = body?;
    if request.history.is_empty() && !request.first.trim().is_empty() {
        // Past the run's lookup, a first-guess chart refuses in English only, as the chart
        // RPC it was once answered through did.
        let run = service.run(&request.run)?;
        let first = service
            .first_chart(caller, &run.name, Some(&request.first))
            .await
            .map_err(|e| ApiError::from(e).english_only())?;
        return Ok(Json(first.chart));
    }
    let chart = service
        .step_chart(caller, &request.run, &pairs(&request.history))
        .await?;
    Ok(Json(chart))
}

/// The query of `GET /tree`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeParams {
    /// The run.
    #[serde(default)]
    pub run: String,
    /// "json" (default) or "text".
    #[serde(default)]
    pub format: Option<String>,
}

/// `GET /tree`.
async fn tree(
    State(service): Shared,
    params: Result<QueryParams<TreeParams>, QueryRejection>,
) -> Result<Response, ApiError> {
    let QueryParams(params) = params?;
    let (format, mime) = match params.format.as_deref().unwrap_or("json") {
        "json" => (TreeFormat::Json, "application/json"),
        "text" => (TreeFormat::Text, "text/plain; charset=utf-8"),
        other => {
            return Err(ApiError::bad_request(format!(
                "unknown format {other:?} (json or text)"
            )))
        }
    };
    // The tree refuses in English only, as the tree RPC it was once answered through did.
    let text = service
        .run(&params.run)
        .and_then(|run| service.tree(&run, format))
        .map_err(|e| ApiError::from(e).english_only())?;
    Ok(([(header::CONTENT_TYPE, mime)], text).into_response())
}

/// The query of `GET /ranking`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankingParams {
    /// The run.
    #[serde(default)]
    pub run: String,
    /// First guesses to look up, separated by commas (none: the best `top`).
    #[serde(default)]
    pub words: String,
    /// Rows when no word is named (absent: every row).
    #[serde(default)]
    pub top: Option<usize>,
}

/// `GET /ranking`: the exact value and rank of the words asked about, or the best rows,
/// with the histogram of every exact value.
async fn ranking(
    State(service): Shared,
    ClientAddr(caller): ClientAddr,
    params: Result<QueryParams<RankingParams>, QueryRejection>,
) -> Result<Json<RankingView>, ApiError> {
    let QueryParams(params) = params?;
    let words: Vec<String> = params
        .words
        .split([',', '、'])
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    Ok(Json(
        service
            .ranking(caller, &params.run, words, params.top)
            .await?,
    ))
}

/// `POST /rescan`: look for runs that appeared or finished, now.
async fn rescan(State(service): Shared) -> Result<Json<ScanReport>, ApiError> {
    Ok(Json(service.rescan().await?))
}
