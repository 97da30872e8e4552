//! Dropping guesses another guess beats on every subset: the pool a node hands its children
//! shrinks by about half below the first guess, and every lean scan under it reads that much
//! less.
//!
//! A guess that is not a candidate of a set never wins there. When another guess splits the
//! set into strictly finer parts (each of its parts lies inside one of the first guess's), it
//! splits every subset at least as finely. The total of a set is superadditive over disjoint
//! subsets (a strategy for the union, played on a subset, is a strategy for it with the same
//! depths), so the finer guess is worth at most what the coarser one is, on the set and on
//! every subset, under any guess cap. Its scan bound is lower too (more parts, no fewer wins),
//! and so is its place in the search order (bound, then Σ part²).
//!
//! Finding the finer guess: a letter no candidate contains is gray on every answer and changes
//! no other cell, so a guess with such dead letters splits the set by its live letters alone.
//! A guess with the same letters at those live positions that also uses a dead position is
//! usually finer. Such guesses are looked up in an index by (positions, letters), and each one
//! is checked against the set: only a checked refinement drops a guess.
//!
//! Only a finer guess earlier in the list drops one. On a subset where the two split alike
//! the search keeps the earlier of them anyway (one guess per split shape, the first), so the
//! search picks exactly the guesses it picks without this step.

use rustc_hash::{FxHashMap, FxHashSet};

use super::scan::Scan;
use super::Solver;
use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::pattern::PATTERNS;
use crate::rules::word::{Word, BOARD};

/// Sets smaller than this keep their pools: the few pairs their children read do not repay
/// the check.
pub(crate) const DOMINANCE_MIN: usize = 16;

/// Guesses sharing a given guess's live letters tried as its finer guess before giving up.
const TRIES: usize = 8;

/// Every guess under each of its (positions, letters) restrictions.
pub(crate) struct LiveIndex {
    by_letters: FxHashMap<u64, Vec<GuessId>>,
}

impl LiveIndex {
    /// The index of a game's guesses: one entry per guess and non-empty subset of its
    /// positions (31 for a five-letter guess).
    pub(crate) fn build(game: &Game) -> LiveIndex {
        let mut by_letters: FxHashMap<u64, Vec<GuessId>> = FxHashMap::default();
        for (id, word) in (0..).zip(game.guesses()) {
            for mask in 1..(1u32 << word.len()) {
                by_letters.entry(key(word, mask)).or_default().push(id);
            }
        }
        LiveIndex { by_letters }
    }

    /// The guesses with `word`'s letters at the positions of `mask` (`word` among them).
    fn sharing(&self, word: &Word, mask: u32) -> &[GuessId] {
        self.by_letters
            .get(&key(word, mask))
            .map_or(&[], Vec::as_slice)
    }
}

/// The index key of `word` restricted to the positions of `mask`.
fn key(word: &Word, mask: u32) -> u64 {
    let mut key = u64::from(mask);
    for position in 0..BOARD {
        key <<= 8;
        if mask >> position & 1 == 1 {
            key |= u64::from(word.letters()[position]);
        }
    }
    key
}

