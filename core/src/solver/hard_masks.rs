//! Hard mode's allowed guesses as bit sets: one set per atomic constraint ("letter L at
//! position i", "at least k copies of L"), built once per game, so the guesses a state allows
//! are the AND of a handful of sets instead of a test of every word against every constraint.
//!
//! A [`HardState`] is a conjunction of such atoms (its greens and its `at_least` counts), so
//! the guesses it allows are exactly the intersection of the atoms' sets; a child's list is its
//! parent's list filtered by one bit per guess.

use super::hard::HardState;
use super::Solver;
use crate::rules::game::GuessId;
use crate::rules::word::{Word, BOARD};

/// Bits per block of a set.
const BITS: usize = 64;

/// The guesses satisfying each atomic hard-mode constraint.
pub(crate) struct HardMasks {
    /// u64 blocks per set (guesses / 64, rounded up).
    blocks: usize,
    /// Distinct letter ids: letters at or above are in no guess.
    letters: usize,
    /// `[position][letter]`: guesses with `letter` at `position`.
    green: Vec<u64>,
    /// `[letter][copies − 1]`, copies 1..=BOARD: guesses with at least that many `letter`s.
    copies: Vec<u64>,
}

/// The guesses one hard-mode state allows, as a bit set over guess ids.
pub(crate) struct Allowed {
    bits: Vec<u64>,
}

impl Allowed {
    /// True when guess `g` satisfies the state.
    #[inline]
    pub(crate) fn contains(&self, g: GuessId) -> bool {
        let g = g as usize;
        self.bits
            .get(g / BITS)
            .is_some_and(|block| (block >> (g % BITS)) & 1 == 1)
    }

    /// The allowed guesses in ascending id order.
    pub(crate) fn ids(&self) -> Vec<GuessId> {
        let count = self.bits.iter().map(|b| b.count_ones() as usize).sum();
        let mut out = Vec::with_capacity(count);
        for (at, &block) in self.bits.iter().enumerate() {
            let mut rest = block;
            while rest != 0 {
                out.push((at * BITS + rest.trailing_zeros() as usize) as GuessId);
                rest &= rest - 1;
            }
        }
        out
    }
}

impl HardMasks {
    /// The atom sets of a guess list.
    pub(crate) fn build(guesses: &[Word]) -> HardMasks {
        let blocks = guesses.len().div_ceil(BITS);
        let letters = guesses
            .iter()
            .flat_map(|w| w.letters().iter())
            .map(|&l| usize::from(l) + 1)
            .max()
            .unwrap_or(0);
        let mut green = vec![0u64; BOARD * letters * blocks];
        let mut copies = vec![0u64; letters * BOARD * blocks];
        for (g, word) in guesses.iter().enumerate() {
            let (block, bit) = (g / BITS, 1u64 << (g % BITS));
            let mut count = [0usize; 256];
            for (position, &letter) in word.letters().iter().enumerate() {
                let letter = usize::from(letter);
                green[(position * letters + letter) * blocks + block] |= bit;
                count[letter] += 1;
                // A word with c copies has "at least k" for every k ≤ c.
                let k = count[letter];
                copies[(letter * BOARD + k - 1) * blocks + block] |= bit;
            }
        }
        HardMasks {
            blocks,
            letters,
            green,
            copies,
        }
    }

    /// The guesses `hard` allows; `None` when it constrains nothing (every guess allowed).
    pub(crate) fn allowed(&self, hard: &HardState) -> Option<Allowed> {
        if hard.is_free() {
            return None;
        }
        let mut bits = vec![u64::MAX; self.blocks];
        for (position, green) in hard.greens.iter().enumerate() {
            if let Some(letter) = green {
                self.and(&mut bits, self.green_set(position, usize::from(*letter)));
            }
        }
        for &(letter, copies) in &hard.at_least {
            if copies > 0 {
                self.and(&mut bits, self.copies_set(usize::from(letter), copies));
            }
        }
        Some(Allowed { bits })
    }

    fn and(&self, bits: &mut [u64], set: Option<&[u64]>) {
        match set {
            Some(set) => bits.iter_mut().zip(set).for_each(|(b, s)| *b &= s),
            // An atom no guess satisfies (a letter no guess has, more copies than a board).
            None => bits.fill(0),
        }
    }

    fn green_set(&self, position: usize, letter: usize) -> Option<&[u64]> {
        (position < BOARD && letter < self.letters).then(|| {
            let at = (position * self.letters + letter) * self.blocks;
            &self.green[at..at + self.blocks]
        })
    }

    fn copies_set(&self, letter: usize, copies: u8) -> Option<&[u64]> {
        let k = usize::from(copies);
        (letter < self.letters && k <= BOARD).then(|| {
            let at = (letter * BOARD + k - 1) * self.blocks;
            &self.copies[at..at + self.blocks]
        })
    }
}

impl Solver<'_> {
    /// The guesses `hard` allows in hard mode; `None` when every guess is (no constraint yet,
    /// or another mode).
    pub(crate) fn hard_allowed(&self, hard: &HardState) -> Option<Allowed> {
        self.hard_masks.as_ref()?.allowed(hard)
    }
}

#[cfg(test)]
mod tests {
    use super::HardMasks;
    use crate::rules::game::GuessId;
    use crate::rules::pattern::Pattern;
    use crate::rules::presets::load_preset;
    use crate::solver::hard::HardState;

    /// The sets must allow exactly what `HardState::allows` allows, for states built from one
    /// and two clues and for hand-made ones (out-of-range letters, too many copies).
    #[test]
    fn masks_allow_exactly_what_the_state_allows() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let words = game.guesses();
        let masks = HardMasks::build(words);
        let mut next = crate::solver::test_rng(0x9E37_79B9_7F4A_7C15u64);
        let mut checked = 0;
        for case in 0..300 {
            let mut hard = HardState::default();
            for _ in 0..1 + case % 2 {
                let word = &words[next(words.len() as u64) as usize];
                hard = hard.after(word, Pattern(next(243) as u8));
            }
            if case % 50 == 0 {
                hard.at_least.push((250, 1));
            }
            if case % 50 == 1 {
                hard.at_least = vec![(words[0].letters()[0], 6)];
            }
            let Some(allowed) = masks.allowed(&hard) else {
                assert!(hard.is_free());
                continue;
            };
            let expected: Vec<GuessId> = (0..words.len() as GuessId)
                .filter(|&g| hard.allows(&words[g as usize]))
                .collect();
            assert_eq!(allowed.ids(), expected, "{hard:?}");
            assert!(expected.iter().all(|&g| allowed.contains(g)));
            checked += expected.len();
        }
        assert!(
            checked > 300,
            "states allowed too little to test: {checked}"
        );
    }
}
