//! Reviews on the query side: the game a client sends ([`GameInput`]), which parts of a run a
//! review may trust, the bounded caches a server keeps per run, and the one view model of a
//! review (words instead of ids) that `hakase review` prints as text or JSON and
//! `POST /api/v1/review` sends.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use hakase_core::label::unchecked_condition;
use hakase_core::oracle::Source;
use hakase_core::review::{
    Colours, GameText, Judged, Known, MoveReview, Optimum, Proof, Review, ReviewCache, Reviewer,
    Rules,
};
use hakase_core::solver::SolverConfig;
use hakase_core::{AnswerId, FeedbackTable, Game, PatternStyle};
use serde::Serialize;

use super::view::LIST_CANDIDATES_UP_TO;
use hakase_core::label::Label;
use hakase_runs::LoadedRun;

/// Review caches a server keeps at once (one per run and rules, each bounded by
/// [`ReviewCache::default`]'s sizes): the least recently created is dropped past it.
pub const REVIEW_CACHES: usize = 4;

/// A played game as a client gives it, owned, so the service can read it on its solve pool:
/// the words, their colours, and the answer when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameInput {
    /// The words played, in order.
    pub words: Vec<String>,
    /// Their colours.
    pub colours: ColoursInput,
    /// The answer, when known (needed without colours).
    pub answer: Option<String>,
}

/// The colours of a [`GameInput`] (see [`Colours`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColoursInput {
    /// One pattern per word.
    Each(Vec<String>),
    /// The emoji grid the game shares.
    Grid(String),
    /// None: they follow from the answer.
    FromAnswer,
}

impl GameInput {
    /// Every text the client typed (words, colours, the answer), for the length check made
    /// before anything is read.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        let colours: Vec<&str> = match &self.colours {
            ColoursInput::Each(patterns) => patterns.iter().map(String::as_str).collect(),
            ColoursInput::Grid(grid) => grid.lines().collect(),
            ColoursInput::FromAnswer => Vec::new(),
        };
        self.words
            .iter()
            .map(String::as_str)
            .chain(colours)
            .chain(self.answer.as_deref())
    }

    /// The game as the core reads it.
    pub fn text(&self) -> GameText<'_> {
        GameText {
            words: self.words.iter().map(String::as_str).collect(),
            colours: match &self.colours {
                ColoursInput::Each(patterns) => {
                    Colours::Each(patterns.iter().map(String::as_str).collect())
                }
                ColoursInput::Grid(grid) => Colours::Grid(grid),
                ColoursInput::FromAnswer => Colours::FromAnswer,
            },
            answer: self.answer.as_deref(),
        }
    }
}

/// What a review is judged against: the game, its rules, and the run's tree when it may be
/// trusted.
pub struct Subject<'a> {
    /// The game.
    pub game: &'a Game,
    /// Its feedback table.
    pub table: &'a FeedbackTable,
    /// The rules the game is reviewed under.
    pub rules: Rules,
    /// The run, if the review reads one.
    pub run: Option<&'a LoadedRun>,
}

impl<'a> Subject<'a> {
    /// A review against `run`: its game and rules, and its tree when the run is an exact
    /// total-objective solve (a worst-case or top-k run is only used for its game and rules;
    /// every position is then solved on the spot).
    pub fn of_run(run: &'a LoadedRun) -> Subject<'a> {
        let config = &run.manifest.config;
        Subject {
            game: &run.game,
            table: &run.table,
            rules: Rules {
                mode: config.mode,
                max_guesses: config.max_guesses,
            },
            run: Some(run),
        }
    }

    /// The tree a review may read positions from, and whether its first guess is proven.
    pub fn known(&self) -> Option<Known<'a>> {
        let run = self.run?;
        let solution = run.solution.as_ref().filter(|s| s.proven)?;
        if !Rules::trusts(&solution.config) {
            return None;
        }
        Some(Known {
            tree: solution.tree.as_ref()?,
            root_proven: run.first.is_none(),
            ranking: &solution.ranking,
        })
    }

