//! Strategies people play, played against every answer and compared with the optimum.
//!
//! [`crate::heuristics::strategy`] holds the rules that depend only on the answers still
//! possible. The rules here may also look at the clues seen so far and at a "universe" (the
//! word lists a player believes the answer comes from, [`universe`]), as the seed blog's
//! letter-frequency solvers do; [`play`] writes any of them out as a decision tree,
//! [`catalog`] names them for the command line and [`scoreboard`] turns trees into the
//! comparison table.

pub mod catalog;
pub mod frequency;
pub mod play;
pub mod scoreboard;
pub mod universe;

use crate::heuristics::strategy::Strategy;
use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::history::Step;
use crate::rules::table::FeedbackTable;
use crate::solver::Mode;

/// Everything a player knows before a guess.
#[derive(Debug, Clone, Copy)]
pub struct Situation<'a> {
    /// The game's answers that fit every clue so far; never empty.
    pub candidates: &'a [AnswerId],
    /// The guesses played so far with the colours shown.
    pub steps: &'a [Step],
    /// The words the player believes may be the answer: those of the first universe list
    /// with a word that fits every clue (the game's candidates when no list has one).
    pub pool: &'a [GuessId],
}

/// A rule that picks the next guess from what has been seen; deterministic, so a whole
/// strategy can be written out once as a tree.
///
/// One of the four seams that choose a guess (docs/development.md, "Choosing a guess"). Its
/// contract is wider than [`Strategy`]'s: a player may read the clues so far and the pool of
/// words it believes possible (the seed blog's frequency solvers do both), and it states the
/// rules its guesses obey ([`Player::mode`]). Such a guess is not a function of the candidate
/// set, so a player is played path by path ([`play::play_tree`]) and cannot serve the callers
/// that hold only a candidate set; that is why the two traits stay apart.
pub trait Player: Sync {
    /// The name used on the command line and in reports.
    fn name(&self) -> &str;
    /// The next guess.
    fn next(&self, game: &Game, table: &FeedbackTable, situation: &Situation<'_>) -> GuessId;
    /// Which rules every guess obeys: [`Mode::Strict`] for players that only guess words that
    /// fit every clue, so tests can hold them to it.
    fn mode(&self) -> Mode {
        Mode::Normal
    }
    /// True when the player draws its guesses from the universe pool.
    fn uses_universe(&self) -> bool {
        false
    }
}

/// A candidate-set [`Strategy`] as a player (it ignores clues and pool), so the catalogue
/// and the scoreboard hold one kind of rule.
pub struct Greedy(pub Box<dyn Strategy>);

impl Player for Greedy {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn next(&self, game: &Game, table: &FeedbackTable, situation: &Situation<'_>) -> GuessId {
        self.0.choose(game, table, situation.candidates)
    }
}
