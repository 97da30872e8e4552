//! The top two levels of the search as branch and bound over job results.
//!
//! First guesses are taken in the solver's order, each pruned as soon as its lower bound
//! reaches the best total so far. A first guess is one job ([`JobKind::Guess`]) unless it is
//! cut into its parts: every first guess with `--split-first`, the one first guess of a
//! one-guess ranking, and with `--split-tail N` the last N in order of a ranking (where each
//! first guess needs its exact value anyway, so no pruning is lost). A ranking opens its first
//! guesses from the end of the order, the costliest first, so whole jobs keep the workers
//! evenly busy to the end. The parts after a cut
//! first guess are solved inline when tiny, become first-move jobs ([`JobKind::Node`]) when
//! medium, and are split again when large: their second guesses, in the solver's order, are
//! cut into runs ([`JobKind::Slice`]) of growing length, searched a window at a time with
//! the best value known as cutoff. The plan is a function of the game, the options and the
//! results known so far: after a restart the coordinator plans again and finds every finished
//! job among the stored results.
//!
//! Determinism: like the solver, a node settles on the first guess in order (lower bound,
//! Σ part², list position) among those of least value, whatever order results arrive in.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use hakase_core::heuristics::strategy::{total_within, EntropyStrategy};
use hakase_core::rules::history::partition;
use hakase_core::solver::bounds::min_depth;
use hakase_core::solver::hard::HardState;
use hakase_core::solver::{
    FirstGuessValue, FirstGuesses, GuessBound, Mode, Node, Objective, Outcome, SharedSolver,
    Solver, SolverConfig, Work, INFEASIBLE,
};
use hakase_core::trees::tree::Tree;
use hakase_core::{GameTable, GuessId, Pattern};
use hakase_proto::job::{JobId, JobKind, JobSpec};

/// How the plan cuts the search into jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanParams {
    /// Each first guess is one job (`evaluate_guess(root, g, β)`, exactly as the in-memory
    /// search runs it), so no pruning is lost; false cuts every first guess into its parts.
    pub whole_first: bool,
    /// In a ranking, the last this many first guesses in search order (the costliest, opened
    /// first) are cut into their parts even when `whole_first`, for runs with more workers
    /// than costly first guesses; a one-guess ranking is always cut.
    pub split_tail: usize,
    /// Every first guess to its exact value (`--rank-all`): no first guess is cut off by
    /// the incumbent.
    pub rank_all: bool,
    /// Parts of at most this many answers are solved by the coordinator itself.
    pub inline_max: usize,
    /// Parts of at least this many answers are split by their second guesses
    /// ([`SPLIT_MIN_AUTO`]: an eighth of the answers, at least 64; `usize::MAX`: never).
    pub split_min: usize,
    /// Runs of second guesses of one large part searched at once, at least (the plan asks
    /// for one per worker slot when there are more slots).
    pub split_window: usize,
    /// The longest run of second guesses in one slice job ([`SLICE_MAX_DEFAULT`]).
    pub slice_max: usize,
}

/// [`PlanParams::split_min`] chosen by the game: parts of at least an eighth of the answers
/// (at least 64) are split by their second guesses. Wordle's costliest first guesses leave
/// one part of over half the answers (qajaq: 1369 of 2315), which as a single job would be
/// most of the first guess's cost.
pub const SPLIT_MIN_AUTO: usize = 0;

/// The first guesses of a ranking cut into parts by default (see [`PlanParams::split_tail`]):
/// none. A ranking opens its costliest first guesses first, so whole jobs balance the workers
/// (on the 500-word sample through two workers, its last 16 in order cut into parts took a
/// quarter of the job time, and the coordinator's CPU fell from 1.45× to 1.22× the in-memory
/// ranking's without the cut).
pub const SPLIT_TAIL_DEFAULT: usize = 0;

/// The longest run of second guesses in one slice job by default (`--slice-max`). Runs grow
/// 1, 1, 2, 4, … so that the first guesses in order, which are searched to their exact
/// values, are jobs of their own, and the long tail, refuted against the best value known,
/// comes in fewer jobs. On qajaq (two one-thread workers, `--trust-workers`, 2 pairs), 32
/// against 128 cost 0.98× the CPU, and its job log replayed on 32 workers without the
/// audit's re-runs gave 97 % efficiency against 61 % (longest job 1.5 s against 3.5 s):
/// since slices of one part share their scan in the worker, short runs cost little more.
pub const SLICE_MAX_DEFAULT: usize = 32;

/// What the plan is asked for: jobs to keep asked for, and the worker slots that will take
/// them (a large part's second guesses are searched this many runs at a time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Demand {
    /// Jobs wanted at least.
    pub jobs: usize,
    /// Worker slots live.
    pub slots: usize,
}

impl Default for PlanParams {
    fn default() -> Self {
        PlanParams {
            whole_first: true,
            split_tail: SPLIT_TAIL_DEFAULT,
            rank_all: false,
            inline_max: 4,
            split_min: SPLIT_MIN_AUTO,
            split_window: 4,
            slice_max: SLICE_MAX_DEFAULT,
        }
    }
}

