//! What the query side says about a run it loaded ([`crate::runs::read`]): an oracle over
//! its optimal tree, the claim its result may make, and the one-line summary `hakase runs`
//! and the `Runs` RPC show.

use std::path::PathBuf;

use hakase_core::query::Oracle;
use hakase_core::solver::SolverConfig;
use serde::Serialize;

use crate::runs::{Damage, LoadedRun, RunError};

impl LoadedRun {
    /// An oracle over the run's optimal tree; an error says why the run cannot answer.
    pub fn oracle(&self) -> Result<Oracle<'_>, RunError> {
        let solution = self
            .solution
            .as_ref()
            .ok_or_else(|| RunError::Unfinished(self.path.clone()))?;
        Oracle::new(&self.game, &self.table, solution).map_err(|error| RunError::Query {
            path: self.path.clone(),
            error,
        })
    }

    /// What the run's result may claim, in the words every view uses.
    pub fn claim(&self) -> String {
        self.result_label().claim(self.first.as_deref())
    }

    /// The label of the run's result as a whole (proven optimal, exact given its fixed first
    /// guess, or an upper bound; a proof resting on unchecked worker claims only if they
    /// hold): the one decision every view's claim is worded from.
    pub fn result_label(&self) -> crate::output::Label {
        crate::output::Label::of_result(self.proven(), self.first.is_some())
            .resting_on(self.unchecked.len())
    }

    /// The label of a chart of `first` from this run: a run restricted to its first guess
    /// proves the optimum only after that guess, so it is never "proven optimal" as a whole;
    /// the chart of the run's own best rests on its unchecked worker claims, as the run does
    /// (another first guess is solved here, on nobody's word).
    pub fn label(&self, first: hakase_core::GuessId) -> crate::output::Label {
        let label = match (&self.first, self.proven()) {
            (Some(_), true) => crate::output::Label::Exact,
            (Some(_), false) => crate::output::Label::Heuristic,
            (None, _) => crate::output::Label::of_first(self.solution.as_ref(), first),
        };
        let best = self.solution.as_ref().and_then(|s| s.best).map(|b| b.guess);
        if best == Some(first) {
            label.resting_on(self.unchecked.len())
        } else {
            label
        }
    }

    /// True when the result is a proof on nobody's word: proven, and resting on no unchecked
    /// worker claim (what a view's plain `proven` flag says).
    pub fn proven_outright(&self) -> bool {
        self.proven() && self.unchecked.is_empty()
    }

    /// The first guesses whose row rests on an unchecked worker claim, as the game writes
    /// them (what a tree document or a JSON report names).
    pub fn unchecked_names(&self) -> Vec<String> {
        self.unchecked
            .iter()
            .map(|&g| self.game.guess_text(g).to_string())
            .collect()
    }

    /// The one-line summary `hakase runs` and the `Runs` RPC show.
    pub fn summary(&self) -> RunSummary {
        let best = self.solution.as_ref().and_then(|s| s.best);
        RunSummary {
            name: self.name.clone(),
            path: self.path.clone(),
            game: self.manifest.game.clone(),
            fingerprint: self.manifest.fingerprint.clone(),
            options: Some(self.manifest.config.clone()),
            finished: self.manifest.finished && self.solution.is_some(),
            proven: self.proven_outright(),
            unchecked_claims: self.unchecked.len(),
            first_guess_fixed: self.first.clone(),
            label: Some(self.result_label()),
            claim: self.claim(),
            first_guess: best.map(|b| self.game.guess_text(b.guess).to_string()),
            total: best.map(|b| u64::from(b.outcome.value())),
            answers: self.game.answers().len(),
            tries: self.game.tries(),
            damage: (!self.damage.is_empty()).then_some(self.damage),
            error: None,
        }
    }
}

/// What is known about a run at a glance.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    /// Name under the data directory.
    pub name: String,
    /// Directory.
    pub path: PathBuf,
    /// Game name.
    pub game: String,
    /// Game fingerprint.
    pub fingerprint: String,
    /// The solver options (`None` when the run could not be read).
    pub options: Option<SolverConfig>,
    /// True once the optimal tree is stored.
    pub finished: bool,
    /// True when the solution is a proof (given `first_guess_fixed`, if set) that rests on
    /// no unchecked worker claim.
    pub proven: bool,
    /// The worker claims nobody re-ran that the result rests on (the label is then
    /// `proven-if-claims-hold`).
    pub unchecked_claims: usize,
    /// The first guess the solve was restricted to (`solve --first W`).
    pub first_guess_fixed: Option<String>,
    /// The kind of claim (proven-optimal, exact, heuristic, proven-if-claims-hold): what a
    /// front end localises, so it never decides the claim itself (`None` when the run could
    /// not be read).
    pub label: Option<crate::output::Label>,
    /// What the result may claim ("proven optimal", "proven optimal GIVEN THE FIRST GUESS W",
    /// "proven optimal if 3 unchecked worker claims hold").
    pub claim: String,
    /// The best first guess.
    pub first_guess: Option<String>,
    /// Its total.
    pub total: Option<u64>,
    /// Answers of the game.
    pub answers: usize,
    /// Tries of the game.
    pub tries: u32,
    /// What its opens found damaged and recomputed; `None` when nothing was.
    pub damage: Option<Damage>,
    /// Why the run could not be read, when it could not.
    pub error: Option<String>,
}
