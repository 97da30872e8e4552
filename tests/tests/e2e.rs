//! Every integration test of this crate, linked into one binary: one link instead of one
//! per file, the largest part of a clean test build. Each file stays its own module, so
//! a test is still named by its file (`cargo test --test e2e cli::`).

mod cluster;
mod damage;
mod doc_examples;
mod faults;
mod hostile_load;
mod live;
mod malicious;
mod puzzle_cluster;
mod resume;
mod review;
mod rpc;
mod serve_limits;
mod web;
