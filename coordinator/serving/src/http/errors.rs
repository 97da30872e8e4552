//! JSON errors of every HTTP port: `{"error": {"kind": "...", "message": "..."}}`, the shape
//! of every error of hakase under `--json` (docs/json.md), with the HTTP status that fits,
//! carrying the same messages as the command line and gRPC. Here `kind` is the name of the
//! gRPC status code the same refusal gets (`invalid_argument`, `not_found`, ...). Errors a
//! player causes also carry `key` and `args` ([`Message`]), so the page words them in its
//! own language.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

/// A message key and its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    /// The key, e.g. `no_answer_fits`; the page's catalogue words it.
    pub key: &'static str,
    /// Its arguments, in the order the key's wording uses them.
    pub args: Vec<String>,
}

impl Message {
    /// A message of `key` with `args`.
    pub fn new<S: ToString>(key: &'static str, args: impl IntoIterator<Item = S>) -> Message {
        Message {
            key,
            args: args.into_iter().map(|a| a.to_string()).collect(),
        }
    }
}

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

    /// The same error without its message key: worded in English on the page too.
    pub fn english_only(mut self) -> ApiError {
        self.keyed = None;
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

/// The longest plain-text error body read back into a JSON error's message.
const MAX_PLAIN_ERROR: usize = 4096;

/// Gives every error answered without a JSON body the API's JSON shape, so a client sees one
/// shape whichever layer refused: axum's rejections of a path or a query (plain text),
/// [`tower_http::limit::RequestBodyLimitLayer`]'s
/// bare 413 (a declared `content-length` over the limit, refused before any of the body is
/// read) and the request timeout's empty 408. The reply keeps the refusal's other headers
/// (`www-authenticate`, say).
pub async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|kind| kind.as_bytes().starts_with(b"application/json"));
    if is_json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        return ApiError::payload_too_large().into_response();
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, MAX_PLAIN_ERROR)
        .await
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_string())
        .unwrap_or_default();
    let message = match status {
        StatusCode::REQUEST_TIMEOUT => {
            "the request was not complete in time (its body included)".to_string()
        }
        _ if !text.is_empty() => text,
        _ => status
            .canonical_reason()
            .unwrap_or("error")
            .to_ascii_lowercase(),
    };
    let mut reply = ApiError::new(status, kind_of(status), message).into_response();
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            reply.headers_mut().insert(name, value.clone());
        }
    }
    reply
}

/// The `kind` of an HTTP status: the name of the gRPC status code the same refusal gets.
fn kind_of(status: StatusCode) -> &'static str {
    match status {
        StatusCode::BAD_REQUEST | StatusCode::UNSUPPORTED_MEDIA_TYPE => "invalid_argument",
        StatusCode::UNAUTHORIZED => "unauthenticated",
        StatusCode::FORBIDDEN => "permission_denied",
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "unimplemented",
        StatusCode::REQUEST_TIMEOUT | StatusCode::GATEWAY_TIMEOUT => "deadline_exceeded",
        StatusCode::CONFLICT => "failed_precondition",
        StatusCode::TOO_MANY_REQUESTS => "resource_exhausted",
        StatusCode::SERVICE_UNAVAILABLE => "unavailable",
        s if s.is_server_error() => "internal",
        _ => "invalid_argument",
    }
}

/// A method an address does not answer (`GET /api/v1/next`); the reply's `allow` header,
/// which axum adds, lists those it does.
pub async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "unimplemented",
        format!(
            "{} does not answer {method} (the `allow` header lists what it answers)",
            uri.path()
        ),
    )
}
