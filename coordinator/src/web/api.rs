//! `/api/v1/…`: the query service as JSON over HTTP.
//!
//! | method and path | body or query | answer |
//! | --- | --- | --- |
//! | `GET /runs` | | the runs served |
//! | `POST /next` | `{"run", "history": [{"guess", "pattern"}]}` | the optimal next guess |
//! | `POST /candidates` | same | every answer still possible |
//! | `POST /chart` | same, optional `"first"` | the chart of the current step |
//! | `GET /tree` | `?run=R&format=json\|text` | the run's optimal tree |
//! | `POST /rescan` | | look for new or finished runs now |
//!
//! Answers on the stored tree are computed inline; anything needing a solve goes through the
//! service's bounded solve pool, exactly as over gRPC.

use std::sync::Arc;

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query as QueryParams, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use hakase_core::history::filter;
use hakase_core::query::{parse_history, Source};
use hakase_core::PatternStyle;
use hakase_proto::v1::query_server::Query;
use hakase_proto::v1::{
    AnswerSource, ChartReply, ChartRequest, HistoryStep, NextGuessReply, NextGuessRequest,
    TreeFormat, TreeRequest,
};
use serde::{Deserialize, Serialize};
use tokio_stream::StreamExt;
use tonic::Status;

use super::errors::ApiError;
use crate::query::service::{query_status, run_status};
use crate::query::stepchart::{step_chart, StepChart, StepRow};
use crate::query::{LoadedRun, QueryService, ScanReport};

type Shared = State<Arc<QueryService>>;

/// The API's routes, to be nested under `/api/v1`.
pub fn routes() -> Router<Arc<QueryService>> {
    Router::new()
        .route("/runs", get(runs))
        .route("/next", post(next))
        .route("/candidates", post(candidates))
        .route("/chart", post(chart))
        .route("/tree", get(tree))
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
    /// For `/chart` before any guess: the first guess to chart (default: the run's best).
    #[serde(default)]
    pub first: String,
}

/// A run on offer.
#[derive(Debug, Serialize)]
pub struct RunJson {
    /// The name requests use.
    pub name: String,
    /// "run" for a run database, "tree" for a tree file.
    pub kind: &'static str,
    /// The game.
    pub game: String,
    /// The game's fingerprint.
    pub fingerprint: String,
    /// The solver options.
    pub options: serde_json::Value,
    /// The optimal tree is stored.
    pub finished: bool,
    /// The tree is a proof of optimality.
    pub proven: bool,
    /// The best first guess.
    pub best_first_guess: Option<String>,
    /// Its total over all answers.
    pub total: Option<u64>,
    /// Answers of the game.
    pub answers: usize,
    /// Guesses allowed.
    pub tries: u32,
    /// How the game writes colours: "kanji" (灰黄緑) or "letters" (BYG).
    pub style: PatternStyle,
    /// The game's words are katakana (the page converts hiragana and half-width kana).
    pub kana: bool,
}

impl RunJson {
    fn new(run: &LoadedRun) -> RunJson {
        let s = run.summary();
        let kana = run
            .game
            .guesses()
            .first()
            .map(|_| run.game.guess_text(0))
            .is_some_and(|w| w.chars().any(|c| ('\u{30A0}'..='\u{30FF}').contains(&c)));
        RunJson {
            name: s.name,
            kind: if run.path.is_file() { "tree" } else { "run" },
            game: s.game,
            fingerprint: s.fingerprint,
            options: serde_json::to_value(&run.manifest.config).unwrap_or_default(),
            finished: s.finished,
            proven: s.proven,
            best_first_guess: s.best_first_guess,
            total: s.total,
            answers: s.answers,
            tries: s.tries,
            style: run.game.style(),
            kana,
        }
    }
}

/// `GET /runs`.
async fn runs(State(service): Shared) -> Json<Vec<RunJson>> {
    let catalog = service.catalog().current();
    Json(catalog.runs().map(|r| RunJson::new(r)).collect())
}

/// The answer to `/next`: the same fields as `hakase query --json`.
#[derive(Debug, Serialize)]
pub struct NextJson {
    /// The run answered from.
    pub run: String,
    /// Steps played.
    pub steps: u32,
    /// The last step won.
    pub won: bool,
    /// Some strategy still wins every candidate.
    pub feasible: bool,
    /// The optimal next guess.
    pub guess: Option<String>,
    /// How many answers are left.
    pub candidate_count: u32,
    /// The answers left when at most 20.
    pub candidates: Option<Vec<String>>,
    /// Further guesses in total over the candidates, the next one included.
    pub total: Option<u64>,
    /// total / candidate_count.
    pub expected: Option<f64>,
    /// Most further guesses.
    pub worst: Option<u32>,
    /// "tree" or "computed".
    pub source: Source,
    /// Guesses still allowed.
    pub guesses_left: u32,
}

impl NextJson {
    fn new(run: String, r: NextGuessReply) -> NextJson {
        let listed = r.candidates.len() as u32 == r.candidate_count;
        let known = r.feasible;
        NextJson {
            run,
            steps: r.steps,
            won: r.won,
            feasible: r.feasible,
            guess: (!r.guess.is_empty()).then_some(r.guess),
            candidate_count: r.candidate_count,
            candidates: listed.then_some(r.candidates),
            total: known.then_some(r.total),
            expected: known.then_some(r.expected),
            worst: known.then_some(r.worst),
            source: source_of(r.source),
            guesses_left: r.guesses_left,
        }
    }
}

