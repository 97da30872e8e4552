//! The coordinator's gRPC server: the Cluster service for workers and the Admin service for
//! operators, both behind the shared token, plus health and reflection (so grpcurl works),
//! optionally over TLS. Every request is validated; bad ones get InvalidArgument.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;

use hakase_proto::job::{JobAnswer, JobId};
use hakase_proto::options::solver_options;
use hakase_proto::v1::admin_server::{Admin, AdminServer};
use hakase_proto::v1::cluster_server::{Cluster, ClusterServer};
use hakase_proto::v1::{
    CompleteReply, CompleteRequest, CutGuess, GameSpec, HeartbeatReply, HeartbeatRequest,
    Incumbent, LeaseReply, LeaseRequest, RankedGuess, RegisterReply, RegisterRequest,
    SolverOptions, StatusReply, StatusRequest, StoreDamage, WatchIncumbentRequest,
};
use hakase_proto::{FILE_DESCRIPTOR_SET, MAX_MESSAGE_BYTES};
use tokio_stream::wrappers::WatchStream;
use tokio_stream::{Stream, StreamExt};
use tonic::service::interceptor::InterceptedService;
use tonic::{Request, Response, Status};

use super::engine::{Engine, Leased, Told};
use super::error::ClusterError;
use hakase_serving::{check_worker_name, token_name, PortLimits, ServingError, TlsFiles};

pub use hakase_serving::{CheckToken, SharedTokens, TokenName};

pub use hakase_proto::MAX_LEASE;
/// Most job ids one heartbeat may carry.
pub const MAX_HEARTBEAT_IDS: usize = 65_536;

/// How the server listens.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Address to listen on (port 0 picks a free one; the bound address is logged).
    pub listen: SocketAddr,
    /// The tokens workers and admins may present.
    pub tokens: SharedTokens,
    /// PEM certificate and key for TLS.
    pub tls: Option<TlsFiles>,
    /// Refuse the shared token on the worker service (`--require-worker-tokens`): every
    /// worker then has its own token, so a quarantine cannot be dodged by registering again
    /// under the shared one. The shared token still serves `hakase status`.
    pub require_worker_tokens: bool,
    /// What one client may cost the port.
    pub limits: PortLimits,
}

/// The Cluster and Admin services over one engine.
#[derive(Clone)]
pub struct Services {
    engine: Arc<Engine>,
    game: Arc<GameSpec>,
    fingerprint: String,
    options: SolverOptions,
}

impl Services {
    /// Services for `engine`'s run.
    pub fn new(engine: Arc<Engine>) -> Services {
        let game = Arc::new(hakase_proto::game::to_spec(engine.game()));
        let fingerprint = engine.game().fingerprint().to_string();
        let options = solver_options(&engine.config);
        Services {
            engine,
            game,
            fingerprint,
            options,
        }
    }

    fn incumbent(&self) -> Option<Incumbent> {
        self.engine
            .incumbent()
            .map(|(value, first_index)| Incumbent { value, first_index })
    }

    /// The reply to a lease (a call of its own or one asked with a report): `None` from the
    /// engine is the run's end.
    fn lease_reply(&self, leased: Option<Vec<Leased>>) -> LeaseReply {
        match leased {
            None => LeaseReply {
                jobs: Vec::new(),
                finished: true,
                retry_ms: 0,
                incumbent: None,
            },
            Some(jobs) => LeaseReply {
                retry_ms: if jobs.is_empty() { 5 } else { 0 },
                jobs: jobs
                    .iter()
                    .map(|j| {
                        let mut job = j.spec.to_proto(j.id, j.beta);
                        job.first_index = j.first.map_or(0, |i| i + 1);
                        job.recheck = j.recheck;
                        job
                    })
                    .collect(),
                finished: false,
                incumbent: self.incumbent(),
            },
        }
    }

    fn check_game(&self, fingerprint: &str) -> Result<(), Status> {
        if fingerprint == self.fingerprint {
            Ok(())
        } else {
            Err(Status::failed_precondition(format!(
                "this worker plays game fingerprint {fingerprint:?}; the run is {} (fingerprint {})",
                self.engine.game().name(),
                self.fingerprint
            )))
        }
    }
}