/// A job the plan needs now: its cutoff and its place in line (smaller first).
#[derive(Debug, Clone)]
pub struct Request {
    /// The content address.
    pub id: JobId,
    /// The subproblem.
    pub spec: Arc<JobSpec>,
    /// The cutoff needed.
    pub beta: u32,
    /// Queue order: the first guess's place in the opening sequence (see
    /// `Level::opening`), then part and second-guess rank.
    pub priority: (u32, u32, u32),
    /// For a whole first-guess job, the first guess's index in search order (its cutoff
    /// follows the incumbent).
    pub first: Option<u32>,
    /// For a part or slice job, the admissible bound of what it is asked (its part's floor
    /// 2n − 1, or its run's least guess bound): a claim stating more rests on the worker
    /// alone, so the audit's sample re-runs it as soon as it arrives.
    pub claim_floor: Option<u32>,
}

/// A first guess settled by a job's claim (see [`Planner::first_claims`]).
#[derive(Debug, Clone)]
pub struct FirstClaim {
    /// The job.
    pub id: JobId,
    /// Its spec (the root with the first guess).
    pub spec: Arc<JobSpec>,
    /// The admissible lower bound of the first guess's split.
    pub lower: u32,
    /// The total the first guess must reach for the result to stand (for a part job's
    /// claim, the bound it states).
    pub cutoff: u32,
    /// The first guess's index in search order (the claims of the best and the runner-up
    /// decide the result).
    pub first: usize,
}

/// What is known about each job: the strongest outcome received.
pub type Known = HashMap<JobId, Outcome>;

/// Where the plan stands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlanProgress {
    /// First guesses at the current budget.
    pub total: usize,
    /// First guesses settled (exact or pruned).
    pub settled: usize,
    /// The best first guess so far and its total.
    pub best: Option<(GuessId, u32)>,
    /// The guess budget being searched.
    pub guesses_left: u32,
    /// Expected cost of the first guesses settled and of all (`resumed` is left to the
    /// engine, which knows when its session began).
    pub work: Work,
}

/// Where a first guess cut into part jobs stands: what a run of one huge first guess shows
/// while it runs.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CutProgress {
    /// The first guess.
    pub guess: GuessId,
    /// Its parts (without the winning one).
    pub parts: u32,
    /// Parts whose exact value is known.
    pub parts_settled: u32,
    /// The share of the work done, counting each part by the square of its size (a part's
    /// cost grows faster than its size): what the ETA of the cut first guess is taken from.
    pub done_share: f64,
    /// A proven lower bound on its total.
    pub lower: u32,
    /// A total some strategy reaches: the sum over the parts of the least of the exact value,
    /// the best slice found and the entropy strategy's total (normal mode), once every part
    /// has one.
    pub upper: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Unopened,
    Open,
    Exact(u32),
    Pruned(u32),
}

enum Source {
    /// Solved on the spot (tiny or trivial parts): exact, or infeasible.
    Known(Outcome),
    /// A first-move job.
    Job(JobId, Arc<JobSpec>),
    /// Split into second-move jobs.
    Split(Split),
}

struct Part {
    pattern: Pattern,
    node: Node,
    source: Source,
    /// The total the entropy strategy reaches on the part (`Some(None)`: it does not find
    /// every answer in time), worked out the first time progress is shown.
    played: Option<Option<u32>>,
}

impl Part {
    /// The least total any strategy can reach on the part, 2n − 1 (one answer found at the
    /// first try, every other at the second): a claim stating no more needs no check.
    fn floor(&self) -> u32 {
        2 * self.node.candidates.len() as u32 - 1
    }
}

/// A large part's second guesses in the solver's order, cut into runs, each a slice job.
struct Split {
    order: Vec<GuessBound>,
    /// The runs: positions `from..to` of `order`, in order.
    slices: Vec<(u32, u32)>,
    jobs: Vec<Option<(JobId, Arc<JobSpec>)>>,
}

struct First {
    status: Status,
    parts: Vec<Part>,
    /// The first guess as one job, when it is not cut into parts.
    whole: Option<(JobId, Arc<JobSpec>)>,
}

/// One budget's search: the first guesses in order and what is known of each.
struct Level {
    guesses_left: u32,
    root: Node,
    order: Vec<GuessBound>,
    /// The expected cost of each first guess of `order`, for the ETA: one each in a search
    /// with cutoffs.
    costs: HashMap<GuessId, f64>,
    firsts: Vec<First>,
    opened: usize,
    incumbent: Option<(u32, usize)>,
    rank_all: bool,
    /// True once the incumbent was restored from the results known at start.
    primed: bool,
}

/// The plan of a whole run (for the worst-case objective, one level per budget tried).
pub struct Planner {
    solver: SharedSolver,
    fingerprint: String,
    config: SolverConfig,
    params: PlanParams,
    /// The first guesses of a listed ranking (`--firsts`), ascending; `None` for all of them.
    listed: Option<Arc<[GuessId]>>,
    budgets: Vec<u32>,
    budget: usize,
    level: Level,
    done: bool,
    /// Runs of one large part's second guesses asked for at once (see [`Demand::slots`]).
    window: usize,
    /// Jobs cut finer after they ran long while workers waited (see [`Planner::recut`]):
    /// part of what the plan is a function of, kept with the run.
    recut: HashSet<JobId>,
}

/// What one planning pass found.
pub struct Plan {
    /// Every job needed now.
    pub requests: Vec<Request>,
    /// True when the search is over.
    pub finished: bool,
}

/// Memo entries of the coordinator's own solver (inline parts, orders).
const PLANNER_MEMO: usize = 2_000_000;

