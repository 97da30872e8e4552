//! The library side of the `hakase` command: the distributed search's coordinator over gRPC,
//! the resumable single-machine run, and the commands around them.

#![warn(missing_docs)]

pub mod cluster;
pub mod output;
pub mod query;
pub mod runs;
pub mod serving;
pub mod web;
