//! The ranking of first guesses as a result people look things up in: "what is adieu worth,
//! exactly, and where does it rank?", for a finished run or one still running.
//!
//! A finished run answers from its stored solution. A run that a solve or a coordinator
//! holds cannot be opened (sled's lock), so it answers from the ranking file the holder keeps
//! rewriting (see [`hakase_runs::ranking_file`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use hakase_core::label::{unchecked_condition, MARKED};
use hakase_core::rankings::{ShippedError, ShippedRanking};
use hakase_core::solver::{FirstGuessValue, Solution, SolverConfig, INFEASIBLE};
use hakase_core::{Game, GuessId};
use serde::Serialize;

use hakase_core::plural::plural;
use hakase_runs::ranking_file::{self, RankingFileError};
use hakase_runs::read::{read_records, rebuild_game, RunRecords};
use hakase_runs::{resolve, run_name, LoadedRun, Manifest, RunError, RunScope};

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
    /// rank); `None` for a lower bound, whose place is not known, and for an exact value that
    /// some guess's lower bound is below (that guess may be worth less).
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
    /// True when the value rests on a worker's claim that the coordinator's audit did not
    /// re-run. An exact value can: its tree, verified on arrival, proves that the total is
    /// reached, not that no strategy does better.
    pub unchecked: bool,
}

/// A ranking as every front end shows it (`hakase ranking`, `query --opener`, the gRPC
/// `Ranking` call and `GET /api/v1/ranking`): the `ranking` document of docs/json.md.
#[derive(Debug, Clone, Serialize)]
pub struct RankingView {
    /// The run's name.
    pub run: String,
    /// The game's name.
    pub game: String,
    /// Answers of the game (the mean is the total over these).
    pub answers: usize,
    /// The solver options of the values.
    pub options: SolverConfig,
    /// `best`, `rank_all` or `listed`.
    pub scope: &'static str,
    /// First guesses the run settles in all (0 while not yet known).
    pub first_guesses: usize,
    /// First guesses settled so far.
    pub settled: usize,
    /// True once the values are final.
    pub finished: bool,
    /// What the values may claim, in words.
    pub claim: String,
    /// The rows (of all, not only those shown) resting on a worker claim nobody re-ran: the
    /// claim's condition, for a page that words it in its own language.
    pub unchecked_claims: usize,
    /// How the exact totals of every settled guess spread, for a plot.
    pub histogram: Histogram,
    /// The rows asked for.
    pub rows: Vec<RankedGuess>,
}

/// The exact totals of a ranking counted in equal bins: bin `i` holds the guesses whose
/// total is in `from + i·width .. from + (i+1)·width`. Bounds and unwinnable guesses are left
/// out, since their value is not known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Histogram {
    /// The lowest exact total (0 when there is none).
    pub from: u32,
    /// The totals per bin (at least 1).
    pub width: u32,
    /// The guesses in each bin.
    pub counts: Vec<u32>,
}

/// Bins a histogram is cut into at most: enough to see the shape, few enough for a phone.
pub const HISTOGRAM_BINS: u32 = 32;

impl Histogram {
    /// The histogram of the exact totals among `rows`.
    pub fn of(rows: &[RankedGuess]) -> Histogram {
        let totals: Vec<u32> = rows
            .iter()
            .filter(|r| r.exact)
            .filter_map(|r| r.total)
            .collect();
        let (Some(&low), Some(&high)) = (totals.iter().min(), totals.iter().max()) else {
            return Histogram {
                from: 0,
                width: 1,
                counts: Vec::new(),
            };
        };
        let span = high - low + 1;
        let width = span.div_ceil(HISTOGRAM_BINS);
        let mut counts = vec![0u32; span.div_ceil(width) as usize];
        for t in totals {
            counts[((t - low) / width) as usize] += 1;
        }
        Histogram {
            from: low,
            width,
            counts,
        }
    }
}

