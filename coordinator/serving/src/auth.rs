//! Who may talk to a server of workers, and over what: the token and TLS flags, defined
//! once here because every server of workers (`hakase coordinator`, `hakase puzzle
//! --listen`) stands in this shell.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use hakase_proto::token::TokenSet;

use crate::transport::{check_transport, TlsFiles};
use crate::{ServingError, TokenSource};

/// Who may talk to a server of workers, and over what: the flags of every command that
/// serves workers (`coordinator`, `puzzle --listen`), defined once.
#[derive(Debug, Clone, Args)]
pub struct ServerAuthArgs {
    /// Shared token workers and admins must present: at least 16 printable characters,
    /// e.g. from `openssl rand -hex 32`.
    #[arg(long, env = "HAKASE_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Per-worker tokens: one `NAME TOKEN` line each (# comments allowed). Revoke one by
    /// deleting its line and sending SIGHUP (or restarting); accepted next to --token.
    #[arg(long, value_name = "FILE")]
    pub tokens_file: Option<PathBuf>,
    /// Allow a non-loopback listen address without TLS. Tokens, jobs and results then
    /// travel in clear: use only on a network you trust.
    #[arg(long)]
    pub insecure: bool,
    /// TLS certificate (PEM); with --tls-key, serve over TLS.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// TLS private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
}

impl ServerAuthArgs {
    /// The accepted tokens: --token and the lines of --tokens-file, each checked; at least
    /// one of them must be given.
    pub fn tokens(&self) -> Result<TokenSet, ServingError> {
        if self.token.is_none() && self.tokens_file.is_none() {
            return Err(ServingError::NoToken);
        }
        self.token_source().read()
    }

    /// Where the tokens come from, to read them again on SIGHUP.
    pub fn token_source(&self) -> TokenSource {
        TokenSource {
            token: self.token.clone(),
            file: self.tokens_file.clone(),
        }
    }

    /// Refuses to serve on `listen` in clear beyond this machine unless --insecure says so.
    pub fn check_transport(&self, listen: SocketAddr) -> Result<(), ServingError> {
        check_transport(listen, self.tls_cert.is_some(), self.insecure)
    }

    /// The certificate and key to serve TLS with, when both are given.
    pub fn tls(&self) -> Option<TlsFiles> {
        let (cert, key) = self.tls_cert.clone().zip(self.tls_key.clone())?;
        Some(TlsFiles { cert, key })
    }
}
