//! Coordinator throughput benchmarks (not tests: `cargo test --release -p hakase-coordinator
//! --test coordinator_tests bench_coordinator:: -- --ignored --nocapture`). A real coordinator (engine, sled
//! store with durable group commit, gRPC server with token checks) is fed by concurrent
//! synthetic workers (`HAKASE_BENCH_WORKERS`, default 128) as fast as the server takes them;
//! every report goes through the full path: decoding, validation, job record, disk sync.
//!
//! - `completions_per_second`: the worst case, one job per lease and one result per report.
//! - `plan_through_the_coordinator`: a whole game's plan (`HAKASE_BENCH_GAME`, default
//!   English Wordle's 12,972 first guesses) as real workers take it, leasing and reporting
//!   in batches, with the audit on; every job is answered at once with a bound at its cutoff,
//!   so the time is the coordinator's alone: the floor of a run's wall time however many
//!   workers it has, and the per-result cost `scripts/simulate-cluster` assumes.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::Outcome;
use hakase_core::solver::SolverConfig;
use hakase_engine::audit::AuditPolicy;
use hakase_engine::engine::{Engine, EngineParams};
use hakase_engine::server::{bind, serve, ServeOptions};
use hakase_proto::client::{channel, Auth};
use hakase_proto::job::{JobAnswer, JobSpec};
use hakase_proto::v1::cluster_client::ClusterClient;
use hakase_proto::v1::{CompleteRequest, Job, LeaseRequest, RegisterRequest};
use hakase_worker::{solve_job, Workbench};

/// The benchmark cluster's token.
const TOKEN: &str = "bench-token-0123456789";

/// A coordinator serving on loopback: its engine's planning thread and its gRPC server.
struct Served {
    engine: Arc<Engine>,
    url: String,
    stop: Arc<AtomicBool>,
    driver: std::thread::JoinHandle<()>,
    quit: tokio::sync::oneshot::Sender<()>,
    server: tokio::task::JoinHandle<Result<(), hakase_engine::error::ClusterError>>,
    dir: std::path::PathBuf,
}

