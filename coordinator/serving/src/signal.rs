//! Shutdown signals: every server stops on Ctrl-C or SIGTERM, and a command stopped by one
//! exits with 128 + its number.

use std::sync::atomic::{AtomicI32, Ordering};

use thiserror::Error;

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

/// A command stopped by SIGINT or SIGTERM after saving its work; `main` exits with
/// 128 + the signal's number, as a shell expects of an interrupted program.
#[derive(Debug, Error)]
#[error("interrupted by {}; {saved}", signal_name(*.signal))]
pub struct Interrupted {
    /// The signal's number.
    pub signal: i32,
    /// What was kept and how to go on.
    pub saved: String,
}

impl Interrupted {
    /// Interrupted by the signal the process received (SIGINT when it is not known).
    pub fn now(saved: String) -> Interrupted {
        Interrupted {
            signal: last_signal().unwrap_or(SIGINT),
            saved,
        }
    }

    /// The process exit status: 130 after SIGINT, 143 after SIGTERM.
    pub fn exit_code(&self) -> u8 {
        u8::try_from(128 + self.signal).unwrap_or(130)
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        2 => "SIGINT",
        15 => "SIGTERM",
        _ => "a signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupted_exit_codes_follow_the_shell() {
        let int = Interrupted {
            signal: 2,
            saved: String::new(),
        };
        let term = Interrupted {
            signal: 15,
            saved: String::new(),
        };
        assert_eq!((int.exit_code(), term.exit_code()), (130, 143));
    }
}
