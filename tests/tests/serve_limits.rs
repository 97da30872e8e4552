//! The HTTP port of a real `hakase serve` on 127.0.0.1 against the clients of issue 36: more
//! idle connections from one address than the server serves at once, a connection that sends
//! only the HTTP/2 preface, and a request declaring a 10 GB body. Each must cost the server a
//! bounded time, and other clients must still be served meanwhile.
//!
//! Bounds are generous (several times the documented 5 s for the headers), so a busy machine
//! does not fail them; what they catch is a connection that is never closed or a client that
//! is never served.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hakase_serving::http::{HEADER_TIMEOUT, MAX_CONNECTIONS, MAX_CONNECTIONS_PER_IP};
use hakase_tests::{wait_for, Proc, Scratch};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// Longest an idle connection may live, counted from its opening.
const IDLE_BOUND: Duration = Duration::from_secs(15);

/// Starts `hakase serve` over an empty data directory on free ports; returns it with its HTTP
/// address.
fn start_serve(dir: &Scratch) -> (Proc, SocketAddr) {
    let data = dir.join("data");
    std::fs::create_dir_all(&data).expect("the data directory");
    let data = data.to_string_lossy().to_string();
    let serve = Proc::start(
        dir,
        "serve",
        &[
            "serve",
            "--data",
            &data,
            "--listen",
            "127.0.0.1:0",
            "--http",
            "127.0.0.1:0",
            "--rescan-secs",
            "0",
        ],
    );
    let addr = wait_for(Duration::from_secs(60), "serve to listen", || {
        serve
            .output()
            .lines()
            .find_map(|l| l.strip_prefix("web assistant and JSON API on http://"))
            .and_then(|u| u.trim().trim_end_matches('/').parse().ok())
    });
    (serve, addr)
}

/// Reads until the server closes the connection (EOF or reset), at most `limit`; returns how
/// many bytes came, or `None` if it was still open.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<usize> {
    let mut got = 0;
    let mut buf = [0u8; 4096];
    tokio::time::timeout(limit, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return got,
                Ok(n) => got += n,
            }
        }
    })
    .await
    .ok()
}

/// Reads one HTTP/1.1 response (head, then a `content-length` body); returns its status and
/// body.
async fn read_response(stream: &mut TcpStream) -> (u16, String) {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut buf).await.expect("reading the response");
        assert!(
            n > 0,
            "closed before a response: {:?}",
            String::from_utf8_lossy(&data)
        );
        data.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&data[..head_end]).to_string();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or_else(|| panic!("no content-length in {head:?}"));
    while data.len() < head_end + length {
        let n = stream.read(&mut buf).await.expect("reading the body");
        assert!(n > 0, "closed in the body");
        data.extend_from_slice(&buf[..n]);
    }
    let body = String::from_utf8_lossy(&data[head_end..head_end + length]).to_string();
    (status, body)
}

/// Files this process may hold open (its soft limit, from /proc; 1024 when unreadable).
fn open_files_limit() -> usize {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|limits| {
            let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
            line.split_whitespace().nth(3)?.parse().ok()
        })
        .unwrap_or(1024)
}

