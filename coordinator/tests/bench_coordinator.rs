//! Coordinator throughput benchmark (not a test: `cargo test --release -p hakase-coordinator
//! --test bench_coordinator -- --ignored --nocapture`). A real coordinator (engine, sled
//! store with durable group commit, gRPC server with token checks) is fed by concurrent
//! synthetic workers (`HAKASE_BENCH_WORKERS`, default 128) that each ask for a lease and report
//! a result, in turn, as fast as the server takes them; every report goes through the full
//! path: decoding, validation of the tree, job record, disk sync.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hakase_coordinator::cluster::engine::{Engine, EngineParams};
use hakase_coordinator::cluster::server::{bind, serve, ServeOptions};
use hakase_core::presets::load_preset;
use hakase_core::solver::SolverConfig;
use hakase_proto::client::{channel, Auth};
use hakase_proto::job::JobSpec;
use hakase_proto::v1::cluster_client::ClusterClient;
use hakase_proto::v1::{CompleteRequest, LeaseRequest, RegisterRequest};
use hakase_worker::{solve_job, Workbench};

/// The benchmark cluster's token.
const TOKEN: &str = "bench-token-0123456789";

#[test]
#[ignore = "benchmark"]
fn completions_per_second() {
    let dir = std::env::temp_dir().join(format!("hakase-bench-coord-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let game = load_preset("pokemon-today").expect("preset");
    let config = SolverConfig::default();
    let engine =
        Arc::new(Engine::new(game, config.clone(), &dir, EngineParams::default()).expect("engine"));
    let bench = Workbench::new(engine.game.clone(), config, None, 4_000_000);
    let stop = Arc::new(AtomicBool::new(false));
    let driver = {
        let (engine, stop) = (engine.clone(), stop.clone());
        std::thread::spawn(move || engine.drive(&stop))
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let seconds = 5.0;
    let workers: usize = std::env::var("HAKASE_BENCH_WORKERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(128);
    let (done, leased, elapsed) = runtime.block_on(async {
        let (listener, addr) = bind("127.0.0.1:0".parse().expect("addr"))
            .await
            .expect("bind");
        let options = ServeOptions {
            listen: addr,
            tokens: std::sync::Arc::new(std::sync::RwLock::new(
                hakase_proto::token::TokenSet::single(TOKEN).expect("token"),
            )),
            tls: None,
            require_worker_tokens: false,
        };
        let (quit_tx, quit_rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn({
            let engine = engine.clone();
            async move {
                serve(engine, listener, &options, async {
                    let _ = quit_rx.await;
                })
                .await
            }
        });
        let url = format!("http://{addr}");
        let ch = channel(&url, None, None).expect("channel");
        let mut client =
            ClusterClient::with_interceptor(ch.clone(), Auth::new(TOKEN).expect("auth"));
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
        let started = Instant::now();
        let deadline = started + Duration::from_secs_f64(seconds);
        let mut tasks = Vec::new();
        for t in 0..workers {
            let mut client =
                ClusterClient::with_interceptor(ch.clone(), Auth::new(TOKEN).expect("auth"));
            let (pool, count, leases, fingerprint) = (
                pool.clone(),
                count.clone(),
                leases.clone(),
                reply.fingerprint.clone(),
            );
            let worker_id = reply.worker_id;
            tasks.push(tokio::spawn(async move {
                let mut i = t;
                while Instant::now() < deadline {
                    let lease = LeaseRequest {
                        worker_id,
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
                        fingerprint: fingerprint.clone(),
                        result: Some(result),
                        results: Vec::new(),
                        lease_jobs: 0,
                    };
                    if client.complete(request).await.is_ok() {
                        count.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }));
        }
        for task in tasks {
            let _ = task.await;
        }
        let elapsed = started.elapsed();
        let _ = quit_tx.send(());
        let _ = server.await;
        (
            count.load(Ordering::Relaxed),
            leases.load(Ordering::Relaxed),
            elapsed,
        )
    });
    stop.store(true, Ordering::Relaxed);
    engine.poke();
    let _ = driver.join();
    let rate = done as f64 / elapsed.as_secs_f64();
    let lease_rate = leased as f64 / elapsed.as_secs_f64();
    println!(
        "coordinator, {workers} workers: {done} durable completions and {leased} leases in {:.2} s \
         = {rate:.0} completions + {lease_rate:.0} leases per second",
        elapsed.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(done > 0);
}
