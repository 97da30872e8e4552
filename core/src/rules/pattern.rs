//! Feedback patterns: the game's colouring rule and the ways people write colours.

use crate::plural::plural;
use std::fmt::Write as _;

use crate::error::{Error, Result};
use crate::rules::word::{Word, BOARD};

/// One cell of feedback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cell {
    /// The letter is not in the answer (or all its copies are already accounted for).
    Gray = 0,
    /// The letter is in the answer at another position.
    Yellow = 1,
    /// The letter is in the answer at this position.
    Green = 2,
}

/// A whole row of feedback as a base-3 number in one byte: position 0 is the most
/// significant digit, so sorting patterns sorts them as the charts list them
/// (灰灰灰灰灰 first). Positions beyond a short guess are zero.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[repr(transparent)]
pub struct Pattern(pub u8);

/// Number of distinct pattern codes (3^5).
pub const PATTERNS: usize = 243;

impl Pattern {
    /// The winning pattern: five greens.
    pub const ALL_GREEN: Pattern = Pattern((PATTERNS - 1) as u8);

    /// Builds a pattern from cells (at most [`BOARD`]).
    pub fn from_cells(cells: &[Cell]) -> Pattern {
        let mut code = 0u8;
        for position in 0..BOARD {
            let digit = cells.get(position).map_or(0, |&c| c as u8);
            code = code * 3 + digit;
        }
        Pattern(code)
    }

    /// The first `len` cells.
    pub fn cells(self, len: usize) -> Vec<Cell> {
        self.cell_array()[..len.min(BOARD)].to_vec()
    }

    /// All [`BOARD`] cells, first position first, without allocating (hot in hard mode).
    pub fn cell_array(self) -> [Cell; BOARD] {
        let mut digits = [Cell::Gray; BOARD];
        let mut code = self.0;
        for slot in digits.iter_mut().rev() {
            *slot = match code % 3 {
                0 => Cell::Gray,
                1 => Cell::Yellow,
                _ => Cell::Green,
            };
            code /= 3;
        }
        digits
    }

    /// True for the winning pattern.
    pub fn is_win(self) -> bool {
        self == Pattern::ALL_GREEN
    }

    /// Writes the first `len` cells in `style`.
    pub fn format(self, len: usize, style: PatternStyle) -> String {
        let mut out = String::new();
        for cell in self.cells(len) {
            let _ = write!(out, "{}", style.symbol(cell));
        }
        out
    }

    /// Reads a pattern typed for a guess of `len` letters; every style is accepted.
    pub fn parse(text: &str, len: usize) -> Result<Pattern> {
        let bad = |why: String| Error::BadPattern {
            text: text.to_string(),
            why,
        };
        if len > BOARD {
            return Err(bad(format!(
                "a guess has at most {BOARD} letters, not {len}"
            )));
        }
        let mut cells = Vec::with_capacity(BOARD);
        for ch in text.trim().chars() {
            // Emoji may carry a variation selector; it is not a cell.
            if ch == '\u{FE0F}' {
                continue;
            }
            cells.push(cell_of(ch).ok_or_else(|| {
                bad(format!(
                    "{ch:?} is not a colour (use 灰黄緑, B/Y/G, ⬛🟨🟩 or 0/1/2)"
                ))
            })?);
        }
        if cells.len() != len {
            return Err(bad(format!(
                "it has {} but the guess has {}",
                plural(cells.len() as u64, "cell", "cells"),
                plural(len as u64, "letter", "letters")
            )));
        }
        Ok(Pattern::from_cells(&cells))
    }
}

fn cell_of(ch: char) -> Option<Cell> {
    match ch {
        '灰' | '0' | 'B' | 'b' | 'X' | 'x' | '-' | '.' | '⬛' | '⬜' | '□' | '■' => {
            Some(Cell::Gray)
        }
        '黄' | '1' | 'Y' | 'y' | '🟨' => Some(Cell::Yellow),
        '緑' | '2' | 'G' | 'g' | '🟩' => Some(Cell::Green),
        _ => None,
    }
}

/// How patterns are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PatternStyle {
    /// 灰黄緑: how Japanese players write Pokémon Wordle feedback.
    Kanji,
    /// BYG: how English Wordle solvers write it in plain text.
    Letters,
    /// ⬛🟨🟩: what the game shares.
    Emoji,
    /// 012: compact and language-neutral.
    Digits,
}

impl PatternStyle {
    fn symbol(self, cell: Cell) -> &'static str {
        const TABLE: [[&str; 3]; 4] = [
            ["灰", "黄", "緑"],
            ["B", "Y", "G"],
            ["⬛", "🟨", "🟩"],
            ["0", "1", "2"],
        ];
        TABLE[self as usize][cell as usize]
    }
}

impl std::str::FromStr for PatternStyle {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "kanji" | "灰黄緑" => Ok(PatternStyle::Kanji),
            "letters" | "byg" | "BYG" => Ok(PatternStyle::Letters),
            "emoji" => Ok(PatternStyle::Emoji),
            "digits" | "012" => Ok(PatternStyle::Digits),
            other => Err(format!(
                "unknown pattern style {other:?} (kanji, letters, emoji, digits)"
            )),
        }
    }
}

/// The feedback the game shows for `guess` when the answer is `answer`.
///
/// Greens first; then, left to right, a guess letter is yellow while the answer still has an
/// unmatched copy of it, otherwise gray. A guess shorter than the board compares by position.
#[inline]
pub fn feedback(guess: &Word, answer: &Word) -> Pattern {
    let g = guess.letters();
    let a = answer.letters();
    let mut digits = [0u8; BOARD];
    let mut used = 0u8;
    for i in 0..g.len() {
        if i < a.len() && g[i] == a[i] {
            digits[i] = 2;
            used |= 1 << i;
        }
    }
    for i in 0..g.len() {
        if digits[i] != 0 {
            continue;
        }
        for (j, &letter) in a.iter().enumerate() {
            if used & (1 << j) == 0 && letter == g[i] {
                digits[i] = 1;
                used |= 1 << j;
                break;
            }
        }
    }
    Pattern(digits.iter().fold(0u8, |code, &digit| code * 3 + digit))
}
