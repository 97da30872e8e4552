//! `hakase coordinator`: serve a run to workers over gRPC, keep it in a sled database, and
//! print the proven-optimal result when it is over. Restarting on the same database resumes.

use crate::output::plural;
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crate::output::progress::RunProgress;
use crate::output::run_report as report;
use anyhow::{bail, Context, Result};
use clap::Args;
use hakase_core::solver::SolverConfig;
use hakase_core::Game;
use hakase_engine::audit::AuditPolicy;
use hakase_engine::engine::{Engine, EngineParams};
use hakase_engine::http;
use hakase_engine::joblog::JobLog;
use hakase_engine::plan::{PlanParams, SLICE_MAX_DEFAULT, SPLIT_MIN_AUTO, SPLIT_TAIL_DEFAULT};
use hakase_engine::server::{bind, serve, ServeOptions};
use hakase_query::treerun::about;
use hakase_runs::RunScope;
use hakase_serving::{
    self, init_logging, shutdown_signal, Ending, Linger, LogFormat, PortLimits, SharedTokens, Stop,
    Threads,
};
use tokio::runtime::Runtime;

use super::solver_args::SolverArgs;
use crate::game_args::GameArgs;

/// How the search is cut into jobs (shared by run commands).
#[derive(Debug, Clone, Args)]
pub struct CutArgs {
    /// Cut every first guess into jobs for its parts instead of solving it as one job (one
    /// job per first guess keeps all the in-memory search's pruning; parts spread a single
    /// expensive first guess over more workers).
    #[arg(long)]
    pub split_first: bool,
    /// The exact value of every first guess, none cut off by the best: the full ranking, in
    /// its own run (by default `<run>-rank-all`, the directory `solve --rank-all` uses).
    #[arg(long)]
    pub rank_all: bool,
    /// Parts after a first guess with at most this many answers are solved by the
    /// coordinator itself.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub inline_max: usize,
    /// In a ranking (`--rank-all`, `--first`, `--firsts`), the last N first guesses in
    /// search order, the costliest, are cut into part jobs (a one-guess run is always cut).
    /// A ranking starts its costliest first guesses first, so whole jobs keep the workers
    /// busy to the end; cutting helps when workers outnumber the costly first guesses, and
    /// costs CPU (each cut first guess is searched by parts and slices).
    #[arg(long, value_name = "N", default_value_t = SPLIT_TAIL_DEFAULT)]
    pub split_tail: usize,
    /// Parts of a cut first guess with at least this many answers are split again: their
    /// second guesses, in search order, become slice jobs (default: an eighth of the
    /// answers, at least 64; `never`: no part is split).
    #[arg(long, value_name = "N|never", value_parser = parse_split_min)]
    pub split_min: Option<usize>,
    /// Runs of one large part's second guesses searched at once, at least (one per worker
    /// thread when there are more).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub split_window: usize,
    /// The longest run of one large part's second guesses in one slice job: shorter runs
    /// spread the part over more workers, each job paying its round trip and bookkeeping.
    #[arg(long, value_name = "N", default_value_t = SLICE_MAX_DEFAULT,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub slice_max: usize,
    /// Seconds a worker keeps a job without a heartbeat before it is handed to another.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub lease_secs: f64,
    /// A job that has run this many seconds while a worker has nothing to do is cut finer
    /// (a first guess into its parts, a part into slices of its second guesses, a slice
    /// into halves) and its holder stops it; 0: never.
    #[arg(long, value_name = "SECS", default_value_t = RECUT_SECS_DEFAULT)]
    pub recut_secs: f64,
}

/// `--recut-secs` by default: long enough that the pieces' round trips and the stopped
/// job's lost work are small beside what the waiting workers gain.
const RECUT_SECS_DEFAULT: f64 = 20.0;

impl CutArgs {
    /// The engine parameters these flags ask for.
    pub fn params(&self) -> EngineParams {
        EngineParams {
            plan: PlanParams {
                whole_first: !self.split_first,
                split_tail: self.split_tail,
                rank_all: self.rank_all,
                inline_max: self.inline_max,
                split_min: self.split_min.unwrap_or(SPLIT_MIN_AUTO),
                split_window: self.split_window.max(1),
                slice_max: self.slice_max,
            },
            lease: Duration::from_secs_f64(self.lease_secs.clamp(0.2, 86_400.0)),
            recut_after: (self.recut_secs > 0.0)
                .then(|| Duration::from_secs_f64(self.recut_secs.min(1e9))),
            ..EngineParams::default()
        }
    }
}

