//! A designed string's exact value as the first guess: the proven optimal total of the rest
//! of the game, played with the game's real words, under a cutoff.
//!
//! The string splits the answers into parts by its feedback; each part is then a subproblem
//! of the real game with one guess fewer, which the exact solver values. One solver (and so
//! one transposition table) serves every string: parts recur across strings, and a part's
//! value does not depend on which string made it. This is the value `hakase solve --first S
//! --allow-any-first` prints: there the string is also in the guess list, but it shows one
//! pattern on every answer of each of its parts, so it never helps below the root.

use super::Letters;
use crate::rules::game::{AnswerId, Game};
use crate::rules::pattern::{Pattern, PATTERNS};
use crate::rules::table::FeedbackTable;
use crate::solver::bounds::{min_depth, min_total};
use crate::solver::hard::HardState;
use crate::solver::{Mode, Node, Outcome, Solver, SolverConfig, INFEASIBLE};

/// What a scoring proved: the exact total below the cutoff, else a lower bound at or above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "value")]
pub enum Total {
    /// The optimal total with this first guess.
    Exact(u32),
    /// The total is at least this ([`INFEASIBLE`] when the game cannot be won).
    AtLeast(u32),
}

impl Total {
    /// The exact value or the bound.
    pub fn value(self) -> u32 {
        match self {
            Total::Exact(v) | Total::AtLeast(v) => v,
        }
    }

    /// The exact value, if proven.
    pub fn exact(self) -> Option<u32> {
        match self {
            Total::Exact(v) => Some(v),
            Total::AtLeast(_) => None,
        }
    }
}

/// Scores designed strings with one shared exact solver.
pub struct Scorer<'g> {
    solver: Solver<'g>,
    answers: u32,
    cap: u32,
    branching: u32,
}

impl<'g> Scorer<'g> {
    /// A scorer for `game` under `config` (normal, hard or strict play after the first
    /// guess), with a transposition table of `memo_entries` entries.
    pub fn new(
        game: &'g Game,
        table: &'g FeedbackTable,
        config: SolverConfig,
        memo_entries: usize,
    ) -> Scorer<'g> {
        let solver = Solver::new(game, table, config, memo_entries);
        let cap = solver.config().guess_cap(game);
        // No real guess splits any set of answers into more parts than the widest split of
        // all answers, so this bounds the branching below every designed string too.
        let branching = solver.guess_order(&solver.root(cap)).branching;
        Scorer {
            solver,
            answers: game.answers().len() as u32,
            cap,
            branching,
        }
    }

    /// The shared solver (its memo holds every part scored so far).
    pub fn solver(&self) -> &Solver<'g> {
        &self.solver
    }

    /// The guesses allowed in all, the designed first guess included.
    pub fn guess_cap(&self) -> u32 {
        self.cap
    }

    /// The widest split any real guess makes of all answers.
    pub fn branching(&self) -> u32 {
        self.branching
    }

    /// The parts the string splits the answers into, without the winning one, largest first
    /// (ties in pattern order).
    pub fn parts(&self, letters: Letters) -> Vec<(Pattern, Vec<AnswerId>)> {
        let game = self.solver.game();
        let guess = super::word(letters);
        let mut buckets: Vec<Vec<AnswerId>> = vec![Vec::new(); PATTERNS];
        for (id, answer) in game.answers().iter().enumerate() {
            let p = crate::rules::pattern::feedback(&guess, answer);
            if !p.is_win() {
                buckets[p.0 as usize].push(id as AnswerId);
            }
        }
        let mut parts: Vec<(Pattern, Vec<AnswerId>)> = buckets
            .into_iter()
            .enumerate()
            .filter(|(_, b)| !b.is_empty())
            .map(|(p, b)| (Pattern(p as u8), b))
            .collect();
        parts.sort_by_key(|(p, b)| (std::cmp::Reverse(b.len()), *p));
        parts
    }

    fn node(&self, letters: Letters, pattern: Pattern, part: &[AnswerId], left: u32) -> Node {
        let hard = if self.solver.config().mode == Mode::Hard {
            HardState::default().after(&super::word(letters), pattern)
        } else {
            HardState::default()
        };
        Node {
            candidates: part.to_vec(),
            guesses_left: left,
            hard,
        }
    }

    /// The optimal total with `letters` as the first guess: exact when below `beta`, else a
    /// proven lower bound ≥ `beta`. Parts are searched largest first, each with the budget
    /// the others' bounds leave, so a weak string is dropped after little work.
    pub fn total(&self, letters: Letters, beta: u32) -> Total {
        let parts = self.parts(letters);
        if parts.is_empty() {
            return if self.cap >= 1 {
                exact_below(self.answers, beta)
            } else {
                Total::AtLeast(INFEASIBLE)
            };
        }
        // A string that tells nothing (one part of all answers) only wastes a guess; the
        // solver rules such a first guess out, and so does the scorer, to agree with it.
        if self.cap < 2 || parts[0].1.len() == self.answers as usize {
            return Total::AtLeast(INFEASIBLE);
        }
        let left = self.cap - 1;
        let mut bounds: Vec<u32> = parts
            .iter()
            .map(|(_, p)| min_total(p.len() as u32, left, self.branching))
            .collect();
        let mut running = bounds
            .iter()
            .fold(self.answers, |s, &b| s.saturating_add(b))
            .min(INFEASIBLE);
        if running >= beta {
            return Total::AtLeast(running);
        }
        for ((pattern, part), own) in parts.iter().zip(bounds.iter_mut()) {
            if part.len() <= 2 {
                continue;
            }
            let others = running - *own;
            let node = self.node(letters, *pattern, part, left);
            match self.solver.evaluate(&node, beta.saturating_sub(others)) {
                Outcome::Exact { value, .. } => {
                    running = others + value;
                    *own = value;
                }
                Outcome::AtLeast(bound) => {
                    return Total::AtLeast(others.saturating_add(bound).min(INFEASIBLE))
                }
            }
        }
        exact_below(running, beta)
    }

    /// The smallest worst case any strategy reaches with `letters` first, with the least
    /// total among strategies of that worst case; `None` when the game cannot be won.
    pub fn worst(&self, letters: Letters) -> Option<(u32, u32)> {
        let parts = self.parts(letters);
        if parts
            .first()
            .is_some_and(|p| p.1.len() == self.answers as usize)
        {
            return None;
        }
        let start = parts
            .iter()
            .map(|(_, p)| 1 + min_depth(p.len() as u32, self.branching))
            .max()
            .unwrap_or(1);
        'depth: for depth in start..=self.cap {
            let mut total = self.answers;
            for (pattern, part) in &parts {
                let node = self.node(letters, *pattern, part, depth - 1);
                match self.solver.evaluate(&node, INFEASIBLE) {
                    Outcome::Exact { value, .. } => total += value,
                    Outcome::AtLeast(_) => continue 'depth,
                }
            }
            return Some((depth, total));
        }
        None
    }
}

fn exact_below(value: u32, beta: u32) -> Total {
    if value < beta {
        Total::Exact(value)
    } else {
        Total::AtLeast(value)
    }
}