impl Services {
    /// Refuses a call that does not prove it comes from `worker` (see
    /// [`Engine::authenticate`]), and a quarantined worker.
    fn authenticate(&self, worker: u64, secret: &str, token: Option<&str>) -> Result<(), Status> {
        self.engine
            .authenticate(worker, secret, token)
            .map_err(to_status)
    }
}

fn to_status(err: ClusterError) -> Status {
    match err {
        ClusterError::UnknownJob(_) => Status::not_found(err.to_string()),
        ClusterError::BadResult(_) => Status::invalid_argument(err.to_string()),
        ClusterError::Quarantined(_) => Status::permission_denied(err.to_string()),
        ClusterError::UnknownWorker(_) => Status::unauthenticated(err.to_string()),
        ClusterError::NotHeld(_) => Status::not_found(err.to_string()),
        ClusterError::Busy(_) => Status::resource_exhausted(err.to_string()),
        ClusterError::StorageFault(_) => Status::unavailable(err.to_string()),
        other => Status::internal(other.to_string()),
    }
}

/// The stream of [`Cluster::watch_incumbent`].
pub type IncumbentStream = Pin<Box<dyn Stream<Item = Result<Incumbent, Status>> + Send + 'static>>;

#[tonic::async_trait]
impl Cluster for Services {
    type WatchIncumbentStream = IncumbentStream;

    async fn watch_incumbent(
        &self,
        request: Request<WatchIncumbentRequest>,
    ) -> Result<Response<IncumbentStream>, Status> {
        let token = token_name(&request);
        let request = request.into_inner();
        self.check_game(&request.fingerprint)?;
        self.authenticate(request.worker_id, &request.secret, token.as_deref())?;
        let told = WatchStream::new(self.engine.watch_incumbent())
            .take_while(|told| *told != Told::Closed)
            .filter_map(|told| match told {
                Told::Best(value, first_index) => Some(Ok(Incumbent { value, first_index })),
                Told::Nothing | Told::Closed => None,
            });
        Ok(Response::new(Box::pin(told)))
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
        let slots = request.threads.clamp(1, 4096) as usize;
        // The record is synced before the reply: blocking work, off the async threads.
        let engine = self.engine.clone();
        let registration =
            tokio::task::spawn_blocking(move || engine.register_worker(slots, token.as_deref()))
                .await
                .map_err(|e| Status::internal(e.to_string()))?
                .map_err(to_status)?;
        let worker_id = registration.id;
        tracing::info!(worker_id, name = ?request.worker_name, slots, "worker registered");
        Ok(Response::new(RegisterReply {
            worker_id,
            secret: registration.secret,
            fingerprint: self.fingerprint.clone(),
            game: Some((*self.game).clone()),
            options: Some(self.options.clone()),
            lease_ms: self.engine.lease_duration().as_millis() as u64,
            run_id: self.engine.store().run_id(),
            puzzle_batch: false,
        }))
    }

    async fn lease(&self, request: Request<LeaseRequest>) -> Result<Response<LeaseReply>, Status> {
        let token = token_name(&request);
        let request = request.into_inner();
        self.check_game(&request.fingerprint)?;
        self.authenticate(request.worker_id, &request.secret, token.as_deref())?;
        if request.max_jobs == 0 || request.max_jobs > MAX_LEASE {
            return Err(Status::invalid_argument(format!(
                "max_jobs must be between 1 and {MAX_LEASE}"
            )));
        }
        // The lease records are synced before the reply (a restart must know who holds what).
        let engine = self.engine.clone();
        let (worker, max) = (request.worker_id, request.max_jobs as usize);
        let leased = tokio::task::spawn_blocking(move || engine.lease(worker, max))
            .await
            .map_err(|e| Status::internal(e.to_string()))?
            .map_err(to_status)?;
        Ok(Response::new(self.lease_reply(leased)))
    }

