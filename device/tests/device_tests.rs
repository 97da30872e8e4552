//! Every integration test of this crate, linked into one binary: one link instead of one
//! per file, the largest part of a clean test build. Each file stays its own module, so
//! a test is still named by its file (`cargo test --test device_tests cli::`).

mod common;

mod c_header;
mod glyphs;
mod golden;
mod refresh;