impl Solver<'_> {
    /// Drops from a normal-mode scan of `set` every guess a finer guess beats (see the module
    /// notes): from the pool the children scan and from the guesses this node plays.
    pub(crate) fn drop_dominated(&self, set: &[AnswerId], scan: &mut Scan) {
        let Some(dropped) = self.dominated(set, &scan.pool) else {
            return;
        };
        let gone = gone(&scan.pool, &dropped);
        (scan.pool, scan.pool_parts) = without(&scan.pool, &scan.pool_parts, &dropped);
        scan.guesses.retain(|s| !gone.contains(&s.guess));
    }

    /// The pool of a normal-mode scan of `set` (with its part counts) without the guesses a
    /// finer guess beats, and those guesses: a slice of the node's order plays only the
    /// others, as the node itself does in one search, and its children read the pool left.
    pub(crate) fn undominated(
        &self,
        set: &[AnswerId],
        scan: &Scan,
    ) -> (Vec<GuessId>, Vec<u8>, FxHashSet<GuessId>) {
        match self.dominated(set, &scan.pool) {
            Some(dropped) => {
                let (pool, parts) = without(&scan.pool, &scan.pool_parts, &dropped);
                (pool, parts, gone(&scan.pool, &dropped))
            }
            None => (
                scan.pool.clone(),
                scan.pool_parts.clone(),
                FxHashSet::default(),
            ),
        }
    }

    /// Which guesses of `pool` a finer guess earlier in the list beats on `set`; `None` when
    /// none is (or the step does not apply).
    fn dominated(&self, set: &[AnswerId], pool: &[GuessId]) -> Option<Vec<bool>> {
        if !self.prunes_dominated() || set.len() < DOMINANCE_MIN {
            return None;
        }
        let words = self.game.guesses();
        let mut present = [0u64; 4];
        for &a in set {
            let letters = self.game.answers()[a as usize].letter_set();
            for (word, bits) in present.iter_mut().zip(letters) {
                *word |= bits;
            }
        }
        let mut candidates: Vec<GuessId> =
            set.iter().map(|&a| self.game.answer_as_guess(a)).collect();
        candidates.sort_unstable();
        let index = self.live_index();
        let dropped: Vec<bool> = pool
            .iter()
            .map(|&guess| {
                let word = &words[guess as usize];
                let live = live_positions(word, &present);
                let full = (1u32 << word.len()) - 1;
                live != 0
                    && live != full
                    && candidates.binary_search(&guess).is_err()
                    && index
                        .sharing(word, live)
                        .iter()
                        .take_while(|&&other| other < guess)
                        .take(TRIES)
                        .any(|&finer| self.strictly_refines(set, finer, guess))
            })
            .collect();
        dropped.contains(&true).then_some(dropped)
    }

    /// True when every two answers of `set` that `coarse` tells apart `fine` tells apart too,
    /// and `fine` makes more parts.
    fn strictly_refines(&self, set: &[AnswerId], fine: GuessId, coarse: GuessId) -> bool {
        let (fine, coarse) = (self.table.row(fine), self.table.row(coarse));
        let mut image = [u8::MAX; PATTERNS];
        let mut coarse_seen = [false; PATTERNS];
        let (mut fine_parts, mut coarse_parts) = (0u32, 0u32);
        for &a in set {
            let (f, c) = (fine[a as usize], coarse[a as usize]);
            let slot = &mut image[usize::from(f)];
            if *slot == u8::MAX {
                *slot = c;
                fine_parts += 1;
            } else if *slot != c {
                return false;
            }
            let seen = &mut coarse_seen[usize::from(c)];
            coarse_parts += u32::from(!*seen);
            *seen = true;
        }
        fine_parts > coarse_parts
    }
}

/// The entries of `pool` that `dropped` marks.
fn gone(pool: &[GuessId], dropped: &[bool]) -> FxHashSet<GuessId> {
    pool.iter()
        .zip(dropped)
        .filter(|(_, &d)| d)
        .map(|(&g, _)| g)
        .collect()
}

/// `pool` and its part counts without the entries `dropped` marks.
fn without(pool: &[GuessId], parts: &[u8], dropped: &[bool]) -> (Vec<GuessId>, Vec<u8>) {
    pool.iter()
        .zip(parts)
        .zip(dropped)
        .filter(|(_, &d)| !d)
        .map(|((&g, &p), _)| (g, p))
        .unzip()
}

/// The positions of `word` whose letter some candidate contains, as a bit mask.
fn live_positions(word: &Word, present: &[u64; 4]) -> u32 {
    word.letters()
        .iter()
        .enumerate()
        .filter(|(_, &l)| present[usize::from(l / 64)] >> (l % 64) & 1 == 1)
        .fold(0, |mask, (position, _)| mask | 1 << position)
}