    async fn heartbeat(
        &self,
        request: Request<HeartbeatRequest>,
    ) -> Result<Response<HeartbeatReply>, Status> {
        let token = token_name(&request);
        let request = request.into_inner();
        self.authenticate(request.worker_id, &request.secret, token.as_deref())?;
        if request.job_ids.len() > MAX_HEARTBEAT_IDS {
            return Err(Status::invalid_argument("too many job ids"));
        }
        let ids = request
            .job_ids
            .iter()
            .map(|b| JobId::from_bytes(b))
            .collect::<Result<Vec<_>, _>>()?;
        let cancelled = self
            .engine
            .heartbeat(request.worker_id, &ids)
            .map_err(to_status)?;
        Ok(Response::new(HeartbeatReply {
            cancelled: JobId::list_to_wire(&cancelled),
            incumbent: self.incumbent(),
        }))
    }

    async fn complete(
        &self,
        request: Request<CompleteRequest>,
    ) -> Result<Response<CompleteReply>, Status> {
        let token = token_name(&request);
        let request = request.into_inner();
        self.check_game(&request.fingerprint)?;
        self.authenticate(request.worker_id, &request.secret, token.as_deref())?;
        if request.result.is_none() && request.results.is_empty() {
            return Err(Status::invalid_argument("missing field result"));
        }
        if request.results.len() > MAX_LEASE as usize {
            return Err(Status::invalid_argument(format!(
                "more than {MAX_LEASE} results in one report"
            )));
        }
        if request.lease_jobs > MAX_LEASE {
            return Err(Status::invalid_argument(format!(
                "lease_jobs must be at most {MAX_LEASE}"
            )));
        }
        let guesses = self.engine.game().guesses().len();
        let answers = request
            .result
            .iter()
            .chain(&request.results)
            .map(|r| JobAnswer::from_proto(r, guesses))
            .collect::<Result<Vec<(JobId, JobAnswer)>, _>>();
        let answers = match answers {
            Ok(answers) => answers,
            Err(err) => {
                // The quarantine replans the search: not on the async threads.
                let (engine, worker, why) =
                    (self.engine.clone(), request.worker_id, err.to_string());
                tokio::task::spawn_blocking(move || engine.refuse_malformed(worker, &why))
                    .await
                    .map_err(|e| Status::internal(e.to_string()))?;
                return Err(err.into());
            }
        };
        let engine = self.engine.clone();
        let worker = request.worker_id;
        let batch = request.result.is_none();
        let lease_jobs = request.lease_jobs as usize;
        // One disk sync for the whole batch and the lease asked with it, before the reply
        // acknowledges any of it.
        let (outcomes, leased, cancelled) = tokio::task::spawn_blocking(move || {
            let mut outcomes = Vec::with_capacity(answers.len());
            for (id, answer) in answers {
                match engine.complete(worker, id, answer, false) {
                    Ok(accepted) => outcomes.push(Some(accepted)),
                    Err(ClusterError::UnknownJob(_) | ClusterError::NotHeld(_)) if batch => {
                        outcomes.push(None)
                    }
                    Err(err) => return Err(err),
                }
            }
            let leased = match lease_jobs {
                0 => None,
                max => Some(engine.lease_unsynced(worker, max)?),
            };
            engine.store().sync()?;
            Ok((outcomes, leased, engine.take_withdrawn(worker)))
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))?
        .map_err(to_status)?;
        Ok(Response::new(CompleteReply {
            accepted: outcomes.iter().all(|o| *o == Some(true)),
            incumbent: self.incumbent(),
            taken: outcomes.iter().map(Option::is_some).collect(),
            lease: leased.map(|leased| self.lease_reply(leased)),
            cancelled: JobId::list_to_wire(&cancelled),
        }))
    }
}

