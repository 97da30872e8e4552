//! hakase-worker: leases search jobs from a coordinator over gRPC, solves them with the core
//! solver on rayon, and keeps a sled memo of subproblem values so a restarted worker, and
//! later runs on the same machine, reuse what it already proved.
//!
//! [`run`] registers and hands each registration to a work loop: search jobs (`work`) or
//! puzzle days (`puzzle`); both talk to the coordinator through [`client`].

#![warn(missing_docs)]

pub mod client;
pub mod error;
pub mod exec;
pub mod hold;
pub mod incumbent;
pub mod joblog;
pub mod memo;
pub mod metrics;
pub mod options;
mod puzzle;
mod run;
pub mod runner;
mod session;
mod work;

pub use error::WorkerError;
pub use exec::{solve_job, solve_job_halting, Workbench};
pub use memo::SledMemo;
pub use metrics::{WorkerCounts, WorkerMetrics};
pub use options::{default_game_budget, WorkerOptions, WorkerSummary};
pub use run::{run, CONNECT_FROM_STDIN};