impl RankingView {
    /// The view of `ranking` showing `rows` (some or all of its own).
    pub fn new(ranking: &RunRanking, rows: Vec<RankedGuess>) -> RankingView {
        RankingView {
            run: ranking.name.clone(),
            game: ranking.game.name().to_string(),
            answers: ranking.game.answers().len(),
            options: ranking.config.clone(),
            scope: match ranking.scope {
                RunScope::Best => "best",
                RunScope::RankAll => "rank_all",
                RunScope::Listed(_) => "listed",
            },
            first_guesses: ranking.first_guesses,
            settled: ranking.settled(),
            finished: ranking.finished,
            claim: ranking.claim(),
            unchecked_claims: ranking.rows.iter().filter(|r| r.unchecked).count(),
            histogram: Histogram::of(&ranking.rows),
            rows,
        }
    }

    /// The view of `ranking` with the rows of `words` when any are named, else its best
    /// `top` rows (all of them for `None`).
    pub fn select(
        ranking: &RunRanking,
        words: &[String],
        top: Option<usize>,
    ) -> Result<RankingView, RankingError> {
        let rows = if words.is_empty() {
            let top = top.unwrap_or(usize::MAX);
            ranking.rows.iter().take(top).cloned().collect()
        } else {
            ranking.rows_of(words)?
        };
        Ok(RankingView::new(ranking, rows))
    }
}

impl RankedGuess {
    /// The row of a guess the run has not settled: no value at all.
    pub fn unsettled(guess: &str) -> RankedGuess {
        RankedGuess {
            rank: None,
            guess: guess.to_string(),
            total: None,
            mean: None,
            exact: false,
            settled: false,
            unchecked: false,
        }
    }

    /// The total as a table shows it: `≥ v` for a bound, `cannot win`, or `not settled`.
    pub fn total_cell(&self) -> String {
        match (self.settled, self.total, self.exact) {
            (false, _, _) => "not settled".to_string(),
            (true, Some(t), true) if self.unchecked => format!("{t} *"),
            (true, Some(t), true) => t.to_string(),
            (true, Some(t), false) if self.unchecked => format!("≥ {t} *"),
            (true, Some(t), false) => format!("≥ {t}"),
            (true, None, _) => "cannot win".to_string(),
        }
    }

    /// The mean to four places, or nothing where the value is not exact.
    pub fn mean_cell(&self) -> String {
        self.mean.map_or_else(String::new, |m| format!("{m:.4}"))
    }
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
    /// A word asked about is not a guess of the game. The game's message (with suggestions)
    /// is the whole text, so that gRPC and HTTP, which send only the top message, carry it.
    #[error("{error}")]
    UnknownWord {
        /// The word.
        word: String,
        /// What the game said of it.
        error: hakase_core::Error,
    },
    /// The game or options have no shipped ranking (see [`RunRanking::shipped`]).
    #[error(transparent)]
    Shipped(#[from] ShippedError),
    /// A word asked about is a guess, but not one of those a listed ranking ranks: it will
    /// never have a value there.
    #[error("{word} is not among the {listed} first guesses this run ranks")]
    NotListed {
        /// The word, as the game writes it.
        word: String,
        /// How many the run ranks.
        listed: usize,
    },
}

impl RunRanking {
    /// The ranking of a finished run already in memory (a served run): `None` while the run
    /// has no solution, whose values are then on disk only (see [`load_ranking`]).
    pub fn of_loaded(run: &LoadedRun) -> Option<RunRanking> {
        let solution = run.solution.as_ref()?;
        Some(RunRanking::finished(
            run.name.clone(),
            run.path.clone(),
            run.game.clone(),
            &run.manifest,
            solution,
            &run.unchecked,
        ))
    }

