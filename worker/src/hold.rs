//! How many leased jobs a worker keeps: enough waiting work per slot to hide a lease round
//! trip, however short the game's jobs are.

use std::time::Duration;

/// Jobs held per slot at least, once a best total is known. Wordle's jobs take about 15 ms:
/// holding 8 meant a lease of 4 jobs, each a disk sync at the coordinator, every 60 ms per
/// worker. A sync wakes sled's seven I/O threads, and on a 2-core machine the coordinator's
/// wake-ups are taken from the workers: 16 halved the leases (see [`WORK_PER_SLOT`]).
const MIN_PER_SLOT: usize = 16;

/// Jobs held per slot at most: a worker holding more would keep them from idle workers at
/// the end of a run. The coordinator keeps twice this many jobs per slot asked for.
pub const MAX_PER_SLOT: usize = 64;

/// Work held per slot. A lease is a round trip and a disk sync at the coordinator (1–3 ms
/// on loopback); a worker leases when half its jobs are gone, so half of this must outlast
/// it. With a fixed 8 jobs, games of 0.1 ms jobs left workers idle half the time. Holding
/// more means fewer leases, each a disk sync and a share of the coordinator's CPU, which on
/// a 2-core machine is taken from the workers.
const WORK_PER_SLOT: Duration = Duration::from_millis(64);

/// Jobs held per slot when the mean job outlasts [`WORK_PER_SLOT`]: the one running and the
/// next.
const LONG_PER_SLOT: usize = 2;

/// Weight of the newest job in the running mean of job times.
const NEWEST_WEIGHT: f64 = 1.0 / 16.0;

/// The running job time of one worker and the hold it implies.
#[derive(Debug, Clone)]
pub struct Hold {
    slots: usize,
    mean_secs: Option<f64>,
}

impl Hold {
    /// A worker of `slots` concurrent jobs that has timed none yet.
    pub fn new(slots: usize) -> Hold {
        Hold {
            slots: slots.max(1),
            mean_secs: None,
        }
    }

    /// Counts one finished job that took `took`.
    pub fn record(&mut self, took: Duration) {
        let took = took.as_secs_f64();
        self.mean_secs = Some(match self.mean_secs {
            None => took,
            Some(mean) => mean + NEWEST_WEIGHT * (took - mean),
        });
    }

    /// Jobs to hold. Until a best total is known a worker takes only what it can start, so
    /// that the first jobs spread over the workers in search order, as the in-memory search
    /// spreads its first guesses over its threads.
    pub fn jobs(&self, best_known: bool) -> usize {
        if !best_known {
            return self.slots;
        }
        let per_slot = match self.mean_secs {
            // Jobs that outlast what a slot holds (slices of a huge part, a ranking's first
            // guesses): one waiting per slot hides the round trip, and 16 would keep them from
            // idle workers (two one-thread workers on one split first guess: one took every
            // queued slice while the other waited).
            Some(mean) if mean > WORK_PER_SLOT.as_secs_f64() => return self.slots * LONG_PER_SLOT,
            Some(mean) if mean > 0.0 => (WORK_PER_SLOT.as_secs_f64() / mean).ceil() as usize,
            Some(_) => MAX_PER_SLOT,
            None => MIN_PER_SLOT,
        };
        self.slots * per_slot.clamp(MIN_PER_SLOT, MAX_PER_SLOT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_holds_one_job_per_slot_until_a_best_total_is_known() {
        let mut hold = Hold::new(3);
        hold.record(Duration::from_micros(100));
        assert_eq!(hold.jobs(false), 3);
    }

    #[test]
    fn short_jobs_are_held_in_larger_numbers_within_bounds() {
        let mut hold = Hold::new(2);
        assert_eq!(hold.jobs(true), 32, "no job timed yet: the least hold");
        hold.record(Duration::from_millis(2));
        assert_eq!(hold.jobs(true), 64, "32 jobs of 2 ms per slot");
        let mut quick = Hold::new(1);
        quick.record(Duration::from_micros(50));
        assert_eq!(quick.jobs(true), 64);
        let mut slow = Hold::new(1);
        slow.record(Duration::from_millis(60));
        assert_eq!(slow.jobs(true), 16, "60 ms jobs: the least short-job hold");
        let mut long = Hold::new(3);
        long.record(Duration::from_secs(1));
        assert_eq!(
            long.jobs(true),
            6,
            "second-long jobs: the running one and the next"
        );
    }

    #[test]
    fn the_mean_follows_the_newest_jobs_slowly() {
        let mut hold = Hold::new(1);
        hold.record(Duration::from_millis(1));
        hold.record(Duration::from_millis(17));
        // 1 + (17 − 1) / 16 = 2 ms: 32 jobs.
        assert_eq!(hold.jobs(true), 32);
    }
}
