//! The opt-in per-job log of a coordinator (JSON lines): what each finished job was, what it
//! cost and who solved it, so a real run can be replayed on any number of simulated workers
//! (`scripts/simulate-cluster`).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Mutex;

use hakase_core::solver::Outcome;
use hakase_proto::job::{JobAnswer, JobKind, JobSpec};
use serde::Serialize;

use super::error::ClusterError;

/// One finished job, as logged.
#[derive(Debug, Serialize)]
pub struct JobLine {
    /// Milliseconds since the coordinator started, when the result arrived.
    pub t_ms: u64,
    /// The worker that solved it.
    pub worker: u64,
    /// "first" (a whole first guess), "part" (a part after a first guess) or "second" (a
    /// second guess on a part).
    pub kind: &'static str,
    /// The place in line of the first guess the job belongs to: its index in search order,
    /// or in a ranking (which starts the costliest first) its index from the end.
    pub first_index: Option<u32>,
    /// Candidate answers of the subproblem.
    pub size: usize,
    /// The cutoff it was solved with.
    pub beta: u32,
    /// "exact" or "at-least".
    pub outcome: &'static str,
    /// The exact value or the bound.
    pub value: u32,
    /// Milliseconds the worker spent on the job (its wall time there: CPU time when the
    /// worker's cores are its own).
    pub job_ms: u64,
    /// Search nodes the worker scanned.
    pub nodes: u64,
    /// True for a re-run of another worker's claim (the audit), not a job of the search.
    pub recheck: bool,
}

impl JobLine {
    /// The line for `answer` to a job of `spec`.
    pub fn new(
        t_ms: u64,
        worker: u64,
        spec: &JobSpec,
        first_index: Option<u32>,
        answer: &JobAnswer,
        root_size: usize,
    ) -> JobLine {
        let kind = match spec.kind {
            JobKind::Node => "part",
            JobKind::Guess(_) if spec.node.candidates.len() == root_size => "first",
            JobKind::Guess(_) => "second",
            JobKind::Slice { .. } => "slice",
        };
        JobLine {
            t_ms,
            worker,
            kind,
            first_index,
            size: spec.node.candidates.len(),
            beta: answer.beta,
            outcome: if answer.outcome.is_exact() {
                "exact"
            } else {
                "at-least"
            },
            value: match answer.outcome {
                Outcome::Exact { value, .. } | Outcome::AtLeast(value) => value,
            },
            job_ms: answer.millis,
            nodes: answer.nodes,
            recheck: false,
        }
    }
}

/// An append-only JSON-lines file.
pub struct JobLog {
    out: Mutex<BufWriter<File>>,
}

impl JobLog {
    /// Creates (or appends to) the log at `path`.
    pub fn open(path: &Path) -> Result<JobLog, ClusterError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|source| ClusterError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(JobLog {
            out: Mutex::new(BufWriter::new(file)),
        })
    }

    /// Appends a line, written through at once so that a night-long run's log can be read
    /// (and replayed) while it runs and keeps every finished job if the coordinator dies; a
    /// failed write is only logged (the log is for statistics).
    pub fn write(&self, line: &JobLine) {
        let mut out = self.out.lock().unwrap_or_else(|p| p.into_inner());
        let written = serde_json::to_writer(&mut *out, line)
            .map_err(std::io::Error::other)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        if let Err(err) = written {
            tracing::warn!(%err, "writing the job log");
        }
    }

    /// Writes what is buffered.
    pub fn flush(&self) {
        let mut out = self.out.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(err) = out.flush() {
            tracing::warn!(%err, "writing the job log");
        }
    }
}