    /// The ranking shipped with hakase for `game` under `config` (English Wordle, normal or
    /// hard mode: see [`hakase_core::rankings`]), shown as a run ranking every opener would
    /// be: best first, ties in alphabetical order, openers that cannot win last. Finished
    /// once every chunk is shipped; until then its claim says how many are settled.
    pub fn shipped(game: Game, config: SolverConfig) -> Result<RunRanking, RankingError> {
        let shipped = ShippedRanking::load(&game, &config)?;
        Ok(RunRanking::from_shipped(game, config, &shipped))
    }

    /// The run ranking `shipped` (values of `game` under `config`) stands for.
    pub fn from_shipped(game: Game, config: SolverConfig, shipped: &ShippedRanking) -> RunRanking {
        let mut values = shipped.values.clone();
        values.sort_by(|a, b| {
            (a.outcome.value(), game.guess_text(a.guess))
                .cmp(&(b.outcome.value(), game.guess_text(b.guess)))
        });
        let name = match config.mode {
            hakase_core::solver::Mode::Hard => "shipped-wordle-hard",
            _ => "shipped-wordle",
        };
        RunRanking {
            name: name.to_string(),
            path: PathBuf::new(),
            rows: ranked(&game, &values, &[]),
            guesses_left: game.tries(),
            game,
            config,
            scope: RunScope::RankAll,
            first_guesses: shipped.openers,
            finished: shipped.complete(),
        }
    }

    /// The ranking a served run shows: its own when it ranks every opener, else the shipped
    /// one for its game and options once that is complete (English Wordle's page then ranks
    /// every opener exactly, where a run that searched for the best has bounds for most).
    pub fn served(run: &LoadedRun) -> Option<RunRanking> {
        let own = RunRanking::of_loaded(run);
        if own.as_ref().is_some_and(|r| r.scope == RunScope::RankAll) {
            return own;
        }
        match ShippedRanking::load(&run.game, &run.manifest.config) {
            Ok(shipped) if shipped.complete() => Some(RunRanking::from_shipped(
                run.game.clone(),
                run.manifest.config.clone(),
                &shipped,
            )),
            _ => own,
        }
    }

    /// The ranking of a finished run: its stored solution's, every row final.
    fn finished(
        name: String,
        path: PathBuf,
        game: Game,
        manifest: &Manifest,
        solution: &Solution,
        unchecked: &[GuessId],
    ) -> RunRanking {
        let rows = ranked(&game, &solution.ranking, unchecked);
        RunRanking {
            name,
            path,
            game,
            config: manifest.config.clone(),
            scope: manifest.scope.clone(),
            first_guesses: rows.len(),
            finished: true,
            guesses_left: solution.guesses_left,
            rows,
        }
    }

    /// What the values may claim, in words.
    pub fn claim(&self) -> String {
        let settled = self.settled();
        let state = match (self.finished, self.first_guesses) {
            (true, _) => String::new(),
            (false, 0) => format!(" so far ({settled} settled; in progress)"),
            (false, total) => format!(" so far ({settled} of {total} settled; in progress)"),
        };
        let unchecked = self.rows.iter().filter(|r| r.unchecked).count();
        let marks = if unchecked == 0 {
            String::new()
        } else {
            format!(", {}{MARKED}", unchecked_condition(unchecked))
        };
        match &self.scope {
            RunScope::RankAll => format!("exact values of every first guess{state}{marks}"),
            RunScope::Listed(list) => format!(
                "exact values of the {} listed{state}{marks}",
                plural(list.len() as u64, "first guess", "first guesses")
            ),
            RunScope::Best => format!(
                "the best first guess exact, the others proven lower bounds (≥) where they \
                 were cut off{state}{marks}"
            ),
        }
    }

    /// First guesses settled so far.
    pub fn settled(&self) -> usize {
        self.rows.len()
    }

