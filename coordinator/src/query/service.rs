//! The read-only `hakase.v1.Query` gRPC service over a [`RunCatalog`].
//!
//! Answers that follow a stored tree are computed inline (microseconds); answers that need an
//! on-the-spot solve run on a blocking thread, a few at a time, and are bounded in size, so no
//! request can starve the others. Bad input is `INVALID_ARGUMENT` naming the step; nothing a
//! client sends can panic the server.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;

use hakase_core::history::Step;
use hakase_core::query::{parse_history, OptimalChart, QueryError, Source};
use hakase_core::treefile;
use hakase_core::PatternStyle;
use hakase_proto::options::solver_options;
use hakase_proto::v1::query_server::{Query, QueryServer};
use hakase_proto::v1::{
    AnswerSource, ChartReply, ChartRequest, ChartRow, NextGuessReply, NextGuessRequest, RunInfo,
    RunsReply, RunsRequest, TreeChunk, TreeFormat, TreeRequest,
};
use tokio::sync::Semaphore;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use super::catalog::{CatalogError, RunCatalog};
use super::live::LiveCatalog;
use super::message::{self, Refusal};
use super::review::ReviewCaches;
use super::run::{LoadedRun, RunError};
use super::view::NextView;
pub use super::view::LIST_CANDIDATES_UP_TO;

/// Largest request the service decodes: a history of tries × (word, pattern) is far smaller.
pub const MAX_REQUEST_BYTES: usize = 16 * 1024;

/// Bytes of tree text per streamed chunk.
pub const TREE_CHUNK_BYTES: usize = 64 * 1024;

/// Bounds on the work one request may cause.
#[derive(Debug, Clone, Copy)]
pub struct ServiceLimits {
    /// Largest candidate set solved on the spot (off-tree histories, off-tree first guesses).
    pub max_solve_candidates: usize,
    /// On-the-spot solves running at once; more wait.
    pub concurrent_solves: usize,
}

impl Default for ServiceLimits {
    fn default() -> Self {
        ServiceLimits {
            max_solve_candidates: 400,
            concurrent_solves: 2,
        }
    }
}

/// The service: the catalog plus the limits, and the bounded caches of reviews.
#[derive(Clone)]
pub struct QueryService {
    catalog: Arc<LiveCatalog>,
    limits: ServiceLimits,
    solves: Arc<Semaphore>,
    reviews: Arc<ReviewCaches>,
}

impl QueryService {
    /// A service over `catalog` with `limits`.
    pub fn new(catalog: Arc<LiveCatalog>, limits: ServiceLimits) -> QueryService {
        QueryService {
            catalog,
            solves: Arc::new(Semaphore::new(limits.concurrent_solves.max(1))),
            limits,
            reviews: Arc::new(ReviewCaches::default()),
        }
    }

    /// The catalog served (rescans swap what it holds).
    pub fn catalog(&self) -> &Arc<LiveCatalog> {
        &self.catalog
    }

    /// The run a request names, or the refusal saying why there is none.
    pub fn run(&self, name: &str) -> Result<Arc<LoadedRun>, Refusal> {
        self.catalog.current().get(name).map_err(|e| {
            let status = match e {
                CatalogError::Unknown { .. } => Status::not_found(e.to_string()),
                CatalogError::Ambiguous(_) | CatalogError::Empty => {
                    Status::invalid_argument(e.to_string())
                }
            };
            Refusal::new(status, message::of_catalog(&e))
        })
    }

    /// The limits in force.
    pub fn limits(&self) -> ServiceLimits {
        self.limits
    }

    /// The review caches (one per run and rules, bounded), shared by every request.
    pub fn reviews(&self) -> &Arc<ReviewCaches> {
        &self.reviews
    }

    /// The run named `name` and `history` (guess, colours) read against its game: the
    /// history's length is checked before anything is parsed.
    pub fn read_history(
        &self,
        name: &str,
        history: &[(&str, &str)],
    ) -> Result<(Arc<LoadedRun>, Vec<Step>), Refusal> {
        let run = self.run(name)?;
        let tries = run.game.tries();
        if history.len() > tries as usize {
            return Err(query_refusal(QueryError::TooLong {
                steps: history.len(),
                tries,
            }));
        }
        let steps = parse_history(&run.game, history).map_err(query_refusal)?;
        Ok((run, steps))
    }

