//! Hard mode: what the clues so far force every later guess to contain.

use crate::rules::pattern::{Cell, Pattern};
use crate::rules::word::{Word, BOARD};

/// The constraints hard mode puts on the next guess: letters fixed in place by greens, and
/// how many copies of each letter revealed green or yellow the guess must contain.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct HardState {
    /// `Some(letter)` where a green fixed the letter.
    pub greens: [Option<u8>; BOARD],
    /// (letter, minimum copies), sorted by letter.
    pub at_least: Vec<(u8, u8)>,
}

impl HardState {
    /// True when `guess` respects every constraint.
    pub fn allows(&self, guess: &Word) -> bool {
        let letters = guess.letters();
        for (position, green) in self.greens.iter().enumerate() {
            if let Some(letter) = green {
                if letters.get(position) != Some(letter) {
                    return false;
                }
            }
        }
        self.at_least.iter().all(|&(letter, copies)| {
            letters.iter().filter(|&&l| l == letter).count() >= usize::from(copies)
        })
    }

    /// The state after `guess` showed `pattern`.
    pub fn after(&self, guess: &Word, pattern: Pattern) -> HardState {
        let mut next = self.clone();
        // Copies of each letter the clue revealed (green or yellow), at most one per cell.
        let mut revealed = [(0u8, 0u8); BOARD];
        let mut kinds = 0;
        for (position, (&letter, cell)) in
            guess.letters().iter().zip(pattern.cell_array()).enumerate()
        {
            if cell == Cell::Green {
                next.greens[position] = Some(letter);
            }
            if cell != Cell::Gray {
                match revealed[..kinds].iter_mut().find(|(l, _)| *l == letter) {
                    Some((_, n)) => *n += 1,
                    None => {
                        revealed[kinds] = (letter, 1);
                        kinds += 1;
                    }
                }
            }
        }
        let mut grew = false;
        for &(letter, copies) in &revealed[..kinds] {
            match next.at_least.iter_mut().find(|(l, _)| *l == letter) {
                Some((_, n)) => *n = (*n).max(copies),
                None => {
                    next.at_least.push((letter, copies));
                    grew = true;
                }
            }
        }
        if grew {
            next.at_least.sort_unstable();
        }
        next
    }

    /// True before any clue.
    pub fn is_free(&self) -> bool {
        self.greens.iter().all(Option::is_none) && self.at_least.is_empty()
    }
}
