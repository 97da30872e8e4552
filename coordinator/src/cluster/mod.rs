//! The distributed search: a coordinator that cuts the top two levels of the exhaustive
//! search into content-addressed jobs ([`plan`]), keeps the run in sled ([`store`]) so it can
//! resume, hands jobs to workers over gRPC ([`server`]), and assembles the proven-optimal
//! tree from their results ([`engine`]). The resumable run on one machine is the in-memory
//! search with durable checkpoints ([`checkpoint`]).

pub mod audit;
pub mod checkpoint;
pub mod engine;
pub mod error;
pub mod http;
pub mod joblog;
pub mod plan;
pub mod ranking_file;
pub mod server;
pub mod store;

pub use engine::{Engine, EngineParams, Snapshot};
pub use error::ClusterError;
pub use plan::PlanParams;
pub mod runtime;
