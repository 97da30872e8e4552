//! Handing jobs out: re-runs first, then the queue in search order with the letter-set
//! affinity, and the lease records that let a restarted coordinator wait for the jobs
//! live workers still hold.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use hakase_proto::job::{JobId, JobKind, JobSpec};
use hakase_worker::hold::MAX_PER_SLOT;

use super::{answers, Engine, Entry, JobState, Leased, QueueKey, State};
use crate::error::ClusterError;
use hakase_runs::{unix_millis, JobStatus, StoredState};

/// The record of a job just leased, to be stored: the spec of a first lease, and the status.
type LeaseRecord = (JobId, Option<Arc<JobSpec>>, JobStatus);

/// The records of jobs just leased.
type LeaseRecords = Vec<LeaseRecord>;

/// When the leases handed out now run out: on this process's clock, and on disk.
#[derive(Debug, Clone, Copy)]
struct Expiry {
    at: Instant,
    unix_ms: u64,
}

/// What jobs that share subproblems have in common, for [`pick`]: whole first guesses of one
/// letter set leave the same all-gray part; slices of one part search the same sub-parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Affinity {
    /// The letter set of a whole first guess.
    Letters([u64; 4]),
    /// A hash of the part a slice searches.
    Part(u64),
}

/// The policy of [`Engine::next_queued`]: the first of the first [`AFFINITY_WINDOW`] queued
/// jobs whose affinity key (`key_of`) no other live worker took last, else the first.
pub(super) fn pick<K: Eq + std::hash::Hash>(
    queue: &BTreeSet<QueueKey>,
    key_of: impl Fn(JobId) -> Option<K>,
    affinity: &HashMap<K, u64>,
    live: &HashSet<u64>,
    worker: u64,
) -> Option<QueueKey> {
    let front = *queue.first()?;
    let free = |key: &&QueueKey| {
        key_of(key.1)
            .and_then(|set| affinity.get(&set))
            .is_none_or(|owner| *owner == worker || !live.contains(owner))
    };
    Some(
        queue
            .iter()
            .take(AFFINITY_WINDOW)
            .find(free)
            .copied()
            .unwrap_or(front),
    )
}

/// The most jobs a worker with `slots` threads may hold of the run's `outstanding` ones
/// (queued, leased or waiting for a re-run) while other live workers with `others` threads
/// each are there: twice its share by threads, or one job per thread if that is more, but
/// never more than half, so the others always find work. Alone, a worker may hold them all.
pub(super) fn share(outstanding: usize, slots: usize, others: &[usize]) -> usize {
    if others.is_empty() {
        return outstanding.max(1);
    }
    let total = slots + others.iter().sum::<usize>();
    let by_threads = (2 * outstanding * slots).div_ceil(total.max(1));
    by_threads.max(slots).min(outstanding.div_ceil(2)).max(1)
}

/// How far down the queue a lease looks for a job of the worker's own letter sets.
pub(super) const AFFINITY_WINDOW: usize = 64;

impl Engine {
    /// Hands out up to `max` jobs; `None` when the run is over. Returns only once their
    /// lease records are on disk (one sync shared with concurrent callers): a restarted
    /// coordinator then knows every job a live worker holds and waits for its result instead
    /// of handing the job to another worker. Without this, the leases of the last moments
    /// before a kill were lost, and jobs a worker still held were computed twice.
    pub fn lease(&self, worker: u64, max: usize) -> Result<Option<Vec<Leased>>, ClusterError> {
        self.check_storage()?;
        let Some((out, wrote)) = self.store_lease(worker, max)? else {
            return Ok(None);
        };
        if wrote {
            self.store.sync()?;
        }
        Ok(Some(out))
    }

    /// [`lease`](Self::lease) without the closing sync, for a caller that syncs anyway
    /// before it replies (a batch report that leases too): one disk sync covers both.
    pub fn lease_unsynced(
        &self,
        worker: u64,
        max: usize,
    ) -> Result<Option<Vec<Leased>>, ClusterError> {
        self.check_storage()?;
        Ok(self.store_lease(worker, max)?.map(|(out, _)| out))
    }

    /// Takes up to `max` jobs for `worker` and writes their lease records (not synced);
    /// true with them when there were records to write.
    fn store_lease(
        &self,
        worker: u64,
        max: usize,
    ) -> Result<Option<(Vec<Leased>, bool)>, ClusterError> {
        let Some((out, records)) = self.take_jobs(worker, max) else {
            return Ok(None);
        };
        for (id, spec, status) in &records {
            if let Some(spec) = spec {
                self.store.put_spec(*id, spec)?;
            }
            self.store.put_status(*id, *status)?;
        }
        Ok(Some((out, !records.is_empty())))
    }

