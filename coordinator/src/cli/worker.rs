//! `hakase worker`: join a coordinator, solve jobs on every core, keep a memo on disk.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::output::{emit, plural, JsonArg, View};
use anyhow::{Context, Result};
use clap::Args;
use hakase_core::rules::presets::load_preset;
use hakase_core::solver::DEFAULT_MEMO_ENTRIES;
use hakase_engine::http;
use hakase_proto::token::TokenSet;
use hakase_serving::{init_logging, shutdown_signal, LogFormat};
use hakase_worker::{WorkerMetrics, WorkerOptions, WorkerSummary};
use serde::Serialize;

/// Join a coordinator and solve its jobs until the run is over.
///
/// The game and options come from the coordinator. The memo in --cache survives restarts and
/// later runs on this machine; give each worker process its own directory.
#[derive(Debug, Args)]
pub struct Worker {
    /// The coordinator's URL (https:// for TLS); `-` reads it from the first line of
    /// standard input, so a launcher can start workers before the coordinator has its port.
    #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:7700")]
    pub connect: String,
    /// Shared token of the coordinator.
    #[arg(long, env = "HAKASE_TOKEN", hide_env_values = true)]
    pub token: String,
    /// Threads (and jobs solved at once); default: all cores.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// The memo's directory.
    #[arg(long, value_name = "DIR", default_value = "hakase-cache")]
    pub cache: PathBuf,
    /// Keep the memo in memory only.
    #[arg(long)]
    pub no_cache: bool,
    /// Refuse to work unless the run's game is this preset (checked by fingerprint).
    #[arg(long, value_name = "G")]
    pub game: Option<String>,
    /// Refuse to work unless the run's game has this fingerprint.
    #[arg(long, value_name = "HEX", conflicts_with = "game")]
    pub fingerprint: Option<String>,
    /// CA certificate (PEM) to trust for an https:// coordinator.
    #[arg(long, value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
    /// Name expected in the coordinator's certificate (default: the URL's host).
    #[arg(long, value_name = "NAME")]
    pub tls_domain: Option<String>,
    /// Log format on stderr.
    #[arg(long, value_enum, default_value = "text")]
    pub log_format: LogFormat,
    /// In-memory memo entries.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MEMO_ENTRIES)]
    pub memo_entries: usize,
    /// MiB the game a coordinator sends may take here (its feedback tables, 2 bytes per guess
    /// and answer); a larger game is refused [default: half of this machine's memory].
    #[arg(long, value_name = "MIB", env = "HAKASE_MAX_GAME_MIB")]
    pub max_game_mib: Option<u64>,
    /// Memo facts with at least this value are written to the cache (default: from the
    /// game's guess count, 40 for Wordle).
    #[arg(long, value_name = "V", hide = true)]
    pub persist_min_value: Option<u32>,
    /// Test hook: milliseconds added to every job.
    #[arg(long, value_name = "MS", default_value_t = 0, hide = true)]
    pub job_delay_ms: u64,
    /// Test hook: record started and acknowledged jobs in this file.
    #[arg(long, value_name = "FILE", hide = true)]
    pub job_log: Option<PathBuf>,
    /// Serve Prometheus metrics of this worker at http://ADDR/metrics (jobs done, busy
    /// seconds, memo hits), behind its --token (`authorization: Bearer` or `?token=`).
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<SocketAddr>,
    /// Allow --metrics beyond loopback: the port has no TLS, so the token travels in clear.
    #[arg(long, requires = "metrics")]
    pub insecure_metrics: bool,
    /// Text or JSON for the final summary (logs stay on stderr, see --log-format).
    #[command(flatten)]
    pub output: JsonArg,
}

/// What a worker did, printed when it stops.
#[derive(Debug, Serialize)]
struct WorkerReport {
    /// The name the worker registered under (host/pid).
    worker: String,
    /// Results the coordinator acknowledged.
    jobs_done: u64,
    /// Leased jobs dropped unstarted when the coordinator no longer needed them.
    jobs_cancelled: u64,
    /// Jobs halted while they ran, for the same reason.
    jobs_stopped: u64,
    /// Facts the disk memo held at start.
    memo_loaded: usize,
    /// True when the run finished, false when stopped by a signal.
    run_finished: bool,
    /// Lease calls made, and the seconds spent waiting for their replies.
    lease_calls: u64,
    lease_wait_secs: f64,
    /// Leases that came back with a report of results (no call of their own).
    report_leases: u64,
    /// The search's work: the counters `solve_cost` prints for an in-memory solve, so the
    /// cluster's total can be compared with it (puzzle jobs are not counted).
    nodes: u64,
    scans: u64,
    scanned_pairs: u64,
    memo_hits: u64,
}

