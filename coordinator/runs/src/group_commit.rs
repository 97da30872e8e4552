//! Group commit: many threads that each need "everything I wrote is on disk" share one disk
//! sync, so thousands of durable writes per second cost a few syncs, not thousands.

use std::sync::{Condvar, Mutex, MutexGuard};

/// Flush tickets taken and made durable; used by the worker's memo and the coordinator's
/// run database alike.
#[derive(Debug, Default)]
pub struct GroupCommit {
    state: Mutex<Tickets>,
    committed: Condvar,
}

#[derive(Debug, Default)]
struct Tickets {
    taken: u64,
    durable: u64,
    flushing: bool,
}

impl GroupCommit {
    /// Returns once everything the calling thread wrote before the call is durable. One
    /// waiting thread runs `flush` for all whose tickets were taken before it began; the rest
    /// wait for it. A failed flush is returned to the thread that ran it, and the others try
    /// again.
    pub fn sync<E>(&self, flush: impl Fn() -> Result<(), E>) -> Result<(), E> {
        let mut state = lock(&self.state);
        state.taken += 1;
        let ticket = state.taken;
        loop {
            if state.durable >= ticket {
                return Ok(());
            }
            if !state.flushing {
                state.flushing = true;
                let covering = state.taken;
                drop(state);
                let flushed = flush();
                state = lock(&self.state);
                state.flushing = false;
                if flushed.is_ok() {
                    state.durable = state.durable.max(covering);
                }
                self.committed.notify_all();
                flushed?;
                continue;
            }
            state = self
                .committed
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
        }
    }
}

fn lock(m: &Mutex<Tickets>) -> MutexGuard<'_, Tickets> {
    // Every update is a few integer stores under the lock: a poisoned lock is still whole.
    m.lock().unwrap_or_else(|p| p.into_inner())
}
