//! The exact solver: proven-optimal strategies by branch and bound over every allowed guess,
//! pruned only by admissible lower bounds.
//!
//! The value of a candidate set H with `d` guesses left is
//! f(H) = |H| + min over guesses g of Σ over non-winning feedbacks s of f(P(H, g, s)),
//! f({a}) = 1, and f(H) is infeasible when some answer cannot be found within `d` guesses.
//! Every search call takes a cutoff β and returns either the exact value (when it is below β)
//! or a proven lower bound ≥ β; the distributed engine is built on that contract.
//!
//! Determinism: among the optimal guesses of a node, the solver picks the first in the order
//! (lower bound, Σ part², list position), so the same input always gives the same tree,
//! whatever the thread count or the memo contents.

pub mod bounds;
mod cells;
mod depth;
mod dominance;
mod floor;
mod halt;
pub mod hard;
mod hard_masks;
mod hard_pool;
mod local;
pub mod memo;
mod order_cache;
mod root;
mod scan;
mod search;
mod shared;
mod sizes;
mod words;
mod work;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::table::FeedbackTable;
use hard::HardState;
use hard_masks::HardMasks;
use memo::{Generations, Memo, MemoryMemo};

pub use halt::Halt;
pub use root::{Checkpoint, FirstGuessValue, FirstGuesses, Progress, Solution};
pub use shared::SharedSolver;
pub use work::Work;

/// What "optimal" means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Objective {
    /// Fewest guesses in total over all answers (= mean × n).
    #[default]
    Total,
    /// Fewest guesses in the worst case, ties broken by the total.
    Worst,
}

/// Which guesses are allowed after the first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Any allowed guess at any time.
    #[default]
    Normal,
    /// The game's hard mode: greens stay in place and revealed letters are reused.
    Hard,
    /// Every guess must be a possible answer given all clues so far.
    Strict,
}

/// Everything that changes the answer of a search.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SolverConfig {
    /// What to minimise.
    pub objective: Objective,
    /// A cap on guesses below the game's tries; `None` uses the tries.
    pub max_guesses: Option<u32>,
    /// Normal, hard or strict play.
    pub mode: Mode,
    /// The published restricted method: only the K best guesses by entropy at each node (plus
    /// the candidates when at most 10 remain). Results are upper bounds, never proven.
    pub top_k: Option<usize>,
}

impl Default for SolverConfig {
    fn default() -> Self {
        SolverConfig {
            objective: Objective::Total,
            max_guesses: None,
            mode: Mode::Normal,
            top_k: None,
        }
    }
}

impl SolverConfig {
    /// True when results are proofs: no guess is skipped except by sound bounds.
    pub fn is_exact(&self) -> bool {
        self.top_k.is_none()
    }

    /// The guess budget for a game.
    pub fn guess_cap(&self, game: &Game) -> u32 {
        self.max_guesses
            .map_or(game.tries(), |cap| cap.min(game.tries()))
    }

    /// Bytes that make memo keys of different configurations differ. The objective and cap
    /// are not part of it: they only change the guesses left, which keys carry.
    fn salt(&self) -> [u8; 9] {
        let mut salt = [0u8; 9];
        salt[0] = self.mode as u8;
        salt[1..].copy_from_slice(&(self.top_k.map_or(0, |k| k as u64 + 1)).to_le_bytes());
        salt
    }
}

/// Value used for "cannot be won within the guesses left".
pub const INFEASIBLE: u32 = u32::MAX / 4;

/// The answer to "what is this subproblem worth, given cutoff β?".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// The optimal value (below the cutoff) and the guess that achieves it.
    Exact {
        /// Total guesses over the candidates.
        value: u32,
        /// The optimal guess.
        guess: GuessId,
    },
    /// The value is at least this (≥ the cutoff); [`INFEASIBLE`] when no strategy wins.
    AtLeast(u32),
}

impl Outcome {
    /// The exact value or the lower bound.
    pub fn value(self) -> u32 {
        match self {
            Outcome::Exact { value, .. } | Outcome::AtLeast(value) => value,
        }
    }

    /// True for an exact result.
    pub fn is_exact(self) -> bool {
        matches!(self, Outcome::Exact { .. })
    }
}

/// A subproblem: the answers still possible, the guesses left and the hard-mode state.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Node {
    /// Candidate answers, sorted ascending.
    pub candidates: Vec<AnswerId>,
    /// Guesses still allowed, this one included.
    pub guesses_left: u32,
    /// Hard-mode constraints (empty outside hard mode).
    pub hard: HardState,
}

/// Counters for progress displays and benchmarks.
#[derive(Debug, Default)]
pub struct Stats {
    /// Nodes whose guesses were scanned.
    pub nodes: AtomicU64,
    /// Memo lookups that answered.
    pub memo_hits: AtomicU64,
    /// Scans made (node scans and quick bounds).
    pub scans: AtomicU64,
    /// Guess × candidate pairs looked up by scans: the solver's main cost.
    pub scanned_pairs: AtomicU64,
}

