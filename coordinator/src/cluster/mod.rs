//! The distributed search: a coordinator that cuts the top two levels of the exhaustive
//! search into content-addressed jobs ([`plan`]), keeps the run in its run directory
//! ([`crate::runs`]) so it can resume, hands jobs to workers over gRPC ([`server`]), and
//! assembles the proven-optimal tree from their results ([`engine`]).

pub mod audit;
pub mod engine;
pub mod error;
pub mod http;
pub mod joblog;
pub mod plan;
pub mod server;

pub use engine::{Engine, EngineParams, Snapshot};
pub use error::ClusterError;
pub use plan::PlanParams;
