//! The progress bar of searches, in one place: first guesses settled of all, with a message
//! (the best so far, and for runs the jobs), and an ETA weighed by the first guesses' expected
//! costs ([`hakase_core::solver::Work`]): counting first guesses, a ranking's ETA was three
//! times too long while its costliest openers ran. On a terminal it is an indicatif bar on
//! stderr; without one (a log file, a batch job) a line now and then instead.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use hakase_engine::Snapshot;

/// The bar every search shows: `solve`'s in-memory search and a coordinator's run.
pub struct FirstGuessBar {
    bar: ProgressBar,
    started: Instant,
    /// Without a terminal: the least time between two log lines, and when the last was
    /// written (`None` before the first, which is then written at once).
    log_every: Duration,
    logged: Mutex<Option<Instant>>,
}

impl FirstGuessBar {
    /// A bar on stderr; without a terminal, a log line at most every `log_every`, the first
    /// at once when `log_at_once`, else after `log_every`.
    pub fn new(log_every: Duration, log_at_once: bool) -> FirstGuessBar {
        let bar = ProgressBar::new(1);
        let style = ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} first guesses, {prefix}  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        let started = Instant::now();
        FirstGuessBar {
            bar,
            started,
            log_every,
            logged: Mutex::new((!log_at_once).then_some(started)),
        }
    }

    /// Seconds since the bar was made: the clock an ETA is taken on.
    pub fn elapsed_secs(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Shows `done` of `total` first guesses with `message` and the ETA `eta_secs`. Without a
    /// terminal, writes `line(seconds since the bar was made, the ETA's text)` when one is
    /// due, or at once when `last`.
    pub fn show(
        &self,
        (done, total): (u64, u64),
        eta_secs: Option<f64>,
        message: &str,
        last: bool,
        line: impl FnOnce(f64, &str) -> String,
    ) {
        let eta = eta_text(eta_secs);
        self.bar.set_length(total.max(1));
        self.bar.set_position(done);
        self.bar.set_prefix(eta.clone());
        if self.bar.is_hidden() {
            let now = Instant::now();
            let mut logged = self.logged.lock().unwrap_or_else(|p| p.into_inner());
            if last || logged.is_none_or(|at| now.duration_since(at) >= self.log_every) {
                *logged = Some(now);
                eprintln!("{}", line(self.started.elapsed().as_secs_f64(), &eta));
            }
        }
        self.bar.set_message(message.to_string());
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// "ETA 1h 02m", or "ETA unknown" before anything was settled.
fn eta_text(eta_secs: Option<f64>) -> String {
    match eta_secs {
        Some(secs) => format!(
            "ETA {}",
            indicatif::HumanDuration(Duration::from_secs_f64(secs.max(0.0)))
        ),
        None => "ETA unknown".to_string(),
    }
}

/// A coordinator's bar, fed with [`Snapshot`]s: the jobs and their rate besides the first
/// guesses.
pub struct RunProgress {
    bar: FirstGuessBar,
    last: Mutex<Option<(Instant, u64)>>,
}

impl Default for RunProgress {
    fn default() -> Self {
        RunProgress::new()
    }
}

impl RunProgress {
    /// A bar on stderr (a log line every 30 seconds without a terminal).
    pub fn new() -> RunProgress {
        RunProgress {
            bar: FirstGuessBar::new(Duration::from_secs(30), true),
            last: Mutex::new(None),
        }
    }

    /// Shows `s`.
    pub fn update(&self, s: &Snapshot) {
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
        // A run of few first guesses spends its time inside one: show where the first open
        // cut one stands.
        let cut = s.cuts.first().map_or(String::new(), |c| {
            let upper = c.upper.map_or("?".to_string(), |u| u.to_string());
            format!(
                "  cut {}: {}/{} parts, total in [{}, {upper}]",
                c.guess, c.parts_settled, c.parts, c.lower
            )
        });
        let message = format!(
            "jobs {}/{} ({:.1}/s, {} queued, {} leased, {})  {best}{cut}",
            s.jobs_done,
            s.jobs_total,
            rate,
            s.jobs_queued,
            s.jobs_leased,
            super::plural(s.workers, "worker", "workers")
        );
        // The run's own clock, which a resumed run keeps.
        self.bar.show(
            (s.first_settled, s.first_total),
            s.eta_secs,
            &message,
            false,
            |_, eta| {
                format!(
                    "[{:>8.1}s] {}/{} first guesses settled, {eta}; {message}",
                    s.elapsed_secs, s.first_settled, s.first_total
                )
            },
        );
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish();
    }
}
