//! The read-only `hakase.v1.Query` gRPC service: a thin adapter over [`QueryService`] that
//! reads requests into the service's arguments, writes its answers as replies, and answers
//! its refusals with the status of their kind.

use std::pin::Pin;
use std::sync::Arc;

use hakase_core::oracle::Source;
use hakase_proto::options::solver_options;
use hakase_proto::v1::query_server::{Query, QueryServer};
use hakase_proto::v1::{
    AnswerSource, ChartReply, ChartRequest, ChartRow, NextGuessReply, NextGuessRequest,
    RankingReply, RankingRequest, RankingRow, RunInfo, RunsReply, RunsRequest, TreeChunk,
    TreeFormat as WireFormat, TreeRequest, ValueHistogram,
};
use tokio_stream::Stream;
use tonic::{Code, Request, Response, Status};

use super::catalog::RunCatalog;
use super::error::{ErrorKind, ServiceError};
use super::ranking::RankingView;
use super::rescan::RescannedCatalog;
use super::run::RunSummary;
use super::service::{QueryService, ServiceLimits};
use super::stepchart::FirstChart;
use super::treerun::TreeFormat;
use super::view::NextView;
use hakase_serving::{bounded_health, PortLimits};

/// Largest request the service decodes: a history of tries × (word, pattern) is far smaller.
pub const MAX_REQUEST_BYTES: usize = 16 * 1024;

/// Bytes of tree text per streamed chunk.
pub const TREE_CHUNK_BYTES: usize = 64 * 1024;

/// The gRPC face of a [`QueryService`].
#[derive(Clone)]
pub struct GrpcQuery {
    service: QueryService,
}

impl GrpcQuery {
    /// The gRPC service answering through `service`.
    pub fn new(service: QueryService) -> GrpcQuery {
        GrpcQuery { service }
    }
}

/// The tonic server of `service`, with request size bounded; the coordinator can mount the
/// same service next to its own.
pub fn query_service(service: QueryService) -> QueryServer<GrpcQuery> {
    QueryServer::new(GrpcQuery::new(service))
        .max_decoding_message_size(MAX_REQUEST_BYTES)
        .max_encoding_message_size(hakase_proto::MAX_MESSAGE_BYTES)
}

/// Serves a fixed catalog (see [`serve_service`]) under the default limits.
pub async fn serve(
    catalog: Arc<RunCatalog>,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    let catalog = Arc::new(RescannedCatalog::fixed(Arc::unwrap_or_clone(catalog)));
    let service = QueryService::new(catalog, ServiceLimits::default());
    serve_service(service, listener, &PortLimits::QUERY, shutdown).await
}

/// Serves the query service with health reporting and reflection (so grpcurl works without
/// the .proto files) on `listener` under `limits` until `shutdown`.
pub async fn serve_service(
    service: QueryService,
    listener: tokio::net::TcpListener,
    limits: &PortLimits,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    let reporter = tonic_health::server::HealthReporter::new();
    reporter.set_serving::<QueryServer<GrpcQuery>>().await;
    let health = bounded_health(&reporter, limits.health_watches);
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(hakase_proto::FILE_DESCRIPTOR_SET)
        .with_service_name("hakase.v1.Query")
        .build_v1();
    let mut builder = hakase_serving::plain_grpc_server(limits);
    let mut router = builder.add_service(health);
    match reflection {
        Ok(reflection) => router = router.add_service(reflection),
        Err(e) => tracing::warn!("gRPC reflection is off: {e}"),
    }
    router
        .add_service(query_service(service))
        .serve_with_incoming_shutdown(hakase_serving::incoming(listener, limits), shutdown)
        .await
}

/// A refusal is answered with its kind's code and its message.
impl From<ServiceError> for Status {
    fn from(e: ServiceError) -> Status {
        let code = match e.kind() {
            ErrorKind::Invalid => Code::InvalidArgument,
            ErrorKind::NotFound => Code::NotFound,
            ErrorKind::Precondition => Code::FailedPrecondition,
            ErrorKind::TooLarge | ErrorKind::TooCostly | ErrorKind::Crowded => {
                Code::ResourceExhausted
            }
            ErrorKind::Unavailable => Code::Unavailable,
            ErrorKind::Internal => Code::Internal,
        };
        Status::new(code, e.to_string())
    }
}

fn source(s: Source) -> i32 {
    match s {
        Source::Tree => AnswerSource::Tree as i32,
        Source::Computed => AnswerSource::Computed as i32,
    }
}

