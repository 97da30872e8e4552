//! The gRPC surface under abuse: wrong tokens, other games, malformed and oversized
//! requests, duplicate results. Each must get a clean error, never a panic, and the run must
//! still finish with the exact result.

use std::time::Duration;

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{Outcome, SolverConfig};
use hakase_proto::client::{channel, Auth};
use hakase_proto::job::{JobAnswer, JobId, JobSpec};
use hakase_proto::v1::admin_client::AdminClient;
use hakase_proto::v1::cluster_client::ClusterClient;
use hakase_proto::v1::{
    CompleteRequest, HeartbeatRequest, JobResult, LeaseRequest, RegisterRequest, StatusRequest,
    WatchIncumbentRequest,
};
use hakase_tests::*;
use hakase_worker::{solve_job, Workbench};
use tonic::Code;

fn code<T>(result: Result<T, tonic::Status>) -> Code {
    match result {
        Ok(_) => Code::Ok,
        Err(status) => status.code(),
    }
}

/// A well-formed token that is not the coordinator's.
const WRONG: &str = "wrong-token-0123456789";

#[test]
fn bad_peers_and_requests_are_refused_and_duplicates_are_harmless() {
    let game_name = "pokemon-gen:1";
    let reference = core_solution(game_name, SolverConfig::default());
    let game = load_preset(game_name).expect("preset");
    let fingerprint = game.fingerprint().to_string();
    let dir = Scratch::new("rpc");
    let (mut coordinator, url) = start_coordinator(
        &dir,
        "coordinator",
        &dir.join("db"),
        &["--game", game_name, "--lease-secs", "2"],
    );

    // Worker processes with a short or wrong token or for another game give up with an
    // error that says why.
    let mut short_token = start_worker(&dir, "shorttoken", &url, &["--token", "nope"]);
    assert!(!short_token.wait(Duration::from_secs(60)).success());
    assert!(
        short_token
            .errors()
            .contains("the token has 4 characters, fewer than 16"),
        "{}",
        short_token.errors()
    );
    let mut wrong_token = start_worker(
        &dir,
        "badtoken",
        &url,
        &["--token", "wrong-token-0123456789"],
    );
    assert!(!wrong_token.wait(Duration::from_secs(60)).success());
    assert!(
        wrong_token
            .errors()
            .contains("coordinator refused the worker: the coordinator refused the token"),
        "{}",
        wrong_token.errors()
    );
    let mut other_game = start_worker(&dir, "othergame", &url, &["--game", "pokemon-qiita2023"]);
    assert!(!other_game.wait(Duration::from_secs(60)).success());
    assert!(
        other_game.errors().contains("fingerprint"),
        "{}",
        other_game.errors()
    );

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let bench = Workbench::new(game, SolverConfig::default(), None, 1_000_000);
    let mut told_run_id = String::new();
    // Hands out the task reading the incumbent stream, awaited once the run is over.
    #[allow(clippy::async_yields_async)]
    let watched = runtime.block_on(async {
        let ch = channel(&url, None, None).expect("channel");
        let mut anonymous = ClusterClient::new(ch.clone());
        let register = RegisterRequest {
            worker_name: "test".into(),
            fingerprint: String::new(),
            threads: 1,
        };
        assert_eq!(
            code(anonymous.register(register.clone()).await),
            Code::Unauthenticated
        );
        let mut wrong =
            ClusterClient::with_interceptor(ch.clone(), Auth::new(WRONG).expect("auth"));
        assert_eq!(
            code(wrong.register(register.clone()).await),
            Code::Unauthenticated
        );
        // `Bearer ` with nothing after it is no token at all.
        let mut empty = ClusterClient::with_interceptor(ch.clone(), |mut r: tonic::Request<()>| {
            r.metadata_mut()
                .insert("authorization", "Bearer ".parse().expect("header"));
            Ok(r)
        });
        assert_eq!(
            code(empty.register(register.clone()).await),
            Code::Unauthenticated
        );
        let mut admin_wrong =
            AdminClient::with_interceptor(ch.clone(), Auth::new(WRONG).expect("auth"));
        assert_eq!(
            code(admin_wrong.status(StatusRequest {}).await),
            Code::Unauthenticated
        );

        let mut client =
            ClusterClient::with_interceptor(ch.clone(), Auth::new(TOKEN).expect("auth"))
                .max_decoding_message_size(64 << 20)
                .max_encoding_message_size(64 << 20);
        let other = RegisterRequest {
            fingerprint: "0123456789abcdef".into(),
            ..register.clone()
        };
        assert_eq!(code(client.register(other).await), Code::FailedPrecondition);
        let reply = client
            .register(register.clone())
            .await
            .expect("register")
            .into_inner();
        assert_eq!(reply.fingerprint, fingerprint);
        told_run_id.clone_from(&reply.run_id);
        let rebuilt =
            hakase_proto::game::from_spec(reply.game.as_ref().expect("game"), &fingerprint)
                .expect("the game rebuilds with the same fingerprint");
        assert_eq!(rebuilt.answers().len(), bench.game().answers().len());

        // The incumbent stream checks who asks like every other call; a good one is read to
        // its end in the background (it must end when the coordinator stops).
        let watch = |fp: &str| WatchIncumbentRequest {
            worker_id: reply.worker_id,
            secret: reply.secret.clone(),
            fingerprint: fp.to_string(),
        };
        assert_eq!(
            code(anonymous.watch_incumbent(watch(&fingerprint)).await),
            Code::Unauthenticated
        );
        assert_eq!(
            code(client.watch_incumbent(watch("ffff")).await),
            Code::FailedPrecondition
        );
        let mut stream = client
            .watch_incumbent(watch(&fingerprint))
            .await
            .expect("watch")
            .into_inner();
        let watched = tokio::spawn(async move {
            let mut seen = Vec::new();
            while let Some(best) = stream.message().await.expect("the stream ends cleanly") {
                seen.push((best.value, best.first_index));
            }
            seen
        });

        let lease = |max_jobs: u32, fp: &str| LeaseRequest {
            worker_id: reply.worker_id,
            secret: reply.secret.clone(),
            fingerprint: fp.to_string(),
            max_jobs,
        };
        assert_eq!(
            code(client.lease(lease(0, &fingerprint)).await),
            Code::InvalidArgument
        );
        assert_eq!(
            code(client.lease(lease(1 << 20, &fingerprint)).await),
            Code::InvalidArgument
        );
        assert_eq!(
            code(client.lease(lease(1, "ffff")).await),
            Code::FailedPrecondition
        );
        let mut job = None;
        for _ in 0..600 {
            let leased = client
                .lease(lease(1, &fingerprint))
                .await
                .expect("lease")
                .into_inner();
            if let Some(j) = leased.jobs.into_iter().next() {
                job = Some(j);
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let job = job.expect("a job to lease");
        let (id, spec, beta): (JobId, JobSpec, u32) = JobSpec::from_proto(
            &job,
            bench.game().answers().len(),
            bench.game().guesses().len(),
        )
        .expect("a valid job");

        let heartbeat = HeartbeatRequest {
            worker_id: reply.worker_id,
            secret: reply.secret.clone(),
            job_ids: vec![vec![1, 2, 3]],
        };
        assert_eq!(
            code(client.heartbeat(heartbeat).await),
            Code::InvalidArgument
        );

        let answer = solve_job(bench.solver(), &spec, beta);
        let good = answer.to_proto(id);
        let complete = |result: Option<JobResult>, fp: &str| CompleteRequest {
            worker_id: reply.worker_id,
            secret: reply.secret.clone(),
            fingerprint: fp.to_string(),
            result,
            results: Vec::new(),
            lease_jobs: 0,
        };
        assert_eq!(
            code(client.complete(complete(None, &fingerprint)).await),
            Code::InvalidArgument
        );
        assert_eq!(
            code(client.complete(complete(Some(good.clone()), "ffff")).await),
            Code::FailedPrecondition
        );
        let unknown = JobResult {
            job_id: vec![7; 16],
            ..good.clone()
        };
        assert_eq!(
            code(
                client
                    .complete(complete(Some(unknown.clone()), &fingerprint))
                    .await
            ),
            Code::NotFound
        );
        // Each malformed report comes from a fresh worker: it is refused, and its sender is
        // quarantined for it (an honest worker never sends one).
        let mut malformed = vec![JobResult {
            job_id: vec![0; 5],
            ..good.clone()
        }];
        if let Outcome::Exact { .. } = answer.outcome {
            malformed.push(JobResult {
                tree: vec![0xFF; 40],
                ..good.clone()
            });
            malformed.push(JobResult {
                tree: vec![0; 25 << 20],
                ..good.clone()
            });
        } else {
            malformed.push(JobResult {
                value: beta.saturating_sub(1),
                ..good.clone()
            });
        }
        for result in malformed {
            let sender = client
                .register(register.clone())
                .await
                .expect("register")
                .into_inner();
            let report = CompleteRequest {
                worker_id: sender.worker_id,
                secret: sender.secret.clone(),
                ..complete(Some(result), &fingerprint)
            };
            assert_eq!(code(client.complete(report).await), Code::InvalidArgument);
            let next = LeaseRequest {
                worker_id: sender.worker_id,
                secret: sender.secret.clone(),
                fingerprint: fingerprint.clone(),
                max_jobs: 1,
            };
            assert_eq!(
                code(client.lease(next).await),
                Code::PermissionDenied,
                "the sender of a malformed report is quarantined"
            );
        }
        // Heartbeats are limited per worker: a flood is refused, not walked.
        let flooder = client
            .register(register.clone())
            .await
            .expect("register")
            .into_inner();
        let mut codes = Vec::new();
        for _ in 0..40 {
            let beat = HeartbeatRequest {
                worker_id: flooder.worker_id,
                secret: flooder.secret.clone(),
                job_ids: Vec::new(),
            };
            codes.push(code(client.heartbeat(beat).await));
        }
        assert!(codes.contains(&Code::Ok), "{codes:?}");
        assert!(codes.contains(&Code::ResourceExhausted), "{codes:?}");
        assert!(
            codes
                .iter()
                .all(|c| matches!(c, Code::Ok | Code::ResourceExhausted)),
            "{codes:?}"
        );
        // The same result twice: the second has no lease behind it and is refused.
        let first = client
            .complete(complete(Some(good.clone()), &fingerprint))
            .await
            .expect("complete")
            .into_inner();
        assert!(first.accepted);
        assert_eq!(
            code(
                client
                    .complete(complete(Some(good.clone()), &fingerprint))
                    .await
            ),
            Code::NotFound
        );
        // A batch: the known job is taken (a duplicate now), the unknown one is not, and
        // nothing in it is refused.
        let batch = CompleteRequest {
            worker_id: reply.worker_id,
            secret: reply.secret.clone(),
            fingerprint: fingerprint.clone(),
            result: None,
            results: vec![good.clone(), unknown],
            lease_jobs: 0,
        };
        let batched = client
            .complete(batch)
            .await
            .expect("batch complete")
            .into_inner();
        // Neither is held any more (the known job was reported once already).
        assert_eq!(batched.taken, vec![false, false]);
        assert!(!batched.accepted);
        assert!(batched.lease.is_none(), "no lease was asked for");
        // A report may lease too, but not more than a lease may.
        let greedy = CompleteRequest {
            worker_id: reply.worker_id,
            secret: reply.secret.clone(),
            fingerprint: fingerprint.clone(),
            result: None,
            results: vec![good.clone()],
            lease_jobs: 1025,
        };
        assert_eq!(code(client.complete(greedy).await), Code::InvalidArgument);
        let refill = CompleteRequest {
            worker_id: reply.worker_id,
            secret: reply.secret.clone(),
            fingerprint: fingerprint.clone(),
            result: None,
            results: vec![good.clone()],
            lease_jobs: 2,
        };
        let refilled = client
            .complete(refill)
            .await
            .expect("a report that leases")
            .into_inner();
        assert_eq!(refilled.taken, vec![false]);
        let refill = refilled.lease.expect("the lease asked for with the report");
        // One result of many is in and nobody else leases: the queue has jobs to spare.
        assert!(!refill.finished);
        assert_eq!(refill.jobs.len(), 2, "{refill:?}");
        for job in &refill.jobs {
            let (leased, _, _) = JobSpec::from_proto(
                job,
                bench.game().answers().len(),
                bench.game().guesses().len(),
            )
            .expect("a valid job");
            assert_ne!(leased, id, "the job just reported is not handed out again");
        }
        let decoded = JobAnswer::from_proto(&answer.to_proto(id), bench.game().guesses().len())
            .expect("round trip");
        assert_eq!(decoded.1.outcome, answer.outcome);
        // A false exact value (with a tree that totals more) quarantines the worker: it is
        // refused from then on.
        if let Outcome::Exact { value, .. } = answer.outcome {
            let lie = JobResult {
                value: value - 1,
                ..answer.to_proto(id)
            };
            // The job was reported already, so the lie has no lease behind it; its forged
            // tree is still checked first, so the sender is caught, not merely turned away.
            assert_eq!(
                code(
                    client
                        .complete(complete(Some(lie.clone()), &fingerprint))
                        .await
                ),
                Code::InvalidArgument
            );
            assert_eq!(
                code(client.complete(complete(Some(lie), &fingerprint)).await),
                Code::PermissionDenied,
                "the liar is quarantined"
            );
        }
        watched
    });

    // A real worker finishes the run; the result is still exact.
    let mut worker = start_worker(&dir, "worker", &url, &[]);
    finished_as(&mut coordinator, &reference);
    // Repeated reports are refused (no lease behind them), not counted as duplicates.
    assert!(worker.wait(Duration::from_secs(60)).success());

    // The stream told better and better totals down to the optimum (the same one again
    // when the audit's last re-runs wait for idle workers, never a worse one), and ended
    // when the coordinator stopped (else its graceful shutdown would have waited on it).
    let seen = runtime
        .block_on(async { tokio::time::timeout(Duration::from_secs(30), watched).await })
        .expect("the stream ended with the coordinator")
        .expect("the reading task");
    assert!(seen.windows(2).all(|w| w[1] <= w[0]), "{seen:?}");
    let optimum = match reference.best.as_ref().map(|b| b.outcome) {
        Some(Outcome::Exact { value, .. }) => value,
        other => panic!("the reference has no exact best: {other:?}"),
    };
    assert_eq!(seen.last().map(|s| s.0), Some(optimum), "{seen:?}");

    // The run id a worker is told does not give away the secret its audit sample is drawn
    // from (else a worker could lie on every claim outside the sample).
    let store = hakase_runs::Store::open(&dir.join("db"), bench.game(), &SolverConfig::default())
        .expect("the run database");
    let key = store.manifest().audit_key.expect("a run has an audit key");
    assert_eq!(told_run_id, store.run_id());
    assert!(!told_run_id.contains(&key), "{told_run_id}");
    assert_ne!(store.audit_seed(), told_run_id);
}
