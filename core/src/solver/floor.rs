//! The lean scan behind quick bounds: the best guess bound of a node, without the guesses.
//!
//! A guess's bound at a node of n candidates is 3n − w − k for k distinct patterns of which w
//! (0 or 1) is the win. With c repeats among the patterns read so far, k ≤ n − c, so the bound
//! is at least 2n − 1 + c whatever the remaining answers show (2n + c for a guess that is not a
//! candidate): once that reaches the best bound found, the guess cannot lower it and its scan
//! stops. The candidates are scanned first, because they usually set a tight best bound at
//! once and so every other guess is dropped one repeat sooner. The result is exactly the
//! minimum the full scan computes.

use std::sync::atomic::Ordering;

use super::hard::HardState;
use super::{Mode, Solver, INFEASIBLE};
use crate::game::{AnswerId, GuessId};
use crate::pattern::{Pattern, PATTERNS};

/// Guesses followed at once: their pattern sets stay in L1 and their column bytes are near.
const BLOCK: usize = 256;

/// Sets at least this large are read a guess at a time along the guess-major rows: a row's
/// reads then fill whole cache lines, and the floor drops after every guess.
const ROW_READ_MIN: usize = 64;

/// Answers read between two checks of a guess's repeats in a row-wise scan.
const CHECK_EVERY: usize = 16;

const WIN: u8 = Pattern::ALL_GREEN.0;

/// The state of one lean scan.
struct Lean<'s> {
    set: &'s [AnswerId],
    depth: u32,
    floor: u32,
    seen: Box<[[u64; 4]; BLOCK]>,
    repeats: [u32; BLOCK],
    alive: Vec<u16>,
    pairs: u64,
}

impl Solver<'_> {
    /// The best guess bound of a node with `depth` guesses left (depth ≥ 2, |set| ≥ 3) over the
    /// guesses allowed there (restricted to `inherited` when the parent narrowed them down):
    /// the `floor` of a full scan, reading only the pairs that can still lower it.
    pub(crate) fn floor(
        &self,
        set: &[AnswerId],
        depth: u32,
        hard: &HardState,
        inherited: Option<&[GuessId]>,
    ) -> u32 {
        let allowed = self.scannable(set, hard, inherited);
        self.stats.scans.fetch_add(1, Ordering::Relaxed);
        let mut lean = Lean {
            set,
            depth,
            floor: INFEASIBLE,
            seen: Box::new([[0; 4]; BLOCK]),
            repeats: [0; BLOCK],
            alive: Vec::with_capacity(BLOCK),
            pairs: 0,
        };
        let best_possible = 2 * set.len() as u32 - 1;
        // The candidates allowed here come first: they are among the allowed guesses (every
        // candidate splits any set it belongs to, so the parent kept its shape), and one of
        // them usually comes close to the best.
        let words = self.game.guesses();
        let seeds: Vec<GuessId> = set
            .iter()
            .map(|&a| self.game.answer_as_guess(a))
            .filter(|&g| self.config.mode != Mode::Hard || hard.allows(&words[g as usize]))
            .collect();
        // Every allowed candidate has then been counted: another guess cannot win, so its
        // bound is at least 2n + c and it can be dropped one repeat sooner.
        let passes = [
            (seeds.as_slice(), 2 * set.len() as u32 - 1),
            (&allowed, 2 * set.len() as u32),
        ];
        'passes: for (guesses, base) in passes {
            for block in guesses.chunks(BLOCK) {
                if set.len() >= ROW_READ_MIN {
                    lean.rows(self, block, base);
                } else {
                    lean.block(self, block, base);
                }
                if lean.floor == best_possible {
                    break 'passes;
                }
            }
        }
        self.stats
            .scanned_pairs
            .fetch_add(lean.pairs, Ordering::Relaxed);
        lean.floor
    }
}

