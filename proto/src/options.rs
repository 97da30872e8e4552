//! The solver options as the gRPC messages carry them (`RunInfo.options`,
//! `StatusReply.options`): the fields of the JSON `options` object, with serde's words for
//! the objective and the mode, so every API names them alike.

use hakase_core::solver::SolverConfig;
use serde_json::{json, Value};

use crate::v1::SolverOptions;

/// The message for `config`.
pub fn solver_options(config: &SolverConfig) -> SolverOptions {
    let word = |value: serde_json::Result<Value>| {
        value
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    };
    SolverOptions {
        objective: word(serde_json::to_value(config.objective)),
        max_guesses: config.max_guesses,
        mode: word(serde_json::to_value(config.mode)),
        top_k: config.top_k.map(|k| u32::try_from(k).unwrap_or(u32::MAX)),
    }
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
    use hakase_core::solver::{Mode, Objective};

    #[test]
    fn the_message_reads_back_as_the_config_json() {
        for config in [
            SolverConfig::default(),
            SolverConfig {
                objective: Objective::Worst,
                max_guesses: Some(4),
                mode: Mode::Hard,
                top_k: Some(30),
            },
        ] {
            let json = options_json(&solver_options(&config));
            assert_eq!(json, serde_json::to_value(&config).unwrap());
        }
        assert_eq!(
            options_json(&solver_options(&SolverConfig::default()))["objective"],
            "total"
        );
    }
}
