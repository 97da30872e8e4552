//! Generated puzzles: deduction puzzles (rows after which exactly one answer remains) and
//! best-move problems (a position where exactly one guess is right), graded and proven.
//!
//! Generation is two-stage, as good puzzle generators are: many seeded candidates are screened
//! cheaply (candidate counts, heuristics), the few survivors are graded exactly (the careless
//! reader's count, the exact solver), and only the best per slot is kept. See [`batch`] for the
//! memory bound, [`order`] for the near-duplicate rule (the same on one machine and on a
//! cluster) and [`claim`] for the checks a puzzle made elsewhere gets (a worker's claim: a
//! result a worker reports, taken only once checked).

pub mod batch;
pub mod best_move;
pub mod careless;
pub mod claim;
pub mod deduction;
pub mod level;
pub mod order;
pub mod split;

use serde::{Deserialize, Serialize};

use crate::rules::game::{Game, GuessId};
use crate::rules::pattern::Pattern;

pub use batch::{plan, Generator, LevelMix, Slot};
pub use level::{Kind, Level};
pub use order::{DayOrder, Decision, Missing, Seen};

/// One row the puzzle shows: a guess and the colours the game gave it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Row {
    /// The guess as typed.
    pub guess: String,
    /// The colours, in the game's own notation (any notation is accepted when read back).
    pub pattern: String,
}

impl Row {
    /// A row from ids, written in the game's style.
    pub fn new(game: &Game, guess: GuessId, pattern: Pattern) -> Row {
        let len = game.guesses()[guess as usize].len();
        Row {
            guess: game.guess_text(guess).to_string(),
            pattern: pattern.format(len, game.style()),
        }
    }
}

/// How a deduction puzzle must be reasoned out, from easiest to hardest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reasoning {
    /// Only greens and grays: letters are fixed or excluded.
    GreensOnly,
    /// Yellows must be placed, but reading every cell on its own is enough.
    YellowsPlaced,
    /// The duplicate-letter rule matters: a reader who takes gray as "not in the answer" and
    /// yellow as "somewhere else" does not arrive at exactly the answer.
    LetterCounts,
}

/// The grade of a deduction puzzle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeductionGrade {
    /// Answers still possible after each row (the last is always 1). Read under its old
    /// name `left_after_rows` too, so batches written before the rename still resume.
    #[serde(alias = "left_after_rows")]
    pub counts: Vec<usize>,
    /// The hardest kind of reasoning the rows need.
    pub reasoning: Reasoning,
    /// Answers a careless reader (each cell read on its own) would still think possible.
    pub careless_left: usize,
    /// Whether the careless reader's answers include the real one.
    pub careless_keeps_answer: bool,
}

/// What a best-move problem asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Goal {
    /// Exactly one guess wins within this many more guesses (it included) for every answer.
    /// A JSON key, so snake_case like every field name (`win-within` is still read).
    #[serde(rename = "win_within", alias = "win-within")]
    WinWithin {
        /// Guesses, the one asked for included.
        guesses: u32,
    },
    /// Exactly one guess minimises the total number of guesses over the answers left.
    UniqueOptimum,
}

/// A move a heuristic player would make, and what it costs, proven by the exact solver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tempting {
    /// The heuristic: `entropy` or `frequency`.
    pub strategy: String,
    /// The guess it plays.
    pub guess: String,
    /// Exact total guesses over the answers left when it is played and play is optimal after.
    pub total: u32,
    /// Fewest guesses (it included) that win every answer after it, played optimally after.
    pub worst: u32,
}

/// The grade of a best-move problem; every number is exact (proven by the solver).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BestMoveGrade {
    /// What is asked.
    pub goal: Goal,
    /// The answers still possible (`answers` in files written before the rename: the
    /// scheme keeps `answers` for a number).
    #[serde(alias = "answers")]
    pub candidates: Vec<String>,
    /// Exact total guesses over those answers with the best move, then optimal play (was
    /// `best_total`).
    #[serde(alias = "best_total")]
    pub total: u32,
    /// Fewest guesses (the best move included) that win every answer (was `best_worst`).
    #[serde(alias = "best_worst")]
    pub worst: u32,
    /// The heuristics' moves.
    pub tempting: Vec<Tempting>,
    /// How much the worse of the missed heuristic moves loses: in worst-case guesses for
    /// [`Goal::WinWithin`], in total guesses for [`Goal::UniqueOptimum`].
    pub margin: u32,
}

/// A puzzle's grade, by kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Grade {
    /// Name the answer.
    Deduction(DeductionGrade),
    /// Find the move. A JSON key, so snake_case like every field name (`best-move` is
    /// still read).
    #[serde(rename = "best_move", alias = "best-move")]
    BestMove(BestMoveGrade),
}

/// One generated puzzle with its solution and grade.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Puzzle {
    /// Its day in the batch, from 1.
    pub day: usize,
    /// The game it is played in.
    pub game: String,
    /// Deduction or best move.
    pub kind: Kind,
    /// The level the grade gives (for a full batch, the one asked for whenever one was found).
    pub level: Level,
    /// The rows shown.
    pub rows: Vec<Row>,
    /// The question, in words.
    pub question: String,
    /// The answer (deduction) or the guess (best move).
    pub solution: String,
    /// How hard it is and why.
    pub grade: Grade,
}
