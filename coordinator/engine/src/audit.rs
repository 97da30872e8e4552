//! Results are claims: which claims of a finished search get re-run, how a re-run judges
//! the claim, and the account of checking printed with the proven result.
//!
//! An exact claim carries a tree, which the engine verifies on arrival. A bound claim
//! ("this first guess totals at least β") carries nothing; when the first guess's admissible
//! lower bound does not already reach its cutoff, the claim is what pruned the guess, and a
//! false one could hide the optimum. So before a run is declared finished, the claims that
//! decide the result (the runner-up's value and every claim tied with it) and a
//! reproducible sample of the rest are solved again by another worker (or by the
//! coordinator when no other worker is there).

use std::sync::Arc;
use std::time::Instant;

use hakase_core::solver::Outcome;
use hakase_proto::job::{JobId, JobSpec};
use sha2::{Digest, Sha256};

/// The coordinator's own worker id, for re-runs it solves itself.
pub const COORDINATOR: u64 = 0;

/// Which claims are re-run: the decisive ones (unless the workers are trusted) and a share
/// of the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditPolicy {
    /// Share of the other needed bound claims re-run, in parts per million (so the
    /// parameters stay `Eq`).
    pub fraction_ppm: u32,
    /// Whether the claims that decide the result are re-run whatever the share says. Off
    /// only for workers the operator vouches for (`--trust-workers`): in a one-guess run
    /// every slice's bound is decisive, so checking them all doubles the run's work.
    pub decisive: bool,
}

impl AuditPolicy {
    /// The default share re-run: 5 %.
    pub const DEFAULT_FRACTION: f64 = 0.05;

    /// A policy re-running `fraction` (0–1) of the claims.
    pub fn with_fraction(fraction: f64) -> AuditPolicy {
        AuditPolicy {
            fraction_ppm: (fraction.clamp(0.0, 1.0) * 1e6).round() as u32,
            decisive: true,
        }
    }

    /// This policy without the decisive re-runs: the claims that decide the result are
    /// accepted unless the sample picks them, and the result names them as unchecked.
    pub fn trusting(self) -> AuditPolicy {
        AuditPolicy {
            decisive: false,
            ..self
        }
    }

    /// The share as a fraction.
    pub fn fraction(&self) -> f64 {
        f64::from(self.fraction_ppm) / 1e6
    }

    /// True when job `id` is in the sample drawn from `seed` (a run's secret, see
    /// [`Manifest::audit_seed`](hakase_runs::Manifest::audit_seed)). A function of both
    /// only, so a re-run of the audit (or `hakase audit`) picks the same claims; a worker
    /// never sees the seed, so it cannot tell which of its claims will be re-run.
    pub fn sampled(&self, seed: &str, id: JobId) -> bool {
        sample_point(seed, id) < u64::from(self.fraction_ppm)
    }
}

/// A point in 0..1,000,000 fixed by seed and job: the first 8 bytes of SHA-256(seed, job),
/// stable across builds (unlike the standard hasher) and, unlike a plain hash, not to be
/// worked back to the secret from the re-runs a worker sees.
fn sample_point(seed: &str, id: JobId) -> u64 {
    let digest = Sha256::new()
        .chain_update(seed.as_bytes())
        .chain_update(id.to_bytes())
        .finalize();
    let mut head = [0u8; 8];
    head.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(head) % 1_000_000
}

/// Why a claim is re-run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// It decides the result: the runner-up, or tied with it.
    Decisive,
    /// It fell in the sample.
    Policy,
    /// It looked like the runner-up's when it arrived: re-run during the search, so that
    /// the end need not wait for the decisive re-run.
    Ahead,
}

/// A claim waiting for, or under, a re-run.
#[derive(Debug, Clone)]
pub struct Recheck {
    /// The job.
    pub spec: Arc<JobSpec>,
    /// The cutoff the claim must hold to: the first guess's final cutoff.
    pub beta: u32,
    /// What was claimed.
    pub claimed: Outcome,
    /// Who claimed it (`None` for results older than claim records).
    pub claimant: Option<u64>,
    /// Why it is re-run.
    pub reason: Reason,
    /// The worker re-running it, until when.
    pub holder: Option<(u64, Instant)>,
    /// When it was queued: one that no other worker took within a lease period is re-run by
    /// the coordinator, however many workers say they are live.
    pub queued: Instant,
}

/// What a re-run says of the claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The re-run agrees: the guess totals at least the cutoff.
    Confirmed,
    /// The re-run found (with a verified tree) a total below the cutoff: the claim was false.
    Refuted(u32),
}

/// Judges `claimed`, needed to hold up to `beta`, by the re-run's `outcome` (exact outcomes
/// are tree-verified before they get here). A claim asserts a lower bound: its bound for
/// `AtLeast`, its value for `Exact` (whose tree proves only the upper side). Only an exact
/// re-run below both refutes it: an honest exact claim re-run without a cutoff (as every
/// claim of `--rank-all` is) finds the same value and stands.
pub fn verdict(beta: u32, claimed: Outcome, outcome: Outcome) -> Verdict {
    let needed = beta.min(claimed.value());
    match outcome {
        Outcome::Exact { value, .. } if value < needed => Verdict::Refuted(value),
        _ => Verdict::Confirmed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hakase_core::solver::INFEASIBLE;

    #[test]
    fn the_sample_is_reproducible_and_near_its_fraction() {
        let policy = AuditPolicy::with_fraction(0.05);
        let picked: Vec<bool> = (0..20_000u128)
            .map(|i| policy.sampled("run-a", JobId(i * 7919)))
            .collect();
        let again: Vec<bool> = (0..20_000u128)
            .map(|i| policy.sampled("run-a", JobId(i * 7919)))
            .collect();
        assert_eq!(picked, again);
        let share = picked.iter().filter(|&&p| p).count();
        assert!((800..1200).contains(&share), "{share} of 20000 sampled");
        // Another seed draws another sample: the jobs alone do not tell which are re-run.
        let other: Vec<bool> = (0..20_000u128)
            .map(|i| policy.sampled("run-b", JobId(i * 7919)))
            .collect();
        let both = picked
            .iter()
            .zip(&other)
            .filter(|(a, b)| **a && **b)
            .count();
        assert!(both < 150, "{both} of {share} picked by both seeds");
        assert!(!AuditPolicy::with_fraction(0.0).sampled("run-a", JobId(1)));
        assert!(AuditPolicy::with_fraction(1.0).sampled("run-a", JobId(1)));
    }

    #[test]
    fn a_rerun_refutes_only_with_an_exact_total_below_the_cutoff_and_the_claim() {
        let exact = |value| Outcome::Exact { value, guess: 3 };
        let bound = Outcome::AtLeast(964);
        assert_eq!(verdict(964, bound, bound), Verdict::Confirmed);
        assert_eq!(verdict(964, bound, exact(970)), Verdict::Confirmed);
        assert_eq!(verdict(964, bound, exact(964)), Verdict::Confirmed);
        assert_eq!(
            verdict(970, Outcome::AtLeast(970), exact(964)),
            Verdict::Refuted(964)
        );
        // Exact claims without a cutoff (`--rank-all`): the same value stands, a lower one
        // refutes.
        let none = INFEASIBLE;
        assert_eq!(verdict(none, exact(998), exact(998)), Verdict::Confirmed);
        assert_eq!(verdict(none, exact(998), exact(997)), Verdict::Refuted(997));
        assert_eq!(verdict(1000, exact(998), exact(997)), Verdict::Refuted(997));
    }
}
