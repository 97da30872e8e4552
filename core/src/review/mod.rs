//! "How well did I play?", answered exactly: every move of a game judged against the optimum
//! of the position it was played in.
//!
//! With f(H) the optimal total of guesses over the answers H still possible (the next guess
//! included, as the solver defines it) and v(H, g) = |H| + Σ over non-winning colours s of
//! f(P(H, g, s)) the total when `g` is played and optimal play follows, a move is judged by
//!
//! - its **loss**, (v(H, g) − f(H)) / |H|: the guesses it costs on average over the answers
//!   still possible, i.e. f(after the player's guess) − f(after the optimal guess), per
//!   answer; 0 exactly when the guess is one of the optimal ones;
//! - its **luck**, (v(H, g) − |H|) / |H| − f(H') / |H'|: the further guesses optimal play was
//!   expected to need after `g` before its colours were seen, minus those it needs from the
//!   position H' the colours left (0 once won). Positive when the colours were kind.
//!
//! Over a game the two add up exactly: guesses played = f(start) / |start| + Σ loss − Σ luck
//! for a won game, so a game's result is its optimum, plus what the player gave away, minus
//! what the colours gave them.
//!
//! Values come from the run's tree while the game follows it (when the tree may be trusted:
//! an exact, total-objective solve) and from the exact solver everywhere else, with the
//! solver's memo and the judged positions kept in a bounded [`ReviewCache`].

pub mod cache;
pub mod input;

use crate::plural::plural;
use rayon::prelude::*;
use std::collections::HashSet;
use thiserror::Error;

use crate::error::Error;
use crate::oracle::{check_rules, QueryError, Source};
use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::history::{filter, partition, Step};
use crate::rules::pattern::{Pattern, PATTERNS};
use crate::rules::table::FeedbackTable;
use crate::solver::hard::HardState;
use crate::solver::memo::Memo;
use crate::solver::{
    FirstGuessValue, Mode, Node, Objective, Outcome, Solver, SolverConfig, INFEASIBLE,
};
use crate::trees::tree::Tree;

pub use cache::ReviewCache;
pub use input::{grid_rows, read_game, Colours, GameText, ReadGame};

/// Optimal guesses listed per move; more are counted, not listed.
pub const LISTED_OPTIMA: usize = 20;

/// Guesses whose lower bound does not rule out a tie that are solved (with the optimum as
/// cutoff) to see whether they tie; past this the list of optimal guesses says it may be
/// incomplete. Bounds the tie search of a large position.
pub const TIE_CHECKS: usize = 256;

/// What is wrong with a game given for review; each variant says what to fix.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReviewError {
    /// A history problem a query would report too (unknown word, bad pattern, colours no
    /// answer fits, a guess the mode forbids, too many guesses).
    #[error(transparent)]
    Query(#[from] QueryError),
    /// Nothing to review.
    #[error("the game is empty: give at least one guess")]
    Empty,
    /// The colours and the words do not pair up.
    #[error(
        "{} of colours for {}: give one row per word, in order",
        plural(*rows as u64, "row", "rows"),
        plural(*words as u64, "word", "words")
    )]
    ColoursWords {
        /// Rows of colours given (grid rows or patterns).
        rows: usize,
        /// Words given.
        words: usize,
    },
    /// Words alone do not say what the game showed.
    #[error(
        "no colours: give each word's (WORD=PATTERN), the emoji grid the game shares, or the \
         answer"
    )]
    NoColours,
    /// The answer given is not an answer of the game.
    #[error("the answer: {0}")]
    Answer(Error),
    /// The colours given are not the ones the answer given shows.
    #[error(
        "step {step} ({guess}): the colours {pattern} are not what the answer {answer} shows \
         ({shows})"
    )]
    NotTheAnswer {
        /// The step, from 1.
        step: usize,
        /// Its guess.
        guess: String,
        /// The colours given.
        pattern: String,
        /// The answer given.
        answer: String,
        /// The colours the answer shows.
        shows: String,
    },
}

/// The rules a game is reviewed under (the objective is always the total: the review's
/// numbers are expected guesses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rules {
    /// Normal, hard or strict play.
    pub mode: Mode,
    /// A cap on guesses below the game's tries.
    pub max_guesses: Option<u32>,
}

