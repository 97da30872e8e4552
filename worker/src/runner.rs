//! Leased jobs run back to back on rayon's pool, at most `slots` at a time.
//!
//! Jobs run on a pool thread so that the solver's parallel loops start on that same
//! thread: run from a tokio blocking thread, every parallel loop of every node (sets of 48
//! answers and more) went to a pool thread and back, and a lone worker's jobs on
//! pokemon-verbum took 15 % longer than the same search in memory. Each job was then a
//! tokio task that took a slot, handed the job to rayon and waited for it: between two jobs
//! the pool thread went to sleep and the runtime woke up to hand it the next one. A runner
//! now takes the next queued job itself as soon as one ends.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What a runner does with each job, on a pool thread.
pub type RunJob<J> = Box<dyn Fn(J) + Send + Sync>;

/// Queued jobs and the runners draining them.
pub struct RunQueue<J> {
    jobs: Mutex<VecDeque<J>>,
    runners: AtomicUsize,
    slots: usize,
    run: RunJob<J>,
}

impl<J: Send + 'static> RunQueue<J> {
    /// An empty queue whose jobs are given to `run`, by at most `slots` runners.
    pub fn new(slots: usize, run: RunJob<J>) -> Arc<RunQueue<J>> {
        Arc::new(RunQueue {
            jobs: Mutex::new(VecDeque::new()),
            runners: AtomicUsize::new(0),
            slots: slots.max(1),
            run,
        })
    }

    /// Queues `job` and starts a runner on rayon's pool if a slot is free.
    pub fn push(self: &Arc<Self>, job: J) {
        self.lock().push_back(job);
        while self.claim_slot() {
            let queue = self.clone();
            rayon::spawn(move || queue.drain());
        }
    }

    /// Drops every queued job (the worker stops or registers again).
    pub fn clear(&self) {
        self.lock().clear();
    }

    /// Takes the queued jobs `unwanted` picks out of the queue, unrun, and returns them:
    /// the coordinator no longer needs them. Jobs already running are not touched.
    pub fn withdraw(&self, unwanted: impl Fn(&J) -> bool) -> Vec<J> {
        let mut jobs = self.lock();
        let (gone, kept): (VecDeque<J>, VecDeque<J>) = jobs.drain(..).partition(|j| unwanted(j));
        *jobs = kept;
        gone.into()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<J>> {
        self.jobs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes a runner's slot when a job waits and a slot is free.
    fn claim_slot(&self) -> bool {
        let mut runners = self.runners.load(Ordering::Acquire);
        loop {
            if runners >= self.slots || self.lock().is_empty() {
                return false;
            }
            match self.runners.compare_exchange(
                runners,
                runners + 1,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return true,
                Err(now) => runners = now,
            }
        }
    }

    /// A runner: runs queued jobs until none is left. A job queued between its last look and
    /// the release of its slot found every slot taken and started no runner, so the runner
    /// looks once more after letting go.
    fn drain(&self) {
        loop {
            loop {
                let next = self.lock().pop_front();
                let Some(job) = next else { break };
                (self.run)(job);
            }
            self.runners.fetch_sub(1, Ordering::AcqRel);
            if !self.claim_slot() {
                return;
            }
        }
    }
}

/// Clears its queue when dropped: jobs still queued when the worker's loop ends (it stops,
/// or registers again) are not run.
pub struct ClearOnDrop<J: Send + 'static>(pub Arc<RunQueue<J>>);

impl<J: Send + 'static> Drop for ClearOnDrop<J> {
    fn drop(&mut self) {
        self.0.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn every_job_runs_once_and_never_more_than_slots_at_a_time() {
        let (done, results) = mpsc::channel();
        let busy = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let run: RunJob<u32> = {
            let (busy, most) = (busy.clone(), most.clone());
            let done = Mutex::new(done);
            Box::new(move |job: u32| {
                let now = busy.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(Duration::from_micros(200));
                busy.fetch_sub(1, Ordering::SeqCst);
                let _ = done.lock().expect("sender").send(job);
            })
        };
        let queue = RunQueue::new(2, run);
        for job in 0..200 {
            queue.push(job);
            if job % 50 == 0 {
                // Let the runners drain the queue and stop, so that later pushes start new ones.
                std::thread::sleep(Duration::from_millis(30));
            }
        }
        let mut seen: Vec<u32> = (0..200)
            .map(|_| {
                results
                    .recv_timeout(Duration::from_secs(10))
                    .expect("a job was stranded in the queue")
            })
            .collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..200).collect::<Vec<_>>());
        assert!(most.load(Ordering::SeqCst) <= 2, "more runners than slots");
        assert_eq!(queue.lock().len(), 0);
    }

    #[test]
    fn withdrawn_jobs_leave_the_queue_in_order_and_do_not_run() {
        let (done, results) = mpsc::channel();
        let done = Mutex::new(done);
        let queue: Arc<RunQueue<u32>> = RunQueue::new(
            1,
            Box::new(move |job| {
                let _ = done.lock().expect("sender").send(job);
            }),
        );
        queue.lock().extend([1, 2, 3, 4, 5]);
        assert_eq!(queue.withdraw(|&j| j % 2 == 0), vec![2, 4]);
        assert_eq!(queue.withdraw(|&j| j == 9), Vec::<u32>::new());
        queue.push(6);
        let mut ran: Vec<u32> = (0..4)
            .map(|_| {
                results
                    .recv_timeout(Duration::from_secs(10))
                    .expect("a kept job did not run")
            })
            .collect();
        ran.sort_unstable();
        assert_eq!(ran, vec![1, 3, 5, 6]);
        assert!(results.recv_timeout(Duration::from_millis(50)).is_err());
    }

    #[test]
    fn cleared_jobs_do_not_run() {
        let queue: Arc<RunQueue<u32>> = RunQueue::new(1, Box::new(|_| {}));
        queue.lock().extend([1, 2, 3]);
        queue.clear();
        assert_eq!(queue.lock().len(), 0);
    }
}
