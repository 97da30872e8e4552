//! An optional line log of the jobs a worker starts and has acknowledged, with wall-clock
//! microseconds, so tests can prove that no acknowledged job is ever computed again.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use hakase_proto::job::JobId;

use crate::error::WorkerError;

/// Appends `<micros> <event> <job id> <detail>` lines: `started … <beta>` (with ` recheck`
/// for a re-run of another worker's claim) and `acked … exact <value>` or
/// `acked … atleast <bound>`.
pub struct JobLog {
    file: Mutex<File>,
}

impl JobLog {
    /// Opens (appending) the log at `path`.
    pub fn open(path: &Path) -> Result<JobLog, WorkerError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|source| WorkerError::Io {
                path: path.display().to_string(),
                source,
            })?;
        Ok(JobLog {
            file: Mutex::new(file),
        })
    }

    /// Records an event; a failed write is only logged.
    pub fn record(&self, event: &str, id: JobId, detail: &str) {
        let micros = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_micros());
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(err) =
            writeln!(file, "{micros} {event} {id} {detail}").and_then(|()| file.flush())
        {
            tracing::warn!(%err, "writing the job log");
        }
    }
}