impl Stats {
    /// The counters at one moment (nodes, scans, scanned pairs, memo hits), so benchmarks
    /// and examples can subtract or print them.
    pub fn snapshot(&self) -> [u64; 4] {
        [
            self.nodes.load(Ordering::Relaxed),
            self.scans.load(Ordering::Relaxed),
            self.scanned_pairs.load(Ordering::Relaxed),
            self.memo_hits.load(Ordering::Relaxed),
        ]
    }

    /// The counters as the one line the examples print.
    pub fn summary(&self) -> String {
        let [nodes, scans, pairs, hits] = self.snapshot();
        format!("nodes {nodes} scans {scans} scanned_pairs {pairs} memo_hits {hits}")
    }
}

/// A solver for one game and configuration, sharing one transposition table across threads
/// (rayon's global pool).
///
/// One of the four seams that choose a guess (docs/development.md, "Choosing a guess"), and
/// the one the others stand on: it does not pick a move for a position but proves the
/// optimum of a candidate set (a value for every first guess it ranks, proven or bounded,
/// under a budget and a halt), from which the [`Oracle`](crate::oracle::Oracle) reads its
/// answers and puzzles are graded. It is a type, not a trait: there is one exact search.
pub struct Solver<'g> {
    game: &'g Game,
    table: &'g FeedbackTable,
    config: SolverConfig,
    memo: Arc<dyn Memo + 'g>,
    /// The depth-only search's facts (see the `depth` module).
    reach: Generations<depth::Reach>,
    /// The depth-only search's counting bound ([`bounds::capacity`]); a field so that a test
    /// can put a deliberately inadmissible one in its place and see the search go wrong.
    depth_capacity: fn(u32, u32) -> u64,
    salt: [u8; 9],
    every_guess: Vec<GuessId>,
    /// The most patterns any guess shows over all the answers: no guess splits any set into
    /// more parts, so it bounds the branching below a node no scan has measured.
    widest_split: u32,
    /// Hard mode's allowed-guess sets (`None` in the other modes).
    hard_masks: Option<HardMasks>,
    /// The last nodes' order scans, for slices of one part.
    order_scans: order_cache::OrderScans<scan::Scan>,
    /// What those nodes' children read (see [`search::SliceChildren`]).
    slice_children: order_cache::OrderScans<search::SliceChildren>,
    /// Guesses by their letters at some positions, for finding finer guesses (see the
    /// `dominance` module); built on first use.
    live_index: std::sync::OnceLock<dominance::LiveIndex>,
    /// Whether searches drop guesses a finer guess beats; a field so that a test can compare
    /// the search with and without.
    prune_dominated: bool,
    /// Whether lean scans cap guesses by their cells (see the `cells` module); a field so
    /// that a test can compare floors with and without.
    cell_caps: bool,
    /// Each guess's cells as the cell caps table them (see the `cells` module).
    cells_of: Vec<[cells::Cell; crate::rules::word::BOARD]>,
    /// The halt every search obeys when given none (see [`Solver::halting_on`]).
    halt: Option<Arc<Halt>>,
    /// Search counters.
    pub stats: Stats,
}

/// Default transposition-table size: about 20 million entries, under 1 GB.
pub const DEFAULT_MEMO_ENTRIES: usize = 20_000_000;

impl<'g> Solver<'g> {
    /// A solver with an in-memory table of `memo_entries` entries at most.
    pub fn new(
        game: &'g Game,
        table: &'g FeedbackTable,
        config: SolverConfig,
        memo_entries: usize,
    ) -> Solver<'g> {
        Solver::with_memo(game, table, config, Arc::new(MemoryMemo::new(memo_entries)))
    }

    /// A solver over a caller-provided table (for example a persistent one).
    pub fn with_memo(
        game: &'g Game,
        table: &'g FeedbackTable,
        config: SolverConfig,
        memo: Arc<dyn Memo + 'g>,
    ) -> Solver<'g> {
        let salt = config.salt();
        let hard_masks = (config.mode == Mode::Hard).then(|| HardMasks::build(game.guesses()));
        Solver {
            game,
            table,
            config,
            memo,
            reach: Generations::new(depth::REACH_ENTRIES),
            depth_capacity: bounds::capacity,
            salt,
            every_guess: (0..game.guesses().len() as GuessId).collect(),
            widest_split: (0..game.guesses().len() as GuessId)
                .map(|g| table.parts(g))
                .max()
                .unwrap_or(0),
            hard_masks,
            order_scans: order_cache::OrderScans::default(),
            slice_children: order_cache::OrderScans::default(),
            live_index: std::sync::OnceLock::new(),
            prune_dominated: true,
            cell_caps: true,
            cells_of: cells::cells_of(game),
            halt: None,
            stats: Stats::default(),
        }
    }

    /// The game being solved.
    pub fn game(&self) -> &'g Game {
        self.game
    }

    /// The feedback table in use.
    pub fn table(&self) -> &'g FeedbackTable {
        self.table
    }

    /// The configuration.
    pub fn config(&self) -> &SolverConfig {
        &self.config
    }

    /// The node before any guess.
    pub fn root(&self, guesses_left: u32) -> Node {
        Node {
            candidates: self.game.all_answers(),
            guesses_left,
            hard: HardState::default(),
        }
    }

    /// The value of `node` with cutoff `beta`: exact when below `beta`, else a lower bound.
    pub fn evaluate(&self, node: &Node, beta: u32) -> Outcome {
        self.solve(
            &node.candidates,
            node.guesses_left,
            &node.hard,
            None,
            (beta, None),
        )
    }

    /// The value of playing `guess` at `node`, with cutoff `beta`.
    pub fn evaluate_guess(&self, node: &Node, guess: GuessId, beta: u32) -> Outcome {
        self.solve_guess(node, guess, beta)
    }

    /// True when this search drops dominated guesses: normal mode only (hard mode's allowed
    /// guesses depend on the clues, strict mode plays only candidates), and never in the
    /// restricted method, whose top K must come from every guess.
    fn prunes_dominated(&self) -> bool {
        self.prune_dominated && self.config.mode == Mode::Normal && self.config.is_exact()
    }

    /// The index the dominance check looks finer guesses up in.
    fn live_index(&self) -> &dominance::LiveIndex {
        self.live_index
            .get_or_init(|| dominance::LiveIndex::build(self.game))
    }

    /// Nodes scanned so far.
    pub fn nodes_searched(&self) -> u64 {
        self.stats.nodes.load(Ordering::Relaxed)
    }
}

