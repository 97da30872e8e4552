//! hakase-core: the pure, synchronous heart of hakase. No I/O beyond decoding embedded data,
//! no printing, no async.
//!
//! The modules are grouped by concept; each folder is a module, and a module is imported by
//! the path of its file (`core/src/rules/pattern.rs` is `hakase_core::rules::pattern`):
//! - the rules of a game ([`rules`]): word lists and presets, the feedback rule and table,
//!   the guesses a history allows;
//! - the exact solver ([`solver`]), and what a result may claim, worded once ([`label`]);
//! - strategy trees ([`trees`]): their evaluation, the file people exchange them in and the
//!   facts it states, their checking, the chart;
//! - heuristics and the strategies people use ([`heuristics`]);
//! - what is built on the optimum: the oracle that answers a player's questions, the next
//!   guess after any history and the chart of any first guess ([`oracle`]), game reviews
//!   ([`review`]), puzzles ([`puzzle`]), the search for the strongest name ([`design`]) and
//!   the shipped exact rankings of English Wordle's openers ([`rankings`]);
//! - counts in words, spelled once for every crate ([`plural`]).
//!
//! The few items nearly every user names (the game, its ids, the feedback rule and table,
//! the error type) are also re-exported at the root.

#![warn(missing_docs)]

pub mod design;
mod error;
pub mod heuristics;
pub mod label;
pub mod oracle;
pub mod plural;
pub mod puzzle;
pub mod rankings;
pub mod review;
pub mod rules;
pub mod solver;
pub mod trees;

// The items every user needs, at the root.
pub use error::{Error, Result};
pub use rules::game::{AnswerId, Game, GuessId, WordListInput};
pub use rules::game_table::GameTable;
pub use rules::pattern::{feedback, Cell, Pattern, PatternStyle};
pub use rules::table::FeedbackTable;
pub use trees::verify::{verify, VerifyError};
