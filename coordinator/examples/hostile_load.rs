//! Honest users beside a mixed hostile load on one `hakase serve` (scripts/hostile-load).
//!
//! Usage: hostile_load HTTP_ADDR GRPC_ADDR SERVE_PID SECONDS
//!
//! Honest users, from 127.0.0.1: two load the page (`GET /`) one request after another, and
//! one asks for an off-tree next guess once a second. Attackers, 48 clients spread over
//! 127.0.0.2–127.0.0.5: reviews that cost seconds, hung up after 0.4 s (12); off-tree
//! NextGuess calls with a 0.1 s deadline (12); 15,000-letter guesses (8); idle connections
//! held open on both ports (8); Health/Watch streams (8). After SECONDS the attackers stop;
//! the server's CPU is then measured for 10 s. Printed: the honest latencies (p50, p99,
//! max), what the attackers got, the server's CPU during and after the attack, and its
//! largest RSS.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hakase_proto::v1::query_client::QueryClient;
use hakase_proto::v1::{HistoryStep, NextGuessRequest};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// A review of the salet tree that costs seconds of solving (it leaves the tree at once).
const COSTLY_REVIEW: &str = r#"{"words":["xylyl","fuzzy"],"answer":"mummy"}"#;

/// An off-tree history of the salet tree (answer mummy): cheap to solve.
const OFF_TREE: &str =
    r#"{"history":[{"guess":"salet","pattern":"BBBBB"},{"guess":"crony","pattern":"BBBBG"}]}"#;

/// The attackers' addresses.
const ATTACKERS: [&str; 4] = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"];

#[derive(Default)]
struct Tally {
    latencies: Mutex<Vec<Duration>>,
    failures: AtomicU64,
}

impl Tally {
    fn add(&self, took: Duration) {
        self.latencies
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(took);
    }

    fn line(&self, what: &str) -> String {
        let mut all = self
            .latencies
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        all.sort_unstable();
        let at = |q: f64| {
            all.get(((all.len() as f64 * q) as usize).min(all.len().saturating_sub(1)))
                .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
        };
        format!(
            "{what}: {} answered, {} failed; p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            all.len(),
            self.failures.load(Ordering::Relaxed),
            at(0.5),
            at(0.99),
            all.last().map_or(0.0, |d| d.as_secs_f64() * 1000.0)
        )
    }
}

/// Counts of what the attackers got.
#[derive(Default)]
struct Attacks {
    sent: AtomicU64,
    refused: AtomicU64,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 {
        eprintln!("usage: hostile_load HTTP_ADDR GRPC_ADDR SERVE_PID SECONDS");
        std::process::exit(2);
    }
    let http: SocketAddr = args[1].parse().expect("HTTP_ADDR");
    let grpc: SocketAddr = args[2].parse().expect("GRPC_ADDR");
    let pid: u32 = args[3].parse().expect("SERVE_PID");
    let seconds: f64 = args[4].parse().expect("SECONDS");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(run(http, grpc, pid, Duration::from_secs_f64(seconds)));
}

