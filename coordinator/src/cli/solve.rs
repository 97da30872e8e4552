//! `hakase solve`: the proven optimum of a game, its best first guesses and its tree.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use hakase_core::label::Label;
use hakase_core::solver::memo::BYTES_PER_ENTRY;
use hakase_core::solver::{FirstGuesses, Progress, Solution, Solver, SolverConfig, INFEASIBLE};
use hakase_core::trees::treefile;
use hakase_core::{FeedbackTable, Game, GuessId};
use serde::Serialize;

use hakase_engine::first::solve_first_run;
use hakase_query::treerun::about;
use hakase_runs::locate::{default_run_dir, first_run_dir, scoped_run_dir};
use hakase_runs::{Damage, RunScope};
use hakase_serving::Threads;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::outcome::NoWin;
use super::run_args::RunArgs;
use super::solver_args::SolverArgs;
use crate::game_args::GameArgs;
use crate::output::progress::FirstGuessBar;
use crate::output::{distribution_text, emit, plural, JsonArg, Table, View};

/// Compute the optimal strategy and prove it.
///
/// Every allowed guess is considered at every step; guesses are skipped only when an
/// admissible lower bound shows they cannot beat the best found, so the result is the true
/// optimum ("proven"). With --top-k the published restricted method is used instead, and the
/// result is only an upper bound.
#[derive(Debug, Args)]
pub struct Solve {
    /// Which game.
    #[command(flatten)]
    pub game: GameArgs,

    /// Evaluate only this first guess (exactly), e.g. salet or ジーランス. Given more than
    /// once, rank exactly those first guesses (as --firsts does).
    #[arg(long, value_name = "W")]
    pub first: Vec<String>,

    /// Rank exactly the first guesses listed in FILE (one per line): each to its exact value,
    /// as a resumable run of its own.
    #[arg(long, value_name = "FILE", conflicts_with = "rank_all")]
    pub firsts: Option<PathBuf>,

    /// Let --first be any string of at most 5 letters, not only an allowed guess (e.g. a
    /// string from `hakase design`); later guesses are still the game's words.
    #[arg(long, requires = "first", conflicts_with = "firsts")]
    pub allow_any_first: bool,

    /// Objective and rules.
    #[command(flatten)]
    pub rules: SolverArgs,

    /// Compute the exact value of every first guess instead of cutting off the ones that
    /// cannot beat the best: a resumable run of its own (`<run>-rank-all`), which `hakase
    /// ranking` reads while it runs and after.
    #[arg(long, conflicts_with = "first")]
    pub rank_all: bool,

    /// Write the optimal tree to FILE.
    #[arg(long, value_name = "FILE")]
    pub tree_out: Option<PathBuf>,

    /// Format of --tree-out: json (versioned document) or text (one line per answer).
    #[arg(long, value_enum, default_value = "json")]
    pub format: TreeFormat,

    /// Rows of the first-guess ranking to print.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub top: usize,

    /// Memory for the transposition table in MiB; when full it forgets its older half.
    #[arg(long, default_value_t = 2048, value_name = "MIB")]
    pub memo_mib: usize,

    /// Text or JSON.
    #[command(flatten)]
    pub output: JsonArg,

    /// Solve directly in memory: no database, no resume. The default is the resumable run
    /// on --db.
    #[arg(long)]
    pub in_memory: bool,

    /// The resumable run: stop at any time and run the same command again to continue where
    /// it stopped; `hakase query --run NAME` and the other run commands find it by name.
    #[command(flatten)]
    pub at: RunArgs,

    /// Search threads (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// `--format` values for trees.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum TreeFormat {
    /// The versioned JSON document.
    Json,
    /// One line per answer with its whole path.
    Text,
}

