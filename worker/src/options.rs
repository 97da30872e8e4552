//! What a worker is told at start and what it tells when it stops: the settings of
//! [`crate::run`] and its summary.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::exec::Workbench;
use crate::metrics::WorkerMetrics;

/// How a worker connects and works.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// The coordinator's URL, e.g. `http://10.0.0.1:7700` or `https://…` with TLS.
    pub connect: String,
    /// The shared token.
    pub token: String,
    /// Jobs solved at once (each also uses rayon's pool).
    pub slots: usize,
    /// The persistent memo's directory; `None` keeps the memo in memory only.
    pub cache: Option<PathBuf>,
    /// The game fingerprint this worker insists on; `None` accepts the run's game.
    pub fingerprint: Option<String>,
    /// CA certificate (PEM) to trust for `https://` coordinators.
    pub ca_cert: Option<PathBuf>,
    /// The name to expect in the coordinator's certificate (default: the URL's host).
    pub tls_domain: Option<String>,
    /// A name for the coordinator's logs.
    pub name: String,
    /// In-memory memo entries.
    pub memo_entries: usize,
    /// Bytes the game a coordinator sends may take here (its feedback table: two bytes per
    /// guess and answer); a larger game is refused before anything is built, so a
    /// coordinator cannot make the worker take all of its machine's memory.
    pub max_game_bytes: u64,
    /// Facts with at least this value are written to the cache; `None`: the game's
    /// [`crate::memo::persist_min_value`].
    pub persist_min_value: Option<u32>,
    /// Test hook: extra time spent on every job, so tests can kill a worker mid-job.
    pub job_delay: Duration,
    /// Test hook: a file recording started and acknowledged jobs.
    pub job_log: Option<PathBuf>,
    /// Counters for a metrics endpoint, updated once per job; `None`: not kept.
    pub metrics: Option<Arc<WorkerMetrics>>,
}

/// The default of [`WorkerOptions::max_game_bytes`]: half of this machine's memory (from
/// /proc/meminfo), or 4 GiB where that cannot be read.
pub fn default_game_budget() -> u64 {
    let total_kib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| {
            let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        });
    total_kib.map_or(4 << 30, |kib| kib * 1024 / 2)
}

/// Bytes a game of `guesses` × `answers` words takes in a worker: its feedback tables.
pub fn game_bytes(guesses: usize, answers: usize) -> u64 {
    2 * guesses as u64 * answers as u64
}

/// Games a worker accepts from its coordinator in one life: a coordinator that keeps
/// changing its game (each change rebuilds tables) is broken or hostile, and the worker
/// gives up on it past this.
pub const MAX_GAME_CHANGES: usize = 8;

/// What a worker did before it stopped.
#[derive(Debug, Clone, Default)]
pub struct WorkerSummary {
    /// Results the coordinator acknowledged.
    pub jobs_done: u64,
    /// Leased jobs dropped before they started, the coordinator no longer needing them.
    pub jobs_cancelled: u64,
    /// Jobs halted while they ran, the coordinator no longer needing them.
    pub jobs_stopped: u64,
    /// Facts the cache held at start.
    pub memo_loaded: usize,
    /// True when the run finished (false: stopped by a signal).
    pub run_finished: bool,
    /// Lease calls made.
    pub leases: u64,
    /// Leases that came with a report's acknowledgement instead (no call of their own).
    pub report_leases: u64,
    /// Time spent waiting for lease replies.
    pub lease_wait: Duration,
    /// The search solver's counters over every run served, in [`Stats::snapshot`]'s order
    /// (nodes, scans, scanned pairs, memo hits): the figures the core's `solve_cost` example
    /// prints (and the nodes `solve --in-memory` reports), so a cluster's work can be set
    /// beside one machine's. Puzzle jobs are not counted: their generator has solvers of its
    /// own.
    ///
    /// [`Stats::snapshot`]: hakase_core::solver::Stats::snapshot
    pub solver: [u64; 4],
}

impl WorkerSummary {
    /// Adds what `bench`'s solver has counted. Called once per workbench, when it is
    /// replaced or the worker stops, since its counters only grow.
    pub(crate) fn count(&mut self, bench: &Workbench) {
        let counted = bench.solver().stats.snapshot();
        for (total, more) in self.solver.iter_mut().zip(counted) {
            *total += more;
        }
    }
}
