//! Shutdown signals: every server stops on Ctrl-C or SIGTERM, and a command stopped by one
//! exits with 128 + its number.

use std::sync::atomic::{AtomicI32, Ordering};

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
