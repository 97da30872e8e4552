//! Who may hold a port's connections (the HTTP ones and the gRPC ones alike): a bounded
//! total, and at most a few per client address, so one address opening many idle sockets
//! cannot keep everyone else out. A connection over either bound is refused at once
//! (closed), never queued, so the accept loop keeps taking the clients it can serve.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The connections open now: in all, and per client address.
#[derive(Debug)]
pub struct Gate {
    total: Arc<Semaphore>,
    max_total: usize,
    per_ip: Arc<Mutex<HashMap<IpAddr, usize>>>,
    max_per_ip: usize,
}

/// Why a connection was closed as soon as it was accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// Every place is taken.
    #[error("{0} connections are open, the most served at once")]
    Full(usize),
    /// This address holds its share already.
    #[error("{ip} holds {max} connections, the most one address may")]
    PerIp {
        /// The client's address.
        ip: IpAddr,
        /// Its share.
        max: usize,
    },
}

/// One admitted connection's places, given back when it is dropped (the connection ended).
#[derive(Debug)]
pub struct Admitted {
    _total: OwnedSemaphorePermit,
    per_ip: Arc<Mutex<HashMap<IpAddr, usize>>>,
    ip: IpAddr,
}

impl Gate {
    /// At most `max_total` connections, `max_per_ip` of them from one address (both at least
    /// 1).
    pub fn new(max_total: usize, max_per_ip: usize) -> Gate {
        let max_total = max_total.max(1);
        Gate {
            total: Arc::new(Semaphore::new(max_total)),
            max_total,
            per_ip: Arc::new(Mutex::new(HashMap::new())),
            max_per_ip: max_per_ip.max(1),
        }
    }

    /// Takes a place for a connection from `ip`, or says why there is none. IPv4 clients seen
    /// through an IPv6 socket count under their IPv4 address.
    pub fn admit(&self, ip: IpAddr) -> Result<Admitted, Refused> {
        let ip = ip.to_canonical();
        // Counts stay consistent under a panic elsewhere (each change is one statement), so a
        // poisoned lock is still good to use.
        let mut open = self.per_ip.lock().unwrap_or_else(PoisonError::into_inner);
        let held = open.get(&ip).copied().unwrap_or(0);
        if held >= self.max_per_ip {
            return Err(Refused::PerIp {
                ip,
                max: self.max_per_ip,
            });
        }
        let total = Arc::clone(&self.total)
            .try_acquire_owned()
            .map_err(|_| Refused::Full(self.max_total))?;
        open.insert(ip, held + 1);
        Ok(Admitted {
            _total: total,
            per_ip: Arc::clone(&self.per_ip),
            ip,
        })
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut open = self.per_ip.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(held) = open.get_mut(&self.ip) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn an_address_gets_its_share_and_its_places_back() {
        let gate = Gate::new(10, 2);
        let a = ip("192.0.2.1");
        let first = gate.admit(a).unwrap();
        let _second = gate.admit(a).unwrap();
        assert_eq!(gate.admit(a).unwrap_err(), Refused::PerIp { ip: a, max: 2 });
        // Another address is not held back by the first one's share.
        let _other = gate.admit(ip("192.0.2.2")).unwrap();
        drop(first);
        let _again = gate.admit(a).unwrap();
        assert_eq!(gate.admit(a).unwrap_err(), Refused::PerIp { ip: a, max: 2 });
    }

    #[test]
    fn the_total_is_bounded_and_freed() {
        let gate = Gate::new(2, 2);
        let one = gate.admit(ip("192.0.2.1")).unwrap();
        let _two = gate.admit(ip("192.0.2.2")).unwrap();
        assert_eq!(gate.admit(ip("192.0.2.3")).unwrap_err(), Refused::Full(2));
        // A refusal for the total takes nothing from the address's share.
        drop(one);
        let _three = gate.admit(ip("192.0.2.3")).unwrap();
        assert_eq!(gate.per_ip.lock().unwrap().len(), 2);
    }

    #[test]
    fn mapped_ipv4_counts_as_ipv4() {
        let gate = Gate::new(10, 1);
        let _v4 = gate.admit(ip("192.0.2.1")).unwrap();
        assert!(matches!(
            gate.admit(ip("::ffff:192.0.2.1")),
            Err(Refused::PerIp { .. })
        ));
    }

    #[test]
    fn closed_connections_leave_no_entries() {
        let gate = Gate::new(10, 3);
        let held: Vec<_> = (0..3).map(|_| gate.admit(ip("::1")).unwrap()).collect();
        drop(held);
        assert!(gate.per_ip.lock().unwrap().is_empty());
    }
}
