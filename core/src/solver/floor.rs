//! The lean scan behind quick bounds: the best guess bound of a node, without the guesses.
//!
//! A guess's bound at a node of n candidates is 3n − w − k for k distinct patterns of which w
//! (0 or 1) is the win. With c repeats among the patterns read so far, k ≤ n − c, so the bound
//! is at least 2n − 1 + c whatever the remaining answers show (2n + c for a guess that is not a
//! candidate): once that reaches the best bound found, the guess cannot lower it and its scan
//! stops. The candidates are scanned first, because they usually set a tight best bound at
//! once and so every other guess is dropped one repeat sooner. The result is exactly the
//! minimum the full scan computes. Below a node that copied its pool's rows (see the `local`
//! module) the pool is read from those short rows instead of the game's table.

use std::borrow::Cow;
use std::sync::atomic::Ordering;

use super::cells::{Cell, CellCaps};
use super::hard::HardState;
use super::hard_pool::guess_of;
use super::local::LocalPatterns;
use super::{Mode, Solver, INFEASIBLE};
use crate::rules::game::{AnswerId, GuessId};
use crate::rules::pattern::{Pattern, PATTERNS};
use crate::rules::table::FeedbackTable;
use crate::rules::word::BOARD;

/// Guesses followed at once: their pattern sets stay in L1 and their column bytes are near.
const BLOCK: usize = 256;

/// Sets at least this large are read a guess at a time along the guess-major rows: a row's
/// reads then fill whole cache lines, and the floor drops after every guess.
pub(crate) const ROW_READ_MIN: usize = 64;

/// Sets at least this large cap each guess by its cells (see `cells`).
const CELL_CAPS_MIN: usize = 16;

/// How far, in percent, the lifts the sets read together could give must exceed what they
/// need before each is asked for only its share (see [`aimed`]): below it, an ask missed by
/// one set means reading the others again.
const AIM_SLACK: u64 = 10;

/// Answers read between two checks of a guess's repeats in a row-wise scan.
const CHECK_EVERY: usize = 8;

const WIN: u8 = Pattern::ALL_GREEN.0;

/// The state of one lean scan.
struct Lean<'s, C> {
    set: &'s [AnswerId],
    /// The set as indices into the node's local patterns, when the pool pass reads them.
    local_set: Option<&'s [u32]>,
    /// The most parts each guess can make on the set by its letters (see `cells`), and the
    /// guesses' words, when worth working out.
    cells: Option<(CellCaps, &'s [[Cell; BOARD]])>,
    /// An upper bound on the parts a guess can split the set into (see
    /// [`FeedbackTable::parts`]): a guess that must repeat too often is dropped unread.
    cap: C,
    depth: u32,
    /// True while the guesses read come in order of their part counts, most first: the
    /// first one too narrow to lower the floor ends the pass.
    widest_first: bool,
    /// A bound the caller holds already: once the floor is down to it, no guess can tell
    /// the caller more, and the scan stops.
    least: u32,
    floor: u32,
    seen: Box<[[u64; 4]; BLOCK]>,
    repeats: [u32; BLOCK],
    alive: Vec<u16>,
    pairs: u64,
}

/// A node's local patterns with a set's local indices into them.
type LocalSet<'s> = (&'s LocalPatterns, &'s [u32]);

/// Where a lean scan reads a pass's rows: the game's table, by guess id and answer id, or a
/// node's local patterns, by pool position and local index.
#[derive(Clone, Copy)]
enum Columns<'s> {
    Table(&'s FeedbackTable),
    /// The local patterns, and the row of each guess read.
    Local(&'s LocalPatterns, &'s [u32]),
}