async fn run(http: SocketAddr, grpc: SocketAddr, pid: u32, length: Duration) {
    let attacking = Arc::new(AtomicBool::new(true));
    let honest_on = Arc::new(AtomicBool::new(true));
    let page = Arc::new(Tally::default());
    let next = Arc::new(Tally::default());
    let attacks = Arc::new(Attacks::default());
    let cpu_start = cpu_secs(pid);
    let peak_rss = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    tasks.push(tokio::spawn(watch_rss(
        pid,
        peak_rss.clone(),
        honest_on.clone(),
    )));
    for _ in 0..2 {
        tasks.push(tokio::spawn(honest_page(
            http,
            page.clone(),
            honest_on.clone(),
        )));
    }
    tasks.push(tokio::spawn(honest_next(
        http,
        next.clone(),
        honest_on.clone(),
    )));
    let mut attackers = Vec::new();
    for i in 0..12 {
        let from = ATTACKERS[i % ATTACKERS.len()];
        attackers.push(tokio::spawn(hang_up(
            http,
            from,
            attacks.clone(),
            attacking.clone(),
        )));
    }
    for i in 0..12 {
        let from = ATTACKERS[i % ATTACKERS.len()];
        attackers.push(tokio::spawn(short_deadline(
            grpc,
            from,
            attacks.clone(),
            attacking.clone(),
        )));
    }
    for i in 0..8 {
        let from = ATTACKERS[i % ATTACKERS.len()];
        attackers.push(tokio::spawn(long_word(
            http,
            from,
            attacks.clone(),
            attacking.clone(),
        )));
    }
    for i in 0..8 {
        let from = ATTACKERS[i % ATTACKERS.len()];
        let port = if i % 2 == 0 { grpc } else { http };
        attackers.push(tokio::spawn(idle(
            port,
            from,
            attacks.clone(),
            attacking.clone(),
        )));
    }
    for i in 0..8 {
        let from = ATTACKERS[i % ATTACKERS.len()];
        attackers.push(tokio::spawn(watches(
            grpc,
            from,
            attacks.clone(),
            attacking.clone(),
        )));
    }
    println!(
        "{} attacking clients from {} addresses for {:.0} s",
        attackers.len(),
        ATTACKERS.len(),
        length.as_secs_f64()
    );
    tokio::time::sleep(length).await;
    attacking.store(false, Ordering::Relaxed);
    for attacker in attackers {
        attacker.abort();
    }
    let cpu_attack = cpu_secs(pid) - cpu_start;
    let after_start = cpu_secs(pid);
    tokio::time::sleep(Duration::from_secs(10)).await;
    let cpu_after = cpu_secs(pid) - after_start;
    honest_on.store(false, Ordering::Relaxed);
    for task in tasks {
        let _ = task.await;
    }
    println!("{}", page.line("honest GET /"));
    println!("{}", next.line("honest off-tree /api/v1/next"));
    println!(
        "attackers: {} requests or connections, {} refused or closed by the server",
        attacks.sent.load(Ordering::Relaxed),
        attacks.refused.load(Ordering::Relaxed)
    );
    println!(
        "serve: {cpu_attack:.1} CPU-s during the attack ({:.2} CPU), {cpu_after:.2} CPU-s in the 10 s after; largest RSS {} MiB",
        cpu_attack / length.as_secs_f64(),
        peak_rss.load(Ordering::Relaxed) / 1024
    );
}

