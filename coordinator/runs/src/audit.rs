//! How a run's result was checked: the account the search engine keeps while it re-runs
//! claims, stored with the run and printed with its proven result.

use hakase_core::plural::plural;
use serde::{Deserialize, Serialize};

/// How a run's result was checked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditSummary {
    /// False for runs whose workers are trusted (the embedded run).
    pub enabled: bool,
    /// The share of other claims re-run.
    pub fraction: f64,
    /// True when the workers were trusted (`--trust-workers`): the decisive claims were
    /// not re-run unless sampled.
    #[serde(default)]
    pub trusted: bool,
    /// Exact claims whose tree was verified on arrival.
    pub exact_verified: u64,
    /// Pruned first guesses whose admissible lower bound already reaches the cutoff.
    pub covered_by_bound: u64,
    /// Claims re-run because they decide the result.
    pub rerun_decisive: u64,
    /// Claims re-run because they fell in the sample.
    pub rerun_policy: u64,
    /// Claims re-run during the search because they looked like the runner-up's, and were
    /// not (the one that was counts as decisive).
    #[serde(default)]
    pub rerun_ahead: u64,
    /// Of the re-runs, how many the coordinator solved itself (no other worker there).
    pub rerun_on_coordinator: u64,
    /// Needed claims accepted without a re-run (outside the sample).
    pub unchecked: u64,
    /// The first guesses (guess ids, ascending) whose ranking row rests on such a claim: a
    /// false one there could hide a better first guess, so the result names them.
    #[serde(default)]
    pub unchecked_guesses: Vec<u32>,
    /// Rows taken off [`AuditSummary::unchecked_guesses`] since, re-solved by `hakase audit`
    /// to what they claim (or settled by the admissible bound).
    #[serde(default)]
    pub confirmed_later: u64,
    /// Results refused or refuted: forged trees, re-runs that disagreed.
    pub lies_caught: u64,
    /// Worker ids quarantined, in order.
    pub quarantined: Vec<u64>,
}

impl AuditSummary {
    /// One line for the end of a run.
    pub fn line(&self) -> String {
        if !self.enabled {
            return "checked: workers in this process are trusted; exact claims verified by tree"
                .into();
        }
        let coordinator = if self.rerun_on_coordinator > 0 {
            format!(
                "; {} on the coordinator, no other worker being there",
                self.rerun_on_coordinator
            )
        } else {
            String::new()
        };
        let ahead = if self.rerun_ahead > 0 {
            format!(
                ", {} more that looked like the runner-up's during the search",
                self.rerun_ahead
            )
        } else {
            String::new()
        };
        let decisive = if self.trusted {
            "none decisive: the workers are trusted".to_string()
        } else {
            format!("{} decisive{ahead}{coordinator}", self.rerun_decisive)
        };
        let later = match self.confirmed_later {
            0 => String::new(),
            n => format!(
                "; since, {} confirmed by `hakase audit`",
                plural(n, "row", "rows")
            ),
        };
        let count = |n: u64, one: &str, many: &str| plural(n, one, many);
        format!(
            "checked: {} verified by tree, {} re-run ({} by policy at {}%, {decisive}), {} \
             settled by the admissible bound alone, {} accepted unchecked; {}{later}",
            count(self.exact_verified, "exact claim", "exact claims"),
            count(
                self.rerun_policy + self.rerun_decisive + self.rerun_ahead,
                "bound claim",
                "bound claims"
            ),
            self.rerun_policy,
            self.fraction * 100.0,
            count(self.covered_by_bound, "first guess", "first guesses"),
            count(self.unchecked, "claim", "claims"),
            count(
                self.quarantined.len() as u64,
                "quarantined worker",
                "quarantined workers"
            )
        )
    }

    /// Takes the rows of `confirmed` (re-solved to what they claim, or settled by the
    /// admissible bound) off the unchecked ones; returns how many were there.
    pub fn confirm(&mut self, confirmed: &[u32]) -> usize {
        let before = self.unchecked_guesses.len();
        self.unchecked_guesses.retain(|g| !confirmed.contains(g));
        let taken = before - self.unchecked_guesses.len();
        self.confirmed_later += taken as u64;
        taken
    }
}
