//! The run's progress over time for the live page: a bounded list of samples covering the
//! whole run (when full, every other sample is dropped and the interval doubles, so an
//! overnight run keeps its start), and each worker's recent rate of results.

use std::collections::{HashMap, VecDeque};

use crate::engine::{Detail, Snapshot};

/// Samples kept at most; then every other one goes.
pub const MAX_SAMPLES: usize = 512;

/// Seconds over which a worker's rate of results is measured.
pub const RATE_WINDOW_SECS: f64 = 30.0;

/// One point of the progress plot.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Sample {
    /// Seconds since the coordinator started.
    pub t: f64,
    /// First guesses settled.
    pub settled: u64,
    /// First guesses in all.
    pub total: u64,
    /// Results taken from workers so far.
    pub results: u64,
}

/// The samples and the workers' recent counts.
#[derive(Debug)]
pub struct History {
    samples: Vec<Sample>,
    /// Seconds between kept samples (doubles each time the list is thinned).
    every: f64,
    /// Each worker's results at recent instants, oldest first.
    recent: VecDeque<(f64, HashMap<u64, u64>)>,
}

impl History {
    /// An empty history taking a sample every `every` seconds at first.
    pub fn new(every: f64) -> History {
        History {
            samples: Vec::new(),
            every: every.max(0.001),
            recent: VecDeque::new(),
        }
    }

    /// Records the run as `snap` and `detail` show it. The last sample stands for now: it
    /// is replaced by the next one until it is an interval after the one before it.
    pub fn record(&mut self, snap: &Snapshot, detail: &Detail) {
        // A finished run's clock has stopped: its last sample is final, and nothing more
        // is measured (no point per poll, no rate of workers that have left).
        if self
            .samples
            .last()
            .is_some_and(|last| last.t >= snap.elapsed_secs && snap.state == "finished")
        {
            return;
        }
        let sample = Sample {
            t: snap.elapsed_secs,
            settled: snap.first_settled,
            total: snap.first_total,
            results: snap.counters.completions,
        };
        let keep_last = match self.samples.as_slice() {
            // A tenth of slack: the sampler's ticks come a little early or late.
            [.., before, last] => last.t - before.t < self.every * 0.9,
            _ => false,
        };
        if keep_last {
            if let Some(last) = self.samples.last_mut() {
                *last = sample;
            }
        } else {
            self.samples.push(sample);
        }
        if self.samples.len() > MAX_SAMPLES {
            let last = self.samples.len() - 1;
            let mut k = 0;
            self.samples.retain(|_| {
                k += 1;
                (k - 1) % 2 == 0 || k - 1 == last
            });
            self.every *= 2.0;
        }
        let counts = detail.workers.iter().map(|w| (w.id, w.jobs_done)).collect();
        self.recent.push_back((snap.elapsed_secs, counts));
        while self
            .recent
            .get(1)
            .is_some_and(|(t, _)| snap.elapsed_secs - t >= RATE_WINDOW_SECS)
        {
            self.recent.pop_front();
        }
    }

    /// The samples, oldest first.
    pub fn samples(&self) -> &[Sample] {
        &self.samples
    }

    /// Results per second of worker `id` over the last [`RATE_WINDOW_SECS`] (or since it
    /// was first recorded); `None` before two records.
    pub fn rate(&self, id: u64) -> Option<f64> {
        let (t0, first) = self.recent.iter().find(|(_, c)| c.contains_key(&id))?;
        let (t1, last) = self.recent.back()?;
        let span = t1 - t0;
        (span > 0.0).then(|| {
            let done = last.get(&id).copied().unwrap_or(0);
            done.saturating_sub(first.get(&id).copied().unwrap_or(0)) as f64 / span
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Counters, WorkerView};

    fn snap(t: f64, settled: u64) -> Snapshot {
        Snapshot {
            state: "running".into(),
            jobs_total: 0,
            jobs_done: 0,
            jobs_queued: 0,
            jobs_leased: 0,
            counters: Counters::default(),
            first_total: 100,
            first_settled: settled,
            best: None,
            guesses_left: 0,
            workers: 0,
            elapsed_secs: t,
            ranking: Vec::new(),
            eta_secs: None,
            audit: Default::default(),
            damage: None,
            cuts: Vec::new(),
        }
    }

    fn one_worker(done: u64) -> Detail {
        Detail {
            workers: vec![WorkerView {
                id: 7,
                token: None,
                threads: 1,
                jobs_done: done,
                live: true,
                quarantined: false,
            }],
            confirmed_claims: 0,
        }
    }

    #[test]
    fn samples_stay_bounded_and_keep_the_start_and_now() {
        let mut history = History::new(1.0);
        for i in 0..2000u64 {
            history.record(&snap(i as f64, i / 20), &one_worker(i));
        }
        let samples = history.samples();
        assert!(samples.len() <= MAX_SAMPLES, "{} samples", samples.len());
        assert_eq!(samples.first().map(|s| s.t), Some(0.0));
        assert_eq!(samples.last().map(|s| s.t), Some(1999.0));
        assert!(samples.windows(2).all(|w| w[0].t < w[1].t));
    }

    #[test]
    fn a_sample_inside_the_interval_replaces_the_last() {
        let mut history = History::new(2.0);
        for t in [0.0, 0.5, 1.0, 2.5] {
            history.record(&snap(t, 0), &one_worker(0));
        }
        let times: Vec<f64> = history.samples().iter().map(|s| s.t).collect();
        assert_eq!(times, vec![0.0, 2.5]);
    }

    #[test]
    fn a_workers_rate_is_over_the_window() {
        let mut history = History::new(1.0);
        assert_eq!(history.rate(7), None);
        for t in 0..=60u64 {
            history.record(&snap(t as f64, 0), &one_worker(t * 4));
        }
        assert_eq!(history.rate(7), Some(4.0));
        assert_eq!(history.rate(8), None);
    }
}
