//! Serving a batch: resume the claims an earlier server kept, serve the days in the serving
//! shell until every day is settled (and workers heard) or a signal, and say how the claims
//! were checked.

use std::net::SocketAddr;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use hakase_core::GameTable;
use hakase_engine::audit::AuditPolicy;
use hakase_proto::token::TokenSet;
use hakase_proto::v1::cluster_server::ClusterServer;
use hakase_proto::v1::puzzles_server::PuzzlesServer;
use hakase_proto::MAX_MESSAGE_BYTES;
use hakase_serving::{
    self, init_logging, CheckToken, Ending, Interrupted, Linger, LogFormat, PortLimits,
    SharedTokens, Threads,
};
use tonic::service::interceptor::InterceptedService;

use super::args::ServeArgs;
use super::service::Service;
use super::state::Shared;
use crate::error::{BatchError, Result};
use crate::run::BatchRun;

/// Serves `run`'s days until every day is settled (then returns the run and how claims
/// were checked) or a signal arrives (an error saying how to resume).
pub fn serve(
    args: &ServeArgs,
    listen: SocketAddr,
    mut run: BatchRun,
    tokens: TokenSet,
    tables: &Arc<GameTable>,
    seed: u64,
) -> Result<(BatchRun, String)> {
    init_logging(LogFormat::Text);
    let tokens = Arc::new(RwLock::new(tokens));
    resume_claims(&mut run)?;
    if run.order.is_done() {
        return Ok((run, "checked: every day was already made".to_string()));
    }
    let policy = AuditPolicy::with_fraction(args.audit_fraction);
    let (done, done_rx) = tokio::sync::watch::channel(false);
    let lease = Duration::from_secs_f64(args.lease_secs.clamp(0.2, 86_400.0));
    let shared = Arc::new(Shared::new(run, tables, seed, policy, lease, done)?);
    let runtime = hakase_serving::runtime(Threads::Pool(2))?;
    let ending = Ending::new();
    let linger = Linger::secs(args.linger_secs, Duration::from_millis(10));
    let service = Service(shared.clone());
    let shutdown = {
        let service = service.clone();
        ending.when_done(done_rx, linger, move || service.all_told())
    };
    runtime.block_on(serve_days(args, listen, service, tokens, shutdown))?;
    drop(runtime);
    let shared = Arc::try_unwrap(shared)
        .map_err(|_| BatchError::State("the server still holds the batch"))?;
    let state = shared
        .state
        .into_inner()
        .map_err(|_| BatchError::State("the batch state is poisoned"))?;
    if ending.interrupted() || !state.run.order.is_done() {
        return Err(Interrupted::now(format!(
            "the days made so far are kept in {} — run the same command again to resume",
            state.run.dir.dir().display()
        ))
        .into());
    }
    Ok((state.run, state.checked.line(policy.fraction())))
}

/// Takes the claims an earlier server of this batch kept (checked before they were).
fn resume_claims(run: &mut BatchRun) -> Result<()> {
    for claim in run.dir.open_claims()? {
        if let Some((slot, attempt)) = run.order.waiting(claim.day) {
            if attempt == claim.attempt {
                run.made(&slot, attempt, claim.puzzle, None)?;
            }
        }
    }
    Ok(())
}

/// Serves the Cluster and Puzzles services on `listen`, behind the tokens (and TLS when
/// given), until `shutdown`.
async fn serve_days(
    args: &ServeArgs,
    listen: SocketAddr,
    service: Service,
    tokens: SharedTokens,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<()> {
    let (listener, local) = hakase_serving::bind(listen)
        .await
        .map_err(|e| BatchError::Listen(hakase_serving::chain(&e)))?;
    eprintln!("hakase coordinator listening on {local}");
    let auth = CheckToken::new(tokens);
    let cluster = InterceptedService::new(
        ClusterServer::new(service.clone())
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES),
        auth.clone(),
    );
    let puzzles = InterceptedService::new(
        PuzzlesServer::new(service)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES),
        auth,
    );
    let limits = hakase_serving::fit_to_descriptors(
        args.ports.limits(PortLimits::COORDINATOR),
        1,
        "the batch server",
    );
    let reporter = tonic_health::server::HealthReporter::new();
    reporter.set_serving::<ClusterServer<Service>>().await;
    reporter.set_serving::<PuzzlesServer<Service>>().await;
    hakase_serving::grpc_server(args.auth.tls().as_ref(), &limits)?
        .add_service(hakase_serving::bounded_health(
            &reporter,
            limits.health_watches,
        ))
        .add_service(cluster)
        .add_service(puzzles)
        .serve_with_incoming_shutdown(hakase_serving::incoming(listener, &limits), shutdown)
        .await
        .map_err(BatchError::Transport)
}
