//! Load generator for the HTTP API: N keep-alive connections, each sending
//! `POST /api/v1/next` for random on-tree histories of pokemon-qiita2023 one after another;
//! prints throughput and latency percentiles. A few bad requests (unknown run, bad history,
//! oversized body) are sent during the load and must get their JSON errors.
//!
//! Usage: http_load ADDR [CLIENTS] [SECONDS] (see scripts/bench-query).

use std::time::{Duration, Instant};

use bytes::Bytes;
use hakase_core::rules::presets::load_preset;
use hakase_core::{FeedbackTable, PatternStyle};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::Request;
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};

type Error = Box<dyn std::error::Error + Send + Sync>;

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().collect();
    let addr = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "127.0.0.1:8061".into());
    let clients: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(4);
    let seconds: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run(addr, clients, seconds))
}

async fn connect(addr: &str) -> Result<SendRequest<Full<Bytes>>, Error> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(connection);
    Ok(sender)
}

/// POSTs `body` to `path`; returns the status and the JSON answer.
async fn post(
    sender: &mut SendRequest<Full<Bytes>>,
    addr: &str,
    path: &str,
    body: Bytes,
) -> Result<(u16, Value), Error> {
    sender.ready().await?;
    let request = Request::post(path)
        .header("host", addr)
        .header("content-type", "application/json")
        .body(Full::new(body))?;
    let response = sender.send_request(request).await?;
    let status = response.status().as_u16();
    let bytes = response.into_body().collect().await?.to_bytes();
    Ok((status, serde_json::from_slice(&bytes)?))
}

/// Every answer's on-tree history prefixes, asked for by one request per prefix.
async fn histories(addr: &str) -> Result<Vec<Bytes>, Error> {
    let game = load_preset("pokemon-qiita2023")?;
    let table = FeedbackTable::build(&game);
    let mut sender = connect(addr).await?;
    let mut out = Vec::new();
    for answer in game.all_answers() {
        let mut history: Vec<Value> = Vec::new();
        loop {
            let body = Bytes::from(serde_json::to_vec(&json!({ "history": history }))?);
            out.push(body.clone());
            let (status, reply) = post(&mut sender, addr, "/api/v1/next", body).await?;
            if status != 200 {
                return Err(format!("HTTP {status}: {reply}").into());
            }
            if reply["won"].as_bool() == Some(true) || reply["feasible"].as_bool() != Some(true) {
                break;
            }
            let word = reply["guess"].as_str().unwrap_or_default();
            let guess = game.find_guess(word)?;
            let len = game.guesses()[guess as usize].len();
            let pattern = table.get(guess, answer).format(len, PatternStyle::Kanji);
            history.push(json!({ "guess": word, "pattern": pattern }));
        }
    }
    Ok(out)
}

/// Bad requests with the status each must get.
fn bad_requests() -> Vec<(Bytes, u16)> {
    vec![
        (Bytes::from_static(br#"{"run":"no-such-run"}"#), 404),
        (
            Bytes::from(r#"{"history":[{"guess":"ジーランス","pattern":"灰灰"}]}"#),
            400,
        ),
        (Bytes::from(vec![b' '; 20 * 1024]), 413),
    ]
}

async fn run(addr: String, clients: usize, seconds: u64) -> Result<(), Error> {
    let cases = std::sync::Arc::new(histories(&addr).await?);
    println!("{} distinct histories", cases.len());
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for c in 0..clients {
        let cases = cases.clone();
        let addr = addr.clone();
        tasks.push(tokio::spawn(async move {
            let mut sender = connect(&addr).await?;
            let mut latencies = Vec::new();
            let mut errors = 0usize;
            let mut i = c * 7919;
            let bad = bad_requests();
            while Instant::now() < deadline {
                i += 1;
                // One request in 1000 of client 0 is a bad one, on a connection of its own
                // (an oversized body closes the connection).
                if c == 0 && i % 1000 == 0 {
                    let (body, want) = bad[(i / 1000) % bad.len()].clone();
                    let mut once = connect(&addr).await?;
                    let (status, reply) = post(&mut once, &addr, "/api/v1/next", body).await?;
                    if status != want || reply["error"]["message"].as_str().is_none() {
                        return Err::<_, Error>(
                            format!("bad request got {status}: {reply}").into(),
                        );
                    }
                    errors += 1;
                    continue;
                }
                let body = cases[i % cases.len()].clone();
                let start = Instant::now();
                let (status, _) = post(&mut sender, &addr, "/api/v1/next", body).await?;
                latencies.push(start.elapsed());
                if status != 200 {
                    return Err(format!("HTTP {status}").into());
                }
            }
            Ok((latencies, errors))
        }));
    }
    let started = Instant::now();
    let mut all = Vec::new();
    let mut bad = 0;
    for t in tasks {
        let (latencies, errors) = t.await??;
        all.extend(latencies);
        bad += errors;
    }
    let elapsed = started.elapsed().as_secs_f64();
    if all.is_empty() {
        return Err("no request completed".into());
    }
    all.sort();
    let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)];
    println!(
        "requests {}  throughput {:.0}/s  p50 {:?}  p90 {:?}  p99 {:?}  max {:?}  (bad requests answered with JSON errors: {bad})",
        all.len(),
        all.len() as f64 / elapsed,
        pct(0.50),
        pct(0.90),
        pct(0.99),
        all[all.len() - 1]
    );
    Ok(())
}