    /// A reviewer for this subject over `cache`, refusing on-the-spot solves above `limit`.
    pub fn reviewer(&self, cache: &'a ReviewCache, limit: Option<usize>) -> Reviewer<'a> {
        let mut reviewer = Reviewer::new(self.game, self.table, self.rules, cache);
        if let Some(known) = self.known() {
            reviewer = reviewer.with_tree(known);
        }
        match limit {
            Some(limit) => reviewer.with_solve_limit(limit),
            None => reviewer,
        }
    }

    /// The key of this subject's cache on a server: run, game and rules.
    fn cache_key(&self) -> String {
        format!(
            "{}\u{0}{}\u{0}{:?}\u{0}{:?}",
            self.run.map_or("", |r| r.name.as_str()),
            self.game.fingerprint(),
            self.rules.mode,
            self.rules.max_guesses
        )
    }
}

/// The review caches of a server, at most [`REVIEW_CACHES`] of them.
#[derive(Default)]
pub struct ReviewCaches {
    caches: Mutex<VecDeque<(String, Arc<ReviewCache>)>>,
}

impl ReviewCaches {
    /// The cache of `subject`, made when it has none (dropping the oldest past the bound).
    pub fn of(&self, subject: &Subject<'_>) -> Arc<ReviewCache> {
        let key = subject.cache_key();
        let mut caches = self
            .caches
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((_, cache)) = caches.iter().find(|(k, _)| *k == key) {
            return cache.clone();
        }
        if caches.len() >= REVIEW_CACHES {
            caches.pop_front();
        }
        let cache = Arc::new(ReviewCache::default());
        caches.push_back((key, cache.clone()));
        cache
    }
}

/// A review in the game's words: the `review` document of docs/json.md.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReviewView {
    /// The game.
    pub game: String,
    /// The run reviewed against; null when every position was solved on the spot.
    pub run: Option<String>,
    /// The rules: always the total objective, exact; the run's mode and cap.
    pub options: SolverConfig,
    /// `proven-optimal` when every optimum is proven, `exact` when the first move is judged
    /// against a run's fixed first guess.
    pub label: Label,
    /// What the review's optima may claim, in words.
    pub claim: String,
    /// Largest position solved on the spot (null: no limit).
    pub solve_limit: Option<usize>,
    /// The answer, when given or found.
    pub answer: Option<String>,
    /// The last move won.
    pub won: bool,
    /// Moves played.
    pub steps: usize,
    /// Each move, judged.
    pub moves: Vec<MoveView>,
    /// The game as a whole.
    pub summary: SummaryView,
}

/// Whether a move's figures are all known, and if not why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveState {
    /// Every figure is exact.
    Exact,
    /// No strategy could guarantee the answer within the guesses left (from the position,
    /// or after the player's guess): those figures are null.
    Infeasible,
    /// A position was larger than the solve limit: those figures are null.
    TooLarge,
}

/// One move of a review.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoveView {
    /// The move, from 1.
    pub step: usize,
    /// The player's guess.
    pub guess: String,
    /// Its colours in the game's style.
    pub pattern: String,
    /// Its colours as digits.
    pub digits: String,
    /// Guesses allowed, this one included.
    pub guesses_left: u32,
    /// Answers possible before the move.
    pub count: usize,
    /// Those answers, when at most [`LIST_CANDIDATES_UP_TO`].
    pub candidates: Option<Vec<String>>,
    /// Whether every figure is known.
    pub state: MoveState,
    /// The optimum of the position; null when it could not be judged.
    pub optimal: Option<OptimalView>,
    /// The player's guess, valued.
    pub played: PlayedView,
    /// Guesses lost on average: `played.mean − optimal.mean`.
    pub loss: Option<f64>,
    /// Guesses lost in total over `count` answers: `played.total − optimal.total`.
    pub loss_total: Option<i64>,
    /// What the colours left.
    pub after: AfterView,
    /// How much the colours helped.
    pub luck: Option<LuckView>,
}