/// A connection to `server` from the loopback address `from` (another client as far as the
/// server can tell).
async fn connect_from(from: &str, server: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("a socket");
    socket
        .bind(format!("{from}:0").parse().expect("an address"))
        .expect("binding to another loopback address");
    socket.connect(server).await.expect("connecting")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_from_one_address_do_not_keep_others_out() {
    let dir = Scratch::new("serve-idle");
    let (_serve, addr) = start_serve(&dir);
    // More idle connections than the server serves at once, all from 127.0.0.1, sending
    // nothing: the attack of issue 36.
    // Scaled down where this process may not open that many files; it still goes past the
    // per-address share, which is what keeps the other client served.
    let count = (MAX_CONNECTIONS + 8)
        .min(open_files_limit().saturating_sub(128))
        .max(MAX_CONNECTIONS_PER_IP + 8);
    let mut watchers = Vec::with_capacity(count);
    for _ in 0..count {
        let mut stream = TcpStream::connect(addr).await.expect("connecting");
        let opened = Instant::now();
        watchers.push(tokio::spawn(async move {
            let closed = closed_within(&mut stream, IDLE_BOUND * 2).await;
            closed.map(|bytes| (opened.elapsed(), bytes))
        }));
    }

    // Another client (127.0.0.2) is served meanwhile, on a keep-alive connection.
    let asked = Instant::now();
    let mut other = connect_from("127.0.0.2", addr).await;
    other
        .write_all(b"GET / HTTP/1.1\r\nhost: hakase\r\n\r\n")
        .await
        .expect("sending a request");
    let (status, page) = tokio::time::timeout(IDLE_BOUND, read_response(&mut other))
        .await
        .expect("the page was not served while one address held idle connections");
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("<html"), "{page}");
    eprintln!("page served after {:?}", asked.elapsed());
    // Once answered, the kept-alive connection is closed when it stays idle.
    let answered = Instant::now();
    let closed = closed_within(&mut other, IDLE_BOUND).await;
    assert_eq!(
        closed,
        Some(0),
        "an idle keep-alive connection was left open"
    );
    eprintln!(
        "idle keep-alive connection closed after {:?}",
        answered.elapsed()
    );

    let mut lifetimes = Vec::with_capacity(count);
    for watcher in watchers {
        let (lived, bytes) = watcher
            .await
            .expect("a watcher")
            .expect("an idle connection was never closed");
        assert_eq!(bytes, 0, "an idle connection got a reply");
        lifetimes.push(lived);
    }
    let longest = lifetimes.iter().max().copied().unwrap_or_default();
    assert!(
        longest <= IDLE_BOUND,
        "an idle connection lived {longest:?}"
    );
    // A connection closed before the header timeout could have run out was refused when it
    // was accepted: the address had its share. Most of those past the share must be (a few
    // more may be admitted if the first ones timed out while the rest were opened).
    let refused = lifetimes.iter().filter(|&&l| l < HEADER_TIMEOUT).count();
    eprintln!("{count} idle connections: {refused} refused at once, the longest lived {longest:?}");
    assert!(
        refused >= (count - MAX_CONNECTIONS_PER_IP) / 2,
        "only {refused} of {count} connections were refused at once (share {MAX_CONNECTIONS_PER_IP})"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_sending_only_the_http2_preface_is_closed() {
    let dir = Scratch::new("serve-h2");
    let (_serve, addr) = start_serve(&dir);
    let mut stream = TcpStream::connect(addr).await.expect("connecting");
    let sent = Instant::now();
    stream
        .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .await
        .expect("sending the preface");
    let closed = closed_within(&mut stream, IDLE_BOUND).await;
    assert!(
        closed.is_some(),
        "a connection that sent only the HTTP/2 preface was still open after {IDLE_BOUND:?}"
    );
    eprintln!("preface-only connection closed after {:?}", sent.elapsed());
    // The server still serves.
    let mut next = TcpStream::connect(addr).await.expect("connecting");
    next.write_all(b"GET /api/v1/runs HTTP/1.1\r\nhost: hakase\r\n\r\n")
        .await
        .expect("sending a request");
    let (status, body) = tokio::time::timeout(IDLE_BOUND, read_response(&mut next))
        .await
        .expect("no answer after the preface");
    assert_eq!(status, 200, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declared_body_over_the_limit_gets_413_before_it_is_sent() {
    let dir = Scratch::new("serve-413");
    let (_serve, addr) = start_serve(&dir);
    let mut stream = TcpStream::connect(addr).await.expect("connecting");
    let sent = Instant::now();
    stream
        .write_all(
            b"POST /api/v1/next HTTP/1.1\r\nhost: hakase\r\ncontent-type: application/json\r\n\
              content-length: 10000000000\r\n\r\n",
        )
        .await
        .expect("sending the head");
    let (status, body) = tokio::time::timeout(IDLE_BOUND, read_response(&mut stream))
        .await
        .expect("no answer to a 10 GB content-length");
    eprintln!("answered after {:?}", sent.elapsed());
    assert_eq!(status, 413, "{body}");
    let error: serde_json::Value = serde_json::from_str(&body).expect("a JSON error");
    assert_eq!(error["error"]["kind"], "payload_too_large", "{body}");
    assert_eq!(
        error["error"]["message"],
        "the request body is too large (a request is a run name and a history of a few guesses)"
    );

    // A chunked body (no declared length) over the limit is refused the same way once read.
    let mut stream = TcpStream::connect(addr).await.expect("connecting");
    let chunk = vec![b' '; 20 * 1024];
    let mut request = format!(
        "POST /api/v1/next HTTP/1.1\r\nhost: hakase\r\ncontent-type: application/json\r\n\
         transfer-encoding: chunked\r\n\r\n{:x}\r\n",
        chunk.len()
    )
    .into_bytes();
    request.extend_from_slice(&chunk);
    request.extend_from_slice(b"\r\n0\r\n\r\n");
    stream.write_all(&request).await.expect("sending");
    let (status, body) = tokio::time::timeout(IDLE_BOUND, read_response(&mut stream))
        .await
        .expect("no answer to a chunked body over the limit");
    assert_eq!(status, 413, "{body}");
    let error: serde_json::Value = serde_json::from_str(&body).expect("a JSON error");
    assert_eq!(error["error"]["kind"], "payload_too_large", "{body}");
}
