//! A memory budget across the requests a gRPC port has received and not yet answered: each
//! request's body takes its bytes from one budget as they arrive and gives them back when
//! its answer is ready, so 48 clients sending 30 MB each cannot make the server hold 1.4 GB at
//! once. A request that would go past the budget is refused at once (`resource_exhausted`,
//! which workers retry after a pause), never made to wait: waiting requests holding part of
//! the budget could otherwise wait on each other for ever.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use http_body::{Body as HttpBody, Frame, SizeHint};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::body::Body;
use tonic::codegen::http::{Request, Response};
use tonic::Status;
use tower::{Layer, Service};

/// The layer holding a port's budget (add it with `Server::layer`).
#[derive(Debug, Clone)]
pub struct InflightBytes {
    budget: Arc<Semaphore>,
    bytes: usize,
}

impl InflightBytes {
    /// A budget of `bytes` (at least 1 KiB; at most what a semaphore counts).
    pub fn new(bytes: usize) -> InflightBytes {
        let bytes = bytes.clamp(1024, Semaphore::MAX_PERMITS);
        InflightBytes {
            budget: Arc::new(Semaphore::new(bytes)),
            bytes,
        }
    }

    /// Bytes of the budget free now.
    pub fn free(&self) -> usize {
        self.budget.available_permits()
    }
}

impl<S> Layer<S> for InflightBytes {
    type Service = Inflight<S>;

    fn layer(&self, inner: S) -> Inflight<S> {
        Inflight {
            inner,
            limits: self.clone(),
        }
    }
}

/// A service whose requests' bodies are counted against an [`InflightBytes`] budget.
#[derive(Debug, Clone)]
pub struct Inflight<S> {
    inner: S,
    limits: InflightBytes,
}

/// The bytes one request holds, given back when both its body and its answer are done.
type Held = Arc<Mutex<Option<OwnedSemaphorePermit>>>;

impl<S, ResBody> Service<Request<Body>> for Inflight<S>
where
    S: Service<Request<Body>, Response = Response<ResBody>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let held: Held = Arc::new(Mutex::new(None));
        let limits = self.limits.clone();
        let body_held = held.clone();
        let request = request.map(move |inner| {
            Body::new(Counted {
                inner,
                limits,
                held: body_held,
            })
        });
        let answer = self.inner.call(request);
        Box::pin(async move {
            let answer = answer.await;
            drop(held);
            answer
        })
    }
}

/// A request body that takes each chunk's bytes from the budget as it arrives.
struct Counted {
    inner: Body,
    limits: InflightBytes,
    held: Held,
}

impl HttpBody for Counted {
    type Data = tonic::codegen::Bytes;
    type Error = Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        let frame = match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => frame,
            other => return other,
        };
        if let Some(data) = frame.data_ref() {
            let taken = u32::try_from(data.len())
                .ok()
                .and_then(|n| this.limits.budget.clone().try_acquire_many_owned(n).ok());
            let Some(taken) = taken else {
                return Poll::Ready(Some(Err(Status::resource_exhausted(format!(
                    "the server holds {} MiB of requests not yet answered, the most it takes \
                     at once; send again in a moment",
                    this.limits.bytes / (1024 * 1024)
                )))));
            };
            let mut held = this.held.lock().unwrap_or_else(PoisonError::into_inner);
            match held.as_mut() {
                Some(permit) => permit.merge(taken),
                None => *held = Some(taken),
            }
        }
        Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    fn body(chunks: &[usize]) -> Body {
        let frames: Vec<Result<Frame<bytes::Bytes>, Status>> = chunks
            .iter()
            .map(|&n| Ok(Frame::data(bytes::Bytes::from(vec![0u8; n]))))
            .collect();
        Body::new(http_body_util::StreamBody::new(tokio_stream::iter(frames)))
    }

    #[tokio::test]
    async fn bodies_take_their_bytes_and_give_them_back_once_answered() {
        let limits = InflightBytes::new(10_000);
        let held: Held = Arc::new(Mutex::new(None));
        let mut first = Counted {
            inner: body(&[4_000, 4_000]),
            limits: limits.clone(),
            held: held.clone(),
        };
        while let Some(frame) = first.frame().await {
            frame.unwrap();
        }
        assert_eq!(limits.free(), 2_000);
        // A second request that needs more than is left is refused, keeping what it took.
        let second_held: Held = Arc::new(Mutex::new(None));
        let mut second = Counted {
            inner: body(&[1_000, 5_000]),
            limits: limits.clone(),
            held: second_held.clone(),
        };
        second.frame().await.unwrap().unwrap();
        let refused = second.frame().await.unwrap().unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        drop(second);
        drop(second_held);
        assert_eq!(limits.free(), 2_000);
        // The first request's bytes come back when its body and its answer are both done.
        drop(first);
        assert_eq!(limits.free(), 2_000);
        drop(held);
        assert_eq!(limits.free(), 10_000);
    }
}
