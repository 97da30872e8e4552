//! The oracle: answers to players' questions (queries) from a solved run, "what do I guess
//! next?" and "what does the chart of this first guess look like under the optimal
//! strategy?". The query service (`hakase-query`) serves these answers; this is the pure
//! computation under it, named for its type ([`Oracle`]) so that "query" keeps one meaning:
//! a player's question.
//!
//! The stored optimal tree answers every game that followed it; when the player guessed
//! something else, the optimum for the new situation is computed on the spot with the exact
//! solver, and the answer says so. Everything here is pure: callers load runs and print.

use std::sync::Arc;

use crate::plural::plural;
use serde::Serialize;
use thiserror::Error;

use crate::error::Error;
use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::history::{filter, open_parts, partition, Step};
use crate::rules::table::FeedbackTable;
use crate::solver::hard::HardState;
use crate::solver::{Halt, Mode, Node, Objective, Solution, Solver, SolverConfig};
use crate::trees::chart::{Chart, ChartRow};
use crate::trees::tree::Tree;

/// Transposition-table entries for on-the-spot solves: ample for the subproblems left after
/// a guess, small enough to allocate per query.
pub const ON_THE_SPOT_MEMO_ENTRIES: usize = 1 << 20;

/// What went wrong with a question; every variant names what the user has to fix.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum QueryError {
    /// A step could not be read (unknown word, unreadable pattern); `step` is 1-based.
    /// The cause is part of the message and deliberately not a `source()`, so a chain
    /// printer (anyhow's `{:#}`) says it once.
    #[error("step {step}: {error}")]
    BadStep {
        /// The step, from 1.
        step: usize,
        /// Why it could not be read.
        error: Error,
    },
    /// The history contradicts itself or the game; the core error names the step.
    #[error("{0}")]
    History(Error),
    /// More steps than the game has tries.
    #[error(
        "the history has {} but the game allows only {}",
        plural(*steps as u64, "step", "steps"),
        plural(*tries, "guess", "guesses")
    )]
    TooLong {
        /// Steps given.
        steps: usize,
        /// The game's tries.
        tries: u32,
    },
    /// A guess the run's mode (hard or strict) does not allow.
    #[error("step {step} ({guess}): {why}")]
    NotAllowed {
        /// The step, from 1.
        step: usize,
        /// The guess as typed.
        guess: String,
        /// Which rule it breaks.
        why: String,
    },
    /// A chart asked for a first guess that is not a word of the game or not allowed.
    #[error("first guess: {0}")]
    BadFirst(String),
    /// The run cannot answer questions: it has no optimal tree.
    #[error("the run has no optimal tree ({0})")]
    NoTree(String),
    /// No strategy wins every remaining answer within the guesses left.
    #[error(
        "no strategy can find every answer within {} more",
        plural(*guesses_left, "guess", "guesses")
    )]
    Infeasible {
        /// Guesses left.
        guesses_left: u32,
    },
    /// An on-the-spot solve this large is refused (a server bounds the work one request costs).
    #[error(
        "the history left the stored tree with {candidates} answers possible; solving that on \
         the spot is refused above {limit} answers"
    )]
    TooManyToSolve {
        /// Answers that would have to be solved.
        candidates: usize,
        /// The limit in force.
        limit: usize,
    },
    /// The on-the-spot solve was given up before it ended: its caller left, or it needed more
    /// work than its budget (see [`Oracle::with_halt`]).
    #[error("the solve was given up before it ended")]
    Halted,
}

/// Where an answer came from: the stored proven tree, or a solve made for this question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// Read from the run's optimal tree.
    Tree,
    /// Computed on the spot because the history left the tree.
    Computed,
}

/// The answer to "what next?" after a history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NextGuess {
    /// Steps played so far.
    pub steps: usize,
    /// Answers still possible (just the answer once won).
    pub candidates: Vec<AnswerId>,
    /// True when the last step was the winning pattern.
    pub won: bool,
    /// The optimal next guess; `None` when won or when no strategy can win any more.
    pub guess: Option<GuessId>,
    /// Stored tree or on-the-spot solve.
    pub source: Source,
    /// Guesses still allowed, the next one included.
    pub guesses_left: u32,
    /// Total further guesses over the candidates under the optimal strategy (the next guess
    /// included); 0 once won, `None` when infeasible.
    pub total: Option<u64>,
    /// Most further guesses any candidate needs under the optimal strategy.
    pub worst: Option<u32>,
}

