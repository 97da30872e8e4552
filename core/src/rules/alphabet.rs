//! Letters as one-byte ids: the solver compares bytes, people read characters.

use std::collections::HashMap;

use crate::error::{Error, Result};

/// The letters of a game, each mapped to a compact id (its position here).
///
/// Ids are handed out in order of first appearance, so the same word lists always give the
/// same ids and the same feedback table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Alphabet {
    letters: Vec<char>,
    ids: HashMap<char, u8>,
}

impl Alphabet {
    /// The id of `letter`, adding it if new.
    pub fn intern(&mut self, letter: char) -> Result<u8> {
        if let Some(&id) = self.ids.get(&letter) {
            return Ok(id);
        }
        let id = u8::try_from(self.letters.len()).map_err(|_| Error::TooManyLetters)?;
        self.letters.push(letter);
        self.ids.insert(letter, id);
        Ok(id)
    }

    /// The id of a known letter; `None` for a letter no word of the game uses.
    pub fn id(&self, letter: char) -> Option<u8> {
        self.ids.get(&letter).copied()
    }

    /// The character behind an id.
    pub fn letter(&self, id: u8) -> char {
        self.letters[usize::from(id)]
    }

    /// How many distinct letters the game uses.
    pub fn len(&self) -> usize {
        self.letters.len()
    }

    /// True before any word was added.
    pub fn is_empty(&self) -> bool {
        self.letters.is_empty()
    }
}
