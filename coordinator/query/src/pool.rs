//! The places of the query service's on-the-spot solves: a few at once for the whole server,
//! a bounded number per client address (running or waiting), and a bounded line of waiters.
//! A freed place goes to the waiting address that runs the fewest solves (the longest
//! waiting first among equals), so a client that keeps the pool busy from one address does
//! not make the others wait behind all of its requests.
//!
//! A [`Place`] is held by the solve itself (moved into its blocking task), so the place is
//! given back when the work ends, not when the request that asked for it goes away.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::oneshot;

/// Why a solve was refused a place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Crowded {
    /// The client's address already has its share running or waiting.
    #[error(
        "too many solves at once from one address (at most {0} running or waiting); wait for \
         an answer before asking again"
    )]
    PerAddress(usize),
    /// The line of waiting solves is full.
    #[error("the server is busy solving for {0} other requests; try again in a moment")]
    Full(usize),
}

/// The places, shared by every request of a server.
#[derive(Debug, Clone)]
pub struct SolvePool {
    inner: Arc<Mutex<Pool>>,
}

#[derive(Debug)]
struct Pool {
    free: usize,
    per_address: usize,
    max_waiting: usize,
    /// Solves running or waiting, per address (an address without solves has no entry).
    held: HashMap<IpAddr, Held>,
    waiting: VecDeque<Waiter>,
    next_ticket: u64,
}

#[derive(Debug, Default, Clone, Copy)]
struct Held {
    running: usize,
    waiting: usize,
}

#[derive(Debug)]
struct Waiter {
    ticket: u64,
    address: IpAddr,
    send: oneshot::Sender<Place>,
}

/// One solve's place: given back (to the next waiter) when dropped.
#[derive(Debug)]
pub struct Place {
    pool: Arc<Mutex<Pool>>,
    address: IpAddr,
}

/// The address a request without one (an in-process caller) counts under.
const UNKNOWN: IpAddr = IpAddr::V6(std::net::Ipv6Addr::UNSPECIFIED);

impl SolvePool {
    /// `running` solves at once, at most `per_address` running or waiting from one address,
    /// and at most `max_waiting` waiting in all (each at least 1).
    pub fn new(running: usize, per_address: usize, max_waiting: usize) -> SolvePool {
        SolvePool {
            inner: Arc::new(Mutex::new(Pool {
                free: running.max(1),
                per_address: per_address.max(1),
                max_waiting: max_waiting.max(1),
                held: HashMap::new(),
                waiting: VecDeque::new(),
                next_ticket: 0,
            })),
        }
    }

    /// A place for a solve from `address` (`None`: an in-process caller), at once or when
    /// one frees; refused at once when the address has its share or the line is full. A
    /// caller that stops waiting (its request went away) leaves the line.
    pub async fn place(&self, address: Option<IpAddr>) -> Result<Place, Crowded> {
        let address = address.map_or(UNKNOWN, |a| a.to_canonical());
        let (ticket, receive) = {
            let mut pool = lock(&self.inner);
            let held = pool.held.get(&address).copied().unwrap_or_default();
            if held.running + held.waiting >= pool.per_address {
                return Err(Crowded::PerAddress(pool.per_address));
            }
            if pool.free > 0 && pool.waiting.is_empty() {
                pool.free -= 1;
                pool.held.entry(address).or_default().running += 1;
                return Ok(Place {
                    pool: self.inner.clone(),
                    address,
                });
            }
            if pool.waiting.len() >= pool.max_waiting {
                return Err(Crowded::Full(pool.waiting.len()));
            }
            let (send, receive) = oneshot::channel();
            let ticket = pool.next_ticket;
            pool.next_ticket += 1;
            pool.waiting.push_back(Waiter {
                ticket,
                address,
                send,
            });
            pool.held.entry(address).or_default().waiting += 1;
            (ticket, receive)
        };
        let mut leave = Leave {
            pool: &self.inner,
            ticket,
            armed: true,
        };
        let place = receive.await;
        leave.armed = false;
        // The sender is only dropped with the pool itself: a place always comes.
        place.map_err(|_| Crowded::Full(0))
    }

    /// Solves running now and waiting now (for tests and status lines).
    pub fn counts(&self) -> (usize, usize) {
        let pool = lock(&self.inner);
        let running = pool.held.values().map(|h| h.running).sum();
        (running, pool.waiting.len())
    }
}

fn lock(pool: &Mutex<Pool>) -> MutexGuard<'_, Pool> {
    // Every change is a few counters updated under the lock: a panic elsewhere leaves them
    // consistent.
    pool.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Pool {
    /// Hands the free place to the waiting address running the fewest solves (the first in
    /// line among equals); keeps it free when nobody waits.
    fn hand_on(&mut self, shared: &Arc<Mutex<Pool>>) {
        while self.free > 0 {
            let next = self
                .waiting
                .iter()
                .enumerate()
                .min_by_key(|(i, w)| {
                    let running = self.held.get(&w.address).map_or(0, |h| h.running);
                    (running, *i)
                })
                .map(|(i, _)| i);
            let Some(waiter) = next.and_then(|i| self.waiting.remove(i)) else {
                return;
            };
            self.free -= 1;
            let held = self.held.entry(waiter.address).or_default();
            held.waiting = held.waiting.saturating_sub(1);
            held.running += 1;
            let place = Place {
                pool: shared.clone(),
                address: waiter.address,
            };
            if let Err(place) = waiter.send.send(place) {
                // The waiter left in the meantime: take the place back without handing on
                // (this lock is held) and try the next waiter.
                place.forget(self);
            }
        }
    }

    /// Gives back one running place of `address`.
    fn release(&mut self, address: IpAddr) {
        self.free += 1;
        if let Some(held) = self.held.get_mut(&address) {
            held.running = held.running.saturating_sub(1);
            if held.running == 0 && held.waiting == 0 {
                self.held.remove(&address);
            }
        }
    }
}