/// Reads `--split-min`: a part size of at least 3, or `never`.
fn parse_split_min(text: &str) -> Result<usize, String> {
    if text == "never" {
        return Ok(usize::MAX);
    }
    match text.parse::<usize>() {
        Ok(n) if n >= 3 => Ok(n),
        _ => Err(format!(
            "expected a part size of at least 3 answers, or `never`; got `{text}`"
        )),
    }
}

/// Serve a run to workers and print its proven result.
///
/// Workers join with `hakase worker --connect URL`; `hakase status --connect URL` shows
/// progress. The run lives in --run (alias --db): stop the coordinator at any time (Ctrl-C, SIGTERM or
/// even kill -9) and start the same command again to resume without losing finished jobs.
#[derive(Debug, Args)]
#[command(group(
    clap::ArgGroup::new("tokens")
        .args(["token", "tokens_file"])
        .required(true)
        .multiple(true)
))]
pub struct Coordinator {
    /// Address to listen on (port 0 picks a free port; the address is printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7700")]
    pub listen: SocketAddr,
    /// The run (default: the one `hakase solve` picks for the same game and options, so
    /// either command resumes the other's run).
    #[command(flatten)]
    pub at: super::run_args::RunArgs,
    /// Tokens and TLS.
    #[command(flatten)]
    pub auth: hakase_serving::ServerAuthArgs,

    /// What one client may cost the gRPC port (docs/security.md).
    #[command(flatten)]
    pub ports: hakase_serving::PortArgs,
    /// Refuse the shared --token to workers: each must present its own token from
    /// --tokens-file, so a quarantined worker cannot register again under the shared one
    /// (which still serves `hakase status`).
    #[arg(long, requires = "tokens_file")]
    pub require_worker_tokens: bool,
    /// Which game.
    #[command(flatten)]
    pub game: GameArgs,
    /// Objective and rules.
    #[command(flatten)]
    pub run: SolverArgs,
    /// Job cutting.
    #[command(flatten)]
    pub cut: CutArgs,
    /// Rank exactly this first guess, each to its exact value (repeatable): a resumable run
    /// of its own, the directory `solve --first W --first V` uses for two or more. One
    /// --first is a ranking of that guess alone (its exact value and optimal tree).
    #[arg(long, value_name = "W", conflicts_with = "rank_all")]
    pub first: Vec<String>,
    /// Rank exactly the first guesses listed in FILE (one per line), as `solve --firsts`
    /// does, in the same run directory.
    #[arg(long, value_name = "FILE", conflicts_with = "rank_all")]
    pub firsts: Option<PathBuf>,
    /// Log format on stderr.
    #[arg(long, value_enum, default_value = "text")]
    pub log_format: LogFormat,
    /// Text or JSON.
    #[command(flatten)]
    pub output: crate::output::JsonArg,
    /// Write the optimal tree to this file (JSON).
    #[arg(long, value_name = "FILE")]
    pub tree_out: Option<PathBuf>,
    /// Seconds at most to keep serving after the run is over, so workers hear that it is
    /// (the coordinator stops as soon as every live worker has heard).
    #[arg(long, value_name = "SECS", default_value_t = 3.0)]
    pub linger_secs: f64,
    /// Append one JSON line per finished job to FILE (kind, size, cutoff, outcome, job ms,
    /// nodes, worker), for `scripts/simulate-cluster`.
    #[arg(long, value_name = "FILE")]
    pub job_log: Option<PathBuf>,
    /// Ranking lines to print.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
    /// Serve the live run page (`/`) and Prometheus metrics (`/metrics`) over HTTP on ADDR,
    /// e.g. 127.0.0.1:7701 (port 0 picks a free port; the address is printed). Both need
    /// the token (`authorization: Bearer` or `?token=`); the port has no TLS, so beyond
    /// loopback only with --insecure.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// Seconds to keep serving --http after the result is printed, so the page and a last
    /// scrape see it (a signal ends it sooner).
    #[arg(long, value_name = "SECS", default_value_t = 0.0, requires = "http")]
    pub http_linger_secs: f64,
    /// Share (0–1) of the workers' bound claims re-run on another worker before the result
    /// is declared; the claims that decide the result are re-run whatever this says.
    #[arg(long, value_name = "F", default_value_t = AuditPolicy::DEFAULT_FRACTION)]
    pub audit_fraction: f64,
    /// The workers are your own: do not re-run the claims that decide the result (only the
    /// --audit-fraction sample). Saves up to half the work of a one-guess run, where every
    /// part's bound decides; the result then reads "proven if N unchecked worker claims
    /// hold" and names the rows that rest on them.
    #[arg(long)]
    pub trust_workers: bool,
}

