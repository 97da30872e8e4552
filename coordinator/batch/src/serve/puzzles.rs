//! The Puzzles service of a batch: days leased to workers, and their claims taken in three
//! steps — read under the lock, checked off the async threads, settled under the lock again.

use std::time::Instant;

use hakase_core::puzzle::{Kind, Puzzle, Slot};
use hakase_proto::v1::puzzles_server::Puzzles;
use hakase_proto::v1::{
    PuzzleCompleteReply, PuzzleCompleteRequest, PuzzleJob, PuzzleLeaseReply, PuzzleLeaseRequest,
    PuzzleResult,
};
use hakase_proto::MAX_LEASE;
use hakase_serving::token_name;
use tonic::{Request, Response, Status};

use super::ids::{job_id, read_id};
use super::service::Service;
use super::state::State;
use crate::files::Claim;

/// A claim the batch still waits for: its slot, the claim, and the worker's milliseconds.
type Waited = (Slot, Claim, u64);

#[tonic::async_trait]
impl Puzzles for Service {
    async fn lease(
        &self,
        request: Request<PuzzleLeaseRequest>,
    ) -> Result<Response<PuzzleLeaseReply>, Status> {
        let token = token_name(&request);
        let request = request.into_inner();
        self.check_game(&request.fingerprint)?;
        if request.max_jobs == 0 || request.max_jobs > MAX_LEASE {
            return Err(Status::invalid_argument(format!(
                "max_jobs must be between 1 and {MAX_LEASE}"
            )));
        }
        let mut state = self.lock()?;
        self.check_trusted(&state, request.worker_id, token.as_deref())?;
        let worker = request.worker_id;
        state.live.insert(worker);
        if state.run.order.is_done() {
            state.told.insert(worker);
            return Ok(Response::new(PuzzleLeaseReply {
                finished: true,
                ..PuzzleLeaseReply::default()
            }));
        }
        let jobs = self.lease_days(&mut state, worker, request.max_jobs as usize);
        Ok(Response::new(PuzzleLeaseReply {
            retry_ms: if jobs.is_empty() { 50 } else { 0 },
            jobs,
            finished: false,
        }))
    }

    async fn complete(
        &self,
        request: Request<PuzzleCompleteRequest>,
    ) -> Result<Response<PuzzleCompleteReply>, Status> {
        let token = token_name(&request);
        let request = request.into_inner();
        self.check_game(&request.fingerprint)?;
        if request.results.len() > MAX_LEASE as usize {
            return Err(Status::invalid_argument(format!(
                "more than {MAX_LEASE} results in one report"
            )));
        }
        let worker = request.worker_id;
        let (taken, claims) = self.read_claims(worker, token.as_deref(), &request.results)?;
        // Check the claims off the async threads (re-making a day is solver work).
        let checker = self.clone();
        let (claims, verdicts) = tokio::task::spawn_blocking(move || {
            let verdicts: Vec<Result<bool, String>> = claims
                .iter()
                .map(|(slot, c, _)| checker.verify(slot, c.attempt, &c.puzzle))
                .collect();
            (claims, verdicts)
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))?;
        if let Some(why) = verdicts.iter().find_map(|v| v.as_ref().err()) {
            return Err(self.refuse(worker, token, why));
        }
        self.settle(claims, verdicts)?;
        Ok(Response::new(PuzzleCompleteReply { taken }))
    }
}

impl Service {
    /// Leases up to `max` wanted days no live lease holds to `worker`.
    fn lease_days(&self, state: &mut State, worker: u64, max: usize) -> Vec<PuzzleJob> {
        let now = Instant::now();
        let State { run, leases, .. } = state;
        leases.retain(|_, (_, until)| *until > now);
        let wanted: Vec<(Slot, u32)> = run
            .order
            .wanted()
            .filter(|(slot, attempt)| !leases.contains_key(&(slot.day, *attempt)))
            .take(max)
            .collect();
        wanted
            .into_iter()
            .map(|(slot, attempt)| {
                leases.insert((slot.day, attempt), (worker, now + self.0.lease));
                PuzzleJob {
                    id: job_id(slot.day, attempt),
                    day: slot.day as u32,
                    attempt,
                    level: slot.level.name().to_string(),
                    kind: slot.kind.name().to_string(),
                    seed: self.0.seed,
                }
            })
            .collect()
    }

    /// Reads every result of a report: whether its day is in the batch (the reply's
    /// `taken`), and the claims the batch still waits for. A puzzle that does not read
    /// refuses the worker.
    fn read_claims(
        &self,
        worker: u64,
        token: Option<&str>,
        results: &[PuzzleResult],
    ) -> Result<(Vec<bool>, Vec<Waited>), Status> {
        let mut taken = Vec::with_capacity(results.len());
        let mut claims = Vec::new();
        let state = self.lock()?;
        self.check_trusted(&state, worker, token)?;
        for result in results {
            let (day, attempt) = read_id(&result.job_id)
                .ok_or_else(|| Status::invalid_argument("job_id must be 16 bytes"))?;
            taken.push((1..=state.run.count()).contains(&day));
            let waited = state.run.order.waiting(day);
            let Some((slot, _)) = waited.filter(|&(_, a)| a == attempt) else {
                continue;
            };
            let puzzle = match result.found {
                true => serde_json::from_str::<Puzzle>(&result.puzzle_json).map(Some),
                false => Ok(None),
            };
            let puzzle = match puzzle {
                Ok(puzzle) => puzzle,
                Err(e) => {
                    drop(state);
                    let why = format!("day {day}: {e}");
                    return Err(self.refuse(worker, token.map(str::to_string), &why));
                }
            };
            let claim = Claim {
                day,
                attempt,
                puzzle,
            };
            claims.push((slot, claim, result.millis));
        }
        Ok((taken, claims))
    }

    /// Keeps the checked claims no other worker settled meanwhile: synced to the claims
    /// file first, then offered to the batch in day order.
    fn settle(
        &self,
        claims: Vec<Waited>,
        verdicts: Vec<Result<bool, String>>,
    ) -> Result<(), Status> {
        let mut state = self.lock()?;
        let fresh: Vec<(Slot, Claim, u64, bool)> = claims
            .into_iter()
            .zip(verdicts)
            .filter(|((_, c, _), _)| {
                state.run.order.waiting(c.day).map(|(_, a)| a) == Some(c.attempt)
            })
            .map(|((slot, c, ms), remade)| (slot, c, ms, remade.unwrap_or(false)))
            .collect();
        let kept: Vec<Claim> = fresh.iter().map(|(_, c, _, _)| c.clone()).collect();
        if !kept.is_empty() {
            state
                .run
                .dir
                .append_claims(&kept)
                .map_err(|e| Status::internal(hakase_serving::chain(&e)))?;
        }
        for (slot, claim, ms, remade) in fresh {
            let checked = &mut state.checked;
            match (&claim.puzzle, slot.kind) {
                (None, _) => checked.not_found_remade += 1,
                (Some(_), Kind::Deduction) => checked.deductions_remade += 1,
                (Some(_), Kind::BestMove) => {
                    checked.best_moves += 1;
                    checked.best_moves_remade += u64::from(remade);
                }
            }
            state.leases.remove(&(claim.day, claim.attempt));
            state
                .run
                .made(&slot, claim.attempt, claim.puzzle, Some(ms as f64))
                .map_err(|e| Status::internal(hakase_serving::chain(&e)))?;
        }
        if state.run.order.is_done() {
            let _ = self.0.done.send(true);
        }
        Ok(())
    }
}
