//! JSON errors of the HTTP API: `{"error": {"kind": "...", "message": "..."}}`, the shape
//! of every error of hakase under `--json` (docs/json.md), with the HTTP status that fits,
//! carrying the same messages as the command line and gRPC. Here `kind` is the gRPC status
//! code's name (`invalid_argument`, `not_found`, ...), as the service gives it. Errors a
//! player causes also carry `key` and `args` (see [`crate::query::message`]), so the page
//! words them in its own language.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use tonic::{Code, Status};

use crate::query::message::{Message, Refusal};

/// An error answered as JSON.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    keyed: Option<Message>,
}

#[derive(Serialize)]
struct Body<'a> {
    error: Inner<'a>,
}

#[derive(Serialize)]
struct Inner<'a> {
    kind: &'a str,
    message: &'a str,
    /// The message key a page words in its own language (absent: show `message`).
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<&'a str>,
    /// Its arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<&'a [String]>,
}

impl ApiError {
    /// An error with an explicit status.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            keyed: None,
        }
    }

    /// The same error with a message key, so the page can word it in its language.
    pub fn with_message(mut self, message: Message) -> ApiError {
        self.keyed = Some(message);
        self
    }

    /// A request the server cannot read.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "invalid_argument", message)
    }

    /// A body over the limit, declared or sent: the same answer either way.
    pub fn payload_too_large() -> ApiError {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            "the request body is too large (a request is a run name and a history of a few \
             guesses)",
        )
    }
}

impl From<Status> for ApiError {
    fn from(status: Status) -> ApiError {
        let (http, code) = match status.code() {
            Code::InvalidArgument => (StatusCode::BAD_REQUEST, "invalid_argument"),
            Code::NotFound => (StatusCode::NOT_FOUND, "not_found"),
            Code::FailedPrecondition => (StatusCode::CONFLICT, "failed_precondition"),
            Code::ResourceExhausted => (StatusCode::TOO_MANY_REQUESTS, "resource_exhausted"),
            Code::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            Code::DeadlineExceeded => (StatusCode::GATEWAY_TIMEOUT, "deadline_exceeded"),
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        };
        ApiError::new(http, code, status.message())
    }
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> ApiError {
        ApiError {
            keyed: refusal.message,
            ..ApiError::from(refusal.status)
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> ApiError {
        let status = rejection.status();
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            return ApiError::payload_too_large();
        }
        ApiError::new(status, "invalid_argument", rejection.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> ApiError {
        ApiError::bad_request(rejection.body_text())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Body {
            error: Inner {
                kind: self.code,
                message: &self.message,
                key: self.keyed.as_ref().map(|m| m.key),
                args: self.keyed.as_ref().map(|m| m.args.as_slice()),
            },
        };
        (self.status, Json(body)).into_response()
    }
}

/// Gives the bare 413 of [`tower_http::limit::RequestBodyLimitLayer`] (a declared
/// `content-length` over the limit, refused before any of the body is read) the API's JSON
/// error, so a client sees one shape whichever layer refused it.
pub async fn json_payload_too_large(response: Response) -> Response {
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|kind| kind.as_bytes().starts_with(b"application/json"));
    if response.status() == StatusCode::PAYLOAD_TOO_LARGE && !is_json {
        return ApiError::payload_too_large().into_response();
    }
    response
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