impl Solver<'_> {
    /// The best guess bound of a node with `depth` guesses left (depth ≥ 2, |set| ≥ 3) over the
    /// guesses allowed there (restricted to `inherited` when the parent narrowed them down):
    /// the `floor` of a full scan, reading only the pairs that can still lower it.
    /// `parts[i]`, when given, is how many parts `inherited[i]` split the parent into, and so
    /// the most it can split this subset into.
    ///
    /// A floor at or above `ceiling` comes back as `ceiling` (still a lower bound; or as 2n − 1
    /// when the ceiling is below it, where no guess goes): a caller
    /// that only needs to know whether the floor reaches a budget then drops every guess that
    /// cannot go below it from the first answers on, instead of after the best guess is found.
    pub(crate) fn floor(
        &self,
        set: &[AnswerId],
        (depth, ceiling): (u32, u32),
        hard: &HardState,
        inherited: Option<&[GuessId]>,
        parts: Option<&[u8]>,
    ) -> u32 {
        self.floor_with(set, (depth, 0, ceiling), hard, (inherited, parts, None))
    }

    /// [`Solver::floor`] reading the pool from `local`, the node's local patterns of
    /// `inherited`, when given: the same floor, read faster. A floor at or below `least`, a
    /// bound the caller holds already, comes back as `least`: the scan stops as soon as a
    /// guess reaches it.
    pub(crate) fn floor_with(
        &self,
        set: &[AnswerId],
        (depth, least, ceiling): (u32, u32, u32),
        hard: &HardState,
        (inherited, parts, local): (Option<&[GuessId]>, Option<&[u8]>, Option<&LocalPatterns>),
    ) -> u32 {
        let parts = self.usable_part_counts(inherited, parts);
        let local_set = local
            .filter(|_| self.reads_locally(inherited))
            .and_then(|local| Some((local, local.localize(set)?)));
        let local = local_set
            .as_ref()
            .map(|(local, set)| (*local, set.as_slice()));
        self.floor_capped(
            set,
            (depth, hard, least, ceiling),
            (inherited, parts, local),
            |g| self.table.parts(g),
        )
    }

    /// [`Solver::floor`] with `cap(g)` as the most parts guess `g` can make; a separate
    /// function so that a test can put an inadmissible cap in and see the floor go wrong.
    fn floor_capped(
        &self,
        set: &[AnswerId],
        (depth, hard, least, ceiling): (u32, &HardState, u32, u32),
        (inherited, parts, local): (Option<&[GuessId]>, Option<&[u8]>, Option<LocalSet<'_>>),
        cap: impl Fn(GuessId) -> u32,
    ) -> u32 {
        self.stats.scans.fetch_add(1, Ordering::Relaxed);
        let mut lean = Lean::new(set, cap, depth, (least, ceiling));
        lean.cells = self.cell_caps(set);
        // The pool pass reads the local patterns, each guess at its row (its pool position,
        // or in hard mode its class), or the table by guess id.
        let table = Columns::Table(self.table);
        let mut parts = parts;
        let (allowed, rows): (Cow<'_, [GuessId]>, Cow<'_, [u32]>) = match (local, inherited) {
            (Some((local, local_set)), Some(pool)) => {
                lean.local_set = Some(local_set);
                match (self.config.mode, local.widest_first()) {
                    (Mode::Hard, _) => {
                        let (guesses, classes) = self.hard_pool_classes(hard, pool);
                        (Cow::Owned(guesses), Cow::Owned(classes))
                    }
                    // The rows in order of the parts their guesses make over the node.
                    (_, Some((guesses, counts))) => {
                        parts = Some(counts);
                        lean.widest_first = true;
                        (Cow::Borrowed(guesses), Cow::Borrowed(local.positions()))
                    }
                    _ => (Cow::Borrowed(pool), Cow::Borrowed(local.positions())),
                }
            }
            _ => (self.scannable(set, hard, inherited), Cow::Borrowed(&[][..])),
        };
        let pool_columns = match local {
            Some((local, _)) => Columns::Local(local, &rows),
            None => table,
        };
        let best_possible = lean.least;
        // The candidates allowed here come first: they are among the allowed guesses (every
        // candidate splits any set it belongs to, so the parent kept its shape), and one of
        // them usually comes close to the best. Below a node with local rows, the rows of the
        // candidates it holds are read there: the table's patterns, on a few nearby lines
        // instead of one line a pair.
        let local = local.filter(|_| lean.local_set.is_some());
        let (near, near_rows, seeds) = self.seeds(set, hard, local);
        let near_columns = match local {
            Some((local, _)) => Columns::Local(local, &near_rows),
            None => table,
        };
        // Every allowed candidate has then been counted: another guess cannot win, so its
        // bound is at least 2n + c and it can be dropped one repeat sooner. Only the pool's
        // rows may come widest first.
        let n = set.len() as u32;
        let widest = std::mem::take(&mut lean.widest_first);
        let passes = [
            (near_columns, near.as_slice(), None, 2 * n - 1, false),
            (table, seeds.as_slice(), None, 2 * n - 1, false),
            (pool_columns, &*allowed, parts, 2 * n, widest),
        ];
        'passes: for (columns, guesses, parts, base, widest) in passes {
            lean.widest_first = widest;
            // A node's local rows are short: every set reads them a guess at a time.
            if let Columns::Local(..) = columns {
                lean.rows(columns, guesses, parts, base);
                continue;
            }
            for (at, block) in (0..).step_by(BLOCK).zip(guesses.chunks(BLOCK)) {
                let parts = parts.map(|p: &[u8]| &p[at..at + block.len()]);
                if set.len() >= ROW_READ_MIN {
                    lean.rows(columns, block, parts, base);
                } else {
                    lean.block(self.table, block, parts, base);
                }
                if lean.floor <= best_possible {
                    break 'passes;
                }
            }
        }
        self.stats
            .scanned_pairs
            .fetch_add(lean.pairs, Ordering::Relaxed);
        lean.floor()
    }
}

