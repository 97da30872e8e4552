//! The one view model of the query side: what "the next guess after this history" looks like,
//! built once here and rendered by each front end (`hakase query` text and `--json`, the
//! HTTP API, the gRPC reply), so they can never disagree on a field or a rule.

use hakase_core::label::Label;
use hakase_core::oracle::{NextGuess, Source};
use serde::Serialize;

use hakase_runs::LoadedRun;

/// Candidates listed in an answer; above it only the count is given.
pub const LIST_CANDIDATES_UP_TO: usize = 20;

/// The optimal next guess after a history, in the game's words.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NextView {
    /// Run name.
    pub run: String,
    /// Steps played.
    pub steps: usize,
    /// The last step won.
    pub won: bool,
    /// Some strategy still wins every candidate.
    pub feasible: bool,
    /// The optimal next guess.
    pub guess: Option<String>,
    /// How many answers are left.
    pub count: usize,
    /// The answers left, when at most [`LIST_CANDIDATES_UP_TO`].
    pub candidates: Option<Vec<String>>,
    /// Further guesses in total over the candidates, the next one included.
    pub total: Option<u64>,
    /// total / count: the mean further guesses.
    pub mean: Option<f64>,
    /// Most further guesses.
    pub worst: Option<u32>,
    /// "tree" or "computed".
    pub source: Source,
    /// Guesses still allowed, the next one included.
    pub guesses_left: u32,
    /// What the run's tree may claim ("proven optimal GIVEN THE FIRST GUESS W", ...).
    pub claim: String,
}

impl NextView {
    /// The view of the oracle's answer `next` on `run`.
    pub fn new(run: &LoadedRun, next: &NextGuess) -> NextView {
        let game = &run.game;
        NextView {
            run: run.name.clone(),
            steps: next.steps,
            won: next.won,
            feasible: next.feasible(),
            guess: next.guess.map(|g| game.guess_text(g).to_string()),
            count: next.candidates.len(),
            candidates: (next.candidates.len() <= LIST_CANDIDATES_UP_TO).then(|| {
                next.candidates
                    .iter()
                    .map(|&a| game.answer_text(a).to_string())
                    .collect()
            }),
            total: next.total,
            mean: next.expected(),
            worst: next.worst,
            source: next.source,
            guesses_left: next.guesses_left,
            claim: run.claim(),
        }
    }

    /// Where the guess comes from, in words: the run's tree (with its claim) or a solve.
    pub fn origin(&self) -> String {
        match self.source {
            Source::Tree if self.claim == Label::ProvenOptimal.claim(None) => {
                "from the optimal tree".to_string()
            }
            Source::Tree => format!("from the run's tree: {}", self.claim),
            Source::Computed => {
                "computed on the spot: the history left the stored tree".to_string()
            }
        }
    }
}
