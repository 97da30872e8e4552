//! Every integration test of this crate, linked into one binary: one link instead of one
//! per file, the largest part of a clean test build. Each file stays its own module, so
//! a test is still named by its file (`cargo test --test coordinator_tests cli::`).

mod common;

mod adversary;
mod audit_tamper;
mod bench_coordinator;
mod checkpoint;
mod cli;
mod compare_cli;
mod damaged_runs;
mod defects_cli;
mod design_cli;
mod engine_order;
mod hostile;
mod json_contract;
mod newcomer;
mod puzzle_cli;
mod query_cli;
mod query_first;
mod query_grpc;
mod query_http;
mod shipped_ranking;
