//! The best total as workers hear of it, so that the first-guess jobs they hold are cut
//! off as soon as another worker does better.

use tokio::sync::watch;

use super::Engine;

/// What workers watching the incumbent are told. A watch channel keeps only the latest, so a
/// slow worker skips totals that were already beaten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Told {
    /// No total is known yet.
    Nothing,
    /// The best total and its first guess's index in search order.
    Best(u32, u32),
    /// The run is over, or the server is stopping: streams end. A worker hears the end at
    /// once and asks for its last lease (which tells it the run is over) instead of at its
    /// next poll, and the server's graceful shutdown does not wait on open streams.
    Closed,
}

impl Engine {
    /// The best total known and its first guess's index in search order, for workers to
    /// tighten the cutoffs of the first-guess jobs they hold.
    pub fn incumbent(&self) -> Option<(u32, u32)> {
        self.lock()
            .planner
            .incumbent()
            .map(|(value, at)| (value, at as u32))
    }

    /// Follows the best total as it improves. A worker otherwise hears of another worker's
    /// better first guess only at its own next lease or report (on pokemon-verbum, 100 ms
    /// of jobs run with a stale cutoff); exact first-guess results are told as they are
    /// taken, before the planning pass that makes them the planner's incumbent.
    pub fn watch_incumbent(&self) -> watch::Receiver<Told> {
        self.told.subscribe()
    }

    /// Ends every incumbent stream (the run is over, or the server is stopping).
    pub fn close_watches(&self) {
        self.told.send_replace(Told::Closed);
    }

    /// Tells watchers of `(value, at)` if it beats what they were told: a lower total, or
    /// the same total at an earlier first guess (the solver's tie-break).
    pub(super) fn tell(&self, value: u32, at: u32) {
        self.told.send_if_modified(|told| {
            let better = match *told {
                Told::Nothing => true,
                Told::Best(v, a) => (value, at) < (v, a),
                Told::Closed => false,
            };
            if better {
                *told = Told::Best(value, at);
            }
            better
        });
    }

    /// Tells watchers the best total again: workers take any message as "jobs are
    /// waiting" and ask at once. At the end of a search the audit's last re-runs appear
    /// while every worker is idle, polling every 5 ms; on pokemon-verbum that wait was up to
    /// 5 ms of a 0.42 s run, and again for the result. Older workers take the same total
    /// again, which changes nothing.
    pub(super) fn nudge(&self) {
        self.told
            .send_if_modified(|told| matches!(told, Told::Best(..)));
    }
}