    /// The next guess after `history` on run `name`: inline on the stored tree, through the
    /// bounded solve pool when the history left it. Every front end renders this one view.
    pub async fn next_view(
        &self,
        name: &str,
        history: &[(&str, &str)],
    ) -> Result<NextView, Refusal> {
        let (run, steps) = self.read_history(name, history)?;
        let oracle = run.oracle().map_err(run_status)?;
        if oracle.follows_tree(&steps) {
            let next = oracle.next_guess(&steps).map_err(query_refusal)?;
            return Ok(NextView::new(&run, &next));
        }
        let limit = self.limits.max_solve_candidates;
        self.solve(move || {
            let oracle = run.oracle().map_err(run_status)?.with_solve_limit(limit);
            let next = oracle.next_guess(&steps).map_err(query_refusal)?;
            Ok(NextView::new(&run, &next))
        })
        .await
    }

    /// Runs `work` on a blocking thread under the solve semaphore.
    pub(crate) async fn solve<T: Send + 'static, E: From<Status> + Send + 'static>(
        &self,
        work: impl FnOnce() -> Result<T, E> + Send + 'static,
    ) -> Result<T, E> {
        let _permit = self
            .solves
            .acquire()
            .await
            .map_err(|_| Status::unavailable("the server is shutting down"))?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| Status::internal(format!("the solve failed: {e}")))?
    }
}

/// The tonic server of `service`, with request size bounded; the coordinator can mount the
/// same service next to its own.
pub fn query_service(service: QueryService) -> QueryServer<QueryService> {
    QueryServer::new(service)
        .max_decoding_message_size(MAX_REQUEST_BYTES)
        .max_encoding_message_size(hakase_proto::MAX_MESSAGE_BYTES)
}

/// Serves a fixed catalog (see [`serve_live`]).
pub async fn serve(
    catalog: Arc<RunCatalog>,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    let catalog = Arc::new(LiveCatalog::fixed(Arc::unwrap_or_clone(catalog)));
    let service = QueryService::new(catalog, ServiceLimits::default());
    serve_live(service, listener, shutdown).await
}

/// Serves the query service with health reporting and reflection (so grpcurl works without
/// the .proto files) on `listener` until `shutdown`.
pub async fn serve_live(
    service: QueryService,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    let (reporter, health) = tonic_health::server::health_reporter();
    reporter.set_serving::<QueryServer<QueryService>>().await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(hakase_proto::FILE_DESCRIPTOR_SET)
        .with_service_name("hakase.v1.Query")
        .build_v1();
    let mut builder = tonic::transport::Server::builder();
    let mut router = builder.add_service(health);
    match reflection {
        Ok(reflection) => router = router.add_service(reflection),
        Err(e) => tracing::warn!("gRPC reflection is off: {e}"),
    }
    router
        .add_service(query_service(service))
        .serve_with_incoming_shutdown(
            // Small replies must not wait for Nagle: without this p99 is ~40 ms.
            tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true)),
            shutdown,
        )
        .await
}

/// The address a listener got, for logs and tests.
pub fn local_addr(listener: &tokio::net::TcpListener) -> Option<SocketAddr> {
    listener.local_addr().ok()
}

/// The status a query error is answered with.
pub(crate) fn query_status(e: QueryError) -> Status {
    match e {
        QueryError::NoTree(_) | QueryError::Infeasible { .. } => {
            Status::failed_precondition(e.to_string())
        }
        QueryError::TooManyToSolve { .. } => Status::resource_exhausted(e.to_string()),
        _ => Status::invalid_argument(e.to_string()),
    }
}

/// [`query_status`] with the error's message key, for the HTTP API.
pub(crate) fn query_refusal(e: QueryError) -> Refusal {
    let message = message::of_query(&e);
    Refusal::new(query_status(e), message)
}

/// The status of a run that cannot answer.
pub(crate) fn run_status(e: RunError) -> Status {
    Status::failed_precondition(e.to_string())
}

fn source(s: Source) -> i32 {
    match s {
        Source::Tree => AnswerSource::Tree as i32,
        Source::Computed => AnswerSource::Computed as i32,
    }
}

/// The gRPC reply of a [`NextView`].
pub fn next_guess_reply(view: NextView) -> NextGuessReply {
    NextGuessReply {
        won: view.won,
        feasible: view.feasible,
        guess: view.guess.unwrap_or_default(),
        count: view.count as u32,
        candidates: view.candidates.unwrap_or_default(),
        total: view.total.unwrap_or(0),
        mean: view.mean.unwrap_or(0.0),
        worst: view.worst.unwrap_or(0),
        source: source(view.source),
        guesses_left: view.guesses_left,
        steps: view.steps as u32,
    }
}

/// The reply for a chart of `run`.
pub fn chart_reply(run: &LoadedRun, chart: &OptimalChart) -> ChartReply {
    let game = &run.game;
    let len = game.guesses()[chart.first as usize].len();
    ChartReply {
        first_guess: game.guess_text(chart.first).to_string(),
        rows: chart
            .rows
            .iter()
            .map(|r| ChartRow {
                pattern: r.row.pattern.format(len, game.style()),
                digits: r.row.pattern.format(len, PatternStyle::Digits),
                count: r.row.candidates.len() as u32,
                second_guess: r
                    .row
                    .second
                    .map(|g| game.guess_text(g).to_string())
                    .unwrap_or_default(),
                total: r.total,
                worst: r.worst,
            })
            .collect(),
        total: chart.total,
        worst: chart.worst,
        source: source(chart.source),
        proven: run.proven(),
        claim: run.claim(),
    }
}

