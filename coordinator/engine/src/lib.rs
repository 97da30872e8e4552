//! hakase-engine: the search. The distributed search: a coordinator that cuts the top two
//! levels of the exhaustive search into content-addressed jobs ([`plan`]), keeps the run in
//! its run directory ([`hakase_runs`]) so it can resume, hands jobs to workers over gRPC
//! ([`server`]), shows its progress on an HTTP port ([`http`]), and assembles the
//! proven-optimal tree from their results ([`engine`]). And the solves on one machine that
//! write the same run directory: the resumable solve of the whole game ([`checkpoint`]) and
//! the solve of one fixed first guess ([`first`]).

#![warn(missing_docs)]

pub mod audit;
pub mod checkpoint;
pub mod engine;
pub mod error;
pub mod first;
pub mod http;
pub mod joblog;
pub mod plan;
pub mod server;

pub use engine::{Engine, EngineParams, Snapshot};
pub use error::ClusterError;
pub use plan::PlanParams;
