//! The query service's refusals as the HTTP API's JSON errors (the shape is the serving
//! shell's, [`hakase_serving::http::errors`]), and the answer to a path that is neither the
//! page nor the API.

use axum::http::StatusCode;
use hakase_serving::http::errors::ApiError;

use crate::{ErrorKind, ServiceError};

/// A refusal of the service: the HTTP status and `kind` of its kind, its message and key.
impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> ApiError {
        let (http, code) = match e.kind() {
            ErrorKind::Invalid => (StatusCode::BAD_REQUEST, "invalid_argument"),
            ErrorKind::NotFound => (StatusCode::NOT_FOUND, "not_found"),
            ErrorKind::Precondition => (StatusCode::CONFLICT, "failed_precondition"),
            ErrorKind::TooLarge => (StatusCode::TOO_MANY_REQUESTS, "resource_exhausted"),
            ErrorKind::TooCostly => (StatusCode::SERVICE_UNAVAILABLE, "resource_exhausted"),
            ErrorKind::Crowded => (StatusCode::TOO_MANY_REQUESTS, "resource_exhausted"),
            ErrorKind::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            ErrorKind::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        };
        let error = ApiError::new(http, code, e.to_string());
        match e.message() {
            Some(message) => error.with_message(message),
            None => error,
        }
    }
}

/// Any path that is neither the page nor the API.
pub async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!(
            "no such page or endpoint: {} (the API is under /api/v1/)",
            uri.path()
        ),
    )
}
