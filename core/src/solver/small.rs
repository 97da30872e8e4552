//! Exact values of sets of three and four answers without a scan.
//!
//! With no candidate that tells the others apart (that case is settled at 2n − 1 first), a
//! guess's bound 3n − w − k (k distinct patterns, w = 1 when it can win) is at least 2n:
//! - three answers: a guess that gives all three their own pattern reaches 6 (each found by
//!   the second guess), and so does any candidate (1 + 2 + 3). Nothing reaches 5, so the value
//!   is 6;
//! - four answers: a guess that gives all four their own pattern reaches 8, and so does a
//!   candidate that splits the other three into one and two (1 + 2 + 2 + 3). Nothing reaches
//!   7; when neither exists the value is at least 9 and the node is searched as usual.
//!
//! The guess is the one the full scan would pick, so trees are unchanged: among guesses of
//! equal bound the scan prefers the smaller Σ part² (a guess telling all apart: n; a
//! candidate: 1 + 4 = 5 or 4), then the smaller id, and a guess telling all apart is never a
//! candidate here. With two guesses left only a guess telling all apart works at all.

use std::sync::atomic::Ordering;

use super::hard::HardState;
use super::Solver;
use crate::game::{AnswerId, GuessId};
use crate::pattern::Pattern;

impl Solver<'_> {
    /// The exact value of a set of three or four answers that no candidate splits perfectly,
    /// with `depth` ≥ 2 guesses left, and its guess, when a closed form gives them; `None`
    /// otherwise.
    pub(crate) fn small_exact(
        &self,
        set: &[AnswerId],
        depth: u32,
        hard: &HardState,
        inherited: Option<&[GuessId]>,
    ) -> Option<(u32, GuessId)> {
        let n = set.len();
        if !(3..=4).contains(&n) || self.config.top_k.is_some() {
            return None;
        }
        let value = 2 * n as u32;
        let allowed = self.scannable(set, hard, inherited);
        // The first guess (by id) giving every answer its own pattern, read along the
        // answer-major columns so the guesses stream through in order.
        let columns: Vec<&[u8]> = set.iter().map(|&a| self.table.column(a)).collect();
        let apart = allowed.iter().position(|&g| {
            let mut seen = [0u8; 4];
            for (i, column) in columns.iter().enumerate() {
                seen[i] = column[g as usize];
                if seen[..i].contains(&seen[i]) {
                    return false;
                }
            }
            true
        });
        let read = apart.map_or(allowed.len(), |at| at + 1);
        self.stats
            .scanned_pairs
            .fetch_add((read * n) as u64, Ordering::Relaxed);
        if let Some(at) = apart {
            return Some((value, allowed[at]));
        }
        if depth < 3 {
            return None;
        }
        // The first candidate (by id) whose other answers fall in parts of at most two.
        set.iter()
            .map(|&a| self.game.answer_as_guess(a))
            .filter(|&g| {
                let row = self.table.row(g);
                let mut others = [0u8; 3];
                let mut len = 0;
                for &a in set {
                    let p = row[a as usize];
                    if p != Pattern::ALL_GREEN.0 {
                        others[len] = p;
                        len += 1;
                    }
                }
                let others = &others[..len];
                others
                    .iter()
                    .any(|p| others.iter().filter(|&q| q == p).count() == 1)
                    || len == 2
            })
            .min()
            .map(|guess| (value, guess))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Mode, Solver, SolverConfig, INFEASIBLE};
    use crate::game::AnswerId;
    use crate::presets::load_preset;
    use crate::table::FeedbackTable;

    /// The closed forms must give the value and the guess the full scan's order gives, and
    /// decline exactly when no guess reaches 2n.
    #[test]
    fn closed_forms_pick_what_the_scan_picks() {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        let answers = game.answers().len() as u64;
        let mut state = 0x5851_F42D_4C95_7F2Du64;
        let mut next = move |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        let mut settled = [0usize; 2];
        for mode in [Mode::Normal, Mode::Hard, Mode::Strict] {
            let config = SolverConfig {
                mode,
                ..SolverConfig::default()
            };
            let solver = Solver::new(&game, &table, config, 1 << 10);
            for case in 0..3000 {
                let n = 3 + case % 2;
                // Answers close together in the list share letters, so many sets are hard.
                let base = next(answers - 40);
                let mut set: Vec<AnswerId> =
                    (0..n).map(|_| (base + next(40)) as AnswerId).collect();
                set.sort_unstable();
                set.dedup();
                if set.len() != n || solver.perfect_candidate(&set).is_some() {
                    continue;
                }
                let depth = 2 + next(3) as u32;
                let depth = depth.min(n as u32);
                let hard = Default::default();
                let scan = solver.scan(&set, depth, &hard, None, INFEASIBLE);
                let first = scan.guesses.first().copied();
                match solver.small_exact(&set, depth, &hard, None) {
                    Some((value, guess)) => {
                        let first = first.expect("a guess");
                        assert_eq!(
                            (value, guess),
                            (first.lower, first.guess),
                            "{mode:?} {set:?}"
                        );
                        assert!(first.largest <= 2);
                        settled[0] += 1;
                    }
                    None => {
                        assert!(scan.floor > 2 * n as u32, "{mode:?} {set:?} depth {depth}");
                        settled[1] += 1;
                    }
                }
            }
        }
        // Both outcomes occur, so the test exercises both.
        assert!(settled[0] > 100 && settled[1] > 10, "{settled:?}");
    }
}
