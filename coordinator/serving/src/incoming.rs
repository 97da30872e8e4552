//! The connections a gRPC port serves: accepted by a loop that never spins (out of file
//! descriptors, it waits and tries again), admitted through the port's [`Gate`] (a total and
//! a share per address), and each one closed when its client is silent: before its first
//! bytes for longer than the handshake time, afterwards for longer than the idle time.
//! tonic serves what this stream yields; TLS, when configured, is done by tonic on top.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::{Instant, Sleep};
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::server::{Connected, TcpConnectInfo};

use super::connections::{Admitted, Gate};
use super::limits::PortLimits;

/// Bytes a client must send within the handshake time: the HTTP/2 connection preface (a TLS
/// client sends more than this in its first message).
pub const HANDSHAKE_BYTES: usize = 24;

/// The first wait after the process ran out of file descriptors; doubled up to
/// [`MOST_ACCEPT_BACKOFF`] while it lasts.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// The longest wait between accepts while out of file descriptors.
const MOST_ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

/// The stream of admitted connections, for `serve_with_incoming_shutdown`.
pub type Incoming = ReceiverStream<io::Result<GatedStream>>;

/// Accepts on `listener` under `limits` in a task of its own; the task ends (and the
/// listening socket closes) when the returned stream is dropped.
pub fn gated_incoming(listener: TcpListener, limits: PortLimits) -> Incoming {
    let (send, receive) = mpsc::channel(16);
    let gate = Gate::new(limits.max_connections, limits.connections_per_address);
    tokio::spawn(accept_loop(listener, gate, limits, send));
    ReceiverStream::new(receive)
}

/// Accepts until the receiver goes away.
async fn accept_loop(
    listener: TcpListener,
    gate: Gate,
    limits: PortLimits,
    send: mpsc::Sender<io::Result<GatedStream>>,
) {
    let mut backoff = ACCEPT_BACKOFF;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = send.closed() => return,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => {
                backoff = ACCEPT_BACKOFF;
                accepted
            }
            Err(e) if out_of_descriptors(&e) => {
                // Spinning on accept would take a core and free nothing: wait for connections
                // to close.
                tracing::warn!(
                    "accepting a connection: {e}; waiting {} ms (raise the open-files limit, \
                     or lower --max-connections)",
                    backoff.as_millis()
                );
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MOST_ACCEPT_BACKOFF);
                continue;
            }
            Err(e) => {
                // A connection reset before it was accepted, and the like.
                tracing::debug!("accepting a connection: {e}");
                continue;
            }
        };
        let admitted = match gate.admit(peer.ip()) {
            Ok(admitted) => admitted,
            Err(refused) => {
                // Debug only: under a flood a line per refusal would be a flood of its own.
                tracing::debug!("closing the connection of {peer}: {refused}");
                continue;
            }
        };
        // Small replies must not wait for Nagle's algorithm (without it p99 is ~40 ms).
        let _ = stream.set_nodelay(true);
        let gated = GatedStream::new(stream, admitted, limits.handshake, limits.idle);
        if send.send(Ok(gated)).await.is_err() {
            return;
        }
    }
}

/// True for the accept errors of a process (or system) out of file descriptors.
fn out_of_descriptors(e: &io::Error) -> bool {
    // EMFILE (24) and ENFILE (23) on Linux and the BSDs; ENOBUFS/ENOMEM when the kernel is
    // short of memory for sockets behave the same way.
    matches!(e.raw_os_error(), Some(23 | 24 | 12 | 105))
}

/// An admitted connection: the socket, its place at the gate (given back when it closes), and
/// the clock of its client's silence.
#[derive(Debug)]
pub struct GatedStream {
    inner: TcpStream,
    _admitted: Admitted,
    opened: Instant,
    handshake: Duration,
    idle: Duration,
    /// Bytes still to come before the handshake time no longer applies.
    awaited: usize,
    last_read: Instant,
    timer: Pin<Box<Sleep>>,
}

