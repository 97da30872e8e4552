//! The exact value of every opener of English Wordle (the original lists: 2315 answers, 12,972
//! allowed guesses), in normal and hard mode, computed by hakase's own engine with
//! `scripts/rank-wordle` and shipped as data: "how good is crane?" becomes a look-up instead
//! of 8 CPU-hours. The values arrive in chunks of the sorted guess list, each with its
//! provenance (command, build, CPU time, date); a chunk not yet computed is simply absent,
//! and [`ShippedRanking::complete`] says so.

use std::sync::OnceLock;

use thiserror::Error;

use crate::solver::{FirstGuessValue, Mode, Outcome, SolverConfig, INFEASIBLE};
use crate::{Game, GuessId};

/// The preset the shipped values belong to.
pub const SHIPPED_GAME: &str = "wordle";

const NORMAL_VALUES: &str = include_str!(concat!(env!("OUT_DIR"), "/rankings-normal.tsv"));
const HARD_VALUES: &str = include_str!(concat!(env!("OUT_DIR"), "/rankings-hard.tsv"));
const NORMAL_PROVENANCE: &str = include_str!(concat!(env!("OUT_DIR"), "/provenance-normal.tsv"));
const HARD_PROVENANCE: &str = include_str!(concat!(env!("OUT_DIR"), "/provenance-hard.tsv"));

/// The shipped values of one mode: what a run ranking every opener would hold.
#[derive(Debug, Clone)]
pub struct ShippedRanking {
    /// Every opener computed so far, in the sorted order of the guess list; a value of
    /// [`INFEASIBLE`] when the opener cannot win every answer within 6.
    pub values: Vec<FirstGuessValue>,
    /// How each chunk was made, in chunk order.
    pub provenance: Vec<ChunkProvenance>,
    /// The openers of the game: the values are complete when they cover all of them.
    pub openers: usize,
}

/// How one chunk of the shipped values was computed (a line of `PROVENANCE.tsv`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ChunkProvenance {
    /// The chunk's number, `00`, `01`, …
    pub chunk: String,
    /// Openers in the chunk.
    pub words: usize,
    /// Its first and last opener, alphabetically.
    pub first: String,
    /// See `first`.
    pub last: String,
    /// The build that computed it (`hakase --version`).
    pub build: String,
    /// CPU seconds of the solve (all threads, user + system).
    pub cpu_secs: f64,
    /// Wall seconds of the solve.
    pub wall_secs: f64,
    /// The day it finished (UTC).
    pub finished: String,
    /// The command that made it.
    pub command: String,
}

/// Why the shipped values cannot answer.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ShippedError {
    /// The values are of one game only.
    #[error(
        "rankings are shipped for English Wordle (--game {SHIPPED_GAME}) only, not for {0}; \
         compute this one with `hakase solve --rank-all` and pass --run"
    )]
    OtherGame(String),
    /// The values are of the default options only (total guesses, the game's 6 tries).
    #[error(
        "the shipped rankings minimise total guesses within the game's 6 tries, in normal or \
         hard mode; for other options compute a ranking with `hakase solve --rank-all`"
    )]
    OtherOptions,
    /// The embedded data does not parse: a damaged build, never a user's mistake.
    #[error("shipped ranking data ({mode}), line {line}: {reason}")]
    Corrupt {
        /// `normal` or `hard`.
        mode: &'static str,
        /// The 1-based line of the embedded table.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
}

impl ShippedRanking {
    /// The shipped values for `game` (which must be the `wordle` preset) under `config`
    /// (the default options in normal or hard mode).
    pub fn load(game: &Game, config: &SolverConfig) -> Result<ShippedRanking, ShippedError> {
        // A customised game is renamed (`wordle (answers from …)`), so the name is enough.
        if game.name() != SHIPPED_GAME {
            return Err(ShippedError::OtherGame(game.name().to_string()));
        }
        let defaults = SolverConfig {
            mode: config.mode,
            ..SolverConfig::default()
        };
        // Parsed once per process: a server looks values up on every request.
        static NORMAL: OnceLock<Result<ShippedRanking, ShippedError>> = OnceLock::new();
        static HARD: OnceLock<Result<ShippedRanking, ShippedError>> = OnceLock::new();
        let (cache, mode, values, provenance) = match config.mode {
            Mode::Normal if *config == defaults => {
                (&NORMAL, "normal", NORMAL_VALUES, NORMAL_PROVENANCE)
            }
            Mode::Hard if *config == defaults => (&HARD, "hard", HARD_VALUES, HARD_PROVENANCE),
            _ => return Err(ShippedError::OtherOptions),
        };
        cache
            .get_or_init(|| {
                Ok(ShippedRanking {
                    values: parse_values(game, mode, values)?,
                    provenance: parse_provenance(mode, provenance)?,
                    openers: game.guesses().len(),
                })
            })
            .clone()
    }

    /// True once every opener of the game has its value.
    pub fn complete(&self) -> bool {
        self.values.len() == self.openers
    }