impl Place {
    /// Gives the place back inside `pool`'s lock, without handing it on.
    fn forget(self, pool: &mut Pool) {
        pool.release(self.address);
        std::mem::forget(self);
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let shared = self.pool.clone();
        let mut pool = lock(&shared);
        pool.release(self.address);
        pool.hand_on(&shared);
    }
}

/// Takes a waiter out of the line when its request goes away before a place came.
struct Leave<'a> {
    pool: &'a Arc<Mutex<Pool>>,
    ticket: u64,
    armed: bool,
}

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let mut pool = lock(self.pool);
        if let Some(i) = pool.waiting.iter().position(|w| w.ticket == self.ticket) {
            if let Some(waiter) = pool.waiting.remove(i) {
                if let Some(held) = pool.held.get_mut(&waiter.address) {
                    held.waiting = held.waiting.saturating_sub(1);
                    if held.running == 0 && held.waiting == 0 {
                        pool.held.remove(&waiter.address);
                    }
                }
            }
        }
        // Otherwise a place was already sent: the dropped receiver drops it, which gives it
        // back and hands it on.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> Option<IpAddr> {
        Some(text.parse().unwrap())
    }

    #[tokio::test]
    async fn an_address_gets_its_share_and_no_more() {
        let pool = SolvePool::new(1, 2, 8);
        let a = pool.place(ip("192.0.2.1")).await.unwrap();
        let waiting = tokio::spawn({
            let pool = pool.clone();
            async move { pool.place(ip("192.0.2.1")).await.map(drop) }
        });
        tokio::task::yield_now().await;
        while pool.counts().1 == 0 {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            pool.place(ip("192.0.2.1")).await.unwrap_err(),
            Crowded::PerAddress(2)
        );
        drop(a);
        waiting.await.unwrap().unwrap();
        assert_eq!(pool.counts(), (0, 0));
        assert!(lock(&pool.inner).held.is_empty());
    }

    #[tokio::test]
    async fn a_freed_place_goes_to_the_address_running_the_fewest() {
        let pool = SolvePool::new(1, 4, 8);
        let busy = pool.place(ip("192.0.2.1")).await.unwrap();
        // The busy address queues first, then another address.
        let mut order = Vec::new();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for (n, who) in [(1, "192.0.2.1"), (2, "192.0.2.2")] {
            let shared = pool.clone();
            let tx = tx.clone();
            tokio::spawn(async move {
                let place = shared.place(ip(who)).await.unwrap();
                tx.send(n).unwrap();
                drop(place);
            });
            while pool.counts().1 < n {
                tokio::task::yield_now().await;
            }
        }
        drop(busy);
        while order.len() < 2 {
            order.push(rx.recv().await.unwrap());
        }
        assert_eq!(order, [1, 2], "one place at a time, handed on in turn");
        // With the first address still running, the second address goes first.
        let pool = SolvePool::new(2, 4, 8);
        let _running = pool.place(ip("192.0.2.1")).await.unwrap();
        let blocker = pool.place(ip("192.0.2.3")).await.unwrap();
        let first = tokio::spawn({
            let pool = pool.clone();
            async move { pool.place(ip("192.0.2.1")).await.map(|p| (1, p)) }
        });
        while pool.counts().1 < 1 {
            tokio::task::yield_now().await;
        }
        let second = tokio::spawn({
            let pool = pool.clone();
            async move { pool.place(ip("192.0.2.2")).await.map(|p| (2, p)) }
        });
        while pool.counts().1 < 2 {
            tokio::task::yield_now().await;
        }
        drop(blocker);
        let (who, _place) = second.await.unwrap().unwrap();
        assert_eq!(who, 2);
        assert_eq!(pool.counts(), (2, 1));
        first.abort();
    }

    #[tokio::test]
    async fn a_waiter_that_leaves_frees_its_share_and_the_line() {
        let pool = SolvePool::new(1, 1, 1);
        let held = pool.place(ip("192.0.2.9")).await.unwrap();
        let waiter = tokio::spawn({
            let pool = pool.clone();
            async move { pool.place(ip("192.0.2.1")).await.map(drop) }
        });
        while pool.counts().1 == 0 {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            pool.place(ip("192.0.2.2")).await.unwrap_err(),
            Crowded::Full(1)
        );
        waiter.abort();
        let _ = waiter.await;
        assert_eq!(pool.counts(), (1, 0));
        drop(held);
        assert_eq!(pool.counts(), (0, 0));
        assert!(lock(&pool.inner).held.is_empty());
    }
}
