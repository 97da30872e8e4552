//! The audit's schedule: which claims are re-run and when (as they arrive, once displaced,
//! when the search ends), who re-runs them, and the verdict on each.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hakase_core::solver::{Outcome, SharedSolver};
use hakase_proto::job::{JobAnswer, JobId, JobSpec};

use super::{answers, Engine, Entry, State};
use crate::audit::{self, AuditPolicy, Reason, Recheck, Verdict, COORDINATOR};
use crate::error::ClusterError;
use crate::joblog::JobLine;
use crate::plan;

/// The cutoff a claim is re-run at: the value it states (a bound at its bound, an exact
/// value at that value), never below the cutoff it must hold to. A re-run at the cutoff
/// alone let an inflated bound ("≥ 971" where the truth is 970) stand in a proven ranking.
fn stated(cutoff: u32, claimed: Outcome) -> u32 {
    cutoff.max(claimed.value().min(hakase_core::solver::INFEASIBLE))
}

/// A re-run of `id`'s claim `claimed` at cutoff `beta`, waiting for a worker.
fn new_recheck(
    state: &State,
    id: JobId,
    spec: Arc<JobSpec>,
    beta: u32,
    claimed: Outcome,
    reason: Reason,
) -> Recheck {
    Recheck {
        spec,
        beta,
        claimed,
        claimant: state.claims.get(&id).copied(),
        reason,
        holder: None,
        queued: Instant::now(),
    }
}

/// Memo entries of the coordinator's re-run solver.
const AUDIT_MEMO: usize = 1 << 20;

impl Engine {
    /// Starts the re-run of a first-guess claim in the audit's sample as soon as the claim
    /// arrives, to overlap the rest of the search (the sample is a function of run and job
    /// only, so it is the same claim the final audit would pick). The cutoff is the first
    /// guess's cutoff at this moment; cutoffs only fall as the incumbent improves, so a
    /// confirmation now also holds for the final cutoff, and [`Engine::start_audit`] then
    /// finds the claim confirmed. The runner-up's claim is known only at the end; a claim
    /// that ranks before every claim re-run so far (as the ranking orders them: by value,
    /// exact first, then search order) is re-run now too, as the likely runner-up's. On
    /// pokemon-verbum the runner-up's re-run alone was the last 15 ms of a 0.5 s run.
    pub(super) fn audit_early(&self, state: &mut State, id: JobId) {
        let Some(policy) = self.params.audit else {
            return;
        };
        let Some((i, cutoff, outcome)) = self.needs_early_recheck(state, id) else {
            self.audit_early_part(state, policy, id);
            return;
        };
        if outcome.is_exact() && outcome.value() < cutoff {
            state.incumbent_claims.insert(id);
            return;
        }
        let rank = (outcome.value(), !outcome.is_exact(), i as usize);
        let leads = state.ahead_rank.is_none_or(|ahead| rank < ahead);
        if leads {
            state.ahead_rank = Some(rank);
        }
        let reason = if policy.sampled(self.store.audit_seed(), id) {
            Reason::Policy
        } else if leads && policy.decisive {
            Reason::Ahead
        } else {
            return;
        };
        Self::queue_recheck(state, id, cutoff, outcome, reason);
    }

    /// Starts the re-run of a part or slice claim in the audit's sample as soon as it
    /// arrives, at the value it states: the final audit would pick the same claim (the sample
    /// is a function of run and job only) at that value, and finds it confirmed. Without
    /// this the sampled re-runs of a one-guess run all came after its search: on qajaq's job
    /// log replayed on 32 workers, 97 % efficiency without them and 64–79 % with them at the
    /// end. A claim stating no more than its floor needs no re-run and gets none.
    fn audit_early_part(&self, state: &mut State, policy: AuditPolicy, id: JobId) {
        if state.auditing || state.rechecks.contains_key(&id) {
            return;
        }
        let Some(floor) = state.jobs.get(&id).and_then(|e| e.claim_floor) else {
            return;
        };
        let Some(outcome) = state.known.get(&id).copied() else {
            return;
        };
        let at = outcome.value();
        let confirmed = state.confirmed.get(&id).is_some_and(|&b| b >= at);
        if at <= floor || confirmed || !policy.sampled(self.store.audit_seed(), id) {
            return;
        }
        Self::queue_recheck(state, id, at, outcome, Reason::Policy);
    }

