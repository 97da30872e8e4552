//! sled panics on some damaged files (a truncated or overwritten segment) instead of returning
//! an error. Every open of a run database or memo goes through [`open`], and every read that
//! may touch damaged pages through [`isolate`], so damage becomes an error that names the
//! database, never a crash of the whole process.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Once;
use std::time::{Duration, Instant};

use thiserror::Error;

/// Why a sled database could not be opened or read.
#[derive(Debug, Error)]
pub enum SledDamage {
    /// sled reported an error (corruption, I/O, a held lock).
    #[error(transparent)]
    Error(#[from] sled::Error),
    /// sled panicked on what it read: the files are damaged.
    #[error("sled failed reading it: {0}")]
    Panicked(String),
}

impl SledDamage {
    /// True when another process holds the database's lock (not damage: try again later).
    pub fn is_locked(&self) -> bool {
        match self {
            SledDamage::Error(e) => {
                let text = e.to_string();
                text.contains("could not acquire lock") || text.contains("WouldBlock")
            }
            SledDamage::Panicked(_) => false,
        }
    }
}

thread_local! {
    /// True while this thread runs inside [`isolate`]: its panics are expected and reported
    /// as errors, so the default hook must not print them.
    static ISOLATED: Cell<bool> = const { Cell::new(false) };
}

static QUIET_HOOK: Once = Once::new();

/// Wraps the process's panic hook once so panics inside [`isolate`] print nothing.
fn install_quiet_hook() {
    QUIET_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !ISOLATED.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Runs `f`; a panic inside it becomes `Err` with the panic's text (printed by nobody).
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_quiet_hook();
    let was = ISOLATED.with(|q| q.replace(true));
    let outcome = panic::catch_unwind(AssertUnwindSafe(f));
    ISOLATED.with(|q| q.set(was));
    outcome.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into())
    })
}

/// Runs the sled work `f`, turning a panic inside it into [`SledDamage::Panicked`].
pub fn isolate<T, E>(f: impl FnOnce() -> Result<T, E>) -> Result<T, SledDamage>
where
    SledDamage: From<E>,
{
    catch(f)
        .map_err(SledDamage::Panicked)?
        .map_err(SledDamage::from)
}

/// How long an open waits for a held lock before reporting it. sled lets go of its file
/// lock only when its last background I/O task ends, a moment after the database is dropped,
/// so a reopen in the same process can find it still held; a reader may also hold a run for
/// the few milliseconds its read takes. A writer holds it for far longer than this.
const LOCK_WAIT: Duration = Duration::from_millis(500);

/// Time between two attempts while the lock is held.
const LOCK_POLL: Duration = Duration::from_millis(10);

/// Opens the sled database `config` describes, isolating panics and waiting up to half a
/// second for a lock that is being released.
pub fn open_config(config: &sled::Config) -> Result<sled::Db, SledDamage> {
    let deadline = Instant::now() + LOCK_WAIT;
    loop {
        match isolate(|| config.open()) {
            Err(e) if e.is_locked() && Instant::now() < deadline => std::thread::sleep(LOCK_POLL),
            other => return other,
        }
    }
}

/// Opens the sled database at `path` with default settings, isolating panics.
pub fn open(path: &Path) -> Result<sled::Db, SledDamage> {
    open_config(&sled::Config::new().path(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error_with_its_text() {
        let result: Result<(), SledDamage> = isolate(|| -> Result<(), sled::Error> {
            let v: Vec<u8> = Vec::new();
            let i = v.len() + 3;
            Err(sled::Error::Unsupported(format!("{}", v[i])))
        });
        match result {
            Err(SledDamage::Panicked(text)) => {
                assert_eq!(text, "index out of bounds: the len is 0 but the index is 3")
            }
            other => panic!("expected a panic, got {other:?}"),
        }
        let ok: Result<u32, SledDamage> = isolate(|| Ok::<u32, sled::Error>(7));
        assert_eq!(ok.unwrap(), 7);
    }

    #[test]
    fn a_lock_held_by_a_live_database_is_reported_after_the_wait() {
        let dir = std::env::temp_dir().join(format!("hakase-guard-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let held = open(&dir).expect("first open");
        let started = Instant::now();
        let err = open(&dir).expect_err("the lock is held");
        assert!(err.is_locked(), "{err}");
        assert!(started.elapsed() >= LOCK_WAIT, "it waited before reporting");
        drop(held);
        let reopened = open(&dir).expect("the lock is released after the drop");
        drop(reopened);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
