//! hakase-worker: leases search jobs from a coordinator over gRPC, solves them with the core
//! solver on rayon, and keeps a sled memo of subproblem values so a restarted worker, and
//! later runs on the same machine, reuse what it already proved.

#![warn(missing_docs)]

pub mod client;
pub mod error;
pub mod exec;
pub mod group_commit;
pub mod hold;
pub mod incumbent;
pub mod joblog;
pub mod memo;
pub mod metrics;
mod puzzle;
pub mod runner;
pub mod sled_guard;

pub use client::{run, WorkerOptions, WorkerSummary};
pub use error::WorkerError;
pub use exec::{solve_job, Workbench};
pub use memo::SledMemo;
pub use metrics::{WorkerCounts, WorkerMetrics};