impl Rules {
    /// The exact total-objective configuration of these rules, the one every value of a
    /// review is solved under.
    pub fn config(self) -> SolverConfig {
        SolverConfig {
            objective: Objective::Total,
            max_guesses: self.max_guesses,
            mode: self.mode,
            top_k: None,
        }
    }

    /// True when a run solved under `config` gives this review's values: an exact search of
    /// the total, whatever its rules (which then become the review's).
    pub fn trusts(config: &SolverConfig) -> bool {
        config.is_exact() && config.objective == Objective::Total
    }
}

/// A run's tree, trusted for the positions it reaches: below its first guess it is optimal
/// for every position (the total is a sum over parts, each minimised on its own).
#[derive(Debug, Clone, Copy)]
pub struct Known<'a> {
    /// The optimal tree.
    pub tree: &'a Tree,
    /// Its first guess is proven optimal (false for a run restricted to that first guess).
    pub root_proven: bool,
    /// The run's ranking of first guesses, for ties at the root.
    pub ranking: &'a [FirstGuessValue],
}

/// What a value is known to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judged<T> {
    /// Exactly this.
    Known(T),
    /// No strategy wins every answer within the guesses left.
    Infeasible,
    /// A position this large is not solved on the spot (a server bounds its work).
    TooLarge {
        /// Answers of the position.
        candidates: usize,
        /// The limit in force.
        limit: usize,
    },
}

impl<T> Judged<T> {
    /// The value when known.
    pub fn known(&self) -> Option<&T> {
        match self {
            Judged::Known(v) => Some(v),
            _ => None,
        }
    }

    fn map<U>(self, f: impl FnOnce(T) -> U) -> Judged<U> {
        match self {
            Judged::Known(v) => Judged::Known(f(v)),
            Judged::Infeasible => Judged::Infeasible,
            Judged::TooLarge { candidates, limit } => Judged::TooLarge { candidates, limit },
        }
    }
}

/// How far the optimum of a move is proven.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proof {
    /// Proven optimal among every guess the rules allow.
    Proven,
    /// The run's first guess, which the run was restricted to: exact, but optimal only given
    /// that first guess.
    GivenFirstGuess,
}

/// The optimum of a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Optimum {
    /// f(H): guesses over the position's answers under optimal play, the next included.
    pub total: u32,
    /// Optimal guesses: the tree's or the solver's choice first, then the others by id, at
    /// most [`LISTED_OPTIMA`].
    pub guesses: Vec<GuessId>,
    /// Optimal guesses found (listed or not).
    pub count: usize,
    /// True when `count` is every optimal guess.
    pub complete: bool,
    /// How far the optimum is proven.
    pub proof: Proof,
    /// Read from the run's tree, or solved on the spot.
    pub source: Source,
}

/// One move of the game, judged.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveReview {
    /// The guess played and the colours shown.
    pub step: Step,
    /// Guesses still allowed, this one included.
    pub guesses_left: u32,
    /// The answers possible before the move.
    pub before: Vec<AnswerId>,
    /// The optimum of the position before the move.
    pub optimum: Judged<Optimum>,
    /// v(H, g): the total when the player's guess is played and optimal play follows.
    pub played: Judged<u32>,
    /// The answers possible after the colours (none once won).
    pub after: Vec<AnswerId>,
    /// f of the position after the colours (0 once won).
    pub after_total: Judged<u32>,
    /// Answers left on average over the colours the guess could show (a win leaves none):
    /// Σ |part|² / |H| over the non-winning parts.
    pub mean_left: f64,
}

impl MoveReview {
    /// True when the colours were all green.
    pub fn won(&self) -> bool {
        self.step.pattern.is_win()
    }

    /// v − f: guesses lost in total over the answers possible before the move. Negative only
    /// against a run's fixed first guess ([`Proof::GivenFirstGuess`]) that the player beat.
    pub fn loss_total(&self) -> Option<i64> {
        let optimum = self.optimum.known()?;
        let played = self.played.known()?;
        Some(i64::from(*played) - i64::from(optimum.total))
    }