impl Solve {
    /// Solves in this process and prints the result.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        // Flags that would waste a long solve are refused before it starts.
        if let Some(path) = &self.tree_out {
            super::guard::check_output_path(path, "--tree-out")?;
        }
        super::guard::check_threads(self.threads)?;
        let listed = self.listed_words()?;
        let single = match (&listed, self.first.as_slice()) {
            (None, [word]) => Some(word.as_str()),
            _ => None,
        };
        if self.allow_any_first && single.is_none() {
            bail!("--allow-any-first takes one --first W");
        }
        let loaded = self.game.load_for_first(single, self.allow_any_first)?;
        let (game, table) = (&loaded.game, &loaded.table);
        super::guard::check_max_guesses(game, self.rules.max_guesses)?;
        let config = self.rules.config();
        let entries = self.memo_mib.max(1) * (1 << 20) / BYTES_PER_ENTRY;
        let solver = Solver::new(game, table, config.clone(), entries);
        let root = solver.root(config.guess_cap(game));
        let guess_of = |word: &str, flag: &str| -> Result<GuessId> {
            let guess = game
                .find_guess(word)
                .with_context(|| format!("{flag} {word}"))?;
            if !solver.is_allowed(&root, guess) {
                bail!("{flag} {word} is not allowed as a first guess in this mode");
            }
            Ok(guess)
        };
        let listed: Option<Vec<GuessId>> = match &listed {
            Some(words) => {
                let mut ids = words
                    .iter()
                    .map(|(flag, word)| guess_of(word, flag))
                    .collect::<Result<Vec<_>>>()?;
                ids.sort_unstable();
                ids.dedup();
                Some(ids)
            }
            None => None,
        };
        let scope = match (&listed, self.rank_all) {
            (Some(ids), _) => Some(RunScope::Listed(ids.clone())),
            (None, true) => Some(RunScope::RankAll),
            (None, false) => None,
        };
        let first = match (single, &listed) {
            (_, Some(ids)) => FirstGuesses::Listed(ids),
            (Some(word), None) => FirstGuesses::Only(guess_of(word, "--first")?),
            (None, None) if self.rank_all => FirstGuesses::RankAll,
            (None, None) => FirstGuesses::Best,
        };
        if !self.in_memory {
            match first {
                FirstGuesses::Only(guess) => {
                    return self.run_first_stored(game, table, config, guess, entries, out)
                }
                _ => {
                    let scope = scope.unwrap_or_default();
                    return self.run_resumable(game, table, config, &scope, entries, out);
                }
            }
        }
        let listed = listed.as_ref().map(Vec::len);
        self.run_in_memory(game, table, &solver, first, single.is_some(), listed, out)
    }

    /// Solves in memory (`--in-memory`) and prints the result.
    #[allow(clippy::too_many_arguments)]
    fn run_in_memory(
        &self,
        game: &Game,
        table: &FeedbackTable,
        solver: &Solver,
        first: FirstGuesses<'_>,
        given_first: bool,
        listed: Option<usize>,
        out: &mut dyn Write,
    ) -> Result<()> {
        let started = Instant::now();
        let reporter = Reporter::new();
        // --threads applies here too, so both ways of solving can be compared thread for thread.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads.unwrap_or(0))
            .build()
            .context("starting the search threads")?;
        let solution = pool.install(|| solver.solve_game(first, &|p| reporter.report(game, p)));
        reporter.finish();
        let elapsed = started.elapsed();
        let summary = Summary::new(game, &solution, self.top, elapsed, solver.nodes_searched())
            .given_first(given_first.then(|| first_text(game, &solution)))
            .listed(listed, game, &solution);
        emit(out, self.output, &summary)?;
        summary.require_win()?;
        // The result is printed first: a failed write loses only the file.
        self.write_tree_out(game, table, &solution)
    }

    /// Writes --tree-out, if asked.
    fn write_tree_out(
        &self,
        game: &Game,
        table: &hakase_core::FeedbackTable,
        solution: &Solution,
    ) -> Result<()> {
        match &self.tree_out {
            Some(path) => {
                // A tree from a restricted choice of first guesses is optimal given its own.
                let restricted = !self.first.is_empty() || self.firsts.is_some();
                let first = restricted.then(|| first_text(game, solution));
                write_tree(game, table, solution, first.as_deref(), path, self.format)
            }
            None => Ok(()),
        }
    }
}