impl Served {
    /// Opens a fresh run of `game` in a temporary directory and serves it.
    async fn start(game: &str, params: EngineParams) -> Served {
        let dir =
            std::env::temp_dir().join(format!("hakase-bench-coord-{}-{game}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let game = load_preset(game).expect("preset");
        let engine =
            Arc::new(Engine::new(game, SolverConfig::default(), &dir, params).expect("engine"));
        let stop = Arc::new(AtomicBool::new(false));
        let driver = {
            let (engine, stop) = (engine.clone(), stop.clone());
            std::thread::spawn(move || engine.drive(&stop))
        };
        let (listener, addr) = bind("127.0.0.1:0".parse().expect("addr"))
            .await
            .expect("bind");
        let options = ServeOptions {
            listen: addr,
            tokens: Arc::new(std::sync::RwLock::new(
                hakase_proto::token::TokenSet::single(TOKEN).expect("token"),
            )),
            tls: None,
            require_worker_tokens: false,
            limits: hakase_serving::PortLimits::COORDINATOR,
        };
        let (quit, quit_rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn({
            let engine = engine.clone();
            async move {
                serve(engine, listener, &options, async {
                    let _ = quit_rx.await;
                })
                .await
            }
        });
        Served {
            engine,
            url: format!("http://{addr}"),
            stop,
            driver,
            quit,
            server,
            dir,
        }
    }

    /// A client of the cluster service, with the token.
    fn client(&self) -> Client {
        let ch = channel(&self.url, None, None).expect("channel");
        ClusterClient::with_interceptor(ch, Auth::new(TOKEN).expect("auth"))
    }

    /// Stops the server and the planning thread and removes the run.
    async fn shut(self) {
        let _ = self.quit.send(());
        let _ = self.server.await;
        self.stop.store(true, Ordering::Relaxed);
        self.engine.poke();
        let _ = self.driver.join();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

type Client =
    ClusterClient<tonic::service::interceptor::InterceptedService<tonic::transport::Channel, Auth>>;

/// Synthetic workers from `HAKASE_BENCH_WORKERS` (default 128).
fn bench_workers() -> usize {
    std::env::var("HAKASE_BENCH_WORKERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(128)
}

#[test]
#[ignore = "benchmark"]
fn completions_per_second() {
    let seconds = 5.0;
    let workers = bench_workers();
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let (done, leased, elapsed) = runtime.block_on(async {
        let served = Served::start("pokemon-today", EngineParams::default()).await;
        let bench = Workbench::new(
            served.engine.game().clone(),
            SolverConfig::default(),
            None,
            4_000_000,
        );
        let mut client = served.client();
        let reply = client
            .register(RegisterRequest {
                worker_name: "bench".into(),
                fingerprint: String::new(),
                threads: u32::try_from(workers).unwrap_or(u32::MAX),
            })
            .await
            .expect("register")
            .into_inner();
        // A pool of real results to report over and over.
        let mut pool = Vec::new();
        while pool.len() < 64 {
            let lease = client
                .lease(LeaseRequest {
                    worker_id: reply.worker_id,
                    secret: reply.secret.clone(),
                    fingerprint: reply.fingerprint.clone(),
                    max_jobs: 64,
                })
                .await
                .expect("lease")
                .into_inner();
            for job in &lease.jobs {
                let (id, spec, beta) = JobSpec::from_proto(
                    job,
                    bench.game().answers().len(),
                    bench.game().guesses().len(),
                )
                .expect("job");
                pool.push(solve_job(bench.solver(), &spec, beta).to_proto(id));
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let pool = Arc::new(pool);
        let count = Arc::new(AtomicU64::new(0));
        let leases = Arc::new(AtomicU64::new(0));
        let refused = Arc::new(AtomicU64::new(0));
        let started = Instant::now();
        let deadline = started + Duration::from_secs_f64(seconds);
        let mut tasks = Vec::new();
        for t in 0..workers {
            let mut client = served.client();
            let (pool, count, leases, refused, fingerprint) = (
                pool.clone(),
                count.clone(),
                leases.clone(),
                refused.clone(),
                reply.fingerprint.clone(),
            );
            let worker_id = reply.worker_id;
            let secret = reply.secret.clone();
            tasks.push(tokio::spawn(async move {
                let mut i = t;
                while Instant::now() < deadline {
                    let lease = LeaseRequest {
                        worker_id,
                        secret: secret.clone(),
                        fingerprint: fingerprint.clone(),
                        max_jobs: 1,
                    };
                    if client.lease(lease).await.is_ok() {
                        leases.fetch_add(1, Ordering::Relaxed);
                    }
                    let result = pool[i % pool.len()].clone();
                    i += 1;
                    let request = CompleteRequest {
                        worker_id,
                        secret: secret.clone(),
                        fingerprint: fingerprint.clone(),
                        result: Some(result),
                        results: Vec::new(),
                        lease_jobs: 0,
                    };
                    // Each pooled result is taken once per lease of its job; reported again
                    // it is checked (tree included) and refused as not held (issue 36), which
                    // is most of this loop's reports now.
                    match client.complete(request).await {
                        Ok(_) => {
                            count.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(status) if status.code() == tonic::Code::NotFound => {
                            refused.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(_) => {}
                    }
                }
            }));
        }
        for task in tasks {
            let _ = task.await;
        }
        let elapsed = started.elapsed();
        served.shut().await;
        (
            count.load(Ordering::Relaxed) + refused.load(Ordering::Relaxed),
            leases.load(Ordering::Relaxed),
            elapsed,
        )
    });
    let rate = done as f64 / elapsed.as_secs_f64();
    let lease_rate = leased as f64 / elapsed.as_secs_f64();
    println!(
        "coordinator, {workers} workers: {done} reports (taken, or checked and refused as not \
         held) and {leased} leases in {:.2} s = {rate:.0} reports + {lease_rate:.0} leases per second",
        elapsed.as_secs_f64()
    );
    assert!(done > 0);
}

/// Jobs a synthetic worker holds and asks for with each report: what a one-thread worker
/// holds on Wordle (`hakase_worker::hold`: 16 per slot, reporting when half are done).
const HELD: u32 = 8;

/// What one synthetic worker did: results taken, reports sent, and when it last had one
/// taken (from the start).
#[derive(Default)]
struct Took {
    results: u64,
    reports: u64,
    last: Duration,
}

#[test]
#[ignore = "benchmark"]
fn plan_through_the_coordinator() {
    let game = std::env::var("HAKASE_BENCH_GAME").unwrap_or_else(|_| "wordle".into());
    let workers = bench_workers();
    let params = EngineParams {
        audit: Some(AuditPolicy::with_fraction(AuditPolicy::DEFAULT_FRACTION)),
        ..EngineParams::default()
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let (took, first_guesses, state) = runtime.block_on(async {
        let served = Served::start(&game, params).await;
        let (answers, guesses) = (
            served.engine.game().answers().len(),
            served.engine.game().guesses().len(),
        );
        let started = Instant::now();
        let mut tasks = Vec::new();
        for k in 0..workers {
            let mut client = served.client();
            tasks.push(tokio::spawn(async move {
                let reply = client
                    .register(RegisterRequest {
                        worker_name: format!("bench-{k}"),
                        fingerprint: String::new(),
                        threads: 1,
                    })
                    .await
                    .expect("register")
                    .into_inner();
                let (worker_id, fingerprint) = (reply.worker_id, reply.fingerprint);
                let secret = reply.secret;
                let mut took = Took::default();
                let mut held: Vec<Job> = Vec::new();
                // Ends when the run does, or after a minute whatever happens.
                while started.elapsed() < Duration::from_secs(60) {
                    let lease = if held.is_empty() {
                        let leased = client
                            .lease(LeaseRequest {
                                worker_id,
                                secret: secret.clone(),
                                fingerprint: fingerprint.clone(),
                                max_jobs: HELD,
                            })
                            .await;
                        // Refused once the run has ended (a failed run stops serving).
                        let Ok(lease) = leased else { break };
                        lease.into_inner()
                    } else {
                        // Every held job answered at once with a bound at its cutoff: the
                        // claim a pruned first guess makes.
                        let results = held
                            .drain(..)
                            .map(|job| {
                                let (id, _, beta) =
                                    JobSpec::from_proto(&job, answers, guesses).expect("job");
                                let answer = JobAnswer {
                                    beta,
                                    outcome: Outcome::AtLeast(beta),
                                    tree: None,
                                    nodes: 1,
                                    millis: 0,
                                };
                                answer.to_proto(id)
                            })
                            .collect();
                        let completed = client
                            .complete(CompleteRequest {
                                worker_id,
                                secret: secret.clone(),
                                fingerprint: fingerprint.clone(),
                                result: None,
                                results,
                                lease_jobs: HELD,
                            })
                            .await;
                        let Ok(done) = completed else { break };
                        let done = done.into_inner();
                        took.reports += 1;
                        let taken = done.taken.iter().filter(|&&t| t).count() as u64;
                        if taken > 0 {
                            took.results += taken;
                            took.last = started.elapsed();
                        }
                        done.lease.unwrap_or_default()
                    };
                    if lease.finished {
                        break;
                    }
                    if lease.jobs.is_empty() {
                        let retry = lease.retry_ms.clamp(1, 100);
                        tokio::time::sleep(Duration::from_millis(retry)).await;
                    }
                    held = lease.jobs;
                }
                took
            }));
        }
        let mut all = Took::default();
        for task in tasks {
            let one = task.await.expect("worker task");
            all.results += one.results;
            all.reports += one.reports;
            all.last = all.last.max(one.last);
        }
        let snapshot = served.engine.snapshot();
        served.shut().await;
        (all, snapshot.first_settled, snapshot.state)
    });
    let secs = took.last.as_secs_f64();
    println!(
        "coordinator, {game}, {workers} workers holding {HELD} jobs: {} results in {} reports \
         taken in {secs:.2} s = {:.0} results/s ({:.0} reports/s), {:.3} ms per result; \
         {first_guesses} first guesses settled; run {state}",
        took.results,
        took.reports,
        took.results as f64 / secs,
        took.reports as f64 / secs,
        secs * 1e3 / took.results as f64,
    );
    assert!(took.results > 0);
}