    /// Takes up to `max` jobs for `worker` under the lock; returns them with the lease
    /// records to store.
    fn take_jobs(&self, worker: u64, max: usize) -> Option<(Vec<Leased>, LeaseRecords)> {
        let mut state = self.lock();
        if state.solution.is_some() || state.failure.is_some() {
            if let Some(w) = state.workers.get_mut(&worker) {
                w.told = true;
            }
            return None;
        }
        if state.quarantined.contains(&worker) || !Self::activate(&mut state, worker) {
            return Some((Vec::new(), Vec::new()));
        }
        let live = self.live_workers(&state);
        let max = max.min(Self::room(&state, &live, worker));
        if state.queue.is_empty() && max > 0 && Self::holds_nothing(&state, worker) {
            self.take_back(&mut state, &live, worker);
        }
        let expiry = Expiry {
            at: Instant::now() + self.params.lease,
            unix_ms: unix_millis() + self.params.lease.as_millis() as u64,
        };
        let mut out = Vec::new();
        // A claim waiting for its re-run goes first (one per call), so that re-runs overlap
        // the search instead of following it.
        Self::lease_rechecks(&mut state, worker, 1.min(max), expiry.at, &mut out);
        let records = self.lease_queued(&mut state, &live, worker, max, expiry, &mut out);
        let room = max - out.len();
        Self::lease_rechecks(&mut state, worker, room, expiry.at, &mut out);
        state.counters.leases += out.len() as u64;
        state.counters.empty_leases += u64::from(out.is_empty());
        if state.queue.is_empty() {
            state.dirty = true;
            self.wake.notify_all();
        }
        Some((out, records))
    }

    /// Leases queued jobs to `worker` until `out` holds `max`, in the order of
    /// [`next_queued`](Self::next_queued); jobs the known results already answer go idle
    /// instead. Returns the lease records to store.
    fn lease_queued(
        &self,
        state: &mut State,
        live: &HashSet<u64>,
        worker: u64,
        max: usize,
        expiry: Expiry,
        out: &mut Vec<Leased>,
    ) -> LeaseRecords {
        let mut records = Vec::new();
        let State {
            queue,
            jobs,
            known,
            planner,
            affinity,
            ..
        } = state;
        while out.len() < max {
            let Some(key) = self.next_queued(queue, jobs, affinity, live, worker) else {
                break;
            };
            queue.remove(&key);
            let id = key.1;
            let Some(entry) = jobs.get_mut(&id) else {
                continue;
            };
            let JobState::Queued { beta } = entry.state else {
                continue;
            };
            // The incumbent may have improved since the job was queued.
            let beta = entry
                .first
                .map_or(beta, |i| beta.min(planner.cutoff(i as usize)));
            if answers(known.get(&id), beta) {
                entry.state = JobState::Idle;
                continue;
            }
            let (leased, record) = Self::lease_entry(id, entry, beta, worker, expiry);
            if let Some(key) = self.affinity_key(entry) {
                affinity.insert(key, worker);
            }
            out.push(leased);
            records.push(record);
        }
        records
    }

    /// Leases job `id` to `worker` at cutoff `beta`: the job as handed out, and its lease
    /// record (with the spec, the first time it is leased).
    fn lease_entry(
        id: JobId,
        entry: &mut Entry,
        beta: u32,
        worker: u64,
        expiry: Expiry,
    ) -> (Leased, LeaseRecord) {
        entry.state = JobState::Leased {
            beta,
            expiry: expiry.at,
            holder: Some(worker),
        };
        if !entry.leased_to.contains(&worker) {
            entry.leased_to.push(worker);
        }
        entry.leased_at = Some(Instant::now());
        let leased = Leased {
            id,
            spec: entry.spec.clone(),
            beta,
            first: entry.first.filter(|_| !entry.untightened),
            recheck: false,
        };
        let unstored = (!entry.spec_stored).then(|| entry.spec.clone());
        entry.spec_stored = true;
        let status = JobStatus {
            state: StoredState::Leased {
                beta,
                expiry: expiry.unix_ms,
            },
            completions: entry.completions,
        };
        (leased, (id, unstored, status))
    }

    /// How many more jobs `worker` may hold: what its registered threads can use, and its
    /// [`share`] of the run's outstanding jobs. Threads are only claimed, so the share is what
    /// keeps one lease of 1024 threads' worth from taking every job from the others.
    fn room(state: &State, live: &HashSet<u64>, worker: u64) -> usize {
        let slots = state.workers.get(&worker).map_or(1, |w| w.slots);
        let (mut held, mut leased) = (0, 0);
        for entry in state.jobs.values() {
            if let JobState::Leased { holder, .. } = entry.state {
                leased += 1;
                held += usize::from(holder == Some(worker));
            }
        }
        let others: Vec<usize> = live
            .iter()
            .filter(|id| **id != worker)
            .filter_map(|id| state.workers.get(id).map(|w| w.slots))
            .collect();
        // Claims waiting for a re-run are work as well, and a lease takes them too.
        let now = Instant::now();
        held += state
            .rechecks
            .values()
            .filter(|r| {
                r.holder
                    .is_some_and(|(h, until)| h == worker && until > now)
            })
            .count();
        let outstanding = state.queue.len() + leased + state.rechecks.len();
        let cap = (slots * MAX_PER_SLOT).min(share(outstanding, slots, &others));
        cap.saturating_sub(held)
    }