impl Planner {
    /// A plan for `game` under `config`, over the first guesses `listed` (each to its exact
    /// value) or, with `None`, over all of them.
    pub fn new(
        tables: Arc<GameTable>,
        config: SolverConfig,
        params: PlanParams,
        listed: Option<Arc<[GuessId]>>,
    ) -> Planner {
        let shared = SharedSolver::new(tables, config.clone(), PLANNER_MEMO);
        let solver = shared.solver();
        let cap = config.guess_cap(solver.game());
        let budgets: Vec<u32> = match config.objective {
            Objective::Total => vec![cap],
            Objective::Worst => {
                let root = solver.root(cap);
                let branching = solver.guess_order(&root).branching;
                let start = min_depth(root.candidates.len() as u32, branching).max(1);
                (start..=cap).collect()
            }
        };
        let level = Level::new(
            solver,
            budgets.first().copied().unwrap_or(cap),
            listed.as_deref(),
            params.rank_all,
        );
        Planner {
            fingerprint: solver.game().fingerprint().to_string(),
            solver: shared,
            config,
            params,
            listed,
            budgets,
            budget: 0,
            level,
            done: false,
            window: params.split_window.max(1),
            recut: HashSet::new(),
        }
    }

    /// Takes the jobs a run cut finer before it was stopped, before the first pass, so that
    /// a restarted coordinator plans the same jobs and finds their results.
    pub fn restore_recut(&mut self, ids: impl IntoIterator<Item = JobId>) {
        self.recut.extend(ids);
    }

    /// Cuts job `id` finer, because it has run long while workers waited: a whole
    /// first-guess job into its parts, a part's first-move job into slices of its second
    /// guesses, a slice of two or more guesses into its two halves. The job itself is then
    /// no longer asked for (its holder is told to stop it) and its pieces are, with the
    /// same cutoffs the plan gives any part or slice. False when the job is not one the
    /// plan can cut (a single-guess slice, a job of another budget, an audit re-run).
    pub fn recut(&mut self, id: JobId) -> bool {
        let Some(place) = self.find(id) else {
            return false;
        };
        self.recut.insert(id);
        match place {
            Place::Whole(i) => self.cut_into_parts(i),
            Place::Part(i, k) => {
                let node = self.level.firsts[i].parts[k].node.clone();
                self.level.firsts[i].parts[k].source = Source::Split(self.new_split(&node));
            }
            Place::Slice(i, k, j) => {
                let (fingerprint, config) = (&self.fingerprint, &self.config);
                let part = &mut self.level.firsts[i].parts[k];
                if let Source::Split(split) = &mut part.source {
                    split.halve(j);
                    split.refine(&part.node, fingerprint, config, &self.recut);
                }
            }
        }
        true
    }

    /// Where job `id` is in the plan, if it is a job the plan can cut.
    fn find(&mut self, id: JobId) -> Option<Place> {
        let (fingerprint, config) = (&self.fingerprint, &self.config);
        for (i, first) in self.level.firsts.iter_mut().enumerate() {
            if first.whole.as_ref().is_some_and(|(w, _)| *w == id) {
                return Some(Place::Whole(i));
            }
            for (k, part) in first.parts.iter_mut().enumerate() {
                match &mut part.source {
                    Source::Known(_) => {}
                    Source::Job(job, _) if *job == id => return Some(Place::Part(i, k)),
                    Source::Job(..) => {}
                    Source::Split(split) => {
                        for j in 0..split.slices.len() {
                            let (from, to) = split.slices[j];
                            if to - from >= 2
                                && split.job(j, &part.node, fingerprint, config).0 == id
                            {
                                return Some(Place::Slice(i, k, j));
                            }
                        }
                    }
                }
            }
        }
        None
    }

