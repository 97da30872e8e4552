//! A cap on the parts a guess can make on a set, from the set's letters alone: each cell of a
//! guess can show only some colours there, and the guess shows at most the product of those
//! counts of patterns.
//!
//! A letter no answer of the set contains is gray in every cell; a letter every answer has at
//! a position is green there; a letter no answer has at a position is never green there. So a
//! cell holding a dead letter has one colour, a cell every answer matches has one, a cell no
//! answer matches at most two (yellow, gray), any other at most three. A letter every answer
//! contains, held once by the guess, is never gray: one colour fewer. Below a first guess its
//! gray letters are dead and its greens fixed, so guesses that reuse them are capped far below
//! what they show over all the answers, and a lean scan drops them unread (see the `floor`
//! module). The cap holds for every guess on every set, in every mode.
//!
//! A cap tighter where some of a guess's letters are rare in the set ([`CellCaps::at_most`]):
//! the answers holding none of the letters of some cells R show gray in those cells, so they
//! show at most the product of colours over the other cells, and each answer holding one
//! adds at most its own pattern. A large part of a first guess has most guesses' letters
//! rare in it, where the product of colours is far above what the guess shows.

use crate::rules::game::{AnswerId, Game};
use crate::rules::word::BOARD;

/// Letter ids a cell's colours are tabled for: every id a word can hold.
const LETTERS: usize = 256;

/// A cell's entry in the table: its letter, moved up by [`LETTERS`] when the guess holds
/// that letter once, or [`EMPTY`] past the end of a short guess; then moved up by [`ROW`]
/// for each position before the cell's.
pub(crate) type Cell = u16;

/// The entry of a cell past the end of a guess: always gray.
const EMPTY: usize = 2 * LETTERS;

/// The entries of one position.
const ROW: usize = 2 * LETTERS + 1;

/// Each guess's cells as table entries, worked out once per game: most held letters first
/// (by the answers holding them over all the answers), the order in which
/// [`CellCaps::at_most`] leaves cells out of the ones it counts the holders of.
pub(crate) fn cells_of(game: &Game) -> Vec<[Cell; BOARD]> {
    let mut holding = [0u32; LETTERS];
    for word in game.answers() {
        count_holders(&mut holding, word);
    }
    game.guesses()
        .iter()
        .map(|word| {
            let letters = word.letters();
            let mut cells: [(u32, Cell); BOARD] =
                std::array::from_fn(|position| (0, (position * ROW + EMPTY) as Cell));
            for (position, (cell, &letter)) in cells.iter_mut().zip(letters).enumerate() {
                let once = letters.iter().filter(|&&l| l == letter).count() == 1;
                let entry = usize::from(letter) + if once { LETTERS } else { 0 };
                *cell = (
                    holding[usize::from(letter)],
                    (position * ROW + entry) as Cell,
                );
            }
            cells.sort_by_key(|&(held, cell)| (std::cmp::Reverse(held), cell));
            cells.map(|(_, cell)| cell)
        })
        .collect()
}

/// Adds one to the holders of each letter `word` holds.
fn count_holders(holding: &mut [u32; LETTERS], word: &crate::rules::word::Word) {
    for (bits, base) in word.letter_set().iter().zip((0..).step_by(64)) {
        let mut bits = *bits;
        while bits != 0 {
            holding[base + bits.trailing_zeros() as usize] += 1;
            bits &= bits - 1;
        }
    }
}

/// How many colours each cell can show on one set, by table entry (see [`Cell`]).
pub(crate) struct CellCaps {
    /// By cell (see [`Cell`]): the colours the cell can show in the low byte, and above it
    /// how many answers of the set hold the cell's letter (none when it shows one colour).
    entries: [u32; BOARD * ROW],
}

/// The colours of a cell's entry in [`CellCaps`].
const COLOURS: u32 = 0xFF;

/// How far up a cell's entry its letter's holders are.
const HOLDERS: u32 = 8;

