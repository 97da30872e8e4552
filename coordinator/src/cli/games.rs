//! `hakase games`: the presets, with the sizes that tell them apart.

use std::io::Write;

use anyhow::{Context, Result};
use clap::Args;
use hakase_core::rules::presets::{load_preset, presets};
use hakase_core::PatternStyle;
use serde::Serialize;

use crate::output::{emit, JsonArg, Table, View};

/// List the preset games: their guess and answer counts, tries and fingerprints.
///
/// Pass a name to --game of any other command. pokemon-gen:N stands for a whole family:
/// pokemon-gen:1 asks for names of generation 1, pokemon-gen:1-3 for generations 1 to 3.
/// The fingerprint is a hash of the rules and both lists: two games with the same
/// fingerprint are the same game.
#[derive(Debug, Args)]
pub struct Games {
    /// Text or JSON.
    #[command(flatten)]
    pub output: JsonArg,
}

/// One preset as printed.
#[derive(Debug, Serialize)]
struct GameInfo {
    name: String,
    description: String,
    guesses: usize,
    answers: usize,
    tries: u32,
    style: PatternStyle,
    fingerprint: String,
}

/// The JSON document: an object so fields can be added later.
#[derive(Debug, Serialize)]
struct GamesJson {
    games: Vec<GameInfo>,
}

impl Games {
    /// Loads every preset and prints its sizes.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let games = presets()
            .into_iter()
            .map(|info| {
                let game = load_preset(info.name)
                    .with_context(|| format!("loading preset {}", info.name))?;
                Ok(GameInfo {
                    name: info.name.to_string(),
                    description: info.description.to_string(),
                    guesses: game.guesses().len(),
                    answers: game.answers().len(),
                    tries: game.tries(),
                    style: game.style(),
                    fingerprint: game.fingerprint().to_string(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        emit(out, self.output, &GamesJson { games })
    }
}

impl View for GamesJson {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        let mut table = Table::new(&[
            "GAME",
            ">GUESSES",
            ">ANSWERS",
            ">TRIES",
            "FINGERPRINT",
            "DESCRIPTION",
        ]);
        for g in &self.games {
            table.row(vec![
                g.name.clone(),
                g.guesses.to_string(),
                g.answers.to_string(),
                g.tries.to_string(),
                g.fingerprint.clone(),
                g.description.clone(),
            ]);
        }
        table.write(out)
    }
}
