//! Results are claims: fake workers speaking the real protocol forge bound claims, forge
//! trees, replay another job's result and another run's; next to one honest `hakase
//! worker`, the run must still end with the true optimum and both liars quarantined.

use std::time::Duration;

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{Outcome, SolverConfig, INFEASIBLE};
use hakase_proto::client::{channel, Auth};
use hakase_proto::job::{JobId, JobKind, JobSpec};
use hakase_proto::v1::admin_client::AdminClient;
use hakase_proto::v1::cluster_client::ClusterClient;
use hakase_proto::v1::{CompleteRequest, JobResult, LeaseRequest, RegisterRequest, StatusRequest};
use hakase_tests::*;
use hakase_worker::{solve_job, Workbench};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::Code;

const GAME: &str = "pokemon-qiita2023";
/// Per-worker tokens of the two liars (the honest worker uses the shared one).
const BOUNDER: &str = "bounder-token-0123456789";
const FORGER: &str = "forger-token-0123456789";
/// The honest worker's own token (for runs that refuse the shared one to workers).
const HONEST: &str = "honest-token-0123456789";

type Client = ClusterClient<InterceptedService<Channel, Auth>>;

struct Fake {
    client: Client,
    id: u64,
    secret: String,
    fingerprint: String,
}

/// A cluster client of `url` presenting `token`.
fn client(url: &str, token: &str) -> Client {
    let ch = channel(url, None, None).expect("channel");
    ClusterClient::with_interceptor(ch, Auth::new(token).expect("auth"))
        .max_decoding_message_size(64 << 20)
}

/// Registers with `token`: the worker id, or the refusal's code.
async fn register(
    url: &str,
    token: &str,
    fingerprint: &str,
) -> Result<(Client, u64, String), Code> {
    let mut client = client(url, token);
    let reply = client
        .register(RegisterRequest {
            worker_name: "liar".into(),
            fingerprint: fingerprint.into(),
            threads: 8,
        })
        .await
        .map_err(|s| s.code())?
        .into_inner();
    Ok((client, reply.worker_id, reply.secret))
}

impl Fake {
    async fn join(url: &str, token: &str, fingerprint: &str) -> Fake {
        let (client, id, secret) = register(url, token, fingerprint).await.expect("register");
        Fake {
            client,
            id,
            secret,
            fingerprint: fingerprint.into(),
        }
    }

    async fn lease(&mut self, max_jobs: u32) -> Result<Vec<(JobId, JobSpec, u32)>, Code> {
        let game = load_preset(GAME).expect("preset");
        let reply = self
            .client
            .lease(LeaseRequest {
                worker_id: self.id,
                fingerprint: self.fingerprint.clone(),
                max_jobs,
                secret: self.secret.clone(),
            })
            .await
            .map_err(|s| s.code())?
            .into_inner();
        Ok(reply
            .jobs
            .iter()
            .map(|j| {
                JobSpec::from_proto(j, game.answers().len(), game.guesses().len()).expect("job")
            })
            .collect())
    }

    async fn complete(&mut self, result: JobResult) -> Code {
        let request = CompleteRequest {
            worker_id: self.id,
            fingerprint: self.fingerprint.clone(),
            result: Some(result),
            results: Vec::new(),
            lease_jobs: 0,
            secret: self.secret.clone(),
        };
        match self.client.complete(request).await {
            Ok(_) => Code::Ok,
            Err(status) => status.code(),
        }
    }
}

/// The coordinator's "checked: …" line, from its JSON status.
fn checked_line(audit: &serde_json::Value) -> String {
    serde_json::from_value::<hakase_runs::AuditSummary>(audit.clone())
        .map(|a| a.line())
        .unwrap_or_default()
}

/// A bound claim "this job totals at least its cutoff", made without any search.
fn forged_bound(id: JobId, beta: u32) -> JobResult {
    JobResult {
        job_id: id.to_bytes().to_vec(),
        beta,
        exact: false,
        value: beta,
        ..JobResult::default()
    }
}