impl Solve {
    /// The default solve: the in-memory search with every settled first guess checkpointed
    /// to the --db run database (see `hakase_engine::checkpoint`), resumable
    /// after an interruption, and stored as a run the query commands read.
    fn run_resumable(
        &self,
        game: &Game,
        table: &hakase_core::FeedbackTable,
        config: SolverConfig,
        scope: &RunScope,
        entries: usize,
        out: &mut dyn Write,
    ) -> Result<()> {
        use crate::output::run_report as report;
        use hakase_engine::checkpoint::{run_checkpointed, CheckpointOptions};
        let db = self
            .at
            .writer_dir(|data| scoped_run_dir(&default_run_dir(data, game.name(), &config), scope));

        let stop = stop_on_signal();
        let options = CheckpointOptions {
            db: db.clone(),
            threads: self.threads,
            memo_entries: entries,
            sync_every: Duration::from_millis(200),
        };
        let started = Instant::now();
        let reporter = Reporter::new();
        let outcome = run_checkpointed(game, table, config, scope, &options, &stop, &|p| {
            reporter.report(game, p)
        })
        .with_context(|| format!("solving with the run database {}", db.display()))?;
        reporter.finish();
        let Some(outcome) = outcome else {
            return Err(hakase_serving::Interrupted::now(format!(
                "finished work is saved in {} — run the same command again to resume",
                db.display()
            ))
            .into());
        };
        let damage = outcome.reopened.damage;
        if outcome.stored && damage.settled() > 0 {
            eprintln!(
                "read the finished run {}; {} damaged settled first guesses were dropped (its \
                 stored solution is intact)",
                db.display(),
                damage.settled()
            );
        } else if outcome.resumed > 0 || damage.settled() > 0 {
            let damaged = match damage.settled() {
                0 => String::new(),
                n => format!(", {n} damaged (recomputed)"),
            };
            // The worst-case objective settles a first guess once per budget it refutes.
            let budgets = match outcome.resumed_budgets {
                0 | 1 => String::new(),
                n => format!(" (over {n} guess budgets)"),
            };
            eprintln!(
                "resumed {}{budgets} from {}{damaged}",
                plural(
                    outcome.resumed as u64,
                    "settled first guess",
                    "settled first guesses"
                ),
                db.display()
            );
        }
        report::write_damage_notes(&mut std::io::stderr(), &outcome.reopened)?;
        let solution = &outcome.solution;
        let listed = match scope {
            RunScope::Listed(ids) => Some(ids.len()),
            _ => None,
        };
        let mut summary = Summary::new(game, solution, self.top, started.elapsed(), outcome.nodes)
            .listed(listed, game, solution);
        summary.damage = (!damage.is_empty()).then_some(damage);
        emit(out, self.output, &summary)?;
        summary.require_win()?;
        if !self.output.json {
            report::write_chart(out, game, table, solution)?;
            if scope.is_ranking() {
                writeln!(
                    out,
                    "the whole ranking: hakase ranking --run {}",
                    db.display()
                )?;
            }
        }
        self.write_tree_out(game, table, solution)
    }
}

/// The first guess of a solution restricted to one (`--first`), as the game writes it.
fn first_text(game: &Game, solution: &Solution) -> String {
    solution
        .ranking
        .first()
        .map_or_else(String::new, |r| game.guess_text(r.guess).to_string())
}

impl Solve {
    /// `--first W` without --in-memory: the exact solve of that first guess stored as its own
    /// run (default `hakase-data/<game>[-options]-first-W`), which a second call reads back.
    fn run_first_stored(
        &self,
        game: &Game,
        table: &hakase_core::FeedbackTable,
        config: SolverConfig,
        guess: hakase_core::GuessId,
        entries: usize,
        out: &mut dyn Write,
    ) -> Result<()> {
        let word = game.guess_text(guess).to_string();
        let db = self
            .at
            .writer_dir(|data| first_run_dir(&default_run_dir(data, game.name(), &config), &word));
        let stop = stop_on_signal();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads.unwrap_or(0))
            .build()
            .context("starting the search threads")?;
        let started = Instant::now();
        let reporter = Reporter::new();
        let outcome = solve_first_run(
            game,
            table,
            config,
            guess,
            &db,
            entries,
            &pool,
            &stop,
            &|p| reporter.report(game, p),
        )
        .with_context(|| format!("solving with the run database {}", db.display()))?;
        reporter.finish();
        let Some(outcome) = outcome else {
            return Err(hakase_serving::Interrupted::now(format!(
                "the run {} was stopped — run the same command again to solve it",
                db.display()
            ))
            .into());
        };
        if outcome.stored {
            eprintln!("read the finished run {}", db.display());
        }
        let solution = &outcome.solution;
        let summary = Summary::new(game, solution, self.top, started.elapsed(), outcome.nodes)
            .given_first(Some(word));
        emit(out, self.output, &summary)?;
        summary.require_win()?;
        if !self.output.json {
            writeln!(out, "stored as run {}", db.display())?;
        }
        self.write_tree_out(game, table, solution)
    }
}

/// A flag set on Ctrl-C or SIGTERM: the resumable solves stop and keep what is settled.
fn stop_on_signal() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    std::thread::spawn(move || {
        if let Ok(rt) = hakase_serving::runtime(Threads::Caller) {
            rt.block_on(hakase_serving::shutdown_signal());
            flag.store(true, Ordering::Relaxed);
        }
    });
    stop
}

