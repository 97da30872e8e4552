//! The reference row of a comparison: the optimum from a solved run, or solved on the spot
//! when that is quick.

use crate::output::plural;
use std::path::Path;

use crate::output::Label;
use anyhow::{bail, Context, Result};
use hakase_core::solver::{FirstGuesses, Solver, SolverConfig};
use hakase_core::trees::tree::Tree;
use hakase_core::{FeedbackTable, Game, GuessId};
use hakase_runs as run;

/// Games at most this big (guesses × answers) are solved for every first guess on the spot:
/// every Pokémon preset (pokemon-verbum: 515 × 515 takes about a second), not Wordle.
const CHEAP_CELLS: usize = 600_000;
/// Transposition-table entries for an on-the-spot solve.
const MEMO_ENTRIES: usize = 4_000_000;

/// The optimal strategy the others are measured against.
pub struct Reference {
    /// Its tree; `None` when there is no reference.
    pub tree: Option<Tree>,
    /// Its row's name.
    pub label: String,
    /// Its trust label: proven-optimal only when the whole game was solved; exact when it
    /// was solved from a given first guess (`--first`, or a run restricted to one);
    /// heuristic for a run that was not exact.
    pub trust: Label,
    /// Where it came from, for the report's header.
    pub note: String,
}

impl Reference {
    /// From `--run` when given; else solved here when `first` is forced or the game is small;
    /// else no reference (the note says how to get one).
    pub fn find(
        game: &Game,
        table: &FeedbackTable,
        first: Option<GuessId>,
        run_spec: Option<&str>,
        data: &Path,
    ) -> Result<Reference> {
        if let Some(spec) = run_spec {
            return from_run(game, first, spec, data);
        }
        if first.is_none() && game.guesses().len() * game.answers().len() > CHEAP_CELLS {
            return Ok(Reference {
                tree: None,
                label: String::new(),
                trust: Label::Heuristic,
                note: "no optimum: give --first W (solved here) or --run R".into(),
            });
        }
        let solver = Solver::new(game, table, SolverConfig::default(), MEMO_ENTRIES);
        let firsts = first.map_or(FirstGuesses::Best, FirstGuesses::Only);
        let solution = solver.solve_game(firsts, &|_| {});
        let Some(tree) = solution.tree else {
            bail!(
                "no strategy wins every answer within {}",
                plural(game.tries(), "try", "tries")
            );
        };
        Ok(Reference {
            tree: Some(tree),
            label: "optimum".into(),
            trust: Label::of_result(true, first.is_some()),
            note: "optimum solved here (exact search)".into(),
        })
    }
}

/// The run's optimal tree, checked to belong to the same game and first guess.
fn from_run(game: &Game, first: Option<GuessId>, spec: &str, data: &Path) -> Result<Reference> {
    let loaded = run::load(spec, data).with_context(|| format!("loading run {spec:?}"))?;
    if loaded.game.fingerprint() != game.fingerprint() {
        bail!(
            "run {spec:?} is for {} (fingerprint {}), not {} ({}): pass the run's --game",
            loaded.game.name(),
            loaded.game.fingerprint(),
            game.name(),
            game.fingerprint()
        );
    }
    let solution = loaded
        .solution
        .as_ref()
        .with_context(|| format!("run {spec:?} has not finished"))?;
    let tree = solution
        .tree
        .clone()
        .with_context(|| format!("run {spec:?} found no strategy that wins"))?;
    if let Some(first) = first {
        if first != tree.guess {
            bail!(
                "run {spec:?} starts with {}, not {}: drop --first, or drop --run to solve from {} here",
                game.guess_text(tree.guess),
                game.guess_text(first),
                game.guess_text(first)
            );
        }
    }
    // The run's claim in the words every view uses (a run resting on unchecked worker
    // claims is proven only if they hold).
    Ok(Reference {
        tree: Some(tree),
        label: format!("optimum (run {})", loaded.name),
        trust: loaded.result_label(),
        note: format!("optimum from run {} ({})", loaded.name, loaded.claim()),
    })
}
