//! The feedback table: every (guess, answer) pattern computed once, so searches only look up.

use rayon::prelude::*;

use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::pattern::{Pattern, PATTERNS};
use crate::rules::word::{Word, BOARD};

/// Most cells (guesses × answers) a table may have: it is stored twice, one byte a cell, so
/// this bounds it at 4 GiB. Larger games are refused when they are built, with an error
/// instead of a failed allocation.
pub const MAX_CELLS: usize = 1 << 31;

/// Patterns of all guesses against all answers, one byte each, row per guess.
#[derive(Debug, Clone)]
pub struct FeedbackTable {
    answers: usize,
    cells: Vec<u8>,
    /// The same patterns answer-major: scanning many guesses over a few answers then reads a
    /// few contiguous columns instead of one scattered byte per cache line.
    by_answer: Vec<u8>,
    /// How many distinct patterns each guess shows over all the answers: no subset of the
    /// answers can be split by the guess into more parts, which lets scans drop a guess
    /// before reading any of its patterns.
    parts: Vec<u16>,
}

impl FeedbackTable {
    /// Builds the table in parallel: rows with a branch-free kernel the compiler vectorises
    /// across answers, then the answer-major copy by a blocked transpose.
    pub fn build(game: &Game) -> FeedbackTable {
        let answers = AnswerColumns::new(game.answers());
        let width = answers.len;
        let guesses = game.guesses().len();
        let mut cells = vec![0u8; guesses * width];
        // Each row's distinct patterns are counted while the row is in cache.
        let parts = cells
            .par_chunks_mut(width.max(1))
            .zip(game.guesses().par_iter())
            .map(|(row, guess)| {
                answers.fill_row(guess, row);
                distinct_patterns(row)
            })
            .collect();
        let by_answer = transpose(&cells, guesses, width);
        FeedbackTable {
            answers: width,
            cells,
            by_answer,
            parts,
        }
    }

    /// The patterns every guess shows for one answer, indexed by guess id.
    #[inline]
    pub fn column(&self, answer: AnswerId) -> &[u8] {
        let guesses = self.guesses();
        let start = answer as usize * guesses;
        &self.by_answer[start..start + guesses]
    }

    /// The pattern `guess` shows when the answer is `answer`.
    #[inline]
    pub fn get(&self, guess: GuessId, answer: AnswerId) -> Pattern {
        Pattern(self.cells[guess as usize * self.answers + answer as usize])
    }

    /// The patterns of one guess against every answer, indexed by answer id.
    #[inline]
    pub fn row(&self, guess: GuessId) -> &[u8] {
        let start = guess as usize * self.answers;
        &self.cells[start..start + self.answers]
    }

    /// The number of distinct patterns `guess` shows over all the answers: an upper bound on
    /// the parts it splits any set of answers into (the winning one included).
    #[inline]
    pub fn parts(&self, guess: GuessId) -> u32 {
        self.parts
            .get(guess as usize)
            .map_or(PATTERNS as u32, |&parts| u32::from(parts))
    }

    /// Number of guesses (rows).
    pub fn guesses(&self) -> usize {
        self.cells.len() / self.answers.max(1)
    }
}

/// The number of distinct patterns in a row.
fn distinct_patterns(row: &[u8]) -> u16 {
    let mut seen = [false; PATTERNS];
    for &p in row {
        seen[usize::from(p)] = true;
    }
    seen.iter().filter(|&&s| s).count() as u16
}

/// The answers position by position (structure of arrays), so one guess is compared with
/// many answers at once.
struct AnswerColumns {
    len: usize,
    letters: [Vec<u8>; BOARD],
}

/// Weight of each position in a pattern code (position 0 is the most significant digit).
const WEIGHTS: [u8; BOARD] = [81, 27, 9, 3, 1];

impl AnswerColumns {
    fn new(answers: &[Word]) -> AnswerColumns {
        let letters = std::array::from_fn(|position| {
            answers
                .iter()
                .map(|a| a.letters().get(position).copied().unwrap_or(0))
                .collect()
        });
        AnswerColumns {
            len: answers.len(),
            letters,
        }
    }

    /// Writes the pattern of `guess` against every answer into `row`.
    ///
    /// The same rule as [`crate::rules::pattern::feedback`], restated without branches: a guess
    /// letter that is not green is yellow exactly when the answer's non-green positions hold
    /// more copies of it than the guess's earlier non-green positions do (those copies are
    /// taken first, left to right). Answers always fill the board.
    fn fill_row(&self, guess: &Word, row: &mut [u8]) {
        let mut g = [0u8; BOARD];
        let mut active = [0u8; BOARD];
        for (i, &letter) in guess.letters().iter().enumerate() {
            g[i] = letter;
            active[i] = 1;
        }
        // same[i][k] = 1 when an earlier guess position k < i has the same letter.
        let mut same = [[0u8; BOARD]; BOARD];
        for i in 0..BOARD {
            for k in 0..i {
                same[i][k] = u8::from(active[k] == 1 && g[k] == g[i]);
            }
        }
        let [c0, c1, c2, c3, c4] = &self.letters;
        let columns = c0.iter().zip(c1).zip(c2).zip(c3).zip(c4);
        for (cell, ((((&a0, &a1), &a2), &a3), &a4)) in row.iter_mut().zip(columns) {
            let a = [a0, a1, a2, a3, a4];
            let mut green = [0u8; BOARD];
            let mut open = [0u8; BOARD];
            for j in 0..BOARD {
                green[j] = active[j] & u8::from(a[j] == g[j]);
                open[j] = 1 - green[j];
            }
            let mut code = 0u8;
            for i in 0..BOARD {
                let mut copies = 0u8;
                for j in 0..BOARD {
                    copies += u8::from(a[j] == g[i]) & open[j];
                }
                let mut earlier = 0u8;
                for k in 0..BOARD {
                    earlier += same[i][k] & open[k];
                }
                let yellow = active[i] & open[i] & u8::from(copies > earlier);
                code += (2 * green[i] + yellow) * WEIGHTS[i];
            }
            *cell = code;
        }
    }
}

/// The guess-major table turned answer-major, a block of answers per task so each task
/// reads short row segments and writes a few columns sequentially.
fn transpose(cells: &[u8], guesses: usize, answers: usize) -> Vec<u8> {
    const BLOCK: usize = 64;
    let mut by_answer = vec![0u8; cells.len()];
    if guesses == 0 || answers == 0 {
        return by_answer;
    }
    by_answer
        .par_chunks_mut(BLOCK * guesses)
        .enumerate()
        .for_each(|(block, out)| {
            let first = block * BLOCK;
            let count = out.len() / guesses;
            for g in 0..guesses {
                let src = &cells[g * answers + first..g * answers + first + count];
                for (t, &pattern) in src.iter().enumerate() {
                    out[t * guesses + g] = pattern;
                }
            }
        });
    by_answer
}
