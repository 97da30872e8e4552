//! A node's pool patterns over its own candidates, copied out of the game's table for the lean
//! scans of its children.
//!
//! Below a first guess, most of the search's time goes into lean scans of the parts a second
//! guess makes, each reading the node's pool against a few dozen of its candidates. In the
//! game's table those reads land one cache line each (a guess's row spans every answer, an
//! answer's column every guess). Here the node's own rows are as long as its candidates, so a
//! child's reads of one guess fall on a few nearby lines.

use super::hard_pool::{class_of, guess_of};
use crate::rules::game::{AnswerId, GuessId};
use crate::rules::table::FeedbackTable;

/// Nodes with fewer candidates read the game's table: their children's scans are short.
pub(crate) const LOCAL_MIN: usize = 32;

/// Bytes one layout may take; larger nodes read the game's table.
const LOCAL_MAX_BYTES: usize = 24 << 20;

/// Not a candidate of the node.
const ABSENT: u32 = u32::MAX;

/// The winning pattern.
const WIN: u8 = crate::rules::pattern::Pattern::ALL_GREEN.0;

/// The class of a classed (hard-mode) pool's first entry, if the pool is classed.
fn class_of_any(pool: &[GuessId]) -> Option<usize> {
    pool.first().and_then(|&entry| class_of(entry))
}

/// The patterns of a node's pool against its candidates (by index): one row per pool guess
/// (by position), or in hard mode one per class of guesses that split the node alike.
pub(crate) struct LocalPatterns {
    /// The node's candidates.
    width: usize,
    /// 0, 1, …: the row numbers (pool positions, or classes).
    positions: Vec<GuessId>,
    /// `positions.len()` rows of `width` patterns.
    by_guess: Vec<u8>,
    /// Each answer id's index among the candidates, or [`ABSENT`].
    index_of: Vec<u32>,
    /// When the pool came with its part counts: its guesses and their counts in row order,
    /// most parts first (see [`LocalPatterns::widest_first`]).
    widest_first: Option<(Vec<GuessId>, Vec<u8>)>,
    /// By local index, the row of the candidate there played as a guess (the row that wins
    /// on that candidate), or [`ABSENT`] when the pool has none.
    candidate_rows: Vec<u32>,
}

impl LocalPatterns {
    /// The local patterns of `pool` over `set`; `None` when they would take too much memory.
    /// With `parts`, how many parts each guess of a plain (unclassed) pool splits `set`
    /// into, the rows go in order of those counts, most first (ties by pool position).
    pub(crate) fn build(
        table: &FeedbackTable,
        set: &[AnswerId],
        pool: &[GuessId],
        parts: Option<&[u8]>,
    ) -> Option<LocalPatterns> {
        let (width, height) = (set.len(), pool.len());
        if width.saturating_mul(height) > LOCAL_MAX_BYTES || height > u32::MAX as usize {
            return None;
        }
        let parts = parts.filter(|p| p.len() == pool.len() && class_of_any(pool).is_none());
        let widest_first: Option<(Vec<GuessId>, Vec<u8>)> = parts.map(|parts| {
            let mut order: Vec<usize> = (0..pool.len()).collect();
            order.sort_by_key(|&at| std::cmp::Reverse(parts[at]));
            let guesses = order.iter().map(|&at| pool[at]).collect();
            let counts = order.iter().map(|&at| parts[at]).collect();
            (guesses, counts)
        });
        let read_order: &[GuessId] = widest_first
            .as_ref()
            .map_or(pool, |(guesses, _)| guesses.as_slice());
        // A classed (hard-mode) pool holds every guess, its class numbering the split
        // shapes in order of first appearance: one row per class, at its number.
        let mut by_guess = Vec::with_capacity(width * height);
        let mut candidate_rows = vec![ABSENT; width];
        let mut rows = 0;
        for &entry in read_order {
            match class_of(entry) {
                Some(class) if class < rows => continue,
                Some(class) if class > rows => return None,
                _ => {}
            }
            let row = table.row(guess_of(entry));
            let start = by_guess.len();
            by_guess.extend(set.iter().map(|&a| row[a as usize]));
            // Only the guess that is a candidate shows it the win: then the row is its own.
            if let Some(index) = by_guess[start..].iter().position(|&p| p == WIN) {
                candidate_rows[index] = rows as u32;
            }
            rows += 1;
        }
        let mut index_of = vec![ABSENT; set.last().map_or(0, |&last| last as usize + 1)];
        for (index, &a) in (0..).zip(set) {
            index_of[a as usize] = index;
        }
        Some(LocalPatterns {
            width,
            positions: (0..rows as GuessId).collect(),
            by_guess,
            index_of,
            widest_first,
            candidate_rows,
        })
    }

    /// The pool's guesses in row order with their part counts over the node, most parts
    /// first, when the rows were laid out so: a child's lean scan reads them in that order
    /// and stops at the first guess too narrow to lower its floor, since every later one
    /// makes no more parts.
    pub(crate) fn widest_first(&self) -> Option<(&[GuessId], &[u8])> {
        self.widest_first
            .as_ref()
            .map(|(guesses, parts)| (guesses.as_slice(), parts.as_slice()))
    }

