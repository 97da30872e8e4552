//! Why a message from the other side could not be used.

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
    #[error("game: {0}")]
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
        tonic::Status::invalid_argument(err.to_string())
    }
}
