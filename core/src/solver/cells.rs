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

use crate::game::{AnswerId, Game};
use crate::word::BOARD;

/// Letter ids a cell's colours are tabled for: every id a word can hold.
const LETTERS: usize = 256;

/// A cell's entry in the table: its letter, moved up by [`LETTERS`] when the guess holds
/// that letter once; [`EMPTY`] past the end of a short guess.
pub(crate) type Cell = u16;

/// The entry of a cell past the end of a guess: always gray.
const EMPTY: Cell = 2 * LETTERS as Cell;

/// Each guess's cells as table entries, worked out once per game.
pub(crate) fn cells_of(game: &Game) -> Vec<[Cell; BOARD]> {
    game.guesses()
        .iter()
        .map(|word| {
            let letters = word.letters();
            let mut cells = [EMPTY; BOARD];
            for (cell, &letter) in cells.iter_mut().zip(letters) {
                let once = letters.iter().filter(|&&l| l == letter).count() == 1;
                *cell = Cell::from(letter) + if once { LETTERS as Cell } else { 0 };
            }
            cells
        })
        .collect()
}

/// How many colours each cell can show on one set, by table entry (see [`Cell`]).
pub(crate) struct CellCaps {
    colours: [[u8; 2 * LETTERS + 1]; BOARD],
}

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
            for (bits, base) in word.letter_set().iter().zip((0..).step_by(64)) {
                let mut bits = *bits;
                while bits != 0 {
                    holding[base + bits.trailing_zeros() as usize] += 1;
                    bits &= bits - 1;
                }
            }
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
        CellCaps { colours }
    }

    /// The most patterns a guess of these `cells` (see [`cells_of`]) can show on the set.
    pub(crate) fn cap(&self, cells: &[Cell; BOARD]) -> u32 {
        cells
            .iter()
            .zip(&self.colours)
            .map(|(&cell, row)| u32::from(row[usize::from(cell)]))
            .product()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::load_preset;
    use crate::table::FeedbackTable;

    /// On random sets of both games, and on the parts of first guesses, no guess shows more
    /// patterns than its cap, and many show exactly as many; a cap one colour short in a cell
    /// (not admissible) is exceeded somewhere.
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
                    crate::history::open_parts(&table, first, &all)
                        .into_iter()
                        .map(|(_, part)| part),
                );
            }
            let (mut tight, mut too_strong) = (0, 0);
            let cells = cells_of(&game);
            for set in &sets {
                let caps = CellCaps::of(&game, set);
                for guess in (0..game.guesses().len() as u32).step_by(7) {
                    let mut seen = [false; 243];
                    for &a in set {
                        seen[usize::from(table.get(guess, a).0)] = true;
                    }
                    let shown = seen.iter().filter(|&&s| s).count() as u32;
                    let cap = caps.cap(&cells[guess as usize]);
                    assert!(shown <= cap, "{name}: guess {guess} shows {shown} > {cap}");
                    tight += usize::from(shown == cap && cap > 1);
                    // One colour fewer in the cell with the most: a cap that is not one.
                    let most = cells[guess as usize]
                        .iter()
                        .enumerate()
                        .map(|(p, &cell)| caps.colours[p][usize::from(cell)])
                        .max()
                        .unwrap_or(1);
                    too_strong += usize::from(
                        most > 1 && shown > cap / u32::from(most) * u32::from(most - 1),
                    );
                }
            }
            assert!(tight > 0, "{name}: no cap was reached");
            assert!(
                too_strong > 0,
                "{name}: a cap one colour short went unnoticed"
            );
        }
    }
}