fn write_tree(
    game: &Game,
    table: &hakase_core::FeedbackTable,
    solution: &Solution,
    first: Option<&str>,
    path: &PathBuf,
    format: TreeFormat,
) -> Result<()> {
    let Some(tree) = &solution.tree else {
        bail!("no tree to write: the game cannot be won within the guesses allowed");
    };
    let text = match format {
        TreeFormat::Json => {
            let about = about(None, &solution.config, Some(solution), first, &[]);
            treefile::to_json(game, tree, about)
        }
        TreeFormat::Text => treefile::to_text(game, table, tree, false),
    };
    std::fs::write(path, text).with_context(|| format!("writing the tree to {}", path.display()))
}

/// Shows the search's progress on the one bar ([`FirstGuessBar`]): without a terminal, a log
/// line every five seconds and at the end.
struct Reporter(FirstGuessBar);

impl Reporter {
    fn new() -> Reporter {
        Reporter(FirstGuessBar::new(Duration::from_secs(5), false))
    }

    fn report(&self, game: &Game, progress: Progress) {
        let best = progress.best.map_or_else(
            || "no solution yet".to_string(),
            |(g, v)| format!("best {} = {v}", game.guess_text(g)),
        );
        let (done, total) = (progress.done as u64, progress.total as u64);
        // A lone first guess: its parts are all the progress there is, with the bound they
        // prove so far.
        let parts = progress.parts.map_or(String::new(), |(settled, all)| {
            let lower = progress
                .lower
                .map_or(String::new(), |lower| format!(", total ≥ {lower}"));
            format!(", parts {settled}/{all} settled{lower}")
        });
        let message = format!(
            "{best} (≤ {}){parts}",
            plural(progress.guesses_left, "guess", "guesses")
        );
        let elapsed = self.0.elapsed_secs();
        let eta_secs = match progress.parts {
            Some(_) => progress.work.parts_eta_secs(elapsed),
            None => progress.work.eta_secs(elapsed),
        };
        self.0.show(
            (done, total),
            eta_secs,
            &message,
            done == total,
            |secs, eta| format!("[{secs:>7.1}s] {done}/{total} first guesses, {eta}, {message}"),
        );
    }

    fn finish(&self) {
        self.0.finish();
    }
}

/// What `hakase solve` prints (and its JSON form).
#[derive(Debug, Serialize)]
struct Summary {
    game: String,
    fingerprint: String,
    answers: usize,
    guesses: usize,
    options: SolverConfig,
    proven: bool,
    /// The first guess the solve was restricted to (--first).
    first_guess_fixed: Option<String>,
    /// How many first guesses were ranked when they were a chosen list (--firsts): the best
    /// of them is then optimal only given itself.
    first_guesses_listed: Option<usize>,
    /// What the result may claim, as every view says it.
    claim: String,
    possible: bool,
    guesses_left: u32,
    first_guess: Option<String>,
    total: Option<u32>,
    mean: Option<f64>,
    worst: Option<u32>,
    distribution: Vec<u32>,
    ranking: Vec<RankRow>,
    seconds: f64,
    nodes: u64,
    /// What this resume found damaged in the run database and recomputed (null when
    /// nothing was, or when the solve ran in memory).
    damage: Option<Damage>,
}

#[derive(Debug, Serialize)]
struct RankRow {
    guess: String,
    /// True when `value` is the exact total, false when it is a proven lower bound.
    exact: bool,
    /// Null when the guess cannot win within the guesses allowed.
    value: Option<u32>,
}

impl Summary {
    fn new(game: &Game, solution: &Solution, top: usize, elapsed: Duration, nodes: u64) -> Self {
        let eval = solution.evaluation.as_ref();
        Summary {
            game: game.name().to_string(),
            fingerprint: game.fingerprint().to_string(),
            answers: game.answers().len(),
            guesses: game.guesses().len(),
            options: solution.config.clone(),
            proven: solution.proven,
            first_guess_fixed: None,
            first_guesses_listed: None,
            claim: Label::of_result(solution.proven, false).claim(None),
            possible: solution.best.is_some(),
            guesses_left: solution.guesses_left,
            first_guess: solution.best.map(|b| game.guess_text(b.guess).to_string()),
            total: solution.best.map(|b| b.outcome.value()),
            mean: eval.map(|e| e.mean()),
            worst: eval.map(|e| e.worst),
            distribution: eval.map(|e| e.distribution.clone()).unwrap_or_default(),
            ranking: solution
                .ranking
                .iter()
                .take(top)
                .map(|r| RankRow {
                    guess: game.guess_text(r.guess).to_string(),
                    exact: r.outcome.is_exact(),
                    value: (r.outcome.value() < INFEASIBLE).then_some(r.outcome.value()),
                })
                .collect(),
            seconds: elapsed.as_secs_f64(),
            nodes,
            damage: None,
        }
    }
}

