//! `/metrics` in the Prometheus (OpenMetrics) text format, through `prometheus-client`: the
//! coordinator's figures are read from the engine's [`Snapshot`] when a scrape asks, so the
//! run pays nothing between scrapes, and a worker's from its [`WorkerMetrics`], which it
//! updates once per job.

use std::fmt;
use std::sync::Arc;

use hakase_worker::WorkerMetrics;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

use crate::engine::{Detail, Engine, Snapshot};

/// The content type of the OpenMetrics text format, which Prometheus asks for first.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Writes one counter (its name gets `_total`).
fn counter(enc: &mut DescriptorEncoder, name: &str, help: &str, value: u64) -> fmt::Result {
    let metric = ConstCounter::new(value);
    metric.encode(enc.encode_descriptor(name, help, None, metric.metric_type())?)
}

/// Writes one counter of seconds (a float; its name gets `_total`).
fn seconds_counter(enc: &mut DescriptorEncoder, name: &str, help: &str, secs: f64) -> fmt::Result {
    let metric = ConstCounter::new(secs);
    metric.encode(enc.encode_descriptor(name, help, None, metric.metric_type())?)
}

/// Writes one gauge.
fn gauge<N>(enc: &mut DescriptorEncoder, name: &str, help: &str, value: N) -> fmt::Result
where
    ConstGauge<N>: EncodeMetric,
{
    let metric = ConstGauge::new(value);
    metric.encode(enc.encode_descriptor(name, help, None, metric.metric_type())?)
}

/// The coordinator's metrics: read from the engine at each scrape.
pub struct CoordinatorCollector {
    engine: Arc<Engine>,
}

impl fmt::Debug for CoordinatorCollector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CoordinatorCollector")
    }
}

/// Writes the coordinator's metrics for `snap` and `detail` (without the prefix, which the
/// registry adds).
fn encode_run(enc: &mut DescriptorEncoder, snap: &Snapshot, detail: &Detail) -> fmt::Result {
    encode_jobs(enc, snap)?;
    encode_progress(enc, snap)?;
    encode_audit(enc, snap, detail)
}

/// The jobs and what workers did with them.
fn encode_jobs(enc: &mut DescriptorEncoder, snap: &Snapshot) -> fmt::Result {
    let c = &snap.counters;
    gauge(
        enc,
        "jobs_total",
        "Jobs made so far by the plan.",
        snap.jobs_total,
    )?;
    gauge(
        enc,
        "jobs_queued",
        "Jobs waiting for a worker.",
        snap.jobs_queued,
    )?;
    gauge(
        enc,
        "jobs_leased",
        "Jobs being solved by a worker.",
        snap.jobs_leased,
    )?;
    gauge(enc, "jobs_done", "Jobs with a result.", snap.jobs_done)?;
    counter(
        enc,
        "results",
        "Results taken from workers (rate() of it: results per second).",
        c.completions,
    )?;
    counter(
        enc,
        "duplicate_results",
        "Results for jobs that already had one at least as strong.",
        c.duplicate_completions,
    )?;
    counter(enc, "leases", "Jobs handed out to workers.", c.leases)?;
    counter(
        enc,
        "lease_expiries",
        "Leases that ran out and were handed out again.",
        c.lease_expiries,
    )?;
    counter(
        enc,
        "rejected_results",
        "Results rejected as inconsistent.",
        c.rejected,
    )?;
    counter(
        enc,
        "search_nodes",
        "Search nodes the workers reported.",
        c.nodes,
    )?;
    seconds_counter(
        enc,
        "job_seconds",
        "Seconds workers reported spending on jobs.",
        c.job_millis as f64 / 1000.0,
    )
}

/// How far the run is: first guesses settled, the best so far, the time.
fn encode_progress(enc: &mut DescriptorEncoder, snap: &Snapshot) -> fmt::Result {
    gauge(
        enc,
        "first_guesses_total",
        "First guesses at the current guess budget.",
        snap.first_total,
    )?;
    gauge(
        enc,
        "first_guesses_settled",
        "First guesses settled (exact or cut off by the best).",
        snap.first_settled,
    )?;
    gauge(
        enc,
        "workers_live",
        "Workers seen within three lease periods.",
        snap.workers,
    )?;
    if let Some((_, total)) = &snap.best {
        gauge(
            enc,
            "best_total",
            "The best total found so far (the proven optimum once finished).",
            i64::from(*total),
        )?;
    }
    if let Some(eta) = snap.eta_secs {
        gauge(
            enc,
            "eta_seconds",
            "Seconds left at this session's rate of settling first guesses.",
            eta,
        )?;
    }
    gauge(
        enc,
        "elapsed_seconds",
        "Seconds since this coordinator started.",
        snap.elapsed_secs,
    )?;
    gauge(
        enc,
        "finished",
        "1 once the result is proven.",
        i64::from(snap.state == "finished"),
    )?;
    gauge(
        enc,
        "storage_fault",
        "1 once the run database could not be written (disk full or failing): no more work is \
         taken.",
        i64::from(snap.state.starts_with("storage fault")),
    )
}

