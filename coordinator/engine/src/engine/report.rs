//! Taking a worker's result: checked against its job, on disk before it counts, and what a
//! new claim sets off (the incumbent told, an early re-run).

use std::sync::Arc;

use hakase_core::solver::Outcome;
use hakase_proto::job::{JobAnswer, JobId, JobKind, JobSpec};

use super::{answers, stronger, Engine, Entry, JobState, State};
use crate::error::ClusterError;
use crate::joblog::JobLine;
use hakase_runs::{JobStatus, StoredState};

/// The job a result answers, as found under the lock.
struct Answered {
    spec: Arc<JobSpec>,
    /// What was known of the job before this result.
    previous: Option<Outcome>,
    /// The result is the re-run of a claim the sender was handed.
    recheck: bool,
    /// The sender does not hold the job: its result is not taken (but still checked).
    not_held: bool,
}

impl Engine {
    /// Takes a worker's result: checks it against the job, stores it if it adds anything and,
    /// when `durable`, returns only once it is on disk (remote workers are acknowledged only
    /// then; callers that batch results sync once per batch). Ok(false) for a duplicate.
    pub fn complete(
        &self,
        worker: u64,
        id: JobId,
        answer: JobAnswer,
        durable: bool,
    ) -> Result<bool, ClusterError> {
        self.check_storage()?;
        let Answered {
            spec,
            previous,
            recheck,
            not_held,
        } = self.answered(worker, id)?;
        if let Err(err) = self.check(&spec, &answer) {
            let mut state = self.lock();
            state.counters.rejected += 1;
            self.quarantine(&mut state, worker, &err.to_string());
            return Err(err);
        }
        if not_held {
            return Err(ClusterError::NotHeld(id.to_string()));
        }
        if recheck {
            return self.judge(worker, id, answer);
        }
        let new = stronger(answer.outcome, previous);
        self.store_result(worker, id, &answer, new, durable)?;
        let mut state = self.lock();
        if state.quarantined.contains(&worker) {
            // Caught meanwhile (its re-run or another result): this one is not taken either.
            drop(state);
            if new {
                self.store.remove_result(id)?;
            }
            return Err(ClusterError::Quarantined(worker));
        }
        self.count_result(&mut state, worker, id, &spec, &answer);
        let liar = Self::liar(&state, worker, id, answer.outcome, previous);
        let rechecks_before = state.rechecks.len();
        if new {
            self.take_claim(&mut state, worker, id, answer.outcome);
        } else {
            state.counters.duplicate_completions += 1;
        }
        if let Some(liar) = liar {
            let why = format!(
                "claimed a bound for job {id} that a verified exact value contradicts \
                 ({previous:?} against {:?})",
                answer.outcome
            );
            state.counters.rejected += 1;
            self.quarantine(&mut state, liar, &why);
            if liar == worker {
                return Err(ClusterError::Quarantined(worker));
            }
        }
        Self::unqueue_if_answered(&mut state, id);
        // The planning loop is woken only when it would act now: it plans at most every
        // `REPLAN_EVERY` once the state is dirty, so waking it for every result (13,600 on
        // Wordle, two futex calls and a context switch each) only put it back to sleep.
        let wake =
            !state.dirty || self.short_of_jobs(&state) || state.rechecks.len() > rechecks_before;
        state.dirty = true;
        if wake {
            self.wake.notify_all();
        }
        Ok(new)
    }

    /// Finds the job `worker` reports on: a re-run it was handed, or a job it leased (its
    /// lease is then used up).
    fn answered(&self, worker: u64, id: JobId) -> Result<Answered, ClusterError> {
        let mut state = self.lock();
        if state.quarantined.contains(&worker) {
            return Err(ClusterError::Quarantined(worker));
        }
        if !Self::activate(&mut state, worker) {
            return Err(ClusterError::UnknownWorker(worker));
        }
        let recheck = state
            .rechecks
            .get(&id)
            .filter(|r| r.holder.is_some_and(|(w, _)| w == worker))
            .map(|r| r.spec.clone());
        let mut not_held = false;
        let spec = match recheck.clone() {
            Some(spec) => spec,
            None => {
                let entry = state
                    .jobs
                    .get_mut(&id)
                    .ok_or_else(|| ClusterError::UnknownJob(id.to_string()))?;
                // Only a worker that leased the job may report it, once per lease (a
                // lease restored from disk names no holder: any registered worker).
                let restored = matches!(entry.state, JobState::Leased { holder: None, .. });
                match entry.leased_to.iter().position(|&w| w == worker) {
                    Some(k) => {
                        entry.leased_to.swap_remove(k);
                    }
                    None if restored => {}
                    // Not taken, but a forged tree still quarantines its sender.
                    None => not_held = true,
                }
                entry.spec.clone()
            }
        };
        Ok(Answered {
            spec,
            previous: state.known.get(&id).copied(),
            recheck: recheck.is_some(),
            not_held,
        })
    }