    /// The coordinator's own solver (for trees of inline parts).
    pub fn solver(&self) -> &Solver<'_> {
        self.solver.solver()
    }

    /// Where the search stands.
    pub fn progress(&self) -> PlanProgress {
        let level = &self.level;
        let settled = |f: &First| matches!(f.status, Status::Exact(_) | Status::Pruned(_));
        let done: f64 = level
            .firsts
            .iter()
            .zip(&level.order)
            .filter(|(f, _)| settled(f))
            .map(|(_, b)| self.first_guess_cost(b.guess))
            .sum();
        PlanProgress {
            total: level.order.len(),
            settled: level.firsts.iter().filter(|f| settled(f)).count(),
            work: Work {
                done,
                total: level.costs.values().sum(),
                ..Work::default()
            },
            best: level
                .incumbent
                .map(|(value, at)| (level.order[at].guess, value)),
            guesses_left: level.guesses_left,
        }
    }

    /// Plans with what is known: settles what it can and lists every job needed now, opening
    /// first guesses in order until at least `demand.jobs` jobs are asked for.
    pub fn plan(&mut self, known: &Known, demand: Demand) -> Plan {
        loop {
            if self.done {
                return Plan {
                    requests: Vec::new(),
                    finished: true,
                };
            }
            let requests = self.plan_level(known, demand);
            let level = &self.level;
            let settled = level.opened == level.order.len()
                && level.firsts.iter().all(|f| f.status != Status::Open);
            if !settled {
                return Plan {
                    requests,
                    finished: false,
                };
            }
            if level.incumbent.is_some() || self.budget + 1 >= self.budgets.len() {
                self.done = true;
                continue;
            }
            self.budget += 1;
            self.level = Level::new(
                self.solver(),
                self.budgets[self.budget],
                self.listed.as_deref(),
                self.params.rank_all,
            );
        }
    }

    fn plan_level(&mut self, known: &Known, demand: Demand) -> Vec<Request> {
        self.window = self.params.split_window.max(demand.slots).max(1);
        let want = demand.jobs;
        self.prime(known);
        'again: loop {
            self.settle(known);
            let mut requests = Vec::new();
            let open: Vec<usize> = (0..self.level.opened)
                .map(|k| self.level.opening(k))
                .filter(|&i| self.level.firsts[i].status == Status::Open)
                .collect();
            for i in open {
                let beta = self.level.cutoff(i);
                let status = self.eval_first(i, beta, known, Some(&mut requests));
                debug_assert_eq!(status, Status::Open);
            }
            while self.level.opened < self.level.order.len() {
                if requests.len() >= want {
                    break;
                }
                let i = self.level.opening(self.level.opened);
                self.level.opened += 1;
                let beta = self.level.cutoff(i);
                if self.level.order[i].lower >= beta {
                    self.level.firsts[i].status = Status::Pruned(self.level.order[i].lower);
                    continue;
                }
                self.materialise(i);
                let status = self.eval_first(i, beta, known, Some(&mut requests));
                self.level.firsts[i].status = status;
                if let Status::Exact(value) = status {
                    if self.level.improve(value, i) {
                        continue 'again;
                    }
                }
            }
            return requests;
        }
    }

    /// Restores the incumbent from exact first-guess results already known (after a
    /// restart), before any first guess is opened: otherwise first guesses earlier in order
    /// would be asked for again with a looser cutoff than the bounds they already have.
    fn prime(&mut self, known: &Known) {
        if self.level.primed {
            return;
        }
        self.level.primed = true;
        if !self.params.whole_first || known.is_empty() {
            return;
        }
        let mut spec = JobSpec {
            kind: JobKind::Node,
            node: self.level.root.clone(),
        };
        for i in 0..self.level.order.len() {
            spec.kind = JobKind::Guess(self.level.order[i].guess);
            if let Some(Outcome::Exact { value, .. }) =
                known.get(&spec.id(&self.fingerprint, &self.config))
            {
                self.level.improve(*value, i);
            }
        }
    }

    /// Settles open first guesses until the incumbent stops improving.
    fn settle(&mut self, known: &Known) {
        loop {
            let mut improved = false;
            for k in 0..self.level.opened {
                let i = self.level.opening(k);
                if self.level.firsts[i].status != Status::Open {
                    continue;
                }
                let beta = self.level.cutoff(i);
                let status = self.eval_first(i, beta, known, None);
                self.level.firsts[i].status = status;
                if let Status::Exact(value) = status {
                    improved |= self.level.improve(value, i);
                }
            }
            if !improved {
                return;
            }
        }
    }

    /// Decides how first guess `i` is solved: as one job, or split by its parts.
    fn materialise(&mut self, i: usize) {
        let tail = self.level.rank_all
            && (self.level.order.len() == 1 || self.level.opening(i) < self.params.split_tail);
        if self.params.whole_first && !tail {
            let spec = JobSpec {
                kind: JobKind::Guess(self.level.order[i].guess),
                node: self.level.root.clone(),
            };
            let id = spec.id(&self.fingerprint, &self.config);
            if !self.recut.contains(&id) {
                self.level.firsts[i].whole = Some((id, Arc::new(spec)));
                return;
            }
        }
        self.cut_into_parts(i);
    }

    /// Splits the root by first guess `i` and decides how each part is solved.
    fn cut_into_parts(&mut self, i: usize) {
        self.level.firsts[i].whole = None;
        let game = self.solver().game();
        let table = self.solver().table();
        let guess = self.level.order[i].guess;
        let word = game.guesses()[guess as usize];
        let left = self.level.guesses_left.saturating_sub(1);
        let mut parts = Vec::new();
        for (pattern, candidates) in partition(table, guess, &self.level.root.candidates) {
            if pattern == Pattern::ALL_GREEN {
                continue;
            }
            let hard = if self.config.mode == Mode::Hard {
                self.level.root.hard.after(&word, pattern)
            } else {
                HardState::default()
            };
            let n = candidates.len();
            let node = Node {
                candidates,
                guesses_left: left.min(n as u32),
                hard,
            };
            let source = self.source(&node);
            parts.push(Part {
                pattern,
                node,
                source,
                played: None,
            });
        }
        self.level.firsts[i].parts = parts;
    }

    fn source(&self, node: &Node) -> Source {
        let n = node.candidates.len();
        let trivial = n <= 2 || node.guesses_left <= 1;
        if trivial || n <= self.params.inline_max {
            return Source::Known(self.solver().evaluate(node, INFEASIBLE));
        }
        if n >= self.split_min() {
            return Source::Split(self.new_split(node));
        }
        let spec = JobSpec {
            kind: JobKind::Node,
            node: node.clone(),
        };
        let id = spec.id(&self.fingerprint, &self.config);
        if self.recut.contains(&id) {
            return Source::Split(self.new_split(node));
        }
        Source::Job(id, Arc::new(spec))
    }

    /// A part's second guesses in order, cut into runs (those cut finer before, finer).
    fn new_split(&self, node: &Node) -> Split {
        let order = self.solver().guess_order(node).guesses;
        let slices = slices(order.len(), self.params.slice_max);
        let jobs = vec![None; slices.len()];
        let mut split = Split {
            order,
            slices,
            jobs,
        };
        split.refine(node, &self.fingerprint, &self.config, &self.recut);
        split
    }

    /// The least part size split by second guesses (see [`SPLIT_MIN_AUTO`]).
    fn split_min(&self) -> usize {
        match self.params.split_min {
            SPLIT_MIN_AUTO => (self.level.root.candidates.len() / 8).max(64),
            n => n,
        }
    }

    /// The status of first guess `i` under cutoff `beta`; with `requests`, also asks for
    /// every job it still needs.
    fn eval_first(
        &mut self,
        i: usize,
        beta: u32,
        known: &Known,
        requests: Option<&mut Vec<Request>>,
    ) -> Status {
        let rank_all = self.level.rank_all;
        if let Some((id, spec)) = &self.level.firsts[i].whole {
            let lower = self.level.order[i].lower;
            return match known.get(id) {
                Some(Outcome::Exact { value, .. }) => Status::Exact(*value),
                Some(Outcome::AtLeast(bound)) if (*bound).max(lower) >= beta => {
                    Status::Pruned((*bound).max(lower))
                }
                _ => {
                    if let Some(requests) = requests {
                        requests.push(Request {
                            id: *id,
                            spec: spec.clone(),
                            beta,
                            priority: (self.level.opening(i) as u32, 0, 0),
                            // Workers tighten cutoffs by the incumbent, never in a ranking.
                            first: (!rank_all).then_some(i as u32),
                            claim_floor: None,
                        });
                    }
                    Status::Open
                }
            };
        }
        let n = self.level.root.candidates.len() as u32;
        let place = self.level.opening(i) as u32;
        let (fingerprint, config, window) = (&self.fingerprint, &self.config, self.window);
        let solver = self.solver.solver();
        let parts = &mut self.level.firsts[i].parts;
        let values: Vec<(u32, bool)> = parts
            .iter_mut()
            .map(|p| part_value(p, known, fingerprint, config))
            .collect();
        let sum = values
            .iter()
            .fold(n, |acc, (v, _)| acc.saturating_add(*v))
            .min(INFEASIBLE);
        if values.iter().all(|(_, exact)| *exact) && sum < INFEASIBLE {
            return Status::Exact(sum);
        }
        if sum >= beta {
            return Status::Pruned(sum);
        }
        if let Some(requests) = requests {
            for (rank, (part, (value, exact))) in parts.iter_mut().zip(&values).enumerate() {
                if *exact {
                    continue;
                }
                let part_beta = beta - (sum - value);
                let priority = (place, rank as u32);
                // A total the entropy strategy reaches bounds a split part's value, so its
                // guesses worth more need only be refuted, never valued: the slices searched
                // beside the first ones, before any best is known, refute against it instead
                // of searching to exact values.
                let slice_beta = match &part.source {
                    Source::Split(_) => played_upper(part, solver, config)
                        .map_or(part_beta, |upper| part_beta.min(upper.saturating_add(1))),
                    _ => part_beta,
                };
                match &mut part.source {
                    Source::Known(_) => {}
                    Source::Job(id, spec) => requests.push(Request {
                        id: *id,
                        spec: spec.clone(),
                        beta: part_beta,
                        priority: (priority.0, priority.1, 0),
                        first: None,
                        claim_floor: Some(part.floor()),
                    }),
                    Source::Split(split) => split.request(
                        &part.node,
                        slice_beta,
                        known,
                        fingerprint,
                        config,
                        window,
                        priority,
                        requests,
                    ),
                }
            }
        }
        Status::Open
    }

    /// The first guesses cut into part jobs that are still open, in search order (at most
    /// `limit`): their parts settled, and the interval their total is known to lie in.
    pub fn open_cuts(&mut self, known: &Known, limit: usize) -> Vec<CutProgress> {
        let n = self.level.root.candidates.len() as u32;
        let (fingerprint, config) = (&self.fingerprint, &self.config);
        let solver = self.solver.solver();
        let mut cuts = Vec::new();
        for (i, first) in self.level.firsts.iter_mut().enumerate() {
            if cuts.len() >= limit {
                break;
            }
            if first.status != Status::Open || first.parts.is_empty() {
                continue;
            }
            let (mut lower, mut upper) = (n, Some(n));
            let (mut settled, mut weight_done, mut weight) = (0, 0.0, 0.0);
            for part in &mut first.parts {
                let size = part.node.candidates.len() as f64;
                weight += size * size;
                let (value, exact) = part_value(part, known, fingerprint, config);
                lower = lower.saturating_add(value).min(INFEASIBLE);
                if exact {
                    settled += 1;
                    weight_done += size * size;
                }
                let best = if exact {
                    Some(value)
                } else {
                    let found = part_upper(part, known, fingerprint, config);
                    let played = played_upper(part, solver, config);
                    found.into_iter().chain(played).min()
                };
                upper = upper.zip(best).map(|(sum, v)| sum.saturating_add(v));
            }
            cuts.push(CutProgress {
                guess: self.level.order[i].guess,
                parts: first.parts.len() as u32,
                parts_settled: settled,
                done_share: if weight > 0.0 {
                    weight_done / weight
                } else {
                    1.0
                },
                lower,
                upper: upper.filter(|&u| u < INFEASIBLE),
            });
        }
        cuts
    }

    /// The expected cost of first guess `guess` at the current budget (0 for a guess it does
    /// not consider), in the units of [`Work`].
    pub fn first_guess_cost(&self, guess: GuessId) -> f64 {
        self.level.costs.get(&guess).copied().unwrap_or(0.0)
    }

    /// Every first guess considered at the current budget, best first.
    pub fn ranking(&self) -> Vec<FirstGuessValue> {
        let level = &self.level;
        let mut ranked: Vec<(usize, FirstGuessValue)> = level
            .firsts
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let guess = level.order[i].guess;
                let outcome = match f.status {
                    Status::Exact(value) => Outcome::Exact { value, guess },
                    Status::Pruned(bound) => Outcome::AtLeast(bound),
                    Status::Unopened | Status::Open => return None,
                };
                Some((i, FirstGuessValue { guess, outcome }))
            })
            .collect();
        // The in-memory solver's order: by value, an exact value before a bound equal to it,
        // then search order.
        ranked.sort_by_key(|(i, v)| (v.outcome.value(), !v.outcome.is_exact(), *i));
        ranked.into_iter().map(|(_, v)| v).collect()
    }

    /// Every settled first guess other than the best that was solved as a whole job, with
    /// its admissible lower bound and the cutoff its claim must hold to: what the audit of
    /// a finished search re-checks.
    pub fn first_claims(&self) -> Vec<FirstClaim> {
        let level = &self.level;
        let best = level.incumbent.map(|(_, at)| at);
        level
            .firsts
            .iter()
            .enumerate()
            .filter(|(i, f)| {
                Some(*i) != best && matches!(f.status, Status::Exact(_) | Status::Pruned(_))
            })
            .filter_map(|(i, f)| {
                f.whole.as_ref().map(|(id, spec)| FirstClaim {
                    id: *id,
                    spec: spec.clone(),
                    lower: level.order[i].lower,
                    cutoff: level.cutoff(i),
                    first: i,
                })
            })
            .collect()
    }

    /// Every claim of a part job that a settled first guess rests on: a first-move job's
    /// bound or exact value above its part's floor 2n − 1, or a slice job's above the
    /// admissible bound of its guesses. Each must hold to the value it states (its `cutoff`
    /// here). An exact claim's tree, checked on arrival, proves only that its value is
    /// reached: a valid but suboptimal tree for a part would raise the first guess's total
    /// unseen, so its lower side is a claim like a bound.
    pub fn part_claims(&self, known: &Known) -> Vec<FirstClaim> {
        let mut claims = Vec::new();
        for (i, f) in self.level.firsts.iter().enumerate() {
            if !matches!(f.status, Status::Exact(_) | Status::Pruned(_)) {
                continue;
            }
            let mut claim = |id: &JobId, spec: &Arc<JobSpec>, lower: u32| {
                if let Some(stated) = known.get(id).map(|o| o.value()) {
                    if stated > lower {
                        claims.push(FirstClaim {
                            id: *id,
                            spec: spec.clone(),
                            lower,
                            cutoff: stated,
                            first: i,
                        });
                    }
                }
            };
            for part in &f.parts {
                match &part.source {
                    Source::Known(_) => {}
                    Source::Job(id, spec) => claim(id, spec, part.floor()),
                    Source::Split(split) => {
                        for (j, job) in split.jobs.iter().enumerate() {
                            if let Some((id, spec)) = job {
                                claim(id, spec, split.lower(j));
                            }
                        }
                    }
                }
            }
        }
        claims
    }

    /// First guess `i`'s place in the ranking's order (value, a bound after an exact value
    /// equal to it, search position); unsettled guesses come last.
    pub fn first_rank(&self, i: usize) -> (u32, bool, usize) {
        match self.level.firsts.get(i).map(|f| f.status) {
            Some(Status::Exact(value)) => (value, false, i),
            Some(Status::Pruned(bound)) => (bound, true, i),
            _ => (u32::MAX, true, i),
        }
    }

    /// The guess at search position `i`: the audit names the rows it left unchecked.
    pub fn guess_at(&self, i: usize) -> Option<GuessId> {
        self.level.order.get(i).map(|g| g.guess)
    }

    /// The whole first-guess job of first guess `i`, when it has one.
    pub fn whole_job(&self, i: usize) -> Option<(JobId, Arc<JobSpec>)> {
        self.level.firsts.get(i)?.whole.clone()
    }

    /// First guesses pruned by their admissible lower bound alone, without a job.
    pub fn pruned_unopened(&self) -> usize {
        self.level
            .firsts
            .iter()
            .filter(|f| {
                f.whole.is_none() && f.parts.is_empty() && matches!(f.status, Status::Pruned(_))
            })
            .count()
    }

    /// The admissible lower bound of first guess `i` (in search order): a claim about it
    /// that this bound already reaches needs no re-run.
    pub fn lower(&self, i: usize) -> u32 {
        self.level.order.get(i).map_or(0, |g| g.lower)
    }

    /// The cutoff a whole first-guess job `i` needs now (see `Level::cutoff`), so a
    /// lease can hand out the tightest one known at that moment.
    pub fn cutoff(&self, i: usize) -> u32 {
        self.level.cutoff(i)
    }

    /// The incumbent (value, first-guess index) of the current level, for workers to
    /// tighten the cutoffs of jobs they already hold.
    pub fn incumbent(&self) -> Option<(u32, usize)> {
        self.level.incumbent
    }

    /// The budget of the current level.
    pub fn guesses_left(&self) -> u32 {
        self.level.guesses_left
    }

    /// The best first guess with its total, once the search is over.
    pub fn best(&self) -> Option<FirstGuessValue> {
        let (value, at) = self.level.incumbent?;
        let guess = self.level.order[at].guess;
        Some(FirstGuessValue {
            guess,
            outcome: Outcome::Exact { value, guess },
        })
    }

    /// The optimal tree of the finished search, from the subtrees stored with job results
    /// (`tree_of`) and the coordinator's own solves.
    pub fn tree(
        &mut self,
        known: &Known,
        tree_of: &dyn Fn(JobId) -> Option<Tree>,
    ) -> Result<Option<Tree>, String> {
        let Some((_, at)) = self.level.incumbent else {
            return Ok(None);
        };
        let guess = self.level.order[at].guess;
        if let Some((id, _)) = &self.level.firsts[at].whole {
            return tree_of(*id)
                .map(Some)
                .ok_or_else(|| format!("no tree stored for the first guess of job {id}"));
        }
        let (fingerprint, config) = (&self.fingerprint, &self.config);
        let solver = self.solver.solver();
        let mut branches = Vec::new();
        for part in &mut self.level.firsts[at].parts {
            let subtree = match &mut part.source {
                Source::Known(_) => solver.tree(&part.node),
                Source::Job(id, _) => tree_of(*id),
                Source::Split(split) => {
                    let (_, best) = split.scan(&part.node, known, fingerprint, config);
                    match best {
                        Some((_, j)) => {
                            let (id, _) = split.job(j, &part.node, fingerprint, config);
                            tree_of(id)
                        }
                        None => None,
                    }
                }
            };
            let subtree = subtree.ok_or_else(|| {
                format!(
                    "no subtree for the part of {} answers after pattern {}",
                    part.node.candidates.len(),
                    part.pattern.0
                )
            })?;
            branches.push((part.pattern, subtree));
        }
        Ok(Some(Tree { guess, branches }))
    }
}