impl NextGuess {
    /// Expected further guesses: total over candidates (what the optimum minimises).
    pub fn expected(&self) -> Option<f64> {
        let n = self.candidates.len().max(1) as f64;
        self.total.map(|t| t as f64 / n)
    }

    /// False when the answer cannot be guaranteed within the guesses left.
    pub fn feasible(&self) -> bool {
        self.won || self.guess.is_some()
    }
}

/// One line of the optimal chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OptimalRow {
    /// The feedback of the first guess, and the answers that show it.
    pub row: ChartRow,
    /// Guesses over the row's answers, counted from the start (the first guess included),
    /// so the rows add up to the strategy's total.
    pub total: u64,
    /// Most guesses any of the row's answers needs, counted from the start.
    pub worst: u32,
}

/// The chart of a first guess under the optimal strategy from that guess on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OptimalChart {
    /// The first guess.
    pub first: GuessId,
    /// One row per feedback, in pattern order (winning row included).
    pub rows: Vec<OptimalRow>,
    /// Guesses over all answers.
    pub total: u64,
    /// Most guesses any answer needs.
    pub worst: u32,
    /// Stored tree (the run's best first guess) or an on-the-spot solve.
    pub source: Source,
}

impl OptimalChart {
    /// The plain chart (pattern, answers, second guess), for renderers that take one.
    pub fn to_chart(&self) -> Chart {
        Chart {
            first: self.first,
            rows: self.rows.iter().map(|r| r.row.clone()).collect(),
        }
    }
}

/// Reads a history given as (word, pattern) texts, naming the step that cannot be read.
pub fn parse_history<S: AsRef<str>>(
    game: &Game,
    steps: &[(S, S)],
) -> Result<Vec<Step>, QueryError> {
    steps
        .iter()
        .enumerate()
        .map(|(index, (word, pattern))| {
            let bad = |error| QueryError::BadStep {
                step: index + 1,
                error,
            };
            let guess = game.find_guess(word.as_ref()).map_err(bad)?;
            let len = game.guesses()[guess as usize].len();
            let pattern =
                crate::rules::pattern::Pattern::parse(pattern.as_ref(), len).map_err(bad)?;
            Ok(Step { guess, pattern })
        })
        .collect()
}

/// Answers questions about one solved run.
///
/// One of the four seams that choose a guess (docs/development.md, "Choosing a guess"), kept
/// apart from the heuristic ones because its contract differs on three counts: its guess is
/// the optimum (read from the run's proven tree, or solved on the spot when the history left
/// it), asking can fail (an unreadable or contradictory history, a guess the mode forbids, an
/// on-the-spot solve over its limit or halted), and the answer says where it came from and
/// what it is worth ([`NextGuess`]: [`Source`], total, worst). A heuristic's infallible guess
/// id can say none of that.
pub struct Oracle<'a> {
    game: &'a Game,
    table: &'a FeedbackTable,
    config: &'a SolverConfig,
    tree: &'a Tree,
    memo_entries: usize,
    solve_limit: usize,
    halt: Option<Arc<Halt>>,
}

/// Where a history leads: candidates, the stored subtree if still on it, hard-mode state.
struct Position<'t> {
    candidates: Vec<AnswerId>,
    node: Option<&'t Tree>,
    hard: HardState,
    won: bool,
}

