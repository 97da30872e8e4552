//! A game: rules plus its two word lists, encoded once and shared by everything else.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::rules::alphabet::Alphabet;
use crate::rules::normalize::{echo, normalize_word};
use crate::rules::pattern::PatternStyle;
use crate::rules::word::{Word, BOARD};

/// Index of a word in the game's guess list.
pub type GuessId = u32;
/// Index of a word in the game's answer list.
pub type AnswerId = u32;

/// A Wordle-family game. Every answer is also an allowed guess (the game always lets the
/// player type the answer); answers missing from the guess list are appended to it.
#[derive(Debug, Clone)]
pub struct Game {
    name: String,
    tries: u8,
    style: PatternStyle,
    alphabet: Alphabet,
    guesses: Vec<Word>,
    guess_text: Vec<String>,
    answers: Vec<Word>,
    answer_text: Vec<String>,
    answer_guess: Vec<GuessId>,
    guess_answer: Vec<Option<AnswerId>>,
    lookup: HashMap<String, GuessId>,
    fingerprint: String,
}

/// A word list as read: the words with their line numbers, and a label for messages.
#[derive(Debug, Clone)]
pub struct WordListInput {
    /// Where the list came from, for error messages.
    pub label: String,
    /// Each word with its 1-based line number.
    pub words: Vec<(usize, String)>,
}

impl WordListInput {
    /// A list built in code (line numbers are positions).
    pub fn from_words<S: AsRef<str>>(label: &str, words: &[S]) -> Self {
        WordListInput {
            label: label.to_string(),
            words: words
                .iter()
                .enumerate()
                .map(|(i, w)| (i + 1, w.as_ref().to_string()))
                .collect(),
        }
    }
}

impl WordListInput {
    /// The same list with every word in its canonical spelling ([`normalize_word`]).
    fn normalized(mut self) -> Self {
        for (_, word) in &mut self.words {
            *word = normalize_word(word);
        }
        self
    }
}

impl Game {
    /// Validates and encodes a game. Errors name the list and line of the first bad word.
    pub fn new(
        name: &str,
        guesses: WordListInput,
        answers: WordListInput,
        tries: u32,
        style: PatternStyle,
    ) -> Result<Game> {
        if !(1..=64).contains(&tries) {
            return Err(Error::BadTries(tries));
        }
        // Lists are spelled like typed words, so `CRANE` in a file is the word `crane`.
        let (guesses, answers) = (guesses.normalized(), answers.normalized());
        check_list(&guesses, false)?;
        check_list(&answers, true)?;
        let mut alphabet = Alphabet::default();
        let mut game = Game {
            name: name.to_string(),
            tries: tries as u8,
            style,
            alphabet: Alphabet::default(),
            guesses: Vec::new(),
            guess_text: Vec::new(),
            answers: Vec::new(),
            answer_text: Vec::new(),
            answer_guess: Vec::new(),
            guess_answer: Vec::new(),
            lookup: HashMap::new(),
            fingerprint: String::new(),
        };
        for (_, text) in &guesses.words {
            game.push_guess(text, &mut alphabet)?;
        }
        for (_, text) in &answers.words {
            let word = Word::encode(text, &mut alphabet)?;
            let guess = match game.lookup.get(text) {
                Some(&g) => g,
                None => game.push_guess(text, &mut alphabet)?,
            };
            let id = game.answers.len() as AnswerId;
            game.guess_answer[guess as usize] = Some(id);
            game.answers.push(word);
            game.answer_text.push(text.clone());
            game.answer_guess.push(guess);
        }
        let cells = game.guesses.len().saturating_mul(game.answers.len());
        if cells > crate::rules::table::MAX_CELLS {
            return Err(Error::TooLarge {
                guesses: game.guesses.len(),
                answers: game.answers.len(),
                size: format!("{:.1} GiB", 2.0 * cells as f64 / (1u64 << 30) as f64),
                limit_gib: (2 * crate::rules::table::MAX_CELLS) >> 30,
            });
        }
        game.alphabet = alphabet;
        game.fingerprint = game.compute_fingerprint();
        Ok(game)
    }

    fn push_guess(&mut self, text: &str, alphabet: &mut Alphabet) -> Result<GuessId> {
        let id = self.guesses.len() as GuessId;
        self.guesses.push(Word::encode(text, alphabet)?);
        self.guess_text.push(text.to_string());
        self.guess_answer.push(None);
        self.lookup.insert(text.to_string(), id);
        Ok(id)
    }