#[tonic::async_trait]
impl Admin for Services {
    async fn status(&self, _: Request<StatusRequest>) -> Result<Response<StatusReply>, Status> {
        let s = self.engine.snapshot();
        let (best_guess, best_value) = s.best.clone().unwrap_or_default();
        Ok(Response::new(StatusReply {
            game: self.engine.game().name().to_string(),
            fingerprint: self.fingerprint.clone(),
            options: Some(solver_options(&self.engine.config)),
            state: s.state.clone(),
            guesses_left: s.guesses_left,
            jobs_total: s.jobs_total,
            jobs_done: s.jobs_done,
            jobs_queued: s.jobs_queued,
            jobs_leased: s.jobs_leased,
            completions: s.counters.completions,
            duplicate_completions: s.counters.duplicate_completions,
            results_loaded: s.counters.results_loaded,
            lease_expiries: s.counters.lease_expiries,
            first_guesses_total: s.first_total,
            first_guesses_settled: s.first_settled,
            best_guess,
            best_value,
            ranking: s
                .ranking
                .iter()
                .map(|(guess, exact, value)| RankedGuess {
                    guess: guess.clone(),
                    exact: *exact,
                    value: *value,
                })
                .collect(),
            workers: s.workers,
            elapsed_secs: s.elapsed_secs,
            rejected: s.counters.rejected,
            job_millis: s.counters.job_millis,
            longest_job_millis: s.counters.longest_job_millis,
            nodes: s.counters.nodes,
            eta_secs: s.eta_secs.unwrap_or(-1.0),
            damage: s.damage.map(StoreDamage::from),
            cuts: s
                .cuts
                .iter()
                .map(|cut| CutGuess {
                    guess: cut.guess.clone(),
                    parts: cut.parts,
                    parts_settled: cut.parts_settled,
                    lower: cut.lower,
                    upper: cut.upper.unwrap_or(0),
                    eta_secs: cut.eta_secs.unwrap_or(-1.0),
                })
                .collect(),
        }))
    }
}

/// Binds `listen` (see [`hakase_serving::bind`]), failing with the cluster's error (a message
/// only, which `--json` reports as a failure, not an I/O error).
pub async fn bind(
    listen: SocketAddr,
) -> Result<(tokio::net::TcpListener, SocketAddr), ClusterError> {
    hakase_serving::bind(listen)
        .await
        .map_err(|e| ClusterError::Transport(hakase_serving::chain(&e)))
}

/// Serves the run on `listener` until `shutdown` resolves.
pub async fn serve(
    engine: Arc<Engine>,
    listener: tokio::net::TcpListener,
    opts: &ServeOptions,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ClusterError> {
    let services = Services::new(engine.clone());
    // Incumbent streams never end by themselves; the graceful shutdown waits for them.
    let shutdown = async move {
        shutdown.await;
        engine.close_watches();
    };
    let auth = CheckToken::new(opts.tokens.clone());
    let cluster = InterceptedService::new(
        ClusterServer::new(services.clone())
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES),
        CheckToken::for_workers(opts.tokens.clone(), opts.require_worker_tokens),
    );
    let admin = InterceptedService::new(AdminServer::new(services), auth);
    let reporter = tonic_health::server::HealthReporter::new();
    reporter.set_serving::<ClusterServer<Services>>().await;
    reporter.set_serving::<AdminServer<Services>>().await;
    let health = hakase_serving::bounded_health(&reporter, opts.limits.health_watches);
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(FILE_DESCRIPTOR_SET)
        .build_v1()
        .map_err(|e| ClusterError::Transport(format!("reflection: {e}")))?;
    let mut builder =
        hakase_serving::grpc_server(opts.tls.as_ref(), &opts.limits).map_err(tls_error)?;
    builder
        .add_service(health)
        .add_service(reflection)
        .add_service(cluster)
        .add_service(admin)
        .serve_with_incoming_shutdown(hakase_serving::incoming(listener, &opts.limits), shutdown)
        .await
        .map_err(|e| ClusterError::Transport(format!("serving: {e}")))
}

/// The cluster's error for a TLS set-up that failed, worded as it always was.
fn tls_error(err: ServingError) -> ClusterError {
    match err {
        ServingError::TlsFile { path, source } => ClusterError::Io { path, source },
        ServingError::Tls(e) => ClusterError::Transport(format!("TLS: {e}")),
        other => ClusterError::Transport(hakase_serving::chain(&other)),
    }
}
