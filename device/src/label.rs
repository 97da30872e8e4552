//! How much a chart's numbers can be trusted, decided in one place so that the e-paper page,
//! the text chart and the JSON all say the same thing for the same chart.

use hakase_core::solver::{Outcome, Solution};
use hakase_core::GuessId;
use serde::Serialize;

/// The quality of a chart: what its first guess and its numbers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Label {
    /// The first guess is a proven-optimal first guess and every number is exact.
    ProvenOptimal,
    /// The numbers are exact for optimal play after this first guess, but the first guess
    /// itself is not (proven to be) optimal.
    Exact,
    /// A heuristic chose the guesses: the numbers are an upper bound, not an optimum.
    Heuristic,
}

impl Label {
    /// The label of a chart of `first` drawn from `solution` (the optimum of the whole
    /// game): proven-optimal only when the solution is proven and `first` achieves its
    /// best value; exact when the solution is proven but `first` does worse or was not
    /// ranked exactly; heuristic without a proven solution (a top-k run).
    pub fn of_first(solution: Option<&Solution>, first: GuessId) -> Label {
        let Some(solution) = solution.filter(|s| s.proven) else {
            return Label::Heuristic;
        };
        let best = solution.best.map(|b| b.outcome);
        let optimal = solution.best.is_some_and(|b| b.guess == first)
            || solution.ranking.iter().any(|r| {
                r.guess == first
                    && matches!(r.outcome, Outcome::Exact { .. })
                    && Some(r.outcome.value()) == best.map(|b| b.value())
            });
        if optimal {
            Label::ProvenOptimal
        } else {
            Label::Exact
        }
    }

    /// A few words for text output.
    pub fn describe(self) -> &'static str {
        match self {
            Label::ProvenOptimal => "proven optimal",
            Label::Exact => {
                "proven optimal GIVEN THIS FIRST GUESS (not proven the best first guess)"
            }
            Label::Heuristic => "heuristic (an upper bound, not proven)",
        }
    }

    /// The word the e-paper header shows: it has room for one short word.
    pub fn short(self) -> &'static str {
        match self {
            Label::ProvenOptimal => "proven",
            Label::Exact => "exact",
            Label::Heuristic => "heuristic",
        }
    }
}
