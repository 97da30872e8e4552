//! The last few nodes' search-order scans, kept so that the slices of one part (a
//! distributed search hands a worker dozens of them, one after another) scan the part once:
//! without it, scanning again for each slice was 12.6 % of a one-worker qajaq run's CPU
//! against 1 % in memory (perf samples).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use super::Node;

/// How many nodes' scans are kept: a worker with a few threads works on a few parts at once.
const KEPT: usize = 4;

/// Scans (`Scan`: the solver's scan; generic so a test can count calls) by node, most
/// recently used last.
pub(crate) struct OrderScans<Scan> {
    kept: Mutex<VecDeque<(Node, Arc<Scan>)>>,
}

impl<Scan> Default for OrderScans<Scan> {
    fn default() -> Self {
        OrderScans {
            kept: Mutex::new(VecDeque::new()),
        }
    }
}

impl<Scan> OrderScans<Scan> {
    /// The scan of `node`, made by `scan` unless it is kept. The scan is a function of the
    /// node alone (it reads no memo), so a kept one is the one `scan` would make.
    pub(crate) fn get_or_scan(&self, node: &Node, scan: impl FnOnce() -> Scan) -> Arc<Scan> {
        if let Some(found) = self.take(node) {
            return found;
        }
        // Scanned outside the lock: two threads asking for one node both scan it, which
        // is rarer and cheaper than making every other thread wait.
        let made = Arc::new(scan());
        self.keep(node, Arc::clone(&made));
        made
    }

    /// The kept scan of `node`, moved to the most recently used end.
    fn take(&self, node: &Node) -> Option<Arc<Scan>> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let at = kept.iter().position(|(n, _)| n == node)?;
        let entry = kept.remove(at)?;
        let found = Arc::clone(&entry.1);
        kept.push_back(entry);
        Some(found)
    }

    /// Keeps `scan` as `node`'s, dropping the least recently used beyond [`KEPT`].
    fn keep(&self, node: &Node, scan: Arc<Scan>) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.iter().any(|(n, _)| n == node) {
            return;
        }
        kept.push_back((node.clone(), scan));
        while kept.len() > KEPT {
            kept.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(answer: u32) -> Node {
        Node {
            candidates: vec![answer, answer + 1],
            guesses_left: 3,
            hard: Default::default(),
        }
    }

    #[test]
    fn a_node_is_scanned_once_while_kept_and_again_once_dropped() {
        let scans = OrderScans::default();
        let made = std::cell::Cell::new(0);
        let ask = |answer: u32| {
            *scans.get_or_scan(&node(answer), || {
                made.set(made.get() + 1);
                answer * 10
            })
        };
        assert_eq!(ask(1), 10);
        assert_eq!(ask(1), 10);
        assert_eq!(made.get(), 1, "a kept node is not scanned again");
        for answer in 2..=KEPT as u32 {
            ask(answer);
        }
        assert_eq!(made.get(), KEPT);
        ask(1); // the most recently used again: node 2 is now the oldest
        ask(100);
        assert_eq!(made.get(), KEPT + 1);
        ask(1);
        assert_eq!(made.get(), KEPT + 1, "node 1 was used lately and stays");
        ask(2);
        assert_eq!(
            made.get(),
            KEPT + 2,
            "node 2 was the oldest and was dropped"
        );
    }
}