    /// Whoever lied when `worker`'s verified result `outcome` for job `id` contradicts what
    /// was known (`previous`): a verified exact value below a bound claimed for the same job
    /// proves the bound false, and a bound above a verified exact value is false.
    fn liar(
        state: &State,
        worker: u64,
        id: JobId,
        outcome: Outcome,
        previous: Option<Outcome>,
    ) -> Option<u64> {
        match (outcome, previous) {
            (Outcome::Exact { value, .. }, Some(Outcome::AtLeast(bound))) if value < bound => {
                state.claims.get(&id).copied()
            }
            (Outcome::AtLeast(bound), Some(Outcome::Exact { value, .. })) if bound > value => {
                Some(worker)
            }
            _ => None,
        }
    }

    /// Stores a checked result (its claim too when it is `new`) and the job's status, synced
    /// when `durable`.
    fn store_result(
        &self,
        worker: u64,
        id: JobId,
        answer: &JobAnswer,
        new: bool,
        durable: bool,
    ) -> Result<(), ClusterError> {
        if new {
            self.store.put_result(id, answer)?;
            self.store.put_claim(id, worker)?;
        }
        // The job stays leased until its result is durable and known: a replan in between
        // must not hand it out again.
        let completions = self.lock().jobs.get(&id).map_or(1, |e| e.completions + 1);
        self.store.put_status(
            id,
            JobStatus {
                state: StoredState::Done,
                completions,
            },
        )?;
        if durable {
            self.store.sync()?;
        }
        Ok(())
    }

    /// Counts a taken result (the run's counters, the worker's, the job log) and lets its
    /// job go idle.
    fn count_result(
        &self,
        state: &mut State,
        worker: u64,
        id: JobId,
        spec: &JobSpec,
        answer: &JobAnswer,
    ) {
        state.counters.completions += 1;
        if let Some(w) = state.workers.get_mut(&worker) {
            w.done += 1;
        }
        state.audit.exact_verified += u64::from(answer.outcome.is_exact());
        state.counters.nodes += answer.nodes;
        state.counters.job_millis += answer.millis;
        state.counters.longest_job_millis = state.counters.longest_job_millis.max(answer.millis);
        if let Some(log) = &self.job_log {
            let first = state.jobs.get(&id).and_then(Entry::search_index);
            log.write(&JobLine::new(
                self.started.elapsed().as_millis() as u64,
                worker,
                spec,
                first,
                answer,
                self.game().answers().len(),
            ));
        }
        if let Some(entry) = state.jobs.get_mut(&id) {
            entry.completions += 1;
            if let JobState::Leased { beta, .. } = entry.state {
                if matches!(answer.outcome, Outcome::AtLeast(b) if b < beta) {
                    entry.untightened = true;
                }
                entry.state = JobState::Idle;
            }
        }
    }

    /// Records a result that adds to what is known of job `id` as `worker`'s claim, tells an
    /// exact first-guess total at once, and starts its early re-run if the audit wants one.
    fn take_claim(&self, state: &mut State, worker: u64, id: JobId, outcome: Outcome) {
        let merged = match (outcome, state.known.get(&id)) {
            (o, old) if stronger(o, old.copied()) => o,
            (_, Some(old)) => *old,
            (o, None) => o,
        };
        state.known.insert(id, merged);
        state.claims.insert(id, worker);
        // Its tree was checked above, so the total is reached: a sound cutoff at once.
        if let (Outcome::Exact { value, .. }, Some(i)) =
            (outcome, state.jobs.get(&id).and_then(|e| e.first))
        {
            self.tell(value, i);
        }
        self.audit_early(state, id);
    }

    /// A result can arrive for a job queued again meanwhile (after a lease expiry or a
    /// coordinator restart): if it answers that request, the job leaves the queue.
    fn unqueue_if_answered(state: &mut State, id: JobId) {
        let known = state.known.get(&id).copied();
        if let Some(entry) = state.jobs.get_mut(&id) {
            if let JobState::Queued { beta } = entry.state {
                if answers(known.as_ref(), beta) {
                    entry.state = JobState::Idle;
                }
            }
        }
    }

    /// Refuses results that contradict their job: an exact value must come with a tree that
    /// reaches it over the job's candidates within its guesses.
    fn check(&self, spec: &JobSpec, answer: &JobAnswer) -> Result<(), ClusterError> {
        let Outcome::Exact { value, guess } = answer.outcome else {
            return Ok(());
        };
        let tree = answer
            .tree
            .as_ref()
            .ok_or_else(|| ClusterError::BadResult("exact result without a tree".into()))?;
        match spec.kind {
            JobKind::Guess(g) if guess != g || tree.guess != g => {
                return Err(ClusterError::BadResult(
                    "tree does not start with the job's guess".into(),
                ));
            }
            JobKind::Node | JobKind::Slice { .. } if tree.guess != guess => {
                return Err(ClusterError::BadResult(
                    "tree does not start with the guess the result names".into(),
                ));
            }
            _ => {}
        }
        let eval = tree.evaluate(self.game(), self.table(), &spec.node.candidates);
        if !eval.unsolved.is_empty()
            || eval.total != u64::from(value)
            || eval.worst > spec.node.guesses_left
        {
            return Err(ClusterError::BadResult(format!(
                "tree totals {} (worst {}, {} unsolved), result says {value}",
                eval.total,
                eval.worst,
                eval.unsolved.len()
            )));
        }
        Ok(())
    }
}
