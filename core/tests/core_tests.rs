//! Every integration test of this crate, linked into one binary: one link instead of one
//! per file, the largest part of a clean test build. Each file stays its own module, so
//! a test is still named by its file (`cargo test --test core_tests cli::`).

mod common;

mod analysis;
mod design;
mod errors;
mod evaluation;
mod feedback;
mod parser_fuzz;
mod presets;
mod properties;
mod puzzles;
mod shipped_rankings;
mod solver_presets;
mod solver_vs_exhaustive;
mod strategies;
