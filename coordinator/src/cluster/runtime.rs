//! Process plumbing shared by the cluster commands: structured logs and shutdown signals.

use std::sync::atomic::{AtomicI32, Ordering};

use clap::ValueEnum;

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

/// The number of the last shutdown signal [`shutdown_signal`] saw (0: none yet).
static LAST_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// SIGINT's number, for exit codes (128 + signal).
pub const SIGINT: i32 = 2;
/// SIGTERM's number.
pub const SIGTERM: i32 = 15;

/// The shutdown signal that arrived, if one did: commands exit with 128 + its number.
pub fn last_signal() -> Option<i32> {
    match LAST_SIGNAL.load(Ordering::Relaxed) {
        0 => None,
        n => Some(n),
    }
}

/// Resolves on Ctrl-C (SIGINT) or SIGTERM, and remembers which for [`last_signal`].
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                let number = tokio::select! {
                    _ = tokio::signal::ctrl_c() => SIGINT,
                    _ = term.recv() => SIGTERM,
                };
                LAST_SIGNAL.store(number, Ordering::Relaxed);
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                LAST_SIGNAL.store(SIGINT, Ordering::Relaxed);
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        LAST_SIGNAL.store(SIGINT, Ordering::Relaxed);
    }
}
