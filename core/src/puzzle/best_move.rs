//! Best-move problems, like chess problems: a position (rows so far) where exactly one guess
//! is right and the tempting heuristic guess is not.
//!
//! Two goals: exactly one guess wins within two guesses for every answer (it separates all
//! answers), or exactly one guess minimises the total by the exact solver. Screening draws
//! seeded positions and checks cheap facts (answers left, separating guesses, the heuristics'
//! choices); grading proves the best move with the exact solver, guess class by guess class.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::heuristics::strategy::{EntropyStrategy, Frequency, Strategy};
use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::pattern::Pattern;
use crate::rules::table::FeedbackTable;
use crate::solver::hard::HardState;
use crate::solver::{Node, Outcome, Solver, INFEASIBLE};

use super::split::{classes, narrow, separating_guesses, split_key};
use super::{BestMoveGrade, Goal, Level, Tempting};

/// A position: the rows played and the answers they leave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    /// The rows, in play order.
    pub rows: Vec<(GuessId, Pattern)>,
    /// The answers that fit them.
    pub candidates: Vec<AnswerId>,
}

/// A graded best-move problem (ids; see [`super::Puzzle`] for the written form).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graded {
    /// The position.
    pub position: Position,
    /// The one right guess.
    pub best: GuessId,
    /// The grade.
    pub grade: BestMoveGrade,
    /// The level.
    pub level: Level,
    /// Higher is better among problems of one slot.
    pub quality: u64,
}

/// Answers left that a level's positions may have.
pub fn answers_range(level: Level) -> std::ops::RangeInclusive<usize> {
    match level {
        Level::Easy => 4..=8,
        Level::Medium => 9..=24,
        Level::Hard => 6..=40,
    }
}

/// The separating guesses a position must have to be screened in for `level`: exactly one for
/// the win-within-two goal (easy, medium); any number for the unique optimum (hard).
fn wants_separator(level: Level) -> bool {
    level != Level::Hard
}

/// Screening, part one: a seeded position of one or two rows from `pool` against a random answer,
/// kept when the answers left fit the level.
pub fn draw<R: Rng>(
    game: &Game,
    table: &FeedbackTable,
    rng: &mut R,
    pool: &[GuessId],
    level: Level,
) -> Option<Position> {
    let answer = rng.gen_range(0..game.answers().len() as AnswerId);
    let rows_wanted = rng.gen_range(1..=2usize);
    let mut candidates = game.all_answers();
    let mut rows = Vec::new();
    for _ in 0..rows_wanted {
        let guess = *pool.choose(rng)?;
        let pattern = table.get(guess, answer);
        if pattern.is_win() {
            return None;
        }
        candidates = narrow(table, &candidates, guess, pattern);
        rows.push((guess, pattern));
    }
    answers_range(level)
        .contains(&candidates.len())
        .then_some(Position { rows, candidates })
}

/// Screening, part two: cheap facts. Returns a score (higher first) when the position may make
/// a problem of `level`: for easy and medium, exactly one separating guess that the frequency
/// player would not play; for hard, a position where the entropy and the smallest-expected-
/// size heuristics split differently (a sign the greedy choice is contestable).
pub fn screen(
    game: &Game,
    table: &FeedbackTable,
    position: &Position,
    level: Level,
) -> Option<u64> {
    let c = &position.candidates;
    let n = c.len() as u64;
    if wants_separator(level) {
        let separators = separating_guesses(table, c);
        let frequency = Frequency.choose(game, table, c);
        return (separators.len() == 1 && separators[0] != frequency).then_some(n);
    }
    let entropy = EntropyStrategy.choose(game, table, c);
    let expected = crate::heuristics::strategy::MinExpectedSize.choose(game, table, c);
    let disagree = split_key(table, entropy, c) != split_key(table, expected, c);
    Some(n + if disagree { 1000 } else { 0 })
}

/// The node of a position with `guesses_left` guesses to go.
fn node(position: &Position, guesses_left: u32) -> Node {
    Node {
        candidates: position.candidates.clone(),
        guesses_left,
        hard: HardState::default(),
    }
}

/// Exact total of playing `guess` at the position (optimal play after), within `guesses_left`.
fn total(solver: &Solver, position: &Position, guesses_left: u32, guess: GuessId) -> u32 {
    solver
        .evaluate_guess(&node(position, guesses_left), guess, INFEASIBLE)
        .value()
}

