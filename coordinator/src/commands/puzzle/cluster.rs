//! A batch made by workers: `hakase puzzle --count N … --out DIR --listen ADDR` serves the
//! batch's days to `hakase worker --connect http://ADDR` over gRPC (Cluster.Register and
//! Cluster.Heartbeat, then the Puzzles service), one job per day and attempt.
//!
//! The files are the local batch's, byte for byte: a day's puzzle depends only on the seed,
//! its slot and its attempt, and days are accepted in day order by the same [`BatchRun`].
//! Results are claims: each is checked against its rows ([`claim::check`]), every deduction
//! puzzle and every "no puzzle found" is made again here (cheap), and best-move problems are
//! made again by the audit policy's sample (`--audit-fraction`), drawn from a secret this
//! coordinator makes at start and never sends, so no worker can tell which of its claims
//! will be checked. A claim that does not check refuses its worker (by id and by its own
//! token) and drops its leases.
//! Checked claims are synced to `claims.jsonl` before the worker hears they were taken, so a
//! coordinator killed at any time resumes with every acknowledged day.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use hakase_coordinator::cluster::audit::AuditPolicy;
use hakase_coordinator::cluster::runtime::{init_logging, shutdown_signal, LogFormat};
use hakase_coordinator::cluster::server::{bind, CheckToken, IncumbentStream, TokenName};
use hakase_coordinator::cluster::store::new_audit_key;
use hakase_core::puzzle::{claim, Generator, Kind, Puzzle, Slot};
use hakase_core::solver::SolverConfig;
use hakase_core::GameTable;
use hakase_proto::job::JobId;
use hakase_proto::options::solver_options;
use hakase_proto::token::TokenSet;
use hakase_proto::v1::cluster_server::{Cluster, ClusterServer};
use hakase_proto::v1::puzzles_server::{Puzzles, PuzzlesServer};
use hakase_proto::v1::{
    CompleteReply, CompleteRequest, GameSpec, HeartbeatReply, HeartbeatRequest, LeaseReply,
    LeaseRequest, PuzzleCompleteReply, PuzzleCompleteRequest, PuzzleJob, PuzzleLeaseReply,
    PuzzleLeaseRequest, RegisterReply, RegisterRequest, SolverOptions, WatchIncumbentRequest,
};
use hakase_proto::MAX_MESSAGE_BYTES;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Identity, Server, ServerTlsConfig};
use tonic::{Request, Response, Status};

use super::files::Claim;
use super::run::BatchRun;
use crate::commands::coordinator::ServerAuthArgs;
use hakase_coordinator::output::plural;

/// Most days one lease may ask for, and results one report may carry.
const MAX_JOBS: u32 = 1024;

/// How a batch is served to workers.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// A batch only: have workers make the days (`hakase worker --connect http://ADDR`)
    /// instead of making them here; the files are the same. Port 0 picks a free port.
    #[arg(long, value_name = "ADDR", requires = "count")]
    pub listen: Option<SocketAddr>,
    /// With --listen: tokens and TLS, as the coordinator takes them.
    #[command(flatten)]
    pub auth: ServerAuthArgs,
    /// With --listen: share (0–1) of best-move problems made again here to check the
    /// worker's claim (deduction puzzles are always made again: they are cheap).
    #[arg(long, value_name = "F", default_value_t = AuditPolicy::DEFAULT_FRACTION)]
    pub audit_fraction: f64,
    /// With --listen: seconds a worker keeps a day without a heartbeat.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub lease_secs: f64,
    /// With --listen: seconds at most to keep serving after the batch is done, so workers
    /// hear that it is.
    #[arg(long, value_name = "SECS", default_value_t = 3.0)]
    pub linger_secs: f64,
}

impl ServeArgs {
    /// Checks the serving options before anything is made; returns the accepted tokens.
    pub fn check(&self) -> Result<TokenSet> {
        if !(0.0..=1.0).contains(&self.audit_fraction) {
            bail!(
                "--audit-fraction must be between 0 and 1, not {}",
                self.audit_fraction
            );
        }
        if let Some(listen) = self.listen {
            self.auth.check_transport(listen)?;
        }
        self.auth.tokens()
    }
}

