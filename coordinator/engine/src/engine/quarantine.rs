//! A worker caught lying: refused from then on, its results redone by others.

use std::sync::Arc;

use hakase_proto::job::JobId;

use super::{Engine, JobState, State};
use crate::audit::COORDINATOR;
use crate::plan::Planner;
use hakase_runs::QuarantineRecord;

impl Engine {
    /// Quarantines an authenticated worker whose report cannot be decoded: an honest worker
    /// of this protocol never sends one, and one that does must not keep its leases or go
    /// on reporting (a forged tree that fails to decode is as much a lie as one that does).
    pub fn refuse_malformed(&self, worker: u64, why: &str) {
        let mut state = self.lock();
        state.counters.rejected += 1;
        self.quarantine(
            &mut state,
            worker,
            &format!("sent a malformed result: {why}"),
        );
    }

    /// Refuses `worker` from now on (and its per-worker token), forgets every result it
    /// made so that others redo them, and plans the search again from what is left.
    pub(super) fn quarantine(&self, state: &mut State, worker: u64, why: &str) {
        state.audit.lies_caught += 1;
        if worker == COORDINATOR || !state.quarantined.insert(worker) {
            return;
        }
        let token = state
            .workers
            .get(&worker)
            .and_then(|w| w.token.clone())
            .filter(|t| t != "shared");
        let record = QuarantineRecord {
            worker,
            token: token.clone(),
            why: why.to_string(),
        };
        if let Err(err) = self.store.put_quarantine(&record) {
            tracing::error!(%err, "recording a quarantine");
        }
        state.quarantined_tokens.extend(token);
        state.audit.quarantined.push(worker);
        let forged: Vec<JobId> = state
            .claims
            .iter()
            .filter(|(_, w)| **w == worker)
            .map(|(id, _)| *id)
            .collect();
        tracing::warn!(
            worker,
            %why,
            results = forged.len(),
            "worker quarantined; its results are redone by others"
        );
        for id in &forged {
            state.claims.remove(id);
            state.known.remove(id);
            state.confirmed.remove(id);
            if state.ahead.remove(id) {
                state.audit.rerun_ahead -= 1;
            }
            if let Err(err) = self.store.remove_result(*id) {
                tracing::error!(%err, "forgetting a quarantined result");
            }
        }
        for recheck in state.rechecks.values_mut() {
            if recheck.holder.is_some_and(|(w, _)| w == worker) {
                recheck.holder = None;
            }
        }
        // Its leases go back to the queue now, not when they run out.
        for entry in state.jobs.values_mut() {
            entry.leased_to.retain(|&w| w != worker);
            if matches!(entry.state, JobState::Leased { holder: Some(h), .. } if h == worker) {
                entry.state = JobState::Idle;
            }
        }
        self.restart_search(state);
    }

    /// Plans the search again from the results known now (after some were forgotten).
    pub(super) fn restart_search(&self, state: &mut State) {
        state.planner = Planner::new(
            Arc::clone(&self.tables),
            self.config.clone(),
            self.params.plan,
            self.listed(),
        );
        state.rechecks.clear();
        state.auditing = false;
        state.ahead_rank = None;
        state.incumbent_claims.clear();
        for entry in state.jobs.values_mut() {
            if matches!(entry.state, JobState::Queued { .. }) {
                entry.state = JobState::Idle;
            }
        }
        state.queue.clear();
        state.dirty = true;
        self.wake.notify_all();
    }
}
