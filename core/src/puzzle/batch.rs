//! Batches: which level and kind each day gets, one reproducible random stream per day and
//! attempt, and the generator that turns a slot into its best puzzle.
//!
//! A day's puzzle is a function of the batch seed, the slot and the attempt only (no other
//! day's puzzle steers it), so any machine can make any day; [`super::order`] then accepts
//! days in day order and re-issues a near-duplicate with its next attempt.
//!
//! Memory is bounded per slot: screening keeps at most [`Settings::survivors`] candidates
//! (a few rows and at most a few dozen answer ids each) plus the best graded puzzle so far;
//! the exact solver's transposition table is capped at [`Settings::memo_entries`] entries and
//! dropped when the slot is done. Nothing else grows with the batch but the near-duplicate
//! keys (one answer or answer set and one first row per accepted puzzle).

use std::cmp::Reverse;
use std::str::FromStr;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::pattern::Pattern;
use crate::rules::table::FeedbackTable;
use crate::solver::{Solver, SolverConfig};

use super::level::{Kind, Level, LEVELS};
use super::{best_move, deduction, Grade, Puzzle, Row};

/// How a batch's days are shared among levels, as weights (`easy:40%,medium:40%,hard:20%`).
#[derive(Debug, Clone, PartialEq)]
pub struct LevelMix(pub Vec<(Level, f64)>);

impl FromStr for LevelMix {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let mut mix: Vec<(Level, f64)> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, weight) = part
                .split_once(':')
                .ok_or_else(|| format!("{part:?}: write LEVEL:WEIGHT, e.g. easy:40%"))?;
            let level: Level = name.parse()?;
            let weight: f64 = weight
                .trim()
                .trim_end_matches('%')
                .parse()
                .map_err(|_| format!("{part:?}: the weight is not a number"))?;
            if !weight.is_finite() || weight < 0.0 {
                return Err(format!("{part:?}: the weight must be zero or more"));
            }
            if mix.iter().any(|&(l, _)| l == level) {
                return Err(format!("{name:?} is given twice"));
            }
            mix.push((level, weight));
        }
        if mix.iter().map(|&(_, w)| w).sum::<f64>() <= 0.0 {
            return Err("the level weights add up to nothing".into());
        }
        Ok(LevelMix(mix))
    }
}

impl LevelMix {
    /// Days per level for a batch of `count`, by largest remainder (so they add up exactly).
    pub fn counts(&self, count: usize) -> Vec<(Level, usize)> {
        let sum: f64 = self.0.iter().map(|&(_, w)| w).sum();
        let exact: Vec<f64> = self
            .0
            .iter()
            .map(|&(_, w)| w / sum * count as f64)
            .collect();
        let mut counts: Vec<usize> = exact.iter().map(|e| e.floor() as usize).collect();
        let mut order: Vec<usize> = (0..exact.len()).collect();
        order.sort_by(|&a, &b| {
            let (ra, rb) = (exact[a] - exact[a].floor(), exact[b] - exact[b].floor());
            rb.total_cmp(&ra).then(a.cmp(&b))
        });
        let missing = count - counts.iter().sum::<usize>();
        for &i in order.iter().take(missing) {
            counts[i] += 1;
        }
        LEVELS
            .into_iter()
            .filter_map(|level| {
                let i = self.0.iter().position(|&(l, _)| l == level)?;
                Some((level, counts[i]))
            })
            .collect()
    }
}

/// One day of a batch: what kind of puzzle at what level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// The day, from 1.
    pub day: usize,
    /// The level asked for.
    pub level: Level,
    /// The kind asked for.
    pub kind: Kind,
}

/// The days of a batch: each level gets its share, its days alternate the kinds, and the days
/// are shuffled by `seed` so levels mix through the year.
pub fn plan(count: usize, mix: &LevelMix, kinds: &[Kind], seed: u64) -> Vec<Slot> {
    let kinds = if kinds.is_empty() {
        &super::level::KINDS[..]
    } else {
        kinds
    };
    let mut wanted: Vec<(Level, Kind)> = mix
        .counts(count)
        .into_iter()
        .flat_map(|(level, n)| (0..n).map(move |i| (level, kinds[i % kinds.len()])))
        .collect();
    wanted.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    wanted
        .into_iter()
        .enumerate()
        .map(|(i, (level, kind))| Slot {
            day: i + 1,
            level,
            kind,
        })
        .collect()
}

/// The random seed of one day: independent of the other days, so a resumed batch continues
/// exactly as an uninterrupted one would (SplitMix64 of the batch seed and the day).
pub fn day_seed(seed: u64, day: usize) -> u64 {
    let mut z = seed ^ (day as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The random seed of one attempt at a day: attempt 0 is the day's own seed, a later one (a
/// re-issue after a near-duplicate) is mixed from it.
pub fn attempt_seed(seed: u64, day: usize, attempt: u32) -> u64 {
    match attempt {
        0 => day_seed(seed, day),
        n => day_seed(day_seed(seed, day), n as usize),
    }
}

/// How hard the generator tries per slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Candidates drawn per round in screening.
    pub screen: usize,
    /// Screened candidates kept for exact grading (the memory bound).
    pub survivors: usize,
    /// Rounds before the slot settles for the best puzzle of another level, or gives up.
    pub rounds: usize,
    /// Entries of the solver's transposition table.
    pub memo_entries: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            screen: 400,
            survivors: 4,
            rounds: 12,
            memo_entries: 1 << 18,
        }
    }
}

