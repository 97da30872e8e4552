//! hakase-core: the pure, synchronous heart of hakase.
//!
//! Game rules and word lists ([`game`], [`presets`]), the feedback rule and table
//! ([`pattern`], [`table`]), analyses and heuristic strategies ([`entropy`], [`strategy`],
//! [`strategies`]),
//! strategy trees and their evaluation ([`tree`]) and charts ([`chart`]). No I/O beyond
//! decoding embedded data, no printing, no async.

#![warn(missing_docs)]

pub mod alphabet;
pub mod chart;
pub mod claims;
pub mod design;
pub mod entropy;
pub mod error;
pub mod game;
pub mod game_table;
pub mod history;
pub mod label;
pub mod normalize;
pub mod pattern;
pub mod presets;
pub mod puzzle;
pub mod query;
pub mod review;
pub mod solver;
pub mod strategies;
pub mod strategy;
pub mod table;
pub mod tree;
pub mod treefile;
pub mod verify;
pub mod word;

pub use error::{Error, Result};
pub use game::{AnswerId, Game, GuessId, WordListInput};
pub use game_table::GameTable;
pub use pattern::{feedback, Cell, Pattern, PatternStyle};
pub use table::FeedbackTable;
