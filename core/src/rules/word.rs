//! Words as fixed arrays of letter ids, so feedback is computed without touching strings.

use crate::error::{Error, Result};
use crate::rules::alphabet::Alphabet;

/// The board width of every supported game.
pub const BOARD: usize = 5;

/// A guess or answer: up to [`BOARD`] letter ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Word {
    letters: [u8; BOARD],
    len: u8,
}

impl Word {
    /// Encodes `text`, letter by letter (a letter is one Unicode scalar value).
    ///
    /// The caller has checked the length against the board.
    pub(crate) fn encode(text: &str, alphabet: &mut Alphabet) -> Result<Word> {
        let mut letters = [0u8; BOARD];
        let mut len = 0;
        for (slot, ch) in letters.iter_mut().zip(text.chars()) {
            *slot = alphabet.intern(ch)?;
            len += 1;
        }
        Ok(Word { letters, len })
    }

    /// A full-board word from letter ids: design searches build strings no list contains.
    pub(crate) fn from_letters(letters: [u8; BOARD]) -> Word {
        Word {
            letters,
            len: BOARD as u8,
        }
    }

    /// The letter ids actually used (`len()` of them).
    pub fn letters(&self) -> &[u8] {
        &self.letters[..usize::from(self.len)]
    }

    /// The letters used, as a set (bit `id` set for each letter id). Guesses with the same
    /// set leave the same answers in their all-gray part, so their searches share work.
    pub fn letter_set(&self) -> [u64; 4] {
        let mut set = [0u64; 4];
        for &letter in self.letters() {
            set[usize::from(letter / 64)] |= 1 << (letter % 64);
        }
        set
    }

    /// Number of letters.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Never true for a word of a game; present for API completeness.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Reads a word list file: one word per line, UTF-8, BOM and CRLF accepted, blank lines and
/// surrounding spaces ignored. Returns each word with its 1-based line number.
pub fn read_word_list(bytes: &[u8], list: &str) -> Result<Vec<(usize, String)>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut words = Vec::new();
    for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = index + 1;
        let text = std::str::from_utf8(raw).map_err(|_| Error::InvalidUtf8 {
            list: list.to_string(),
            line,
        })?;
        let text = text.trim();
        if !text.is_empty() {
            words.push((line, text.to_string()));
        }
    }
    if words.is_empty() {
        return Err(Error::EmptyList {
            list: list.to_string(),
        });
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letter_sets_ignore_order_and_repeats_and_reach_every_letter_id() {
        let set = |letters: [u8; BOARD]| Word::from_letters(letters).letter_set();
        assert_eq!(set([1, 2, 3, 4, 5]), set([5, 4, 3, 2, 1]));
        assert_eq!(set([1, 1, 2, 2, 3]), set([3, 2, 1, 3, 3]));
        assert_ne!(set([1, 2, 3, 4, 5]), set([1, 2, 3, 4, 6]));
        assert_eq!(
            set([0, 63, 64, 130, 255]),
            [1 | 1 << 63, 1, 1 << 2, 1 << 63]
        );
    }
}
