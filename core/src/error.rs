//! Typed errors of the core library: every bad input a user can give becomes one of these,
//! never a panic.

use thiserror::Error;

use crate::plural::plural;

/// Everything that can go wrong while loading games or reading user input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Error {
    /// Word lists come from user files; the line number lets them fix the file.
    #[error("{list}: line {line} is not valid UTF-8")]
    InvalidUtf8 {
        /// The list's name or path, as the user gave it.
        list: String,
        /// The 1-based line in the list.
        line: usize,
    },
    /// A list that is empty after blank lines are removed cannot define a game.
    #[error("{list}: the list is empty")]
    EmptyList {
        /// The list's name or path, as the user gave it.
        list: String,
    },
    /// The same word twice would silently double-count an answer.
    #[error("{list}: {word:?} appears twice (lines {first} and {second})")]
    Duplicate {
        /// The list's name or path, as the user gave it.
        list: String,
        /// The word as read.
        word: String,
        /// The line of its first appearance.
        first: usize,
        /// The line of its second appearance.
        second: usize,
    },
    /// Answers fill the whole board.
    #[error(
        "{list}: line {line}: answer {word:?} has {}, answers must have exactly {board}",
        plural(*len as u64, "letter", "letters")
    )]
    AnswerLength {
        /// The list's name or path, as the user gave it.
        list: String,
        /// The 1-based line in the list.
        line: usize,
        /// The word as read.
        word: String,
        /// Its length in letters.
        len: usize,
        /// The board's length in letters.
        board: usize,
    },
    /// Guesses may be shorter than the board but never longer.
    #[error(
        "{list}: line {line}: {word:?} has {}, more than the board's {board}",
        plural(*len as u64, "letter", "letters")
    )]
    GuessTooLong {
        /// The list's name or path, as the user gave it.
        list: String,
        /// The 1-based line in the list.
        line: usize,
        /// The word as read.
        word: String,
        /// Its length in letters.
        len: usize,
        /// The board's length in letters.
        board: usize,
    },
    /// Letters are stored in one byte each.
    #[error("the word lists use more than 255 distinct letters")]
    TooManyLetters,
    /// The game's tries must allow at least one guess.
    #[error("tries must be between 1 and 64, got {0}")]
    BadTries(u32),
    /// A word the user typed is not an allowed guess of this game, named (the default game
    /// is easily forgotten); the closest allowed guesses help them fix a typo, and the preset
    /// the word does belong to, if any, tells them which game they meant.
    #[error(
        "\"{word}\" is not an allowed guess in {game}{}{}",
        did_you_mean(suggestions),
        belongs_to(elsewhere)
    )]
    UnknownWord {
        /// The word as read.
        word: String,
        /// The game's name (boxed, and `elsewhere` static, so every error stays small).
        game: Box<str>,
        /// The closest allowed guesses, best first (may be empty).
        suggestions: Vec<String>,
        /// A preset game whose guesses include the word.
        elsewhere: Option<&'static str>,
    },
    /// A word given as the answer that is no word of this game at all; the closest words
    /// that could be answers help fix a typo.
    #[error(
        "\"{word}\" is not a word of {game}, so it cannot be the answer{}{}",
        did_you_mean(suggestions),
        belongs_to(elsewhere)
    )]
    UnknownAnswer {
        /// The word as read.
        word: String,
        /// The game's name (boxed, and `elsewhere` static, so every error stays small).
        game: Box<str>,
        /// The closest words of answer length, best first (may be empty).
        suggestions: Vec<String>,
        /// A preset game whose guesses include the word.
        elsewhere: Option<&'static str>,
    },
    /// A word that may be guessed but is never the answer, where an answer is required.
    #[error("\"{word}\" is an allowed guess but never the answer in {game}")]
    NotAnAnswer {
        /// The word as read.
        word: String,
        /// The game's name (boxed, and `elsewhere` static, so every error stays small).
        game: Box<str>,
    },
    /// A pattern the user typed could not be read.
    #[error("cannot read pattern {text:?}: {why}")]
    BadPattern {
        /// The text as typed.
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// A history step whose clues no answer fits; `step` is 1-based.
    #[error("step {step} ({guess} {pattern}): {why}")]
    InconsistentHistory {
        /// The 1-based step of the history.
        step: usize,
        /// The step's guess.
        guess: String,
        /// The step's pattern.
        pattern: String,
        /// What is wrong with it.
        why: String,
    },
    /// The feedback table (guesses × answers, twice) would not fit in memory.
    #[error(
        "{guesses} guesses × {answers} answers make a feedback table of {size}, more than the \
         {limit_gib} GiB hakase allows; use shorter lists"
    )]
    TooLarge {
        /// Allowed guesses in the game.
        guesses: usize,
        /// Answers in the game.
        answers: usize,
        /// The table's size, human-readable.
        size: String,
        /// The largest table hakase builds, in GiB.
        limit_gib: usize,
    },
    /// A word with a control character (NUL, an escape, a tab inside the word): never a
    /// letter, and in a log or a terminal it could pass for something else.
    #[error("{list}: line {line}: the word holds the control character U+{code:04X}")]
    ControlCharacter {
        /// The list's name or path, as the user gave it.
        list: String,
        /// The 1-based line in the list.
        line: usize,
        /// The character's code point.
        code: u32,
    },
    /// Preset names and generation ranges are typed by users.
    #[error("unknown game {name:?}: {why}")]
    UnknownGame {
        /// The name as typed.
        name: String,
        /// What is wrong with it.
        why: String,
    },
}

/// "; did you mean A, B or C?" for a non-empty list, else nothing.
fn did_you_mean(suggestions: &[String]) -> String {
    match suggestions {
        [] => String::new(),
        [one] => format!("; did you mean {one}?"),
        [rest @ .., last] => format!("; did you mean {} or {last}?", rest.join(", ")),
    }
}

/// "; it is a word of G (--game G)" when the word belongs to preset G, else nothing.
fn belongs_to(elsewhere: &Option<&str>) -> String {
    elsewhere.map_or_else(String::new, |g| {
        format!("; it is a word of {g} (--game {g})")
    })
}

/// Result alias used throughout the core library.
pub type Result<T, E = Error> = std::result::Result<T, E>;
