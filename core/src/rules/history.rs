//! What the player has seen so far, and the answers that still fit it.

use crate::error::{Error, Result};
use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::pattern::Pattern;
use crate::rules::table::FeedbackTable;

/// One played guess and the colours the game showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Step {
    /// The guess typed.
    pub guess: GuessId,
    /// The feedback shown.
    pub pattern: Pattern,
}

impl Step {
    /// Reads `WORD=PATTERN` (also `WORD:PATTERN` or `WORD PATTERN`), pattern in any style.
    pub fn parse(game: &Game, text: &str) -> Result<Step> {
        let (word, pattern) =
            text.split_once(['=', ':', ' '])
                .ok_or_else(|| Error::BadPattern {
                    text: text.to_string(),
                    why: "write each step as WORD=PATTERN, e.g. レントラー=灰灰灰灰緑".into(),
                })?;
        let guess = game.find_guess(word)?;
        let len = game.guesses()[guess as usize].len();
        Ok(Step {
            guess,
            pattern: Pattern::parse(pattern, len)?,
        })
    }

    /// `WORD=PATTERN` in the game's style.
    pub fn display(&self, game: &Game) -> String {
        let len = game.guesses()[self.guess as usize].len();
        format!(
            "{}={}",
            game.guess_text(self.guess),
            self.pattern.format(len, game.style())
        )
    }
}

/// Why a step after the winning one is refused: the words of
/// [`Error::InconsistentHistory`], kept here so front ends can tell the reasons apart.
pub const ALREADY_WON: &str = "the game was already won at the step before";

/// Why a step no answer fits together with the earlier ones is refused.
pub const NO_ANSWER_FITS: &str = "no answer fits this step together with the earlier ones";

/// Why a pattern the guess can never show is refused.
pub const NEVER_SHOWN: &str = "the game never shows this pattern for this guess";

/// The answers consistent with every step, in answer order.
///
/// A step no remaining answer fits is an error naming that step, and saying whether the game
/// could ever show that pattern for that guess.
pub fn filter(game: &Game, table: &FeedbackTable, steps: &[Step]) -> Result<Vec<AnswerId>> {
    let mut candidates = game.all_answers();
    for (index, step) in steps.iter().enumerate() {
        let error = |why: String| Error::InconsistentHistory {
            step: index + 1,
            guess: game.guess_text(step.guess).to_string(),
            pattern: step
                .pattern
                .format(game.guesses()[step.guess as usize].len(), game.style()),
            why,
        };
        if index > 0 && steps[index - 1].pattern.is_win() {
            return Err(error(ALREADY_WON.into()));
        }
        candidates.retain(|&a| table.get(step.guess, a) == step.pattern);
        if candidates.is_empty() {
            let possible = (0..game.answers().len() as AnswerId)
                .any(|a| table.get(step.guess, a) == step.pattern);
            let why = if possible {
                NO_ANSWER_FITS
            } else {
                NEVER_SHOWN
            };
            return Err(error(why.into()));
        }
    }
    Ok(candidates)
}

/// Splits `candidates` by the pattern `guess` shows; parts are in pattern order and the
/// winning part, if any, is included.
pub fn partition(
    table: &FeedbackTable,
    guess: GuessId,
    candidates: &[AnswerId],
) -> Vec<(Pattern, Vec<AnswerId>)> {
    split_by_pattern(table, guess, candidates, true)
}

/// [`partition`] without the winning part: what a search recurses into after `guess`.
pub fn open_parts(
    table: &FeedbackTable,
    guess: GuessId,
    candidates: &[AnswerId],
) -> Vec<(Pattern, Vec<AnswerId>)> {
    split_by_pattern(table, guess, candidates, false)
}

/// The one split of answers by pattern. It is on the solver's hot path, so parts are counted
/// first and each is allocated once at its size.
fn split_by_pattern(
    table: &FeedbackTable,
    guess: GuessId,
    candidates: &[AnswerId],
    with_win: bool,
) -> Vec<(Pattern, Vec<AnswerId>)> {
    let row = table.row(guess);
    let mut counts = [0u32; crate::rules::pattern::PATTERNS];
    for &a in candidates {
        counts[usize::from(row[a as usize])] += 1;
    }
    if !with_win {
        counts[usize::from(Pattern::ALL_GREEN.0)] = 0;
    }
    let mut slot = [usize::MAX; crate::rules::pattern::PATTERNS];
    let mut parts: Vec<(Pattern, Vec<AnswerId>)> = Vec::new();
    for (p, &count) in counts.iter().enumerate().filter(|(_, &c)| c > 0) {
        slot[p] = parts.len();
        parts.push((Pattern(p as u8), Vec::with_capacity(count as usize)));
    }
    for &a in candidates {
        if let Some((_, part)) = parts.get_mut(slot[usize::from(row[a as usize])]) {
            part.push(a);
        }
    }
    parts
}
