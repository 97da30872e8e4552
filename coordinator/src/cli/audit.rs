//! `hakase audit`: re-check a finished run in this process — its optimal tree, and a share
//! of the claims that settled the other first guesses — and fail on any mismatch. A row that
//! rested on an unchecked worker claim and is confirmed here is recorded in the run, so its
//! views stop saying it rests on that claim.

use crate::output::plural;
use std::io::Write;

use anyhow::{bail, Context, Result};
use clap::Args;
use hakase_core::solver::{FirstGuessValue, Outcome, Solution, Solver, INFEASIBLE};
use hakase_core::GuessId;
use hakase_engine::audit::AuditPolicy;
use hakase_proto::job::{JobKind, JobSpec};
use hakase_runs::{self as run, LoadedRun, Store};

use super::run_args::RunArgs;

/// Re-check a finished run: verify its optimal tree and re-solve the runner-up's claim and
/// a reproducible share of the other claims, here, with the exact solver.
///
/// Exits non-zero when anything disagrees with what the run stored. A coordinator's run
/// resting on unchecked worker claims records the rows confirmed here (`--fraction 1`
/// confirms them all): `runs`, `chart` and the page then say what it rests on now.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("audited").args(["run"]).required(true)))]
pub struct Audit {
    /// The run to audit.
    #[command(flatten)]
    pub at: RunArgs,
    /// Share (0–1) of the claims re-solved besides the runner-up's (the same ones for the
    /// same run every time).
    #[arg(long, value_name = "F", default_value_t = AuditPolicy::DEFAULT_FRACTION)]
    pub fraction: f64,
}

impl Audit {
    /// Runs the audit.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        if !(0.0..=1.0).contains(&self.fraction) {
            bail!(
                "--fraction must be between 0 and 1 (a share of the claims), not {}",
                self.fraction
            );
        }
        let Some(spec) = self.at.spec() else {
            bail!("name the run to audit (--run R)");
        };
        let loaded = run::load(spec, &self.at.data_dir())?;
        let solution = loaded
            .solution
            .as_ref()
            .with_context(|| format!("run {spec} is not finished: nothing to audit"))?;
        let best = solution
            .best
            .context("the run proved that no strategy wins; there is no tree to check")?;
        let mut mismatches = Vec::new();
        let tree_ok = check_tree(&loaded, solution, &best, &mut mismatches);
        let policy = AuditPolicy::with_fraction(self.fraction);
        let tally = recheck_claims(&loaded, solution, &best, &policy, &mut mismatches);
        let Tally {
            covered,
            rerun,
            unchecked,
            confirmed: tally_confirmed,
        } = tally;
        writeln!(
            out,
            "audit of {}: tree of {} ({}) {}; {} re-solved (the runner-up's and {}% of the \
             rest), {covered} settled by the admissible bound, {unchecked} not re-solved",
            loaded.name,
            loaded.game.guess_text(best.guess),
            best.outcome.value(),
            if tree_ok { "verified" } else { "FAILED" },
            plural(rerun as u64, "claim", "claims"),
            self.fraction * 100.0
        )?;
        for m in &mismatches {
            writeln!(out, "mismatch: {m}")?;
        }
        if !mismatches.is_empty() {
            bail!(
                "run {} failed its audit: {} mismatches",
                loaded.name,
                mismatches.len()
            );
        }
        if !loaded.unchecked.is_empty() {
            confirm_rows(out, &loaded, &tally_confirmed)?;
        }
        Ok(())
    }
}

/// Records in the run that the rows of `confirmed` no longer rest on an unchecked worker
/// claim (re-solved here to what they claim, or settled by the admissible bound): every view
/// of the run then says what it rests on now, "proven optimal" once none is left.
fn confirm_rows(out: &mut dyn Write, loaded: &LoadedRun, confirmed: &[GuessId]) -> Result<()> {
    let manifest = &loaded.manifest;
    let store = Store::open_scoped(
        &loaded.path,
        &loaded.game,
        &manifest.config,
        &manifest.scope,
    )
    .with_context(|| format!("opening run {} to record the audit", loaded.name))?;
    let Some(mut summary) = store.audit()? else {
        return Ok(());
    };
    let taken = summary.confirm(confirmed);
    if taken == 0 {
        return Ok(());
    }
    store.put_audit(&summary)?;
    store.flush()?;
    let left = summary.unchecked_guesses.len();
    let now = match left {
        0 => "it rests on no unchecked worker claim now: proven".to_string(),
        n => format!(
            "{} still rest on unchecked worker claims",
            plural(n as u64, "row", "rows")
        ),
    };
    writeln!(
        out,
        "recorded in run {}: {} confirmed; {now}",
        loaded.name,
        plural(taken as u64, "row", "rows")
    )?;
    Ok(())
}

