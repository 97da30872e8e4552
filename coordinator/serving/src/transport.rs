//! Where and how a gRPC server listens: the refusal to serve in clear beyond this machine,
//! the bound listener, TLS, and the server's bounds ([`PortLimits`]: streams per connection,
//! the handshake and call times, keep-alive, the memory budget; the connections themselves
//! are bounded by [`super::incoming`]).

use std::net::SocketAddr;
use std::path::PathBuf;

use tokio::net::{TcpListener, ToSocketAddrs};
use tonic::transport::{Identity, Server, ServerTlsConfig};
use tower::layer::util::{Identity as NoLayer, Stack};

use super::incoming::{gated_incoming, Incoming};
use super::inflight::InflightBytes;
use super::limits::{PortLimits, KEEPALIVE_INTERVAL, KEEPALIVE_TIMEOUT, MAX_HEADER_BYTES};
use super::ServingError;

/// Refuses to serve on `listen` in clear beyond this machine unless `insecure` says so, and
/// warns when it does (shared by every command that serves workers).
pub fn check_transport(listen: SocketAddr, tls: bool, insecure: bool) -> Result<(), ServingError> {
    if tls || listen.ip().is_loopback() {
        return Ok(());
    }
    if !insecure {
        return Err(ServingError::InClear(listen));
    }
    eprintln!(
        "warning: serving on {} without TLS (--insecure): the token, jobs and results \
         travel in clear; anyone who can watch the network can take the token and join or \
         read the run",
        listen
    );
    Ok(())
}

/// Binds `addr` (port 0 picks a free port); returns the listener and the address bound.
pub async fn bind<A>(addr: A) -> Result<(TcpListener, SocketAddr), ServingError>
where
    A: ToSocketAddrs + std::fmt::Display,
{
    let listener = TcpListener::bind(&addr)
        .await
        .map_err(|source| ServingError::Bind {
            addr: addr.to_string(),
            source,
        })?;
    let local = listener.local_addr().map_err(ServingError::LocalAddr)?;
    Ok((listener, local))
}

/// A PEM certificate and its private key: with one, a server speaks TLS.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    /// The certificate (`--tls-cert`).
    pub cert: PathBuf,
    /// The private key (`--tls-key`).
    pub key: PathBuf,
}

/// A gRPC server builder as every port of the `hakase` command uses it.
pub type GrpcServer = Server<Stack<InflightBytes, NoLayer>>;

/// A gRPC server builder under `limits`, over TLS when `tls` names the files (its handshake
/// bounded by the limits' handshake time).
pub fn grpc_server(
    tls: Option<&TlsFiles>,
    limits: &PortLimits,
) -> Result<GrpcServer, ServingError> {
    let builder = plain_grpc_server(limits);
    let Some(files) = tls else {
        return Ok(builder);
    };
    let read = |path: &PathBuf| {
        std::fs::read(path).map_err(|source| ServingError::TlsFile {
            path: path.clone(),
            source,
        })
    };
    let identity = Identity::from_pem(read(&files.cert)?, read(&files.key)?);
    builder
        .tls_config(
            ServerTlsConfig::new()
                .identity(identity)
                .timeout(limits.handshake),
        )
        .map_err(ServingError::Tls)
}

/// [`grpc_server`] without TLS.
pub fn plain_grpc_server(limits: &PortLimits) -> GrpcServer {
    Server::builder()
        .max_concurrent_streams(limits.streams_per_connection)
        .concurrency_limit_per_connection(limits.streams_per_connection as usize)
        .timeout(limits.request_timeout)
        .http2_keepalive_interval(Some(KEEPALIVE_INTERVAL))
        .http2_keepalive_timeout(Some(KEEPALIVE_TIMEOUT))
        .http2_max_header_list_size(MAX_HEADER_BYTES)
        .layer(InflightBytes::new(limits.inflight_bytes))
}

/// The connections of `listener` under `limits`, for `serve_with_incoming_shutdown` (see
/// [`gated_incoming`]).
pub fn incoming(listener: TcpListener, limits: &PortLimits) -> Incoming {
    gated_incoming(listener, *limits)
}