#[test]
fn liars_are_caught_and_quarantined_and_the_true_optimum_stands() {
    let reference = core_solution(GAME, SolverConfig::default());
    assert_eq!(reference.best.map(|b| b.outcome.value()), Some(964));
    let game = load_preset(GAME).expect("preset");
    let fingerprint = game.fingerprint().to_string();
    let best_guess = game.find_guess("ジーランス").expect("guess");

    let dir = Scratch::new("malicious");
    let tokens = dir.join("tokens");
    std::fs::write(&tokens, format!("bounder {BOUNDER}\nforger {FORGER}\n")).expect("tokens");
    let tokens = tokens.to_string_lossy().to_string();
    // Every needed claim is re-run: the bounder's lies are bounds only, which no tree can
    // catch and a sample might miss.
    let (mut coordinator, url) = start_coordinator(
        &dir,
        "coordinator",
        &dir.join("db"),
        &[
            "--game",
            GAME,
            "--lease-secs",
            "5",
            "--tokens-file",
            &tokens,
            "--audit-fraction",
            "1",
        ],
    );

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let bench = Workbench::new(game.clone(), SolverConfig::default(), None, 1_000_000);
    runtime.block_on(async {
        // The bounder takes jobs before anyone else and claims each is at least its cutoff,
        // until it has lied about the true best first guess.
        let mut bounder = Fake::join(&url, BOUNDER, &fingerprint).await;
        // Sampled claims are re-run as they arrive, so the bounder may be caught (and
        // refused) before it reaches the best first guess: that ends its attack too.
        let mut forged = 0;
        let mut hid_the_best = false;
        let mut caught_early = false;
        'attack: for _ in 0..400 {
            let jobs = match bounder.lease(8).await {
                Ok(jobs) => jobs,
                Err(code) => {
                    assert_eq!(code, Code::PermissionDenied);
                    caught_early = true;
                    break;
                }
            };
            for (id, spec, beta) in jobs {
                hid_the_best |= spec.kind == JobKind::Guess(best_guess);
                match bounder.complete(forged_bound(id, beta)).await {
                    Code::Ok => forged += 1,
                    code => {
                        assert_eq!(code, Code::PermissionDenied);
                        caught_early = true;
                        break 'attack;
                    }
                }
            }
            if hid_the_best {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(
            hid_the_best || caught_early,
            "the bounder neither saw the best first guess nor was caught"
        );
        assert!(forged >= 1);

        // The forger replays another run's result, then another job's tree.
        let mut forger = Fake::join(&url, FORGER, &fingerprint).await;
        let jobs = loop {
            let jobs = forger.lease(2).await.expect("lease");
            if jobs.len() == 2 {
                break jobs;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        let (id_a, spec_a, _) = &jobs[0];
        let (id_b, _, _) = &jobs[1];
        let honest_a = solve_job(bench.solver(), spec_a, INFEASIBLE);
        assert!(matches!(honest_a.outcome, Outcome::Exact { .. }));
        // Another run (another game's job id): refused as unknown, nothing taken.
        let other_run = load_preset("pokemon-today").expect("preset");
        let foreign = JobSpec {
            kind: spec_a.kind,
            node: spec_a.node.clone(),
        }
        .id(other_run.fingerprint(), &SolverConfig::default());
        assert_eq!(
            forger.complete(honest_a.to_proto(foreign)).await,
            Code::NotFound
        );
        // Job A's true result sent as job B's: the tree does not start with B's guess.
        assert_eq!(
            forger.complete(honest_a.to_proto(*id_b)).await,
            Code::InvalidArgument
        );
        // Caught: refused from now on, by worker id and by its token.
        assert_eq!(forger.lease(1).await.err(), Some(Code::PermissionDenied));
        assert_eq!(
            forger.complete(honest_a.to_proto(*id_a)).await,
            Code::PermissionDenied
        );
        assert_eq!(
            register(&url, FORGER, &fingerprint).await.err(),
            Some(Code::PermissionDenied)
        );
    });

    // One honest worker finishes the run; the re-runs catch the bounder.
    let mut worker = start_worker(&dir, "honest", &url, &[]);
    let doc = finished_as(&mut coordinator, &reference);
    let audit = &doc["status"]["audit"];
    assert_eq!(
        audit["quarantined"].as_array().map(Vec::len),
        Some(2),
        "{audit}"
    );
    assert!(audit["lies_caught"].as_u64() >= Some(2), "{audit}");
    // The runner-up's claim and the best first guess's lower side, and any claim that
    // states more than its cutoff (how many depends on what was leased before the incumbent).
    assert!(audit["rerun_decisive"].as_u64() >= Some(2), "{audit}");
    assert!(audit["exact_verified"].as_u64() >= Some(1), "{audit}");
    println!(
        "malicious: bounds forged, a foreign job id and a swapped tree; result {}; {}",
        doc["solution"]["best"]["outcome"],
        checked_line(audit)
    );
    assert!(worker.wait(Duration::from_secs(60)).success());
    // The quarantine is in the run's database: a restarted coordinator keeps refusing both.
    let store = hakase_runs::Store::open(&dir.join("db"), &game, &SolverConfig::default())
        .expect("the run database");
    let mut names: Vec<Option<String>> = store
        .load_quarantine()
        .expect("quarantine")
        .into_iter()
        .map(|q| q.token)
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec![Some("bounder".to_string()), Some("forger".to_string())]
    );
}

/// Splits the run into part jobs (`--split-first`), whose bound claims are audited like
/// first-guess claims; workers must present their own tokens (`--require-worker-tokens`);
/// the coordinator is killed and restarted between the two liars.
#[test]
fn part_claims_are_audited_and_a_quarantine_outlives_a_restart() {
    let reference = core_solution(GAME, SolverConfig::default());
    let game = load_preset(GAME).expect("preset");
    let fingerprint = game.fingerprint().to_string();
    let dir = Scratch::new("malicious-split");
    let tokens = dir.join("tokens");
    std::fs::write(
        &tokens,
        format!("bounder {BOUNDER}\nforger {FORGER}\nhonest {HONEST}\n"),
    )
    .expect("tokens");
    let tokens = tokens.to_string_lossy().to_string();
    let db = dir.join("db");
    let args = [
        "--game",
        GAME,
        "--lease-secs",
        "2",
        "--tokens-file",
        &tokens,
        "--require-worker-tokens",
        "--audit-fraction",
        "1",
        "--split-first",
    ];
    let (mut first, url) = start_coordinator(&dir, "coordinator", &db, &args);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let forger_id = runtime.block_on(async {
        // The shared token no longer makes a worker; it still reads the status.
        assert_eq!(
            register(&url, TOKEN, &fingerprint).await.err(),
            Some(Code::PermissionDenied)
        );
        let ch = channel(&url, None, None).expect("channel");
        let mut admin = AdminClient::with_interceptor(ch, Auth::new(TOKEN).expect("auth"));
        assert!(admin.status(StatusRequest {}).await.is_ok());
        // A true tree sent with a total one lower than it takes: refused, and its maker
        // quarantined.
        let mut forger = Fake::join(&url, FORGER, &fingerprint).await;
        let (id, spec) = loop {
            if let Some((id, spec, _)) = forger.lease(1).await.expect("lease").pop() {
                break (id, spec);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        let bench = Workbench::new(game.clone(), SolverConfig::default(), None, 1_000_000);
        let mut understated = solve_job(bench.solver(), &spec, INFEASIBLE).to_proto(id);
        assert!(understated.exact);
        understated.value -= 1;
        assert_eq!(forger.complete(understated).await, Code::InvalidArgument);
        assert_eq!(forger.lease(1).await.err(), Some(Code::PermissionDenied));
        forger.id
    });

    // Killed and started again: the quarantine is read back from the run database.
    first.kill9();
    let (mut coordinator, url) = start_coordinator(&dir, "coordinator-again", &db, &args);
    let forged = runtime.block_on(async {
        assert_eq!(
            register(&url, FORGER, &fingerprint).await.err(),
            Some(Code::PermissionDenied)
        );
        // The bounder claims every part job it gets totals at least its cutoff, until it
        // is caught or has taken 80 jobs.
        let mut bounder = Fake::join(&url, BOUNDER, &fingerprint).await;
        let (mut forged, mut idle) = (0, 0);
        while forged < 80 && idle < 100 {
            let jobs = match bounder.lease(8).await {
                Ok(jobs) => jobs,
                Err(Code::PermissionDenied) => break,
                Err(code) => panic!("lease: {code:?}"),
            };
            idle = if jobs.is_empty() { idle + 1 } else { 0 };
            for (id, _, beta) in jobs {
                let code = bounder.complete(forged_bound(id, beta)).await;
                assert!(
                    matches!(code, Code::Ok | Code::PermissionDenied),
                    "{code:?}"
                );
                forged += 1;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        forged
    });
    assert!(forged > 0);

    let mut worker = start_worker(&dir, "honest", &url, &["--token", HONEST]);
    let doc = finished_as(&mut coordinator, &reference);
    let audit = &doc["status"]["audit"];
    let quarantined: Vec<u64> = audit["quarantined"]
        .as_array()
        .expect("quarantined workers")
        .iter()
        .filter_map(serde_json::Value::as_u64)
        .collect();
    // The forger (kept from before the restart) and the bounder, caught by a re-run of one
    // of its part claims.
    assert_eq!(quarantined.len(), 2, "{audit}");
    assert_eq!(quarantined[0], forger_id, "{audit}");
    assert!(audit["lies_caught"].as_u64() >= Some(1), "{audit}");
    assert!(audit["rerun_decisive"].as_u64() >= Some(1), "{audit}");
    assert!(audit["rerun_policy"].as_u64() >= Some(1), "{audit}");
    assert_eq!(audit["unchecked"].as_u64(), Some(0), "{audit}");
    println!(
        "malicious split: {forged} part claims forged; {}",
        checked_line(audit)
    );
    assert!(worker.wait(Duration::from_secs(60)).success());
}

/// Issue cases 1, 4 and 5: a call must prove it comes from the worker it names. A lie sent
/// under the coordinator's own id 0, a report or heartbeat under another worker's id, a
/// made-up id, and a report of a job the caller never leased are all refused.
#[test]
fn calls_under_another_workers_id_or_for_jobs_not_held_are_refused() {
    let game = load_preset(GAME).expect("preset");
    let fingerprint = game.fingerprint().to_string();
    let dir = Scratch::new("credentials");
    let (mut coordinator, url) = start_coordinator(
        &dir,
        "coordinator",
        &dir.join("db"),
        &["--game", GAME, "--lease-secs", "5"],
    );
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let mut honest = Fake::join(&url, TOKEN, &fingerprint).await;
        let mut liar = Fake::join(&url, TOKEN, &fingerprint).await;
        let mut held = Vec::new();
        for _ in 0..200 {
            held = honest.lease(1).await.expect("lease");
            if !held.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let (id, spec, beta) = held.first().cloned().expect("a job to lease");
        let lie = forged_bound(id, beta.saturating_add(1000));

        // Case 1: the coordinator's own id, with the liar's secret or none.
        let as_coordinator = |secret: &str| CompleteRequest {
            worker_id: 0,
            fingerprint: fingerprint.clone(),
            result: Some(lie.clone()),
            results: Vec::new(),
            lease_jobs: 0,
            secret: secret.to_string(),
        };
        for secret in [String::new(), liar.secret.clone()] {
            let refused = liar.client.complete(as_coordinator(&secret)).await;
            assert_eq!(refused.err().map(|s| s.code()), Some(Code::Unauthenticated));
        }
        // Case 4: the honest worker's id with the liar's secret (a frame-up).
        let framed = CompleteRequest {
            worker_id: honest.id,
            secret: liar.secret.clone(),
            ..as_coordinator("")
        };
        let refused = liar.client.complete(framed).await;
        assert_eq!(refused.err().map(|s| s.code()), Some(Code::Unauthenticated));
        // A job the liar never leased, under its own credentials.
        assert_eq!(liar.complete(lie.clone()).await, Code::NotFound);
        // Case 5: heartbeats from a made-up id keep nothing alive.
        let beat = hakase_proto::v1::HeartbeatRequest {
            worker_id: 987_654_321,
            job_ids: vec![id.to_bytes().to_vec()],
            secret: String::new(),
        };
        let refused = liar.client.heartbeat(beat).await;
        assert_eq!(refused.err().map(|s| s.code()), Some(Code::Unauthenticated));
        // The holder's own report is taken.
        let bench = Workbench::new(game.clone(), SolverConfig::default(), None, 1_000_000);
        let answer = solve_job(bench.solver(), &spec, beta);
        assert_eq!(honest.complete(answer.to_proto(id)).await, Code::Ok);
        // Once: the same report again holds no lease.
        assert_eq!(honest.complete(answer.to_proto(id)).await, Code::NotFound);
    });
    coordinator.kill9();
}