impl Coordinator {
    /// Runs the coordinator until the run is over or a signal arrives.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        init_logging(self.log_format);
        let tokens = Arc::new(RwLock::new(self.auth.tokens()?));
        self.check_addresses()?;
        let game = self.game.load()?;
        super::guard::check_max_guesses(&game, self.run.max_guesses)?;
        let config = self.run.config();
        self.check_numbers()?;
        let scope = self.scope(&game, &config)?;
        let db = self.db_dir(&game, &config, &scope);
        let runtime = hakase_serving::runtime(Threads::Pool(2))?;
        // Bound and announced before the run is opened: workers started on the announcement
        // start up while the database opens (their connections wait in the listen queue),
        // instead of after it. Opening takes about 5 ms on pokemon-verbum; the first worker
        // registered 1 ms sooner (median of 14), its own start-up being the longer.
        let (listener, local) = runtime.block_on(bind(self.listen))?;
        eprintln!("hakase coordinator listening on {local}");
        let http_listener = match self.http {
            Some(addr) => Some(runtime.block_on(bind_page(addr))?),
            None => None,
        };
        let engine = Arc::new(self.open_engine(game, config, &db, scope)?);
        let page = http_listener.map(|listener| Page::start(&runtime, &engine, listener, &tokens));
        let stop = Arc::new(AtomicBool::new(false));
        let driver = {
            let (engine, stop) = (engine.clone(), stop.clone());
            std::thread::spawn(move || engine.drive(&stop))
        };
        let finished = runtime.block_on(self.serve_until_done(
            engine.clone(),
            stop.clone(),
            tokens,
            (listener, local),
        ));
        stop.store(true, Ordering::Relaxed);
        engine.poke();
        if let Err(fault) = engine.check_storage() {
            // A sync the disk refused never returns: neither wait for the threads stuck in
            // one nor try another. Everything acknowledged before the fault is on disk.
            runtime.shutdown_timeout(Duration::from_secs(2));
            return Err(fault.into());
        }
        let _ = driver.join();
        engine.flush().context("flushing the run database")?;
        let result = self.finish(finished, &engine, &db, out);
        if let Some(page) = page {
            let linger = match result.is_ok() {
                true => self.http_linger_secs,
                false => 0.0,
            };
            page.linger_and_stop(&runtime, linger);
        }
        result
    }

    /// Refuses addresses that would serve in clear, and a --tree-out that cannot be written.
    fn check_addresses(&self) -> Result<()> {
        self.auth.check_transport(self.listen)?;
        if let Some(addr) = self.http {
            http::check_addr("--http", addr, self.auth.insecure, "--insecure")?;
        }
        if let Some(path) = &self.tree_out {
            super::guard::check_output_path(path, "--tree-out")?;
        }
        Ok(())
    }

    /// Refuses durations and shares that are not numbers in range.
    fn check_numbers(&self) -> Result<()> {
        // Durations from seconds: NaN or a negative number would panic in `Duration`.
        for (flag, secs) in [
            ("--http-linger-secs", self.http_linger_secs),
            ("--linger-secs", self.linger_secs),
            ("--lease-secs", self.cut.lease_secs),
            ("--recut-secs", self.cut.recut_secs),
        ] {
            if !(secs.is_finite() && secs >= 0.0) {
                bail!("{flag} must be a number of seconds, 0 or more, not {secs}");
            }
        }
        if !(0.0..=1.0).contains(&self.audit_fraction) {
            bail!(
                "--audit-fraction must be between 0 and 1 (a share of the claims), not {}",
                self.audit_fraction
            );
        }
        Ok(())
    }

    /// The audit asked for: the sample share, and the decisive re-runs unless trusted.
    fn audit_policy(&self) -> AuditPolicy {
        let policy = AuditPolicy::with_fraction(self.audit_fraction);
        if self.trust_workers {
            policy.trusting()
        } else {
            policy
        }
    }

    /// Which first guesses the run settles: the listed ones (--first, --firsts), all of them
    /// to their exact values (--rank-all), or the best.
    fn scope(&self, game: &Game, config: &SolverConfig) -> Result<RunScope> {
        let words = super::first_list::listed_words(self.firsts.as_deref(), &self.first, 1)?;
        Ok(match words {
            Some(words) => RunScope::Listed(super::first_list::listed_ids(game, config, &words)?),
            None if self.cut.rank_all => RunScope::RankAll,
            None => RunScope::Best,
        })
    }

    /// The run database: --run, or the directory `hakase solve` picks for the same run.
    fn db_dir(&self, game: &Game, config: &SolverConfig, scope: &RunScope) -> PathBuf {
        self.at.writer_dir(|data| {
            let whole = hakase_runs::locate::default_run_dir(data, game.name(), config);
            hakase_runs::locate::scoped_run_dir(&whole, scope)
        })
    }

    /// Opens (or resumes) the run in `db`, saying what a resumed run had lost.
    fn open_engine(
        &self,
        game: Game,
        config: SolverConfig,
        db: &Path,
        scope: RunScope,
    ) -> Result<Engine> {
        let params = EngineParams {
            audit: Some(self.audit_policy()),
            ..self.cut.params()
        };
        let mut engine = Engine::open(game, config, db, params, scope)
            .with_context(|| format!("opening the run in {}", db.display()))?;
        let reopened = engine.store().reopened();
        if reopened.damage.results() > 0 {
            eprintln!(
                "resumed {} from {}, {} damaged (recomputed)",
                plural(reopened.results, "result", "results"),
                db.display(),
                reopened.damage.results()
            );
        }
        report::write_damage_notes(&mut std::io::stderr(), reopened)?;
        if let Some(path) = &self.job_log {
            let log = JobLog::open(path)
                .with_context(|| format!("opening the job log {}", path.display()))?;
            engine = engine.with_job_log(log);
        }
        Ok(engine)
    }

    /// Prints the result of a run that `finished`, or says how to resume one that did not.
    fn finish(
        &self,
        finished: Result<bool>,
        engine: &Engine,
        db: &Path,
        out: &mut dyn Write,
    ) -> Result<()> {
        match finished? {
            false => Err(hakase_serving::Interrupted::now(format!(
                "finished jobs are saved in {} — run the same command again to resume",
                db.display()
            ))
            .into()),
            true => {
                let solution = engine
                    .wait(Duration::ZERO)?
                    .context("the run ended without a solution")?;
                let status = engine.snapshot();
                let unchecked = &status.audit.unchecked_guesses;
                let listed = engine.listed().map(|list| list.len());
                if self.output.json {
                    let mut doc = report::to_json(engine.game(), &solution, listed, unchecked);
                    doc["status"] = serde_json::to_value(&status)?;
                    super::write_json(out, &doc)?;
                } else {
                    let (game, table) = (engine.game(), engine.table());
                    report::write_text(out, game, table, &solution, (self.top, listed), unchecked)?;
                    writeln!(out, "{}", status.audit.line())?;
                }
                // After the result is printed: a failed write loses only the file.
                if let (Some(path), Some(tree)) = (&self.tree_out, &solution.tree) {
                    let game = engine.game();
                    // A listed ranking's best is optimal only given itself, and every row
                    // resting on an unchecked claim is named: the file claims what the
                    // report does.
                    let first = listed
                        .and(solution.best)
                        .map(|b| game.guess_text(b.guess).to_string());
                    let names: Vec<String> = unchecked
                        .iter()
                        .map(|&g| game.guess_text(g).to_string())
                        .collect();
                    let doc = hakase_core::trees::treefile::to_json(
                        game,
                        tree,
                        about(
                            None,
                            &solution.config,
                            Some(&solution),
                            first.as_deref(),
                            &names,
                        ),
                    );
                    std::fs::write(path, doc)
                        .with_context(|| format!("writing {}", path.display()))?;
                }
                out.flush().context("writing the result")?;
                Ok(())
            }
        }
    }

    /// Serves until the run is over (true) or a signal arrives (false).
    async fn serve_until_done(
        &self,
        engine: Arc<Engine>,
        stop: Arc<AtomicBool>,
        tokens: SharedTokens,
        (listener, local): (tokio::net::TcpListener, SocketAddr),
    ) -> Result<bool> {
        tracing::info!(%local, game = engine.game().name(), fingerprint = engine.game().fingerprint(), "listening");
        #[cfg(unix)]
        self.auth.token_source().reload_on_hangup(tokens.clone())?;
        let options = ServeOptions {
            listen: local,
            tokens,
            tls: self.auth.tls(),
            require_worker_tokens: self.require_worker_tokens,
            limits: hakase_serving::fit_to_descriptors(
                self.ports.limits(PortLimits::COORDINATOR),
                1,
                "the coordinator",
            ),
        };
        let (done_tx, done_rx) = tokio::sync::watch::channel(false);
        // Polled every millisecond: workers hear it within a few, and a 10 ms poll was 2 % of
        // a 0.5 s run.
        let linger = Linger::secs(self.linger_secs, Duration::from_millis(1));
        let ending = Ending::new();
        let shutdown = {
            let engine = engine.clone();
            ending.when_done(done_rx.clone(), linger, move || engine.all_told())
        };
        let server = tokio::spawn({
            let engine = engine.clone();
            async move { serve(engine, listener, &options, shutdown).await }
        });
        let watcher = watch_progress(engine.clone(), stop, done_tx);
        let served = server.await.context("the server task failed")?;
        let finished = !ending.interrupted() && *done_rx.borrow();
        if !finished {
            engine.poke();
        }
        served.context("serving")?;
        // The watcher stops once the engine does; the caller sets `stop` for that.
        drop(watcher);
        Ok(finished)
    }
}