    /// CPU seconds all the chunks took.
    pub fn cpu_secs(&self) -> f64 {
        self.provenance.iter().map(|p| p.cpu_secs).sum()
    }

    /// The shipped value of `guess`, if its chunk is shipped.
    pub fn value_of(&self, guess: GuessId) -> Option<Outcome> {
        self.values
            .iter()
            .find(|v| v.guess == guess)
            .map(|v| v.outcome)
    }
}

/// `guess<TAB>total` lines; an empty total is an opener that cannot win.
fn parse_values(
    game: &Game,
    mode: &'static str,
    text: &str,
) -> Result<Vec<FirstGuessValue>, ShippedError> {
    let corrupt = |line: usize, reason: String| ShippedError::Corrupt { mode, line, reason };
    let mut values: Vec<FirstGuessValue> = Vec::new();
    for (at, line) in (1..).zip(text.lines()) {
        let (word, total) = line
            .split_once('\t')
            .ok_or_else(|| corrupt(at, format!("{line:?} is not guess<TAB>total")))?;
        let guess = game
            .lookup_guess(word)
            .ok_or_else(|| corrupt(at, format!("{word:?} is not a guess of the game")))?;
        let outcome = if total.is_empty() {
            Outcome::AtLeast(INFEASIBLE)
        } else {
            let value = total
                .parse::<u32>()
                .map_err(|e| corrupt(at, format!("total {total:?}: {e}")))?;
            Outcome::Exact { value, guess }
        };
        values.push(FirstGuessValue { guess, outcome });
    }
    let mut seen: Vec<GuessId> = values.iter().map(|v| v.guess).collect();
    seen.sort_unstable();
    if let Some(twice) = seen.windows(2).find(|w| w[0] == w[1]) {
        return Err(corrupt(
            0,
            format!("{} appears twice", game.guess_text(twice[0])),
        ));
    }
    Ok(values)
}

/// The provenance table, header first.
fn parse_provenance(mode: &'static str, text: &str) -> Result<Vec<ChunkProvenance>, ShippedError> {
    let corrupt = |line: usize, reason: String| ShippedError::Corrupt { mode, line, reason };
    (1..)
        .zip(text.lines())
        .skip(1)
        .map(|(at, line)| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [chunk, words, first, last, build, cpu, wall, finished, command] = fields[..]
            else {
                return Err(corrupt(at, format!("{} fields, not 9", fields.len())));
            };
            let number = |text: &str| {
                text.parse::<f64>()
                    .map_err(|e| corrupt(at, format!("{text:?}: {e}")))
            };
            Ok(ChunkProvenance {
                chunk: chunk.to_string(),
                words: words
                    .parse()
                    .map_err(|e| corrupt(at, format!("{words:?}: {e}")))?,
                first: first.to_string(),
                last: last.to_string(),
                build: build.to_string(),
                cpu_secs: number(cpu)?,
                wall_secs: number(wall)?,
                finished: finished.to_string(),
                command: command.to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::presets::load_preset;

    #[test]
    fn every_shipped_chunk_parses_and_its_provenance_counts_its_rows() {
        let game = load_preset(SHIPPED_GAME).expect("preset");
        for mode in [Mode::Normal, Mode::Hard] {
            let config = SolverConfig {
                mode,
                ..SolverConfig::default()
            };
            let shipped = ShippedRanking::load(&game, &config).expect("shipped data parses");
            let counted: usize = shipped.provenance.iter().map(|p| p.words).sum();
            assert_eq!(counted, shipped.values.len(), "{mode:?}");
            assert!(shipped.values.len() <= shipped.openers);
            assert_eq!(shipped.complete(), shipped.values.len() == 12_972);
        }
    }

    #[test]
    fn other_games_and_options_are_refused_by_name() {
        let pokemon = load_preset("pokemon-today").expect("preset");
        assert!(matches!(
            ShippedRanking::load(&pokemon, &SolverConfig::default()),
            Err(ShippedError::OtherGame(_))
        ));
        let wordle = load_preset(SHIPPED_GAME).expect("preset");
        let capped = SolverConfig {
            max_guesses: Some(5),
            ..SolverConfig::default()
        };
        assert_eq!(
            ShippedRanking::load(&wordle, &capped).err(),
            Some(ShippedError::OtherOptions)
        );
    }

    #[test]
    fn a_damaged_table_names_its_line() {
        let game = load_preset(SHIPPED_GAME).expect("preset");
        let err = parse_values(&game, "normal", "salet\t7920\nzzzzz\t1\n").unwrap_err();
        assert_eq!(
            err,
            ShippedError::Corrupt {
                mode: "normal",
                line: 2,
                reason: "\"zzzzz\" is not a guess of the game".into()
            }
        );
        let values = parse_values(&game, "hard", "salet\t7920\nxylyl\t\n").expect("parses");
        assert_eq!(values[1].outcome, Outcome::AtLeast(INFEASIBLE));
        assert!(parse_values(&game, "normal", "salet\t7920\nsalet\t7920\n").is_err());
    }
}
