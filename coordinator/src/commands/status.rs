//! `hakase status`: ask a coordinator how its run is going.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use hakase_coordinator::output::{plural, JsonArg};
use hakase_proto::v1::admin_client::AdminClient;
use hakase_proto::v1::StatusRequest;
use hakase_worker::client::{channel, Auth};
use hakase_worker::explain::explain;
use serde_json::json;

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

impl Status {
    /// Queries the coordinator once.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting the async runtime")?;
        let reply = runtime.block_on(async {
            let channel = channel(&self.connect, self.ca_cert.as_ref(), None)?;
            let mut client = AdminClient::with_interceptor(channel, Auth::new(&self.token)?);
            client
                .status(StatusRequest {})
                .await
                .map(|r| r.into_inner())
                .map_err(|s| anyhow::anyhow!("{}: {}", self.connect, explain(&s)))
        })?;
        if self.output.json {
            let ranking: Vec<_> = reply
                .ranking
                .iter()
                .map(|r| json!({"guess": r.guess, "exact": r.exact, "value": r.value}))
                .collect();
            return super::write_json(
                out,
                &json!({
                    "game": reply.game,
                    "fingerprint": reply.fingerprint,
                    "options": serde_json::from_str::<serde_json::Value>(&reply.config_json)
                        .unwrap_or(serde_json::Value::Null),
                    "state": reply.state,
                    "guesses_left": reply.guesses_left,
                    "jobs_total": reply.jobs_total,
                    "jobs_done": reply.jobs_done,
                    "jobs_queued": reply.jobs_queued,
                    "jobs_leased": reply.jobs_leased,
                    "completions": reply.completions,
                    "duplicate_completions": reply.duplicate_completions,
                    "results_loaded": reply.results_loaded,
                    "lease_expiries": reply.lease_expiries,
                    "rejected": reply.rejected,
                    "first_guesses_total": reply.first_guesses_total,
                    "first_guesses_settled": reply.first_guesses_settled,
                    "first_guess": (!reply.best_guess.is_empty()).then_some(&reply.best_guess),
                    "total": (!reply.best_guess.is_empty()).then_some(reply.best_value),
                    "workers": reply.workers,
                    "elapsed_secs": reply.elapsed_secs,
                    "eta_secs": (reply.eta_secs >= 0.0).then_some(reply.eta_secs),
                    "job_millis": reply.job_millis,
                    "longest_job_millis": reply.longest_job_millis,
                    "nodes": reply.nodes,
                    "ranking": ranking,
                }),
            );
        }
        writeln!(
            out,
            "{} ({}) — {}",
            reply.game, reply.fingerprint, reply.state
        )?;
        writeln!(
            out,
            "first guesses {}/{} settled; jobs {} done of {} ({} queued, {} leased); {}; {:.0}s",
            reply.first_guesses_settled,
            reply.first_guesses_total,
            reply.jobs_done,
            reply.jobs_total,
            reply.jobs_queued,
            reply.jobs_leased,
            plural(reply.workers, "worker", "workers"),
            reply.elapsed_secs
        )?;
        writeln!(
            out,
            "completions {} ({} duplicate), {} results resumed, {} leases expired",
            reply.completions,
            reply.duplicate_completions,
            reply.results_loaded,
            reply.lease_expiries
        )?;
        let mean = reply.job_millis as f64 / reply.completions.max(1) as f64;
        let eta = if reply.eta_secs >= 0.0 {
            format!("ETA {:.0}s", reply.eta_secs)
        } else {
            "ETA unknown".to_string()
        };
        writeln!(
            out,
            "jobs: mean {mean:.1} ms, longest {} ms, {} nodes searched; {eta}",
            reply.longest_job_millis, reply.nodes
        )?;
        if !reply.best_guess.is_empty() {
            writeln!(
                out,
                "best so far: {} {}",
                reply.best_guess, reply.best_value
            )?;
        }
        for (i, r) in reply.ranking.iter().enumerate() {
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