    /// Starts the sample re-run of each claim that was the incumbent when it arrived and has
    /// been displaced since (run after planning, which moves the cutoffs). Without this they
    /// were picked only by the final audit: on pokemon-verbum, first guess 1's re-run (59
    /// nodes) was then the last 21 ms of a 0.46 s run. A displaced claim never leads the
    /// ranking for an ahead re-run: the bound claims that settle at the new cutoff rank
    /// before it, and re-running every displaced incumbent as the likely runner-up's would
    /// cost more than the tail it saves.
    pub(super) fn audit_displaced(&self, state: &mut State) {
        let Some(policy) = self.params.audit else {
            return;
        };
        if state.incumbent_claims.is_empty() {
            return;
        }
        let claims: Vec<JobId> = state.incumbent_claims.iter().copied().collect();
        for id in claims {
            let Some((i, cutoff, outcome)) = self.needs_early_recheck(state, id) else {
                state.incumbent_claims.remove(&id);
                continue;
            };
            if state
                .planner
                .incumbent()
                .is_none_or(|(_, at)| at == i as usize)
            {
                continue;
            }
            state.incumbent_claims.remove(&id);
            if policy.sampled(self.store.audit_seed(), id) {
                Self::queue_recheck(state, id, cutoff, outcome, Reason::Policy);
            }
        }
    }

    /// The first-guess index, cutoff and claim of `id` when its claim settles a first guess
    /// that nothing else covers (no re-run yet, no admissible bound reaching the cutoff, no
    /// confirmation for it), and the audit has not begun; `None` otherwise.
    fn needs_early_recheck(&self, state: &State, id: JobId) -> Option<(u32, u32, Outcome)> {
        if state.auditing || state.rechecks.contains_key(&id) {
            return None;
        }
        let (entry, outcome) = (state.jobs.get(&id)?, *state.known.get(&id)?);
        let i = entry.first?;
        let cutoff = state.planner.cutoff(i as usize);
        let settled = answers(Some(&outcome), cutoff);
        let covered = state.planner.lower(i as usize) >= cutoff;
        let confirmed = state.confirmed.get(&id).is_some_and(|&b| b >= cutoff);
        (settled && !covered && !confirmed).then_some((i, cutoff, outcome))
    }

    /// Queues the re-run of `id`'s claim against `cutoff`.
    fn queue_recheck(state: &mut State, id: JobId, cutoff: u32, claimed: Outcome, reason: Reason) {
        let Some(entry) = state.jobs.get(&id) else {
            return;
        };
        let recheck = new_recheck(
            state,
            id,
            entry.spec.clone(),
            stated(cutoff, claimed),
            claimed,
            reason,
        );
        state.rechecks.insert(id, recheck);
    }

    /// Picks the claims to re-run before a finished search is declared: of the claims that
    /// settled a first guess its admissible bound could not, the runner-up's (it decides
    /// the result) and those in the sample. True when there is nothing left to re-run.
    pub(super) fn start_audit(&self, state: &mut State, policy: AuditPolicy) -> bool {
        if !state.auditing {
            state.auditing = true;
            // Early re-runs not handed out yet are picked again below with the final cutoffs;
            // those being solved are waited for.
            state.rechecks.retain(|_, r| r.holder.is_some());
            let run = self.store.audit_seed();
            let needed = Self::claims_to_check(state);
            // The first claim of a guess other than the best is the runner-up's. Its claims,
            // and those the best's parts rest on, decide the result. Ties with the runner-up
            // are not all decisive: honest claims mostly sit exactly at their cutoff, so
            // "tied" would be nearly every claim.
            let best = state.planner.incumbent().map(|(_, at)| at);
            let runner_up = needed
                .iter()
                .map(|(claim, _)| claim.first)
                .find(|&i| Some(i) != best);
            for (claim, outcome) in needed {
                let decisive = policy.decisive
                    && (Some(claim.first) == runner_up || Some(claim.first) == best);
                Self::audit_claim(state, policy, run, claim, outcome, decisive);
            }
            self.check_best_lower_side(state, policy);
            state.audit.unchecked_guesses.sort_unstable();
            state.audit.unchecked_guesses.dedup();
            if !state.rechecks.is_empty() {
                tracing::info!(
                    rechecks = state.rechecks.len(),
                    "search finished; re-running claims before declaring the result"
                );
            }
            if state.rechecks.values().any(|r| r.holder.is_none()) {
                self.nudge();
            }
        }
        state.rechecks.is_empty()
    }