    /// True when `worker` holds no job (it just arrived, or finished what it had).
    fn holds_nothing(state: &State, worker: u64) -> bool {
        !state
            .jobs
            .values()
            .any(|e| matches!(e.state, JobState::Leased { holder: Some(h), .. } if h == worker))
    }

    /// Takes back, for `worker` who holds nothing and finds the queue empty, the jobs other live workers hold
    /// beyond their share of the outstanding jobs (the ones they leased last): a worker that
    /// was alone when it leased keeps only its share once another arrives. The jobs go back
    /// to the queue; their former holders hear at their next heartbeat or report that the
    /// jobs are no longer theirs (a result they still send is taken).
    fn take_back(&self, state: &mut State, live: &HashSet<u64>, worker: u64) {
        let mut held: HashMap<u64, Vec<(std::time::Instant, JobId)>> = HashMap::new();
        for (id, entry) in &state.jobs {
            if let JobState::Leased {
                holder: Some(holder),
                ..
            } = entry.state
            {
                if holder != worker && live.contains(&holder) {
                    let at = entry.leased_at.unwrap_or_else(Instant::now);
                    held.entry(holder).or_default().push((at, *id));
                }
            }
        }
        let outstanding = state.queue.len()
            + state
                .jobs
                .values()
                .filter(|e| matches!(e.state, JobState::Leased { .. }))
                .count()
            + state.rechecks.len();
        for (holder, mut jobs) in held {
            let slots = state.workers.get(&holder).map_or(1, |w| w.slots);
            let others: Vec<usize> = live
                .iter()
                .filter(|id| **id != holder)
                .filter_map(|id| state.workers.get(id).map(|w| w.slots))
                .collect();
            let cap = (slots * MAX_PER_SLOT).min(share(outstanding, slots, &others));
            if jobs.len() <= cap {
                continue;
            }
            // The last leased first: the holder has had the least time on them.
            jobs.sort_unstable();
            let excess: Vec<JobId> = jobs[cap..].iter().map(|(_, id)| *id).collect();
            for id in &excess {
                let Some(entry) = state.jobs.get_mut(id) else {
                    continue;
                };
                if let JobState::Leased { beta, .. } = entry.state {
                    entry.state = JobState::Queued { beta };
                    state.queue.insert((entry.priority, *id));
                }
            }
            tracing::info!(
                from = holder,
                jobs = excess.len(),
                "jobs held beyond a worker's share taken back for a worker that arrived"
            );
            state.counters.withdrawn += excess.len() as u64;
            if let Some(record) = state.workers.get_mut(&holder) {
                record.taken_back.extend(excess);
            }
        }
    }

    /// Hands up to `room` more claims waiting for a re-run to `worker`, never its own claims.
    fn lease_rechecks(
        state: &mut State,
        worker: u64,
        room: usize,
        expiry: Instant,
        out: &mut Vec<Leased>,
    ) {
        let now = Instant::now();
        let until = out.len() + room;
        for (id, recheck) in state.rechecks.iter_mut() {
            if out.len() >= until {
                break;
            }
            let free = recheck.holder.is_none_or(|(_, until)| until <= now);
            if !free || recheck.claimant == Some(worker) {
                continue;
            }
            recheck.holder = Some((worker, expiry));
            out.push(Leased {
                id: *id,
                spec: recheck.spec.clone(),
                beta: recheck.beta,
                // The re-run's cutoff is the claim's: it must not follow the incumbent.
                first: None,
                recheck: true,
            });
        }
    }

    /// The queued job to lease to `worker` next: the first in search order, except that a
    /// job whose affinity key another live worker took last is left to that worker when
    /// something else is queued close behind. Guesses with the same letters leave the same
    /// all-gray part (usually the largest), so the worker that bounded it for one finds it
    /// in its memo for the others; with first guesses spread blindly, each worker bounded it
    /// again (measured: 9 % more table reads with 2 workers than in one process). Slices of
    /// one part share its sub-parts the same way.
    fn next_queued(
        &self,
        queue: &BTreeSet<QueueKey>,
        jobs: &HashMap<JobId, Entry>,
        affinity: &HashMap<Affinity, u64>,
        live: &HashSet<u64>,
        worker: u64,
    ) -> Option<QueueKey> {
        let key_of = |id: JobId| jobs.get(&id).and_then(|entry| self.affinity_key(entry));
        pick(queue, key_of, affinity, live, worker)
    }

    /// The affinity key of a whole first-guess job (its letter set) or of a slice (its part).
    fn affinity_key(&self, entry: &Entry) -> Option<Affinity> {
        match (entry.first, &entry.spec.kind) {
            (Some(_), JobKind::Guess(guess)) => self
                .game()
                .guesses()
                .get(*guess as usize)
                .map(|word| Affinity::Letters(word.letter_set())),
            (_, JobKind::Slice { .. }) => {
                let mut hasher = std::hash::DefaultHasher::new();
                std::hash::Hash::hash(&entry.spec.node, &mut hasher);
                Some(Affinity::Part(std::hash::Hasher::finish(&hasher)))
            }
            _ => None,
        }
    }
}
