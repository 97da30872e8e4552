//! hakase-proto: the gRPC protocol of the distributed search (generated from `proto/` at build
//! time with a vendored protoc) and the job types the coordinator and the workers share.
//!
//! A job is a subproblem of the exhaustive search, content-addressed by [`job::JobId`], solved
//! with a cutoff β: its answer is either exact or a proven lower bound ≥ β.

#![warn(missing_docs)]

pub mod client;
pub mod error;
pub mod explain;
pub mod game;
pub mod job;
pub mod options;
pub mod token;
pub mod tree;

pub use error::ProtoError;

/// Generated messages and services of package `hakase.v1`.
pub mod v1 {
    #![allow(missing_docs, clippy::all, clippy::pedantic)]
    tonic::include_proto!("hakase.v1");
}

/// The encoded descriptors of every service, for the reflection service (grpcurl).
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("hakase_descriptor");

/// Largest gRPC message either side accepts: big enough for a Wordle subtree, small enough
/// that a hostile peer cannot make us allocate without bound.
pub const MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;

/// Most jobs one lease may ask for, and most results one report may carry: a worker with
/// many threads holds more than that, so it asks and reports in pieces of this size.
pub const MAX_LEASE: u32 = 1024;

/// Metadata key carrying the shared token.
pub const AUTH_HEADER: &str = "authorization";

/// The metadata value a client sends for `token`.
pub fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}
