//! The ranking of first guesses as a result people look things up in: "what is adieu worth,
//! exactly, and where does it rank?", for a finished run or one still running.
//!
//! A finished run answers from its stored solution. A run that a solve or a coordinator
//! holds cannot be opened (sled's lock), so it answers from the ranking file the holder keeps
//! rewriting (see [`crate::runs::ranking_file`]).

use std::path::{Path, PathBuf};

use hakase_core::solver::{FirstGuessValue, SolverConfig, INFEASIBLE};
use hakase_core::Game;
use serde::Serialize;

use crate::runs::ranking_file::{self, RankingFileError};
use crate::runs::read::{read_records, rebuild_game, RunRecords};
use crate::runs::RunScope;
use crate::runs::{resolve, run_name, RunError};

/// A run's ranking, read without holding the run.
#[derive(Debug, Clone)]
pub struct RunRanking {
    /// The run's name (its directory's).
    pub name: String,
    /// The run directory.
    pub path: PathBuf,
    /// The game, rebuilt and checked against the run's fingerprint.
    pub game: Game,
    /// The solver options of the run.
    pub config: SolverConfig,
    /// Which first guesses the run settles.
    pub scope: RunScope,
    /// First guesses the run settles in all (0 while the run has not said yet).
    pub first_guesses: usize,
    /// True once the values are final.
    pub finished: bool,
    /// The guess budget of the values.
    pub guesses_left: u32,
    /// Every settled first guess, best first, with its rank.
    pub rows: Vec<RankedGuess>,
}

/// One first guess in a ranking.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankedGuess {
    /// 1 + the number of first guesses with a smaller exact value (equal values share a
    /// rank); `None` for a lower bound, whose place is not known.
    pub rank: Option<usize>,
    /// The first guess, as the game writes it.
    pub guess: String,
    /// The exact total over all answers, or the proven lower bound; `None` when the guess
    /// cannot win within the tries.
    pub total: Option<u32>,
    /// The total per answer (exact values only).
    pub mean: Option<f64>,
    /// True when `total` is exact, false when it is a lower bound.
    pub exact: bool,
    /// False for a guess asked about that the run has not settled yet (no value at all).
    pub settled: bool,
}

/// Why a ranking could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RankingError {
    /// The run itself could not be found or read.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The ranking file could not be read.
    #[error(transparent)]
    File(#[from] RankingFileError),
    /// The run is held by a process that writes no ranking file (one made before rankings
    /// were kept, or one that has settled nothing yet).
    #[error(
        "run {0} is in use by another process and has no ranking file yet; wait for its \
         first settled guesses, or read it once that process ends"
    )]
    NothingYet(PathBuf),
    /// A word asked for (`--word`) is not a guess of the game.
    #[error("--word {word}")]
    UnknownWord {
        /// The word.
        word: String,
        /// What the game said of it.
        source: hakase_core::Error,
    },
}

impl RunRanking {
    /// First guesses settled so far.
    pub fn settled(&self) -> usize {
        self.rows.len()
    }

    /// The rows of these words (in the order asked), each with its rank; a word the run has
    /// not settled yet gets a row with no value.
    pub fn rows_of(&self, words: &[String]) -> Result<Vec<RankedGuess>, RankingError> {
        words
            .iter()
            .map(|word| {
                let guess =
                    self.game
                        .find_guess(word)
                        .map_err(|source| RankingError::UnknownWord {
                            word: word.clone(),
                            source,
                        })?;
                let text = self.game.guess_text(guess);
                Ok(self
                    .rows
                    .iter()
                    .find(|r| r.guess == text)
                    .cloned()
                    .unwrap_or(RankedGuess {
                        rank: None,
                        guess: text.to_string(),
                        total: None,
                        mean: None,
                        exact: false,
                        settled: false,
                    }))
            })
            .collect()
    }
}

