//! A run of one fixed first guess (`solve --first W`): the run records its first guess
//! (`meta/first`), so a run of another first guess, or of the whole game, is refused, and
//! everything showing it says "proven optimal GIVEN THE FIRST GUESS W".

use super::layout::{FIRST_KEY, META_TREE};
use super::{RunError, Store};

impl Store {
    /// Records that this run solves `word` only, or checks that it does: a run of another
    /// first guess, or of the whole game, is refused.
    pub fn restrict_to_first(&self, word: &str) -> Result<(), RunError> {
        match self.meta.get(FIRST_KEY).map_err(|e| self.err(e))? {
            Some(stored) if stored.as_ref() == word.as_bytes() => Ok(()),
            Some(stored) => Err(RunError::Mismatch {
                path: self.path.clone(),
                stored: format!("first guess {}", String::from_utf8_lossy(&stored)),
                requested: format!("first guess {word}"),
            }),
            None if !self.load_settled()?.is_empty() || self.solution()?.is_some() => {
                Err(RunError::Mismatch {
                    path: self.path.clone(),
                    stored: "the whole game (every first guess)".into(),
                    requested: format!("first guess {word} only"),
                })
            }
            None => {
                self.meta
                    .insert(FIRST_KEY, word.as_bytes())
                    .map_err(|e| self.err(e))?;
                self.flush()
            }
        }
    }
}

/// The first guess a run was restricted to, read from its open database.
pub(super) fn read_first(db: &sled::Db) -> Result<Option<String>, sled::Error> {
    Ok(db
        .open_tree(META_TREE)?
        .get(FIRST_KEY)?
        .map(|b| String::from_utf8_lossy(&b).into_owned()))
}