impl View for WorkerReport {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        let cancelled = match (self.jobs_cancelled, self.jobs_stopped) {
            (0, 0) => String::new(),
            (n, 0) => format!(", {n} dropped unstarted (no longer needed)"),
            (0, m) => format!(", {m} stopped midway (no longer needed)"),
            (n, m) => format!(", {n} dropped unstarted and {m} stopped midway (no longer needed)"),
        };
        writeln!(
            out,
            "worker stopped: {} done{cancelled}, run {}; {} waited {:.1} s; {} with reports",
            plural(self.jobs_done, "job", "jobs"),
            if self.run_finished {
                "finished"
            } else {
                "not finished"
            },
            plural(self.lease_calls, "lease call", "lease calls"),
            self.lease_wait_secs,
            plural(self.report_leases, "lease", "leases")
        )?;
        writeln!(
            out,
            "searched: nodes {} scans {} scanned_pairs {} memo_hits {}",
            self.nodes, self.scans, self.scanned_pairs, self.memo_hits
        )?;
        Ok(())
    }
}

impl WorkerReport {
    /// The report of worker `name` that stopped with `summary`.
    fn new(name: String, summary: &WorkerSummary) -> WorkerReport {
        let [nodes, scans, scanned_pairs, memo_hits] = summary.solver;
        WorkerReport {
            worker: name,
            jobs_done: summary.jobs_done,
            jobs_cancelled: summary.jobs_cancelled,
            jobs_stopped: summary.jobs_stopped,
            memo_loaded: summary.memo_loaded,
            run_finished: summary.run_finished,
            lease_calls: summary.leases,
            lease_wait_secs: summary.lease_wait.as_secs_f64(),
            report_leases: summary.report_leases,
            nodes,
            scans,
            scanned_pairs,
            memo_hits,
        }
    }
}

impl Worker {
    /// Runs the worker until the run is over or a signal arrives.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        init_logging(self.log_format);
        super::guard::check_threads(self.threads)?;
        let threads = self
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1);
        // Only the first pool setting of a process counts; a worker is its own process.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global();
        let fingerprint = self.fingerprint()?;
        if let Some(addr) = self.metrics {
            http::check_addr(
                "--metrics",
                addr,
                self.insecure_metrics,
                "--insecure-metrics",
            )?;
        }
        let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "worker".into());
        let name = format!("{host}/{}", std::process::id());
        let options = self.options(threads, fingerprint, name.clone());
        // One thread is plenty for the worker's few requests (the jobs run on rayon); with
        // two, a spawned report or lease could wake the idle one, on machines whose cores are
        // all busy solving (pokemon-verbum through 2 workers: 664 voluntary context switches
        // per worker, 364 with one thread).
        let runtime = hakase_serving::runtime(hakase_serving::Threads::Caller)?;
        if let (Some(addr), Some(counts)) = (self.metrics, &options.metrics) {
            self.serve_metrics(&runtime, addr, counts)?;
        }
        let summary = runtime
            .block_on(hakase_worker::run(options, shutdown_signal()))
            .context("worker")?;
        // Jobs still being solved are abandoned (their leases expire); do not wait for them.
        runtime.shutdown_background();
        emit(out, self.output, &WorkerReport::new(name, &summary))
    }

    /// The fingerprint the run's game must have: the --game preset's, or --fingerprint.
    fn fingerprint(&self) -> Result<Option<String>> {
        Ok(match (&self.game, &self.fingerprint) {
            (Some(name), _) => Some(
                load_preset(name)
                    .with_context(|| format!("loading game {name:?}"))?
                    .fingerprint()
                    .to_string(),
            ),
            (None, f) => f.clone(),
        })
    }

    /// The worker library's options from the command line.
    fn options(&self, threads: usize, fingerprint: Option<String>, name: String) -> WorkerOptions {
        WorkerOptions {
            connect: self.connect.clone(),
            token: self.token.clone(),
            slots: threads,
            cache: (!self.no_cache).then(|| self.cache.clone()),
            fingerprint,
            ca_cert: self.ca_cert.clone(),
            tls_domain: self.tls_domain.clone(),
            name,
            memo_entries: self.memo_entries,
            max_game_bytes: self
                .max_game_mib
                .map_or_else(hakase_worker::default_game_budget, |mib| mib << 20),
            persist_min_value: self.persist_min_value,
            job_delay: Duration::from_millis(self.job_delay_ms),
            job_log: self.job_log.clone(),
            metrics: self.metrics.map(|_| WorkerMetrics::new()),
        }
    }

    /// Serves `counts` at http://`addr`/metrics on `runtime`, behind the token, until the
    /// runtime stops with the worker.
    fn serve_metrics(
        &self,
        runtime: &tokio::runtime::Runtime,
        addr: SocketAddr,
        counts: &Arc<WorkerMetrics>,
    ) -> Result<()> {
        let token = TokenSet::single(&self.token).context("--token (or HAKASE_TOKEN)")?;
        let listener = runtime.block_on(http::bind("--metrics", addr))?;
        let at = listener.local_addr().context("the --metrics address")?;
        eprintln!("hakase worker metrics on http://{at}/metrics");
        let app = http::worker_app(Arc::clone(counts), token);
        // Stops with the runtime, when the worker does.
        runtime.spawn(http::serve(app, listener, std::future::pending()));
        Ok(())
    }
}
