//! The flags of a batch served to workers.

use std::net::SocketAddr;

use clap::Args;
use hakase_engine::audit::AuditPolicy;
use hakase_proto::token::TokenSet;

use hakase_serving::ServerAuthArgs;

use crate::error::{BatchError, Result};

/// How a batch is served to workers.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// A batch only: have workers make the days (`hakase worker --connect http://ADDR`)
    /// instead of making them here; the files are the same. Port 0 picks a free port.
    #[arg(long, value_name = "ADDR", requires = "count")]
    pub listen: Option<SocketAddr>,
    /// With --listen: tokens and TLS, as the coordinator takes them.
    #[command(flatten)]
    pub auth: ServerAuthArgs,
    /// With --listen: share (0–1) of best-move problems made again here to check the
    /// worker's claim (deduction puzzles are always made again: they are cheap).
    #[arg(long, value_name = "F", default_value_t = AuditPolicy::DEFAULT_FRACTION)]
    pub audit_fraction: f64,
    /// With --listen: seconds a worker keeps a day without a heartbeat.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub lease_secs: f64,
    /// With --listen: seconds at most to keep serving after the batch is done, so workers
    /// hear that it is.
    #[arg(long, value_name = "SECS", default_value_t = 3.0)]
    pub linger_secs: f64,
    /// With --listen: what one client may cost the port (docs/security.md).
    #[command(flatten)]
    pub ports: hakase_serving::PortArgs,
}

impl ServeArgs {
    /// Checks the serving options before anything is made; returns the accepted tokens.
    pub fn check(&self) -> Result<TokenSet> {
        if !(0.0..=1.0).contains(&self.audit_fraction) {
            return Err(BatchError::AuditFraction(self.audit_fraction));
        }
        if let Some(listen) = self.listen {
            self.auth.check_transport(listen)?;
        }
        Ok(self.auth.tokens()?)
    }
}
