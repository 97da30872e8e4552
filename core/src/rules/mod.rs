//! The rules of a game: its word lists (presets or custom lists), the alphabet it is written
//! in and how typed words are normalised, the feedback rule and its precomputed table, and
//! the answers a history of guesses leaves.

pub(crate) mod alphabet;
pub(crate) mod game;
pub(crate) mod game_table;
pub mod history;
pub mod normalize;
pub mod pattern;
pub mod presets;
pub(crate) mod table;
pub mod word;