/// A guess the search tries at a node, with the admissible lower bound it is ordered and
/// pruned by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuessBound {
    /// The guess.
    pub guess: GuessId,
    /// A proven lower bound on the node's value when this guess is played.
    pub lower: u32,
}

/// The guesses worth trying at a node, in search order, and the widest split any allowed guess
/// makes there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuessOrder {
    /// Guesses in the solver's order (lower bound, Σ part², list position), deduplicated.
    pub guesses: Vec<GuessBound>,
    /// The most non-winning parts any allowed guess makes.
    pub branching: u32,
}

impl Solver<'_> {
    /// The guesses the search tries at `node`, in its order, scanned as `solve_game` scans the
    /// root (with at least two guesses left). A distributed search orders and prunes the top
    /// levels with it so that it settles on exactly the guesses the solver would.
    pub fn guess_order(&self, node: &Node) -> GuessOrder {
        let scan = self.order_scan(node);
        GuessOrder {
            guesses: scan
                .guesses
                .iter()
                .map(|s| GuessBound {
                    guess: s.guess,
                    lower: s.lower,
                })
                .collect(),
            branching: scan.branching,
        }
    }
}

impl Solver<'_> {
    /// The scan behind [`Solver::guess_order`], which a slice of that order is searched with
    /// (see [`Solver::evaluate_slice`]): the same call, so both see the same positions.
    /// Kept for the last few nodes, which a worker's slices of one part ask for in turn.
    pub(crate) fn order_scan(&self, node: &Node) -> Arc<scan::Scan> {
        self.order_scans.get_or_scan(node, || {
            self.scan(
                &node.candidates,
                node.guesses_left.max(2),
                &node.hard,
                None,
                INFEASIBLE,
            )
        })
    }

    /// The first guesses `first` asks for at `node`, in the order the in-memory search settles
    /// them, with their scan bounds: a coordinator plans a listed ranking by it, so that it
    /// settles the same guesses in the same order (ties break alike) as `solve --firsts`.
    /// A listed guess the scan left out for splitting like an earlier one comes after the
    /// others, bounded by its own split.
    pub fn first_guess_order(&self, node: &Node, first: FirstGuesses) -> Vec<GuessBound> {
        let scanned = self.guess_order(node).guesses;
        let bounds: std::collections::HashMap<GuessId, u32> =
            scanned.iter().map(|b| (b.guess, b.lower)).collect();
        let order = match first {
            FirstGuesses::Best | FirstGuesses::RankAll => return scanned,
            FirstGuesses::Only(guess) => vec![guess],
            listed => listed.select(scanned.iter().map(|b| b.guess).collect()),
        };
        order
            .into_iter()
            .map(|guess| GuessBound {
                guess,
                lower: bounds
                    .get(&guess)
                    .copied()
                    .unwrap_or_else(|| self.split_lower(node, guess)),
            })
            .collect()
    }

    /// The scan's bound on playing `guess` at `node`, for a guess the scan did not keep.
    fn split_lower(&self, node: &Node, guess: GuessId) -> u32 {
        let set = &node.candidates;
        let parts = self.split(set, guess);
        if parts.len() == 1 && parts[0].1.len() == set.len() {
            return INFEASIBLE;
        }
        let wins = self
            .game
            .guess_as_answer(guess)
            .is_some_and(|a| set.contains(&a));
        scan::split_bound(
            set.len() as u32,
            node.guesses_left.max(2),
            parts.len() as u32,
            wins,
        )
    }
}

/// A seeded xorshift for the solver's randomised unit tests: `next(below)` picks a number
/// below `below`, and the same seed always gives the same cases.
#[cfg(test)]
pub(crate) fn test_rng(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed;
    move |below| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % below
    }
}
