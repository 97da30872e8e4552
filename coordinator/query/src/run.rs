//! The one-line summary of a run the query side loaded ([`hakase_runs::read`]) that
//! `hakase runs` and the `Runs` RPC show.

use std::path::PathBuf;

use hakase_core::solver::SolverConfig;
use serde::Serialize;

use hakase_runs::{Damage, LoadedRun};

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
    pub label: Option<hakase_core::label::Label>,
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

impl RunSummary {
    /// The one-line summary `hakase runs` and the `Runs` RPC show.
    pub fn of(run: &LoadedRun) -> RunSummary {
        let best = run.solution.as_ref().and_then(|s| s.best);
        RunSummary {
            name: run.name.clone(),
            path: run.path.clone(),
            game: run.manifest.game.clone(),
            fingerprint: run.manifest.fingerprint.clone(),
            options: Some(run.manifest.config.clone()),
            finished: run.manifest.finished && run.solution.is_some(),
            proven: run.proven_outright(),
            unchecked_claims: run.unchecked.len(),
            first_guess_fixed: run.first.clone(),
            label: Some(run.result_label()),
            claim: run.claim(),
            first_guess: best.map(|b| run.game.guess_text(b.guess).to_string()),
            total: best.map(|b| u64::from(b.outcome.value())),
            answers: run.game.answers().len(),
            tries: run.game.tries(),
            damage: (!run.damage.is_empty()).then_some(run.damage),
            error: None,
        }
    }
}
