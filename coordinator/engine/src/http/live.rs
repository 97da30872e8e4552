//! The live run page: `/` (HTML, script and style embedded in the binary, no build step, no
//! CDN) and the JSON it polls, `/api/v1/run`: progress over time, the workers and their
//! rates, the top of the ranking, the ETA, and the result once the run is over.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;

use super::history::{History, Sample};
use crate::engine::{CutView, Engine};
use hakase_core::label::proof_words;
use hakase_serving::http::page;

/// The page.
pub const LIVE_HTML: &str = include_str!("static/live.html");
/// Its script.
pub const LIVE_JS: &str = include_str!("static/live.js");
/// Its style sheet.
pub const LIVE_CSS: &str = include_str!("static/live.css");

/// Seconds between the samples of the progress plot at first.
pub const SAMPLE_SECS: f64 = 2.0;

/// Ranking rows shown.
pub const TOP: usize = 10;

/// A run being watched: the engine and its history.
pub struct Live {
    engine: Arc<Engine>,
    history: Mutex<History>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("history", &self.history)
            .finish()
    }
}

/// The jobs of the run.
#[derive(Debug, Serialize)]
pub struct JobsView {
    /// Made so far by the plan.
    pub total: u64,
    /// With a result.
    pub done: u64,
    /// Waiting for a worker.
    pub queued: u64,
    /// Being solved.
    pub leased: u64,
}

/// The best first guess so far.
#[derive(Debug, Serialize)]
pub struct BestView {
    /// The guess.
    pub guess: String,
    /// Its total over the answers.
    pub total: u32,
    /// The mean number of guesses.
    pub mean: f64,
}

/// A ranking row.
#[derive(Debug, Serialize)]
pub struct RankView {
    /// The first guess.
    pub guess: String,
    /// True when `value` is its exact total; false: a lower bound (cut off by the best).
    pub exact: bool,
    /// Its total, or the bound.
    pub value: u32,
    /// True when the row rests on a worker claim nobody re-ran (marked `*`, as `proof` says).
    pub unchecked: bool,
}

/// A worker's row.
#[derive(Debug, Serialize)]
pub struct WorkerRow {
    /// The worker id.
    pub id: u64,
    /// Its per-worker token's name, if it has one.
    pub token: Option<String>,
    /// Its job slots.
    pub threads: usize,
    /// Results taken from it in this session.
    pub jobs_done: u64,
    /// Results per second over the last half minute (`None` before two samples).
    pub rate: Option<f64>,
    /// Seen within three lease periods.
    pub live: bool,
    /// Caught lying.
    pub quarantined: bool,
}

/// What `/api/v1/run` answers.
#[derive(Debug, Serialize)]
pub struct RunView {
    /// The game's name.
    pub game: String,
    /// Its answers.
    pub answers: usize,
    /// "running", "finished" or "failed: …".
    pub state: String,
    /// True once the result is proven.
    pub finished: bool,
    /// Seconds since the coordinator started; once finished, when the result was declared.
    pub elapsed_secs: f64,
    /// Seconds left at this session's rate (none before the first settled guess).
    pub eta_secs: Option<f64>,
    /// First guesses in all.
    pub first_total: u64,
    /// First guesses settled.
    pub first_settled: u64,
    /// The guess budget being searched.
    pub guesses_left: u32,
    /// The jobs.
    pub jobs: JobsView,
    /// Results taken from workers.
    pub results: u64,
    /// Workers seen within three lease periods and not gone (told that the run is over).
    pub workers_live: u64,
    /// The best first guess so far (the proven best once finished).
    pub best: Option<BestView>,
    /// The top of the ranking.
    pub ranking: Vec<RankView>,
    /// Every worker registered.
    pub workers: Vec<WorkerRow>,
    /// Progress over time, oldest first.
    pub history: Vec<Sample>,
    /// How the results were checked so far, in one line.
    pub audit: String,
    /// The first guesses cut into part jobs that are still open: a run of one huge first
    /// guess shows its parts settled and the interval of its total here.
    pub cuts: Vec<CutView>,
    /// How far the result is proven, in the headline's words ("proven", "proven if 492
    /// unchecked worker claims hold, …").
    pub proof: String,
}

impl Live {
    /// Watches `engine`'s run.
    pub fn new(engine: Arc<Engine>) -> Arc<Live> {
        let live = Arc::new(Live {
            engine,
            history: Mutex::new(History::new(SAMPLE_SECS)),
        });
        live.view();
        live
    }

    /// The engine watched.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The run now, recorded in the history as its latest sample.
    pub fn view(&self) -> RunView {
        let snap = self.engine.snapshot();
        let detail = self.engine.detail();
        let answers = self.engine.game().answers().len();
        let (history, workers) = match self.history.lock() {
            Ok(mut history) => {
                history.record(&snap, &detail);
                let rows = detail
                    .workers
                    .iter()
                    .map(|w| WorkerRow {
                        id: w.id,
                        token: w.token.clone(),
                        threads: w.threads,
                        jobs_done: w.jobs_done,
                        // A worker that left has no rate, whatever it did before.
                        rate: history.rate(w.id).filter(|_| w.live),
                        live: w.live,
                        quarantined: w.quarantined,
                    })
                    .collect();
                (history.samples().to_vec(), rows)
            }
            Err(_) => (Vec::new(), Vec::new()),
        };
        let game = self.engine.game();
        let unchecked: std::collections::HashSet<&str> = snap
            .audit
            .unchecked_guesses
            .iter()
            .map(|&g| game.guess_text(g))
            .collect();
        RunView {
            game: game.name().to_string(),
            answers,
            finished: snap.state == "finished",
            state: snap.state,
            elapsed_secs: snap.elapsed_secs,
            eta_secs: snap.eta_secs,
            first_total: snap.first_total,
            first_settled: snap.first_settled,
            guesses_left: snap.guesses_left,
            jobs: JobsView {
                total: snap.jobs_total,
                done: snap.jobs_done,
                queued: snap.jobs_queued,
                leased: snap.jobs_leased,
            },
            results: snap.counters.completions,
            workers_live: snap.workers,
            best: snap.best.map(|(guess, total)| BestView {
                guess,
                total,
                mean: f64::from(total) / answers.max(1) as f64,
            }),
            ranking: snap
                .ranking
                .into_iter()
                .take(TOP)
                .map(|(guess, exact, value)| RankView {
                    unchecked: unchecked.contains(guess.as_str()),
                    guess,
                    exact,
                    value,
                })
                .collect(),
            workers,
            history,
            audit: snap.audit.line(),
            cuts: snap.cuts,
            proof: proof_words(
                self.engine.config.top_k.is_none(),
                snap.audit.unchecked_guesses.len(),
            ),
        }
    }

    /// Samples the run every [`SAMPLE_SECS`], so the plot has points while nobody watches.
    pub async fn sample_forever(self: Arc<Self>) {
        let mut every = tokio::time::interval(Duration::from_secs_f64(SAMPLE_SECS));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            self.view();
        }
    }
}

/// `GET /api/v1/run`.
pub async fn run_json(State(live): State<Arc<Live>>) -> impl IntoResponse {
    ([(header::CACHE_CONTROL, "no-store")], Json(live.view()))
}

/// `/`, `/live.js`, `/live.css` and the icon.
pub fn page_routes() -> Router<Arc<Live>> {
    Router::new()
        .merge(hakase_serving::http::icon_routes())
        .route(
            "/",
            get(|| async { page(LIVE_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/live.js",
            get(|| async { page(LIVE_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/live.css",
            get(|| async { page(LIVE_CSS, "text/css; charset=utf-8") }),
        )
}