/// Splits `text` into chunks of about `size` bytes at character boundaries.
fn chunks(text: &str, size: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(text[start..end].to_string());
        start = end;
    }
    out
}

type TreeStream = Pin<Box<dyn Stream<Item = Result<TreeChunk, Status>> + Send + 'static>>;

#[tonic::async_trait]
impl Query for QueryService {
    async fn next_guess(
        &self,
        request: Request<NextGuessRequest>,
    ) -> Result<Response<NextGuessReply>, Status> {
        let request = request.into_inner();
        let history: Vec<(&str, &str)> = request
            .history
            .iter()
            .map(|s| (s.guess.as_str(), s.pattern.as_str()))
            .collect();
        let view = self.next_view(&request.run, &history).await?;
        Ok(Response::new(next_guess_reply(view)))
    }

    async fn chart(&self, request: Request<ChartRequest>) -> Result<Response<ChartReply>, Status> {
        let request = request.into_inner();
        let run = self.run(&request.run)?;
        let first = match request.first_guess.trim() {
            "" => None,
            word => Some(
                run.game
                    .find_guess(word)
                    .map_err(|e| Status::invalid_argument(format!("first guess: {e}")))?,
            ),
        };
        let limit = self.limits.max_solve_candidates;
        let oracle = run.oracle().map_err(run_status)?;
        if first.is_none() || first == Some(oracle.tree().guess) {
            let chart = oracle.chart(first).map_err(query_status)?;
            return Ok(Response::new(chart_reply(&run, &chart)));
        }
        let reply = self
            .solve(move || -> Result<ChartReply, Status> {
                let oracle = run.oracle().map_err(run_status)?.with_solve_limit(limit);
                let chart = oracle.chart(first).map_err(query_status)?;
                Ok(chart_reply(&run, &chart))
            })
            .await?;
        Ok(Response::new(reply))
    }

    type TreeStream = TreeStream;

    async fn tree(&self, request: Request<TreeRequest>) -> Result<Response<TreeStream>, Status> {
        let request = request.into_inner();
        let run = self.run(&request.run)?;
        let format = TreeFormat::try_from(request.format)
            .map_err(|_| Status::invalid_argument(format!("unknown format {}", request.format)))?;
        let oracle = run.oracle().map_err(run_status)?;
        let text = match format {
            TreeFormat::Text => treefile::to_text(&run.game, &run.table, oracle.tree(), false),
            TreeFormat::Json | TreeFormat::Unspecified => {
                treefile::to_json(&run.game, oracle.tree(), tree_about(&run))
            }
        };
        let items: Vec<Result<TreeChunk, Status>> = chunks(&text, TREE_CHUNK_BYTES)
            .into_iter()
            .map(|text| Ok(TreeChunk { text }))
            .collect();
        Ok(Response::new(Box::pin(tokio_stream::iter(items))))
    }

    async fn runs(&self, _request: Request<RunsRequest>) -> Result<Response<RunsReply>, Status> {
        let runs = self
            .catalog
            .current()
            .summaries()
            .into_iter()
            .map(|s| RunInfo {
                name: s.name,
                game: s.game,
                fingerprint: s.fingerprint,
                options: s.options.as_ref().map(solver_options),
                finished: s.finished,
                proven: s.proven,
                first_guess: s.first_guess.unwrap_or_default(),
                total: s.total.unwrap_or(0),
                answers: s.answers as u32,
                tries: s.tries,
                first_guess_fixed: s.first_guess_fixed.unwrap_or_default(),
                claim: s.claim,
                label: s.label.map(|l| l.name().to_string()).unwrap_or_default(),
            })
            .collect();
        Ok(Response::new(RunsReply { runs }))
    }
}

/// The facts written into a tree document of a run: options, proof, total.
pub fn tree_about(run: &LoadedRun) -> serde_json::Value {
    super::treerun::about(
        Some(&run.name),
        &run.manifest.config,
        run.solution.as_ref(),
        run.first.as_deref(),
    )
}

#[cfg(test)]
mod tests {
    use super::chunks;

    #[test]
    fn chunks_split_at_character_boundaries() {
        let text = "ジーランス 灰灰灰灰灰1\n".repeat(100);
        let parts = chunks(&text, 7);
        assert!(parts.len() > 10);
        assert_eq!(parts.concat(), text);
    }
}