/// Fewest guesses, `guess` included, that win every answer after it (optimal play after);
/// [`INFEASIBLE`] when not within `guesses_left`.
pub fn worst(solver: &Solver, position: &Position, guesses_left: u32, guess: GuessId) -> u32 {
    let n = position.candidates.len() as u32;
    (1..=guesses_left)
        .find(|&d| {
            solver
                .evaluate_guess(&node(position, d), guess, d * n + 1)
                .is_exact()
        })
        .unwrap_or(INFEASIBLE)
}

/// Exact grading with the solver. `None` when the position is not what the level needs.
pub fn grade(solver: &Solver, position: &Position, level: Level) -> Option<Graded> {
    let game = solver.game();
    let table = solver.table();
    let c = &position.candidates;
    let n = c.len() as u32;
    let left = game.tries().checked_sub(position.rows.len() as u32)?;
    let entropy = EntropyStrategy.choose(game, table, c);
    let frequency = Frequency.choose(game, table, c);
    let (goal, best, best_total) = if wants_separator(level) {
        let separators = separating_guesses(table, c);
        let [only] = separators[..] else {
            return None;
        };
        (
            Goal::WinWithin { guesses: 2 },
            only,
            total(solver, position, left, only),
        )
    } else {
        let Outcome::Exact { value, guess } = solver.evaluate(&node(position, left), INFEASIBLE)
        else {
            return None;
        };
        if !unique_optimum(solver, position, left, guess, value) {
            return None;
        }
        (Goal::UniqueOptimum, guess, value)
    };
    let best_worst = worst(solver, position, left, best);
    let tempting: Vec<Tempting> = [("entropy", entropy), ("frequency", frequency)]
        .into_iter()
        .map(|(name, guess)| Tempting {
            strategy: name.to_string(),
            guess: game.guess_text(guess).to_string(),
            total: total(solver, position, left, guess),
            worst: worst(solver, position, left, guess),
        })
        .collect();
    let missed = |t: &Tempting| match goal {
        Goal::WinWithin { guesses } => t.worst.saturating_sub(guesses),
        Goal::UniqueOptimum => t.total.saturating_sub(best_total),
    };
    let margin = tempting.iter().map(missed).max().unwrap_or(0);
    let entropy_missed = missed(&tempting[0]) > 0;
    let level_found = match goal {
        Goal::UniqueOptimum if entropy_missed => Level::Hard,
        Goal::UniqueOptimum => return None,
        Goal::WinWithin { .. } if entropy_missed => Level::Hard,
        Goal::WinWithin { .. } if answers_range(Level::Easy).contains(&c.len()) => Level::Easy,
        Goal::WinWithin { .. } => Level::Medium,
    };
    if margin == 0 || best_worst > left {
        return None;
    }
    let quality = match level_found {
        Level::Hard => u64::from(margin) * 100 + u64::from(n),
        _ => u64::from(n) * 10 + u64::from(game.guess_as_answer(best).is_none()),
    };
    Some(Graded {
        position: position.clone(),
        best,
        level: level_found,
        quality,
        grade: BestMoveGrade {
            goal,
            candidates: c.iter().map(|&a| game.answer_text(a).to_string()).collect(),
            total: best_total,
            worst: best_worst,
            tempting,
            margin,
        },
    })
}

/// True when `best` (worth `value`) is the only guess worth `value`: no other guess splits the
/// answers the same way, and every other class of guesses is proven worse by the solver (its
/// admissible bound, or a search with cutoff `value + 1`).
fn unique_optimum(
    solver: &Solver,
    position: &Position,
    left: u32,
    best: GuessId,
    value: u32,
) -> bool {
    let table = solver.table();
    let c = &position.candidates;
    let node = node(position, left);
    let bounds: rustc_hash::FxHashMap<GuessId, u32> = solver
        .guess_order(&node)
        .guesses
        .iter()
        .map(|g| (g.guess, g.lower))
        .collect();
    classes(table, c).iter().all(|class| {
        if class.contains(&best) {
            return class.len() == 1;
        }
        let rep = class[0];
        bounds.get(&rep).is_some_and(|&lower| lower > value)
            || !solver.evaluate_guess(&node, rep, value + 1).is_exact()
    })
}

/// The question, in words.
pub fn question(goal: Goal, answers: usize) -> String {
    match goal {
        Goal::WinWithin { guesses } => format!(
            "{answers} answers are left. Exactly one guess wins within {guesses} guesses \
             whatever the answer. Which?"
        ),
        Goal::UniqueOptimum => format!(
            "{answers} answers are left. Exactly one guess needs the fewest guesses in total \
             over them, with perfect play after. Which?"
        ),
    }
}
