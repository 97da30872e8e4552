//! The worker's persistent memo: an in-memory table in front of a sled tree.
//!
//! The solver stores millions of small facts per second; only facts about bigger subproblems
//! (value at least `min_value`, which implies a larger candidate set) are worth a disk write.
//! They are buffered and written in small batches as the search goes (blind writes: the
//! stronger of two facts is kept in memory, and any stored fact is sound), so that
//! [`SledMemo::flush`], which makes them durable, has little left to write when a worker stops.
//! On open, every stored fact of the game is loaded into the front table, so lookups never
//! touch the disk.

use std::collections::HashMap;
use std::sync::Mutex;

use hakase_core::solver::memo::{Memo, MemoEntry, MemoKey, MemoryMemo};

use crate::error::WorkerError;
use hakase_runs::group_commit::GroupCommit;

/// Feedback pairs a fact must stand for to be worth a disk write. Recomputing a fact of value
/// `v` reads at least about `v` × guesses pairs (its set holds about `v / 2` answers, each scanned
/// against every guess), while a sled insert costs the same whatever the game. This keeps
/// Wordle's facts of value 40 and up; on a Pokémon game of 515 names only facts near the root
/// qualify, where writing every fact of value 40 took a tenth of a worker's time for jobs of 2 ms
/// that are cheaper to redo than to store.
pub const PERSIST_MIN_WORK: u64 = 40 * 12_972;

/// The least value of a fact worth a disk write in a game of `guesses` allowed guesses.
pub fn persist_min_value(guesses: usize) -> u32 {
    let guesses = guesses.max(1) as u64;
    u32::try_from(PERSIST_MIN_WORK.div_ceil(guesses)).unwrap_or(u32::MAX)
}

/// Pending facts that trigger a write: small enough that the last batch, written when the
/// worker stops, costs a few milliseconds.
const BATCH: usize = 4_096;

/// A [`Memo`] backed by sled, keyed by game fingerprint + [`MemoKey`].
pub struct SledMemo {
    front: MemoryMemo,
    tree: sled::Tree,
    prefix: Vec<u8>,
    min_value: u32,
    pending: Mutex<Vec<(MemoKey, MemoEntry)>>,
    loaded: usize,
    label: String,
    commit: GroupCommit,
}

impl SledMemo {
    /// Opens the memo of game `fingerprint` in `tree`, keeping at most about `capacity`
    /// entries in memory and persisting facts whose value is at least `min_value`.
    pub fn open(
        tree: sled::Tree,
        fingerprint: &str,
        capacity: usize,
        min_value: u32,
        label: &str,
    ) -> Result<SledMemo, WorkerError> {
        let prefix = fingerprint.as_bytes().to_vec();
        let front = MemoryMemo::new(capacity);
        let mut loaded = 0;
        for item in tree.scan_prefix(&prefix) {
            let (key, value) = item.map_err(|source| WorkerError::Cache {
                path: label.to_string(),
                source,
            })?;
            if let (Some(key), Some(entry)) = (decode_key(&key[prefix.len()..]), decode(&value)) {
                front.put(key, entry);
                loaded += 1;
            }
        }
        Ok(SledMemo {
            front,
            tree,
            prefix,
            min_value,
            pending: Mutex::new(Vec::new()),
            loaded,
            label: label.to_string(),
            commit: GroupCommit::default(),
        })
    }

    /// [`SledMemo::open`], with a damaged database reported as
    /// [`WorkerError::CacheDamaged`] instead of a panic.
    pub fn open_guarded(
        tree: sled::Tree,
        fingerprint: &str,
        capacity: usize,
        min_value: u32,
        label: &str,
    ) -> Result<SledMemo, WorkerError> {
        hakase_runs::sled_guard::catch(|| {
            SledMemo::open(tree, fingerprint, capacity, min_value, label)
        })
        .map_err(|why| WorkerError::CacheDamaged {
            path: label.to_string(),
            why: format!("sled failed reading it: {why}"),
        })?
    }

    /// Facts found on disk when the memo was opened.
    pub fn loaded(&self) -> usize {
        self.loaded
    }

    /// Writes every buffered fact and waits until sled has them on disk. Threads flushing at
    /// the same time share one disk sync (group commit).
    pub fn flush(&self) -> Result<(), WorkerError> {
        self.write_pending()?;
        self.commit.sync(|| {
            self.tree
                .flush()
                .map(|_| ())
                .map_err(|source| self.error(source))
        })
    }