impl Solver<'_> {
    /// [`Solver::floor_with`] of several sets of at least [`ROW_READ_MIN`] answers at once,
    /// each with its own bound held, ceiling and hard-mode state.
    ///
    /// Reading a large set along a guess's row is bound by memory, not arithmetic: it pulls
    /// most of the row's cache lines in to use a few bytes of each. The parts of one split
    /// are disjoint subsets of the same answers, so they use the same rows: reading each row
    /// once for all of them divides that traffic by about the number of parts. Without
    /// `need`, each floor is exactly the one its set gets alone, flagged `false`.
    ///
    /// With `need`, the floors only have to lift the sets' bounds held by that much in all
    /// (the caller's cutoff): once each set's candidates are read, the lift each can give is
    /// known from above (its best candidate's bound), and when those lifts add up to well
    /// over `need` each set is read only up to its share of it (see [`aimed`]). A set asked
    /// for a share comes back as the least of its floor and its ask, flagged `true` when it
    /// reached the ask (its floor may be higher); every floor is a lower bound either way.
    pub(crate) fn floors_together(
        &self,
        sets: &[(&[AnswerId], (u32, u32), HardState)],
        depth: u32,
        (inherited, parts): (Option<&[GuessId]>, Option<&[u8]>),
        need: Option<u32>,
    ) -> Vec<(u32, bool)> {
        let parts = self.usable_part_counts(inherited, parts);
        self.stats
            .scans
            .fetch_add(sets.len() as u64, Ordering::Relaxed);
        let cap = |g| self.table.parts(g);
        let mut leans: Vec<Lean<'_, _>> = sets
            .iter()
            .map(|&(set, span, _)| Lean {
                cells: self.cell_caps(set),
                ..Lean::new(set, &cap, depth, span)
            })
            .collect();
        // Each set's own candidates first, set by set: they are few, and differ between sets.
        for (lean, (set, _, hard)) in leans.iter_mut().zip(sets) {
            let seeds = self.allowed_candidates(set, hard);
            lean.rows(
                Columns::Table(self.table),
                &seeds,
                None,
                2 * set.len() as u32 - 1,
            );
        }
        // Each set's ask, when it has one: its bound held lifted by its share.
        let mut aims = vec![None; sets.len()];
        if let Some(need) = need {
            let lifts: Vec<u32> = leans.iter().map(Lean::lift).collect();
            for ((lean, aim), share) in leans.iter_mut().zip(&mut aims).zip(aimed(&lifts, need)) {
                *aim = share.map(|share| lean.least + share);
                lean.floor = lean.floor.min(aim.unwrap_or(INFEASIBLE));
            }
        }
        // What each set allows is a subsequence of the inherited list (or of every guess):
        // walk that list once, and let each set read the rows it allows.
        let allowed: Vec<_> = sets
            .iter()
            .map(|(set, _, hard)| self.scannable(set, hard, inherited))
            .collect();
        let mut next = vec![0usize; sets.len()];
        let mut open: Vec<usize> = (0..leans.len()).collect();
        let order = inherited.unwrap_or(&self.every_guess);
        for (at, &entry) in order.iter().enumerate() {
            let guess = guess_of(entry);
            let row = self.table.row(guess);
            let within = parts.map(|p| p[at]);
            open.retain(|&i| {
                if allowed[i].get(next[i]) != Some(&guess) {
                    return true;
                }
                next[i] += 1;
                let lean = &mut leans[i];
                let base = 2 * lean.set.len() as u32;
                lean.read_row(row, false, (guess, within), base)
            });
            if open.is_empty() {
                break;
            }
        }
        let pairs = leans.iter().map(|lean| lean.pairs).sum();
        self.stats.scanned_pairs.fetch_add(pairs, Ordering::Relaxed);
        leans
            .iter()
            .zip(aims)
            .map(|(lean, aim)| (lean.floor(), aim.is_some_and(|aim| lean.floor() >= aim)))
            .collect()
    }
}

impl Solver<'_> {
    /// The cell caps of `set` for a lean scan, for sets large enough to repay working them out.
    fn cell_caps(&self, set: &[AnswerId]) -> Option<(CellCaps, &[[Cell; BOARD]])> {
        (self.cell_caps && set.len() >= CELL_CAPS_MIN)
            .then(|| (CellCaps::of(self.game, set), self.cells_of.as_slice()))
    }

    /// The candidates of `set` that may be guessed there, which every lean scan reads first:
    /// those whose rows `local` holds, with their rows, and the others.
    fn seeds(
        &self,
        set: &[AnswerId],
        hard: &HardState,
        local: Option<LocalSet<'_>>,
    ) -> (Vec<GuessId>, Vec<u32>, Vec<GuessId>) {
        let Some((local, local_set)) = local else {
            return (Vec::new(), Vec::new(), self.allowed_candidates(set, hard));
        };
        let (mut near, mut rows, mut far) = (Vec::new(), Vec::new(), Vec::new());
        for (&a, &index) in set.iter().zip(local_set) {
            let guess = self.game.answer_as_guess(a);
            if !self.allowed_here(guess, hard) {
                continue;
            }
            match local.candidate_row(index) {
                Some(row) => {
                    near.push(guess);
                    rows.push(row);
                }
                None => far.push(guess),
            }
        }
        (near, rows, far)
    }

    /// The candidates of `set` that may be guessed there: every lean scan reads them first.
    fn allowed_candidates(&self, set: &[AnswerId], hard: &HardState) -> Vec<GuessId> {
        set.iter()
            .map(|&a| self.game.answer_as_guess(a))
            .filter(|&g| self.allowed_here(g, hard))
            .collect()
    }

    /// True when `guess` may be played here: always in normal mode, in hard mode when the
    /// clues so far allow it.
    fn allowed_here(&self, guess: GuessId, hard: &HardState) -> bool {
        self.config.mode != Mode::Hard || hard.allows(&self.game.guesses()[guess as usize])
    }

    /// True when a node's local patterns of `inherited` can stand in for the table: in
    /// normal mode a pool's guesses are its rows; in hard mode a classed pool's classes are.
    fn reads_locally(&self, inherited: Option<&[GuessId]>) -> bool {
        match self.config.mode {
            Mode::Normal => inherited.is_some(),
            Mode::Hard => inherited.is_some_and(|pool| {
                pool.first()
                    .is_some_and(|&entry| super::hard_pool::class_of(entry).is_some())
            }),
            Mode::Strict => false,
        }
    }

    /// The parent's part counts when they line up with `inherited`: hard mode filters the
    /// inherited list, so their positions would not match.
    fn usable_part_counts<'p>(
        &self,
        inherited: Option<&[GuessId]>,
        parts: Option<&'p [u8]>,
    ) -> Option<&'p [u8]> {
        parts.filter(|p| {
            self.config.mode == Mode::Normal && inherited.is_some_and(|i| i.len() == p.len())
        })
    }
}

