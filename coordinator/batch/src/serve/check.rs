//! Checking a worker's claim, and refusing the worker whose claim did not check.

use hakase_core::puzzle::{claim, Generator, Kind, Puzzle, Slot};
use hakase_proto::job::JobId;
use tonic::Status;

use super::ids::job_id;
use super::service::Service;

impl Service {
    /// Checks one claim: its rows always, and by making the day again when the policy says.
    /// True when it was made again.
    pub fn verify(&self, slot: &Slot, attempt: u32, made: &Option<Puzzle>) -> Result<bool, String> {
        let shared = &self.0;
        if let Some(puzzle) = made {
            claim::check(&shared.tables.game, &shared.tables.table, slot, puzzle)
                .map_err(|e| e.to_string())?;
        }
        let id = JobId(u128::from_be_bytes(
            job_id(slot.day, attempt)
                .try_into()
                .map_err(|_| "bad id".to_string())?,
        ));
        let remake = made.is_none()
            || slot.kind == Kind::Deduction
            || shared.policy.sampled(&shared.audit_seed, id);
        if remake
            && Generator::new(&shared.tables.game, &shared.tables.table).generate(
                slot,
                shared.seed,
                attempt,
            ) != *made
        {
            return Err(format!(
                "day {} attempt {attempt} made again here gives another result",
                slot.day
            ));
        }
        Ok(remake)
    }

    /// Refuses `worker` (and its own token) after a claim that did not check, and frees its
    /// leases for others.
    pub fn refuse(&self, worker: u64, token: Option<String>, why: &str) -> Status {
        tracing::error!(worker, %why, "a puzzle claim did not check; refusing the worker");
        if let Ok(mut state) = self.0.state.lock() {
            state.refused.insert(worker);
            state.live.remove(&worker);
            if let Some(token) = token.filter(|t| t != "shared") {
                state.refused_tokens.insert(token);
            }
            state.leases.retain(|_, (holder, _)| *holder != worker);
            state.checked.refused.push(worker);
        }
        Status::permission_denied(format!("worker {worker} is refused: {why}"))
    }
}
