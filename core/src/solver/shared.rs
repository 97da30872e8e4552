//! A solver that owns what it borrows: for engines and servers whose solver must outlive the
//! stack frame that built the game (threads, async tasks), without leaking the game.

use std::sync::Arc;

use super::{Solver, SolverConfig};
use crate::rules::game_table::GameTable;

self_cell::self_cell!(
    /// The shared game and table, and the solver that borrows them.
    struct Held {
        owner: Arc<GameTable>,
        #[covariant]
        dependent: Solver,
    }
);

/// A [`Solver`] together with the `Arc` of the game and table it searches: `'static`, so it
/// can live in a long-lived engine, and dropping the last holder frees the table.
pub struct SharedSolver(Held);

impl SharedSolver {
    /// A solver over `tables` with an in-memory table of `memo_entries` entries at most.
    pub fn new(tables: Arc<GameTable>, config: SolverConfig, memo_entries: usize) -> SharedSolver {
        SharedSolver(Held::new(tables, |t| {
            Solver::new(&t.game, &t.table, config, memo_entries)
        }))
    }

    /// The solver.
    pub fn solver(&self) -> &Solver<'_> {
        self.0.borrow_dependent()
    }

    /// The game and table it searches.
    pub fn tables(&self) -> &Arc<GameTable> {
        self.0.borrow_owner()
    }
}

impl std::fmt::Debug for SharedSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedSolver")
            .field("game", &self.tables().game.name())
            .field("config", self.solver().config())
            .finish()
    }
}