/// Generates puzzles for one game.
pub struct Generator<'g> {
    game: &'g Game,
    table: &'g FeedbackTable,
    pool: Vec<GuessId>,
    /// Effort and memory limits.
    pub settings: Settings,
}

/// A graded candidate of either kind.
enum Graded {
    Deduction(deduction::Graded),
    BestMove(best_move::Graded),
}

impl Graded {
    fn level(&self) -> Level {
        match self {
            Graded::Deduction(g) => g.level,
            Graded::BestMove(g) => g.level,
        }
    }
    fn quality(&self) -> u64 {
        match self {
            Graded::Deduction(g) => g.quality,
            Graded::BestMove(g) => g.quality,
        }
    }
}

impl<'g> Generator<'g> {
    /// A generator with default settings.
    pub fn new(game: &'g Game, table: &'g FeedbackTable) -> Generator<'g> {
        Generator {
            game,
            table,
            pool: super::split::row_pool(game),
            settings: Settings::default(),
        }
    }

    /// The best puzzle for `slot`, drawn from the random stream of the day and `attempt`: of
    /// the level asked when one is found within the rounds, else the best of another level;
    /// `None` when no puzzle at all was found. The same arguments give the same puzzle on
    /// every machine.
    pub fn generate(&self, slot: &Slot, seed: u64, attempt: u32) -> Option<Puzzle> {
        let mut rng = ChaCha8Rng::seed_from_u64(attempt_seed(seed, slot.day, attempt));
        let mut fallback: Option<Graded> = None;
        for _ in 0..self.settings.rounds {
            let graded = match slot.kind {
                Kind::Deduction => self.deduction_round(&mut rng, slot.level),
                Kind::BestMove => self.best_move_round(&mut rng, slot.level),
            };
            let mut best: Option<Graded> = None;
            for g in graded {
                let keep =
                    |held: &Option<Graded>| held.as_ref().is_none_or(|h| g.quality() > h.quality());
                if g.level() == slot.level {
                    if keep(&best) {
                        best = Some(g);
                    }
                } else if keep(&fallback) {
                    fallback = Some(g);
                }
            }
            if let Some(best) = best {
                return Some(self.puzzle(slot.day, best));
            }
        }
        fallback.map(|g| self.puzzle(slot.day, g))
    }

    fn deduction_round(&self, rng: &mut ChaCha8Rng, level: Level) -> Vec<Graded> {
        let mut survivors = Vec::new();
        for _ in 0..self.settings.screen {
            if survivors.len() == self.settings.survivors {
                break;
            }
            let answer = rng.gen_range(0..self.game.answers().len() as AnswerId);
            if let Some(draft) =
                deduction::draw(self.game, self.table, rng, &self.pool, answer, level)
            {
                survivors.push(draft);
            }
        }
        survivors
            .iter()
            .filter_map(|d| deduction::grade(self.game, self.table, d))
            .map(Graded::Deduction)
            .collect()
    }

    fn best_move_round(&self, rng: &mut ChaCha8Rng, level: Level) -> Vec<Graded> {
        // The best `survivors` screening scores so far; the earlier draw wins ties, so the
        // choice is the same on every run.
        let mut kept: Vec<(u64, Reverse<usize>, best_move::Position)> = Vec::new();
        for i in 0..self.settings.screen {
            let Some(position) = best_move::draw(self.game, self.table, rng, &self.pool, level)
            else {
                continue;
            };
            let Some(score) = best_move::screen(self.game, self.table, &position, level) else {
                continue;
            };
            kept.push((score, Reverse(i), position));
            if kept.len() > self.settings.survivors {
                if let Some(weakest) = (0..kept.len()).min_by_key(|&k| (kept[k].0, kept[k].1)) {
                    kept.swap_remove(weakest);
                }
            }
        }
        kept.sort_by_key(|k| Reverse((k.0, k.1)));
        let solver = Solver::new(
            self.game,
            self.table,
            SolverConfig::default(),
            self.settings.memo_entries,
        );
        kept.iter()
            .filter_map(|(_, _, position)| best_move::grade(&solver, position, level))
            .map(Graded::BestMove)
            .collect()
    }

    fn puzzle(&self, day: usize, graded: Graded) -> Puzzle {
        let game = self.game;
        let rows = |rows: &[(GuessId, Pattern)]| -> Vec<Row> {
            rows.iter().map(|&(g, p)| Row::new(game, g, p)).collect()
        };
        match graded {
            Graded::Deduction(g) => Puzzle {
                day,
                game: game.name().to_string(),
                kind: Kind::Deduction,
                level: g.level,
                question: deduction::question(g.rows.len()),
                rows: rows(&g.rows),
                solution: game.answer_text(g.answer).to_string(),
                grade: Grade::Deduction(g.grade),
            },
            Graded::BestMove(g) => Puzzle {
                day,
                game: game.name().to_string(),
                kind: Kind::BestMove,
                level: g.level,
                question: best_move::question(g.grade.goal, g.position.candidates.len()),
                rows: rows(&g.position.rows),
                solution: game.guess_text(g.best).to_string(),
                grade: Grade::BestMove(g.grade),
            },
        }
    }
}
