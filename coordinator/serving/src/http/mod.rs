//! The HTTP shell every HTTP port of hakase stands in (`hakase serve`'s page and API, the
//! coordinator's live page): the server loop and its limits, the client's address, embedded
//! files and the JSON shape of every error ([`errors`]).
//!
//! Limits ([`WebLimits`]): request bodies of at most [`MAX_BODY_BYTES`] (a larger declared
//! `content-length` is refused before the body is read), a request (body included) must
//! complete within [`REQUEST_TIMEOUT`], each request's headers within [`HEADER_TIMEOUT`] of
//! the connection opening or of the previous response (so idle and keep-alive connections
//! are closed too), and at most [`MAX_CONNECTIONS`] connections are served at once, at most
//! [`MAX_CONNECTIONS_PER_IP`] of them from one address; connections past either bound are
//! closed at once. So slow, idle or hostile clients cannot starve the others.
//!
//! The port speaks HTTP/1.1 only: browsers use HTTP/2 only over TLS, which this port does not
//! offer, and gRPC has its own port. A client that starts with the HTTP/2 preface is closed.

pub mod errors;

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::ServiceExt;

use crate::connections::Gate;

/// Largest request body accepted: a history is a few hundred bytes.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// Time a whole request may take, reading its body included.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Time a client has to send a request's headers, from the connection opening or from the
/// previous response: an idle connection is closed after it.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);

/// Connections served at once; more are closed as soon as they are accepted.
pub const MAX_CONNECTIONS: usize = 1024;

/// Connections one client address may hold at once (a browser opens about 6), so a few
/// addresses cannot take every place; more from it are closed as soon as they are accepted.
pub const MAX_CONNECTIONS_PER_IP: usize = 64;

/// Time given to open connections to finish when the server stops.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// What one client may cost the HTTP server.
#[derive(Debug, Clone, Copy)]
pub struct WebLimits {
    /// Largest request body.
    pub body_bytes: usize,
    /// Time a whole request may take.
    pub request_timeout: Duration,
    /// Time a client has to send a request's headers, counted from the connection opening or
    /// from the previous response.
    pub header_timeout: Duration,
    /// Connections served at once.
    pub max_connections: usize,
    /// Connections one client address may hold at once.
    pub connections_per_address: usize,
}

impl Default for WebLimits {
    fn default() -> Self {
        WebLimits {
            body_bytes: MAX_BODY_BYTES,
            request_timeout: REQUEST_TIMEOUT,
            header_timeout: HEADER_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
            connections_per_address: MAX_CONNECTIONS_PER_IP,
        }
    }
}

/// The address of the client that sent a request (`None` when the router is driven without
/// [`serve_http`], as in tests): the solve pool's share is per address.
#[derive(Debug, Clone, Copy)]
pub struct ClientAddr(pub Option<std::net::IpAddr>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _state: &S,
    ) -> Result<ClientAddr, Self::Rejection> {
        Ok(ClientAddr(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|info| info.0.ip()),
        ))
    }
}

/// Serves `app` on `listener` (HTTP/1.1) until `shutdown`, then lets open requests finish
/// for a moment.
pub async fn serve_http(
    app: Router,
    listener: TcpListener,
    limits: WebLimits,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let mut builder = http1::Builder::new();
    // hyper starts this timer when it waits for a request's head: on a new connection and
    // again after each response, so it bounds idle keep-alive connections as well.
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let gate = Gate::new(
        limits.max_connections,
        limits.connections_per_address.min(limits.max_connections),
    );
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: wait, do not spin.
                    tracing::warn!("accepting an HTTP connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let admitted = match gate.admit(peer.ip()) {
            Ok(admitted) => admitted,
            Err(refused) => {
                // Debug only: under a flood a line per refusal would be a flood of its own.
                tracing::debug!("closing the HTTP connection of {peer}: {refused}");
                drop(stream);
                continue;
            }
        };
        // Small replies must not wait for Nagle's algorithm.
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone().map_request(
            move |mut request: axum::http::Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(ConnectInfo(peer));
                request
            },
        ));
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
            drop(admitted);
        });
    }
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, graceful.shutdown()).await;
    Ok(())
}

/// The icon of every page the binary serves (four tiles in the game's colours): a browser
/// asks for `/favicon.ico` whatever the page says, and gets this instead of a 404.
pub const FAVICON_SVG: &str = include_str!("static/favicon.svg");

/// The icon's routes: `/favicon.ico` (asked for by every browser) and `/favicon.svg` (the
/// one the pages name), for any page's router.
pub fn icon_routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    let icon = || async { page(FAVICON_SVG, "image/svg+xml") };
    Router::new()
        .route("/favicon.ico", get(icon))
        .route("/favicon.svg", get(icon))
}

/// An embedded file as a response, revalidated on every load (`no-cache`) and never
/// sniffed: every page the binary serves (this one and the coordinator's live page).
pub fn page(body: &'static str, mime: &'static str) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, mime),
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
}