impl Level {
    /// The search at budget `guesses_left` over the first guesses `listed` (or all): a list
    /// is a ranking, every guess to its exact value, as is `rank_all`.
    fn new(
        solver: &Solver<'_>,
        guesses_left: u32,
        listed: Option<&[GuessId]>,
        rank_all: bool,
    ) -> Level {
        let root = solver.root(guesses_left);
        let order = match listed {
            Some(list) => solver.first_guess_order(&root, FirstGuesses::Listed(list)),
            None => solver.guess_order(&root).guesses,
        };
        let rank_all = rank_all || listed.is_some();
        let guesses: Vec<GuessId> = order.iter().map(|b| b.guess).collect();
        let weights = solver.progress_weights(&root, &guesses, !rank_all);
        let costs = guesses.iter().copied().zip(weights).collect();
        let firsts = (0..order.len())
            .map(|_| First {
                status: Status::Unopened,
                parts: Vec::new(),
                whole: None,
            })
            .collect();
        Level {
            guesses_left,
            root,
            order,
            costs,
            firsts,
            opened: 0,
            incumbent: None,
            rank_all,
            primed: false,
        }
    }

    /// The search position of the `k`-th first guess opened, and (the map is its own
    /// inverse) the place in the opening sequence of search position `k`. A search opens in
    /// order, for its cutoffs. A ranking, which has none, opens the costliest first: the end
    /// of the order (high lower bounds, large parts) holds the long jobs, and started first
    /// they run beside the many short ones instead of alone at the end (longest job first).
    fn opening(&self, k: usize) -> usize {
        if self.rank_all {
            self.order.len() - 1 - k
        } else {
            k
        }
    }

