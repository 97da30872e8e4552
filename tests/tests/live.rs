//! The coordinator's HTTP port (`--http`) and a worker's `--metrics`, on real processes on
//! 127.0.0.1: a pokemon-verbum run through two workers is scraped mid-run and at the end,
//! and the final figures must be the proven ones (best total 1875, every first guess
//! settled) and the coordinator's own final status, figure by figure. Without the token
//! both ports answer 401.
//!
//! The live page in headless Chromium (skipped loudly without Debian's chromium, like
//! web.rs): without a token it asks for one; with it, it shows the run progressing and then
//! the proven result and the ranking. HAKASE_SCREENSHOTS=DIR keeps phone- and desktop-sized
//! screenshots mid-run and at the end.

use std::path::PathBuf;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

use hakase_tests::*;

const GAME: &str = "pokemon-verbum";
const LIMIT: Duration = Duration::from_secs(300);

/// `GET url` with the bearer token when given: (status, body).
fn get(url: &str, bearer: Option<&str>) -> (u16, String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let client = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
        let mut request = hyper::Request::get(url);
        if let Some(token) = bearer {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let reply = client
            .request(request.body(Empty::new()).expect("a request"))
            .await
            .unwrap_or_else(|e| panic!("GET {url}: {e}"));
        let status = reply.status().as_u16();
        let body = reply
            .into_body()
            .collect()
            .await
            .expect("the body")
            .to_bytes();
        (status, String::from_utf8_lossy(&body).into_owned())
    })
}

/// The value of the sample `name` (with its labels, e.g. `x_total{reason="policy"}`).
fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

/// A scrape of the coordinator's `/metrics` with the token.
fn scrape(base: &str) -> String {
    let (status, text) = get(&format!("{base}metrics"), Some(TOKEN));
    assert_eq!(status, 200, "{text}");
    assert_eq!(text.lines().last(), Some("# EOF"), "{text}");
    text
}

/// The address the coordinator printed for its page.
fn page_address(coordinator: &Proc) -> String {
    wait_for(Duration::from_secs(60), "the page address", || {
        coordinator
            .errors()
            .lines()
            .find_map(|l| l.strip_prefix("hakase coordinator page on "))
            .map(|a| a.trim().to_string())
    })
}

/// A coordinator of pokemon-verbum serving --http for a minute after its result, and two
/// workers slowed to 20 ms a job (about 5 s of run), the first with --metrics.
fn slow_run(dir: &Scratch) -> (Proc, String, Vec<Proc>) {
    let (coordinator, url) = start_coordinator(
        dir,
        "coordinator",
        &dir.join("db"),
        &[
            "--game",
            GAME,
            "--http",
            "127.0.0.1:0",
            "--http-linger-secs",
            "120",
        ],
    );
    let base = page_address(&coordinator);
    let slow = ["--job-delay-ms", "20"];
    let workers = vec![
        start_worker(
            dir,
            "w0",
            &url,
            &[&slow[..], &["--metrics", "127.0.0.1:0", "--json"]].concat(),
        ),
        start_worker(dir, "w1", &url, &slow),
    ];
    (coordinator, base, workers)
}

/// The coordinator's result (JSON) once printed.
fn result_of(coordinator: &Proc) -> Value {
    let text = wait_for(LIMIT, "the coordinator's result", || {
        let out = coordinator.output();
        serde_json::from_str::<Value>(&out).ok().map(|_| out)
    });
    serde_json::from_str(&text).expect("JSON")
}