impl CellCaps {
    /// The caps of `set`, an answer set of `game`.
    pub(crate) fn of(game: &Game, set: &[AnswerId]) -> CellCaps {
        let answers = game.answers();
        let mut present = [0u64; 4];
        // How many answers contain each letter.
        let mut holding = [0u32; LETTERS];
        // Letters some answer has at each position, and whether every answer has one there.
        let mut at = [[0u64; 4]; BOARD];
        let mut filled = [true; BOARD];
        for &a in set {
            let word = &answers[a as usize];
            for (position, &letter) in word.letters().iter().enumerate() {
                at[position][usize::from(letter / 64)] |= 1 << (letter % 64);
                present[usize::from(letter / 64)] |= 1 << (letter % 64);
            }
            for slot in filled.iter_mut().skip(word.len()) {
                *slot = false;
            }
            count_holders(&mut holding, word);
        }
        let has = |bits: &[u64; 4], letter: usize| bits[letter / 64] >> (letter % 64) & 1 == 1;
        let mut colours = [[1u8; 2 * LETTERS + 1]; BOARD];
        for (position, row) in colours.iter_mut().enumerate() {
            let letters_here: u32 = at[position].iter().map(|w| w.count_ones()).sum();
            for (letter, count) in row[..LETTERS].iter_mut().enumerate() {
                *count = if !has(&present, letter) {
                    1
                } else if !has(&at[position], letter) {
                    2
                } else if letters_here == 1 && filled[position] {
                    1
                } else {
                    3
                };
            }
        }
        // A letter every answer holds, in a guess holding it once, is green where the answer
        // has it there and yellow elsewhere, never gray.
        for row in colours.iter_mut() {
            for letter in 0..LETTERS {
                let all = holding[letter] == set.len() as u32;
                row[LETTERS + letter] = row[letter] - u8::from(all && row[letter] > 1);
            }
        }
        // A cell of one colour shows the same in every answer: no holders to count.
        let mut entries = [1u32; BOARD * ROW];
        for (row, counts) in entries.chunks_mut(ROW).zip(&colours) {
            for (entry, (cell, &count)) in row[..EMPTY].iter_mut().zip(counts.iter().enumerate()) {
                let holders = if count > 1 {
                    holding[cell % LETTERS]
                } else {
                    0
                };
                *entry = u32::from(count) | holders << HOLDERS;
            }
        }
        CellCaps { entries }
    }

    /// The most patterns a guess of these `cells` (see [`cells_of`]) can show on the set, by
    /// its colours alone.
    #[cfg(test)]
    fn cap(&self, cells: &[Cell; BOARD]) -> u32 {
        cells
            .iter()
            .map(|&cell| self.entries[usize::from(cell)] & COLOURS)
            .product()
    }

    /// True when the guess of these `cells` shows at most `most` patterns on the set: when
    /// the product of its cells' colours is at most `most`, or a count tighter where some of
    /// its letters are rare in the set. The answers holding none of the
    /// letters of some cells R show gray in those cells, so they show at most the product
    /// of colours over the other cells, and each answer holding one adds at most its own
    /// pattern (once for each cell of R whose letter it holds): that sum caps the patterns
    /// too. R ranges over the cells after the k most held (k < 5, in the order of
    /// [`cells_of`]): a few steps with no branch, where the best R of all would cost more to
    /// find than the reads it saves.
    #[inline]
    pub(crate) fn at_most(&self, cells: &[Cell; BOARD], most: u32) -> bool {
        let entries: [u32; BOARD] = cells.map(|cell| self.entries[usize::from(cell)]);
        let (mut product, mut counted) = (1u32, 0u32);
        for entry in entries {
            product *= entry & COLOURS;
            counted += entry >> HOLDERS;
        }
        if product <= most {
            return true;
        }
        let mut kept = 1u32;
        let mut least = kept + counted;
        for entry in &entries[..BOARD - 1] {
            kept *= entry & COLOURS;
            counted -= entry >> HOLDERS;
            least = least.min(kept + counted);
        }
        least <= most
    }

