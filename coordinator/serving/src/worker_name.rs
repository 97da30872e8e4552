//! The name a worker registers under: shown in logs and on the live page, so it is checked
//! the same way on every server that takes registrations.

use tonic::Status;

/// Longest worker name a server takes: a host name and a process id fit many times over,
/// and a longer one would only bloat every log line that names the worker.
pub const MAX_WORKER_NAME: usize = 256;

/// Refuses a worker name that is too long, or that holds a control character: a newline
/// or an escape would forge lines or colours in the server's log.
pub fn check_worker_name(name: &str) -> Result<(), Status> {
    if name.len() > MAX_WORKER_NAME {
        return Err(Status::invalid_argument(format!(
            "worker_name longer than {MAX_WORKER_NAME} bytes"
        )));
    }
    if name.chars().any(char::is_control) {
        return Err(Status::invalid_argument(
            "worker_name holds a control character (a newline, an escape, ...)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_too_long_or_with_control_characters_are_refused() {
        assert!(check_worker_name("host-1/4242").is_ok());
        assert!(check_worker_name(&"x".repeat(MAX_WORKER_NAME)).is_ok());
        let long = check_worker_name(&"x".repeat(MAX_WORKER_NAME + 1)).unwrap_err();
        assert!(long.message().contains("longer than 256"));
        for forged in ["a\nINFO forged", "a\u{1b}[31mred", "a\rb", "\u{7f}"] {
            let err = check_worker_name(forged).unwrap_err();
            assert_eq!(err.code(), tonic::Code::InvalidArgument, "{forged:?}");
        }
    }
}
