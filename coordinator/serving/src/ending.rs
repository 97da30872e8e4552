//! How a server ends: at a shutdown signal (interrupted), or once its work is over and every
//! client has heard so (lingering at most a set time), and the switch that stops the tasks
//! serving beside it.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use super::signal::shutdown_signal;

/// How long a finished server keeps serving so its clients hear the work is over.
#[derive(Debug, Clone, Copy)]
pub struct Linger {
    /// At most this long.
    pub most: Duration,
    /// How often to ask whether every client has heard.
    pub poll: Duration,
}

impl Linger {
    /// At most `secs` seconds (clamped to an hour), asking every `poll`.
    pub fn secs(secs: f64, poll: Duration) -> Linger {
        Linger {
            most: Duration::from_secs_f64(secs.clamp(0.0, 3600.0)),
            poll,
        }
    }
}

/// Whether a server ended by a signal; cloned into the shutdown future it hands the server.
#[derive(Debug, Clone, Default)]
pub struct Ending {
    interrupted: Arc<AtomicBool>,
}

impl Ending {
    /// A server not ended yet.
    pub fn new() -> Ending {
        Ending::default()
    }

    /// True when a signal ended the server before its work was over.
    pub fn interrupted(&self) -> bool {
        self.interrupted.load(Ordering::Relaxed)
    }

    /// Resolves when the server should stop: at a signal (marked interrupted), or once `done`
    /// turns true and `all_told` says every client heard, within `linger` (a signal
    /// meanwhile cuts the linger short).
    pub fn when_done(
        &self,
        mut done: watch::Receiver<bool>,
        linger: Linger,
        all_told: impl Fn() -> bool + Send + Sync,
    ) -> impl Future<Output = ()> + Send {
        let interrupted = self.interrupted.clone();
        async move {
            let finished = tokio::select! {
                _ = shutdown_signal() => false,
                r = done.wait_for(|d| *d) => r.is_ok(),
            };
            if !finished {
                interrupted.store(true, Ordering::Relaxed);
                return;
            }
            let until = Instant::now() + linger.most;
            let heard = async {
                while !all_told() && Instant::now() < until {
                    tokio::time::sleep(linger.poll).await;
                }
            };
            tokio::select! {
                _ = heard => {}
                _ = shutdown_signal() => {}
            }
        }
    }
}

/// A switch that stops every task serving beside the main one (an HTTP port, a rescan
/// loop) at once.
#[derive(Debug)]
pub struct Stop {
    switch: watch::Sender<bool>,
}

impl Default for Stop {
    fn default() -> Stop {
        Stop {
            switch: watch::channel(false).0,
        }
    }
}

impl Stop {
    /// A switch not thrown yet.
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Resolves once [`Stop::stop`] is called (or the switch is dropped).
    pub fn stopped(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut rx = self.switch.subscribe();
        async move {
            let _ = rx.wait_for(|stop| *stop).await;
        }
    }

    /// Stops every task waiting on [`Stop::stopped`].
    pub fn stop(&self) {
        self.switch.send_replace(true);
    }
}