/// CPU seconds of a process (user + system).
fn cpu_secs(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    let Some(close) = stat.rfind(')') else {
        return 0.0;
    };
    let fields: Vec<&str> = stat[close + 2..].split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

/// Samples the process's RSS (KiB) every 100 ms, keeping the largest.
async fn watch_rss(pid: u32, peak: Arc<AtomicU64>, on: Arc<AtomicBool>) {
    while on.load(Ordering::Relaxed) {
        let rss = std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
                line.split_whitespace().nth(1)?.parse::<u64>().ok()
            })
            .unwrap_or(0);
        peak.fetch_max(rss, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A connection from `from` (an attacker's address) or from 127.0.0.1.
async fn connect(to: SocketAddr, from: &str) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(format!("{from}:0").parse().expect("an address"))?;
    let stream = tokio::time::timeout(Duration::from_secs(5), socket.connect(to))
        .await
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "connect"))??;
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

/// One HTTP/1.1 request on a new connection; the status (0 when none came).
async fn request(to: SocketAddr, from: &str, method: &str, path: &str, body: &str) -> u16 {
    let Ok(mut stream) = connect(to, from).await else {
        return 0;
    };
    let text = format!(
        "{method} {path} HTTP/1.1\r\nhost: hakase\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    if stream.write_all(text.as_bytes()).await.is_err() {
        return 0;
    }
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer)
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

async fn honest_page(http: SocketAddr, tally: Arc<Tally>, on: Arc<AtomicBool>) {
    while on.load(Ordering::Relaxed) {
        let start = Instant::now();
        match request(http, "127.0.0.1", "GET", "/", "").await {
            200 => tally.add(start.elapsed()),
            _ => {
                tally.failures.fetch_add(1, Ordering::Relaxed);
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn honest_next(http: SocketAddr, tally: Arc<Tally>, on: Arc<AtomicBool>) {
    while on.load(Ordering::Relaxed) {
        let start = Instant::now();
        match request(http, "127.0.0.1", "POST", "/api/v1/next", OFF_TREE).await {
            200 => tally.add(start.elapsed()),
            _ => {
                tally.failures.fetch_add(1, Ordering::Relaxed);
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Posts a costly review and hangs up 0.4 s later, over and over.
async fn hang_up(http: SocketAddr, from: &'static str, attacks: Arc<Attacks>, on: Arc<AtomicBool>) {
    while on.load(Ordering::Relaxed) {
        attacks.sent.fetch_add(1, Ordering::Relaxed);
        let Ok(mut stream) = connect(http, from).await else {
            attacks.refused.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let text = format!(
            "POST /api/v1/review HTTP/1.1\r\nhost: hakase\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{COSTLY_REVIEW}",
            COSTLY_REVIEW.len()
        );
        let _ = stream.write_all(text.as_bytes()).await;
        let mut buf = [0u8; 256];
        if let Ok(Ok(n)) =
            tokio::time::timeout(Duration::from_millis(400), stream.read(&mut buf)).await
        {
            if n > 0 {
                // Answered within 0.4 s: refused (429) or the like.
                attacks.refused.fetch_add(1, Ordering::Relaxed);
            }
        }
        drop(stream);
    }
}

/// Off-tree NextGuess calls with a 0.1 s deadline.
async fn short_deadline(
    grpc: SocketAddr,
    from: &'static str,
    attacks: Arc<Attacks>,
    on: Arc<AtomicBool>,
) {
    let connector = tower::service_fn(move |_: tonic::transport::Uri| async move {
        connect(grpc, from).await.map(hyper_util::rt::TokioIo::new)
    });
    let Ok(channel) = tonic::transport::Endpoint::from_static("http://hakase")
        .timeout(Duration::from_millis(100))
        .connect_with_connector(connector)
        .await
    else {
        return;
    };
    let mut client = QueryClient::new(channel);
    let mut n = 0u32;
    while on.load(Ordering::Relaxed) {
        attacks.sent.fetch_add(1, Ordering::Relaxed);
        n = n.wrapping_add(1);
        // A different off-tree position each time, so no cache answers it.
        let guesses = ["crony", "pound", "tribe", "wordy", "hunky", "mucky"];
        let guess = guesses[n as usize % guesses.len()];
        let request = NextGuessRequest {
            run: String::new(),
            history: vec![HistoryStep {
                guess: guess.into(),
                pattern: "BBBBB".into(),
            }],
        };
        if client.next_guess(request).await.is_err() {
            attacks.refused.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Next guesses of 15,000 letters.
async fn long_word(
    http: SocketAddr,
    from: &'static str,
    attacks: Arc<Attacks>,
    on: Arc<AtomicBool>,
) {
    let body = format!(
        r#"{{"history":[{{"guess":"{}","pattern":"BBBBB"}}]}}"#,
        "q".repeat(15_000)
    );
    while on.load(Ordering::Relaxed) {
        attacks.sent.fetch_add(1, Ordering::Relaxed);
        if request(http, from, "POST", "/api/v1/next", &body).await != 200 {
            attacks.refused.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Opens connections that send nothing, 64 at a time, replacing those the server closes.
async fn idle(to: SocketAddr, from: &'static str, attacks: Arc<Attacks>, on: Arc<AtomicBool>) {
    let mut held: Vec<TcpStream> = Vec::new();
    while on.load(Ordering::Relaxed) {
        while held.len() < 64 {
            attacks.sent.fetch_add(1, Ordering::Relaxed);
            match connect(to, from).await {
                Ok(stream) => held.push(stream),
                Err(_) => break,
            }
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let before = held.len();
        let mut kept = Vec::with_capacity(held.len());
        for stream in held.drain(..) {
            let mut buf = [0u8; 1];
            match stream.try_read(&mut buf) {
                Ok(0) => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => kept.push(stream),
                _ => {}
            }
        }
        attacks
            .refused
            .fetch_add((before - kept.len()) as u64, Ordering::Relaxed);
        held = kept;
    }
}

/// Opens Health/Watch streams on one connection and keeps them.
async fn watches(grpc: SocketAddr, from: &'static str, attacks: Arc<Attacks>, on: Arc<AtomicBool>) {
    let connector = tower::service_fn(move |_: tonic::transport::Uri| async move {
        connect(grpc, from).await.map(hyper_util::rt::TokioIo::new)
    });
    let Ok(channel) = tonic::transport::Endpoint::from_static("http://hakase")
        .connect_with_connector(connector)
        .await
    else {
        return;
    };
    let mut open = Vec::new();
    while on.load(Ordering::Relaxed) && open.len() < 2_000 {
        attacks.sent.fetch_add(1, Ordering::Relaxed);
        let mut client = tonic_health::pb::health_client::HealthClient::new(channel.clone());
        let watch = client.watch(tonic_health::pb::HealthCheckRequest {
            service: String::new(),
        });
        match tokio::time::timeout(Duration::from_secs(2), watch).await {
            Ok(Ok(stream)) => open.push(stream.into_inner()),
            _ => {
                attacks.refused.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    while on.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
