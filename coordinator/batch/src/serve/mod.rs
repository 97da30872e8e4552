//! A batch made by workers: `hakase puzzle --count N … --out DIR --listen ADDR` serves the
//! batch's days to `hakase worker --connect http://ADDR` over gRPC (Cluster.Register and
//! Cluster.Heartbeat, then the Puzzles service), one job per day and attempt.
//!
//! The files are the local batch's, byte for byte: a day's puzzle depends only on the seed,
//! its slot and its attempt, and days are accepted in day order by the same [`BatchRun`].
//! Results are claims: each is checked against its rows ([`claim::check`]), every deduction
//! puzzle and every "no puzzle found" is made again here (cheap), and best-move problems are
//! made again by the audit policy's sample (`--audit-fraction`), drawn from a secret this
//! coordinator makes at start and never sends, so no worker can tell which of its claims
//! will be checked. A claim that does not check refuses its worker (by id and by its own
//! token) and drops its leases.
//! Checked claims are synced to `claims.jsonl` before the worker hears they were taken, so a
//! coordinator killed at any time resumes with every acknowledged day.
//!
//! The server stands in the serving shell ([`hakase_serving`]) like
//! `hakase coordinator`: the same listener, TLS, token check, signals and linger.
//!
//! [`BatchRun`]: crate::run::BatchRun
//! [`claim::check`]: hakase_core::puzzle::claim::check

mod args;
mod check;
mod ids;
mod puzzles;
mod server;
mod service;
mod state;

pub use args::ServeArgs;
pub use server::serve;