    /// The cutoff for first guess `i`: an earlier guess may tie the best and still win, a
    /// later one must beat it.
    fn cutoff(&self, i: usize) -> u32 {
        match self.incumbent {
            _ if self.rank_all => INFEASIBLE,
            None => INFEASIBLE,
            Some((value, at)) if i < at => value + 1,
            Some((value, _)) => value,
        }
    }

    /// Takes (value, i) as the incumbent if it is better; true when it was.
    fn improve(&mut self, value: u32, i: usize) -> bool {
        if value >= INFEASIBLE {
            return false;
        }
        match self.incumbent {
            Some(current) if current <= (value, i) => false,
            _ => {
                self.incumbent = Some((value, i));
                true
            }
        }
    }
}

/// A part's lower bound and whether it is exact.
fn part_value(
    part: &mut Part,
    known: &Known,
    fingerprint: &str,
    config: &SolverConfig,
) -> (u32, bool) {
    let floor = part.floor();
    match &mut part.source {
        Source::Known(Outcome::Exact { value, .. }) => (*value, true),
        Source::Known(Outcome::AtLeast(bound)) => (*bound, false),
        Source::Job(id, _) => match known.get(id) {
            Some(Outcome::Exact { value, .. }) => (*value, true),
            Some(Outcome::AtLeast(bound)) => ((*bound).max(floor), false),
            None => (floor, false),
        },
        Source::Split(split) => {
            let (lower, best) = split.scan(&part.node, known, fingerprint, config);
            match best {
                Some((value, _)) => (value, true),
                None => (lower.max(floor), false),
            }
        }
    }
}

