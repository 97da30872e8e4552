//! The query service over a [`RescannedCatalog`]: plain methods taking and returning the query
//! side's types, with [`ServiceError`] for every refusal. gRPC ([`super::grpc`]) and HTTP
//! ([`crate::web`]) are thin adapters over it, so both answer the same question the same way.
//!
//! Answers that follow a stored tree are computed inline (microseconds); answers that need an
//! on-the-spot solve run on a blocking thread, a few at a time and a bounded number per client
//! address ([`SolvePool`]), bounded in size and in time: each solve holds a [`Halt`] with a
//! deadline ([`ServiceLimits::solve_time`] after it got its place), set too when the request
//! goes away (the client hung up, its deadline or the request timeout passed), so no solve
//! outlives its caller or runs longer than its budget. The place in the pool is held by the
//! solve itself.
//! Input is length-checked before anything is parsed; bad input is refused naming the step;
//! nothing a client sends can panic the server.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hakase_core::oracle::{parse_history, QueryError};
use hakase_core::review::read_game;
use hakase_core::rules::history::{filter, Step};
use hakase_core::solver::Halt;

use super::error::ServiceError;
use super::input::check_lengths;
use super::pool::SolvePool;
use super::ranking::{load_ranking_at, RankingView, RunRanking};
use super::rescan::{RescannedCatalog, ScanReport};
use super::review::{GameInput, ReviewCaches, ReviewView, Subject};
use super::stepchart::{step_chart, FirstChart, StepChart};
use super::treerun::{self, TreeFormat};
use super::view::NextView;
use hakase_runs::LoadedRun;

/// The service: the catalog plus the limits, and the bounded caches of reviews.
#[derive(Clone)]
pub struct QueryService {
    catalog: Arc<RescannedCatalog>,
    limits: ServiceLimits,
    solves: SolvePool,
    reviews: Arc<ReviewCaches>,
}

/// Who asks: the client's address (`None` for a caller in this process), so that one
/// address cannot take every place of the solve pool.
pub type Caller = Option<IpAddr>;

/// Bounds on the work one request may cause.
#[derive(Debug, Clone, Copy)]
pub struct ServiceLimits {
    /// Largest candidate set solved on the spot (off-tree histories, off-tree first guesses).
    pub max_solve_candidates: usize,
    /// On-the-spot solves running at once; more wait.
    pub concurrent_solves: usize,
    /// Solves one client address may have running or waiting at once; more are refused
    /// (the page asks for two at once: the next guess and the chart).
    pub solves_per_address: usize,
    /// Solves waiting for a place at most; more are refused as busy.
    pub max_waiting_solves: usize,
    /// Time one request's solve may run once it has its place: past it the solve is given
    /// up and the answer is "too costly to solve here". A client waits at most about this
    /// long for a place (the pool hands places on fairly), so it bounds everyone's wait too.
    pub solve_time: Duration,
}

/// Default [`ServiceLimits::solve_time`].
pub const SOLVE_TIME: Duration = Duration::from_millis(1500);

impl Default for ServiceLimits {
    fn default() -> Self {
        ServiceLimits {
            max_solve_candidates: 400,
            concurrent_solves: 2,
            solves_per_address: 2,
            max_waiting_solves: 64,
            solve_time: SOLVE_TIME,
        }
    }
}