/// The gRPC reply of a [`NextView`].
fn next_guess_reply(view: NextView) -> NextGuessReply {
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

/// The gRPC reply of a [`FirstChart`] (every row of which has its total and worst).
fn chart_reply(first: FirstChart) -> ChartReply {
    let chart = first.chart;
    ChartReply {
        first_guess: chart.guess.unwrap_or_default(),
        rows: chart
            .rows
            .into_iter()
            .map(|r| ChartRow {
                pattern: r.pattern,
                digits: r.digits,
                count: r.count as u32,
                second_guess: r.next_guess.unwrap_or_default(),
                total: r.total.unwrap_or(0),
                worst: r.worst.unwrap_or(0),
            })
            .collect(),
        total: first.total,
        worst: first.worst,
        source: source(chart.source),
        proven: first.proven,
        claim: first.claim,
    }
}

/// The gRPC form of a run's summary.
fn run_info(s: RunSummary) -> RunInfo {
    RunInfo {
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
    }
}

/// The gRPC reply of a [`RankingView`]; counts beyond `u32` saturate (no game has as many
/// guesses).
fn ranking_reply(view: RankingView) -> RankingReply {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    RankingReply {
        run: view.run,
        game: view.game,
        answers: count(view.answers),
        options: Some(solver_options(&view.options)),
        scope: view.scope.to_string(),
        first_guesses: count(view.first_guesses),
        settled: count(view.settled),
        finished: view.finished,
        claim: view.claim,
        histogram: Some(ValueHistogram {
            from: view.histogram.from,
            width: view.histogram.width,
            counts: view.histogram.counts,
        }),
        rows: view
            .rows
            .into_iter()
            .map(|r| RankingRow {
                rank: r.rank.map_or(0, count),
                guess: r.guess,
                total: r.total,
                mean: r.mean,
                exact: r.exact,
                settled: r.settled,
                unchecked: r.unchecked,
            })
            .collect(),
    }
}

/// The format a tree request names (unspecified: JSON).
fn tree_format(code: i32) -> Result<TreeFormat, Status> {
    match WireFormat::try_from(code) {
        Ok(WireFormat::Text) => Ok(TreeFormat::Text),
        Ok(WireFormat::Json | WireFormat::Unspecified) => Ok(TreeFormat::Json),
        Err(_) => Err(Status::invalid_argument(format!("unknown format {code}"))),
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
impl Query for GrpcQuery {
    async fn next_guess(
        &self,
        request: Request<NextGuessRequest>,
    ) -> Result<Response<NextGuessReply>, Status> {
        let caller = request.remote_addr().map(|a| a.ip());
        let request = request.into_inner();
        let history: Vec<(&str, &str)> = request
            .history
            .iter()
            .map(|s| (s.guess.as_str(), s.pattern.as_str()))
            .collect();
        let view = self
            .service
            .next_view(caller, &request.run, &history)
            .await?;
        Ok(Response::new(next_guess_reply(view)))
    }

    async fn chart(&self, request: Request<ChartRequest>) -> Result<Response<ChartReply>, Status> {
        let caller = request.remote_addr().map(|a| a.ip());
        let request = request.into_inner();
        let first = Some(request.first_guess.as_str()).filter(|w| !w.trim().is_empty());
        let chart = self
            .service
            .first_chart(caller, &request.run, first)
            .await?;
        Ok(Response::new(chart_reply(chart)))
    }

    type TreeStream = TreeStream;

    async fn tree(&self, request: Request<TreeRequest>) -> Result<Response<TreeStream>, Status> {
        let request = request.into_inner();
        let run = self.service.run(&request.run)?;
        let format = tree_format(request.format)?;
        let text = self.service.tree(&run, format)?;
        let items: Vec<Result<TreeChunk, Status>> = chunks(&text, TREE_CHUNK_BYTES)
            .into_iter()
            .map(|text| Ok(TreeChunk { text }))
            .collect();
        Ok(Response::new(Box::pin(tokio_stream::iter(items))))
    }

    async fn ranking(
        &self,
        request: Request<RankingRequest>,
    ) -> Result<Response<RankingReply>, Status> {
        let caller = request.remote_addr().map(|a| a.ip());
        let request = request.into_inner();
        let top = (request.top > 0).then_some(request.top as usize);
        let view = self
            .service
            .ranking(caller, &request.run, request.words, top)
            .await?;
        Ok(Response::new(ranking_reply(view)))
    }

    async fn runs(&self, _request: Request<RunsRequest>) -> Result<Response<RunsReply>, Status> {
        let runs = self
            .service
            .runs()
            .iter()
            .map(|r| run_info(RunSummary::of(r)))
            .collect();
        Ok(Response::new(RunsReply { runs }))
    }
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
