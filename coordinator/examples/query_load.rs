//! Load generator for the query service: N concurrent clients sending `NextGuess` for random
//! on-tree histories of pokemon-qiita2023; prints p50/p99 latency and throughput.
//!
//! Usage: query_load ADDR [CLIENTS] [SECONDS] (see scripts/bench-query).

use std::time::{Duration, Instant};

use hakase_core::rules::presets::load_preset;
use hakase_core::{FeedbackTable, PatternStyle};
use hakase_proto::v1::query_client::QueryClient;
use hakase_proto::v1::{HistoryStep, NextGuessRequest};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let addr = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "127.0.0.1:50061".into());
    let clients: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(16);
    let seconds: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run(addr, clients, seconds))
}

/// Every answer's full on-tree history, asked for by one `NextGuess` per prefix.
async fn histories(
    client: &mut QueryClient<tonic::transport::Channel>,
) -> Result<Vec<Vec<HistoryStep>>, Box<dyn std::error::Error>> {
    let game = load_preset("pokemon-qiita2023")?;
    let table = FeedbackTable::build(&game);
    let mut out = Vec::new();
    for answer in game.all_answers() {
        let mut history = Vec::new();
        loop {
            out.push(history.clone());
            let reply = client
                .next_guess(NextGuessRequest {
                    run: String::new(),
                    history: history.clone(),
                })
                .await?
                .into_inner();
            if reply.won || !reply.feasible {
                break;
            }
            let guess = game.find_guess(&reply.guess)?;
            let len = game.guesses()[guess as usize].len();
            history.push(HistoryStep {
                guess: reply.guess,
                pattern: table.get(guess, answer).format(len, PatternStyle::Kanji),
            });
        }
    }
    Ok(out)
}

async fn run(addr: String, clients: usize, seconds: u64) -> Result<(), Box<dyn std::error::Error>> {
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))?
        .tcp_nodelay(true)
        .connect()
        .await?;
    let mut probe = QueryClient::new(channel.clone());
    let cases = std::sync::Arc::new(histories(&mut probe).await?);
    eprintln!(
        "{} distinct histories; {clients} clients for {seconds}s",
        cases.len()
    );
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for c in 0..clients {
        // Half the clients share one connection, the others have their own.
        let channel = if c % 2 == 0 {
            channel.clone()
        } else {
            tonic::transport::Endpoint::from_shared(format!("http://{addr}"))?
                .tcp_nodelay(true)
                .connect()
                .await?
        };
        let cases = cases.clone();
        tasks.push(tokio::spawn(async move {
            let mut client = QueryClient::new(channel);
            let mut latencies = Vec::new();
            let mut i = c * 7919;
            while Instant::now() < deadline {
                let history = cases[i % cases.len()].clone();
                i += 1;
                let start = Instant::now();
                let reply = client
                    .next_guess(NextGuessRequest {
                        run: String::new(),
                        history,
                    })
                    .await;
                latencies.push(start.elapsed());
                if let Err(e) = reply {
                    eprintln!("error: {e}");
                    break;
                }
            }
            latencies
        }));
    }
    let started = Instant::now();
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await?);
    }
    let elapsed = started.elapsed().as_secs_f64();
    all.sort();
    let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)];
    println!(
        "requests {}  throughput {:.0}/s  p50 {:?}  p90 {:?}  p99 {:?}  max {:?}",
        all.len(),
        all.len() as f64 / elapsed,
        pct(0.50),
        pct(0.90),
        pct(0.99),
        all[all.len() - 1]
    );
    Ok(())
}
