//! The ledger beside a run's database: how many results and settled first guesses it holds
//! and whether the run finished, written after every flush. sled recovers a damaged log by
//! dropping its tail, which looks like a run killed earlier; the ledger's count tells the two
//! apart.

use std::path::Path;
use std::sync::atomic::Ordering;

use hakase_core::solver::SolverConfig;

use super::layout::{LEDGER_FILE, LEDGER_TEMP};
use super::{RunError, Store};

/// How many results and settled first guesses are on disk, and whether the run finished:
/// what the ledger holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Tally {
    pub(super) settled: u64,
    pub(super) results: u64,
    pub(super) finished: bool,
}

/// The ledger as found at open.
pub(super) enum LedgerRead {
    Absent,
    Unreadable(String),
    Found { run: String, tally: Tally },
}

/// The ledger's text: the run it belongs to, the tally, and a CRC-32 of the lines above it.
pub(super) fn ledger_text(run: &str, tally: Tally) -> String {
    let body = format!(
        "hakase ledger 1\nrun {run}\nsettled {}\nresults {}\nfinished {}\n",
        tally.settled,
        tally.results,
        u8::from(tally.finished)
    );
    format!("{body}crc {:08x}\n", crc32fast::hash(body.as_bytes()))
}

/// Reads a ledger's text back, or says why it cannot be trusted.
pub(super) fn parse_ledger(text: &str) -> Result<(String, Tally), String> {
    let text = text.strip_suffix('\n').ok_or("it is cut short")?;
    let (head, crc) = text.rsplit_once("\ncrc ").ok_or("it has no checksum")?;
    let crc = u32::from_str_radix(crc, 16).map_err(|_| "its checksum is not hex")?;
    if crc != crc32fast::hash(format!("{head}\n").as_bytes()) {
        return Err("it fails its checksum".into());
    }
    let mut lines = head.lines();
    if lines.next() != Some("hakase ledger 1") {
        return Err("it is of an unknown format".into());
    }
    let mut field = |name: &str| {
        lines
            .next()
            .and_then(|line| line.strip_prefix(name))
            .and_then(|rest| rest.strip_prefix(' '))
            .map(str::to_string)
            .ok_or_else(|| format!("it has no {name} line"))
    };
    let run = field("run")?;
    let mut number = |name: &str| {
        field(name)?
            .parse::<u64>()
            .map_err(|_| format!("its {name} line is not a number"))
    };
    let settled = number("settled")?;
    let results = number("results")?;
    let finished = match number("finished")? {
        0 => false,
        1 => true,
        _ => return Err("its finished line is neither 0 nor 1".into()),
    };
    Ok((
        run,
        Tally {
            settled,
            results,
            finished,
        },
    ))
}

/// Reads the ledger of the database at `path`.
pub(super) fn read_ledger(path: &Path) -> LedgerRead {
    match std::fs::read_to_string(path.join(LEDGER_FILE)) {
        Ok(text) => match parse_ledger(&text) {
            Ok((run, tally)) => LedgerRead::Found { run, tally },
            Err(why) => LedgerRead::Unreadable(why),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => LedgerRead::Absent,
        Err(e) => LedgerRead::Unreadable(e.to_string()),
    }
}

/// What names a run in its ledger: its game's fingerprint and options, hashed. A ledger whose
/// database lost its manifest is still matched to the run asked for.
pub(super) fn run_key(fingerprint: &str, config: &SolverConfig) -> String {
    use sha2::{Digest, Sha256};
    let options = serde_json::to_string(config).unwrap_or_default();
    let digest = Sha256::digest(format!("{fingerprint} {options}").as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

impl Store {
    /// The tally as it stands in memory (read before a flush, it is on disk after it).
    pub(super) fn tally(&self) -> Tally {
        Tally {
            settled: self.settled_count.load(Ordering::SeqCst),
            results: self.results_count.load(Ordering::SeqCst),
            finished: self
                .manifest
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .finished,
        }
    }

    /// Writes the ledger (through a temporary file and a rename, so it is whole or old). Not
    /// synced: a ledger that reaches the disk late only counts less than is stored, which
    /// hides nothing the next flush does not record.
    pub(super) fn write_ledger(
        &self,
        last: &mut Option<Tally>,
        tally: Tally,
    ) -> Result<(), RunError> {
        if *last == Some(tally) {
            return Ok(());
        }
        let file = self.path.join(LEDGER_FILE);
        let temporary = self.path.join(LEDGER_TEMP);
        let io = |source: std::io::Error| {
            self.note_fault(&source.to_string());
            RunError::Io {
                path: file.clone(),
                source,
            }
        };
        std::fs::write(&temporary, ledger_text(&self.run_key, tally)).map_err(io)?;
        std::fs::rename(&temporary, &file).map_err(io)?;
        *last = Some(tally);
        Ok(())
    }
}
