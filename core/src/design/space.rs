//! The search space of a design: which letters each position may hold.
//!
//! Letters no answer contains always show gray, so strings that differ only in such letters
//! give the same feedback on every answer and score the same: the space keeps one of them
//! per position (per pronounceability class), which shrinks e.g. pokemon-today's letters
//! without losing any value.

use super::{DesignError, Letters};
use crate::rules::game::Game;
use crate::rules::word::BOARD;

/// What the user asked of the strings.
#[derive(Debug, Clone, Default)]
pub struct SpaceOptions {
    /// (1-based position, letter) pairs the string must have.
    pub fixed: Vec<(usize, char)>,
    /// Letters the free positions may use (default: every letter of the game's words).
    pub letters: Option<Vec<char>>,
    /// Only strings a Japanese reader could pronounce (a simple katakana rule, see
    /// [`Space::allows`]); off by default, as the issue asks.
    pub pronounceable: bool,
}

/// The allowed letters of each position, with letters no answer uses collapsed.
#[derive(Debug, Clone)]
pub struct Space {
    choices: [Vec<u8>; BOARD],
    full: [usize; BOARD],
    pronounceable: bool,
    class: Vec<u8>,
    in_answers: Vec<bool>,
}

/// Pronounceability classes: 0 ordinary, 1 small kana, 2 ー or ッ, 3 ン.
fn class_of(c: char) -> u8 {
    match c {
        'ァ' | 'ィ' | 'ゥ' | 'ェ' | 'ォ' | 'ャ' | 'ュ' | 'ョ' | 'ヮ' | 'ヵ' | 'ヶ' => 1,
        'ー' | 'ッ' => 2,
        'ン' => 3,
        _ => 0,
    }
}

impl Space {
    /// The space the options describe over `game`'s letters.
    pub fn new(game: &Game, options: &SpaceOptions) -> Result<Space, DesignError> {
        let alphabet = game.alphabet();
        let letters = alphabet.len();
        let mut in_answers = vec![false; letters];
        for answer in game.answers() {
            for &l in answer.letters() {
                in_answers[usize::from(l)] = true;
            }
        }
        let class: Vec<u8> = (0..letters)
            .map(|l| class_of(alphabet.letter(l as u8)))
            .collect();
        let free: Vec<u8> = match &options.letters {
            Some(chars) => {
                let mut ids = Vec::new();
                for &c in chars {
                    let id = alphabet.id(c).ok_or(DesignError::UnknownLetter(c))?;
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
                ids.sort_unstable();
                ids
            }
            None => (0..letters as u8).collect(),
        };
        let mut fixed: [Option<(char, u8)>; BOARD] = [None; BOARD];
        for &(position, c) in &options.fixed {
            if !(1..=BOARD).contains(&position) {
                return Err(DesignError::BadPosition(position));
            }
            let id = alphabet.id(c).ok_or(DesignError::UnknownLetter(c))?;
            match fixed[position - 1] {
                Some((first, _)) if first != c => {
                    return Err(DesignError::Conflict {
                        position,
                        first,
                        second: c,
                    })
                }
                _ => fixed[position - 1] = Some((c, id)),
            }
        }
        let mut choices: [Vec<u8>; BOARD] = Default::default();
        let mut full = [0usize; BOARD];
        for position in 0..BOARD {
            let all: Vec<u8> = match fixed[position] {
                Some((_, id)) => vec![id],
                None => free.clone(),
            };
            full[position] = all.len();
            // One blank (a letter no answer has) per class is enough.
            let mut blank_seen = [false; 4];
            for id in all {
                let l = usize::from(id);
                if !in_answers[l] {
                    let c = if options.pronounceable { class[l] } else { 0 };
                    if std::mem::replace(&mut blank_seen[usize::from(c)], true) {
                        continue;
                    }
                }
                if options.pronounceable && position == 0 && class[l] != 0 {
                    continue;
                }
                choices[position].push(id);
            }
            if choices[position].is_empty() {
                return Err(DesignError::EmptySpace(position + 1));
            }
        }
        Ok(Space {
            choices,
            full,
            pronounceable: options.pronounceable,
            class,
            in_answers,
        })
    }

    /// The letters position `position` (0-based) may hold, in letter-id order.
    pub fn choices(&self, position: usize) -> &[u8] {
        &self.choices[position]
    }

    /// How many strings the options allow, before collapsing blanks and before the
    /// pronounceability rule (a float: wordle's space alone is 26^5).
    pub fn strings(&self) -> f64 {
        self.full.iter().map(|&n| n as f64).product()
    }

    /// How many strings a search has to tell apart: one blank per position, pronounceable
    /// starts only (pairs are checked as they are placed).
    pub fn searched(&self) -> f64 {
        self.choices.iter().map(|c| c.len() as f64).product()
    }

    /// True when `cur` may follow `prev` (`None` at the start). Only with the pronounceable
    /// option: no small kana, ー, ッ or ン first; no ー/ッ before ー, ッ or small kana; no
    /// small kana after a small kana or ン.
    pub fn allows(&self, prev: Option<u8>, cur: u8) -> bool {
        if !self.pronounceable {
            return true;
        }
        let c = self.class[usize::from(cur)];
        match prev.map(|p| self.class[usize::from(p)]) {
            None => c == 0,
            Some(2) => c == 0 || c == 3,
            Some(1) | Some(3) => c != 1,
            Some(_) => true,
        }
    }

    /// `letters` with each letter no answer has replaced by the blank the space keeps for
    /// its position, when there is one: the same feedback on every answer.
    pub fn canonical(&self, mut letters: Letters) -> Letters {
        for (position, slot) in letters.iter_mut().enumerate() {
            let l = usize::from(*slot);
            if self.in_answers.get(l) == Some(&false) && !self.choices[position].contains(slot) {
                let class = if self.pronounceable { self.class[l] } else { 0 };
                if let Some(&rep) = self.choices[position].iter().find(|&&c| {
                    let c = usize::from(c);
                    !self.in_answers[c] && (!self.pronounceable || self.class[c] == class)
                }) {
                    *slot = rep;
                }
            }
        }
        letters
    }

    /// True when the space holds `letters` (up to which blank it uses).
    pub fn contains(&self, letters: Letters) -> bool {
        letters.iter().enumerate().all(|(position, &l)| {
            self.choices[position].contains(&l)
                && self.allows(position.checked_sub(1).map(|p| letters[p]), l)
        })
    }
}