impl<'a> Oracle<'a> {
    /// An oracle over a run's solution; a solution without a tree cannot answer.
    pub fn new(
        game: &'a Game,
        table: &'a FeedbackTable,
        solution: &'a Solution,
    ) -> Result<Oracle<'a>, QueryError> {
        let tree = solution.tree.as_ref().ok_or_else(|| {
            QueryError::NoTree(if solution.best.is_none() {
                "the game cannot be won within the guesses allowed".into()
            } else {
                "the solution holds no tree".into()
            })
        })?;
        Ok(Oracle {
            game,
            table,
            config: &solution.config,
            tree,
            memo_entries: ON_THE_SPOT_MEMO_ENTRIES,
            solve_limit: usize::MAX,
            halt: None,
        })
    }

    /// The same oracle refusing on-the-spot solves of more than `limit` answers (whole-game
    /// solves for off-tree chart first guesses count all answers).
    pub fn with_solve_limit(mut self, limit: usize) -> Oracle<'a> {
        self.solve_limit = limit;
        self
    }

    /// The same oracle giving up its on-the-spot solves once `halt` is set or its budget is
    /// spent (see [`Solver::halting_on`]); such a solve answers [`QueryError::Halted`].
    pub fn with_halt(mut self, halt: Arc<Halt>) -> Oracle<'a> {
        self.halt = Some(halt);
        self
    }

    /// [`QueryError::Halted`] when this oracle's halt is set: whatever a solve answered
    /// then means nothing.
    fn check_halt(&self) -> Result<(), QueryError> {
        match &self.halt {
            Some(halt) if halt.is_halted() => Err(QueryError::Halted),
            _ => Ok(()),
        }
    }

    /// True when the history follows the stored tree all the way (cheap: no validation), so
    /// answering needs no solve. A server answers these inline and others on a worker thread.
    pub fn follows_tree(&self, steps: &[Step]) -> bool {
        let mut node = self.tree;
        for step in steps {
            if node.guess != step.guess {
                return false;
            }
            if step.pattern.is_win() {
                return true;
            }
            match node.branch(step.pattern) {
                Some(next) => node = next,
                None => return false,
            }
        }
        true
    }

    /// The game.
    pub fn game(&self) -> &'a Game {
        self.game
    }

    /// The optimal tree of the run.
    pub fn tree(&self) -> &'a Tree {
        self.tree
    }

    /// The guess budget of the run's rules (tries or the cap).
    pub fn guess_cap(&self) -> u32 {
        self.config.guess_cap(self.game)
    }

    /// The optimal next guess after `steps`, with the candidates left and the values of the
    /// optimal strategy from here.
    pub fn next_guess(&self, steps: &[Step]) -> Result<NextGuess, QueryError> {
        self.next_guess_with_tree(steps).map(|(next, _)| next)
    }

    /// [`Oracle::next_guess`], and when the history left the stored tree, the optimal subtree
    /// solved on the spot (so a caller can chart every branch of it without solving again).
    pub fn next_guess_with_tree(
        &self,
        steps: &[Step],
    ) -> Result<(NextGuess, Option<Tree>), QueryError> {
        let position = self.walk(steps)?;
        let cap = self.guess_cap();
        let guesses_left = cap.saturating_sub(steps.len() as u32);
        let on_tree = position.node.is_some() || steps.is_empty();
        let mut answer = NextGuess {
            steps: steps.len(),
            candidates: position.candidates,
            won: position.won,
            guess: None,
            source: if on_tree {
                Source::Tree
            } else {
                Source::Computed
            },
            guesses_left,
            total: None,
            worst: None,
        };
        if answer.won {
            answer.total = Some(0);
            answer.worst = Some(0);
            return Ok((answer, None));
        }
        let node = if steps.is_empty() {
            Some(self.tree)
        } else {
            position.node
        };
        if let Some(node) = node {
            let eval = node.evaluate(self.game, self.table, &answer.candidates);
            if eval.unsolved.is_empty() {
                answer.guess = Some(node.guess);
                answer.total = Some(eval.total);
                answer.worst = Some(eval.worst);
                return Ok((answer, None));
            }
        }
        answer.source = Source::Computed;
        if answer.candidates.len() > self.solve_limit {
            return Err(QueryError::TooManyToSolve {
                candidates: answer.candidates.len(),
                limit: self.solve_limit,
            });
        }
        let node = Node {
            candidates: answer.candidates.clone(),
            guesses_left,
            hard: position.hard,
        };
        let tree = self.solve_here(&node);
        self.check_halt()?;
        if let Some(tree) = &tree {
            let eval = tree.evaluate(self.game, self.table, &node.candidates);
            answer.guess = Some(tree.guess);
            answer.total = Some(eval.total);
            answer.worst = Some(eval.worst);
        }
        Ok((answer, tree))
    }

    /// The chart of `first` (default: the run's best first guess) under the optimal strategy.
    pub fn chart(&self, first: Option<GuessId>) -> Result<OptimalChart, QueryError> {
        let first = first.unwrap_or(self.tree.guess);
        if first as usize >= self.game.guesses().len() {
            return Err(QueryError::BadFirst(format!("no guess with id {first}")));
        }
        let all = self.game.all_answers();
        let computed;
        let (tree, source) = if first == self.tree.guess {
            (self.tree, Source::Tree)
        } else {
            if self.config.mode == Mode::Strict && self.game.guess_as_answer(first).is_none() {
                return Err(QueryError::BadFirst(format!(
                    "{} is never the answer, and strict mode only allows possible answers",
                    self.game.guess_text(first)
                )));
            }
            let answers = self.game.answers().len();
            if answers > self.solve_limit {
                return Err(QueryError::TooManyToSolve {
                    candidates: answers,
                    limit: self.solve_limit,
                });
            }
            computed = self.solve_with_first(first)?;
            (&computed, Source::Computed)
        };
        let mut rows = Vec::new();
        for (pattern, part) in partition(self.table, first, &all) {
            let n = part.len() as u64;
            let (second, total, worst) = if pattern.is_win() {
                (None, 1, 1)
            } else {
                let child = tree.branch(pattern).ok_or_else(|| {
                    QueryError::NoTree("the tree lacks a branch of its first guess".into())
                })?;
                let eval = child.evaluate(self.game, self.table, &part);
                (Some(child.guess), eval.total + n, eval.worst + 1)
            };
            rows.push(OptimalRow {
                row: ChartRow {
                    pattern,
                    candidates: part,
                    second,
                },
                total,
                worst,
            });
        }
        Ok(OptimalChart {
            first,
            total: rows.iter().map(|r| r.total).sum(),
            worst: rows.iter().map(|r| r.worst).max().unwrap_or(0),
            rows,
            source,
        })
    }

    /// Checks the history against the game and the run's rules and follows the stored tree
    /// as far as the player did.
    fn walk(&self, steps: &[Step]) -> Result<Position<'a>, QueryError> {
        let tries = self.game.tries();
        if steps.len() > tries as usize {
            return Err(QueryError::TooLong {
                steps: steps.len(),
                tries,
            });
        }
        let filtered = filter(self.game, self.table, steps);
        // Rules are checked on the steps before the first inconsistent one, so the error
        // reported is always the earliest step at fault.
        let consistent = match &filtered {
            Ok(_) => steps.len(),
            Err(Error::InconsistentHistory { step, .. }) => step.saturating_sub(1),
            Err(_) => 0,
        };
        let mut set = self.game.all_answers();
        let mut hard = HardState::default();
        let mut node = Some(self.tree);
        for (index, step) in steps[..consistent].iter().enumerate() {
            self.check_rules(index + 1, step, &set, &hard)?;
            node = node
                .filter(|t| t.guess == step.guess)
                .and_then(|t| t.branch(step.pattern));
            set.retain(|&a| self.table.get(step.guess, a) == step.pattern);
            if self.config.mode == Mode::Hard {
                hard = hard.after(&self.game.guesses()[step.guess as usize], step.pattern);
            }
        }
        let candidates = filtered.map_err(QueryError::History)?;
        let won = steps.last().is_some_and(|s| s.pattern.is_win());
        Ok(Position {
            candidates,
            node,
            hard,
            won,
        })
    }

    fn check_rules(
        &self,
        step: usize,
        played: &Step,
        set: &[AnswerId],
        hard: &HardState,
    ) -> Result<(), QueryError> {
        check_rules(self.game, self.config.mode, step, played, set, hard)
    }

    fn solver(&self) -> Solver<'a> {
        let solver = Solver::new(
            self.game,
            self.table,
            self.config.clone(),
            self.memo_entries,
        );
        match &self.halt {
            Some(halt) => solver.halting_on(halt.clone()),
            None => solver,
        }
    }

    /// The budgets to try at a node: the objective "worst" wants the smallest that wins,
    /// which the solver's depth-only search proves (the one home of that question); a
    /// restricted (top-k) search deepens with its own guesses instead, so that its budget and
    /// its total come from the same guesses, as the whole-game solve does.
    fn budgets(&self, solver: &Solver<'_>, node: &Node) -> Vec<u32> {
        match self.config.objective {
            Objective::Total => vec![node.guesses_left],
            Objective::Worst if self.config.is_exact() => {
                solver.least_worst_case(node).into_iter().collect()
            }
            Objective::Worst => (1..=node.guesses_left).collect(),
        }
    }

    /// `budgets` at the root when the first guess is fixed: one guess more than the
    /// hardest of its parts needs.
    fn budgets_with_first(&self, solver: &Solver<'_>, first: GuessId, cap: u32) -> Vec<u32> {
        if self.config.objective == Objective::Total || !self.config.is_exact() {
            return self.budgets(solver, &solver.root(cap));
        }
        let Some(below) = cap.checked_sub(1) else {
            return Vec::new();
        };
        let root = solver.root(cap);
        let word = &self.game.guesses()[first as usize];
        let mut need = 1;
        for (pattern, part) in open_parts(self.table, first, &root.candidates) {
            let child = Node {
                candidates: part,
                guesses_left: below,
                hard: solver.child_hard(&root.hard, word, pattern),
            };
            match solver.least_worst_case(&child) {
                Some(depth) => need = need.max(depth + 1),
                None => return Vec::new(),
            }
        }
        vec![need]
    }

    /// The optimal tree from `node`, `None` when no strategy wins within its guesses.
    fn solve_here(&self, node: &Node) -> Option<Tree> {
        if node.guesses_left == 0 || node.candidates.is_empty() {
            return None;
        }
        let solver = self.solver();
        self.budgets(&solver, node).into_iter().find_map(|b| {
            solver.tree(&Node {
                guesses_left: b,
                ..node.clone()
            })
        })
    }

    fn solve_with_first(&self, first: GuessId) -> Result<Tree, QueryError> {
        let solver = self.solver();
        let cap = self.guess_cap();
        let tree = self
            .budgets_with_first(&solver, first, cap)
            .into_iter()
            .find_map(|b| solver.tree_with_first(&solver.root(b), first));
        self.check_halt()?;
        tree.ok_or(QueryError::Infeasible { guesses_left: cap })
    }
}

