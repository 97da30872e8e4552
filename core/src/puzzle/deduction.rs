//! Deduction puzzles: a few rows after which exactly one answer remains.
//!
//! Screening draws rows against a seeded answer, each the best of a small random sample that
//! keeps to the level's kind of reasoning, until one answer is left. Grading drops every row
//! that is not needed (so each row shown is necessary), counts the answers left after each row
//! and what a careless reader would think, and names the level by the reasoning needed.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::pattern::{Cell, Pattern};
use crate::rules::table::FeedbackTable;

use super::careless::{careless_candidates, naive_feedback, reasoning};
use super::split::narrow;
use super::{DeductionGrade, Level, Reasoning};

/// Most rows a draft may use before it is given up.
pub const MAX_ROWS: usize = 4;
/// Fewest rows a puzzle shows (one row that leaves one answer is no puzzle).
pub const MIN_ROWS: usize = 2;
/// Guesses sampled for each row.
const SAMPLE: usize = 32;

/// Rows drawn against an answer, before grading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    /// The answer the rows single out.
    pub answer: AnswerId,
    /// The rows, in play order.
    pub rows: Vec<(GuessId, Pattern)>,
}

/// A graded deduction puzzle (ids; see [`super::Puzzle`] for the written form).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graded {
    /// The answer.
    pub answer: AnswerId,
    /// The necessary rows.
    pub rows: Vec<(GuessId, Pattern)>,
    /// The grade.
    pub grade: DeductionGrade,
    /// The level the reasoning gives.
    pub level: Level,
    /// Higher is better among puzzles of one slot.
    pub quality: u64,
}

/// The level a kind of reasoning gives.
pub fn level_of(reasoning: Reasoning) -> Level {
    match reasoning {
        Reasoning::GreensOnly => Level::Easy,
        Reasoning::YellowsPlaced => Level::Medium,
        Reasoning::LetterCounts => Level::Hard,
    }
}

/// Screening: draws rows from `pool` against `answer`, steered towards `level`; `None` when no single answer
/// was reached within [`MAX_ROWS`].
pub fn draw<R: Rng>(
    game: &Game,
    table: &FeedbackTable,
    rng: &mut R,
    pool: &[GuessId],
    answer: AnswerId,
    level: Level,
) -> Option<Draft> {
    let target = &game.answers()[answer as usize];
    let answer_guess = game.answer_as_guess(answer);
    let mut candidates = game.all_answers();
    let mut rows = Vec::new();
    let mut tricky = false;
    while candidates.len() > 1 && rows.len() < MAX_ROWS {
        let mut options: Vec<(usize, bool, GuessId, Pattern)> = Vec::new();
        for _ in 0..SAMPLE {
            let guess = *pool.choose(rng)?;
            if guess == answer_guess {
                continue;
            }
            let pattern = table.get(guess, answer);
            let word = &game.guesses()[guess as usize];
            let naive_differs = naive_feedback(word, target) != pattern;
            let has_yellow = pattern.cells(word.len()).contains(&Cell::Yellow);
            let fits = match level {
                Level::Easy => !has_yellow && !naive_differs,
                Level::Medium => !naive_differs,
                Level::Hard => true,
            };
            let left = narrow(table, &candidates, guess, pattern).len();
            if fits && left < candidates.len() {
                options.push((left, naive_differs, guess, pattern));
            }
        }
        if level == Level::Hard && !tricky && options.iter().any(|o| o.1) {
            options.retain(|o| o.1);
        }
        options.sort_unstable();
        let best = options.len().div_ceil(3);
        let &(_, differs, guess, pattern) = options[..best].choose(rng)?;
        tricky |= differs;
        candidates = narrow(table, &candidates, guess, pattern);
        rows.push((guess, pattern));
    }
    (candidates == [answer]).then_some(Draft { answer, rows })
}

/// The answers left after the rows, applied in order from all answers.
fn left_after(game: &Game, table: &FeedbackTable, rows: &[(GuessId, Pattern)]) -> Vec<usize> {
    let mut candidates = game.all_answers();
    rows.iter()
        .map(|&(g, p)| {
            candidates = narrow(table, &candidates, g, p);
            candidates.len()
        })
        .collect()
}

/// Exact grading: drops unnecessary rows (latest first), then grades. `None` when fewer than
/// [`MIN_ROWS`] rows are needed.
pub fn grade(game: &Game, table: &FeedbackTable, draft: &Draft) -> Option<Graded> {
    let mut rows = draft.rows.clone();
    for i in (0..rows.len()).rev() {
        let mut without = rows.clone();
        without.remove(i);
        if left_after(game, table, &without).last() == Some(&1) {
            rows = without;
        }
    }
    if rows.len() < MIN_ROWS {
        return None;
    }
    let counts = left_after(game, table, &rows);
    let careless = careless_candidates(game, &rows);
    let reasoning = reasoning(&rows, &careless, draft.answer);
    let before_last = counts[counts.len() - 2];
    let shape = 3 - rows.len().abs_diff(3).min(3) as u64;
    Some(Graded {
        answer: draft.answer,
        level: level_of(reasoning),
        quality: shape * 1000 + before_last.min(999) as u64,
        grade: DeductionGrade {
            counts,
            reasoning,
            careless_left: careless.len(),
            careless_keeps_answer: careless.contains(&draft.answer),
        },
        rows,
    })
}

/// The question, in words.
pub fn question(rows: usize) -> String {
    format!("Exactly one answer fits these {rows} rows. Which?")
}
