//! hakase-core: the pure, synchronous heart of hakase. No I/O beyond decoding embedded data,
//! no printing, no async.
//!
//! The modules are grouped by concept, and this file says what each group makes public:
//! - the rules of a game ([`rules`]): word lists and presets, the feedback rule and table,
//!   the guesses a history allows;
//! - the exact solver ([`solver`]), and what it proves, worded once ([`label`]);
//! - strategy trees: their evaluation, their file format and the facts it states, their
//!   checking, the chart ([`trees`]);
//! - heuristics and the strategies people use ([`heuristics`]);
//! - what is built on the optimum: queries ([`query`]), game reviews ([`review`]), puzzles
//!   ([`puzzle`]), the search for the strongest name ([`design`]) and the shipped exact
//!   rankings of English Wordle's openers ([`rankings`]);
//! - counts in words, spelled once for every crate ([`plural`]).
//!
//! The modules people name by path stay at the root (`hakase_core::pattern`,
//! `hakase_core::strategy`, `hakase_core::tree`, …), re-exported from their group.

#![warn(missing_docs)]

pub mod design;
mod error;
pub mod heuristics;
pub mod label;
pub mod plural;
pub mod puzzle;
pub mod query;
pub mod rankings;
pub mod review;
pub mod rules;
pub mod solver;
pub mod trees;

// The modules people name by path, kept where they have always been.
pub use heuristics::{entropy, strategies, strategy};
pub use rules::{history, normalize, pattern, presets, word};
pub use trees::{chart, tree, treefile};

// The items every user needs, at the root.
pub use error::{Error, Result};
pub use rules::game::{AnswerId, Game, GuessId, WordListInput};
pub use rules::game_table::GameTable;
pub use rules::pattern::{feedback, Cell, Pattern, PatternStyle};
pub use rules::table::FeedbackTable;
pub use trees::verify::{verify, VerifyError};

// Inside the crate the rules keep their short paths (`crate::game`, `crate::table`).
pub(crate) use rules::{alphabet, game, game_table, table};
