//! Writing a player out as a decision tree: every answer's game at once.
//!
//! A player is deterministic in what it has seen, so games that saw the same colours play
//! the same; the tree holds each such game once and its branches are built in parallel.

use rayon::prelude::*;

use super::universe::{narrow, Universe};
use super::{Player, Situation};
use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::history::{partition, Step};
use crate::rules::pattern::Pattern;
use crate::rules::table::FeedbackTable;
use crate::trees::tree::{Tree, MAX_DEPTH};

/// The tree `player` plays against every answer of the game, drawing its pool from
/// `universe`; `first` forces the opening guess. A guess that rules out no answer and no
/// word the player believes possible would repeat forever: that branch is cut, and its
/// answers count as never found when the tree is evaluated.
pub fn play_tree(
    game: &Game,
    table: &FeedbackTable,
    player: &dyn Player,
    universe: &Universe,
    first: Option<GuessId>,
) -> Tree {
    let at = Node {
        candidates: game.all_answers(),
        steps: Vec::new(),
        levels: if player.uses_universe() {
            universe.levels().to_vec()
        } else {
            Vec::new()
        },
    };
    let play = Play {
        game,
        table,
        player,
    };
    play.node(&at, first)
}

/// What is known at a node of the tree.
struct Node {
    candidates: Vec<AnswerId>,
    steps: Vec<Step>,
    /// The universe's lists narrowed by every step (empty for players without a pool).
    levels: Vec<Vec<GuessId>>,
}

struct Play<'a> {
    game: &'a Game,
    table: &'a FeedbackTable,
    player: &'a dyn Player,
}

impl Play<'_> {
    fn node(&self, at: &Node, forced: Option<GuessId>) -> Tree {
        let guess = forced.unwrap_or_else(|| {
            let fallback: Vec<GuessId>;
            let pool: &[GuessId] = match at.levels.iter().find(|l| !l.is_empty()) {
                Some(level) => level,
                None => {
                    fallback = at
                        .candidates
                        .iter()
                        .map(|&a| self.game.answer_as_guess(a))
                        .collect();
                    &fallback
                }
            };
            let situation = Situation {
                candidates: &at.candidates,
                steps: &at.steps,
                pool,
            };
            self.player.next(self.game, self.table, &situation)
        });
        let mut tree = Tree::leaf(guess);
        if at.steps.len() as u32 + 1 >= MAX_DEPTH {
            return tree;
        }
        let parts: Vec<_> = partition(self.table, guess, &at.candidates)
            .into_iter()
            .filter(|(pattern, _)| !pattern.is_win())
            .collect();
        let believed: usize = at.levels.iter().map(Vec::len).sum();
        let children: Vec<Option<(Pattern, Tree)>> = parts
            .into_par_iter()
            .map(|(pattern, candidates)| {
                let step = Step { guess, pattern };
                let levels: Vec<Vec<GuessId>> = at
                    .levels
                    .iter()
                    .map(|level| narrow(self.game, self.table, level, step))
                    .collect();
                // No answer ruled out and no believed word either: the player would repeat.
                let narrowed = levels.iter().map(Vec::len).sum::<usize>() < believed;
                if candidates.len() == at.candidates.len() && !narrowed {
                    return None;
                }
                let mut steps = at.steps.clone();
                steps.push(step);
                let child = Node {
                    candidates,
                    steps,
                    levels,
                };
                Some((pattern, self.node(&child, None)))
            })
            .collect();
        tree.branches = children.into_iter().flatten().collect();
        tree
    }
}
