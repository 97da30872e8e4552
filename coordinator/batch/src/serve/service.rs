//! The batch's services: [`Service`] and its Cluster half (register and heartbeat; a batch
//! has no search jobs, so the rest is refused). The Puzzles half is in `puzzles`.

use std::sync::{Arc, MutexGuard};
use std::time::Instant;

use hakase_engine::server::IncumbentStream;
use hakase_proto::v1::cluster_server::Cluster;
use hakase_proto::v1::{
    CompleteReply, CompleteRequest, HeartbeatReply, HeartbeatRequest, LeaseReply, LeaseRequest,
    RegisterReply, RegisterRequest, WatchIncumbentRequest,
};
use hakase_proto::MAX_LEASE;
use hakase_serving::{check_worker_name, token_name};
use tonic::{Request, Response, Status};

use super::ids::read_id;
use super::state::{Shared, State};

/// The Cluster and Puzzles services of one batch.
#[derive(Clone)]
pub struct Service(pub Arc<Shared>);

impl Service {
    /// The batch state, or an internal error once a panic poisoned it.
    pub fn lock(&self) -> Result<MutexGuard<'_, State>, Status> {
        self.0
            .state
            .lock()
            .map_err(|_| Status::internal("the batch state is poisoned"))
    }

    /// Refuses a worker of another game.
    pub fn check_game(&self, fingerprint: &str) -> Result<(), Status> {
        if fingerprint == self.0.tables.game.fingerprint() {
            return Ok(());
        }
        Err(Status::failed_precondition(format!(
            "this worker plays game fingerprint {fingerprint:?}; the batch is {} (fingerprint {})",
            self.0.tables.game.name(),
            self.0.tables.game.fingerprint()
        )))
    }

    /// Refuses a worker (or a token) refused for a claim that did not check.
    pub fn check_trusted(
        &self,
        state: &State,
        worker: u64,
        token: Option<&str>,
    ) -> Result<(), Status> {
        if state.refused.contains(&worker)
            || token.is_some_and(|t| state.refused_tokens.contains(t))
        {
            return Err(Status::permission_denied(format!(
                "worker {worker} is refused: a puzzle it reported did not check"
            )));
        }
        Ok(())
    }

    /// True once every worker that joined has heard the batch is done.
    pub fn all_told(&self) -> bool {
        self.lock()
            .map(|s| s.live.is_subset(&s.told))
            .unwrap_or(true)
    }
}

/// The refusal of a search call: a puzzle batch has no search jobs.
fn not_here() -> Status {
    Status::failed_precondition(
        "this coordinator serves a puzzle batch: use a worker that knows the Puzzles service",
    )
}

#[tonic::async_trait]
impl Cluster for Service {
    type WatchIncumbentStream = IncumbentStream;

    /// A puzzle batch has no incumbent: its workers solve whole puzzles.
    async fn watch_incumbent(
        &self,
        _: Request<WatchIncumbentRequest>,
    ) -> Result<Response<IncumbentStream>, Status> {
        Err(Status::unimplemented("a puzzle batch has no incumbent"))
    }

    async fn register(
        &self,
        request: Request<RegisterRequest>,
    ) -> Result<Response<RegisterReply>, Status> {
        let token = token_name(&request);
        let request = request.into_inner();
        if !request.fingerprint.is_empty() {
            self.check_game(&request.fingerprint)?;
        }
        check_worker_name(&request.worker_name)?;
        let mut state = self.lock()?;
        if token
            .as_ref()
            .is_some_and(|t| state.refused_tokens.contains(t))
        {
            return Err(Status::permission_denied("this token is refused"));
        }
        state.next_worker += 1;
        let worker_id = state.next_worker;
        state.live.insert(worker_id);
        tracing::info!(worker_id, name = ?request.worker_name, "worker registered");
        Ok(Response::new(RegisterReply {
            worker_id,
            fingerprint: self.0.tables.game.fingerprint().to_string(),
            game: Some(self.0.spec.clone()),
            options: Some(self.0.options.clone()),
            lease_ms: self.0.lease.as_millis() as u64,
            run_id: self.0.run_id.clone(),
            puzzle_batch: true,
            // A puzzle batch checks every claim by making it again, not by credentials.
            secret: String::new(),
        }))
    }

    async fn lease(&self, _: Request<LeaseRequest>) -> Result<Response<LeaseReply>, Status> {
        Err(not_here())
    }

    async fn heartbeat(
        &self,
        request: Request<HeartbeatRequest>,
    ) -> Result<Response<HeartbeatReply>, Status> {
        let request = request.into_inner();
        let until = Instant::now() + self.0.lease;
        let mut state = self.lock()?;
        for id in request.job_ids.iter().take(MAX_LEASE as usize) {
            if let Some(lease) = read_id(id).and_then(|key| state.leases.get_mut(&key)) {
                if lease.0 == request.worker_id {
                    lease.1 = until;
                }
            }
        }
        Ok(Response::new(HeartbeatReply::default()))
    }

    async fn complete(
        &self,
        _: Request<CompleteRequest>,
    ) -> Result<Response<CompleteReply>, Status> {
        Err(not_here())
    }
}
