//! The library side of the `hakase` command: the distributed search's coordinator, usable
//! embedded (coordinator and workers in one process) or over gRPC.

#![warn(missing_docs)]

pub mod cluster;
pub mod output;
pub mod query;
pub mod web;