impl Lean<'_> {
    /// Follows up to [`BLOCK`] guesses answer by answer, dropping each as soon as it cannot
    /// lower the floor, and lowers it by those that survive. `base` is the bound of a guess
    /// that splits the set perfectly: 2n − 1 when the guesses may be candidates, else 2n.
    fn block(&mut self, solver: &Solver<'_>, guesses: &[GuessId], base: u32) {
        let limit = self.limit(base);
        if limit == 0 {
            return;
        }
        self.alive.clear();
        self.alive.extend(0..guesses.len() as u16);
        self.seen[..guesses.len()].fill([0; 4]);
        self.repeats[..guesses.len()].fill(0);
        for &a in self.set {
            let column = solver.table.column(a);
            self.pairs += self.alive.len() as u64;
            let mut kept = 0;
            for k in 0..self.alive.len() {
                // Branch-free: whether a pattern repeats is a coin toss the predictor loses.
                let at = usize::from(self.alive[k]);
                let p = column[guesses[at] as usize];
                let seen = &mut self.seen[at][usize::from(p >> 6)];
                let repeat = ((*seen >> (p & 63)) & 1) as u32;
                *seen |= 1u64 << (p & 63);
                self.repeats[at] += repeat;
                self.alive[kept] = at as u16;
                kept += usize::from(self.repeats[at] < limit);
            }
            self.alive.truncate(kept);
            if kept == 0 {
                return;
            }
        }
        for k in 0..self.alive.len() {
            let at = usize::from(self.alive[k]);
            let wins = self.seen[at][usize::from(WIN >> 6)] & (1u64 << (WIN & 63)) != 0;
            self.settle(self.set.len() as u32 - self.repeats[at], wins);
        }
    }

    /// The same as [`Lean::block`], a guess at a time along its row, for large sets.
    fn rows(&mut self, solver: &Solver<'_>, guesses: &[GuessId], base: u32) {
        let mut marks = [false; PATTERNS];
        for &guess in guesses {
            let limit = self.limit(base);
            if limit == 0 {
                return;
            }
            let row = solver.table.row(guess);
            let (mut read, mut parts) = (0u32, 0u32);
            for chunk in self.set.chunks(CHECK_EVERY) {
                for &a in chunk {
                    // Branch-free, as in `block`.
                    let mark = &mut marks[usize::from(row[a as usize])];
                    parts += u32::from(!*mark);
                    *mark = true;
                }
                read += chunk.len() as u32;
                if read - parts >= limit {
                    break;
                }
            }
            self.pairs += u64::from(read);
            let wins = marks[usize::from(WIN)];
            marks.fill(false);
            if read == self.set.len() as u32 && read - parts < limit {
                self.settle(parts, wins);
            }
        }
    }

    /// Repeats that make a guess useless: base + c ≥ floor, where `base` is the bound of a
    /// perfect split; with two guesses left any repeat leaves an answer unfound.
    fn limit(&self, base: u32) -> u32 {
        let limit = self.floor.saturating_sub(base);
        if self.depth == 2 {
            limit.min(1)
        } else {
            limit
        }
    }

    /// Lowers the floor by a guess read to the end: `parts` distinct patterns, the winning one
    /// among them when `wins`.
    fn settle(&mut self, parts: u32, wins: bool) {
        let n = self.set.len() as u32;
        let open = parts - u32::from(wins);
        if open == 1 && !wins {
            return; // the guess does not split the set
        }
        let lower = if self.depth == 2 {
            // Every answer must be found by the next guess: only perfect splits work.
            if parts == n {
                2 * n - u32::from(wins)
            } else {
                INFEASIBLE
            }
        } else {
            3 * n - u32::from(wins) - parts
        };
        self.floor = self.floor.min(lower);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Mode, Solver, SolverConfig};
    use super::HardState;
    use crate::game::AnswerId;
    use crate::pattern::Pattern;
    use crate::presets::load_preset;
    use crate::table::FeedbackTable;

    /// The lean scan must give exactly the full scan's floor: a guess dropped too early (a
    /// bound that is not admissible) makes it too high, one not dropped changes nothing.
    #[test]
    fn lean_floor_equals_full_scan_floor() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        let answers = game.answers().len() as u64;
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        for mode in [Mode::Normal, Mode::Hard, Mode::Strict] {
            let config = SolverConfig {
                mode,
                ..SolverConfig::default()
            };
            let solver = Solver::new(&game, &table, config, 1 << 12);
            for case in 0..400 {
                let size = if case % 2 == 0 {
                    64 + next(200)
                } else {
                    3 + next(60)
                } as usize;
                let mut set: Vec<AnswerId> = (0..size).map(|_| next(answers) as AnswerId).collect();
                set.sort_unstable();
                set.dedup();
                if set.len() < 3 {
                    continue;
                }
                let depth = 2 + next(4) as u32;
                let hard = if mode == Mode::Hard && case % 2 == 0 {
                    let word = &game.guesses()[next(game.guesses().len() as u64) as usize];
                    HardState::default().after(word, Pattern(next(243) as u8))
                } else {
                    HardState::default()
                };
                let full = solver.scan(&set, depth, &hard, None, 0).floor;
                let lean = solver.floor(&set, depth, &hard, None);
                assert_eq!(lean, full, "{mode:?} depth {depth} set {set:?}");
            }
        }
    }
}
