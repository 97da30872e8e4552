//! What a running worker has done, readable at any moment by another thread (the `--metrics`
//! endpoint of `hakase worker`). Updated once per job, never inside the search: the search's
//! own counters (nodes, memo hits) are the solver's atomics, read only when asked for.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::exec::Workbench;

/// A worker's counters so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkerCounts {
    /// Jobs solved (whether or not the coordinator took the result yet).
    pub jobs_solved: u64,
    /// Results the coordinator acknowledged.
    pub jobs_done: u64,
    /// Time spent solving jobs, summed over the job slots, in microseconds.
    pub busy_micros: u64,
    /// Search nodes: memo lookups that did not answer and were searched.
    pub nodes: u64,
    /// Memo lookups that answered.
    pub memo_hits: u64,
    /// Job slots (threads).
    pub slots: u64,
}

/// The live counters of one worker process, shared between its work loop and its metrics
/// endpoint.
#[derive(Debug, Default)]
pub struct WorkerMetrics {
    jobs_solved: AtomicU64,
    jobs_done: AtomicU64,
    busy_micros: AtomicU64,
    slots: AtomicU64,
    /// The search counters of workbenches already replaced (a new run), and the current one.
    benches: Mutex<Benches>,
}

#[derive(Default)]
struct Benches {
    /// Nodes and memo hits of the workbenches no longer in use.
    retired: [u64; 2],
    current: Option<Arc<Workbench>>,
}

impl std::fmt::Debug for Benches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Benches")
            .field("retired", &self.retired)
            .field("current", &self.current.is_some())
            .finish()
    }
}

/// Nodes and memo hits counted by `bench`'s solver.
fn search_counts(bench: &Workbench) -> [u64; 2] {
    let [nodes, _scans, _pairs, hits] = bench.solver().stats.snapshot();
    [nodes, hits]
}

impl WorkerMetrics {
    /// Fresh counters, shared.
    pub fn new() -> Arc<WorkerMetrics> {
        Arc::new(WorkerMetrics::default())
    }

    /// Records the job slots the worker runs.
    pub fn set_slots(&self, slots: usize) {
        self.slots.store(slots as u64, Ordering::Relaxed);
    }

    /// Records one solved job and the time it took.
    pub fn job_solved(&self, took: Duration) {
        self.jobs_solved.fetch_add(1, Ordering::Relaxed);
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.busy_micros.fetch_add(micros, Ordering::Relaxed);
    }

    /// Records results the coordinator acknowledged.
    pub fn jobs_acknowledged(&self, n: u64) {
        self.jobs_done.fetch_add(n, Ordering::Relaxed);
    }

    /// Makes `bench` the workbench whose solver counters are read from now on, keeping what
    /// the previous one counted.
    pub fn use_bench(&self, bench: &Arc<Workbench>) {
        if let Ok(mut benches) = self.benches.lock() {
            if let Some(old) = benches.current.take() {
                if !Arc::ptr_eq(&old, bench) {
                    let [nodes, hits] = search_counts(&old);
                    benches.retired[0] += nodes;
                    benches.retired[1] += hits;
                }
            }
            benches.current = Some(bench.clone());
        }
    }

    /// The counters now.
    pub fn counts(&self) -> WorkerCounts {
        let [nodes, memo_hits] = match self.benches.lock() {
            Ok(benches) => {
                let now = benches.current.as_deref().map_or([0, 0], search_counts);
                [benches.retired[0] + now[0], benches.retired[1] + now[1]]
            }
            Err(_) => [0, 0],
        };
        WorkerCounts {
            jobs_solved: self.jobs_solved.load(Ordering::Relaxed),
            jobs_done: self.jobs_done.load(Ordering::Relaxed),
            busy_micros: self.busy_micros.load(Ordering::Relaxed),
            nodes,
            memo_hits,
            slots: self.slots.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_per_job() {
        let metrics = WorkerMetrics::new();
        metrics.set_slots(3);
        metrics.job_solved(Duration::from_millis(5));
        metrics.job_solved(Duration::from_micros(250));
        metrics.jobs_acknowledged(2);
        assert_eq!(
            metrics.counts(),
            WorkerCounts {
                jobs_solved: 2,
                jobs_done: 2,
                busy_micros: 5_250,
                nodes: 0,
                memo_hits: 0,
                slots: 3,
            }
        );
    }
}
