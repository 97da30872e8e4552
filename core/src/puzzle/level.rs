//! Puzzle kinds and difficulty levels, as named on the command line and in files.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The two kinds of puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Rows after which exactly one answer remains: name it.
    Deduction,
    /// A position where exactly one guess is right: find it.
    BestMove,
}

/// Difficulty levels, easiest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// Deduction: greens only. Best move: a small position the information-greedy guess solves.
    Easy,
    /// Deduction: yellows to place. Best move: a larger position, or one needing three guesses.
    Medium,
    /// Deduction: the duplicate-letter rule. Best move: the information-greedy guess is wrong.
    Hard,
}

/// Every level, easiest first.
pub const LEVELS: [Level; 3] = [Level::Easy, Level::Medium, Level::Hard];
/// Every kind, in the order batches alternate them.
pub const KINDS: [Kind; 2] = [Kind::Deduction, Kind::BestMove];

impl Level {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }
}

impl Kind {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Deduction => "deduction",
            Kind::BestMove => "best-move",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        LEVELS
            .into_iter()
            .find(|l| l.name() == s.trim())
            .ok_or_else(|| format!("unknown level {s:?} (easy, medium, hard)"))
    }
}

impl FromStr for Kind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        KINDS
            .into_iter()
            .find(|k| k.name() == s.trim())
            .ok_or_else(|| format!("unknown puzzle kind {s:?} (deduction, best-move)"))
    }
}
