//! The coordinator's HTTP port (`hakase coordinator --http ADDR`): the live run page
//! ([`live`]) and Prometheus `/metrics` ([`metrics`]), and a worker's own `/metrics`
//! (`hakase worker --metrics ADDR`). Every error is JSON, `{"error": {"kind", "message"}}`,
//! as on `hakase serve`'s port.
//!
//! Same rules as the gRPC port: every figure needs one of the run's tokens, as an
//! `authorization: Bearer TOKEN` header or a `?token=TOKEN` query parameter (the page itself
//! and its script hold no figures and load without one). The port has no TLS, so an address
//! beyond loopback is refused unless `--insecure` says the network is trusted.

pub mod history;
pub mod live;
pub mod metrics;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, RwLock};

use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use hakase_proto::token::TokenSet;
use hakase_worker::WorkerMetrics;
use tokio::net::TcpListener;

use hakase_serving::http::errors::{json_errors, method_not_allowed, ApiError};
use hakase_serving::http::{serve_http, WebLimits};
use hakase_serving::SharedTokens;

/// Why an HTTP address is refused.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// Beyond loopback without `--insecure`.
    #[error(
        "refusing to serve {flag} on {addr}: the HTTP port has no TLS, so the token and the \
         run's figures would travel in clear. Listen on 127.0.0.1 (and reach it through an ssh \
         tunnel), or pass {insecure} on a network you trust"
    )]
    InClear {
        /// The flag that asked for it.
        flag: &'static str,
        /// The address asked for.
        addr: SocketAddr,
        /// The flag that allows it.
        insecure: &'static str,
    },
    /// The address could not be bound.
    #[error("binding {flag} {addr}: {source}")]
    Bind {
        /// The flag that asked for it.
        flag: &'static str,
        /// The address asked for.
        addr: SocketAddr,
        /// What the system said.
        source: std::io::Error,
    },
}

/// Refuses a plain-text HTTP address beyond this machine unless `insecure`, and warns when
/// it serves one.
pub fn check_addr(
    flag: &'static str,
    addr: SocketAddr,
    insecure: bool,
    insecure_flag: &'static str,
) -> Result<(), HttpError> {
    if addr.ip().is_loopback() {
        return Ok(());
    }
    if !insecure {
        return Err(HttpError::InClear {
            flag,
            addr,
            insecure: insecure_flag,
        });
    }
    eprintln!(
        "warning: serving {flag} on {addr} in clear ({insecure_flag}): anyone who can watch \
         the network can read the token and the run's figures"
    );
    Ok(())
}

/// Binds `addr` for `flag`.
pub async fn bind(flag: &'static str, addr: SocketAddr) -> Result<TcpListener, HttpError> {
    TcpListener::bind(addr)
        .await
        .map_err(|source| HttpError::Bind { flag, addr, source })
}

/// `router` with its routes behind the token check.
fn guarded<S: Clone + Send + Sync + 'static>(router: Router<S>, tokens: SharedTokens) -> Router<S> {
    router.route_layer(axum::middleware::from_fn_with_state(
        tokens,
        hakase_serving::require_token,
    ))
}

/// A `/metrics` response.
fn metrics_response(text: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, metrics::CONTENT_TYPE),
            (header::CACHE_CONTROL, "no-store"),
        ],
        text,
    )
        .into_response()
}

/// The coordinator's HTTP app: the live page, `/api/v1/run` and `/metrics`.
pub fn coordinator_app(live: Arc<live::Live>, tokens: SharedTokens) -> Router {
    let registry = Arc::new(metrics::coordinator_registry(live.engine().clone()));
    let data = Router::new()
        .route("/api/v1/run", get(live::run_json))
        .route(
            "/metrics",
            get(move || {
                let registry = registry.clone();
                async move { metrics_response(metrics::render(&registry)) }
            }),
        );
    Router::new()
        .merge(live::page_routes())
        .merge(guarded(data, tokens))
        .fallback(|uri: Uri| async move {
            not_found(&uri, "the page is /, its figures /api/v1/run and /metrics")
        })
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::map_response(json_errors))
        .with_state(live)
}

/// A path this port does not serve, as the JSON error every hakase HTTP port answers.
fn not_found(uri: &Uri, served: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no such page or endpoint: {} ({served})", uri.path()),
    )
}

/// A worker's HTTP app: `/metrics` behind its token.
pub fn worker_app(counts: Arc<WorkerMetrics>, token: TokenSet) -> Router {
    let registry = Arc::new(metrics::worker_registry(counts));
    let tokens: SharedTokens = Arc::new(RwLock::new(token));
    let data = Router::new().route(
        "/metrics",
        get(move || {
            let registry = registry.clone();
            async move { metrics_response(metrics::render(&registry)) }
        }),
    );
    Router::new()
        .merge(guarded(data, tokens))
        .fallback(|uri: Uri| async move { not_found(&uri, "a worker serves /metrics only") })
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::map_response(json_errors))
}

/// Serves `app` on `listener` until `shutdown`, with the web port's limits (connections,
/// header and request timeouts).
pub async fn serve(
    app: Router,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    serve_http(app, listener, WebLimits::default(), shutdown).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beyond_loopback_needs_insecure() {
        let lo: SocketAddr = "127.0.0.1:9".parse().expect("addr");
        let any: SocketAddr = "0.0.0.0:9".parse().expect("addr");
        assert!(check_addr("--http", lo, false, "--insecure").is_ok());
        let refused = check_addr("--http", any, false, "--insecure").expect_err("refused");
        assert!(refused
            .to_string()
            .starts_with("refusing to serve --http on 0.0.0.0:9"));
        assert!(check_addr("--http", any, true, "--insecure").is_ok());
    }
}