#[cfg(test)]
mod tests {
    use super::super::{Node, Solver, SolverConfig, INFEASIBLE};
    use crate::rules::game::{AnswerId, GuessId};
    use crate::rules::presets::load_preset;
    use crate::rules::table::FeedbackTable;
    use crate::solver::hard::HardState;

    /// Random candidate sets of `game`: `count` of them, of `sizes` answers.
    fn random_sets(
        answers: usize,
        count: usize,
        sizes: (u64, u64),
        seed: u64,
    ) -> Vec<Vec<AnswerId>> {
        let mut next = crate::solver::test_rng(seed);
        (0..count)
            .map(|_| {
                let size = sizes.0 + next(sizes.1 - sizes.0);
                let mut set: Vec<AnswerId> = (0..size)
                    .map(|_| next(answers as u64) as AnswerId)
                    .collect();
                set.sort_unstable();
                set.dedup();
                set
            })
            .collect()
    }

    /// Every guess dropped from a scan's pool is strictly refined, on the scanned set, by a
    /// guess that stays, and is not a candidate there; and on Wordle's sets many are dropped.
    #[test]
    fn a_dropped_guess_has_a_strictly_finer_guess_that_stays() {
        let game = load_preset("wordle").expect("preset");
        let table = FeedbackTable::build(&game);
        let solver = Solver::new(&game, &table, SolverConfig::default(), 1 << 12);
        let (mut dropped_total, mut pooled) = (0, 0);
        // The parts of 40 answers or more that three first guesses leave: their gray letters
        // are dead there, as below every first guess of a search.
        let all = game.all_answers();
        let parts = ["sonly", "crane", "pzazz"].into_iter().flat_map(|word| {
            let first = game.find_guess(word).expect("a guess");
            solver.split(&all, first).into_iter().map(|(_, part)| part)
        });
        for set in parts.filter(|part| part.len() >= 40).step_by(2) {
            let scan = solver.scan(&set, 5, &HardState::default(), None, INFEASIBLE);
            let mut pruned = solver.scan(&set, 5, &HardState::default(), None, INFEASIBLE);
            solver.drop_dominated(&set, &mut pruned);
            assert_eq!(pruned.pool.len(), pruned.pool_parts.len());
            let kept: std::collections::HashSet<GuessId> = pruned.pool.iter().copied().collect();
            let dropped: Vec<GuessId> = scan
                .pool
                .iter()
                .copied()
                .filter(|g| !kept.contains(g))
                .collect();
            for &g in &dropped {
                let answer = game.guess_as_answer(g);
                assert!(
                    answer.is_none_or(|a| set.binary_search(&a).is_err()),
                    "{g} is a candidate"
                );
                // Refined by a guess earlier in the list: where the two split a subset alike,
                // the search would keep that one anyway.
                assert!(
                    pruned
                        .pool
                        .iter()
                        .any(|&h| h < g && solver.strictly_refines(&set, h, g)),
                    "nothing kept refines guess {g}"
                );
            }
            // Same scan otherwise: the floor, and the played guesses minus the dropped ones.
            assert_eq!(pruned.floor, scan.floor);
            let played: Vec<GuessId> = scan
                .guesses
                .iter()
                .map(|s| s.guess)
                .filter(|g| !dropped.contains(g))
                .collect();
            let pruned_played: Vec<GuessId> = pruned.guesses.iter().map(|s| s.guess).collect();
            assert_eq!(pruned_played, played);
            dropped_total += dropped.len();
            pooled += scan.pool.len();
        }
        assert!(
            dropped_total * 5 > pooled,
            "only {dropped_total} of {pooled} pool guesses dropped"
        );
    }

