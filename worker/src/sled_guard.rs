//! sled panics on some damaged files (a truncated or overwritten segment) instead of returning
//! an error. Every open of a run database or memo goes through [`open`], and every read that
//! may touch damaged pages through [`isolate`], so damage becomes an error that names the
//! database, never a crash of the whole process.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Once;

use thiserror::Error;

/// Why a sled database could not be opened or read.
#[derive(Debug, Error)]
pub enum SledDamage {
    /// sled reported an error (corruption, I/O, a held lock).
    #[error("{0}")]
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

/// Opens the sled database `config` describes, isolating panics.
pub fn open_config(config: &sled::Config) -> Result<sled::Db, SledDamage> {
    isolate(|| config.open())
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
}