/// The wire id of one attempt at one day.
fn job_id(day: usize, attempt: u32) -> Vec<u8> {
    let mut id = (day as u64).to_be_bytes().to_vec();
    id.extend_from_slice(&u64::from(attempt).to_be_bytes());
    id
}

/// The day and attempt of a wire id.
fn read_id(id: &[u8]) -> Option<(usize, u32)> {
    let (day, attempt) = (id.get(..8)?, id.get(8..16)?);
    let day = usize::try_from(u64::from_be_bytes(day.try_into().ok()?)).ok()?;
    let attempt = u32::try_from(u64::from_be_bytes(attempt.try_into().ok()?)).ok()?;
    (id.len() == 16).then_some((day, attempt))
}

/// How the claims were checked, for the final line.
#[derive(Debug, Default)]
struct Checked {
    deductions_remade: u64,
    best_moves: u64,
    best_moves_remade: u64,
    not_found_remade: u64,
    refused: Vec<u64>,
}

/// What the server holds under its lock.
struct State {
    run: BatchRun,
    /// Leased attempts: (day, attempt) → worker and expiry.
    leases: HashMap<(usize, u32), (u64, Instant)>,
    next_worker: u64,
    refused: HashSet<u64>,
    refused_tokens: HashSet<String>,
    live: HashSet<u64>,
    told: HashSet<u64>,
    checked: Checked,
}

/// Everything the services share.
struct Shared {
    state: Mutex<State>,
    /// The game and table the batch is made for.
    tables: Arc<GameTable>,
    spec: GameSpec,
    options: SolverOptions,
    seed: u64,
    run_id: String,
    /// What the audit sample is drawn from: the run id and a secret of this session.
    audit_seed: String,
    policy: AuditPolicy,
    lease: Duration,
    done: tokio::sync::watch::Sender<bool>,
}

/// The Cluster and Puzzles services of one batch.
#[derive(Clone)]
struct Service(Arc<Shared>);

impl Service {
    fn lock(&self) -> Result<MutexGuard<'_, State>, Status> {
        self.0
            .state
            .lock()
            .map_err(|_| Status::internal("the batch state is poisoned"))
    }

    fn check_game(&self, fingerprint: &str) -> Result<(), Status> {
        if fingerprint == self.0.tables.game.fingerprint() {
            return Ok(());
        }
        Err(Status::failed_precondition(format!(
            "this worker plays game fingerprint {fingerprint:?}; the batch is {} (fingerprint {})",
            self.0.tables.game.name(),
            self.0.tables.game.fingerprint()
        )))
    }

    fn check_trusted(&self, state: &State, worker: u64, token: Option<&str>) -> Result<(), Status> {
        if state.refused.contains(&worker)
            || token.is_some_and(|t| state.refused_tokens.contains(t))
        {
            return Err(Status::permission_denied(format!(
                "worker {worker} is refused: a puzzle it reported did not check"
            )));
        }
        Ok(())
    }

    /// Checks one claim: its rows always, and by making the day again when the policy says.
    fn verify(&self, slot: &Slot, attempt: u32, made: &Option<Puzzle>) -> Result<bool, String> {
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
}