    /// The claims the final audit must consider, in the ranking's order (first claims come
    /// in search order), with what each states; counts those the admissible bound covers.
    fn claims_to_check(state: &mut State) -> Vec<(plan::FirstClaim, Outcome)> {
        let mut needed = Vec::new();
        state.audit.unchecked = 0;
        state.audit.unchecked_guesses.clear();
        state.audit.covered_by_bound = state.planner.pruned_unopened() as u64;
        for claim in state.planner.first_claims() {
            // A claim the admissible bound covers still needs a check when the row prints
            // more than that bound proves (an inflated "≥ 990" over a bound of 970).
            match state.known.get(&claim.id) {
                Some(outcome) if claim.lower < claim.cutoff || outcome.value() > claim.lower => {
                    needed.push((claim, *outcome))
                }
                _ => state.audit.covered_by_bound += 1,
            }
        }
        // Part jobs (`--split-first`): every bound a settled first guess rests on.
        for claim in state.planner.part_claims(&state.known) {
            if let Some(outcome) = state.known.get(&claim.id) {
                needed.push((claim, *outcome));
            }
        }
        let rank = |c: &plan::FirstClaim| state.planner.first_rank(c.first);
        needed.sort_by_key(|(claim, _)| rank(claim));
        needed
    }

    /// Decides the final audit's re-run of one claim: none when an early re-run confirmed
    /// it (or one is running), else at the value it states when `decisive` or sampled;
    /// a claim neither decisive nor sampled stays unchecked.
    fn audit_claim(
        state: &mut State,
        policy: AuditPolicy,
        run: &str,
        claim: plan::FirstClaim,
        outcome: Outcome,
        decisive: bool,
    ) {
        // A confirmation counts only at the value the row prints.
        let at = stated(claim.cutoff, outcome);
        if state.confirmed.get(&claim.id).is_some_and(|&b| b >= at) {
            // Confirmed early, in the sample or ahead: that re-run is the decisive one.
            if decisive {
                Self::count_as_decisive(state, claim.id);
            }
            return;
        }
        if let Some(running) = state.rechecks.get_mut(&claim.id) {
            if decisive {
                running.reason = Reason::Decisive;
            }
            return;
        }
        let (beta, reason) = if decisive {
            (at, Reason::Decisive)
        } else if policy.sampled(run, claim.id) {
            (at, Reason::Policy)
        } else {
            state.audit.unchecked += 1;
            if let Some(guess) = state.planner.guess_at(claim.first) {
                state.audit.unchecked_guesses.push(guess);
            }
            // A claim stating more than its first guess had to reach ranks last, so it is
            // never the runner-up's, yet a false one ("≥ 1245" on the true best) alone may
            // hide the best. Re-run at the cutoff, which is cheap and decides the result;
            // the row's own value stays unchecked. Trusted workers' claims are not.
            if outcome.value() <= claim.cutoff || !policy.decisive {
                return;
            }
            (claim.cutoff, Reason::Decisive)
        };
        let recheck = new_recheck(state, claim.id, claim.spec, beta, outcome, reason);
        state.rechecks.insert(claim.id, recheck);
    }

    /// Counts an early re-run of a decisive claim (made for the sample or as the likely
    /// runner-up's) as the decisive re-run it turned out to be.
    fn count_as_decisive(state: &mut State, id: JobId) {
        if state.ahead.remove(&id) {
            state.audit.rerun_ahead -= 1;
            state.audit.rerun_decisive += 1;
        } else if state.audit.rerun_policy > 0 {
            state.audit.rerun_policy -= 1;
            state.audit.rerun_decisive += 1;
        }
    }

    /// Queues the re-run of the best first guess's exact claim at its value: its tree
    /// proves only that the value is reached, and a worker that sent a valid but
    /// suboptimal tree for the true optimum would otherwise change the result unseen.
    /// Trusted workers' claim is named unchecked instead (unless the sample re-runs it).
    fn check_best_lower_side(&self, state: &mut State, policy: AuditPolicy) {
        let Some((value, at)) = state.planner.incumbent() else {
            return;
        };
        let Some((id, spec)) = state.planner.whole_job(at) else {
            return;
        };
        let Some(outcome) = state.known.get(&id).copied() else {
            return;
        };
        let confirmed = state.confirmed.get(&id).is_some_and(|&b| b >= value);
        let lower_covers = state.planner.lower(at) >= value;
        if confirmed || lower_covers {
            return;
        }
        if !policy.decisive {
            if !state.rechecks.contains_key(&id) {
                state.audit.unchecked += 1;
                if let Some(guess) = state.planner.guess_at(at) {
                    state.audit.unchecked_guesses.push(guess);
                }
            }
            return;
        }
        if let Some(running) = state.rechecks.get_mut(&id) {
            running.reason = Reason::Decisive;
            running.beta = running.beta.max(value);
            return;
        }
        let recheck = new_recheck(state, id, spec, value, outcome, Reason::Decisive);
        state.rechecks.insert(id, recheck);
    }