impl GatedStream {
    fn new(inner: TcpStream, admitted: Admitted, handshake: Duration, idle: Duration) -> Self {
        let opened = Instant::now();
        GatedStream {
            inner,
            _admitted: admitted,
            opened,
            handshake,
            idle,
            awaited: HANDSHAKE_BYTES,
            last_read: opened,
            timer: Box::pin(tokio::time::sleep_until(opened + handshake)),
        }
    }

    /// When the client's silence becomes too long.
    fn due(&self) -> Instant {
        if self.awaited > 0 {
            self.opened + self.handshake
        } else {
            self.last_read + self.idle
        }
    }

    /// `Ready(Err)` once the client has been silent too long; else `Pending`, with the timer
    /// set to wake this task when it may be.
    fn poll_silence(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            if self.timer.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            let due = self.due();
            if Instant::now() >= due {
                let what = if self.awaited > 0 {
                    "no handshake"
                } else {
                    "idle"
                };
                return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, what)));
            }
            // Reads since the timer was set moved the time on: wait for the new one.
            self.timer.as_mut().reset(due);
        }
    }
}

impl AsyncRead for GatedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                let read = buf.filled().len() - before;
                if read > 0 {
                    this.last_read = Instant::now();
                    this.awaited = this.awaited.saturating_sub(read);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => this.poll_silence(cx),
        }
    }
}

impl AsyncWrite for GatedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

impl Connected for GatedStream {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.inner.connect_info()
    }
}

impl GatedStream {
    /// The client's address.
    pub fn peer(&self) -> io::Result<SocketAddr> {
        self.inner.peer_addr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio_stream::StreamExt;

    fn limits(per_address: usize) -> PortLimits {
        PortLimits {
            max_connections: 8,
            connections_per_address: per_address,
            handshake: Duration::from_secs(1),
            idle: Duration::from_secs(3),
            ..PortLimits::QUERY
        }
    }

    #[tokio::test]
    async fn a_silent_connection_is_closed_and_a_talking_one_kept() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut incoming = gated_incoming(listener, limits(4));
        let _silent = TcpStream::connect(addr).await.unwrap();
        let mut silent = incoming.next().await.unwrap().unwrap();
        let mut buf = [0u8; 64];
        let err = silent.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert_eq!(err.to_string(), "no handshake");

        let mut client = TcpStream::connect(addr).await.unwrap();
        let mut talking = incoming.next().await.unwrap().unwrap();
        client.write_all(&[0u8; HANDSHAKE_BYTES]).await.unwrap();
        assert_eq!(talking.read(&mut buf).await.unwrap(), HANDSHAKE_BYTES);
        // Bytes every so often keep it open past the handshake time.
        for _ in 0..4 {
            tokio::time::sleep(Duration::from_millis(500)).await;
            client.write_all(b"x").await.unwrap();
            assert_eq!(talking.read(&mut buf).await.unwrap(), 1);
        }
        let err = talking.read(&mut buf).await.unwrap_err();
        assert_eq!(err.to_string(), "idle");
    }

    #[tokio::test]
    async fn one_address_gets_its_share_of_connections() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut incoming = gated_incoming(listener, limits(2));
        let mut clients = Vec::new();
        for _ in 0..4 {
            clients.push(TcpStream::connect(addr).await.unwrap());
        }
        let first = incoming.next().await.unwrap().unwrap();
        let _second = incoming.next().await.unwrap().unwrap();
        // The third and fourth were closed at once: they read the end of the stream.
        for client in &mut clients[2..] {
            let mut buf = [0u8; 8];
            assert_eq!(client.read(&mut buf).await.unwrap_or(0), 0);
        }
        drop(first);
        let _again = TcpStream::connect(addr).await.unwrap();
        let third = incoming.next().await.unwrap().unwrap();
        assert_eq!(third.peer().unwrap().ip(), addr.ip());
    }
}
