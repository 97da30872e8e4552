//! The async runtime and the log lines of every command that talks over the network, built
//! in one place so each command only says how many threads it wants.

use clap::ValueEnum;
use tokio::runtime::{Builder, Runtime};

use super::ServingError;

/// How many threads a command's async runtime runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threads {
    /// The calling thread only: a client's few requests, or a wait for a signal.
    Caller,
    /// A pool of this many threads: a server's, kept small so it leaves the cores to the
    /// search.
    Pool(usize),
    /// A pool with one thread per core: a server whose requests are the work.
    PerCore,
}

/// Builds the async runtime of a command (timers and I/O enabled).
pub fn runtime(threads: Threads) -> Result<Runtime, ServingError> {
    let mut builder = match threads {
        Threads::Caller => Builder::new_current_thread(),
        Threads::Pool(_) | Threads::PerCore => Builder::new_multi_thread(),
    };
    if let Threads::Pool(n) = threads {
        builder.worker_threads(n.max(1));
    }
    builder.enable_all().build().map_err(ServingError::Runtime)
}

/// How log lines are written (to stderr).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Installs the tracing subscriber; `RUST_LOG` overrides the default `info` level. Colour
/// codes only when stderr is a terminal: a log redirected to a file stays plain text.
pub fn init_logging(format: LogFormat) {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    // A second initialisation (tests calling twice) is harmless: keep the first.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}