/// The optimum of a position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OptimalView {
    /// Optimal guesses, the tree's or the solver's choice first (at most 20 listed).
    pub guesses: Vec<String>,
    /// How many optimal guesses were found.
    pub count: usize,
    /// True when `count` is all of them.
    pub complete: bool,
    /// f: guesses over `count` answers of the move under optimal play, this one included.
    pub total: u32,
    /// total / answers: expected guesses from here.
    pub mean: f64,
    /// `proven-optimal`, or `exact` for a run's fixed first guess.
    pub label: Label,
    /// `tree` or `computed`.
    pub source: Source,
}

/// The player's guess, valued exactly (its total, then optimal play).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayedView {
    /// Guesses over the move's answers with this guess then optimal play.
    pub total: Option<u32>,
    /// total / answers.
    pub mean: Option<f64>,
    /// The guess was optimal.
    pub optimal: Option<bool>,
}

/// What the colours left.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AfterView {
    /// Answers left (0 once won).
    pub count: usize,
    /// Those answers, when at most [`LIST_CANDIDATES_UP_TO`].
    pub candidates: Option<Vec<String>>,
    /// Answers the guess left on average over the colours it could show.
    pub count_mean: f64,
}

/// Luck: further guesses expected before the colours were seen, minus after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LuckView {
    /// `before − after`: positive when the colours saved guesses.
    pub value: f64,
    /// Further guesses expected after this one, averaged over the colours it could show.
    pub before: f64,
    /// Further guesses expected from the position the colours left (0 once won).
    pub after: f64,
}

/// The game as a whole.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SummaryView {
    /// Guesses played.
    pub guesses: usize,
    /// Every move optimal (null when a move could not be judged).
    pub perfect: Option<bool>,
    /// Moves whose guess was optimal.
    pub optimal_moves: usize,
    /// Σ loss: the guesses the player's choices cost on average.
    pub loss: Option<f64>,
    /// Σ luck.
    pub luck: Option<f64>,
    /// Expected guesses of optimal play from the start.
    pub mean: Option<f64>,
    /// The player's first guess.
    pub first_guess: String,
    /// Optimal play from the same first guess.
    pub same_first_guess: SameFirstView,
}

/// Optimal play from the player's first guess.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SameFirstView {
    /// Its expected guesses (the first included).
    pub mean: Option<f64>,
    /// Guesses it needs for this answer (null when the answer is unknown).
    pub guesses: Option<u32>,
    /// Σ loss after the first move: what the game lost against it.
    pub loss: Option<f64>,
}

impl ReviewView {
    /// The view of `review` of `subject`'s game.
    pub fn new(subject: &Subject<'_>, review: &Review, limit: Option<usize>) -> ReviewView {
        let game = subject.game;
        let words = |answers: &[AnswerId]| {
            (answers.len() <= LIST_CANDIDATES_UP_TO).then(|| {
                answers
                    .iter()
                    .map(|&a| game.answer_text(a).to_string())
                    .collect()
            })
        };
        let fixed_first = review.moves.iter().any(|m| {
            m.optimum
                .known()
                .is_some_and(|o| o.proof == Proof::GivenFirstGuess)
        });
        let first_guess = subject
            .run
            .and_then(|r| r.first.as_deref())
            .filter(|_| fixed_first);
        // The run's tree is a coordinator's that rests on claims nobody re-ran: its optima
        // are proven only if they hold.
        let unchecked = subject.run.map_or(0, |r| r.unchecked.len());
        let moves: Vec<MoveView> = review
            .moves
            .iter()
            .enumerate()
            .map(|(i, m)| move_view(game, i + 1, m, &words))
            .collect();
        let first = review
            .moves
            .first()
            .map(|m| game.guess_text(m.step.guess).to_string())
            .unwrap_or_default();
        ReviewView {
            game: game.name().to_string(),
            run: subject.run.map(|r| r.name.clone()),
            options: subject.rules.config(),
            label: if fixed_first {
                Label::Exact
            } else {
                Label::ProvenOptimal
            }
            .resting_on(unchecked),
            claim: claim(first_guess, unchecked),
            solve_limit: limit,
            answer: review.answer.map(|a| game.answer_text(a).to_string()),
            won: review.won(),
            steps: review.moves.len(),
            summary: SummaryView {
                guesses: review.moves.len(),
                perfect: review.perfect(),
                optimal_moves: review.optimal_moves(),
                loss: review.loss(),
                luck: review.luck(),
                mean: review.start_mean(),
                first_guess: first,
                same_first_guess: SameFirstView {
                    mean: review.same_first_mean(),
                    guesses: review.same_first.as_ref().and_then(|j| j.known().copied()),
                    loss: review.loss_after_first(),
                },
            },
            moves,
        }
    }
}