    fn compute_fingerprint(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(b"hakase-game-v1\0");
        hasher.update([self.tries, BOARD as u8]);
        for list in [&self.guess_text, &self.answer_text] {
            hasher.update((list.len() as u64).to_le_bytes());
            for word in list {
                hasher.update(word.as_bytes());
                hasher.update([0]);
            }
        }
        let digest = hasher.finalize();
        digest[..8].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The preset or file name the game was built from.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Guesses allowed to find the answer.
    pub fn tries(&self) -> u32 {
        u32::from(self.tries)
    }

    /// How this game's players write patterns.
    pub fn style(&self) -> PatternStyle {
        self.style
    }

    /// Hash of the rules and both lists: runs and caches of different games never mix.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The letters the lists use.
    pub fn alphabet(&self) -> &Alphabet {
        &self.alphabet
    }

    /// All allowed guesses, in list order (Pokédex order for Pokémon presets).
    pub fn guesses(&self) -> &[Word] {
        &self.guesses
    }

    /// All possible answers, in list order.
    pub fn answers(&self) -> &[Word] {
        &self.answers
    }

    /// Display text of a guess.
    pub fn guess_text(&self, id: GuessId) -> &str {
        &self.guess_text[id as usize]
    }

    /// Display text of an answer.
    pub fn answer_text(&self, id: AnswerId) -> &str {
        &self.answer_text[id as usize]
    }

    /// The guess id under which an answer can be typed.
    pub fn answer_as_guess(&self, answer: AnswerId) -> GuessId {
        self.answer_guess[answer as usize]
    }

    /// The answer a guess would be, if it is one.
    pub fn guess_as_answer(&self, guess: GuessId) -> Option<AnswerId> {
        self.guess_answer[guess as usize]
    }

    /// Finds a typed word: its canonical spelling ([`normalize_word`]: any case, half-width
    /// katakana or hiragana), then with ASCII letters and digits widened to full width
    /// (ポリゴン2 → ポリゴン２, ポリゴンz → ポリゴンＺ). An unknown word's error suggests the
    /// closest allowed guesses.
    pub fn find_guess(&self, text: &str) -> Result<GuessId> {
        self.lookup_guess(text).ok_or_else(|| {
            let word = normalize_word(text);
            Error::UnknownWord {
                suggestions: self.closest_guesses(&word, 3),
                game: self.name.as_str().into(),
                elsewhere: crate::rules::presets::preset_with_guess(&word, &self.name),
                word: echo(&word),
            }
        })
    }

    /// The guess a typed word is, spelled as [`Game::find_guess`] reads it; `None` without
    /// the work of suggestions.
    pub fn lookup_guess(&self, text: &str) -> Option<GuessId> {
        let text = normalize_word(text);
        let widen = |t: &str| -> String {
            t.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap_or(c)
                    } else {
                        c
                    }
                })
                .collect()
        };
        [
            text.clone(),
            widen(&text),
            widen(&text.to_ascii_uppercase()),
        ]
        .iter()
        .find_map(|t| self.lookup.get(t).copied())
    }

    /// Up to `limit` allowed guesses closest to `text` by edit distance (one edit for words
    /// of up to 3 letters, two for longer ones), closest first, for "did you mean" hints.
    /// Only guesses whose length is within that distance of the text's are compared: the
    /// length difference alone bounds the distance from below, so a long text costs nothing.
    pub fn closest_guesses(&self, text: &str, limit: usize) -> Vec<String> {
        let len = text.chars().count();
        let most = if len <= 3 { 1 } else { 2 };
        if len > BOARD + most {
            return Vec::new();
        }
        let mut scored: Vec<(usize, &String)> = self
            .guess_text
            .iter()
            .zip(&self.guesses)
            .filter(|(_, word)| word.len().abs_diff(len) <= most)
            .map(|(g, _)| (strsim::levenshtein(text, g), g))
            .filter(|(d, _)| *d <= most)
            .collect();
        scored.sort();
        scored
            .into_iter()
            .take(limit)
            .map(|(_, g)| g.clone())
            .collect()
    }

    /// Finds a typed word given as the answer: any word of the game (it need not be among
    /// the possible answers), reported as an unknown *answer* when it is none.
    pub fn find_answer_word(&self, text: &str) -> Result<GuessId> {
        self.find_guess(text).map_err(|e| match e {
            Error::UnknownWord {
                word,
                game,
                suggestions,
                elsewhere,
            } => Error::UnknownAnswer {
                word,
                game,
                suggestions: suggestions
                    .into_iter()
                    .filter(|s| s.chars().count() == BOARD)
                    .collect(),
                elsewhere,
            },
            other => other,
        })
    }

    /// Finds a typed word that must be a possible answer.
    pub fn find_answer(&self, text: &str) -> Result<AnswerId> {
        let guess = self.find_answer_word(text)?;
        self.guess_as_answer(guess)
            .ok_or_else(|| Error::NotAnAnswer {
                word: normalize_word(text),
                game: self.name.as_str().into(),
            })
    }

    /// All answer ids: the candidate set before any guess.
    pub fn all_answers(&self) -> Vec<AnswerId> {
        (0..self.answers.len() as AnswerId).collect()
    }
}

fn check_list(list: &WordListInput, answers: bool) -> Result<()> {
    if list.words.is_empty() {
        return Err(Error::EmptyList {
            list: list.label.clone(),
        });
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (line, word) in &list.words {
        if let Some(control) = word.chars().find(|c| c.is_control()) {
            return Err(Error::ControlCharacter {
                list: list.label.clone(),
                line: *line,
                code: u32::from(control),
            });
        }
        let len = word.chars().count();
        if answers && len != BOARD {
            return Err(Error::AnswerLength {
                list: list.label.clone(),
                line: *line,
                word: word.clone(),
                len,
                board: BOARD,
            });
        }
        if len > BOARD || len == 0 {
            return Err(Error::GuessTooLong {
                list: list.label.clone(),
                line: *line,
                word: word.clone(),
                len,
                board: BOARD,
            });
        }
        if let Some(first) = seen.insert(word, *line) {
            return Err(Error::Duplicate {
                list: list.label.clone(),
                word: word.clone(),
                first,
                second: *line,
            });
        }
    }
    Ok(())
}