    /// `set`'s candidates as local indices; `None` when one is not a candidate of the node.
    pub(crate) fn localize(&self, set: &[AnswerId]) -> Option<Vec<u32>> {
        set.iter()
            .map(|&a| {
                self.index_of
                    .get(a as usize)
                    .copied()
                    .filter(|&i| i != ABSENT)
            })
            .collect()
    }

    /// The row of the candidate at local index `index` played as a guess, when the pool
    /// holds it: its patterns over the node, read as the table's row of that guess.
    pub(crate) fn candidate_row(&self, index: u32) -> Option<u32> {
        let row = *self.candidate_rows.get(index as usize)?;
        (row != ABSENT).then_some(row)
    }

    /// The row numbers in order: the rows of a normal-mode pool's guesses, in pool order, or
    /// in the order of [`LocalPatterns::widest_first`] when the rows were laid out so.
    pub(crate) fn positions(&self) -> &[GuessId] {
        &self.positions
    }

    /// The patterns of the pool guess at `position` (or of class `position`) for every
    /// candidate, by local index.
    pub(crate) fn row(&self, position: usize) -> &[u8] {
        let start = position * self.width;
        &self.by_guess[start..start + self.width]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::presets::load_preset;

    /// Every local pattern is the table's, and localising maps a subset's
    /// answers to the rows and columns of exactly those answers.
    #[test]
    fn local_patterns_are_the_tables() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        let mut next = crate::solver::test_rng(7);
        let answers = game.answers().len() as u64;
        let mut set: Vec<AnswerId> = (0..90).map(|_| next(answers) as AnswerId).collect();
        set.sort_unstable();
        set.dedup();
        let pool: Vec<GuessId> = (0..game.guesses().len() as GuessId).step_by(3).collect();
        let local = LocalPatterns::build(&table, &set, &pool, None).expect("small enough");
        for (index, &a) in (0..).zip(&set) {
            for (position, &g) in pool.iter().enumerate() {
                let expected = table.row(g)[a as usize];
                assert_eq!(local.row(position)[index as usize], expected);
            }
        }
        // A candidate's row is its own guess's, found where the pool holds that guess.
        let mut found = 0;
        for (index, &a) in (0..).zip(&set) {
            let guess = game.answer_as_guess(a);
            let position = pool.iter().position(|&g| g == guess);
            assert_eq!(local.candidate_row(index), position.map(|p| p as u32));
            if let Some(position) = position {
                found += 1;
                for (&b, &p) in set.iter().zip(local.row(position)) {
                    assert_eq!(p, table.row(guess)[b as usize]);
                }
            }
        }
        assert!(
            found > 0 && found < set.len(),
            "some candidates in the pool, not all"
        );
        let subset: Vec<AnswerId> = set.iter().copied().step_by(4).collect();
        let indices = local.localize(&subset).expect("a subset");
        for (&a, &index) in subset.iter().zip(&indices) {
            assert_eq!(set[index as usize], a);
        }
        let outside = (0..answers as AnswerId).find(|a| !set.contains(a));
        let outside = outside.expect("an answer outside the set");
        assert_eq!(local.localize(&[set[0], outside]), None);
    }

    /// With the pool's part counts the rows go widest first: the counts never rise along
    /// them, ties keep pool order, and each row is still its guess's patterns.
    #[test]
    fn rows_built_with_part_counts_go_widest_first() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        let set: Vec<AnswerId> = (0..game.answers().len() as AnswerId).step_by(5).collect();
        let pool: Vec<GuessId> = (0..game.guesses().len() as GuessId).step_by(3).collect();
        let counts: Vec<u8> = pool.iter().map(|&g| parts_over(&table, g, &set)).collect();
        let local = LocalPatterns::build(&table, &set, &pool, Some(&counts)).expect("small");
        let (guesses, ordered) = local.widest_first().expect("laid out widest first");
        assert_eq!(guesses.len(), pool.len());
        for ((pair, guess), &count) in ordered.windows(2).zip(guesses.windows(2)).zip(ordered) {
            assert!(pair[0] > pair[1] || pair[0] == pair[1] && guess[0] < guess[1]);
            assert_eq!(count, parts_over(&table, guess[0], &set));
        }
        for (row, &g) in guesses.iter().enumerate() {
            for (index, &a) in set.iter().enumerate() {
                assert_eq!(local.row(row)[index], table.row(g)[a as usize]);
            }
        }
        assert!(ordered.first() > ordered.last(), "the counts differ");
    }

    /// The distinct patterns `guess` shows over `set`.
    fn parts_over(table: &FeedbackTable, guess: GuessId, set: &[AnswerId]) -> u8 {
        let mut seen = [false; crate::rules::pattern::PATTERNS];
        set.iter()
            .for_each(|&a| seen[usize::from(table.row(guess)[a as usize])] = true);
        seen.iter().filter(|&&s| s).count() as u8
    }
}