fn token_of<T>(request: &Request<T>) -> Option<String> {
    request.extensions().get::<TokenName>().map(|t| t.0.clone())
}

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
        let token = token_of(&request);
        let request = request.into_inner();
        if !request.fingerprint.is_empty() {
            self.check_game(&request.fingerprint)?;
        }
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
        tracing::info!(worker_id, name = %request.worker_name, "worker registered");
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
        for id in request.job_ids.iter().take(MAX_JOBS as usize) {
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

#[tonic::async_trait]
impl Puzzles for Service {
    async fn lease(
        &self,
        request: Request<PuzzleLeaseRequest>,
    ) -> Result<Response<PuzzleLeaseReply>, Status> {
        let token = token_of(&request);
        let request = request.into_inner();
        self.check_game(&request.fingerprint)?;
        if request.max_jobs == 0 || request.max_jobs > MAX_JOBS {
            return Err(Status::invalid_argument(format!(
                "max_jobs must be between 1 and {MAX_JOBS}"
            )));
        }
        let now = Instant::now();
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
        let State { run, leases, .. } = &mut *state;
        leases.retain(|_, (_, until)| *until > now);
        let wanted: Vec<(Slot, u32)> = run
            .order
            .wanted()
            .filter(|(slot, attempt)| !leases.contains_key(&(slot.day, *attempt)))
            .take(request.max_jobs as usize)
            .collect();
        let jobs: Vec<PuzzleJob> = wanted
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
            .collect();
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
        let token = token_of(&request);
        let request = request.into_inner();
        self.check_game(&request.fingerprint)?;
        if request.results.len() > MAX_JOBS as usize {
            return Err(Status::invalid_argument(format!(
                "more than {MAX_JOBS} results in one report"
            )));
        }
        let worker = request.worker_id;
        // Read every result, and pick those the batch still waits for.
        let mut taken = Vec::with_capacity(request.results.len());
        let mut claims: Vec<(Slot, Claim, u64)> = Vec::new();
        {
            let state = self.lock()?;
            self.check_trusted(&state, worker, token.as_deref())?;
            for result in &request.results {
                let (day, attempt) = read_id(&result.job_id)
                    .ok_or_else(|| Status::invalid_argument("job_id must be 16 bytes"))?;
                let known = (1..=state.run.count()).contains(&day);
                taken.push(known);
                let waited = state.run.order.waiting(day);
                let Some((slot, _)) = waited.filter(|&(_, a)| a == attempt) else {
                    continue;
                };
                let puzzle = if result.found {
                    serde_json::from_str::<Puzzle>(&result.puzzle_json).map(Some)
                } else {
                    Ok(None)
                };
                let puzzle = match puzzle {
                    Ok(puzzle) => puzzle,
                    Err(e) => {
                        drop(state);
                        return Err(self.refuse(worker, token, &format!("day {day}: {e}")));
                    }
                };
                let claim = Claim {
                    day,
                    attempt,
                    puzzle,
                };
                claims.push((slot, claim, result.millis));
            }
        }
        // Check the claims off the async threads (re-making a day is solver work).
        let checker = self.clone();
        let verdicts = tokio::task::spawn_blocking(move || {
            let verdicts: Vec<Result<bool, String>> = claims
                .iter()
                .map(|(slot, c, _)| checker.verify(slot, c.attempt, &c.puzzle))
                .collect();
            (claims, verdicts)
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))?;
        let (claims, verdicts) = verdicts;
        if let Some(why) = verdicts.iter().find_map(|v| v.as_ref().err()) {
            return Err(self.refuse(worker, token, why));
        }
        let mut state = self.lock()?;
        // Another worker may have settled some of these meanwhile.
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
                .map_err(|e| Status::internal(format!("{e:#}")))?;
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
                .map_err(|e| Status::internal(format!("{e:#}")))?;
        }
        if state.run.order.is_done() {
            let _ = self.0.done.send(true);
        }
        Ok(Response::new(PuzzleCompleteReply { taken }))
    }
}

