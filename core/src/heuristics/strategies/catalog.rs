//! The strategies `hakase compare` knows, by name, with the options some of them take.

use super::frequency::{
    FrequencyFamily, DEFAULT_DIFFER_COMMON, DEFAULT_DIFFER_MIN, DEFAULT_PROBE_AT,
};
use super::play::play_tree;
use super::universe::Universe;
use super::{Greedy, Player};
use crate::heuristics::strategy::by_name;
use crate::rules::game::{Game, GuessId};
use crate::rules::table::FeedbackTable;
use crate::solver::{FirstGuesses, Solver, SolverConfig};
use crate::trees::tree::Tree;

/// Every name [`contender`] accepts, in report order.
pub const COMPARE_NAMES: [&str; 9] = [
    "entropy",
    "min-expected-size",
    "most-parts",
    "minimax",
    "frequency",
    "frequency-candidates",
    "frequency-probe",
    "frequency-differing",
    "top-k",
];

/// The knobs of the strategies that have them; the defaults are the seeds'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// `frequency-probe`/`-differing`: probe while at least this many words remain (blog: 9).
    pub probe_at: usize,
    /// `frequency-differing`: from this many words on (blog: 4) ...
    pub differ_min: usize,
    /// ... sharing at least this many letters (blog: 4).
    pub differ_common: usize,
    /// `top-k`: guesses tried per node (the article: 10).
    pub top_k: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            probe_at: DEFAULT_PROBE_AT,
            differ_min: DEFAULT_DIFFER_MIN,
            differ_common: DEFAULT_DIFFER_COMMON,
            top_k: 10,
        }
    }
}

/// Memo entries for a top-k search: plenty for the presets, far below the exact solver's.
const TOP_K_MEMO: usize = 2_000_000;

/// A strategy to compare: a player written out move by move, or the article's restricted
/// search, whose result is an upper bound on the optimum.
pub enum Contender {
    /// A rule that picks each guess from what it has seen.
    Heuristic(Box<dyn Player>),
    /// Branch and bound over only the K best guesses by entropy at each node.
    TopK(usize),
}

/// Looks a strategy up by name; `None` for an unknown name.
pub fn contender(name: &str, options: &Options) -> Option<Contender> {
    let player: Box<dyn Player> = match name {
        "frequency-candidates" => Box::new(FrequencyFamily::candidates()),
        "frequency-probe" => Box::new(FrequencyFamily::probe(options.probe_at)),
        "frequency-differing" => Box::new(FrequencyFamily::differing(
            options.probe_at,
            options.differ_min,
            options.differ_common,
        )),
        "top-k" => return Some(Contender::TopK(options.top_k)),
        other => Box::new(Greedy(by_name(other)?)),
    };
    Some(Contender::Heuristic(player))
}

impl Contender {
    /// The name shown in reports (`top-k` with its K).
    pub fn label(&self) -> String {
        match self {
            Contender::Heuristic(player) => player.name().to_string(),
            Contender::TopK(k) => format!("top-{k}"),
        }
    }

    /// True when the strategy draws its guesses from the universe.
    pub fn uses_universe(&self) -> bool {
        match self {
            Contender::Heuristic(player) => player.uses_universe(),
            Contender::TopK(_) => false,
        }
    }

    /// The strategy's whole game as a tree; `None` when the top-k search finds no way to win
    /// within the tries.
    pub fn play(
        &self,
        game: &Game,
        table: &FeedbackTable,
        universe: &Universe,
        first: Option<GuessId>,
    ) -> Option<Tree> {
        match self {
            Contender::Heuristic(player) => {
                Some(play_tree(game, table, player.as_ref(), universe, first))
            }
            Contender::TopK(k) => {
                let config = SolverConfig {
                    top_k: Some(*k),
                    ..SolverConfig::default()
                };
                let solver = Solver::new(game, table, config, TOP_K_MEMO);
                let firsts = first.map_or(FirstGuesses::Best, FirstGuesses::Only);
                solver.solve_game(firsts, &|_| {}).tree
            }
        }
    }
}
