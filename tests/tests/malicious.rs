//! Results are claims: fake workers speaking the real protocol forge bound claims, forge
//! trees, replay another job's result and another run's; next to one honest `hakase
//! worker`, the run must still end with the true optimum and both liars quarantined.

use std::time::Duration;

use hakase_core::presets::load_preset;
use hakase_core::solver::{Outcome, SolverConfig, INFEASIBLE};
use hakase_proto::job::{JobId, JobKind, JobSpec};
use hakase_proto::v1::cluster_client::ClusterClient;
use hakase_proto::v1::{CompleteRequest, JobResult, LeaseRequest, RegisterRequest};
use hakase_tests::*;
use hakase_worker::client::{channel, Auth};
use hakase_worker::{solve_job, Workbench};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::Code;

const GAME: &str = "pokemon-qiita2023";
/// Per-worker tokens of the two liars (the honest worker uses the shared one).
const BOUNDER: &str = "bounder-token-0123456789";
const FORGER: &str = "forger-token-0123456789";

type Client = ClusterClient<InterceptedService<Channel, Auth>>;

struct Fake {
    client: Client,
    id: u64,
    fingerprint: String,
}

impl Fake {
    async fn join(url: &str, token: &str, fingerprint: &str) -> Fake {
        let ch = channel(url, None, None).expect("channel");
        let mut client = ClusterClient::with_interceptor(ch, Auth::new(token).expect("auth"))
            .max_decoding_message_size(64 << 20);
        let id = client
            .register(RegisterRequest {
                worker_name: "liar".into(),
                fingerprint: fingerprint.into(),
                threads: 8,
            })
            .await
            .expect("register")
            .into_inner()
            .worker_id;
        Fake {
            client,
            id,
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
        };
        match self.client.complete(request).await {
            Ok(_) => Code::Ok,
            Err(status) => status.code(),
        }
    }
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
        let mut forged = 0;
        let mut hid_the_best = false;
        for _ in 0..400 {
            let jobs = bounder.lease(8).await.expect("lease");
            for (id, spec, beta) in jobs {
                hid_the_best |= spec.kind == JobKind::Guess(best_guess);
                assert_eq!(bounder.complete(forged_bound(id, beta)).await, Code::Ok);
                forged += 1;
            }
            if hid_the_best {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(hid_the_best, "the bounder never saw the best first guess");
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
        let honest_a = solve_job(&bench.solver, spec_a, INFEASIBLE);
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
        let ch = channel(&url, None, None).expect("channel");
        let mut again = ClusterClient::with_interceptor(ch, Auth::new(FORGER).expect("auth"));
        let rejoin = again
            .register(RegisterRequest {
                worker_name: "liar again".into(),
                fingerprint: fingerprint.clone(),
                threads: 1,
            })
            .await;
        assert_eq!(rejoin.err().map(|s| s.code()), Some(Code::PermissionDenied));
    });

    // One honest worker finishes the run; the re-runs catch the bounder.
    let mut worker = start_worker(&dir, "honest", &url, &[]);
    assert!(
        coordinator.wait(Duration::from_secs(300)).success(),
        "{}",
        coordinator.errors()
    );
    assert_eq!(
        essentials_of_output(&coordinator.output()),
        essentials(&reference)
    );
    let doc: serde_json::Value = serde_json::from_str(&coordinator.output()).expect("JSON");
    let audit = &doc["status"]["audit"];
    assert_eq!(
        audit["quarantined"].as_array().map(Vec::len),
        Some(2),
        "{audit}"
    );
    assert!(audit["lies_caught"].as_u64() >= Some(2), "{audit}");
    assert!(audit["rerun_decisive"].as_u64() == Some(1), "{audit}");
    assert!(audit["exact_verified"].as_u64() >= Some(1), "{audit}");
    assert!(worker.wait(Duration::from_secs(60)).success());
    // The quarantine is in the run's database: a restarted coordinator keeps refusing both.
    let store = hakase_coordinator::cluster::store::Store::open(
        &dir.join("db"),
        &game,
        &SolverConfig::default(),
    )
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