    /// The cap [`CellCaps::at_most`] compares with `most`: what the tests check against the
    /// patterns guesses show.
    #[cfg(test)]
    fn held_cap(&self, cells: &[Cell; BOARD]) -> u32 {
        let entries = cells.map(|cell| self.entries[usize::from(cell)]);
        (0..=BOARD)
            .map(|k| {
                let kept: u32 = entries[..k].iter().map(|e| e & COLOURS).product();
                let counted: u32 = entries[k..].iter().map(|e| e >> HOLDERS).sum();
                kept + counted
            })
            .min()
            .unwrap_or(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::presets::load_preset;
    use crate::rules::table::FeedbackTable;

    /// On random sets of both games, and on the parts of first guesses, no guess shows more
    /// patterns than its cap, and many show exactly as many; a cap one colour short in a cell
    /// (not admissible) is exceeded somewhere. The same for the cap counting rare letters'
    /// holders, which is never above the product, below it and reached on some sets; with
    /// every letter held by one answer fewer (not admissible) it is exceeded somewhere.
    #[test]
    fn no_guess_shows_more_patterns_than_its_cap() {
        for name in ["wordle", "pokemon-verbum"] {
            let game = load_preset(name).expect("preset");
            let table = FeedbackTable::build(&game);
            let mut next = crate::solver::test_rng(0x5EED);
            let answers = game.answers().len() as u64;
            let all = game.all_answers();
            let mut sets: Vec<Vec<AnswerId>> = (0..40)
                .map(|_| {
                    let size = 2 + next(300) as usize;
                    let mut set: Vec<AnswerId> =
                        (0..size).map(|_| next(answers) as AnswerId).collect();
                    set.sort_unstable();
                    set.dedup();
                    set
                })
                .collect();
            for first in [0, 97, 1234 % game.guesses().len() as u32] {
                sets.extend(
                    crate::rules::history::open_parts(&table, first, &all)
                        .into_iter()
                        .map(|(_, part)| part),
                );
            }
            let (mut tight, mut too_strong) = (0, 0);
            let (mut held_tight, mut held_lower, mut held_too_strong) = (0, 0, 0);
            let cells = cells_of(&game);
            for set in &sets {
                let caps = CellCaps::of(&game, set);
                // The same caps with every letter held by one answer fewer: not admissible.
                let mut short = CellCaps::of(&game, set);
                for entry in short.entries.iter_mut() {
                    let holders = (*entry >> HOLDERS).saturating_sub(1);
                    *entry = *entry & COLOURS | holders << HOLDERS;
                }
                for guess in (0..game.guesses().len() as u32).step_by(7) {
                    let mut seen = [false; 243];
                    for &a in set {
                        seen[usize::from(table.get(guess, a).0)] = true;
                    }
                    let shown = seen.iter().filter(|&&s| s).count() as u32;
                    let cap = caps.cap(&cells[guess as usize]);
                    assert!(shown <= cap, "{name}: guess {guess} shows {shown} > {cap}");
                    let held = caps.held_cap(&cells[guess as usize]);
                    assert!(
                        held <= cap,
                        "{name}: guess {guess}: held cap {held} > {cap}"
                    );
                    assert!(
                        shown <= held,
                        "{name}: guess {guess} shows {shown} > {held}"
                    );
                    held_tight += usize::from(shown == held && held < cap);
                    held_lower += usize::from(held < cap);
                    held_too_strong += usize::from(shown > short.held_cap(&cells[guess as usize]));
                    // The scan's test answers exactly as comparing with the caps does.
                    for most in [held.saturating_sub(1), held, held + 1, shown, 0] {
                        let word = &cells[guess as usize];
                        assert_eq!(caps.at_most(word, most), held <= most);
                    }
                    tight += usize::from(shown == cap && cap > 1);
                    // One colour fewer in the cell with the most: a cap that is not one.
                    let most = cells[guess as usize]
                        .iter()
                        .map(|&cell| caps.entries[usize::from(cell)] & COLOURS)
                        .max()
                        .unwrap_or(1);
                    too_strong += usize::from(most > 1 && shown > cap / most * (most - 1));
                }
            }
            assert!(tight > 0, "{name}: no cap was reached");
            assert!(
                held_tight > 0 && held_lower > 0,
                "{name}: held caps tight {held_tight} times, below the product {held_lower}"
            );
            assert!(
                held_too_strong > 0,
                "{name}: held caps one holder short went unnoticed"
            );
            assert!(
                too_strong > 0,
                "{name}: a cap one colour short went unnoticed"
            );
        }
    }
}
