//! The shell every server of the `hakase` command stands in, written once: the async runtime
//! ([`runtime`]), shutdown signals ([`signal`]), the tokens and their check ([`tokens`]),
//! who may talk to it ([`auth`]), the listener and TLS ([`transport`]), what one client may cost a port ([`limits`]: its
//! connections [`connections`] and [`incoming`], its memory [`inflight`], its health
//! watches [`health`]), and how a server ends, lingering until its clients
//! heard the work is over ([`ending`]). `hakase coordinator`, the puzzle batch server,
//! `hakase serve` and the coordinator's HTTP page differ only in the services they add.

#![warn(missing_docs)]

pub mod auth;
pub mod connections;
pub mod ending;
pub mod health;
pub mod http;
pub mod incoming;
pub mod inflight;
pub mod limits;
pub mod runtime;
pub mod signal;
pub mod tokens;
pub mod transport;
pub mod worker_name;

use std::net::SocketAddr;
use std::path::PathBuf;

use hakase_proto::token::TokenError;
use thiserror::Error;

pub use auth::ServerAuthArgs;
pub use ending::{Ending, Linger, Stop};
pub use health::bounded_health;
pub use limits::{fit_to_descriptors, PortArgs, PortLimits};
pub use runtime::{init_logging, runtime, LogFormat, Threads};
pub use signal::{last_signal, shutdown_signal, Interrupted, SIGINT, SIGTERM};
pub use tokens::{require_token, token_name, CheckToken, SharedTokens, TokenName, TokenSource};
pub use transport::{
    bind, check_transport, grpc_server, incoming, plain_grpc_server, GrpcServer, TlsFiles,
};
pub use worker_name::check_worker_name;

/// What can stop a server before it serves.
#[derive(Debug, Error)]
pub enum ServingError {
    /// A server of workers was given no token at all.
    #[error("serving workers needs --token (or HAKASE_TOKEN) or --tokens-file")]
    NoToken,
    /// The async runtime could not start.
    #[error("starting the async runtime")]
    Runtime(#[source] std::io::Error),
    /// A plain-text listen address beyond loopback, without `--insecure`.
    #[error(
        "refusing to listen on {0} without TLS: the token, the game and every job and \
         result would travel in clear. Give --tls-cert and --tls-key, listen on \
         127.0.0.1 (and reach it through an ssh tunnel), or pass --insecure on a \
         network you trust"
    )]
    InClear(SocketAddr),
    /// The listen address could not be bound.
    #[error("listening on {addr}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The bound address could not be read back.
    #[error("reading the listening address")]
    LocalAddr(#[source] std::io::Error),
    /// `--token` is not a usable token.
    #[error("--token (or HAKASE_TOKEN)")]
    Token(#[source] TokenError),
    /// `--tokens-file` could not be read.
    #[error("reading --tokens-file {}", path.display())]
    TokensFile {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// A line of `--tokens-file` is not a usable `NAME TOKEN`.
    #[error("--tokens-file {}", path.display())]
    TokensLine {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: TokenError,
    },
    /// SIGHUP could not be listened for.
    #[error("listening for SIGHUP")]
    Hangup(#[source] std::io::Error),
    /// A TLS certificate or key could not be read.
    #[error("reading {}", path.display())]
    TlsFile {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The certificate and key do not make a TLS identity.
    #[error("TLS")]
    Tls(#[source] tonic::transport::Error),
}

/// `err` and its sources on one line, `a: b: c`, as `anyhow` prints them with `{:#}`.
pub fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
