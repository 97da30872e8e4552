//! `hakase status`: ask a coordinator how its run is going.

use std::io::Write;
use std::path::PathBuf;

use crate::output::run_report::damage_text;
use crate::output::{emit, plural, JsonArg, View};
use anyhow::Result;
use clap::Args;
use hakase_proto::client::{channel, Auth};
use hakase_proto::explain::explain;
use hakase_proto::options::options_json;
use hakase_proto::v1::admin_client::AdminClient;
use hakase_proto::v1::{StatusReply, StatusRequest};
use hakase_runs::Damage;
use hakase_serving::Threads;
use serde::Serialize;
use serde_json::Value;

/// Show a coordinator's progress: jobs, first guesses settled, best so far, ranking.
#[derive(Debug, Args)]
pub struct Status {
    /// The coordinator's URL.
    #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:7700")]
    pub connect: String,
    /// Shared token of the coordinator.
    #[arg(long, env = "HAKASE_TOKEN", hide_env_values = true)]
    pub token: String,
    /// CA certificate (PEM) to trust for an https:// coordinator.
    #[arg(long, value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
    /// Text or JSON.
    #[command(flatten)]
    pub output: JsonArg,
}

/// A coordinator's progress, as `status` prints it (field names: docs/json.md).
#[derive(Debug, Serialize)]
struct StatusView {
    game: String,
    fingerprint: String,
    /// The solver options, an object (null when the coordinator sent none readable).
    options: Value,
    state: String,
    guesses_left: u32,
    jobs_total: u64,
    jobs_done: u64,
    jobs_queued: u64,
    jobs_leased: u64,
    completions: u64,
    duplicate_completions: u64,
    results_loaded: u64,
    lease_expiries: u64,
    rejected: u64,
    first_guesses_total: u64,
    first_guesses_settled: u64,
    /// The best first guess so far and its total, null before any is known.
    first_guess: Option<String>,
    total: Option<u32>,
    workers: u64,
    elapsed_secs: f64,
    /// Null while no estimate can be made.
    eta_secs: Option<f64>,
    job_millis: u64,
    longest_job_millis: u64,
    nodes: u64,
    ranking: Vec<RankingRow>,
    /// What opening the run database found damaged and recomputes (null when nothing was).
    damage: Option<Damage>,
    /// The first guesses cut into part jobs that are still open.
    cuts: Vec<CutRow>,
}

/// A first guess cut into part jobs: parts settled, the interval of its total, an ETA.
#[derive(Debug, Serialize)]
struct CutRow {
    guess: String,
    parts: u32,
    parts_settled: u32,
    lower: u32,
    /// Null until every part has a value found.
    upper: Option<u32>,
    /// Null while no estimate can be made.
    eta_secs: Option<f64>,
}

/// One first guess of the ranking: its value, exact or a lower bound.
#[derive(Debug, Serialize)]
struct RankingRow {
    guess: String,
    exact: bool,
    value: u32,
}

impl StatusView {
    /// The view of a status reply.
    fn new(reply: StatusReply) -> StatusView {
        let best = (!reply.best_guess.is_empty()).then_some(reply.best_guess);
        StatusView {
            game: reply.game,
            fingerprint: reply.fingerprint,
            options: reply.options.as_ref().map_or(Value::Null, options_json),
            state: reply.state,
            guesses_left: reply.guesses_left,
            jobs_total: reply.jobs_total,
            jobs_done: reply.jobs_done,
            jobs_queued: reply.jobs_queued,
            jobs_leased: reply.jobs_leased,
            completions: reply.completions,
            duplicate_completions: reply.duplicate_completions,
            results_loaded: reply.results_loaded,
            lease_expiries: reply.lease_expiries,
            rejected: reply.rejected,
            first_guesses_total: reply.first_guesses_total,
            first_guesses_settled: reply.first_guesses_settled,
            total: best.is_some().then_some(reply.best_value),
            first_guess: best,
            workers: reply.workers,
            elapsed_secs: reply.elapsed_secs,
            eta_secs: (reply.eta_secs >= 0.0).then_some(reply.eta_secs),
            job_millis: reply.job_millis,
            longest_job_millis: reply.longest_job_millis,
            nodes: reply.nodes,
            ranking: reply
                .ranking
                .into_iter()
                .map(|r| RankingRow {
                    guess: r.guess,
                    exact: r.exact,
                    value: r.value,
                })
                .collect(),
            damage: reply.damage.map(Damage::from),
            cuts: reply
                .cuts
                .into_iter()
                .map(|c| CutRow {
                    guess: c.guess,
                    parts: c.parts,
                    parts_settled: c.parts_settled,
                    lower: c.lower,
                    upper: (c.upper > 0).then_some(c.upper),
                    eta_secs: (c.eta_secs >= 0.0).then_some(c.eta_secs),
                })
                .collect(),
        }
    }
}

impl View for StatusView {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        writeln!(out, "{} ({}) — {}", self.game, self.fingerprint, self.state)?;
        writeln!(
            out,
            "first guesses {}/{} settled; jobs {} done of {} ({} queued, {} leased); {}; {:.0}s",
            self.first_guesses_settled,
            self.first_guesses_total,
            self.jobs_done,
            self.jobs_total,
            self.jobs_queued,
            self.jobs_leased,
            plural(self.workers, "worker", "workers"),
            self.elapsed_secs
        )?;
        writeln!(
            out,
            "completions {} ({} duplicate), {} resumed, {} expired",
            self.completions,
            self.duplicate_completions,
            plural(self.results_loaded, "result", "results"),
            plural(self.lease_expiries, "lease", "leases")
        )?;
        let mean = self.job_millis as f64 / self.completions.max(1) as f64;
        let eta = match self.eta_secs {
            Some(secs) => format!("ETA {secs:.0}s"),
            None => "ETA unknown".to_string(),
        };
        writeln!(
            out,
            "jobs: mean {mean:.1} ms, longest {} ms, {} searched; {eta}",
            self.longest_job_millis,
            plural(self.nodes, "node", "nodes")
        )?;
        if let Some(damage) = &self.damage {
            writeln!(out, "run database {}", damage_text(damage))?;
        }
        for cut in &self.cuts {
            let upper = cut.upper.map_or("?".to_string(), |u| u.to_string());
            let eta = cut
                .eta_secs
                .map_or("ETA unknown".to_string(), |s| format!("ETA {s:.0}s"));
            writeln!(
                out,
                "cut {}: parts {}/{} settled; total in [{}, {upper}]; {eta}",
                cut.guess, cut.parts_settled, cut.parts, cut.lower
            )?;
        }
        if let (Some(guess), Some(total)) = (&self.first_guess, self.total) {
            writeln!(out, "best so far: {guess} {total}")?;
        }
        for (i, r) in self.ranking.iter().enumerate() {
            let value = if r.exact {
                r.value.to_string()
            } else {
                format!(">= {}", r.value)
            };
            writeln!(out, "{:>4}. {}  {value}", i + 1, r.guess)?;
        }
        Ok(())
    }
}

impl Status {
    /// Queries the coordinator once.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let runtime = hakase_serving::runtime(Threads::Caller)?;
        let reply = runtime.block_on(async {
            let channel = channel(&self.connect, self.ca_cert.as_deref(), None)?;
            let mut client = AdminClient::with_interceptor(channel, Auth::new(&self.token)?);
            client
                .status(StatusRequest {})
                .await
                .map(|r| r.into_inner())
                .map_err(|s| anyhow::anyhow!("{}: {}", self.connect, explain(&s)))
        })?;
        emit(out, self.output, &StatusView::new(reply))
    }
}
