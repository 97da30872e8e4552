//! Errors under `--json`: `{"error": {"kind", "message"}}` on standard output, so a program
//! reading the output always gets JSON, whatever went wrong.

use std::io;

use serde::Serialize;

/// What went wrong, in a few words a program can branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The command line itself: an unknown flag, a bad value, conflicting flags.
    Usage,
    /// A word, pattern, history or word list the game cannot accept.
    Input,
    /// A file or run that does not exist.
    NotFound,
    /// Reading or writing failed for another reason.
    Io,
    /// Stopped by a signal (Ctrl-C, SIGTERM) after saving.
    Interrupted,
    /// Anything else: a failed check, a refused request, an unreachable server.
    Failed,
}

/// The JSON document of an error.
#[derive(Debug, Serialize)]
pub struct ErrorJson {
    error: ErrorBody,
}

#[derive(Debug, Serialize)]
struct ErrorBody {
    kind: ErrorKind,
    message: String,
}

impl ErrorJson {
    /// The document for `message` of this `kind`.
    pub fn new(kind: ErrorKind, message: String) -> Self {
        ErrorJson {
            error: ErrorBody { kind, message },
        }
    }

    /// The document for a failed command: its kind read from the causes, its message the
    /// whole chain as the text output prints it.
    pub fn of(err: &anyhow::Error, interrupted: bool) -> Self {
        Self::new(classify(err, interrupted), format!("{err:#}"))
    }
}

/// The kind of a failed command's error, from the first cause that tells.
fn classify(err: &anyhow::Error, interrupted: bool) -> ErrorKind {
    if interrupted {
        return ErrorKind::Interrupted;
    }
    for cause in err.chain() {
        if cause.downcast_ref::<hakase_core::Error>().is_some()
            || cause
                .downcast_ref::<hakase_core::review::ReviewError>()
                .is_some()
        {
            return ErrorKind::Input;
        }
        if let Some(hakase_runs::RunError::NotFound { .. } | hakase_runs::RunError::NoDataDir(_)) =
            cause.downcast_ref()
        {
            return ErrorKind::NotFound;
        }
        if let Some(e) = cause.downcast_ref::<io::Error>() {
            return if e.kind() == io::ErrorKind::NotFound {
                ErrorKind::NotFound
            } else {
                ErrorKind::Io
            };
        }
    }
    ErrorKind::Failed
}