impl Summary {
    /// Marks a ranking of a chosen list of first guesses: its best is optimal only given
    /// itself, so the claim names it as --first does.
    fn listed(self, count: Option<usize>, game: &Game, solution: &Solution) -> Self {
        let Some(count) = count else { return self };
        let mut summary = self.given_first(Some(first_text(game, solution)));
        summary.first_guesses_listed = Some(count);
        summary
    }

    /// Marks a solve restricted to its first guess (--first): the claim names it.
    fn given_first(mut self, first: Option<String>) -> Self {
        self.claim = Label::of_result(self.proven, first.is_some()).claim(first.as_deref());
        self.first_guess_fixed = first;
        self
    }
}

impl Summary {
    /// Fails with [`NoWin`] (exit status 3) when no strategy wins every answer: the summary
    /// printed says so, and a script must not read it as a solved game.
    fn require_win(&self) -> Result<()> {
        if self.possible {
            return Ok(());
        }
        Err(NoWin {
            guesses_left: self.guesses_left,
        }
        .into())
    }

    /// The plain sentence for a game no strategy wins within the guesses allowed, and what
    /// to change.
    fn no_win_text(&self, out: &mut dyn Write) -> Result<()> {
        let within = match self.options.max_guesses {
            Some(_) => plural(self.guesses_left, "guess", "guesses"),
            None => plural(self.guesses_left, "try", "tries"),
        };
        let strategy = match &self.first_guess_fixed {
            Some(first) => format!("no strategy starting with {first}"),
            None => "no strategy".to_string(),
        };
        if self.proven {
            writeln!(out, "{strategy} wins every answer within {within} (proven)")?;
        } else {
            writeln!(
                out,
                "the restricted search found {strategy} that wins every answer within {within} \
                 (not proven: a search without --top-k may find one)"
            )?;
        }
        let more = match self.options.max_guesses {
            Some(_) => "allow more guesses with a larger --max-guesses",
            None => "allow more with --tries N",
        };
        writeln!(out, "{more}")?;
        Ok(())
    }
}

impl View for Summary {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        let claim = &self.claim;
        writeln!(
            out,
            "{}: {}, {}; {}",
            self.game,
            plural(self.answers as u64, "answer", "answers"),
            plural(self.guesses as u64, "allowed guess", "allowed guesses"),
            self.options.description()
        )?;
        let (Some(first), Some(total)) = (&self.first_guess, self.total) else {
            return self.no_win_text(out);
        };
        let of = match self.first_guesses_listed {
            Some(n) => format!(
                " of the {} listed",
                plural(n as u64, "first guess", "first guesses")
            ),
            None => String::new(),
        };
        writeln!(
            out,
            "best first guess{of} {first}: total {total}, mean {:.4}, worst {} — {claim}",
            self.mean.unwrap_or(0.0),
            self.worst.unwrap_or(0)
        )?;
        writeln!(
            out,
            "guesses needed: {}",
            distribution_text(&self.distribution)
        )?;
        writeln!(out, "first guesses:")?;
        let mut table = Table::new(&[">RANK", "GUESS", ">TOTAL"]);
        for (rank, row) in self.ranking.iter().enumerate() {
            let value = match (row.exact, row.value) {
                (_, None) => "cannot win".to_string(),
                (true, Some(v)) => format!("{v}"),
                (false, Some(v)) => format!("≥ {v}"),
            };
            table.row(vec![(rank + 1).to_string(), row.guess.clone(), value]);
        }
        table.write(out)?;
        writeln!(
            out,
            "searched {} in {:.2} s",
            plural(self.nodes, "node", "nodes"),
            self.seconds
        )?;
        Ok(())
    }
}

impl Solve {
    /// The first guesses to rank as a list, with the flag each came from: `--firsts FILE`'s
    /// words and, when given more than once, the `--first` words. `None` for any other solve.
    fn listed_words(&self) -> Result<Option<Vec<(String, String)>>> {
        super::first_list::listed_words(self.firsts.as_deref(), &self.first, 2)
    }
}
