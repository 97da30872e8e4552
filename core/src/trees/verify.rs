//! Independent checking of a strategy tree: every guess allowed, every pattern the one the
//! game would show (recomputed from the words, not the feedback table), every answer solved
//! exactly once within the tries.

use crate::plural::plural;
use thiserror::Error;

use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::pattern::{feedback, Pattern};
use crate::rules::word::Word;
use crate::solver::hard::HardState;
use crate::solver::Mode;
use crate::trees::tree::{Evaluation, Tree};

/// The first problem found in a tree.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{path}: {why}")]
pub struct VerifyError {
    /// The guesses and patterns leading to the problem.
    pub path: String,
    /// What is wrong there.
    pub why: String,
}

/// Plays every answer through `tree` under `mode` and returns the statistics, or the first
/// rule the tree breaks.
pub fn verify(game: &Game, tree: &Tree, mode: Mode) -> Result<Evaluation, VerifyError> {
    let mut evaluation = Evaluation::new(game.tries());
    let mut reached = vec![0u32; game.answers().len()];
    check_node(
        game,
        tree,
        mode,
        &game.all_answers(),
        &HardState::default(),
        &mut Vec::new(),
        &mut evaluation,
        &mut reached,
    )?;
    if let Some(a) = reached.iter().position(|&n| n != 1) {
        return Err(VerifyError {
            path: "tree".into(),
            why: format!(
                "{} is solved {} times",
                game.answer_text(a as AnswerId),
                reached[a]
            ),
        });
    }
    Ok(evaluation)
}

#[allow(clippy::too_many_arguments)]
fn check_node(
    game: &Game,
    tree: &Tree,
    mode: Mode,
    set: &[AnswerId],
    hard: &HardState,
    path: &mut Vec<String>,
    evaluation: &mut Evaluation,
    reached: &mut [u32],
) -> Result<(), VerifyError> {
    let fail = |path: &[String], why: String| VerifyError {
        path: if path.is_empty() {
            "first guess".into()
        } else {
            path.join(" ")
        },
        why,
    };
    let guess: GuessId = tree.guess;
    let Some(word) = game.guesses().get(guess as usize) else {
        return Err(fail(path, format!("guess id {guess} is not in the game")));
    };
    let text = game.guess_text(guess);
    let depth = path.len() as u32 + 1;
    allowed_here(game, mode, set, hard, guess, depth).map_err(|why| fail(path, why))?;
    let mut used = vec![false; tree.branches.len()];
    let parts = parts_after(game, word, set, depth, evaluation, reached);
    for (pattern, part) in parts {
        let shown = pattern.format(word.len(), game.style());
        let Some(index) = tree.branches.iter().position(|(p, _)| *p == pattern) else {
            return Err(fail(
                path,
                format!(
                    "{text} shows {shown} for {} but the tree has no branch for it",
                    game.answer_text(part[0])
                ),
            ));
        };
        used[index] = true;
        path.push(format!("{text} {shown}"));
        let next = hard.after(word, pattern);
        check_node(
            game,
            &tree.branches[index].1,
            mode,
            &part,
            &next,
            path,
            evaluation,
            reached,
        )?;
        path.pop();
    }
    if let Some(i) = used.iter().position(|u| !u) {
        let (pattern, _) = tree.branches[i];
        return Err(fail(
            path,
            format!(
                "{text} has a branch for {} that no remaining answer can show",
                pattern.format(word.len(), game.style())
            ),
        ));
    }
    Ok(())
}

/// Why `guess` may not be played as guess number `depth` at a node of `set` under `mode`
/// (beyond the tries, or against hard or strict mode); `Ok` when it may.
fn allowed_here(
    game: &Game,
    mode: Mode,
    set: &[AnswerId],
    hard: &HardState,
    guess: GuessId,
    depth: u32,
) -> Result<(), String> {
    let text = game.guess_text(guess);
    if depth > game.tries() {
        return Err(format!(
            "{text} would be guess {depth}, beyond the {}",
            plural(game.tries(), "try", "tries")
        ));
    }
    let word = &game.guesses()[guess as usize];
    match mode {
        Mode::Normal => Ok(()),
        Mode::Hard if !hard.allows(word) => Err(format!(
            "{text} breaks hard mode (a revealed letter is dropped or moved)"
        )),
        Mode::Hard => Ok(()),
        Mode::Strict => {
            let candidate = game
                .guess_as_answer(guess)
                .is_some_and(|a| set.contains(&a));
            if candidate {
                Ok(())
            } else {
                Err(format!(
                    "{text} is not a possible answer here (strict mode)"
                ))
            }
        }
    }
}

/// The answers of `set` that `word` does not win, by the pattern they show, in order of
/// first appearance; the ones it wins are recorded as found at `depth`.
fn parts_after(
    game: &Game,
    word: &Word,
    set: &[AnswerId],
    depth: u32,
    evaluation: &mut Evaluation,
    reached: &mut [u32],
) -> Vec<(Pattern, Vec<AnswerId>)> {
    let mut parts: Vec<(Pattern, Vec<AnswerId>)> = Vec::new();
    for &answer in set {
        let pattern = feedback(word, &game.answers()[answer as usize]);
        if pattern.is_win() {
            reached[answer as usize] += 1;
            evaluation.record(answer, Some(depth));
            continue;
        }
        match parts.iter_mut().find(|(p, _)| *p == pattern) {
            Some((_, v)) => v.push(answer),
            None => parts.push((pattern, vec![answer])),
        }
    }
    parts
}