/// How the workers' claims were checked.
fn encode_audit(enc: &mut DescriptorEncoder, snap: &Snapshot, detail: &Detail) -> fmt::Result {
    let a = &snap.audit;
    counter(
        enc,
        "audit_exact_verified",
        "Exact claims whose tree was checked on arrival.",
        a.exact_verified,
    )?;
    let reruns = [
        ("decisive", a.rerun_decisive),
        ("policy", a.rerun_policy),
        ("ahead", a.rerun_ahead),
    ];
    let mut family = enc.encode_descriptor(
        "audit_reruns",
        "Claims re-run on another worker, by why: deciding the result, in the sample, or looking like the runner-up's.",
        None,
        MetricType::Counter,
    )?;
    for (reason, value) in reruns {
        let labels = [("reason", reason)];
        ConstCounter::new(value).encode(family.encode_family(&labels)?)?;
    }
    counter(
        enc,
        "audit_reruns_on_coordinator",
        "Re-runs the coordinator solved itself.",
        a.rerun_on_coordinator,
    )?;
    gauge(
        enc,
        "audit_confirmed_claims",
        "Claims a re-run confirmed.",
        detail.confirmed_claims,
    )?;
    gauge(
        enc,
        "audit_unchecked_claims",
        "Needed claims accepted without a re-run.",
        a.unchecked,
    )?;
    counter(
        enc,
        "audit_lies_caught",
        "Results refused or refuted (forged trees, re-runs that disagreed).",
        a.lies_caught,
    )?;
    gauge(
        enc,
        "audit_quarantined_workers",
        "Workers quarantined for a refuted claim.",
        a.quarantined.len() as u64,
    )?;
    Ok(())
}

impl Collector for CoordinatorCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> fmt::Result {
        encode_run(&mut encoder, &self.engine.snapshot(), &self.engine.detail())
    }
}

/// A worker's metrics: read from its counters at each scrape.
#[derive(Debug)]
pub struct WorkerCollector {
    metrics: Arc<WorkerMetrics>,
}

impl Collector for WorkerCollector {
    fn encode(&self, mut enc: DescriptorEncoder) -> fmt::Result {
        let counts = self.metrics.counts();
        let enc = &mut enc;
        counter(
            enc,
            "jobs_solved",
            "Jobs solved (acknowledged or not).",
            counts.jobs_solved,
        )?;
        counter(
            enc,
            "jobs_done",
            "Results the coordinator acknowledged.",
            counts.jobs_done,
        )?;
        seconds_counter(enc, "busy_seconds", "Seconds spent solving jobs, summed over the job slots (rate() of it over the slots: how busy the worker is).", counts.busy_micros as f64 / 1e6)?;
        counter(
            enc,
            "memo_hits",
            "Memo lookups that answered.",
            counts.memo_hits,
        )?;
        counter(
            enc,
            "search_nodes",
            "Memo lookups that did not answer and were searched (the memo's misses).",
            counts.nodes,
        )?;
        gauge(enc, "slots", "Jobs solved at once (threads).", counts.slots)?;
        Ok(())
    }
}

/// The registry of a coordinator's metrics, named `hakase_coordinator_*`.
pub fn coordinator_registry(engine: Arc<Engine>) -> Registry {
    let mut registry = Registry::with_prefix("hakase_coordinator");
    registry.register_collector(Box::new(CoordinatorCollector { engine }));
    registry
}

/// The registry of a worker's metrics, named `hakase_worker_*`.
pub fn worker_registry(metrics: Arc<WorkerMetrics>) -> Registry {
    let mut registry = Registry::with_prefix("hakase_worker");
    registry.register_collector(Box::new(WorkerCollector { metrics }));
    registry
}

/// The text a scrape gets.
pub fn render(registry: &Registry) -> String {
    let mut text = String::new();
    // Writing into a String cannot fail; a collector's error would leave a partial text,
    // which Prometheus refuses as a whole, so it is not hidden.
    if let Err(err) = prometheus_client::encoding::text::encode(&mut text, registry) {
        tracing::warn!(%err, "encoding the metrics");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_scrape_names_every_counter() {
        let metrics = WorkerMetrics::new();
        metrics.set_slots(2);
        metrics.job_solved(std::time::Duration::from_millis(1500));
        metrics.jobs_acknowledged(1);
        let text = render(&worker_registry(metrics));
        for line in [
            "hakase_worker_jobs_solved_total 1",
            "hakase_worker_jobs_done_total 1",
            "hakase_worker_busy_seconds_total 1.5",
            "hakase_worker_memo_hits_total 0",
            "hakase_worker_search_nodes_total 0",
            "hakase_worker_slots 2",
            "# EOF",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in:\n{text}");
        }
    }
}
