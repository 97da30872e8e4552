//! The worker's connection to the coordinator: the two gRPC clients (cluster jobs, puzzle
//! days), which failures a retry can cure, and how long to wait before it.

use std::time::Duration;

use hakase_proto::client::{channel, Auth};
use hakase_proto::v1::cluster_client::ClusterClient;
use hakase_proto::v1::puzzles_client::PuzzlesClient;
use hakase_proto::MAX_MESSAGE_BYTES;
use tokio::sync::watch;
use tonic::codegen::InterceptedService;
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::error::WorkerError;
use crate::options::WorkerOptions;

/// The client type workers use.
pub type Client = ClusterClient<InterceptedService<Channel, Auth>>;

/// The client of the coordinator's Puzzles service (puzzle batches).
pub(crate) type Puzzles = PuzzlesClient<InterceptedService<Channel, Auth>>;

/// A cluster client for `opts`.
pub fn client(opts: &WorkerOptions) -> Result<Client, WorkerError> {
    let (channel, auth) = connect(opts)?;
    Ok(ClusterClient::with_interceptor(channel, auth)
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES))
}

/// A Puzzles client for `opts`, on a channel of its own.
pub(crate) fn puzzles(opts: &WorkerOptions) -> Result<Puzzles, WorkerError> {
    let (channel, auth) = connect(opts)?;
    Ok(PuzzlesClient::with_interceptor(channel, auth)
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES))
}

/// The channel to the coordinator and the interceptor that adds the token.
fn connect(opts: &WorkerOptions) -> Result<(Channel, Auth), WorkerError> {
    let channel = channel(
        &opts.connect,
        opts.ca_cert.as_deref(),
        opts.tls_domain.as_deref(),
    )?;
    Ok((channel, Auth::new(&opts.token)?))
}

/// True for errors that a retry can cure (the coordinator restarting, a dropped link).
pub(crate) fn transient(status: &Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable
            | Code::Unknown
            | Code::DeadlineExceeded
            | Code::ResourceExhausted
            | Code::Aborted
            | Code::Internal
            | Code::Cancelled
    )
}

/// Sleeps for `d`; true when asked to stop meanwhile.
pub(crate) async fn wait(stop: &watch::Receiver<bool>, d: Duration) -> bool {
    let mut stop = stop.clone();
    if *stop.borrow() {
        return true;
    }
    tokio::select! {
        _ = tokio::time::sleep(d) => false,
        _ = stop.changed() => true,
    }
}

/// The wait before calling again after a transient failure: 100 ms, doubling up to 2 s, so
/// that a restarting coordinator is neither hammered nor waited for long.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Backoff(Duration);

impl Backoff {
    const FIRST: Duration = Duration::from_millis(100);
    const MOST: Duration = Duration::from_secs(2);

    /// The wait after a call succeeded (the first wait again).
    pub(crate) fn reset(&mut self) {
        self.0 = Self::FIRST;
    }

    /// The wait to use now; the next one is twice as long.
    pub(crate) fn next(&mut self) -> Duration {
        let now = self.0;
        self.0 = (self.0 * 2).min(Self::MOST);
        now
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff(Self::FIRST)
    }
}