    /// (v − f) / |H|: guesses lost on average.
    pub fn loss(&self) -> Option<f64> {
        self.loss_total()
            .map(|l| l as f64 / self.before.len() as f64)
    }

    /// True when the guess was optimal (no loss, or better than a fixed first guess).
    pub fn optimal(&self) -> Option<bool> {
        self.loss_total().map(|l| l <= 0)
    }

    /// f / |H|: expected guesses from the position under optimal play, the next included.
    pub fn optimal_mean(&self) -> Option<f64> {
        self.optimum
            .known()
            .map(|o| f64::from(o.total) / self.before.len() as f64)
    }

    /// v / |H|: expected guesses from the position with the player's guess, then optimal play.
    pub fn played_mean(&self) -> Option<f64> {
        self.played
            .known()
            .map(|&v| f64::from(v) / self.before.len() as f64)
    }

    /// (v − |H|) / |H|: further guesses expected after this one, before its colours are seen.
    pub fn luck_before(&self) -> Option<f64> {
        let n = self.before.len() as f64;
        self.played.known().map(|&v| (f64::from(v) - n) / n)
    }

    /// f(H') / |H'|: further guesses expected from the position the colours left (0 once won).
    pub fn luck_after(&self) -> Option<f64> {
        if self.after.is_empty() {
            return Some(0.0);
        }
        self.after_total
            .known()
            .map(|&f| f64::from(f) / self.after.len() as f64)
    }

    /// `luck_before − luck_after`: further guesses the colours saved (negative: cost).
    pub fn luck(&self) -> Option<f64> {
        Some(self.luck_before()? - self.luck_after()?)
    }
}

/// A game, judged move by move.
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    /// Each move.
    pub moves: Vec<MoveReview>,
    /// The answer, when given or found.
    pub answer: Option<AnswerId>,
    /// Guesses optimal play from the player's first guess (and its colours) needs to find the
    /// answer; `None` when the answer is unknown.
    pub same_first: Option<Judged<u32>>,
}

impl Review {
    /// The last move won.
    pub fn won(&self) -> bool {
        self.moves.last().is_some_and(MoveReview::won)
    }

    /// Σ loss over the moves; `None` when a move could not be judged.
    pub fn loss(&self) -> Option<f64> {
        self.moves.iter().map(MoveReview::loss).sum()
    }

    /// Σ loss over the moves after the first.
    pub fn loss_after_first(&self) -> Option<f64> {
        self.moves.iter().skip(1).map(MoveReview::loss).sum()
    }

    /// Σ luck over the moves.
    pub fn luck(&self) -> Option<f64> {
        self.moves.iter().map(MoveReview::luck).sum()
    }

    /// Moves whose guess was optimal.
    pub fn optimal_moves(&self) -> usize {
        self.moves
            .iter()
            .filter(|m| m.optimal() == Some(true))
            .count()
    }

    /// Every move optimal: `Some(true)`; some move not: `Some(false)`; else unknown.
    pub fn perfect(&self) -> Option<bool> {
        let mut all = true;
        for m in &self.moves {
            match m.optimal() {
                Some(false) => return Some(false),
                None => all = false,
                Some(true) => {}
            }
        }
        all.then_some(true)
    }

    /// f(start) / |start|: expected guesses of optimal play from the start.
    pub fn start_mean(&self) -> Option<f64> {
        self.moves.first().and_then(MoveReview::optimal_mean)
    }

    /// v(start, first guess) / |start|: expected guesses of optimal play from the player's
    /// first guess.
    pub fn same_first_mean(&self) -> Option<f64> {
        self.moves.first().and_then(MoveReview::played_mean)
    }
}

/// A position of the game: its node, the stored subtree while still on it.
#[derive(Clone)]
struct Position<'t> {
    node: Node,
    tree: Option<&'t Tree>,
    root: bool,
}

/// Judges games of one game under one set of rules.
pub struct Reviewer<'a> {
    game: &'a Game,
    table: &'a FeedbackTable,
    mode: Mode,
    cap: u32,
    solver: Solver<'a>,
    known: Option<Known<'a>>,
    cache: &'a ReviewCache,
    limit: usize,
    halt: Option<std::sync::Arc<crate::solver::Halt>>,
}