/// Reads the ranking of `--run R` (a directory, or a name under `data`).
pub fn load_ranking(spec: &str, data: &Path) -> Result<RunRanking, RankingError> {
    let path = resolve(spec, data)?;
    let name = run_name(&path);
    // The ranking file is read only when the stored solution cannot answer.
    match read_records(&path) {
        Ok(RunRecords {
            manifest,
            solution: Some(solution),
            ..
        }) => {
            let game = rebuild_game(&path, &manifest.game, &manifest.fingerprint)?;
            let rows = ranked(&game, &solution.ranking);
            Ok(RunRanking {
                name,
                path,
                config: manifest.config,
                scope: manifest.scope,
                first_guesses: rows.len(),
                finished: true,
                guesses_left: solution.guesses_left,
                rows,
                game,
            })
        }
        Ok(RunRecords {
            manifest,
            solution: None,
            ..
        }) => {
            let game = rebuild_game(&path, &manifest.game, &manifest.fingerprint)?;
            let (values, first_guesses, guesses_left) = match ranking_file::read(&path)? {
                Some(f) if f.fingerprint == manifest.fingerprint => {
                    (f.values, f.first_guesses, f.guesses_left)
                }
                _ => (Vec::new(), 0, 0),
            };
            Ok(RunRanking {
                name,
                path,
                config: manifest.config,
                scope: manifest.scope,
                first_guesses,
                finished: false,
                guesses_left,
                rows: ranked(&game, &values),
                game,
            })
        }
        Err(RunError::InUse(_)) => {
            let file =
                ranking_file::read(&path)?.ok_or_else(|| RankingError::NothingYet(path.clone()))?;
            let game = rebuild_game(&path, &file.game, &file.fingerprint)?;
            Ok(RunRanking {
                name,
                rows: ranked(&game, &file.values),
                game,
                config: file.config,
                scope: file.scope,
                first_guesses: file.first_guesses,
                finished: file.finished,
                guesses_left: file.guesses_left,
                path,
            })
        }
        Err(e) => Err(e.into()),
    }
}

/// Ranks `values` (best first, as every ranking is stored): exact values get competition
/// ranks, bounds none.
pub fn ranked(game: &Game, values: &[FirstGuessValue]) -> Vec<RankedGuess> {
    let answers = game.answers().len().max(1) as f64;
    let mut exact_values: Vec<u32> = values
        .iter()
        .filter(|v| v.outcome.is_exact())
        .map(|v| v.outcome.value())
        .collect();
    exact_values.sort_unstable();
    values
        .iter()
        .map(|v| {
            let value = v.outcome.value();
            let exact = v.outcome.is_exact();
            let total = (value < INFEASIBLE).then_some(value);
            RankedGuess {
                rank: exact.then(|| 1 + exact_values.partition_point(|&x| x < value)),
                guess: game.guess_text(v.guess).to_string(),
                total,
                mean: total.filter(|_| exact).map(|t| f64::from(t) / answers),
                exact,
                settled: true,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hakase_core::presets::load_preset;
    use hakase_core::solver::Outcome;

    #[test]
    fn equal_values_share_a_rank_and_bounds_have_none() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let exact = |guess, value| FirstGuessValue {
            guess,
            outcome: Outcome::Exact { value, guess },
        };
        let values = [
            exact(3, 964),
            exact(1, 966),
            exact(2, 966),
            exact(0, 970),
            FirstGuessValue {
                guess: 4,
                outcome: Outcome::AtLeast(971),
            },
        ];
        let rows = ranked(&game, &values);
        let ranks: Vec<Option<usize>> = rows.iter().map(|r| r.rank).collect();
        assert_eq!(ranks, [Some(1), Some(2), Some(2), Some(4), None]);
        assert_eq!(rows[0].mean, Some(964.0 / 285.0));
        assert_eq!(
            (rows[4].total, rows[4].mean, rows[4].exact),
            (Some(971), None, false)
        );
    }
}
