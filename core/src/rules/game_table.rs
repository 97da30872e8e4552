//! A game together with its feedback table: the one thing every search, check and server
//! needs, built once and shared by `Arc` instead of being leaked to live as long as the
//! process.

use crate::rules::game::Game;
use crate::rules::table::FeedbackTable;

/// A game and the feedback table built from it. Readable by field; made only by
/// [`GameTable::build`], so the table always belongs to the game beside it.
///
/// Threads and servers that outlive a stack frame hold an `Arc<GameTable>` and borrow from
/// it ([`crate::solver::SharedSolver`] owns a solver over one).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GameTable {
    /// The game.
    pub game: Game,
    /// Every guess's pattern against every answer of `game`.
    pub table: FeedbackTable,
}

impl GameTable {
    /// Builds the table of `game` (in parallel, see [`FeedbackTable::build`]).
    pub fn build(game: Game) -> GameTable {
        let table = FeedbackTable::build(&game);
        GameTable { game, table }
    }
}