/// The first guesses the coordinator's result names as resting on unchecked claims.
fn unchecked_of(result: &Value) -> Vec<&str> {
    result["unchecked_claims"]
        .as_array()
        .expect("unchecked_claims")
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

#[test]
fn metrics_follow_a_run_to_the_proven_optimum() {
    let dir = Scratch::new("metrics");
    let (_coordinator, base, mut workers) = slow_run(&dir);
    let coordinator = &_coordinator;

    // No token, a wrong one: refused, on the data and the metrics alike.
    for path in ["metrics", "api/v1/run"] {
        let url = format!("{base}{path}");
        assert_eq!(get(&url, None).0, 401, "{path} without a token");
        assert_eq!(get(&url, Some("wrong-token-0123456789")).0, 401, "{path}");
        assert_eq!(get(&format!("{url}?token={TOKEN}"), None).0, 200, "{path}");
    }
    // The page itself holds no figures and loads without one.
    let (status, html) = get(&base, None);
    assert_eq!(status, 200);
    assert!(html.contains("<script src=\"live.js\"></script>"), "{html}");

    // Mid-run: some first guesses settled, not all, the run not over.
    let mid = wait_for(LIMIT, "a scrape mid-run", || {
        let text = scrape(&base);
        let settled = metric(&text, "hakase_coordinator_first_guesses_settled")?;
        (settled > 0.0 && metric(&text, "hakase_coordinator_finished") == Some(0.0)).then_some(text)
    });
    std::fs::write(dir.join("mid.txt"), &mid).expect("keeping the scrape");
    let total = metric(&mid, "hakase_coordinator_first_guesses_total").expect("a total");
    assert!(metric(&mid, "hakase_coordinator_first_guesses_settled") < Some(total));
    assert_eq!(metric(&mid, "hakase_coordinator_workers_live"), Some(2.0));

    // The worker's own metrics, mid-run: every solved job slept 20 ms of busy time.
    let worker_base = wait_for(
        Duration::from_secs(60),
        "the worker's metrics address",
        || {
            workers[0]
                .errors()
                .lines()
                .find_map(|l| l.strip_prefix("hakase worker metrics on "))
                .map(|a| a.trim().to_string())
        },
    );
    assert_eq!(get(&worker_base, None).0, 401);
    let worker_mid = wait_for(LIMIT, "the worker to solve a job", || {
        let (status, text) = get(&worker_base, Some(TOKEN));
        assert_eq!(status, 200, "{text}");
        (metric(&text, "hakase_worker_jobs_solved_total")? > 0.0).then_some(text)
    });
    let solved = metric(&worker_mid, "hakase_worker_jobs_solved_total").expect("solved");
    let busy = metric(&worker_mid, "hakase_worker_busy_seconds_total").expect("busy");
    assert!(busy >= 0.02 * solved, "{busy} s busy for {solved} jobs");
    assert_eq!(metric(&worker_mid, "hakase_worker_slots"), Some(1.0));

    // The end: the proven optimum, and the coordinator's own final status figure by figure.
    let result = result_of(coordinator);
    let status = &result["status"];
    let end = scrape(&base);
    std::fs::write(dir.join("end.txt"), &end).expect("keeping the scrape");
    let m = |name: &str| metric(&end, name).unwrap_or_else(|| panic!("no {name} in:\n{end}"));
    let n = |v: &Value| v.as_u64().map(|v| v as f64);
    assert_eq!(m("hakase_coordinator_finished"), 1.0);
    assert_eq!(m("hakase_coordinator_best_total"), 1875.0);
    assert_eq!(m("hakase_coordinator_first_guesses_total"), total);
    assert_eq!(m("hakase_coordinator_first_guesses_settled"), total);
    assert_eq!(Some(total), n(&status["first_total"]));
    assert_eq!(
        Some(m("hakase_coordinator_jobs_done")),
        n(&status["jobs_done"])
    );
    assert_eq!(
        Some(m("hakase_coordinator_jobs_total")),
        n(&status["jobs_total"])
    );
    assert_eq!(m("hakase_coordinator_jobs_queued"), 0.0);
    assert_eq!(m("hakase_coordinator_jobs_leased"), 0.0);
    let counters = &status["counters"];
    assert_eq!(
        Some(m("hakase_coordinator_results_total")),
        n(&counters["completions"])
    );
    assert_eq!(
        Some(m("hakase_coordinator_leases_total")),
        n(&counters["leases"])
    );
    let audit = &status["audit"];
    for (name, key) in [
        (
            "hakase_coordinator_audit_exact_verified_total",
            "exact_verified",
        ),
        (
            "hakase_coordinator_audit_reruns_total{reason=\"decisive\"}",
            "rerun_decisive",
        ),
        (
            "hakase_coordinator_audit_reruns_total{reason=\"policy\"}",
            "rerun_policy",
        ),
        (
            "hakase_coordinator_audit_reruns_total{reason=\"ahead\"}",
            "rerun_ahead",
        ),
        ("hakase_coordinator_audit_unchecked_claims", "unchecked"),
        ("hakase_coordinator_audit_lies_caught_total", "lies_caught"),
    ] {
        assert_eq!(Some(m(name)), n(&audit[key]), "{name}");
    }
    assert_eq!(m("hakase_coordinator_audit_quarantined_workers"), 0.0);
    assert_eq!(metric(&end, "hakase_coordinator_eta_seconds"), None);

    // The JSON behind the page says the same.
    let (code, run) = get(&format!("{base}api/v1/run"), Some(TOKEN));
    assert_eq!(code, 200);
    let run: Value = serde_json::from_str(&run).expect("JSON");
    assert_eq!(run["finished"], true);
    assert_eq!(run["best"]["total"], 1875);
    assert_eq!(run["best"]["guess"], result["first_guess"]);
    assert_eq!(run["ranking"][0]["guess"], result["first_guess"]);
    assert_eq!(run["workers"].as_array().map(Vec::len), Some(2));
    let last = run["history"].as_array().and_then(|h| h.last()).cloned();
    assert_eq!(
        last.as_ref().map(|s| &s["settled"]),
        Some(&run["first_total"])
    );

    // The worker's final summary covers what its metrics showed mid-run.
    for w in &mut workers {
        assert!(w.wait(Duration::from_secs(60)).success(), "{}", w.errors());
    }

    // Issue 59, 5: after the run, with both workers gone, the page's figures stand still:
    // the clock stopped at the result, no more samples, no worker live, no rates.
    let after = |wait: bool| {
        if wait {
            // Longer than the sampler's period: a running clock would have moved.
            std::thread::sleep(Duration::from_secs_f64(2.5));
        }
        let (code, run) = get(&format!("{base}api/v1/run"), Some(TOKEN));
        assert_eq!(code, 200, "{run}");
        serde_json::from_str::<Value>(&run).expect("JSON")
    };
    let (first, second) = (after(false), after(true));
    assert_eq!(first["elapsed_secs"], second["elapsed_secs"], "{second}");
    assert_eq!(first["history"], second["history"], "{second}");
    assert_eq!(second["workers_live"], 0, "{second}");
    for w in second["workers"].as_array().expect("workers") {
        assert_eq!(
            (&w["live"], &w["rate"]),
            (&Value::Bool(false), &Value::Null),
            "{w}"
        );
    }
    // Each row resting on a claim nobody re-ran is flagged, as the result names them.
    let unchecked = unchecked_of(&result);
    for row in second["ranking"].as_array().expect("ranking") {
        let guess = row["guess"].as_str().unwrap_or_default();
        assert_eq!(row["unchecked"], unchecked.contains(&guess), "{row}");
    }
    // Every error of the port is JSON, and the icon is there.
    let (code, body) = get(&format!("{base}no-such-page"), None);
    assert_eq!(code, 404);
    let error: Value = serde_json::from_str(&body).expect("a JSON error");
    assert_eq!(error["error"]["kind"], "not_found", "{body}");
    assert_eq!(get(&format!("{base}favicon.ico"), None).0, 200);
    let summary: Value = serde_json::from_str(&workers[0].output()).expect("worker JSON");
    let done_mid = metric(&worker_mid, "hakase_worker_jobs_done_total").expect("done");
    assert!(n(&summary["jobs_done"]) >= Some(done_mid), "{summary}");
}

/// The page's `data-state` and the text of `id`.
async fn shown(client: &fantoccini::Client, id: &str) -> (String, String) {
    let v = client
        .execute(
            "return [document.body.dataset.state, document.getElementById(arguments[0]).textContent];",
            vec![Value::from(id)],
        )
        .await
        .expect("reading the page");
    let s = |i: usize| v[i].as_str().unwrap_or_default().to_string();
    (s(0), s(1))
}

async fn shoot(client: &fantoccini::Client, dir: &Option<PathBuf>, name: &str) {
    let Some(dir) = dir else { return };
    // A phone's screen, the whole page at phone width, a desktop's screen.
    for (width, height, label) in [
        (390, 844, "390"),
        (390, 2000, "390-full"),
        (1280, 900, "1280"),
    ] {
        client
            .set_window_size(width, height)
            .await
            .expect("resizing");
        // The plot is drawn for the new width on the resize event.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let png = client.screenshot().await.expect("a screenshot");
        std::fs::write(dir.join(format!("{name}-{label}.png")), png).expect("writing");
    }
}

#[test]
fn the_live_page_shows_progress_then_the_result() {
    if crate::web::no_browser() {
        return;
    }
    let _turn = crate::web::BROWSER
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let dir = Scratch::new("livepage");
    let shots = std::env::var_os("HAKASE_SCREENSHOTS").map(PathBuf::from);
    let (driver, driver_url) = crate::web::start_driver(&dir);
    let profile = dir.join("chromium-profile");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let (coordinator, base, _workers) = slow_run(&dir);
    runtime.block_on(async {
        let client = crate::web::connect(&driver_url, &profile).await;
        // Without the token the page asks for it.
        client.goto(&base).await.expect("opening the page");
        crate::web::wait_until(
            &client,
            "return document.body.dataset.state === 'login' ? 'yes' : '';",
        )
        .await;
        // With it (in the fragment, which is never sent), the run mid-way.
        client
            .goto(&format!("{base}#token={TOKEN}"))
            .await
            .expect("opening the page");
        let settled = crate::web::wait_until(
            &client,
            "const s = document.getElementById('settled').textContent; \
             return document.body.dataset.state === 'running' && /^[1-9]/.test(s) ? s : '';",
        )
        .await;
        assert!(settled.contains(" / "), "{settled}");
        let url = client.current_url().await.expect("the address");
        assert!(!url.as_str().contains(TOKEN), "the token stays in {url}");
        shoot(&client, &shots, "mid").await;

        // The end: the proven result, and the ranking's first row is it.
        crate::web::wait_until(
            &client,
            "return document.body.dataset.state === 'finished' ? 'yes' : '';",
        )
        .await;
        let result = result_of(&coordinator);
        let best = result["first_guess"].as_str().expect("a best guess");
        let (state, guess) = shown(&client, "result-guess").await;
        assert_eq!((state.as_str(), guess.as_str()), ("finished", best));
        let (_, total) = shown(&client, "result-total").await;
        assert!(total.starts_with("total 1875, mean "), "{total}");
        let (_, eta) = shown(&client, "eta").await;
        assert_eq!(eta, "done");
        let first_row = crate::web::wait_until(
            &client,
            "return document.querySelector('#ranking tbody tr td.guess-cell')?.textContent || '';",
        )
        .await;
        assert_eq!(first_row, best);
        // The rows resting on unchecked claims carry the result's `*`, and the note says so.
        let unchecked = unchecked_of(&result);
        let rows = client
            .execute(
                "return Array.from(document.querySelectorAll('#ranking tbody tr')).map((tr) => \
                 [tr.cells[1].textContent, tr.cells[2].textContent.endsWith(' *')]);",
                vec![],
            )
            .await
            .expect("the ranking");
        let rows: Vec<(String, bool)> = serde_json::from_value(rows).expect("rows");
        assert!(!rows.is_empty());
        for (guess, marked) in &rows {
            assert_eq!(*marked, unchecked.contains(&guess.as_str()), "{guess}");
        }
        let noted = client
            .execute(
                "return !document.getElementById('ranking-marks').hidden;",
                vec![],
            )
            .await
            .expect("the note");
        assert_eq!(noted, Value::from(rows.iter().any(|(_, m)| *m)));
        let plotted = client
            .execute(
                "return document.querySelectorAll('#plot path.line').length;",
                vec![],
            )
            .await
            .expect("the plot");
        assert_eq!(plotted, Value::from(1));
        shoot(&client, &shots, "end").await;
        client.close().await.expect("closing the browser");
    });
    drop(driver);
}
