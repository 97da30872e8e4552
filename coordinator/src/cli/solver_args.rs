//! The solver's flags (objective and rules), defined once for every command that solves:
//! `hakase solve` and `hakase coordinator` parse them the same way.

use clap::{Args, ValueEnum};
use hakase_core::solver::{Mode, Objective, SolverConfig};

/// What to optimise and under which rules.
#[derive(Debug, Clone, Args)]
pub struct SolverArgs {
    /// What optimal means: total guesses over all answers (= mean × n), or the fewest
    /// guesses in the worst case (ties broken by the total).
    #[arg(long, value_enum, default_value = "total")]
    pub objective: ObjectiveArg,

    /// Never use more than N guesses (below the game's tries); reported as impossible when
    /// the game cannot be won within N.
    #[arg(long, value_name = "N")]
    pub max_guesses: Option<u32>,

    /// Hard mode: greens stay in place and revealed letters must be reused.
    #[arg(long, conflicts_with = "strict")]
    pub hard: bool,

    /// Every guess must be a possible answer given all clues so far.
    #[arg(long)]
    pub strict: bool,

    /// The published restricted search: only the K best guesses by entropy at each step
    /// (plus the candidates when at most 10 remain). Gives an upper bound, not a proof.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub top_k: Option<u64>,
}

/// `--objective` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ObjectiveArg {
    /// Fewest guesses in total.
    Total,
    /// Fewest guesses in the worst case.
    Worst,
}

impl SolverArgs {
    /// The solver configuration the flags describe.
    pub fn config(&self) -> SolverConfig {
        SolverConfig {
            objective: match self.objective {
                ObjectiveArg::Total => Objective::Total,
                ObjectiveArg::Worst => Objective::Worst,
            },
            max_guesses: self.max_guesses,
            mode: mode_of(self.hard, self.strict),
            top_k: self.top_k.and_then(|k| usize::try_from(k).ok()),
        }
    }
}

/// The mode `--hard` and `--strict` ask for (clap makes them exclusive).
pub fn mode_of(hard: bool, strict: bool) -> Mode {
    if hard {
        Mode::Hard
    } else if strict {
        Mode::Strict
    } else {
        Mode::Normal
    }
}