    /// A claim no live worker but its claimant could re-run: the coordinator takes it.
    pub(super) fn recheck_for_coordinator(
        &self,
        state: &mut State,
    ) -> Option<(JobId, Arc<JobSpec>, u32)> {
        let now = Instant::now();
        let live = self.live_since();
        let others = |claimant: Option<u64>| {
            state.workers.iter().any(|(id, w)| {
                w.seen >= live && Some(*id) != claimant && !state.quarantined.contains(id)
            })
        };
        let waited_too_long = |r: &Recheck| now.duration_since(r.queued) >= self.params.lease;
        let (id, spec, beta) = state
            .rechecks
            .iter()
            .filter(|(_, r)| r.holder.is_none_or(|(_, until)| until <= now))
            .find(|(_, r)| waited_too_long(r) || !others(r.claimant))
            .map(|(id, r)| (*id, r.spec.clone(), r.beta))?;
        if let Some(r) = state.rechecks.get_mut(&id) {
            r.holder = Some((COORDINATOR, now + Duration::from_secs(86_400)));
        }
        Some((id, spec, beta))
    }

    /// Re-runs one claim on the coordinator itself (outside the state lock).
    pub(super) fn recheck_here(&self, id: JobId, spec: &JobSpec, beta: u32) {
        let solver = self.audit_solver.get_or_init(|| {
            SharedSolver::new(Arc::clone(&self.tables), self.config.clone(), AUDIT_MEMO)
        });
        let answer = hakase_worker::solve_job(solver.solver(), spec, beta);
        if let Err(err) = self.judge(COORDINATOR, id, answer) {
            tracing::error!(%err, "recording the coordinator's re-run");
        }
    }

    /// Takes the re-run of a claim: confirms it, or quarantines the worker that made it.
    pub(super) fn judge(
        &self,
        worker: u64,
        id: JobId,
        answer: JobAnswer,
    ) -> Result<bool, ClusterError> {
        let mut state = self.lock();
        let Some(recheck) = state.rechecks.remove(&id) else {
            return Ok(false);
        };
        let on_coordinator = worker == COORDINATOR;
        if let Some(log) = &self.job_log {
            let first = state.jobs.get(&id).and_then(Entry::search_index);
            let mut line = JobLine::new(
                self.started.elapsed().as_millis() as u64,
                worker,
                &recheck.spec,
                first,
                &answer,
                self.game().answers().len(),
            );
            line.recheck = true;
            log.write(&line);
        }
        match audit::verdict(recheck.beta, recheck.claimed, answer.outcome) {
            Verdict::Confirmed => {
                tracing::debug!(job = %id, beta = recheck.beta, "claim confirmed by a re-run");
                state.confirmed.insert(id, recheck.beta);
                match recheck.reason {
                    Reason::Decisive => state.audit.rerun_decisive += 1,
                    Reason::Policy => state.audit.rerun_policy += 1,
                    Reason::Ahead => {
                        state.audit.rerun_ahead += 1;
                        state.ahead.insert(id);
                    }
                }
                state.audit.rerun_on_coordinator += u64::from(on_coordinator);
            }
            Verdict::Refuted(value) => {
                let why = format!(
                    "claimed {:?} for job {id}; a re-run found a verified total of {value}",
                    recheck.claimed
                );
                // The re-run's result (with its verified tree) replaces the false claim.
                self.store.put_result(id, &answer)?;
                self.store.put_claim(id, worker)?;
                state.known.insert(id, answer.outcome);
                state.claims.insert(id, worker);
                match recheck.claimant {
                    Some(liar) => self.quarantine(&mut state, liar, &why),
                    None => {
                        tracing::warn!(%why, "a claim of unknown origin was false");
                        self.restart_search(&mut state);
                    }
                }
            }
        }
        state.dirty = true;
        self.wake.notify_all();
        Ok(true)
    }
}
