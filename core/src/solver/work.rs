//! How much of a search is done, counted in expected cost rather than in first guesses: a
//! ranking's openers cost very unevenly (on the 500-word Wordle sample the costliest took 19 s,
//! the median under a second), so an ETA that counts first guesses is off by a factor of three
//! while the costly ones run.

use super::{Node, Solver};
use crate::rules::game::GuessId;
use crate::rules::pattern::{Pattern, PATTERNS};

/// The search's progress in expected cost: settled, being searched, all, and what a checkpoint
/// already held when this session began (which this session's rate must not count).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Work {
    /// Expected cost of the first guesses settled.
    pub done: f64,
    /// Expected cost of the first guesses being searched now: counted half done. A ranking
    /// starts with its costliest, so its first minutes are mostly work under way.
    pub running: f64,
    /// Expected cost of every first guess to settle.
    pub total: f64,
    /// Expected cost of the first guesses settled before this session began.
    pub resumed: f64,
}

impl Work {
    /// Work counted one unit per first guess, where no cost is estimated.
    pub fn counted(done: usize, total: usize) -> Work {
        Work {
            done: done as f64,
            total: total as f64,
            ..Work::default()
        }
    }

    /// The share of the work settled (1 when there is none).
    pub fn share(&self) -> f64 {
        if self.total > 0.0 {
            self.done / self.total
        } else {
            1.0
        }
    }

    /// Seconds left if the rest goes at this session's rate so far, `elapsed` seconds into it;
    /// `None` before this session settled anything, and once all is done.
    pub fn eta_secs(&self, elapsed: f64) -> Option<f64> {
        let settled_here = self.done - self.resumed;
        // Sums of the same costs in another order may differ in the last bits.
        let finished = self.total - self.done <= 1e-9 * self.total;
        let here = settled_here + self.running / 2.0;
        let left = (self.total - self.done - self.running / 2.0).max(0.0);
        (settled_here > 0.0 && !finished).then(|| elapsed * left / here)
    }

    /// [`Work::eta_secs`] of a lone first guess's parts (weighed by the square of their
    /// size), shown only once a quarter of that is settled: its small parts settle first.
    pub fn parts_eta_secs(&self, elapsed: f64) -> Option<f64> {
        self.eta_secs(elapsed)
            .filter(|_| self.share() >= PARTS_ETA_FROM)
    }
}

/// The share of a lone first guess's work (its parts by the square of their size) settled
/// before its ETA is shown: its small parts settle first, and from them qajaq's first 28 s
/// extrapolated to 491 hours (the run took 90 s) and lants' 120 s to 194 s (it took 809 s).
const PARTS_ETA_FROM: f64 = 0.25;

/// The exponent of the cost model: a first guess's exact solve costs about (Σ part²)^1.75.
/// The least-squares slope of log time against log Σ part² was 1.75 over the 500-word Wordle
/// sample's job log (two workers; correlation 0.90) and 1.83 over 100 of those words solved
/// one by one on one thread (correlation 0.90).
const COST_EXPONENT: f64 = 1.75;

impl Solver<'_> {
    /// What each of `guesses` counts for in the progress of a search of them at `root`: its
    /// expected cost in a ranking, one each in a search with `cutoffs`, which refutes most
    /// first guesses cheaply, the costly-looking ones first of all.
    pub fn progress_weights(&self, root: &Node, guesses: &[GuessId], cutoffs: bool) -> Vec<f64> {
        if cutoffs {
            vec![1.0; guesses.len()]
        } else {
            self.first_guess_costs(root, guesses)
        }
    }

    /// The expected cost of solving each of `guesses` exactly at `root`, relative to one
    /// another: (Σ over the non-winning parts of size²)^1.75. Large parts are what the search
    /// spends its time in, and Σ part² is how much of the set stays together.
    pub fn first_guess_costs(&self, root: &Node, guesses: &[GuessId]) -> Vec<f64> {
        let mut counts = [0u32; PATTERNS];
        let win = usize::from(Pattern::ALL_GREEN.0);
        guesses
            .iter()
            .map(|&guess| {
                let row = self.table.row(guess);
                counts.fill(0);
                for &answer in root.candidates.iter() {
                    counts[usize::from(row[answer as usize])] += 1;
                }
                counts[win] = 0;
                let squares: f64 = counts.iter().map(|&c| f64::from(c) * f64::from(c)).sum();
                squares.powf(COST_EXPONENT)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Work;

    #[test]
    fn the_eta_is_this_sessions_rate_over_what_is_left() {
        let work = Work {
            done: 30.0,
            running: 0.0,
            total: 100.0,
            resumed: 20.0,
        };
        // 10 units in 5 s this session: 70 left take 35 s.
        assert_eq!(work.eta_secs(5.0), Some(35.0));
        // Half of 20 under way: 20 units in 5 s, 60 left take 15 s.
        let running = Work {
            running: 20.0,
            ..work
        };
        assert_eq!(running.eta_secs(5.0), Some(15.0));
        let nothing_here = Work {
            resumed: 30.0,
            ..running
        };
        assert_eq!(nothing_here.eta_secs(5.0), None);
        assert_eq!(Work::counted(0, 4).eta_secs(3.0), None);
        assert_eq!(Work::counted(4, 4).eta_secs(3.0), None);
        assert_eq!(Work::counted(1, 4).eta_secs(3.0), Some(9.0));
    }
}