/// Why hard mode refuses a guess (the words every front end shows, and a message key's test).
pub const HARD_MODE_RULE: &str =
    "hard mode: greens must stay in place and revealed letters be reused";

/// Why strict mode refuses a guess.
pub const STRICT_MODE_RULE: &str =
    "strict mode: every guess must be a possible answer given the clues so far";

/// Checks that `mode` allows `played` as step `step` (1-based), given the answers `set` still
/// possible and the hard-mode state before it: the one rule check of queries and reviews.
pub(crate) fn check_rules(
    game: &Game,
    mode: Mode,
    step: usize,
    played: &Step,
    set: &[AnswerId],
    hard: &HardState,
) -> Result<(), QueryError> {
    let refuse = |why: &str| QueryError::NotAllowed {
        step,
        guess: game.guess_text(played.guess).to_string(),
        why: why.to_string(),
    };
    match mode {
        Mode::Normal => Ok(()),
        Mode::Hard => {
            if hard.allows(&game.guesses()[played.guess as usize]) {
                Ok(())
            } else {
                Err(refuse(HARD_MODE_RULE))
            }
        }
        Mode::Strict => match game.guess_as_answer(played.guess) {
            Some(a) if set.binary_search(&a).is_ok() => Ok(()),
            _ => Err(refuse(STRICT_MODE_RULE)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::presets::load_preset;
    use crate::solver::FirstGuesses;
    use std::sync::OnceLock;

    struct Fixture {
        game: Game,
        table: FeedbackTable,
        solution: Solution,
    }

    /// The proven optimum of pokemon-qiita2023 starts with ジーランス; solving from that first
    /// guess alone rebuilds its tree quickly.
    fn fixture() -> &'static Fixture {
        static FIXTURE: OnceLock<Fixture> = OnceLock::new();
        FIXTURE.get_or_init(|| {
            let game = load_preset("pokemon-qiita2023").expect("preset");
            let table = FeedbackTable::build(&game);
            let first = game.find_guess("ジーランス").expect("word");
            let solution = Solver::new(&game, &table, SolverConfig::default(), 1 << 20)
                .solve_game(FirstGuesses::Only(first), &|_| {});
            Fixture {
                game,
                table,
                solution,
            }
        })
    }

    fn oracle() -> Oracle<'static> {
        let f = fixture();
        Oracle::new(&f.game, &f.table, &f.solution).expect("tree")
    }

    fn steps(game: &Game, text: &[(&str, &str)]) -> Vec<Step> {
        parse_history(game, text).expect("history")
    }

    #[test]
    fn empty_history_gives_the_optimum() {
        let o = oracle();
        let next = o.next_guess(&[]).expect("answer");
        assert_eq!(
            o.game().guess_text(next.guess.expect("guess")),
            "ジーランス"
        );
        assert_eq!(next.total, Some(964));
        assert_eq!(next.candidates.len(), 285);
        assert_eq!(next.source, Source::Tree);
        assert_eq!(next.guesses_left, 10);
        assert!(!next.won);
    }

    #[test]
    fn every_answer_is_found_as_the_tree_says_and_the_sum_is_964() {
        let o = oracle();
        let f = fixture();
        let mut sum = 0u64;
        for answer in f.game.all_answers() {
            let mut history = Vec::new();
            loop {
                let next = o.next_guess(&history).expect("answer");
                if next.won {
                    break;
                }
                assert_eq!(next.source, Source::Tree);
                let guess = next.guess.expect("feasible");
                history.push(Step {
                    guess,
                    pattern: f.table.get(guess, answer),
                });
                assert!(history.len() <= 10);
            }
            sum += history.len() as u64;
        }
        assert_eq!(sum, 964);
    }

    #[test]
    fn off_tree_guesses_are_solved_on_the_spot() {
        let o = oracle();
        let g = o.game();
        let history = steps(g, &[("レントラー", "灰灰灰灰緑")]);
        let next = o.next_guess(&history).expect("answer");
        assert_eq!(next.source, Source::Computed);
        assert_eq!(next.candidates.len(), 23);
        assert!(next.guess.is_some());
        let total = next.total.expect("total");
        assert_eq!((total, next.worst), (61, Some(4)));
        assert_eq!(g.guess_text(next.guess.expect("guess")), "ゴーリキー");
        assert_eq!(next.guesses_left, 9);
    }

    #[test]
    fn the_chart_rows_add_up_to_the_total() {
        let o = oracle();
        let chart = o.chart(None).expect("chart");
        assert_eq!(chart.total, 964);
        assert_eq!(chart.source, Source::Tree);
        assert_eq!(
            chart
                .rows
                .iter()
                .map(|r| r.row.candidates.len())
                .sum::<usize>(),
            285
        );
        let win = chart.rows.last().expect("rows");
        assert!(win.row.pattern.is_win());
        assert_eq!((win.total, win.worst, win.row.second), (1, 1, None));
        let rentora = o.game().find_guess("レントラー").expect("word");
        let other = o.chart(Some(rentora)).expect("chart");
        assert_eq!(other.source, Source::Computed);
        assert!(other.total > 964);
        assert_eq!(other.rows[0].row.candidates.len(), 67);
    }

    #[test]
    fn bad_histories_name_their_step() {
        let o = oracle();
        let g = o.game();
        let err = parse_history(
            g,
            &[("レントラー", "灰灰灰灰緑"), ("ピカチュウX", "灰灰灰灰灰")],
        )
        .expect_err("unknown word");
        assert!(matches!(err, QueryError::BadStep { step: 2, .. }), "{err}");
        // The cause is said once: in the message, and not again as a source a chain printer
        // (anyhow's `{:#}`) would append.
        assert_eq!(
            err.to_string(),
            "step 2: \"ピカチュウx\" is not an allowed guess in pokemon-qiita2023; did you mean ピカチュウ?"
        );
        assert!(std::error::Error::source(&err).is_none());
        let err = parse_history(g, &[("レントラー", "灰灰灰")]).expect_err("short pattern");
        assert!(matches!(err, QueryError::BadStep { step: 1, .. }), "{err}");
        // A pattern レントラー never shows (four greens and a gray cannot happen with 1 answer
        // differing in one letter? use a pattern no answer gives).
        let never = (0..243u8)
            .map(crate::rules::pattern::Pattern)
            .find(|p| {
                let gid = g.find_guess("レントラー").expect("word");
                !g.all_answers().iter().any(|&a| o.table.get(gid, a) == *p)
            })
            .expect("some pattern never shows");
        let gid = g.find_guess("レントラー").expect("word");
        let err = o
            .next_guess(&[Step {
                guess: gid,
                pattern: never,
            }])
            .expect_err("impossible pattern");
        assert!(err.to_string().contains("step 1"), "{err}");
        assert!(err.to_string().contains("never shows"), "{err}");
        let history = steps(
            g,
            &[("レントラー", "灰灰灰灰緑"), ("ゴーリキー", "灰灰灰灰灰")],
        );
        let err = o.next_guess(&history).expect_err("no answer fits");
        assert!(err.to_string().contains("step 2"), "{err}");
        let long: Vec<Step> = (0..11)
            .map(|_| Step {
                guess: gid,
                pattern: crate::rules::pattern::Pattern(0),
            })
            .collect();
        assert!(matches!(
            o.next_guess(&long),
            Err(QueryError::TooLong {
                steps: 11,
                tries: 10
            })
        ));
    }

    #[test]
    fn a_won_game_says_so() {
        let o = oracle();
        let g = o.game();
        let history = steps(g, &[("ジーランス", "緑緑緑緑緑")]);
        let next = o.next_guess(&history).expect("answer");
        assert!(next.won);
        assert_eq!(next.guess, None);
        assert_eq!(next.candidates.len(), 1);
        let after = steps(
            g,
            &[("ジーランス", "緑緑緑緑緑"), ("レントラー", "灰灰灰灰灰")],
        );
        assert!(o.next_guess(&after).is_err());
    }

    #[test]
    fn strict_mode_refuses_a_guess_that_cannot_be_the_answer() {
        let f = fixture();
        let mut solution = f.solution.clone();
        solution.config.mode = Mode::Strict;
        let o = Oracle::new(&f.game, &f.table, &solution).expect("tree");
        // ピカチュウ is an answer-length name; after a gray ピ it cannot be the answer.
        let first = f.game.find_guess("ジーランス").expect("word");
        let history = vec![
            Step {
                guess: first,
                pattern: f
                    .table
                    .get(first, f.game.find_answer("レントラー").expect("answer")),
            },
            Step {
                guess: first,
                pattern: f
                    .table
                    .get(first, f.game.find_answer("レントラー").expect("answer")),
            },
        ];
        let err = o.next_guess(&history).expect_err("not a candidate");
        assert!(
            matches!(err, QueryError::NotAllowed { step: 2, .. }),
            "{err}"
        );
    }

    /// Off the tree, the worst-case objective asks the solver's depth-only search for the
    /// least budget; the answer must be the one the plain deepening (budget 1, 2, … until a
    /// tree exists) gives, both from a node and with a first guess of the caller's.
    #[test]
    fn off_tree_worst_case_answers_match_plain_deepening() {
        let f = fixture();
        let config = SolverConfig {
            objective: Objective::Worst,
            ..SolverConfig::default()
        };
        let solver = Solver::new(&f.game, &f.table, config, 1 << 20);
        let first = f.game.find_guess("ジーランス").expect("word");
        let solution = solver.solve_game(FirstGuesses::Only(first), &|_| {});
        let oracle = Oracle::new(&f.game, &f.table, &solution).expect("tree");
        let deepened = |node: &Node| {
            (1..=node.guesses_left).find_map(|b| {
                solver.tree(&Node {
                    guesses_left: b,
                    ..node.clone()
                })
            })
        };
        for (guess, pattern) in [("レントラー", "灰灰灰灰灰"), ("レントラー", "灰黄灰灰灰")]
        {
            let history = steps(&f.game, &[(guess, pattern)]);
            let next = oracle.next_guess(&history).expect("answer");
            assert_eq!(next.source, Source::Computed);
            let node = Node {
                candidates: next.candidates.clone(),
                guesses_left: 9,
                hard: HardState::default(),
            };
            let tree = deepened(&node).expect("winnable");
            let plain = tree.evaluate(&f.game, &f.table, &node.candidates);
            assert_eq!(next.guess, Some(tree.guess), "{guess} {pattern}");
            assert_eq!(next.total, Some(plain.total), "{guess} {pattern}");
            assert_eq!(next.worst, Some(plain.worst), "{guess} {pattern}");
        }
        let root = solver.root(10);
        let rent = f.game.find_guess("レントラー").expect("word");
        let plain = (1..=10)
            .find_map(|b| solver.tree_with_first(&solver.root(b), rent))
            .expect("winnable");
        let least = oracle.budgets_with_first(&solver, rent, 10);
        let fixed = solver
            .tree_with_first(&solver.root(least[0]), rent)
            .expect("tree at the least budget");
        assert_eq!(
            fixed.evaluate(&f.game, &f.table, &root.candidates).worst,
            plain.evaluate(&f.game, &f.table, &root.candidates).worst
        );
        assert!(
            least[0] == 1
                || solver
                    .tree_with_first(&solver.root(least[0] - 1), rent)
                    .is_none()
        );
    }
}