/// What a review's optima claim: proven, or for the first move only given a run's fixed first
/// guess; those from a run's tree resting on `unchecked` worker claims only if they hold.
pub fn claim(fixed_first: Option<&str>, unchecked: usize) -> String {
    let resting = match unchecked {
        0 => String::new(),
        n => format!(", those from the run's tree {}", unchecked_condition(n)),
    };
    match fixed_first {
        None => format!("every optimum proven{resting}"),
        Some(word) => format!(
            "the first move is judged against the run's first guess {word}, optimal GIVEN THAT \
             FIRST GUESS only; every later optimum proven{resting}"
        ),
    }
}

fn move_view(
    game: &Game,
    step: usize,
    m: &MoveReview,
    words: &dyn Fn(&[AnswerId]) -> Option<Vec<String>>,
) -> MoveView {
    let len = game.guesses()[m.step.guess as usize].len();
    let unjudged = [
        m.optimum.known().is_none().then(|| too_large(&m.optimum)),
        m.played.known().is_none().then(|| too_large(&m.played)),
        m.after_total
            .known()
            .is_none()
            .then(|| too_large(&m.after_total)),
    ];
    let state = match unjudged.into_iter().flatten().reduce(|a, b| a || b) {
        None => MoveState::Exact,
        Some(true) => MoveState::TooLarge,
        Some(false) => MoveState::Infeasible,
    };
    MoveView {
        step,
        guess: game.guess_text(m.step.guess).to_string(),
        pattern: m.step.pattern.format(len, game.style()),
        digits: m.step.pattern.format(len, PatternStyle::Digits),
        guesses_left: m.guesses_left,
        count: m.before.len(),
        candidates: words(&m.before),
        state,
        optimal: m.optimum.known().map(|o| optimal_view(game, o, m)),
        played: PlayedView {
            total: m.played.known().copied(),
            mean: m.played_mean(),
            optimal: m.optimal(),
        },
        loss: m.loss(),
        loss_total: m.loss_total(),
        after: AfterView {
            count: m.after.len(),
            candidates: words(&m.after),
            count_mean: m.mean_left,
        },
        luck: match (m.luck(), m.luck_before(), m.luck_after()) {
            (Some(value), Some(before), Some(after)) => Some(LuckView {
                value,
                before,
                after,
            }),
            _ => None,
        },
    }
}

fn too_large<T>(judged: &Judged<T>) -> bool {
    matches!(judged, Judged::TooLarge { .. })
}

fn optimal_view(game: &Game, o: &Optimum, m: &MoveReview) -> OptimalView {
    OptimalView {
        guesses: o
            .guesses
            .iter()
            .map(|&g| game.guess_text(g).to_string())
            .collect(),
        count: o.count,
        complete: o.complete,
        total: o.total,
        mean: m.optimal_mean().unwrap_or_default(),
        label: match o.proof {
            Proof::Proven => Label::ProvenOptimal,
            Proof::GivenFirstGuess => Label::Exact,
        },
        source: o.source,
    }
}