/// Plays the stored optimal tree over every answer (with the run's own table) and checks it
/// totals what the run says; a disagreement goes to `mismatches`.
fn check_tree(
    loaded: &LoadedRun,
    solution: &Solution,
    best: &FirstGuessValue,
    mismatches: &mut Vec<String>,
) -> bool {
    let (game, value) = (&loaded.game, best.outcome.value());
    let Some(tree) = &solution.tree else {
        mismatches.push("the run stores no optimal tree".to_string());
        return false;
    };
    let eval = tree.evaluate(game, &loaded.table, &game.all_answers());
    let ok = tree.guess == best.guess
        && eval.unsolved.is_empty()
        && eval.total == u64::from(value)
        && eval.worst <= solution.guesses_left;
    if !ok {
        mismatches.push(format!(
            "the tree totals {} (worst {}, {} unsolved, first guess {}); the run says {value} \
             from {}",
            eval.total,
            eval.worst,
            eval.unsolved.len(),
            game.guess_text(tree.guess),
            game.guess_text(best.guess)
        ));
    }
    ok
}

/// How the claims other than the best fared.
#[derive(Debug, Default)]
struct Tally {
    /// Settled by the admissible bound alone.
    covered: usize,
    /// Re-solved here.
    rerun: usize,
    /// Left out of the sample.
    unchecked: usize,
    /// The first guesses whose claim holds: re-solved to it, or settled by the bound.
    confirmed: Vec<GuessId>,
}

/// Re-solves the runner-up's claim and the sampled share of the others with the exact
/// solver; a claim the re-solve refutes goes to `mismatches`.
fn recheck_claims(
    loaded: &LoadedRun,
    solution: &Solution,
    best: &FirstGuessValue,
    policy: &AuditPolicy,
    mismatches: &mut Vec<String>,
) -> Tally {
    let (game, value) = (&loaded.game, best.outcome.value());
    let config = &solution.config;
    let solver = Solver::new(game, &loaded.table, config.clone(), 1 << 22);
    let root = solver.root(solution.guesses_left);
    let order = solver.guess_order(&root).guesses;
    let at = |g| order.iter().position(|b| b.guess == g);
    let best_at = at(best.guess).unwrap_or(usize::MAX);
    let seed = loaded.manifest.audit_seed();
    let mut tally = Tally::default();
    let mut decisive_done = false;
    for claim in solution.ranking.iter().filter(|v| v.guess != best.guess) {
        let Some(i) = at(claim.guess) else {
            mismatches.push(format!(
                "{} is ranked but is no first guess the search tries",
                game.guess_text(claim.guess)
            ));
            continue;
        };
        // The total this first guess had to reach for the best to stand (see the plan).
        let cutoff = if i < best_at { value + 1 } else { value };
        let claimed = claim.outcome.value();
        if claimed < cutoff {
            mismatches.push(format!(
                "{} is ranked at {claimed}, below the best {value}",
                game.guess_text(claim.guess)
            ));
            continue;
        }
        // A bound claim must hold to what it states (the stored ranking shows it), which
        // the admissible bound may already prove; an exact one to exactly its value.
        if !claim.outcome.is_exact() && order[i].lower >= claimed {
            tally.covered += 1;
            tally.confirmed.push(claim.guess);
            continue;
        }
        let spec = JobSpec {
            kind: JobKind::Guess(claim.guess),
            node: root.clone(),
        };
        let picked = !decisive_done || policy.sampled(&seed, spec.id(game.fingerprint(), config));
        decisive_done = true;
        if !picked {
            tally.unchecked += 1;
            continue;
        }
        tally.rerun += 1;
        let beta = match claim.outcome {
            Outcome::Exact { .. } => claimed + 1,
            Outcome::AtLeast(_) => claimed,
        };
        let found = solver.evaluate_guess(&root, claim.guess, beta.min(INFEASIBLE));
        match refutes(claim.outcome, found) {
            Some(why) => mismatches.push(format!("{}: {why}", game.guess_text(claim.guess))),
            None => tally.confirmed.push(claim.guess),
        }
    }
    tally
}

/// What is wrong with a stored claim, given a re-solve at the cutoff the claim implies (its
/// bound, or one above its exact value); `None` when the re-solve agrees.
fn refutes(claimed: Outcome, found: Outcome) -> Option<String> {
    match (claimed, found) {
        (Outcome::Exact { value, .. }, Outcome::Exact { value: got, .. }) if got != value => {
            Some(format!("the run says exactly {value}, re-solved to {got}"))
        }
        (Outcome::Exact { value, .. }, Outcome::AtLeast(_)) => Some(format!(
            "the run says exactly {value}, re-solved to more than {value}"
        )),
        (Outcome::AtLeast(bound), Outcome::Exact { value: got, .. }) if got < bound => Some(
            format!("the run claims at least {bound}, re-solved to {got}"),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_is_refuted_only_by_a_different_value() {
        let exact = |value| Outcome::Exact { value, guess: 1 };
        assert_eq!(refutes(exact(970), exact(970)), None);
        assert_eq!(
            refutes(exact(970), exact(968)).as_deref(),
            Some("the run says exactly 970, re-solved to 968")
        );
        assert_eq!(
            refutes(exact(970), Outcome::AtLeast(971)).as_deref(),
            Some("the run says exactly 970, re-solved to more than 970")
        );
        assert_eq!(refutes(Outcome::AtLeast(980), Outcome::AtLeast(980)), None);
        assert_eq!(refutes(Outcome::AtLeast(980), exact(985)), None);
        assert_eq!(
            refutes(Outcome::AtLeast(980), exact(975)).as_deref(),
            Some("the run claims at least 980, re-solved to 975")
        );
    }
}