impl Service {
    /// Refuses `worker` (and its own token) after a claim that did not check, and frees its
    /// leases for others.
    fn refuse(&self, worker: u64, token: Option<String>, why: &str) -> Status {
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

/// Serves `run`'s days until every day is settled (then returns the run and how claims
/// were checked) or a signal arrives (an error saying how to resume).
pub fn serve(
    args: &ServeArgs,
    listen: SocketAddr,
    mut run: BatchRun,
    tokens: TokenSet,
    tables: &Arc<GameTable>,
    seed: u64,
) -> Result<(BatchRun, String)> {
    let game = &tables.game;
    init_logging(LogFormat::Text);
    let tokens = Arc::new(RwLock::new(tokens));
    for claim in run.dir.open_claims()? {
        if let Some((slot, attempt)) = run.order.waiting(claim.day) {
            if attempt == claim.attempt {
                run.made(&slot, attempt, claim.puzzle, None)?;
            }
        }
    }
    if run.order.is_done() {
        return Ok((run, "checked: every day was already made".to_string()));
    }
    let policy = AuditPolicy::with_fraction(args.audit_fraction);
    let (done, done_rx) = tokio::sync::watch::channel(false);
    let run_id = format!(
        "puzzles/{}/{seed}/{}",
        game.fingerprint(),
        run.dir.dir().display()
    );
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            run,
            leases: HashMap::new(),
            next_worker: 0,
            refused: HashSet::new(),
            refused_tokens: HashSet::new(),
            live: HashSet::new(),
            told: HashSet::new(),
            checked: Checked::default(),
        }),
        tables: Arc::clone(tables),
        spec: hakase_proto::game::to_spec(game),
        options: solver_options(&SolverConfig::default()),
        seed,
        audit_seed: format!("{run_id}/{}", new_audit_key()),
        run_id,
        policy,
        lease: Duration::from_secs_f64(args.lease_secs.clamp(0.2, 86_400.0)),
        done,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .worker_threads(2)
        .build()
        .context("starting the async runtime")?;
    let interrupted = Arc::new(AtomicBool::new(false));
    runtime.block_on(serve_until_done(
        args,
        listen,
        Service(shared.clone()),
        tokens,
        done_rx,
        interrupted.clone(),
    ))?;
    drop(runtime);
    let shared =
        Arc::try_unwrap(shared).map_err(|_| anyhow::anyhow!("the server still holds the batch"))?;
    let state = shared
        .state
        .into_inner()
        .map_err(|_| anyhow::anyhow!("the batch state is poisoned"))?;
    if interrupted.load(Ordering::Relaxed) || !state.run.order.is_done() {
        return Err(crate::commands::guard::Interrupted::now(format!(
            "the days made so far are kept in {} — run the same command again to resume",
            state.run.dir.dir().display()
        ))
        .into());
    }
    let c = &state.checked;
    let line = format!(
        "checked: {} made again here and equal; {} of {} made again (policy at {}%), the \
         rest checked by their rows; {} made again; {} refused",
        plural(c.deductions_remade, "deduction puzzle", "deduction puzzles"),
        c.best_moves_remade,
        plural(c.best_moves, "best-move problem", "best-move problems"),
        policy.fraction() * 100.0,
        plural(
            c.not_found_remade,
            "\"no puzzle\" claim",
            "\"no puzzle\" claims"
        ),
        plural(c.refused.len() as u64, "worker", "workers")
    );
    Ok((state.run, line))
}

/// Serves until the batch is done (and workers heard, or the linger ran out) or a signal.
async fn serve_until_done(
    args: &ServeArgs,
    listen: SocketAddr,
    service: Service,
    tokens: Arc<RwLock<TokenSet>>,
    mut done_rx: tokio::sync::watch::Receiver<bool>,
    interrupted: Arc<AtomicBool>,
) -> Result<()> {
    let (listener, local) = bind(listen).await?;
    eprintln!("hakase coordinator listening on {local}");
    let linger = Duration::from_secs_f64(args.linger_secs.clamp(0.0, 3600.0));
    let watcher = service.clone();
    let shutdown = async move {
        let finished = tokio::select! {
            _ = shutdown_signal() => false,
            r = done_rx.wait_for(|d| *d) => r.is_ok(),
        };
        if !finished {
            interrupted.store(true, Ordering::Relaxed);
            return;
        }
        let until = tokio::time::Instant::now() + linger;
        let all_told = async {
            while tokio::time::Instant::now() < until {
                let told = watcher
                    .lock()
                    .map(|s| s.live.is_subset(&s.told))
                    .unwrap_or(true);
                if told {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        tokio::select! {
            _ = all_told => {}
            _ = shutdown_signal() => {}
        }
    };
    let auth = CheckToken::new(tokens);
    let cluster = InterceptedService::new(
        ClusterServer::new(service.clone())
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES),
        auth.clone(),
    );
    let puzzles = InterceptedService::new(
        PuzzlesServer::new(service)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES),
        auth,
    );
    let mut builder = Server::builder();
    if let Some((cert, key)) = &args.auth.tls() {
        let read = |path: &PathBuf| {
            std::fs::read(path).with_context(|| format!("reading {}", path.display()))
        };
        builder = builder
            .tls_config(
                ServerTlsConfig::new().identity(Identity::from_pem(read(cert)?, read(key)?)),
            )
            .context("TLS")?;
    }
    builder
        .add_service(cluster)
        .add_service(puzzles)
        .serve_with_incoming_shutdown(
            TcpIncoming::from(listener).with_nodelay(Some(true)),
            shutdown,
        )
        .await
        .context("serving the batch")
}
