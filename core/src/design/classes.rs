//! What a partly written string already tells about the answers: the classes of answers its
//! placed letters cannot tell apart, the quantity both design bounds are built on.
//!
//! With letters x_i placed at the positions of a set K, let Q(a) be, for an answer a, the
//! green bits [a_i = x_i] for i in K together with the number of copies of each distinct
//! placed letter in a. Whatever letters fill the other positions, the feedback P(a) of the
//! full string is a function of Q(a) and the cells of the free positions:
//! - a free cell is green exactly when the answer has its letter there, so the free cells give
//!   every green of the free positions, and Q gives the greens of the placed ones;
//! - a placed cell that is not green is yellow exactly when the answer's non-green positions
//!   hold more copies of its letter than the earlier non-green positions of the string use;
//!   Q gives the answer's copies, and the greens and the string say how many are used.
//!
//! So within one class of Q at most 3^m patterns occur (m free positions), and no more than
//! the class has answers. [`Classes`] keeps Q as a class id per answer.

use super::Letters;
use crate::rules::word::BOARD;

/// The answers as letter arrays, with per-answer letter counts ready for the bounds.
#[derive(Debug, Clone)]
pub struct Answers {
    /// Every answer's letters.
    pub letters: Vec<Letters>,
}

impl Answers {
    /// The game's answers (all fill the board).
    pub fn new(game: &crate::rules::game::Game) -> Answers {
        Answers {
            letters: game
                .answers()
                .iter()
                .map(|w| {
                    let mut l = [0u8; BOARD];
                    l.copy_from_slice(w.letters());
                    l
                })
                .collect(),
        }
    }

    /// Number of answers.
    pub fn len(&self) -> usize {
        self.letters.len()
    }

    /// True for an empty answer list (never for a game).
    pub fn is_empty(&self) -> bool {
        self.letters.is_empty()
    }
}

/// Copies of `letter` in `answer`.
pub fn copies(answer: &Letters, letter: u8) -> u8 {
    answer.iter().filter(|&&l| l == letter).count() as u8
}

/// The classes of Q for the letters placed so far.
#[derive(Debug, Clone)]
pub struct Classes {
    /// Class id of each answer, compact from 0.
    pub of: Vec<u32>,
    /// Number of answers in each class.
    pub sizes: Vec<u32>,
    /// The distinct letters placed so far (their copy counts are already in the classes).
    pub placed: Vec<u8>,
}

impl Classes {
    /// Nothing placed: one class of all answers.
    pub fn root(answers: &Answers) -> Classes {
        Classes {
            of: vec![0; answers.len()],
            sizes: vec![answers.len() as u32],
            placed: Vec::new(),
        }
    }

    /// The classes after placing `letter` at `position`.
    pub fn place(&self, answers: &Answers, position: usize, letter: u8) -> Classes {
        let new_letter = !self.placed.contains(&letter);
        // Sub-key: green bit and (for a letter not placed before) its copies, at most 5.
        let mut index = vec![u32::MAX; self.sizes.len() * 16];
        let mut of = Vec::with_capacity(self.of.len());
        let mut sizes = Vec::new();
        for (answer, &class) in answers.letters.iter().zip(&self.of) {
            let green = u32::from(answer[position] == letter);
            let count = if new_letter {
                u32::from(copies(answer, letter))
            } else {
                0
            };
            let slot = &mut index[class as usize * 16 + (green * 8 + count) as usize];
            if *slot == u32::MAX {
                *slot = sizes.len() as u32;
                sizes.push(0);
            }
            sizes[*slot as usize] += 1;
            of.push(*slot);
        }
        let mut placed = self.placed.clone();
        if new_letter {
            placed.push(letter);
        }
        Classes { of, sizes, placed }
    }

    /// Entropy in bits of the class distribution (answers equally likely).
    pub fn entropy(&self) -> f64 {
        let n: u32 = self.sizes.iter().sum();
        entropy_of_sizes(self.sizes.iter().copied(), n)
    }
}

/// Entropy in bits of a distribution given by counts summing to `n`.
pub fn entropy_of_sizes(sizes: impl Iterator<Item = u32>, n: u32) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let sum: f64 = sizes
        .filter(|&s| s > 1)
        .map(|s| {
            let s = f64::from(s);
            s * s.log2()
        })
        .sum();
    f64::from(n).log2() - sum / f64::from(n)
}