    /// Writes every buffered fact without waiting for the disk (a later flush of the same
    /// database makes them durable).
    pub fn write(&self) -> Result<(), WorkerError> {
        self.write_pending()
    }

    fn error(&self, source: sled::Error) -> WorkerError {
        WorkerError::Cache {
            path: self.label.clone(),
            source,
        }
    }

    fn write_pending(&self) -> Result<(), WorkerError> {
        let pending = std::mem::take(&mut *lock(&self.pending));
        if pending.is_empty() {
            return Ok(());
        }
        // Within a batch the strongest fact of each subproblem is kept; a batch overwrites
        // what is stored without reading it (every stored fact is sound, and the front table
        // keeps the strongest for this process).
        let mut strongest: HashMap<MemoKey, MemoEntry> = HashMap::with_capacity(pending.len());
        for (key, entry) in pending {
            strongest
                .entry(key)
                .and_modify(|known| *known = known.merge(entry))
                .or_insert(entry);
        }
        let mut batch = sled::Batch::default();
        for (key, entry) in strongest {
            batch.insert(self.full_key(key), encode(entry).to_vec());
        }
        self.tree
            .apply_batch(batch)
            .map_err(|source| self.error(source))
    }

    fn full_key(&self, key: MemoKey) -> Vec<u8> {
        let mut full = self.prefix.clone();
        full.extend_from_slice(&key.0.to_be_bytes());
        full
    }
}

impl Memo for SledMemo {
    fn get(&self, key: MemoKey) -> Option<MemoEntry> {
        self.front.get(key)
    }

    fn put(&self, key: MemoKey, entry: MemoEntry) {
        self.front.put(key, entry);
        if entry.value < self.min_value {
            return;
        }
        let full = {
            let mut pending = lock(&self.pending);
            pending.push((key, entry));
            pending.len() >= BATCH
        };
        if full {
            // A failed background write loses only cache entries, never a result.
            if let Err(err) = self.write_pending() {
                tracing::warn!(err = %crate::error::Chain(&err), "writing the worker memo");
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn encode(entry: MemoEntry) -> [u8; 9] {
    let mut out = [0u8; 9];
    out[..4].copy_from_slice(&entry.value.to_le_bytes());
    out[4] = u8::from(entry.exact);
    out[5..].copy_from_slice(&entry.guess.to_le_bytes());
    out
}

fn decode(bytes: &[u8]) -> Option<MemoEntry> {
    let bytes: &[u8; 9] = bytes.try_into().ok()?;
    Some(MemoEntry {
        value: u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
        exact: bytes[4] != 0,
        guess: u32::from_le_bytes([bytes[5], bytes[6], bytes[7], bytes[8]]),
    })
}

fn decode_key(bytes: &[u8]) -> Option<MemoKey> {
    let bytes: [u8; 16] = bytes.try_into().ok()?;
    Some(MemoKey(u128::from_be_bytes(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_survive_a_reopen_and_stay_per_game() {
        let dir = std::env::temp_dir().join(format!("hakase-memo-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let entry = MemoEntry {
            value: 77,
            exact: true,
            guess: 5,
        };
        {
            let db = hakase_runs::sled_guard::open(&dir).expect("open");
            let memo = SledMemo::open(db.open_tree("memo").expect("tree"), "aaaa", 1000, 10, "t")
                .expect("memo");
            memo.put(MemoKey(42), entry);
            memo.put(
                MemoKey(43),
                MemoEntry {
                    value: 3,
                    exact: true,
                    guess: 1,
                },
            );
            memo.flush().expect("flush");
        }
        let db = hakase_runs::sled_guard::open(&dir).expect("reopen");
        let tree = db.open_tree("memo").expect("tree");
        let memo = SledMemo::open(tree.clone(), "aaaa", 1000, 10, "t").expect("memo");
        assert_eq!(memo.get(MemoKey(42)), Some(entry));
        assert_eq!(
            memo.get(MemoKey(43)),
            None,
            "small facts stay in memory only"
        );
        let other = SledMemo::open(tree, "bbbb", 1000, 10, "t").expect("memo");
        assert_eq!(other.get(MemoKey(42)), None);
        drop((memo, other, db));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_persisted_value_scales_inversely_with_the_guess_count() {
        assert_eq!(persist_min_value(12_972), 40);
        assert_eq!(persist_min_value(515), 1_008);
        assert_eq!(persist_min_value(0), 518_880);
    }
}
