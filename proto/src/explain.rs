//! Turns a gRPC status into a sentence a person can act on: tonic's transport failures come
//! with an empty message and the real cause buried in the error's sources.

use std::error::Error as _;

use tonic::{Code, Status};

/// Consecutive TLS failures after which a worker or `status` gives up: a TLS client talking
/// to a plain-text port (or the reverse) never starts working by waiting.
pub const MAX_TLS_FAILURES: u32 = 5;

/// The status's message followed by every cause in its source chain, de-duplicated; never
/// empty (falls back to the code's description).
pub fn explain(status: &Status) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut push = |text: String| {
        let text = text.trim().to_string();
        if !text.is_empty() && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
    };
    push(status.message().to_string());
    let mut source = status.source();
    while let Some(cause) = source {
        push(cause.to_string());
        source = cause.source();
    }
    let detail = if parts.is_empty() {
        describe_code(status.code()).to_string()
    } else {
        parts.join(": ")
    };
    match status.code() {
        Code::Unauthenticated => format!("the coordinator refused the token ({detail})"),
        Code::Unavailable if is_tls_failure(status) => format!(
            "TLS failed ({detail}); an https:// URL needs a coordinator started with \
             --tls-cert and --tls-key, and a coordinator without them needs http://"
        ),
        Code::Unavailable => format!("cannot reach the coordinator ({detail})"),
        _ => detail,
    }
}

/// True when the failure is the TLS handshake, not the network.
pub fn is_tls_failure(status: &Status) -> bool {
    let mut texts = vec![status.message().to_ascii_lowercase()];
    let mut source = status.source();
    while let Some(cause) = source {
        texts.push(cause.to_string().to_ascii_lowercase());
        source = cause.source();
    }
    texts.iter().any(|t| {
        [
            "tls",
            "invalidcontenttype",
            "handshake",
            "certificate",
            "corrupt message",
        ]
        .iter()
        .any(|needle| t.contains(needle))
    })
}

fn describe_code(code: Code) -> &'static str {
    match code {
        Code::Unavailable => "the coordinator is unavailable",
        Code::Unauthenticated => "no valid token",
        Code::DeadlineExceeded => "no answer in time",
        _ => code.description(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_messages_get_a_description() {
        assert_eq!(
            explain(&Status::unavailable("")),
            "cannot reach the coordinator (the coordinator is unavailable)"
        );
        assert_eq!(
            explain(&Status::unauthenticated("missing or wrong token")),
            "the coordinator refused the token (missing or wrong token)"
        );
        assert_eq!(
            explain(&Status::invalid_argument("")),
            "Client specified an invalid argument"
        );
    }

    #[test]
    fn tls_failures_are_recognised() {
        let status = Status::unavailable("error trying to connect: received corrupt message");
        assert!(is_tls_failure(&status));
        assert!(explain(&status).starts_with("TLS failed"));
        assert!(!is_tls_failure(&Status::unavailable("connection refused")));
    }
}