    /// A slice of a node's order plays the guesses of its range the node plays: its value is
    /// the least over those that no finer guess beats, and the slices together give the
    /// node's value (random Pokémon sets of 16 to 120 answers, runs of 1 to 40 positions).
    #[test]
    fn a_slice_plays_the_guesses_of_its_range_that_the_node_plays() {
        let game = load_preset("pokemon-today").expect("preset");
        let table = FeedbackTable::build(&game);
        let config = SolverConfig::default();
        let mut next = crate::solver::test_rng(9);
        let (mut slices, mut skipped) = (0, 0);
        for (index, set) in random_sets(game.answers().len(), 8, (16, 120), 7)
            .into_iter()
            .enumerate()
        {
            let node = Node {
                candidates: set,
                guesses_left: 3 + (index % 2) as u32,
                hard: HardState::default(),
            };
            let solver = Solver::new(&game, &table, config.clone(), 1 << 16);
            let scan = solver.order_scan(&node);
            let (_, _, dominated) = solver.undominated(&node.candidates, &scan);
            let order: Vec<GuessId> = scan.guesses.iter().map(|s| s.guess).collect();
            let (mut from, mut least) = (0, INFEASIBLE);
            while from < order.len() {
                let to = (from + 1 + next(40) as usize).min(order.len());
                let played: Vec<GuessId> = order[from..to]
                    .iter()
                    .copied()
                    .filter(|g| !dominated.contains(g))
                    .collect();
                skipped += to - from - played.len();
                let truth = played
                    .iter()
                    .map(|&g| solver.evaluate_guess(&node, g, INFEASIBLE).value())
                    .min()
                    .unwrap_or(INFEASIBLE);
                let got = solver.evaluate_slice(&node, from..to, INFEASIBLE);
                assert_eq!(got.value(), truth, "{node:?}, slice {from}..{to}");
                assert_eq!(got.is_exact(), truth < INFEASIBLE);
                least = least.min(truth);
                slices += 1;
                from = to;
            }
            assert_eq!(
                least,
                solver.evaluate(&node, INFEASIBLE).value(),
                "{node:?}"
            );
        }
        assert!(slices > 50, "only {slices} slices");
        assert!(skipped > 0, "no slice skipped a guess: nothing checked");
    }

    /// The search with dominated guesses dropped gives the same outcome and the same tree as
    /// the search without, on random Pokémon sets of 16 to 120 answers, with and without a
    /// cutoff.
    #[test]
    fn dropping_dominated_guesses_changes_no_outcome_or_tree() {
        let game = load_preset("pokemon-today").expect("preset");
        let table = FeedbackTable::build(&game);
        let config = SolverConfig::default();
        let (mut checked, mut dropped) = (0, 0);
        for (index, set) in random_sets(game.answers().len(), 24, (16, 120), 5)
            .into_iter()
            .enumerate()
        {
            let node = Node {
                candidates: set,
                guesses_left: 3 + (index % 3) as u32,
                hard: HardState::default(),
            };
            let pruning = Solver::new(&game, &table, config.clone(), 1 << 16);
            let mut plain = Solver::new(&game, &table, config.clone(), 1 << 16);
            plain.prune_dominated = false;
            let exact = plain.evaluate(&node, INFEASIBLE);
            assert_eq!(pruning.evaluate(&node, INFEASIBLE), exact, "{node:?}");
            assert_eq!(pruning.tree(&node), plain.tree(&node), "{node:?}");
            let mut scan = pruning.scan(&node.candidates, 3, &node.hard, None, INFEASIBLE);
            let pooled = scan.pool.len();
            pruning.drop_dominated(&node.candidates, &mut scan);
            dropped += pooled - scan.pool.len();
            // Under a cutoff at the optimum: the same bound, from fresh memos.
            if exact.is_exact() {
                let beta = exact.value();
                let pruning = Solver::new(&game, &table, config.clone(), 1 << 16);
                let mut plain = Solver::new(&game, &table, config.clone(), 1 << 16);
                plain.prune_dominated = false;
                assert_eq!(pruning.evaluate(&node, beta), plain.evaluate(&node, beta));
                checked += 1;
            }
        }
        assert!(checked >= 12, "only {checked} sets were winnable");
        // The step did drop guesses from these sets' own pools, so it had work to do.
        assert!(dropped > 100, "only {dropped} guesses dropped");
    }
}
