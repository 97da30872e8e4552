//! Why a message from the other side could not be used, and how an error is written out
//! with its causes where no `anyhow` does it.

use std::fmt;

use thiserror::Error;

/// A message that is malformed, oversized or inconsistent with the game; servers map it to
/// `InvalidArgument`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProtoError {
    /// A required field was absent.
    #[error("missing field {0}")]
    Missing(&'static str),
    /// A field had a value outside its range.
    #[error("field {field}: {why}")]
    Invalid {
        /// The field's name.
        field: &'static str,
        /// What was wrong.
        why: String,
    },
    /// A list or blob larger than the protocol allows.
    #[error("field {field} too large: {len} > {max}")]
    TooLarge {
        /// The field's name.
        field: &'static str,
        /// Its size.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The word lists do not make a valid game.
    #[error("game")]
    Game(#[from] hakase_core::Error),
}

impl ProtoError {
    /// Shorthand for [`ProtoError::Invalid`].
    pub fn invalid(field: &'static str, why: impl Into<String>) -> ProtoError {
        ProtoError::Invalid {
            field,
            why: why.into(),
        }
    }
}

impl From<ProtoError> for tonic::Status {
    fn from(err: ProtoError) -> tonic::Status {
        tonic::Status::invalid_argument(Chain(&err).to_string())
    }
}

/// An error with its causes, `: `-separated, as `anyhow` prints them: for a status message
/// or a log line, which would show only the message otherwise (messages leave their cause
/// to the chain, so that `anyhow` prints it once).
pub struct Chain<'a>(pub &'a (dyn std::error::Error + 'static));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut cause = self.0.source();
        while let Some(next) = cause {
            write!(f, ": {next}")?;
            cause = next.source();
        }
        Ok(())
    }
}
