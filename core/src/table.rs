//! The feedback table: every (guess, answer) pattern computed once, so searches only look up.

use rayon::prelude::*;

use crate::game::{AnswerId, Game, GuessId};
use crate::pattern::{Pattern, PATTERNS};
use crate::word::{Word, BOARD};

/// Most cells (guesses × answers) a table may have: it is stored twice, one byte a cell, so
/// this bounds it at 4 GiB. Larger games are refused when they are built, with an error
/// instead of a failed allocation.
pub const MAX_CELLS: usize = 1 << 31;

/// Patterns of all guesses against all answers, one byte each, row per guess.
#[derive(Debug, Clone)]
pub struct FeedbackTable {
    answers: usize,
    cells: Cells,
    /// The same patterns answer-major: scanning many guesses over a few answers then reads a
    /// few contiguous columns instead of one scattered byte per cache line.
    by_answer: Cells,
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
            cells: Cells::Built(cells),
            by_answer: Cells::Built(by_answer),
            parts,
        }
    }

    /// A table whose patterns are read from `cells` (guess-major) and `by_answer`
    /// (answer-major), bytes that outlive the process's tables: how processes on one machine
    /// share one copy of a large table, so their caches hold it once. Plain slices, because
    /// the solver's innermost loops fetch rows and columns. The caller has checked the bytes
    /// ([`crate::table_image`] does).
    pub(crate) fn from_shared(
        answers: usize,
        cells: &'static [u8],
        by_answer: &'static [u8],
        parts: Vec<u16>,
    ) -> FeedbackTable {
        FeedbackTable {
            answers,
            cells: Cells::Shared(cells),
            by_answer: Cells::Shared(by_answer),
            parts,
        }
    }

    /// All patterns guess-major (row after row).
    pub fn rows(&self) -> &[u8] {
        self.cells.bytes()
    }

    /// All patterns answer-major (column after column).
    pub fn columns(&self) -> &[u8] {
        self.by_answer.bytes()
    }

    /// Every guess's distinct pattern count, by guess id.
    pub fn part_counts(&self) -> &[u16] {
        &self.parts
    }

    /// The patterns every guess shows for one answer, indexed by guess id.
    #[inline]
    pub fn column(&self, answer: AnswerId) -> &[u8] {
        let guesses = self.guesses();
        let start = answer as usize * guesses;
        &self.by_answer.bytes()[start..start + guesses]
    }

    /// The pattern `guess` shows when the answer is `answer`.
    #[inline]
    pub fn get(&self, guess: GuessId, answer: AnswerId) -> Pattern {
        Pattern(self.cells.bytes()[guess as usize * self.answers + answer as usize])
    }

    /// The patterns of one guess against every answer, indexed by answer id.
    #[inline]
    pub fn row(&self, guess: GuessId) -> &[u8] {
        let start = guess as usize * self.answers;
        &self.cells.bytes()[start..start + self.answers]
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
        self.parts.len()
    }

    /// Number of answers (columns).
    pub fn answers(&self) -> usize {
        self.answers
    }
}

/// Where one copy of the patterns lives.
#[derive(Clone)]
enum Cells {
    /// Computed by this process.
    Built(Vec<u8>),
    /// Shared with other processes (a mapped file, never unmapped).
    Shared(&'static [u8]),
}

impl Cells {
    #[inline]
    fn bytes(&self) -> &[u8] {
        match self {
            Cells::Built(cells) => cells,
            Cells::Shared(cells) => cells,
        }
    }
}

impl std::fmt::Debug for Cells {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cells::Built(cells) => write!(f, "Built({} bytes)", cells.len()),
            Cells::Shared(cells) => write!(f, "Shared({} bytes)", cells.len()),
        }
    }
}

/// The rows of `guesses` computed afresh, for checking a table this process did not build.
pub(crate) fn recompute_rows(game: &Game, guesses: &[GuessId]) -> Vec<Vec<u8>> {
    let answers = AnswerColumns::new(game.answers());
    guesses
        .iter()
        .map(|&g| {
            let mut row = vec![0u8; answers.len];
            answers.fill_row(&game.guesses()[g as usize], &mut row);
            row
        })
        .collect()
}

/// The number of distinct patterns in a row.
pub(crate) fn distinct_patterns(row: &[u8]) -> u16 {
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
    /// The same rule as [`crate::pattern::feedback`], restated without branches: a guess
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
