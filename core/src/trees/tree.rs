//! Decision trees: a whole strategy written out, and the statistics of playing it.

use serde::{Deserialize, Serialize};

use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::pattern::Pattern;
use crate::rules::table::FeedbackTable;

/// What to guess at a node and where each possible feedback leads. The winning pattern has
/// no branch: the game is over.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Tree {
    /// The guess made here.
    pub guess: GuessId,
    /// One subtree per non-winning pattern the remaining answers can show, in pattern order.
    pub branches: Vec<(Pattern, Tree)>,
}

impl Tree {
    /// A node that guesses the last remaining answer.
    pub fn leaf(guess: GuessId) -> Tree {
        Tree {
            guess,
            branches: Vec::new(),
        }
    }

    /// The subtree followed after `pattern`, if the tree has one.
    pub fn branch(&self, pattern: Pattern) -> Option<&Tree> {
        self.branches
            .binary_search_by_key(&pattern, |(p, _)| *p)
            .ok()
            .map(|i| &self.branches[i].1)
    }

    /// Plays every answer of `candidates` through the tree and counts the guesses each needs.
    /// An answer the tree does not lead to (a missing branch, or a leaf that is not the answer)
    /// is reported as unsolved, never guessed at.
    pub fn evaluate(
        &self,
        game: &Game,
        table: &FeedbackTable,
        candidates: &[AnswerId],
    ) -> Evaluation {
        let mut eval = Evaluation::new(game.tries());
        for &answer in candidates {
            let mut node = self;
            let mut guesses = 1u32;
            let outcome = loop {
                let pattern = table.get(node.guess, answer);
                if pattern.is_win() {
                    break Some(guesses);
                }
                match node.branch(pattern) {
                    Some(next) if guesses < MAX_DEPTH => {
                        node = next;
                        guesses += 1;
                    }
                    _ => break None,
                }
            };
            eval.record(answer, outcome);
        }
        eval
    }

    /// Number of nodes, for size estimates.
    pub fn nodes(&self) -> usize {
        1 + self.branches.iter().map(|(_, t)| t.nodes()).sum::<usize>()
    }
}

/// Guard against cyclic play in strategies that stop making progress.
pub const MAX_DEPTH: u32 = 64;

/// How a strategy fares over a set of answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evaluation {
    /// `distribution[k]` answers were found with exactly `k + 1` guesses.
    pub distribution: Vec<u32>,
    /// Sum of guesses over the solved answers.
    pub total: u64,
    /// Answers found at all.
    pub solved: u32,
    /// Most guesses any solved answer needed.
    pub worst: u32,
    /// Answers not found within the game's tries (including never found).
    pub failures: Vec<AnswerId>,
    /// Answers the strategy never finds at all.
    pub unsolved: Vec<AnswerId>,
    tries: u32,
}

impl Evaluation {
    /// An empty tally for a game with `tries` guesses.
    pub fn new(tries: u32) -> Evaluation {
        Evaluation {
            distribution: Vec::new(),
            total: 0,
            solved: 0,
            worst: 0,
            failures: Vec::new(),
            unsolved: Vec::new(),
            tries,
        }
    }

    /// Adds one answer's outcome: `Some(guesses)` or `None` when never found.
    pub fn record(&mut self, answer: AnswerId, outcome: Option<u32>) {
        match outcome {
            Some(k) => {
                let slot = k as usize - 1;
                if self.distribution.len() <= slot {
                    self.distribution.resize(slot + 1, 0);
                }
                self.distribution[slot] += 1;
                self.total += u64::from(k);
                self.solved += 1;
                self.worst = self.worst.max(k);
                if k > self.tries {
                    self.failures.push(answer);
                }
            }
            None => {
                self.failures.push(answer);
                self.unsolved.push(answer);
            }
        }
    }

    /// Mean guesses over the solved answers.
    pub fn mean(&self) -> f64 {
        if self.solved == 0 {
            0.0
        } else {
            self.total as f64 / f64::from(self.solved)
        }
    }
}

/// Builds the tree a strategy-like chooser plays from `candidates`.
///
/// `choose` gets the candidate set and the depth (1 for the first guess). A guess that neither
/// wins nor splits the set would repeat forever; such a branch is cut and its answers end up
/// unsolved in the evaluation.
pub fn build_tree(
    table: &FeedbackTable,
    candidates: &[AnswerId],
    depth: u32,
    choose: &(dyn Fn(&[AnswerId], u32) -> GuessId + Sync),
) -> Tree {
    let guess = choose(candidates, depth);
    let mut tree = Tree::leaf(guess);
    if depth >= MAX_DEPTH {
        return tree;
    }
    for (pattern, part) in crate::rules::history::partition(table, guess, candidates) {
        if pattern.is_win() || part.len() == candidates.len() {
            continue;
        }
        tree.branches
            .push((pattern, build_tree(table, &part, depth + 1, choose)));
    }
    tree
}
