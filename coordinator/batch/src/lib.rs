//! Batches of generated puzzles, resumable on disk and optionally made by workers: a year of
//! daily puzzles behind `hakase puzzle --count N --out DIR [--listen ADDR]`.
//!
//! - [`files`]: the batch directory (`batch.json`, `puzzles.jsonl`, `claims.jsonl`, the
//!   final sheets), written durably so a killed batch resumes;
//! - [`run`]: one batch in the making ([`BatchRun`]), the single place days are accepted,
//!   whether made here or by workers;
//! - [`sheet`]: a puzzle and its solution as text;
//! - [`serve`]: the batch server workers connect to, standing in [`hakase_serving`]'s shell.
//!
//! The binary's `cli/puzzle` parses the flags and makes single puzzles; everything a batch
//! is lives here, so nothing in this crate reaches back into the command line.

#![warn(missing_docs)]

pub mod error;
pub mod files;
pub mod run;
pub mod serve;
pub mod sheet;

pub use error::BatchError;
pub use files::{BatchDir, Claim, Header};
pub use run::{write_summary, BatchRun, BatchSummary};
pub use serve::{serve, ServeArgs};