/// The total the entropy strategy reaches on a part within its guesses, worked out once: in
/// normal play only (its guesses need not keep hard mode's rules).
fn played_upper(part: &mut Part, solver: &Solver<'_>, config: &SolverConfig) -> Option<u32> {
    if config.mode != Mode::Normal {
        return None;
    }
    *part.played.get_or_insert_with(|| {
        total_within(
            &EntropyStrategy,
            solver.game(),
            solver.table(),
            &part.node.candidates,
            part.node.guesses_left,
        )
    })
}

/// The least value some strategy is known to reach on a part not settled yet: a split part's
/// best slice so far.
fn part_upper(
    part: &mut Part,
    known: &Known,
    fingerprint: &str,
    config: &SolverConfig,
) -> Option<u32> {
    let Source::Split(split) = &mut part.source else {
        return None;
    };
    (0..split.slices.len())
        .filter_map(
            |j| match split.value(j, &part.node, known, fingerprint, config) {
                (value, true) => Some(value),
                _ => None,
            },
        )
        .min()
}

/// Where a job the plan can cut is: a whole first guess, a part's first-move job, a slice
/// (by first guess, part and slice index).
enum Place {
    Whole(usize),
    Part(usize, usize),
    Slice(usize, usize, usize),
}

impl Split {
    /// Halves every run that was cut before ([`Planner::recut`]), and their halves in turn.
    fn refine(
        &mut self,
        node: &Node,
        fingerprint: &str,
        config: &SolverConfig,
        recut: &HashSet<JobId>,
    ) {
        if recut.is_empty() {
            return;
        }
        let mut j = 0;
        while j < self.slices.len() {
            let (from, to) = self.slices[j];
            if to - from >= 2 && recut.contains(&self.job(j, node, fingerprint, config).0) {
                self.halve(j);
            } else {
                j += 1;
            }
        }
    }