fn source_of(code: i32) -> Source {
    if code == AnswerSource::Computed as i32 {
        Source::Computed
    } else {
        Source::Tree
    }
}

fn proto_history(history: &[StepJson]) -> Vec<HistoryStep> {
    history
        .iter()
        .map(|s| HistoryStep {
            guess: s.guess.clone(),
            pattern: s.pattern.clone(),
        })
        .collect()
}

/// `POST /next`.
async fn next(
    State(service): Shared,
    body: Result<Json<HistoryJson>, JsonRejection>,
) -> Result<Json<NextJson>, ApiError> {
    let Json(request) = body?;
    let run = service.run(&request.run)?;
    let reply = service
        .next_guess(tonic::Request::new(NextGuessRequest {
            run: run.name.clone(),
            history: proto_history(&request.history),
        }))
        .await?
        .into_inner();
    Ok(Json(NextJson::new(run.name.clone(), reply)))
}

/// The answer to `/candidates`.
#[derive(Debug, Serialize)]
pub struct CandidatesJson {
    /// How many.
    pub count: usize,
    /// All of them, in the game's order.
    pub candidates: Vec<String>,
}

/// The run and the history read against its game, or the error a bad one gets.
fn read_history(
    service: &QueryService,
    request: &HistoryJson,
) -> Result<(Arc<LoadedRun>, Vec<hakase_core::history::Step>), Status> {
    let run = service.run(&request.run)?;
    let tries = run.game.tries() as usize;
    if request.history.len() > tries {
        return Err(Status::invalid_argument(format!(
            "the history has {} steps but the game allows only {tries} guesses",
            request.history.len()
        )));
    }
    let texts: Vec<(&str, &str)> = request
        .history
        .iter()
        .map(|s| (s.guess.as_str(), s.pattern.as_str()))
        .collect();
    let steps = parse_history(&run.game, &texts).map_err(query_status)?;
    Ok((run, steps))
}

/// `POST /candidates`.
async fn candidates(
    State(service): Shared,
    body: Result<Json<HistoryJson>, JsonRejection>,
) -> Result<Json<CandidatesJson>, ApiError> {
    let Json(request) = body?;
    let (run, steps) = read_history(&service, &request)?;
    let left = filter(&run.game, &run.table, &steps)
        .map_err(|e| ApiError::bad_request(format!("no possible answer fits the history: {e}")))?;
    Ok(Json(CandidatesJson {
        count: left.len(),
        candidates: left
            .iter()
            .map(|&a| run.game.answer_text(a).to_string())
            .collect(),
    }))
}

/// `POST /chart`: the chart of the step after the history; before any guess with `first`,
/// the chart of that first guess (solved on the spot when it is not the run's own).
async fn chart(
    State(service): Shared,
    body: Result<Json<HistoryJson>, JsonRejection>,
) -> Result<Json<StepChart>, ApiError> {
    let Json(request) = body?;
    if request.history.is_empty() && !request.first.trim().is_empty() {
        let run = service.run(&request.run)?;
        let reply = service
            .chart(tonic::Request::new(ChartRequest {
                run: run.name.clone(),
                first_guess: request.first.clone(),
            }))
            .await?
            .into_inner();
        return Ok(Json(first_chart(&run, reply)));
    }
    let (run, steps) = read_history(&service, &request)?;
    let limit = service.limits().max_solve_candidates;
    let on_tree = run.oracle().is_ok_and(|o| o.follows_tree(&steps));
    let work = move || -> Result<StepChart, Status> {
        let oracle = run.oracle().map_err(run_status)?.with_solve_limit(limit);
        let next = oracle.next_guess(&steps).map_err(query_status)?;
        step_chart(&run, &oracle, &steps, &next).map_err(query_status)
    };
    let chart = if on_tree {
        work()?
    } else {
        service.solve(work).await?
    };
    Ok(Json(chart))
}

/// A first-guess chart of the gRPC service in the step chart's shape.
fn first_chart(run: &LoadedRun, reply: ChartReply) -> StepChart {
    StepChart {
        steps: 0,
        guess: Some(reply.first_guess),
        candidates: run.game.answers().len(),
        source: source_of(reply.source),
        rows: reply
            .rows
            .into_iter()
            .map(|r| StepRow {
                pattern: r.pattern,
                digits: r.digits,
                count: r.candidate_count as usize,
                next: (!r.second_guess.is_empty()).then_some(r.second_guess),
                total: Some(r.total),
                worst: Some(r.worst),
            })
            .collect(),
    }
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
    let mut stream = service
        .tree(tonic::Request::new(TreeRequest {
            run: params.run,
            format: format as i32,
        }))
        .await?
        .into_inner();
    let mut text = String::new();
    while let Some(chunk) = stream.next().await {
        text.push_str(&chunk?.text);
    }
    Ok(([(header::CONTENT_TYPE, mime)], text).into_response())
}

/// `POST /rescan`: look for runs that appeared or finished, now.
async fn rescan(State(service): Shared) -> Result<Json<ScanReport>, ApiError> {
    let catalog = service.catalog().clone();
    let report = tokio::task::spawn_blocking(move || catalog.rescan())
        .await
        .map_err(|e| Status::internal(format!("the rescan failed: {e}")))?;
    Ok(Json(report))
}
