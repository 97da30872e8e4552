//! The transposition table: values of candidate sets already searched, behind a trait so a
//! persistent store (the worker's sled cache) can stand in for the in-memory one.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::rules::game::GuessId;

/// Identity of a subproblem: a 128-bit hash of the candidate set, the guesses left (when they
/// can matter), the hard-mode state and the solver configuration. At 128 bits an accidental
/// collision among even 10^12 entries has probability below 10^-14.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MemoKey(pub u128);

/// What is known about a subproblem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoEntry {
    /// A proven lower bound on the optimal value, or the value itself when `exact`.
    pub value: u32,
    /// True when `value` is the optimum and `guess` achieves it.
    pub exact: bool,
    /// The optimal guess when `exact`; meaningless otherwise.
    pub guess: GuessId,
}

impl MemoEntry {
    /// Combines two facts about the same subproblem, keeping the stronger.
    pub fn merge(self, other: MemoEntry) -> MemoEntry {
        match (self.exact, other.exact) {
            (true, _) => self,
            (false, true) => other,
            (false, false) => {
                if other.value > self.value {
                    other
                } else {
                    self
                }
            }
        }
    }
}

/// A store of subproblem facts shared by every thread of a search.
pub trait Memo: Send + Sync {
    /// What is known about `key`, if anything.
    fn get(&self, key: MemoKey) -> Option<MemoEntry>;
    /// Records a fact; implementations keep the stronger of old and new (see
    /// [`MemoEntry::merge`]).
    fn put(&self, key: MemoKey, entry: MemoEntry);
}

const SHARDS: usize = 64;

/// A size-capped concurrent map from subproblem keys to facts. Each shard keeps two
/// generations: when the current one is full it becomes the old one and the previous old one
/// is dropped, so the table forgets the least recently stored half instead of failing or
/// growing without bound.
pub(crate) struct Generations<V> {
    shards: Vec<Mutex<Shard<V>>>,
    per_shard: usize,
}

struct Shard<V> {
    current: HashMap<MemoKey, V>,
    old: HashMap<MemoKey, V>,
}

impl<V> Default for Shard<V> {
    fn default() -> Self {
        Shard {
            current: HashMap::new(),
            old: HashMap::new(),
        }
    }
}

impl<V: Copy> Generations<V> {
    /// A table holding at most about `capacity` entries.
    pub(crate) fn new(capacity: usize) -> Generations<V> {
        Generations {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            per_shard: (capacity / SHARDS / 2).max(16),
        }
    }

    /// Entries held now.
    pub(crate) fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| {
                let s = lock(s);
                s.current.len() + s.old.len()
            })
            .sum()
    }

    fn shard(&self, key: MemoKey) -> &Mutex<Shard<V>> {
        &self.shards[(key.0 as usize) % SHARDS]
    }

    /// What is stored for `key`, if anything.
    pub(crate) fn get(&self, key: MemoKey) -> Option<V> {
        let shard = lock(self.shard(key));
        shard
            .current
            .get(&key)
            .or_else(|| shard.old.get(&key))
            .copied()
    }

    /// Stores `combine(what is stored now, if anything)` under `key`.
    pub(crate) fn update(&self, key: MemoKey, combine: impl FnOnce(Option<V>) -> V) {
        let mut shard = lock(self.shard(key));
        let known = shard
            .current
            .get(&key)
            .or_else(|| shard.old.get(&key))
            .copied();
        let entry = combine(known);
        if shard.current.len() >= self.per_shard && !shard.current.contains_key(&key) {
            shard.old = std::mem::take(&mut shard.current);
        }
        shard.current.insert(key, entry);
    }
}

fn lock<V>(shard: &Mutex<Shard<V>>) -> std::sync::MutexGuard<'_, Shard<V>> {
    // A panic elsewhere cannot leave a shard half-written: every update is one insert.
    shard
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// An in-memory table with a size cap that forgets its least recently stored half when full
/// (see [`Generations`]).
pub struct MemoryMemo {
    table: Generations<MemoEntry>,
}

/// Bytes one table entry takes, roughly, for sizing the cap from a memory budget.
pub const BYTES_PER_ENTRY: usize = 48;

impl MemoryMemo {
    /// A table holding at most about `capacity` entries.
    pub fn new(capacity: usize) -> MemoryMemo {
        MemoryMemo {
            table: Generations::new(capacity),
        }
    }

    /// Entries held now.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Memo for MemoryMemo {
    fn get(&self, key: MemoKey) -> Option<MemoEntry> {
        self.table.get(key)
    }

    fn put(&self, key: MemoKey, entry: MemoEntry) {
        self.table
            .update(key, |known| known.map_or(entry, |k| k.merge(entry)));
    }
}
