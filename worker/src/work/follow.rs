//! The coordinator's stream of better totals, followed while a registration's jobs run.

use std::sync::Arc;

use hakase_proto::v1::WatchIncumbentRequest;
use tokio::sync::Notify;

use crate::client::Client;
use crate::incumbent::SharedIncumbent;

/// Takes every better total the coordinator tells of, so that the jobs this worker starts
/// get the cutoff of another worker's better first guess at once, as in the in-memory
/// search, instead of at this worker's next lease or report. Ends quietly with the stream
/// (the run is over, a coordinator without it, a lost connection): leases, reports and
/// heartbeats still carry the incumbent, and the worker's next lease says whether the run
/// is over. Every message also wakes the work loop through `wake`: a coordinator tells the
/// total again when jobs wait for idle workers.
pub(super) async fn follow_incumbent(
    mut client: Client,
    request: WatchIncumbentRequest,
    incumbent: Arc<SharedIncumbent>,
    wake: Arc<Notify>,
) {
    let mut told = match client.watch_incumbent(request).await {
        Ok(stream) => stream.into_inner(),
        Err(status) => {
            tracing::debug!(code = ?status.code(), "no incumbent stream");
            return;
        }
    };
    loop {
        match told.message().await {
            Ok(Some(best)) => {
                incumbent.offer(best.value, best.first_index);
                wake.notify_one();
            }
            Ok(None) => return,
            Err(status) => {
                tracing::debug!(code = ?status.code(), "incumbent stream ended");
                return;
            }
        }
    }
}