/// How much each set read together is asked to lift its bound held by, given `lifts`, the
/// most each can (its best candidate's bound over its bound held: at least what its floor
/// gives), when together they must lift `need`; `None` for a set read up to its ceiling.
///
/// When the lifts add up to more than [`AIM_SLACK`] percent over `need`, each set is asked
/// for its share of `need`, in proportion to its lift (rounded up, so the asks add up to at
/// least `need`). A set asked for less than its floor gives is read only until no guess can
/// go below its ask, which drops every guess that splits it too narrowly for that from the
/// first answers on: when every set reaches its ask, `need` is met and no floor needed
/// reading to the end. Shares in proportion did better than asking the sets with the most
/// lift by size in full (greedy) or every set for its lift less the same amount.
fn aimed(lifts: &[u32], need: u32) -> Vec<Option<u32>> {
    let total: u64 = lifts.iter().map(|&l| u64::from(l)).sum();
    let need = u64::from(need);
    if lifts.len() < 2 || total * 100 <= need * (100 + AIM_SLACK) {
        return vec![None; lifts.len()];
    }
    lifts
        .iter()
        .map(|&lift| {
            let share = (u64::from(lift) * need).div_ceil(total);
            (share < u64::from(lift)).then_some(share as u32)
        })
        .collect()
}

impl<'s, C: Fn(GuessId) -> u32> Lean<'s, C> {
    /// A scan of `set` that reports floors at or above `ceiling` as `ceiling`, and floors
    /// at or below `least` as `least`.
    fn new(set: &'s [AnswerId], cap: C, depth: u32, (least, ceiling): (u32, u32)) -> Self {
        let n = set.len() as u32;
        Lean {
            set,
            local_set: None,
            cells: None,
            cap,
            depth,
            widest_first: false,
            // Every guess costs at least 2n − 1: a scan finds none lower.
            least: least.max(2 * n - 1),
            floor: ceiling.min(INFEASIBLE),
            seen: Box::new([[0; 4]; BLOCK]),
            repeats: [0; BLOCK],
            alive: Vec::with_capacity(BLOCK),
            pairs: 0,
        }
    }

