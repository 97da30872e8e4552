//! `grpc.health.v1.Health` as every port serves it: open to all (no token), `Check` as
//! tonic-health answers it, and `Watch` bounded to a number of streams open at once over the
//! whole port, so one client cannot hold thousands of them (each costs the server memory until
//! the client goes).

use std::pin::Pin;
use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status};
use tonic_health::pb::health_server::{Health, HealthServer};
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};
use tonic_health::server::{HealthReporter, HealthService};

/// The health service of a port: tonic-health's, with `Watch` streams bounded.
pub struct BoundedHealth {
    inner: HealthService,
    watches: Arc<Semaphore>,
    most: usize,
}

/// The health service answering for `reporter`'s statuses, with at most `watches` `Watch`
/// streams open at once.
pub fn bounded_health(reporter: &HealthReporter, watches: usize) -> HealthServer<BoundedHealth> {
    HealthServer::new(BoundedHealth {
        inner: HealthService::from_health_reporter(reporter.clone()),
        watches: Arc::new(Semaphore::new(watches.max(1))),
        most: watches.max(1),
    })
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<HealthCheckResponse, Status>> + Send>>;

#[tonic::async_trait]
impl Health for BoundedHealth {
    async fn check(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<HealthCheckResponse>, Status> {
        self.inner.check(request).await
    }

    type WatchStream = WatchStream;

    async fn watch(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<WatchStream>, Status> {
        let place = self.watches.clone().try_acquire_owned().map_err(|_| {
            Status::resource_exhausted(format!(
                "{} health watches are open, the most this server keeps; use Check, or watch \
                 again later",
                self.most
            ))
        })?;
        let stream = self.inner.watch(request).await?.into_inner();
        // The place is given back when the stream is dropped (the client went away).
        let held = stream.map(move |item| {
            let _place = &place;
            item
        });
        Ok(Response::new(Box::pin(held)))
    }
}
