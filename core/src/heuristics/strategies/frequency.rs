//! The seed blog's letter-frequency solvers, in its three steps.
//!
//! 1. `frequency-candidates`: guess the pool word richest in frequent letters (each distinct
//!    letter scores how often it occurs in the pool, repeats included).
//! 2. `frequency-probe`: while at least N words remain in the pool (the blog's N = 9), guess
//!    instead any allowed word made of letters not yet settled (yellow letters still count,
//!    green and gray ones do not), avoiding yellow letters in the places they were yellow.
//! 3. `frequency-differing`: when at least M pool words (4) share at least C letters (4),
//!    guess the allowed word with the most of the letters in which they differ.
//!
//! The blog's probe code marks every letter played so far as used (its condition is always
//! true); its comment and text say green and gray letters, which is what is done here.

use crate::rules::game::{Game, GuessId};
use crate::rules::pattern::Cell;
use crate::rules::table::FeedbackTable;
use crate::solver::Mode;

use super::{Player, Situation};

/// The blog's default: probe while this many candidates or more remain.
pub const DEFAULT_PROBE_AT: usize = 9;
/// The blog's default: look for differing letters from this many candidates on.
pub const DEFAULT_DIFFER_MIN: usize = 4;
/// The blog's default: the candidates must share this many distinct letters.
pub const DEFAULT_DIFFER_COMMON: usize = 4;

/// One member of the family: which of the blog's steps are switched on.
#[derive(Debug, Clone)]
pub struct FrequencyFamily {
    name: &'static str,
    probe_at: Option<usize>,
    differ: Option<(usize, usize)>,
}

impl FrequencyFamily {
    /// Step 1 only: always a pool word (never breaks the clues).
    pub fn candidates() -> FrequencyFamily {
        FrequencyFamily {
            name: "frequency-candidates",
            probe_at: None,
            differ: None,
        }
    }

    /// Steps 1 and 2: probe with unsettled letters while `probe_at` or more words remain.
    pub fn probe(probe_at: usize) -> FrequencyFamily {
        FrequencyFamily {
            name: "frequency-probe",
            probe_at: Some(probe_at),
            differ: None,
        }
    }

    /// All three steps: `min` or more pool words sharing `common` letters are told apart by a
    /// word of their differing letters.
    pub fn differing(probe_at: usize, min: usize, common: usize) -> FrequencyFamily {
        FrequencyFamily {
            name: "frequency-differing",
            probe_at: Some(probe_at),
            differ: Some((min, common)),
        }
    }
}

impl Player for FrequencyFamily {
    fn name(&self) -> &str {
        self.name
    }

    fn next(&self, game: &Game, _table: &FeedbackTable, situation: &Situation<'_>) -> GuessId {
        let pool = situation.pool;
        if let [only] = pool {
            return *only;
        }
        if let Some((min, common)) = self.differ {
            if pool.len() >= min {
                if let Some(guess) = differing_probe(game, pool, common) {
                    return guess;
                }
            }
        }
        if let Some(n) = self.probe_at {
            if pool.len() >= n {
                return unsettled_probe(game, situation);
            }
        }
        let counts = letter_counts(game, pool);
        best(pool.iter().copied(), |g| score(game, g, &counts))
    }

    fn mode(&self) -> Mode {
        if self.probe_at.is_none() && self.differ.is_none() {
            Mode::Strict
        } else {
            Mode::Normal
        }
    }

    fn uses_universe(&self) -> bool {
        true
    }
}

/// How often each letter occurs in the words, repeats included.
fn letter_counts(game: &Game, words: &[GuessId]) -> Vec<i64> {
    let mut counts = vec![0i64; game.alphabet().len()];
    for &w in words {
        for &l in game.guesses()[w as usize].letters() {
            counts[usize::from(l)] += 1;
        }
    }
    counts
}

/// The sum of the scores of a word's distinct letters.
fn score(game: &Game, guess: GuessId, scores: &[i64]) -> i64 {
    let letters = game.guesses()[guess as usize].letters();
    letters
        .iter()
        .enumerate()
        .filter(|(i, l)| !letters[..*i].contains(l))
        .map(|(_, &l)| scores[usize::from(l)])
        .sum()
}

/// The word with the largest key; the first in order wins ties.
fn best(words: impl Iterator<Item = GuessId>, key: impl Fn(GuessId) -> i64) -> GuessId {
    let mut best: Option<(i64, GuessId)> = None;
    for w in words {
        let k = key(w);
        if best.is_none_or(|(b, _)| k > b) {
            best = Some((k, w));
        }
    }
    best.map_or(0, |(_, w)| w)
}

/// Step 2: letters scored by the pool, settled letters (shown green, or only ever gray) at
/// −1, and among all allowed words the fewest yellow letters put back where they were yellow,
/// then the highest score.
fn unsettled_probe(game: &Game, situation: &Situation<'_>) -> GuessId {
    let mut scores = letter_counts(game, situation.pool);
    let mut yellow_at: Vec<(usize, u8)> = Vec::new();
    // Per letter: shown [gray, yellow, green] somewhere.
    let mut shown = vec![[false; 3]; scores.len()];
    for step in situation.steps {
        let word = &game.guesses()[step.guess as usize];
        let cells = step.pattern.cells(word.len());
        for (i, (&l, &cell)) in word.letters().iter().zip(&cells).enumerate() {
            shown[usize::from(l)][cell as usize] = true;
            if cell == Cell::Yellow {
                yellow_at.push((i, l));
            }
        }
    }
    for (s, [gray, yellow, green]) in scores.iter_mut().zip(&shown) {
        if *green || (*gray && !*yellow) {
            *s = -1;
        }
    }
    let guesses = 0..game.guesses().len() as GuessId;
    best(guesses, |g| {
        let letters = game.guesses()[g as usize].letters();
        let misplaced = yellow_at
            .iter()
            .filter(|&&(i, l)| letters.get(i) == Some(&l))
            .count() as i64;
        // Fewer misplaced yellows first, then the score (scores stay far below 2^40).
        -(misplaced << 40) + score(game, g, &scores)
    })
}

/// Step 3: when every pool word shares `common` or more distinct letters, the allowed word
/// with the most distinct letters found in some pool word but not in all; `None` when they
/// share fewer or differ in none (anagrams).
fn differing_probe(game: &Game, pool: &[GuessId], common: usize) -> Option<GuessId> {
    let letters = game.alphabet().len();
    let mut in_words = vec![0usize; letters];
    for &w in pool {
        let word = game.guesses()[w as usize].letters();
        for (i, &l) in word.iter().enumerate() {
            if !word[..i].contains(&l) {
                in_words[usize::from(l)] += 1;
            }
        }
    }
    let shared = in_words.iter().filter(|&&n| n == pool.len()).count();
    if shared < common {
        return None;
    }
    let scores: Vec<i64> = in_words
        .iter()
        .map(|&n| i64::from(n > 0 && n < pool.len()))
        .collect();
    if scores.iter().all(|&s| s == 0) {
        return None;
    }
    Some(best(0..game.guesses().len() as GuessId, |g| {
        score(game, g, &scores)
    }))
}