    /// Follows up to [`BLOCK`] guesses answer by answer, dropping each as soon as it cannot
    /// lower the floor, and lowers it by those that survive. `base` is the bound of a guess
    /// that splits the set perfectly: 2n − 1 when the guesses may be candidates, else 2n.
    fn block(
        &mut self,
        table: &FeedbackTable,
        guesses: &[GuessId],
        parts: Option<&[u8]>,
        base: u32,
    ) {
        let limit = self.limit(base);
        if limit == 0 {
            return;
        }
        let mut alive = std::mem::take(&mut self.alive);
        alive.clear();
        alive.extend(
            (0..guesses.len() as u16).filter(|&at| self.may_lower(guesses, parts, at, limit)),
        );
        self.alive = alive;
        if self.alive.is_empty() {
            return;
        }
        self.seen[..guesses.len()].fill([0; 4]);
        self.repeats[..guesses.len()].fill(0);
        // Locals, so the loop keeps its pointers in registers.
        let (seen, repeats, alive) = (&mut *self.seen, &mut self.repeats, &mut self.alive);
        for &a in self.set {
            let column = table.column(a);
            self.pairs += alive.len() as u64;
            let mut kept = 0;
            for k in 0..alive.len() {
                // Branch-free: whether a pattern repeats is a coin toss the predictor loses.
                // `at` is below BLOCK, a power of two: the mask lets the bound checks go.
                let at = usize::from(alive[k]) & (BLOCK - 1);
                let p = column[guesses[at] as usize];
                let word = &mut seen[at][usize::from(p >> 6)];
                let bit = 1u64 << (p & 63);
                let count = repeats[at] + u32::from(*word & bit != 0);
                *word |= bit;
                repeats[at] = count;
                alive[kept] = at as u16;
                kept += usize::from(count < limit);
            }
            alive.truncate(kept);
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
    fn rows(&mut self, columns: Columns<'_>, guesses: &[GuessId], parts: Option<&[u8]>, base: u32) {
        for (at, &guess) in guesses.iter().enumerate() {
            let within = parts.map(|p| p[at]);
            let (row, local) = match columns {
                Columns::Table(table) => (table.row(guess), false),
                Columns::Local(local, rows) => (local.row(rows[at] as usize), true),
            };
            if !self.read_row(row, local, (guess, within), base) {
                return;
            }
        }
    }

    /// Reads one guess's row (the guess making at most `within` parts when given) and lowers
    /// the floor by it unless it is dropped; false once no guess can lower the floor.
    /// `local` says the row is a node's local one, indexed by the local set.
    fn read_row(
        &mut self,
        row: &[u8],
        local: bool,
        (guess, within): (GuessId, Option<u8>),
        base: u32,
    ) -> bool {
        let limit = self.limit(base);
        if limit == 0 {
            return false;
        }
        if self.widest_first && within.is_some_and(|parts| self.too_few(u32::from(parts), limit)) {
            // Every later guess of a widest-first pass makes no more parts.
            return false;
        }
        if !self.may_lower_by(guess, within, limit) {
            return true;
        }
        let mut marks = [false; PATTERNS];
        let (mut read, mut parts) = (0u32, 0u32);
        let set = match self.local_set {
            Some(local_set) if local => local_set,
            _ => self.set,
        };
        for chunk in set.chunks(CHECK_EVERY) {
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
        if read == self.set.len() as u32 && read - parts < limit {
            self.settle(parts, marks[usize::from(WIN)]);
        }
        true
    }

    /// False when the guess at `at` cannot make enough parts to stay below `limit` repeats:
    /// a guess making at most `cap` parts repeats at least n − cap patterns, where the cap
    /// is the guess's most parts over all answers and, when given, over the parent.
    fn may_lower(&self, guesses: &[GuessId], parts: Option<&[u8]>, at: u16, limit: u32) -> bool {
        let at = usize::from(at);
        self.may_lower_by(guesses[at], parts.map(|p| p[at]), limit)
    }

    // Inlined into the row loops: it runs once a guess row, and the call cost 5 % of a
    // ranking's CPU (8 openers 0.955x, hard 0.949x, 3 pairs each).
    #[inline(always)]
    fn may_lower_by(&self, guess: GuessId, within: Option<u8>, limit: u32) -> bool {
        // A guess's parts over the parent are never more than over all answers.
        let cap = within.map_or_else(|| (self.cap)(guess), u32::from);
        if self.too_few(cap, limit) {
            return false;
        }
        // At most n − limit parts leave at least `limit` repeats.
        let n = self.set.len() as u32;
        match &self.cells {
            Some((cells, words)) if limit <= n => {
                let (word, most) = (&words[guess as usize], n - limit);
                !cells.at_most(word, most)
            }
            _ => true,
        }
    }

    /// True when a guess making at most `cap` parts repeats at least `limit` patterns.
    fn too_few(&self, cap: u32, limit: u32) -> bool {
        (self.set.len() as u32).saturating_sub(cap) >= limit
    }

    /// How far the floor found so far is above the bound held.
    fn lift(&self) -> u32 {
        self.floor.saturating_sub(self.least)
    }

    /// The floor found, or `least` when it is lower.
    fn floor(&self) -> u32 {
        self.floor.max(self.least)
    }

    /// Repeats that make a guess useless: base + c ≥ floor, where `base` is the bound of a
    /// perfect split; with two guesses left any repeat leaves an answer unfound. None once
    /// the floor is down to the bound the caller holds.
    fn limit(&self, base: u32) -> u32 {
        if self.floor <= self.least {
            return 0;
        }
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
    use super::{Lean, LocalPatterns, ROW_READ_MIN};
    use crate::rules::game::{AnswerId, Game, GuessId};
    use crate::rules::pattern::Pattern;
    use crate::rules::presets::load_preset;
    use crate::rules::table::FeedbackTable;
    use crate::solver::INFEASIBLE;

    /// A lean-scan case: a mode, a set, the guesses left and the hard-mode state.
    type Case = (Mode, Vec<AnswerId>, u32, HardState);

    /// 400 random sets per mode, half of them of 64–263 answers (read row-wise), half of
    /// 3–62, at 2–5 guesses left, in hard mode half of them under a random clue; and the
    /// whole answer list in every mode, where every guess makes exactly its most parts.
    fn cases(game: &Game) -> Vec<Case> {
        let answers = game.answers().len() as u64;
        let mut next = crate::solver::test_rng(0x9E37_79B9_7F4A_7C15u64);
        let mut cases = Vec::new();
        for mode in [Mode::Normal, Mode::Hard, Mode::Strict] {
            for depth in 2..=5 {
                let all = (0..answers as AnswerId).collect();
                cases.push((mode, all, depth, HardState::default()));
            }
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
                cases.push((mode, set, depth, hard));
            }
        }
        cases
    }

    fn solver<'g>(game: &'g Game, table: &'g FeedbackTable, mode: Mode) -> Solver<'g> {
        let config = SolverConfig {
            mode,
            ..SolverConfig::default()
        };
        Solver::new(game, table, config, 1 << 12)
    }

    /// The lean scan must give exactly the full scan's floor: a guess dropped too early (a
    /// bound that is not admissible) makes it too high, one not dropped changes nothing.
    #[test]
    fn lean_floor_equals_full_scan_floor() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        for (mode, set, depth, hard) in cases(&game) {
            let solver = solver(&game, &table, mode);
            let full = solver.scan(&set, depth, &hard, None, 0).floor;
            let lean = solver.floor(&set, (depth, INFEASIBLE), &hard, None, None);
            assert_eq!(lean, full, "{mode:?} depth {depth} set {set:?}");
            // Under a ceiling: the floor when it is below, else the ceiling itself (or 2n − 1,
            // below which no guess goes).
            let n = set.len() as u32;
            for ceiling in [full.saturating_sub(1), full, full.saturating_add(1)] {
                let capped = solver.floor(&set, (depth, ceiling), &hard, None, None);
                assert_eq!(
                    capped,
                    full.min(ceiling).max(2 * n - 1),
                    "{mode:?} ceiling {ceiling} set {set:?}"
                );
            }
            // Above a bound already held: the floor when it is above, else that bound.
            for least in [full.saturating_sub(1), full, full.saturating_add(1)] {
                let at = (depth, least, INFEASIBLE);
                let floor = solver.floor_with(&set, at, &hard, (None, None, None));
                assert_eq!(floor, full.max(least), "{mode:?} least {least} set {set:?}");
            }
        }
    }

    /// Lean floors of the parts of random sets, capped by how many parts each guess made in
    /// the parent's scan, against full scans of the same parts over the parent's guesses; and
    /// with every parent count one too small (not admissible), floors that come out too high.
    #[test]
    fn parent_part_counts_cap_children_exactly() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        let solver = solver(&game, &table, Mode::Normal);
        let (mut children, mut wrong) = (0, 0);
        for (mode, parent, depth, hard) in cases(&game) {
            if mode != Mode::Normal || depth < 3 {
                continue;
            }
            let scan = solver.scan(&parent, depth, &hard, None, 0);
            let too_small: Vec<u8> = scan.pool_parts.iter().map(|p| p - 1).collect();
            for &guess in scan.pool.iter().step_by(97) {
                for (_, child) in solver.split(&parent, guess) {
                    if child.len() < 3 {
                        continue;
                    }
                    let pool = Some(scan.pool.as_slice());
                    let full = solver.scan(&child, depth - 1, &hard, pool, 0).floor;
                    let lean = solver.floor(
                        &child,
                        (depth - 1, INFEASIBLE),
                        &hard,
                        pool,
                        Some(&scan.pool_parts),
                    );
                    assert_eq!(lean, full, "depth {} child {child:?}", depth - 1);
                    let strong = solver.floor(
                        &child,
                        (depth - 1, INFEASIBLE),
                        &hard,
                        pool,
                        Some(&too_small),
                    );
                    assert!(strong >= full);
                    wrong += usize::from(strong > full);
                    children += 1;
                }
            }
        }
        assert!(children > 1000, "only {children} children");
        assert!(wrong > 0, "parent counts one too small went unnoticed");
    }

    /// Floors read together, each under its own ceiling (and in hard mode its own clues),
    /// with and without the pool and part counts of a scan of every answer, equal the floors
    /// read one set at a time.
    #[test]
    fn floors_read_together_equal_floors_read_alone() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        let all: Vec<AnswerId> = (0..game.answers().len() as AnswerId).collect();
        let mut checked = 0;
        for mode in [Mode::Normal, Mode::Hard] {
            let solver = solver(&game, &table, mode);
            let top = solver.scan(&all, 5, &HardState::default(), None, 0);
            let big: Vec<Case> = cases(&game)
                .into_iter()
                .filter(|(m, set, _, _)| *m == mode && set.len() >= ROW_READ_MIN)
                .collect();
            for group in big.chunks(3) {
                let depth = group[0].2;
                for (pool, parts) in [(None, None), (Some(&top.pool), Some(&top.pool_parts))] {
                    let (pool, parts) = (pool.map(Vec::as_slice), parts.map(Vec::as_slice));
                    let alone: Vec<u32> = group
                        .iter()
                        .map(|(_, set, _, hard)| {
                            solver.floor(set, (depth, INFEASIBLE), hard, pool, parts)
                        })
                        .collect();
                    // No ceiling, one at the floor, one just below it.
                    let ceilings: Vec<u32> = (0..)
                        .zip(&alone)
                        .map(|(i, &floor)| [INFEASIBLE, floor, floor.saturating_sub(1)][i % 3])
                        .collect();
                    let sets: Vec<(&[AnswerId], (u32, u32), HardState)> = group
                        .iter()
                        .zip(&ceilings)
                        .map(|((_, set, _, hard), &ceiling)| {
                            (set.as_slice(), (0, ceiling), hard.clone())
                        })
                        .collect();
                    let together: Vec<u32> = solver
                        .floors_together(&sets, depth, (pool, parts), None)
                        .into_iter()
                        .map(|(floor, aimed)| {
                            assert!(!aimed);
                            floor
                        })
                        .collect();
                    let expected: Vec<u32> = alone
                        .iter()
                        .zip(&ceilings)
                        .map(|(f, c)| *f.min(c))
                        .collect();
                    assert_eq!(together, expected, "{mode:?} depth {depth} sets {group:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 200, "only {checked} groups");
    }

    /// Floors read together towards a need: every floor is a lower bound on the set's own
    /// floor; one that reached its ask is flagged and comes back as the ask, one that did not
    /// is exact; and when every set reaches its ask, the asks meet the need. Run over the big
    /// parts of some first guesses' splits, at every need from one to all they can lift. Some
    /// asks equal the floor exactly, so an ask reported one higher is caught.
    #[test]
    fn floors_read_towards_a_need_are_bounds_that_meet_it() {
        let (mut aimed, mut tight, mut met) = (0, 0, 0);
        // Wordle's big parts often have their best guess among the non-candidates.
        for (name, mode, step) in [
            ("pokemon-qiita2023", Mode::Normal, 53),
            ("pokemon-qiita2023", Mode::Hard, 53),
            ("wordle", Mode::Normal, 2999),
        ] {
            let game = load_preset(name).expect("preset");
            let table = FeedbackTable::build(&game);
            let all: Vec<AnswerId> = (0..game.answers().len() as AnswerId).collect();
            let solver = solver(&game, &table, mode);
            let top = solver.scan(&all, 5, &HardState::default(), None, 0);
            for &guess in top.pool.iter().step_by(step) {
                let guess = super::guess_of(guess);
                let word = &game.guesses()[guess as usize];
                let parts: Vec<(Vec<AnswerId>, HardState)> = solver
                    .split(&all, guess)
                    .into_iter()
                    .filter(|(_, part)| part.len() >= ROW_READ_MIN)
                    .map(|(pattern, part)| {
                        (
                            part,
                            solver.child_hard(&HardState::default(), word, pattern),
                        )
                    })
                    .collect();
                if parts.len() < 2 {
                    continue;
                }
                let alone: Vec<u32> = parts
                    .iter()
                    .map(|(set, hard)| solver.floor(set, (4, INFEASIBLE), hard, None, None))
                    .collect();
                // Bounds held as the search holds them (2n − 1), or a little below the floor,
                // where asks often come out at the floor itself.
                let held: Vec<u32> = parts
                    .iter()
                    .zip(&alone)
                    .enumerate()
                    .map(|(i, ((p, _), &own))| {
                        let least = 2 * p.len() as u32 - 1;
                        match guess % 2 {
                            0 => least,
                            _ => own
                                .min(INFEASIBLE - 1)
                                .saturating_sub(1 + i as u32 % 4)
                                .max(least),
                        }
                    })
                    .collect();
                let lift: u32 = alone
                    .iter()
                    .zip(&held)
                    .map(|(f, h)| f.min(&INFEASIBLE) - h)
                    .sum();
                let sets: Vec<(&[AnswerId], (u32, u32), HardState)> = parts
                    .iter()
                    .zip(&held)
                    .map(|((set, hard), &held)| (set.as_slice(), (held, INFEASIBLE), hard.clone()))
                    .collect();
                // What each set's candidates alone lift it by: the floors' asks are shares of
                // these. Needs that make a set's share exactly its own lift, where its best
                // guess is no candidate, test the asks at the floor.
                let seeds: Vec<u32> = parts
                    .iter()
                    .zip(&held)
                    .map(|((set, hard), &held)| {
                        let candidates = solver.allowed_candidates(set, hard);
                        let seed =
                            solver.floor(set, (4, INFEASIBLE), hard, Some(&candidates), None);
                        seed.min(INFEASIBLE).saturating_sub(held)
                    })
                    .collect();
                let total: u32 = seeds.iter().sum();
                let exact =
                    seeds
                        .iter()
                        .zip(&alone)
                        .zip(&held)
                        .filter_map(|((&seed, &own), &held)| {
                            let own = own.min(INFEASIBLE) - held;
                            (own < seed).then(|| {
                                (u64::from(own) * u64::from(total) / u64::from(seed)) as u32
                            })
                        });
                let needs: Vec<u32> = (1..=lift.min(400))
                    .step_by(1 + lift as usize / (4000 / step))
                    .chain(exact)
                    .collect();
                for need in needs {
                    let floors = solver.floors_together(&sets, 4, (None, None), Some(need));
                    let mut lifted = 0;
                    let mut all_reached = true;
                    for ((&(floor, reached), &own), &held) in floors.iter().zip(&alone).zip(&held) {
                        assert!(floor <= own, "{mode:?} need {need}: {floor} above {own}");
                        if reached {
                            aimed += 1;
                            tight += usize::from(floor == own);
                        } else {
                            assert_eq!(floor, own, "{mode:?} need {need}");
                            all_reached = false;
                        }
                        lifted += floor.min(INFEASIBLE) - held;
                    }
                    if all_reached {
                        assert!(lifted >= need, "{mode:?} asks {lifted} short of {need}");
                        met += 1;
                    }
                }
            }
        }
        assert!(aimed > 100 && met > 20, "only {aimed} asks, {met} met");
        assert!(
            tight > 0,
            "no ask at the floor of {aimed}, {met} met: one too high would go unseen"
        );
    }

    /// Floors read from a node's local patterns equal the floors read from the table, for
    /// the parts of random guesses' splits of random parents: in normal
    /// mode (rows by pool position) and in hard mode (rows by class, each part under its own
    /// clues, the parent under a random clue half of the time).
    #[test]
    fn floors_read_locally_equal_floors_read_from_the_table() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        let mut checked = [0, 0];
        for (mode, parent, depth, hard) in cases(&game)
            .into_iter()
            .filter(|(m, set, d, _)| *m != Mode::Strict && set.len() >= 32 && *d >= 3)
        {
            let solver = solver(&game, &table, mode);
            let scan = solver.scan(&parent, depth, &hard, None, INFEASIBLE);
            let parts = (mode == Mode::Normal).then_some(scan.pool_parts.as_slice());
            let local = LocalPatterns::build(&table, &parent, &scan.pool, parts).expect("small");
            let pool = (Some(scan.pool.as_slice()), parts);
            for &entry in scan.pool.iter().step_by(211) {
                let guess = super::guess_of(entry);
                let word = &game.guesses()[guess as usize];
                let children: Vec<(Vec<AnswerId>, HardState)> = solver
                    .split(&parent, guess)
                    .into_iter()
                    .filter(|(_, part)| part.len() >= 3)
                    .map(|(pattern, part)| (part, solver.child_hard(&hard, word, pattern)))
                    .collect();
                for (part, child_hard) in &children {
                    for ceiling in [INFEASIBLE, 2 * part.len() as u32 + 1] {
                        let at = (depth - 1, ceiling);
                        let from_table = solver.floor(part, at, child_hard, pool.0, pool.1);
                        let at = (at.0, 0, at.1);
                        let local_floor =
                            solver.floor_with(part, at, child_hard, (pool.0, pool.1, Some(&local)));
                        assert_eq!(local_floor, from_table, "{mode:?} part {part:?}");
                        checked[usize::from(mode == Mode::Hard)] += 1;
                    }
                }
            }
        }
        assert!(
            checked[0] > 200 && checked[1] > 200,
            "only {checked:?} floors"
        );
    }

    /// The lean floor of `set` over `guesses` alone, starting from `start`, with `cap` as
    /// the part cap and `base` as the bound of a perfect split.
    fn lean_floor(
        solver: &Solver<'_>,
        set: &[AnswerId],
        guesses: &[GuessId],
        (start, base): (u32, u32),
        cap: impl Fn(GuessId) -> u32,
    ) -> u32 {
        let mut lean = Lean::new(set, cap, 4, (0, start));
        if set.len() >= ROW_READ_MIN {
            lean.rows(super::Columns::Table(solver.table), guesses, None, base);
        } else {
            lean.block(solver.table, guesses, None, base);
        }
        lean.floor
    }

    /// A widest-first pass ends at the first guess whose part count over the parent leaves
    /// it too many repeats, and not one guess sooner. On sets where a guess that is not a
    /// candidate makes exactly its parent's count of parts (one answer per pattern it shows,
    /// its win left out), with the floor one above its bound 2n, the guess lowers the floor:
    /// a stop at the first guess that needs every part it may make would keep it one too
    /// high. A narrower guess read first ends the pass before it.
    #[test]
    fn a_widest_first_pass_stops_at_the_first_guess_too_narrow() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        let solver = solver(&game, &table, Mode::Normal);
        let mut checked = 0;
        for g in (0..game.guesses().len() as GuessId).step_by(7) {
            let mut first_of = [None; 243];
            for (a, &p) in table.row(g).iter().enumerate() {
                first_of[usize::from(p)].get_or_insert(a as AnswerId);
            }
            first_of[usize::from(Pattern::ALL_GREEN.0)] = None;
            let set: Vec<AnswerId> = first_of.iter().flatten().copied().collect();
            let n = set.len() as u32;
            if n < 3 {
                continue;
            }
            // The parent's counts: g makes all n parts, the guess after it one fewer.
            let narrower = (g + 1) % game.guesses().len() as GuessId;
            let counts = [n as u8, (n - 1) as u8];
            let mut lean = Lean::new(&set, |h| table.parts(h), 4, (0, 2 * n + 1));
            lean.widest_first = true;
            let columns = super::Columns::Table(solver.table);
            lean.rows(columns, &[g, narrower], Some(&counts), 2 * n);
            assert_eq!(lean.floor, 2 * n, "guess {g} over {set:?}");
            let mut lean = Lean::new(&set, |h| table.parts(h), 4, (0, 2 * n + 1));
            lean.widest_first = true;
            let (reversed, counts) = ([narrower, g], [counts[1], counts[0]]);
            lean.rows(columns, &reversed, Some(&counts), 2 * n);
            assert_eq!(lean.floor, 2 * n + 1, "guess {g} read after a narrower one");
            checked += 1;
        }
        assert!(checked > 20, "only {checked} cases");
    }

    /// The part cap drops a guess unread when it cannot lower the floor. On sets where a
    /// guess makes exactly its most parts (one answer per pattern it shows, and the whole
    /// list), with the floor one above its bound, the true cap lets it lower the floor and a
    /// cap one part too small (not admissible) drops it.
    #[test]
    fn the_part_cap_is_tight() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        let solver = solver(&game, &table, Mode::Normal);
        let free = HardState::default();
        let mut checked = 0;
        for g in (0..game.guesses().len() as GuessId).step_by(37) {
            let row = table.row(g);
            let mut first_of = [None; 243];
            for (a, &p) in row.iter().enumerate() {
                first_of[usize::from(p)].get_or_insert(a as AnswerId);
            }
            let mut one_each: Vec<AnswerId> = first_of.iter().flatten().copied().collect();
            one_each.sort_unstable();
            let all: Vec<AnswerId> = (0..row.len() as AnswerId).collect();
            for set in [one_each, all] {
                let n = set.len() as u32;
                let bound = solver.scan(&set, 4, &free, Some(&[g]), 0).floor;
                if n < 3 || bound >= INFEASIBLE {
                    continue;
                }
                let candidate = game
                    .guess_as_answer(g)
                    .is_some_and(|a| set.binary_search(&a).is_ok());
                let base = 2 * n - u32::from(candidate);
                let true_cap = |h| table.parts(h);
                let too_small = |h| table.parts(h) - 1;
                let start = (bound + 1, base);
                assert_eq!(lean_floor(&solver, &set, &[g], start, true_cap), bound);
                assert_eq!(lean_floor(&solver, &set, &[g], start, too_small), bound + 1);
                checked += 1;
            }
        }
        assert!(checked > 20, "only {checked} cases");
    }
}
