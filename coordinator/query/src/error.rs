//! Why the query service refused a request, in its own terms: each front end (gRPC, HTTP)
//! maps an [`ErrorKind`] to its status once, and sends the English message ([`Display`]),
//! and over HTTP the message key too ([`ServiceError::message`]), so the same cause reads
//! the same everywhere.
//!
//! [`Display`]: std::fmt::Display

use hakase_core::oracle::QueryError;
use hakase_core::review::ReviewError;
use thiserror::Error;
use tokio::task::JoinError;

use super::catalog::CatalogError;
use super::input::TooLongText;
use super::message::{self, Message};
use super::pool::Crowded;
use super::ranking::RankingError;
use hakase_runs::RunError;

/// A refusal of the query service; its message is the English every front end sends.
#[derive(Debug, Error)]
pub enum ServiceError {
    /// The request's run is not served, or none was named among several.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// The question cannot be answered as asked (history, first guess, limits).
    #[error(transparent)]
    Query(#[from] QueryError),
    /// No answer of the game fits the history.
    #[error("no possible answer fits the history: {0}")]
    NoAnswerFits(hakase_core::Error),
    /// The game given for a review cannot be read or judged.
    #[error(transparent)]
    Review(#[from] ReviewError),
    /// The run cannot answer (it has no optimal tree).
    #[error(transparent)]
    Run(#[from] RunError),
    /// The run's ranking cannot be read, or a word asked about is not a guess.
    #[error(transparent)]
    Ranking(#[from] RankingError),
    /// The solve pool is closed: the server is stopping.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// A text of the request is far longer than any word: refused before it is read.
    #[error(transparent)]
    TooLong(#[from] TooLongText),
    /// The client's address has its share of the solve pool, or the pool's line is full.
    #[error(transparent)]
    Crowded(#[from] Crowded),
    /// The solve needed more work than one request may cause here.
    #[error(
        "too costly to solve here: the answer needs more than {:.1} s of solving, the most one \
         request may take on this server (`hakase query` or `hakase review` solves it on your own \
         machine)",
        time.as_secs_f64()
    )]
    TooCostly {
        /// The budget in force.
        time: std::time::Duration,
    },
    /// An on-the-spot solve died (a bug).
    #[error("the solve failed: {0}")]
    SolveFailed(JoinError),
    /// A rescan of the sources died (a bug).
    #[error("the rescan failed: {0}")]
    RescanFailed(JoinError),
}

/// What kind of refusal an error is, for a front end to pick its status from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is wrong: the client has to change it.
    Invalid,
    /// The run named is not served.
    NotFound,
    /// The run cannot answer this (no tree; no strategy wins in the guesses left).
    Precondition,
    /// Answering would need a solve larger than the service allows.
    TooLarge,
    /// Answering needed more work than the service allows one request (it tried).
    TooCostly,
    /// The client asks too much at once; it may ask again after its answers came.
    Crowded,
    /// The service is stopping; asking again elsewhere or later may work.
    Unavailable,
    /// The service failed (a bug).
    Internal,
}

impl ServiceError {
    /// The kind of refusal.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ServiceError::Catalog(CatalogError::Unknown { .. }) => ErrorKind::NotFound,
            ServiceError::Catalog(_) => ErrorKind::Invalid,
            ServiceError::Query(QueryError::NoTree(_) | QueryError::Infeasible { .. }) => {
                ErrorKind::Precondition
            }
            ServiceError::Query(QueryError::TooManyToSolve { .. }) => ErrorKind::TooLarge,
            ServiceError::Query(QueryError::Halted) => ErrorKind::Unavailable,
            ServiceError::Query(_) | ServiceError::NoAnswerFits(_) | ServiceError::Review(_) => {
                ErrorKind::Invalid
            }
            ServiceError::Ranking(
                RankingError::UnknownWord { .. } | RankingError::NotListed { .. },
            ) => ErrorKind::Invalid,
            ServiceError::Run(_) | ServiceError::Ranking(_) => ErrorKind::Precondition,
            ServiceError::ShuttingDown => ErrorKind::Unavailable,
            ServiceError::TooLong(_) => ErrorKind::Invalid,
            ServiceError::Crowded(Crowded::PerAddress(_)) => ErrorKind::Crowded,
            ServiceError::Crowded(Crowded::Full(_)) => ErrorKind::Unavailable,
            ServiceError::TooCostly { .. } => ErrorKind::TooCostly,
            ServiceError::SolveFailed(_) | ServiceError::RescanFailed(_) => ErrorKind::Internal,
        }
    }

    /// The message key of a cause a player makes, for a page to word in its own language;
    /// `None` for the others (a damaged run, a failure), which are shown in English.
    pub fn message(&self) -> Option<Message> {
        match self {
            ServiceError::Catalog(e) => message::of_catalog(e),
            ServiceError::Query(e) => message::of_query(e),
            ServiceError::NoAnswerFits(e) => message::of_core(e, 0),
            ServiceError::Review(e) => message::of_review(e),
            ServiceError::Ranking(RankingError::UnknownWord { error, .. }) => {
                message::of_core(error, 0)
            }
            _ => None,
        }
    }
}