/// Shows the run's progress until it is over (then tells `done`) or `stop` is set.
fn watch_progress(
    engine: Arc<Engine>,
    stop: Arc<AtomicBool>,
    done: tokio::sync::watch::Sender<bool>,
) -> tokio::task::JoinHandle<()> {
    let progress = RunProgress::new();
    tokio::task::spawn_blocking(move || loop {
        progress.update(&engine.snapshot());
        match engine.wait(Duration::from_millis(500)) {
            Ok(Some(_)) | Err(_) => {
                progress.finish();
                let _ = done.send(true);
                return;
            }
            Ok(None) if stop.load(Ordering::Relaxed) => {
                progress.finish();
                return;
            }
            Ok(None) => {}
        }
    })
}

/// Binds the live page's port (--http) and announces it.
async fn bind_page(addr: SocketAddr) -> Result<tokio::net::TcpListener> {
    let listener = http::bind("--http", addr).await?;
    let at = listener.local_addr().context("the --http address")?;
    eprintln!("hakase coordinator page on http://{at}/");
    Ok(listener)
}

/// The live run page and its metrics (--http), served beside the run until stopped.
struct Page {
    stop: Stop,
    served: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Page {
    /// Starts sampling the run and serving the page on `listener`.
    fn start(
        runtime: &Runtime,
        engine: &Arc<Engine>,
        listener: tokio::net::TcpListener,
        tokens: &SharedTokens,
    ) -> Page {
        let live = http::live::Live::new(engine.clone());
        runtime.spawn(live.clone().sample_forever());
        let app = http::coordinator_app(live, tokens.clone());
        let stop = Stop::new();
        let served = runtime.spawn(http::serve(app, listener, stop.stopped()));
        Page { stop, served }
    }

    /// Keeps serving `secs` seconds more (a signal ends it sooner), then stops.
    fn linger_and_stop(self, runtime: &Runtime, secs: f64) {
        if secs > 0.0 {
            let linger = Duration::from_secs_f64(secs.clamp(0.0, 86_400.0));
            runtime.block_on(async {
                tokio::select! {
                    _ = tokio::time::sleep(linger) => {}
                    _ = shutdown_signal() => {}
                }
            });
        }
        self.stop.stop();
        let _ = runtime.block_on(self.served);
    }
}