impl<'a> Reviewer<'a> {
    /// A reviewer solving every position on the spot, remembering in `cache`.
    pub fn new(
        game: &'a Game,
        table: &'a FeedbackTable,
        rules: Rules,
        cache: &'a ReviewCache,
    ) -> Reviewer<'a> {
        let config = rules.config();
        let memo: std::sync::Arc<dyn Memo + 'a> = cache.memo.clone();
        Reviewer {
            game,
            table,
            mode: rules.mode,
            cap: config.guess_cap(game),
            solver: Solver::with_memo(game, table, config, memo),
            known: None,
            cache,
            limit: usize::MAX,
            halt: None,
        }
    }

    /// The same reviewer reading positions on `known`'s tree from it.
    pub fn with_tree(mut self, known: Known<'a>) -> Reviewer<'a> {
        self.known = Some(known);
        self
    }

    /// The same reviewer refusing to solve positions of more than `limit` answers on the spot
    /// (their values are then [`Judged::TooLarge`]).
    pub fn with_solve_limit(mut self, limit: usize) -> Reviewer<'a> {
        self.limit = limit;
        self
    }

    /// The same reviewer giving up its solves once `halt` is set or its budget is spent (see
    /// [`Solver::halting_on`]): the review then answers [`QueryError::Halted`], and nothing
    /// judged meanwhile is kept in the cache.
    pub fn with_halt(self, halt: std::sync::Arc<crate::solver::Halt>) -> Reviewer<'a> {
        Reviewer {
            solver: self.solver.halting_on(halt.clone()),
            halt: Some(halt),
            ..self
        }
    }

    /// True once this reviewer's halt is set: what its solver answers means nothing.
    fn halted(&self) -> bool {
        self.halt.as_ref().is_some_and(|h| h.is_halted())
    }

    /// Judges every move of `game`; the history must fit the game and the rules.
    pub fn review(&self, game: &ReadGame) -> Result<Review, ReviewError> {
        let steps = &game.steps;
        self.validate(steps)?;
        let mut position = self.root();
        let mut moves = Vec::with_capacity(steps.len());
        for step in steps {
            let child = self.child(&position, *step);
            moves.push(self.judge_move(&position, *step, &child));
            position = child;
        }
        let same_first = game.answer.map(|answer| self.same_first(steps[0], answer));
        if self.halted() {
            return Err(QueryError::Halted.into());
        }
        Ok(Review {
            moves,
            answer: game.answer,
            same_first,
        })
    }

    /// The history's consistency and the mode's rules, the earliest fault first (as queries
    /// report it): a guess the rules forbid before the colours went wrong is named first.
    fn validate(&self, steps: &[Step]) -> Result<(), ReviewError> {
        if steps.is_empty() {
            return Err(ReviewError::Empty);
        }
        let tries = self.game.tries();
        if steps.len() > tries as usize {
            return Err(QueryError::TooLong {
                steps: steps.len(),
                tries,
            }
            .into());
        }
        let filtered = filter(self.game, self.table, steps);
        let consistent = match &filtered {
            Ok(_) => steps.len(),
            Err(Error::InconsistentHistory { step, .. }) => step.saturating_sub(1),
            Err(_) => 0,
        };
        let mut position = self.root();
        for (index, step) in steps[..consistent].iter().enumerate() {
            let node = &position.node;
            check_rules(
                self.game,
                self.mode,
                index + 1,
                step,
                &node.candidates,
                &node.hard,
            )?;
            position = self.child(&position, *step);
        }
        filtered.map_err(QueryError::History)?;
        Ok(())
    }

    fn root(&self) -> Position<'a> {
        Position {
            node: self.solver.root(self.cap),
            tree: self.known.map(|k| k.tree),
            root: true,
        }
    }

    /// The position after `step` (its answers, one guess fewer, the hard-mode state, and the
    /// stored subtree while the game follows the tree).
    fn child(&self, position: &Position<'a>, step: Step) -> Position<'a> {
        let node = &position.node;
        let candidates = node
            .candidates
            .iter()
            .copied()
            .filter(|&a| self.table.get(step.guess, a) == step.pattern)
            .collect();
        let hard = if self.mode == Mode::Hard {
            node.hard
                .after(&self.game.guesses()[step.guess as usize], step.pattern)
        } else {
            HardState::default()
        };
        Position {
            node: Node {
                candidates,
                guesses_left: node.guesses_left.saturating_sub(1),
                hard,
            },
            tree: position
                .tree
                .filter(|t| t.guess == step.guess)
                .and_then(|t| t.branch(step.pattern)),
            root: false,
        }
    }

    fn judge_move(&self, position: &Position<'a>, step: Step, child: &Position<'a>) -> MoveReview {
        let node = &position.node;
        let n = node.candidates.len();
        let optimum = self.judge(position);
        let parts = partition(self.table, step.guess, &node.candidates);
        let squares: usize = parts
            .iter()
            .filter(|(p, _)| !p.is_win())
            .map(|(_, part)| part.len() * part.len())
            .sum();
        let listed = optimum
            .known()
            .filter(|o| o.guesses.contains(&step.guess))
            .map(|o| o.total);
        let played = match listed {
            Some(total) => Judged::Known(total),
            None => self.played(position, step.guess, &parts),
        };
        let won = step.pattern.is_win();
        let after_total = if won {
            Judged::Known(0)
        } else {
            self.value(child)
        };
        MoveReview {
            step,
            guesses_left: node.guesses_left,
            before: node.candidates.clone(),
            optimum,
            played,
            after: if won {
                Vec::new()
            } else {
                child.node.candidates.clone()
            },
            after_total,
            mean_left: squares as f64 / n as f64,
        }
    }

    /// v(H, g) from the values of the parts `guess` splits the position into (a guess that
    /// splits nothing leaves the whole position, one guess fewer).
    fn played(
        &self,
        position: &Position<'a>,
        guess: GuessId,
        parts: &[(Pattern, Vec<AnswerId>)],
    ) -> Judged<u32> {
        let node = &position.node;
        if node.guesses_left == 0 {
            return Judged::Infeasible;
        }
        let values: Vec<Judged<u32>> = parts
            .par_iter()
            .filter(|(p, _)| !p.is_win())
            .map(|&(pattern, _)| {
                let child = self.child(position, Step { guess, pattern });
                self.value(&child)
            })
            .collect();
        let mut total = node.candidates.len() as u32;
        for value in values {
            match value {
                Judged::Known(v) => total = total.saturating_add(v),
                other => return other,
            }
        }
        Judged::Known(total)
    }

    /// f of a position: from the tree while on it, else from the cache or the solver.
    fn value(&self, position: &Position<'a>) -> Judged<u32> {
        let node = &position.node;
        if node.candidates.is_empty() {
            return Judged::Known(0);
        }
        if let Some(total) = self.tree_total(position) {
            return Judged::Known(total);
        }
        if let Some(judged) = self.cache.get(self.key(node)) {
            return judged.map(|o| o.total);
        }
        self.solve(node).map(|(value, _)| value)
    }

    /// The total of the stored subtree over the position's answers, when on the tree.
    fn tree_total(&self, position: &Position<'a>) -> Option<u32> {
        let tree = position.tree?;
        let eval = tree.evaluate(self.game, self.table, &position.node.candidates);
        if !eval.unsolved.is_empty() || eval.worst > position.node.guesses_left {
            return None;
        }
        u32::try_from(eval.total).ok()
    }

    /// The exact value and optimal guess of `node`, within the solve limit.
    fn solve(&self, node: &Node) -> Judged<(u32, GuessId)> {
        let n = node.candidates.len();
        if n > self.limit && !self.memo_knows(node) {
            return Judged::TooLarge {
                candidates: n,
                limit: self.limit,
            };
        }
        match self.solver.evaluate(node, INFEASIBLE) {
            Outcome::Exact { value, guess } if value < INFEASIBLE => Judged::Known((value, guess)),
            _ => Judged::Infeasible,
        }
    }

    fn memo_knows(&self, node: &Node) -> bool {
        self.cache.memo.get(self.key(node)).is_some_and(|e| e.exact)
    }

    /// The key of a position in the memo and the review cache (the solver's own: the set,
    /// the guesses that can matter, the hard-mode state and the rules).
    fn key(&self, node: &Node) -> crate::solver::memo::MemoKey {
        let depth = node.guesses_left.min(node.candidates.len() as u32);
        self.solver.key(&node.candidates, depth, &node.hard)
    }

    /// The optimum of a position, with every optimal guess the tie search finds.
    fn judge(&self, position: &Position<'a>) -> Judged<Optimum> {
        let node = &position.node;
        let key = self.key(node);
        if let Some(judged) = self.cache.get(key) {
            return judged;
        }
        let judged = self.judge_uncached(position);
        if !matches!(judged, Judged::TooLarge { .. }) && !self.halted() {
            self.cache.put(key, judged.clone());
        }
        judged
    }

    fn judge_uncached(&self, position: &Position<'a>) -> Judged<Optimum> {
        let node = &position.node;
        let on_tree = position.tree.zip(self.tree_total(position));
        let (total, chosen, source) = match on_tree {
            Some((tree, total)) => (total, tree.guess, Source::Tree),
            None => match self.solve(node) {
                Judged::Known((total, guess)) => (total, guess, Source::Computed),
                Judged::Infeasible => return Judged::Infeasible,
                Judged::TooLarge { candidates, limit } => {
                    return Judged::TooLarge { candidates, limit }
                }
            },
        };
        let known = self.known.filter(|_| position.root && on_tree.is_some());
        let (guesses, complete, proof) = match known {
            Some(k) if !k.root_proven => (vec![chosen], false, Proof::GivenFirstGuess),
            Some(k) => {
                let (guesses, complete) = self.root_ties(node, total, chosen, k.ranking);
                (guesses, complete, Proof::Proven)
            }
            None => {
                let (guesses, complete) = self.ties(node, total, chosen);
                (guesses, complete, Proof::Proven)
            }
        };
        let count = guesses.len();
        Judged::Known(Optimum {
            total,
            guesses: guesses.into_iter().take(LISTED_OPTIMA).collect(),
            count,
            complete,
            proof,
            source,
        })
    }

    /// Every guess as good as `chosen` at `node` (whose optimum is `total`): the guesses whose
    /// lower bound allows it are solved with the optimum as cutoff, then every guess that
    /// splits the answers exactly as a tied one is added (outside hard mode the value depends
    /// on the split alone). `chosen` first, then by id; false when the search stopped early.
    fn ties(&self, node: &Node, total: u32, chosen: GuessId) -> (Vec<GuessId>, bool) {
        let n = node.candidates.len();
        if n <= 2 {
            // One answer: only it wins at once. Two: either, for 1 + 2; anything else needs 4.
            let mut all: Vec<GuessId> = node
                .candidates
                .iter()
                .map(|&a| self.game.answer_as_guess(a))
                .collect();
            all.sort_unstable();
            return (chosen_first(chosen, all), true);
        }
        if n > self.limit {
            return (vec![chosen], false);
        }
        let order = self.solver.guess_order(node);
        let mut tied = vec![chosen];
        let mut complete = true;
        let mut checked = 0;
        for bound in order.guesses.iter().take_while(|b| b.lower <= total) {
            if bound.guess == chosen {
                continue;
            }
            if checked == TIE_CHECKS {
                complete = false;
                break;
            }
            checked += 1;
            if let Outcome::Exact { value, .. } =
                self.solver.evaluate_guess(node, bound.guess, total + 1)
            {
                if value == total {
                    tied.push(bound.guess);
                }
            }
        }
        (self.alike(node, tied), complete)
    }

    /// [`Reviewer::ties`] at the root of a proven run: its ranking says which first guesses
    /// tie; those it left at a bound equal to the optimum (cut off by it) are solved when the
    /// game is within the solve limit, else the list says it may be incomplete.
    fn root_ties(
        &self,
        node: &Node,
        total: u32,
        chosen: GuessId,
        ranking: &[FirstGuessValue],
    ) -> (Vec<GuessId>, bool) {
        let mut tied = vec![chosen];
        let mut complete = true;
        for entry in ranking.iter().filter(|e| e.guess != chosen) {
            match entry.outcome {
                Outcome::Exact { value, .. } if value == total => tied.push(entry.guess),
                Outcome::Exact { .. } => {}
                Outcome::AtLeast(bound) if bound > total => {}
                Outcome::AtLeast(_) if node.candidates.len() <= self.limit => {
                    if let Outcome::Exact { value, .. } =
                        self.solver.evaluate_guess(node, entry.guess, total + 1)
                    {
                        if value == total {
                            tied.push(entry.guess);
                        }
                    }
                }
                Outcome::AtLeast(_) => complete = false,
            }
        }
        (self.alike(node, tied), complete)
    }

    /// `tied` with every allowed guess that splits the node's answers exactly as one of them
    /// (the solver keeps one guess per split; outside hard mode they are worth the same).
    fn alike(&self, node: &Node, tied: Vec<GuessId>) -> Vec<GuessId> {
        let chosen = tied[0];
        if self.mode == Mode::Hard {
            let mut rest: Vec<GuessId> = tied[1..].to_vec();
            rest.sort_unstable();
            rest.dedup();
            return chosen_first(chosen, rest);
        }
        let set = &node.candidates;
        let mut shape = vec![0u8; set.len()];
        let shapes: HashSet<Vec<u8>> = tied
            .iter()
            .map(|&g| {
                split_shape(self.table, g, set, &mut shape);
                shape.clone()
            })
            .collect();
        let allowed = self.solver.allowed_guesses(set, &node.hard);
        let all: Vec<GuessId> = allowed
            .iter()
            .copied()
            .filter(|&g| {
                split_shape(self.table, g, set, &mut shape);
                shapes.contains(shape.as_slice())
            })
            .collect();
        chosen_first(chosen, all)
    }

    /// Guesses optimal play needs to find `answer` after the player's first guess `first`:
    /// the tree's or the solver's choice at every position after it.
    fn same_first(&self, first: Step, answer: AnswerId) -> Judged<u32> {
        let mut position = self.child(&self.root(), first);
        let mut guesses = 1;
        if first.pattern.is_win() {
            return Judged::Known(guesses);
        }
        loop {
            if position.node.guesses_left == 0 {
                return Judged::Infeasible;
            }
            let guess = match self.choice(&position) {
                Judged::Known(g) => g,
                Judged::Infeasible => return Judged::Infeasible,
                Judged::TooLarge { candidates, limit } => {
                    return Judged::TooLarge { candidates, limit }
                }
            };
            guesses += 1;
            let pattern = self.table.get(guess, answer);
            if pattern.is_win() {
                return Judged::Known(guesses);
            }
            position = self.child(&position, Step { guess, pattern });
        }
    }

    /// The guess optimal play makes at a position: the tree's, the one judged before, or the
    /// solver's.
    fn choice(&self, position: &Position<'a>) -> Judged<GuessId> {
        if let (Some(tree), Some(_)) = (position.tree, self.tree_total(position)) {
            return Judged::Known(tree.guess);
        }
        if let Some(judged) = self.cache.get(self.key(&position.node)) {
            return judged.map(|o| o.guesses[0]);
        }
        self.solve(&position.node).map(|(_, guess)| guess)
    }
}

/// `all` (sorted) with `chosen` moved to the front.
fn chosen_first(chosen: GuessId, all: Vec<GuessId>) -> Vec<GuessId> {
    let mut out = Vec::with_capacity(all.len() + 1);
    out.push(chosen);
    out.extend(all.into_iter().filter(|&g| g != chosen));
    out
}

/// How `guess` splits `set`, canonically: each answer's part numbered by first appearance, the
/// winning part marked, so two guesses split alike exactly when their shapes are equal.
fn split_shape(table: &FeedbackTable, guess: GuessId, set: &[AnswerId], out: &mut [u8]) {
    const UNSEEN: u8 = u8::MAX;
    const WIN: u8 = u8::MAX - 1;
    let mut label = [UNSEEN; PATTERNS];
    let mut next = 0u8;
    for (slot, &a) in out.iter_mut().zip(set) {
        let p = table.get(guess, a);
        *slot = if p.is_win() {
            WIN
        } else {
            let l = &mut label[usize::from(p.0)];
            if *l == UNSEEN {
                *l = next;
                next += 1;
            }
            *l
        };
    }
}

#[cfg(test)]
mod tests;