    /// Cuts run `j` (of two guesses or more) into its two halves, in place: the runs stay
    /// in order, so ties still go to the earlier guess.
    fn halve(&mut self, j: usize) {
        let (from, to) = self.slices[j];
        let mid = from + (to - from) / 2;
        self.slices.splice(j..=j, [(from, mid), (mid, to)]);
        self.jobs.splice(j..=j, [None, None]);
    }

    fn job(
        &mut self,
        j: usize,
        node: &Node,
        fingerprint: &str,
        config: &SolverConfig,
    ) -> (JobId, Arc<JobSpec>) {
        let (from, to) = self.slices[j];
        self.jobs[j]
            .get_or_insert_with(|| {
                let spec = JobSpec {
                    kind: JobKind::Slice { from, to },
                    node: node.clone(),
                };
                (spec.id(fingerprint, config), Arc::new(spec))
            })
            .clone()
    }

    /// The admissible lower bound of slice `j`: its first guess's (the order is by bound).
    fn lower(&self, j: usize) -> u32 {
        self.order[self.slices[j].0 as usize].lower
    }

    /// The value known of slice `j`: exact, or a lower bound.
    fn value(
        &mut self,
        j: usize,
        node: &Node,
        known: &Known,
        fingerprint: &str,
        config: &SolverConfig,
    ) -> (u32, bool) {
        let lower = self.lower(j);
        let (id, _) = self.job(j, node, fingerprint, config);
        match known.get(&id) {
            Some(Outcome::Exact { value, .. }) => (*value, true),
            Some(Outcome::AtLeast(bound)) => ((*bound).max(lower), false),
            None => (lower, false),
        }
    }

    /// The part's lower bound, and its exact value with the winning slice's index once
    /// every other slice is proven no better.
    fn scan(
        &mut self,
        node: &Node,
        known: &Known,
        fingerprint: &str,
        config: &SolverConfig,
    ) -> (u32, Option<(u32, usize)>) {
        let mut lower = INFEASIBLE;
        let mut best: Option<(u32, usize)> = None;
        let mut seen: Vec<(u32, bool)> = Vec::new();
        for j in 0..self.slices.len() {
            // The order is by bound: nothing further on can go below what is already known.
            if self.lower(j) >= lower {
                break;
            }
            let (value, exact) = self.value(j, node, known, fingerprint, config);
            seen.push((value, exact));
            lower = lower.min(value);
            if exact && best.is_none_or(|b| (value, j) < b) {
                best = Some((value, j));
            }
        }
        let settled = match best {
            Some((value, at)) if value == lower => {
                seen[..at].iter().all(|&(v, exact)| exact || v > value)
            }
            _ => false,
        };
        (lower, if settled { best } else { None })
    }

    /// Asks for the slice jobs this part needs under cutoff `beta`: the first `window`
    /// slices not yet proven out, each with its own cutoff.
    #[allow(clippy::too_many_arguments)]
    fn request(
        &mut self,
        node: &Node,
        beta: u32,
        known: &Known,
        fingerprint: &str,
        config: &SolverConfig,
        window: usize,
        priority: (u32, u32),
        requests: &mut Vec<Request>,
    ) {
        let mut best: Option<(u32, usize)> = None;
        let mut asked = 0;
        for j in 0..self.slices.len() {
            let cut = match best {
                Some((value, at)) if j < at => beta.min(value + 1),
                Some((value, _)) => beta.min(value),
                None => beta,
            };
            if self.lower(j) >= cut {
                break;
            }
            let (value, exact) = self.value(j, node, known, fingerprint, config);
            if exact {
                if best.is_none_or(|b| (value, j) < b) {
                    best = Some((value, j));
                }
                continue;
            }
            if value >= cut || asked >= window {
                continue;
            }
            let (id, spec) = self.job(j, node, fingerprint, config);
            requests.push(Request {
                id,
                spec,
                beta: cut,
                priority: (priority.0, priority.1, j as u32 + 1),
                first: None,
                claim_floor: Some(self.lower(j)),
            });
            asked += 1;
        }
    }
}

/// The runs a search order of `len` guesses is cut into: 1, 1, 2, 4, … guesses, at most
/// `max` (at least 1).
fn slices(len: usize, max: usize) -> Vec<(u32, u32)> {
    let mut slices = Vec::new();
    let (mut from, mut size) = (0, 1);
    while from < len {
        let to = (from + size).min(len);
        slices.push((from as u32, to as u32));
        if slices.len() > 1 {
            size = (size * 2).min(max.max(1));
        }
        from = to;
    }
    slices
}
