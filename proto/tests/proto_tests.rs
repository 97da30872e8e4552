//! Every integration test of this crate, linked into one binary (one link instead of one per
//! file); each file stays its own module, so a test is still named by its file
//! (`cargo test -p hakase-proto --test proto_tests wire_numbers::`).

mod message_fuzz;
mod wire_numbers;
