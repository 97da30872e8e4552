//! The progress bar of runs: first guesses settled, jobs done, jobs per second, the best
//! first guess so far and an ETA (indicatif hides it when stderr is not a terminal).

use std::sync::Mutex;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

use crate::cluster::Snapshot;

/// A bar fed with [`Snapshot`]s.
pub struct RunProgress {
    bar: ProgressBar,
    last: Mutex<Option<(Instant, u64)>>,
    /// Without a terminal: when the last log line was written.
    logged: Mutex<Option<Instant>>,
}

impl Default for RunProgress {
    fn default() -> Self {
        RunProgress::new()
    }
}

impl RunProgress {
    /// A bar on stderr.
    pub fn new() -> RunProgress {
        let bar = ProgressBar::new(1);
        let style = ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} first guesses, ETA {eta}  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        RunProgress {
            bar,
            last: Mutex::new(None),
            logged: Mutex::new(None),
        }
    }

    /// Shows `s`.
    pub fn update(&self, s: &Snapshot) {
        self.bar.set_length(s.first_total.max(1));
        self.bar.set_position(s.first_settled);
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        let rate = match *last {
            Some((at, done)) if now > at => {
                (s.counters.completions.saturating_sub(done)) as f64
                    / (now - at).as_secs_f64().max(1e-3)
            }
            _ => 0.0,
        };
        if last.is_none_or(|(at, _)| now.duration_since(at).as_secs() >= 2) {
            *last = Some((now, s.counters.completions));
        }
        let best = s
            .best
            .as_ref()
            .map_or("best: none yet".to_string(), |(g, v)| {
                format!("best: {g} {v}")
            });
        let message = format!(
            "jobs {}/{} ({:.1}/s, {} queued, {} leased, {} workers)  {best}",
            s.jobs_done, s.jobs_total, rate, s.jobs_queued, s.jobs_leased, s.workers
        );
        if self.bar.is_hidden() {
            // No terminal (a log file, a batch job): a line on stderr every 30 seconds instead.
            let mut logged = self.logged.lock().unwrap_or_else(|p| p.into_inner());
            if logged.is_none_or(|at| now.duration_since(at).as_secs() >= 30) {
                *logged = Some(now);
                eprintln!(
                    "[{:>8.1}s] {}/{} first guesses settled; {message}",
                    s.elapsed_secs, s.first_settled, s.first_total
                );
            }
        }
        self.bar.set_message(message);
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
