//! Where and how a gRPC server listens: the refusal to serve in clear beyond this machine,
//! the bound listener, TLS, and the connections (without Nagle's delay).

use std::net::SocketAddr;
use std::path::PathBuf;

use tokio::net::{TcpListener, ToSocketAddrs};
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Identity, Server, ServerTlsConfig};

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

/// A gRPC server builder, over TLS when `tls` names the files.
pub fn grpc_server(tls: Option<&TlsFiles>) -> Result<Server, ServingError> {
    let mut builder = Server::builder();
    if let Some(files) = tls {
        let read = |path: &PathBuf| {
            std::fs::read(path).map_err(|source| ServingError::TlsFile {
                path: path.clone(),
                source,
            })
        };
        let identity = Identity::from_pem(read(&files.cert)?, read(&files.key)?);
        builder = builder
            .tls_config(ServerTlsConfig::new().identity(identity))
            .map_err(ServingError::Tls)?;
    }
    Ok(builder)
}

/// The connections of `listener`, for `serve_with_incoming_shutdown`: small replies must not
/// wait for Nagle's algorithm.
pub fn incoming(listener: TcpListener) -> TcpIncoming {
    TcpIncoming::from(listener).with_nodelay(Some(true))
}
