//! The solver options as the gRPC messages carry them (`RegisterReply.options`,
//! `RunInfo.options`, `StatusReply.options`): the fields of the JSON `options` object, with
//! core's words for the objective and the mode, so every API names them alike.

use hakase_core::solver::{Mode, Objective, SolverConfig};
use serde_json::{json, Value};

use crate::v1::SolverOptions;

/// A message naming an objective or a mode that this build does not know (a newer peer's).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {word:?} in the solver options")]
pub struct UnknownOption {
    /// Which option: "objective" or "mode".
    pub what: &'static str,
    /// The word the message carried.
    pub word: String,
}

/// The message for `config`.
pub fn solver_options(config: &SolverConfig) -> SolverOptions {
    SolverOptions {
        objective: config.objective.word().to_string(),
        max_guesses: config.max_guesses,
        mode: config.mode.word().to_string(),
        top_k: config.top_k.map(|k| u32::try_from(k).unwrap_or(u32::MAX)),
    }
}

/// The configuration a message carries: the inverse of [`solver_options`].
pub fn solver_config(options: &SolverOptions) -> Result<SolverConfig, UnknownOption> {
    let unknown = |what, word: &str| UnknownOption {
        what,
        word: word.to_string(),
    };
    Ok(SolverConfig {
        objective: Objective::from_word(&options.objective)
            .ok_or_else(|| unknown("objective", &options.objective))?,
        max_guesses: options.max_guesses,
        mode: Mode::from_word(&options.mode).ok_or_else(|| unknown("mode", &options.mode))?,
        top_k: options.top_k.map(|k| k as usize),
    })
}

/// The JSON `options` object of a message: the same fields and values as the
/// `SolverConfig` it was made from serialises to (docs/json.md).
pub fn options_json(options: &SolverOptions) -> Value {
    json!({
        "objective": options.objective,
        "max_guesses": options.max_guesses,
        "mode": options.mode,
        "top_k": options.top_k,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configs() -> [SolverConfig; 2] {
        [
            SolverConfig::default(),
            SolverConfig {
                objective: Objective::Worst,
                max_guesses: Some(4),
                mode: Mode::Hard,
                top_k: Some(30),
            },
        ]
    }

    #[test]
    fn the_message_reads_back_as_the_config_json() {
        for config in configs() {
            let json = options_json(&solver_options(&config));
            assert_eq!(json, serde_json::to_value(&config).unwrap());
        }
        assert_eq!(
            options_json(&solver_options(&SolverConfig::default()))["objective"],
            "total"
        );
    }

    #[test]
    fn the_message_reads_back_as_the_config() {
        for config in configs() {
            assert_eq!(solver_config(&solver_options(&config)), Ok(config));
        }
        let mut options = solver_options(&SolverConfig::default());
        options.mode = "sideways".into();
        assert_eq!(
            solver_config(&options).unwrap_err().to_string(),
            "unknown mode \"sideways\" in the solver options"
        );
    }
}