impl QueryService {
    /// A service over `catalog` with `limits`.
    pub fn new(catalog: Arc<RescannedCatalog>, limits: ServiceLimits) -> QueryService {
        QueryService {
            catalog,
            solves: SolvePool::new(
                limits.concurrent_solves,
                limits.solves_per_address,
                limits.max_waiting_solves,
            ),
            limits,
            reviews: Arc::new(ReviewCaches::default()),
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> ServiceLimits {
        self.limits
    }

    /// Solves running and waiting now.
    pub fn solves(&self) -> (usize, usize) {
        self.solves.counts()
    }

    /// The runs served now, by name.
    pub fn runs(&self) -> Vec<Arc<LoadedRun>> {
        self.catalog.current().runs().cloned().collect()
    }

    /// The run a request names (empty: the only one served).
    pub fn run(&self, name: &str) -> Result<Arc<LoadedRun>, ServiceError> {
        Ok(self.catalog.current().get(name)?)
    }

    /// The run named `name` and `history` (guess, colours) read against its game: the
    /// history's length is checked before anything is parsed.
    pub fn read_history(
        &self,
        name: &str,
        history: &[(&str, &str)],
    ) -> Result<(Arc<LoadedRun>, Vec<Step>), ServiceError> {
        let run = self.run(name)?;
        check_lengths(history.iter().flat_map(|(word, colours)| [*word, *colours]))?;
        let tries = run.game.tries();
        if history.len() > tries as usize {
            return Err(QueryError::TooLong {
                steps: history.len(),
                tries,
            }
            .into());
        }
        let steps = parse_history(&run.game, history)?;
        Ok((run, steps))
    }

    /// The next guess after `history` on run `name`: inline on the stored tree, through the
    /// bounded solve pool when the history left it. Every front end renders this one view.
    pub async fn next_view(
        &self,
        caller: Caller,
        name: &str,
        history: &[(&str, &str)],
    ) -> Result<NextView, ServiceError> {
        let (run, steps) = self.read_history(name, history)?;
        let oracle = run.oracle()?;
        if oracle.follows_tree(&steps) {
            let next = oracle.next_guess(&steps)?;
            return Ok(NextView::new(&run, &next));
        }
        let limit = self.limits.max_solve_candidates;
        self.solve(caller, move |halt| {
            let oracle = run.oracle()?.with_solve_limit(limit).with_halt(halt);
            let next = oracle.next_guess(&steps)?;
            Ok(NextView::new(&run, &next))
        })
        .await
    }

    /// Every answer still possible after `history` on run `name`, in the game's order.
    pub fn candidates(
        &self,
        name: &str,
        history: &[(&str, &str)],
    ) -> Result<Vec<String>, ServiceError> {
        let (run, steps) = self.read_history(name, history)?;
        let left = filter(&run.game, &run.table, &steps).map_err(ServiceError::NoAnswerFits)?;
        Ok(left
            .iter()
            .map(|&a| run.game.answer_text(a).to_string())
            .collect())
    }

    /// The chart of the step after `history` on run `name` (see [`step_chart`]); solved on
    /// the pool when the history left the stored tree.
    pub async fn step_chart(
        &self,
        caller: Caller,
        name: &str,
        history: &[(&str, &str)],
    ) -> Result<StepChart, ServiceError> {
        let (run, steps) = self.read_history(name, history)?;
        let limit = self.limits.max_solve_candidates;
        let on_tree = run.oracle().is_ok_and(|o| o.follows_tree(&steps));
        let work = move |halt: Option<Arc<Halt>>| -> Result<StepChart, ServiceError> {
            let mut oracle = run.oracle()?.with_solve_limit(limit);
            if let Some(halt) = halt {
                oracle = oracle.with_halt(halt);
            }
            let (next, solved) = oracle.next_guess_with_tree(&steps)?;
            Ok(step_chart(&run, &oracle, &steps, &next, solved.as_ref())?)
        };
        if on_tree {
            work(None)
        } else {
            self.solve(caller, move |halt| work(Some(halt))).await
        }
    }

    /// The chart of `first` on run `name` (`None`: the run's own first guess), solved on the
    /// pool when it is not the run's own.
    pub async fn first_chart(
        &self,
        caller: Caller,
        name: &str,
        first: Option<&str>,
    ) -> Result<FirstChart, ServiceError> {
        let run = self.run(name)?;
        check_lengths(first)?;
        let first = first
            .map(|word| run.game.find_guess(word.trim()))
            .transpose()
            .map_err(|e| QueryError::BadFirst(e.to_string()))?;
        let oracle = run.oracle()?;
        if first.is_none() || first == Some(oracle.tree().guess) {
            return Ok(FirstChart::new(&run, &oracle.chart(first)?));
        }
        let limit = self.limits.max_solve_candidates;
        self.solve(caller, move |halt| {
            let oracle = run.oracle()?.with_solve_limit(limit).with_halt(halt);
            Ok(FirstChart::new(&run, &oracle.chart(first)?))
        })
        .await
    }

    /// The ranking of first guesses of run `name`: the rows of `words` when any are named,
    /// else the best `top` (all for `None`). A finished run answers from memory; one still
    /// running is read from its directory off the async threads, as `hakase ranking` reads it.
    pub async fn ranking(
        &self,
        caller: Caller,
        name: &str,
        words: Vec<String>,
        top: Option<usize>,
    ) -> Result<RankingView, ServiceError> {
        let run = self.run(name)?;
        check_lengths(words.iter().map(String::as_str))?;
        if let Some(ranking) = RunRanking::served(&run) {
            return Ok(RankingView::select(&ranking, &words, top)?);
        }
        self.solve(caller, move |_halt| {
            let ranking = load_ranking_at(run.path.clone())?;
            Ok(RankingView::select(&ranking, &words, top)?)
        })
        .await
    }

    /// The optimal tree of `run` in `format`.
    pub fn tree(&self, run: &LoadedRun, format: TreeFormat) -> Result<String, ServiceError> {
        Ok(treerun::document(run, format)?)
    }

    /// `game` judged move by move against run `name`, on the solve pool; positions larger
    /// than the solve limit are reported as not judged, and solved ones are kept in the run's
    /// bounded review cache between requests.
    pub async fn review(
        &self,
        caller: Caller,
        name: &str,
        game: GameInput,
    ) -> Result<ReviewView, ServiceError> {
        let run = self.run(name)?;
        check_lengths(game.texts())?;
        let limit = self.limits.max_solve_candidates;
        let caches = self.reviews.clone();
        self.solve(caller, move |halt| {
            let subject = Subject::of_run(&run);
            let played = read_game(subject.game, subject.table, &game.text())?;
            let cache = caches.of(&subject);
            let review = subject
                .reviewer(&cache, Some(limit))
                .with_halt(halt)
                .review(&played)?;
            Ok(ReviewView::new(&subject, &review, Some(limit)))
        })
        .await
    }

    /// Looks for runs that appeared or finished, now (off the async threads: it reads disks).
    pub async fn rescan(&self) -> Result<ScanReport, ServiceError> {
        let catalog = self.catalog.clone();
        tokio::task::spawn_blocking(move || catalog.rescan())
            .await
            .map_err(ServiceError::RescanFailed)
    }

    /// Runs `work` on a blocking thread in a place of the solve pool, with a [`Halt`] that
    /// holds the request's budget and is set when the request goes away (this future is
    /// dropped). The place and the work end together: the place moves into the blocking
    /// task. An answer given after the halt was set means nothing and is never returned.
    async fn solve<T: Send + 'static>(
        &self,
        caller: Caller,
        work: impl FnOnce(Arc<Halt>) -> Result<T, ServiceError> + Send + 'static,
    ) -> Result<T, ServiceError> {
        let place = self.solves.place(caller).await?;
        let halt = Arc::new(Halt::with_deadline(Instant::now() + self.limits.solve_time));
        let mut on_drop = HaltOnDrop(Some(halt.clone()));
        let given = halt.clone();
        let answer = tokio::task::spawn_blocking(move || {
            let _place = place;
            work(given)
        })
        .await;
        on_drop.0 = None;
        if halt.expired() {
            return Err(ServiceError::TooCostly {
                time: self.limits.solve_time,
            });
        }
        answer.map_err(ServiceError::SolveFailed)?
    }
}

/// Sets a solve's halt when its request goes away before the solve ended.
struct HaltOnDrop(Option<Arc<Halt>>);

impl Drop for HaltOnDrop {
    fn drop(&mut self) {
        if let Some(halt) = &self.0 {
            halt.halt();
        }
    }
}
