//! The web side of `hakase serve`: a versioned JSON-over-HTTP API (`/api/v1/…`, see [`api`])
//! over the same query service as gRPC, and the player's assistant page at `/` (see
//! [`assets`]), embedded in the binary so nothing is built or fetched on the user's side. The
//! server loop and its limits are the serving shell's ([`hakase_serving::http`]).

pub mod api;
pub mod assets;
pub(crate) mod errors;
pub mod puzzles;
pub mod review;

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::Router;
use hakase_serving::http::errors::{json_errors, method_not_allowed};
use hakase_serving::http::WebLimits;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

use crate::QueryService;

/// The page and the API over `service`.
pub fn router(service: QueryService, limits: WebLimits) -> Router {
    Router::new()
        .merge(assets::routes())
        .nest(
            "/api/v1",
            api::routes()
                .merge(puzzles::routes())
                .merge(review::routes()),
        )
        .fallback(errors::not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(limits.body_bytes))
        // A declared length over the limit is refused before the body is read: waiting for
        // the body would only end in the request timeout.
        .layer(RequestBodyLimitLayer::new(limits.body_bytes))
        .layer(TimeoutLayer::with_status_code(
            axum::http::StatusCode::REQUEST_TIMEOUT,
            limits.request_timeout,
        ))
        // Outermost: every refusal of the layers above is JSON too.
        .layer(axum::middleware::map_response(json_errors))
        .with_state(Arc::new(service))
}