    /// The rows of these words (in the order asked), each with its rank; a word the run has
    /// not settled yet gets a row with no value.
    pub fn rows_of(&self, words: &[String]) -> Result<Vec<RankedGuess>, RankingError> {
        let by_guess: HashMap<&str, &RankedGuess> =
            self.rows.iter().map(|r| (r.guess.as_str(), r)).collect();
        words
            .iter()
            .map(|word| {
                let guess =
                    self.game
                        .find_guess(word)
                        .map_err(|error| RankingError::UnknownWord {
                            word: word.clone(),
                            error,
                        })?;
                let text = self.game.guess_text(guess);
                if let RunScope::Listed(list) = &self.scope {
                    if list.binary_search(&guess).is_err() {
                        return Err(RankingError::NotListed {
                            word: text.to_string(),
                            listed: list.len(),
                        });
                    }
                }
                Ok(by_guess
                    .get(text)
                    .map_or_else(|| RankedGuess::unsettled(text), |r| (*r).clone()))
            })
            .collect()
    }
}

/// Reads the ranking of `--run R` (a directory, or a name under `data`).
pub fn load_ranking(spec: &str, data: &Path) -> Result<RunRanking, RankingError> {
    load_ranking_at(resolve(spec, data)?)
}

/// Reads the ranking of the run directory `path`.
pub fn load_ranking_at(path: PathBuf) -> Result<RunRanking, RankingError> {
    let name = run_name(&path);
    // The ranking file is read only when the stored solution cannot answer.
    match read_records(&path) {
        Ok(RunRecords {
            manifest,
            solution: Some(solution),
            unchecked,
            ..
        }) => {
            let game = rebuild_game(&path, &manifest.game, &manifest.fingerprint)?;
            Ok(RunRanking::finished(
                name, path, game, &manifest, &solution, &unchecked,
            ))
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
                rows: ranked(&game, &values, &[]),
                game,
            })
        }
        Err(RunError::InUse(_)) => {
            let file =
                ranking_file::read(&path)?.ok_or_else(|| RankingError::NothingYet(path.clone()))?;
            let game = rebuild_game(&path, &file.game, &file.fingerprint)?;
            Ok(RunRanking {
                name,
                rows: ranked(&game, &file.values, &[]),
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
/// ranks, bounds none. An exact value above some lower bound gets none either: the guess
/// cut off there may be worth less, so its place is not known (a run that searched for the
/// best first guess, or one in progress, has such values).
/// `unchecked` (ascending ids) are the guesses whose row rests on a worker claim nobody
/// re-ran.
pub fn ranked(game: &Game, values: &[FirstGuessValue], unchecked: &[GuessId]) -> Vec<RankedGuess> {
    let answers = game.answers().len().max(1) as f64;
    let mut exact_values: Vec<u32> = values
        .iter()
        .filter(|v| v.outcome.is_exact())
        .map(|v| v.outcome.value())
        .collect();
    exact_values.sort_unstable();
    let lowest_bound = values
        .iter()
        .filter(|v| !v.outcome.is_exact())
        .map(|v| v.outcome.value())
        .min()
        .unwrap_or(u32::MAX);
    values
        .iter()
        .map(|v| {
            let value = v.outcome.value();
            let exact = v.outcome.is_exact();
            let total = (value < INFEASIBLE).then_some(value);
            RankedGuess {
                rank: (exact && value <= lowest_bound)
                    .then(|| 1 + exact_values.partition_point(|&x| x < value)),
                guess: game.guess_text(v.guess).to_string(),
                total,
                mean: total.filter(|_| exact).map(|t| f64::from(t) / answers),
                exact,
                settled: true,
                unchecked: unchecked.binary_search(&v.guess).is_ok(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hakase_core::rules::presets::load_preset;
    use hakase_core::solver::Outcome;

    #[test]
    fn a_shipped_ranking_lists_best_first_ties_alphabetically_and_cannot_win_last() {
        let game = load_preset("wordle").expect("preset");
        let id = |w: &str| game.find_guess(w).expect("a guess");
        let exact = |w: &str, value| FirstGuessValue {
            guess: id(w),
            outcome: Outcome::Exact {
                value,
                guess: id(w),
            },
        };
        let shipped = ShippedRanking {
            values: vec![
                FirstGuessValue {
                    guess: id("xylyl"),
                    outcome: Outcome::AtLeast(INFEASIBLE),
                },
                exact("trace", 7926),
                exact("salet", 7920),
                exact("crate", 7926),
            ],
            provenance: Vec::new(),
            openers: 4,
        };
        let ranking = RunRanking::from_shipped(game, SolverConfig::default(), &shipped);
        let rows: Vec<(Option<usize>, &str, Option<u32>)> = ranking
            .rows
            .iter()
            .map(|r| (r.rank, r.guess.as_str(), r.total))
            .collect();
        assert_eq!(
            rows,
            [
                (Some(1), "salet", Some(7920)),
                (Some(2), "crate", Some(7926)),
                (Some(2), "trace", Some(7926)),
                (None, "xylyl", None),
            ]
        );
        assert!(ranking.finished);
        assert_eq!(ranking.claim(), "exact values of every first guess");
        let partial = ShippedRanking {
            openers: 12_972,
            ..shipped
        };
        let ranking = RunRanking::from_shipped(
            load_preset("wordle").expect("preset"),
            SolverConfig::default(),
            &partial,
        );
        assert!(!ranking.finished);
        assert_eq!(
            ranking.claim(),
            "exact values of every first guess so far (4 of 12972 settled; in progress)"
        );
    }

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
        let rows = ranked(&game, &values, &[]);
        let ranks: Vec<Option<usize>> = rows.iter().map(|r| r.rank).collect();
        assert_eq!(ranks, [Some(1), Some(2), Some(2), Some(4), None]);
        assert_eq!(rows[0].mean, Some(964.0 / 285.0));
        assert_eq!(
            (rows[4].total, rows[4].mean, rows[4].exact),
            (Some(971), None, false)
        );
    }

    #[test]
    fn a_listed_ranking_refuses_words_outside_its_list() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let values = [FirstGuessValue {
            guess: 3,
            outcome: Outcome::Exact {
                value: 970,
                guess: 3,
            },
        }];
        let ranking = RunRanking {
            name: "listed".into(),
            path: PathBuf::from("listed"),
            rows: ranked(&game, &values, &[]),
            config: SolverConfig::default(),
            scope: RunScope::Listed(vec![3, 5]),
            first_guesses: 2,
            finished: false,
            guesses_left: 10,
            game,
        };
        let word = |id| ranking.game.guess_text(id).to_string();
        let rows = ranking.rows_of(&[word(3), word(5)]).expect("listed words");
        assert_eq!(
            rows.iter()
                .map(|r| (r.settled, r.total, r.rank))
                .collect::<Vec<_>>(),
            [(true, Some(970), Some(1)), (false, None, None)]
        );
        let err = ranking.rows_of(&[word(4)]).expect_err("not listed");
        assert_eq!(
            err.to_string(),
            format!(
                "{} is not among the 2 first guesses this run ranks",
                word(4)
            )
        );
    }

    #[test]
    fn an_exact_value_above_a_lower_bound_has_no_rank() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let values = [
            FirstGuessValue {
                guess: 3,
                outcome: Outcome::Exact {
                    value: 964,
                    guess: 3,
                },
            },
            FirstGuessValue {
                guess: 1,
                outcome: Outcome::AtLeast(965),
            },
            FirstGuessValue {
                guess: 2,
                outcome: Outcome::Exact {
                    value: 965,
                    guess: 2,
                },
            },
            FirstGuessValue {
                guess: 0,
                outcome: Outcome::Exact {
                    value: 969,
                    guess: 0,
                },
            },
        ];
        let rows = ranked(&game, &values, &[]);
        let ranks: Vec<Option<usize>> = rows.iter().map(|r| r.rank).collect();
        // 965 ties at worst with the guess bounded by 965; 969 may have that guess below it.
        assert_eq!(ranks, [Some(1), None, Some(2), None]);
        assert_eq!(rows[3].mean, Some(969.0 / 285.0));
    }
}
