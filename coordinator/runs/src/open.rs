//! Opening a run to write it: creating it, or reopening it and checking what it holds
//! (format conversion, the scan of sealed values, the ledger's count), so that damage is
//! found, counted and recomputed, never silently.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::group_commit::GroupCommit;
use hakase_core::solver::SolverConfig;
use hakase_core::Game;
use hakase_proto::job::JobId;

use super::clock::unix_now;
use super::encoding::{bincode_config, result_ok, seal, settled_ok, unseal};
use super::layout::*;
use super::ledger::{read_ledger, run_key, LedgerRead, Tally};
use super::records::{new_audit_key, Damage, JobRecord, JobStatus, Manifest, Reopened, RunScope};
use super::{RunError, Store};

/// What a scan of the sealed trees found.
#[derive(Debug, Default)]
pub(super) struct Scan {
    settled: u64,
    settled_bad: u64,
    results: u64,
    results_bad: u64,
    resealed: u64,
}

pub(super) fn describe(
    game: &str,
    fingerprint: &str,
    config: &SolverConfig,
    scope: &RunScope,
) -> String {
    let options = serde_json::to_string(config).unwrap_or_default();
    let settles = match scope {
        RunScope::Best => String::new(),
        RunScope::RankAll => ", ranking every first guess".into(),
        RunScope::Listed(list) => format!(", ranking {} listed first guesses", list.len()),
    };
    format!("game {game} (fingerprint {fingerprint}) with options {options}{settles}")
}

impl Store {
    /// Opens or creates the database at `path` for `game` under `config`, searching for the
    /// best first guess. A database of another game or other options is refused, naming both.
    pub fn open(path: &Path, game: &Game, config: &SolverConfig) -> Result<Store, RunError> {
        Store::open_scoped(path, game, config, &RunScope::Best)
    }

    /// [`Store::open`] for a run that settles `scope`; a database of another scope is
    /// refused like one of another game.
    pub fn open_scoped(
        path: &Path,
        game: &Game,
        config: &SolverConfig,
        scope: &RunScope,
    ) -> Result<Store, RunError> {
        let db = open_database(path)?;
        let err = |source| RunError::Database {
            path: path.to_path_buf(),
            source,
        };
        let tree = |name: &str| db.open_tree(name).map_err(err);
        let meta = tree(META_TREE)?;
        let key = run_key(game.fingerprint(), config);
        let ledger = read_ledger(path);
        let wanted = Wanted {
            path,
            game,
            config,
            scope,
        };
        let found = wanted.manifest(meta.get(MANIFEST_KEY).map_err(err)?, &ledger, &key)?;
        if let Err(e) = super::custom::keep_lists(path, game.name()) {
            tracing::warn!(error = %e, "could not keep a copy of the run's word lists in it");
        }
        let mut store = Store {
            path: path.to_path_buf(),
            specs: tree(SPECS_TREE)?,
            statuses: tree(STATES_TREE)?,
            results: tree(RESULTS_TREE)?,
            settled: tree(SETTLED_TREE)?,
            claims: tree(CLAIMS_TREE)?,
            quarantine: tree(QUARANTINE_TREE)?,
            db,
            meta,
            audit_seed: found.manifest.audit_seed(),
            manifest: Mutex::new(found.manifest),
            guesses: game.guesses().len(),
            all_answers: game.all_answers(),
            commit: GroupCommit::default(),
            run_key: key,
            settled_count: AtomicU64::new(0),
            results_count: AtomicU64::new(0),
            ledger: Mutex::new(None),
            fault: Mutex::new(None),
            flushing: Mutex::new(None),
            reopened: Reopened::default(),
        };
        store.check(&ledger, found.version, found.manifest_lost)?;
        Ok(store)
    }

    /// Brings a just-opened database to the current format and finds its damage: converts
    /// format 1's jobs, scans every sealed value, compares with the ledger, records what was
    /// lost, and makes all of it durable.
    fn check(
        &mut self,
        ledger: &LedgerRead,
        stored_version: u32,
        manifest_lost: bool,
    ) -> Result<(), RunError> {
        self.convert_legacy_jobs()?;
        // sled may panic on damaged pages the open did not touch: the scan reads them all.
        let scan =
            crate::sled_guard::catch(|| self.scan(stored_version < SEALED)).map_err(|why| {
                RunError::Damaged {
                    path: self.path.clone(),
                    why: format!("sled failed reading it: {why}"),
                }
            })??;
        self.reopened = self.reconcile(&scan, ledger, stored_version, manifest_lost)?;
        self.settled_count.store(scan.settled, Ordering::SeqCst);
        self.results_count.store(scan.results, Ordering::SeqCst);
        self.manifest
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .version = VERSION;
        self.write_manifest()?;
        if !self.reopened.damage.is_empty() {
            self.record_damage(&self.reopened.damage)?;
        }
        // Makes the removals and reseals durable, then writes the ledger for them.
        self.flush()
    }

    /// Checks every result and settled first guess, dropping those that fail (so they are
    /// recomputed) and sealing format 2's bare ones (`legacy`). Nothing else writes before
    /// this ends, so a crash midway only repeats it next time.
    fn scan(&self, legacy: bool) -> Result<Scan, RunError> {
        let (settled, settled_bad, resealed_settled) =
            self.scan_tree(&self.settled, legacy, settled_ok)?;
        let (results, results_bad, resealed_results) =
            self.scan_tree(&self.results, legacy, result_ok)?;
        let scan = Scan {
            settled,
            settled_bad,
            results,
            results_bad,
            resealed: resealed_settled + resealed_results,
        };
        if scan.resealed > 0 {
            tracing::info!(
                values = scan.resealed,
                "sealed the results of a format {} run database with checksums",
                SEALED - 1
            );
        }
        Ok(scan)
    }

    /// One tree of [`Store::scan`]: (intact, dropped, resealed).
    fn scan_tree(
        &self,
        tree: &sled::Tree,
        legacy: bool,
        valid: fn(&[u8], &[u8]) -> bool,
    ) -> Result<(u64, u64, u64), RunError> {
        let (mut reseal, mut drop) = (Vec::new(), Vec::new());
        let mut intact = 0;
        for item in tree.iter() {
            let (key, value) = item.map_err(|e| self.err(e))?;
            match unseal(&value) {
                Some(payload) if valid(&key, payload) => intact += 1,
                _ if legacy && valid(&key, &value) => reseal.push((key, seal(&value))),
                _ => drop.push(key),
            }
        }
        let (resealed, dropped) = (reseal.len() as u64, drop.len() as u64);
        for (key, sealed) in reseal {
            tree.insert(key, sealed).map_err(|e| self.err(e))?;
        }
        for key in drop {
            tree.remove(key).map_err(|e| self.err(e))?;
        }
        Ok((intact + resealed, dropped, resealed))
    }

    /// Compares what the scan found with what the ledger says was stored.
    fn reconcile(
        &self,
        scan: &Scan,
        ledger: &LedgerRead,
        stored_version: u32,
        manifest_lost: bool,
    ) -> Result<Reopened, RunError> {
        let present = Tally {
            settled: scan.settled + scan.settled_bad,
            results: scan.results + scan.results_bad,
            finished: self
                .meta
                .contains_key(SOLUTION_KEY)
                .map_err(|e| self.err(e))?,
        };
        let mut damage = Damage {
            settled_unreadable: scan.settled_bad,
            results_unreadable: scan.results_bad,
            ..Damage::default()
        };
        let mut unchecked = None;
        match ledger {
            LedgerRead::Found { run, tally } if *run == self.run_key => {
                damage.settled_lost = tally.settled.saturating_sub(present.settled);
                damage.results_lost = tally.results.saturating_sub(present.results);
                damage.solution_lost = tally.finished && !present.finished;
            }
            LedgerRead::Found { .. } => {
                unchecked = Some(format!("its ledger {LEDGER_FILE} is of another run"));
            }
            LedgerRead::Unreadable(why) => {
                unchecked = Some(format!("its ledger {LEDGER_FILE} cannot be read: {why}"));
            }
            LedgerRead::Absent if present == Tally::default() && !manifest_lost => {}
            LedgerRead::Absent if stored_version < SEALED => {
                unchecked = Some(format!(
                    "it was written by an older hakase (format {stored_version}), which kept \
                     no ledger"
                ));
            }
            LedgerRead::Absent => {
                unchecked = Some(format!("its ledger {LEDGER_FILE} is missing"));
            }
        }
        if !damage.is_empty() {
            tracing::warn!(
                db = %self.path.display(),
                settled_unreadable = damage.settled_unreadable,
                settled_lost = damage.settled_lost,
                results_unreadable = damage.results_unreadable,
                results_lost = damage.results_lost,
                solution_lost = damage.solution_lost,
                "the run database is damaged: what cannot be read is recomputed"
            );
        }
        if let Some(why) = &unchecked {
            tracing::warn!(db = %self.path.display(), "losses cannot be checked: {why}");
        }
        Ok(Reopened {
            settled: scan.settled,
            results: scan.results,
            damage,
            unchecked,
        })
    }

    /// Adds `damage` to the run's account of damage found (kept, so it is not forgotten once
    /// the damaged work is recomputed). An unreadable account is started over.
    fn record_damage(&self, damage: &Damage) -> Result<(), RunError> {
        let mut total = self.damage_history().unwrap_or_default();
        total.add(damage);
        let bytes = serde_json::to_vec(&total).map_err(|e| self.corrupt("damage", e))?;
        self.meta
            .insert(DAMAGE_KEY, bytes)
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// What opening the run read back and what it found damaged (and dropped, so that the
    /// run recomputes it).
    pub fn reopened(&self) -> &Reopened {
        &self.reopened
    }

    /// All the damage found by the opens of this run so far (nothing when none was).
    pub fn damage_history(&self) -> Result<Damage, RunError> {
        match self.meta.get(DAMAGE_KEY).map_err(|e| self.err(e))? {
            Some(bytes) => serde_json::from_slice(&bytes).map_err(|e| self.corrupt("damage", e)),
            None => Ok(Damage::default()),
        }
    }

    /// Moves format 1's whole job records into the spec and status trees, then drops them.
    /// Nothing else writes before this ends, so a crash midway only repeats it next time.
    fn convert_legacy_jobs(&self) -> Result<(), RunError> {
        let legacy_exists = self
            .db
            .tree_names()
            .iter()
            .any(|name| name.as_ref() == LEGACY_JOBS.as_bytes());
        if !legacy_exists {
            return Ok(());
        }
        let legacy = self.db.open_tree(LEGACY_JOBS).map_err(|e| self.err(e))?;
        let mut moved = 0usize;
        for item in legacy.iter() {
            let (key, value) = item.map_err(|e| self.err(e))?;
            let (record, _): (JobRecord, usize) =
                bincode::serde::decode_from_slice(&value, bincode_config())
                    .map_err(|e| self.corrupt("a job of format 1", e))?;
            let id = JobId::from_bytes(&key).map_err(|e| self.corrupt("a job key", e))?;
            self.put_spec(id, &record.spec)?;
            self.put_status(
                id,
                JobStatus {
                    state: record.state,
                    completions: record.completions,
                },
            )?;
            moved += 1;
        }
        self.flush()?;
        self.db.drop_tree(LEGACY_JOBS).map_err(|e| self.err(e))?;
        self.flush()?;
        tracing::info!(
            jobs = moved,
            "converted the run database to format {VERSION}"
        );
        Ok(())
    }
}

/// Opens the sled database of a run; damage sled reports (or panics on) is said as damage, a
/// held lock as [`RunError::InUse`], as the readers say it ([`crate::read::read_records`]).
fn open_database(path: &Path) -> Result<sled::Db, RunError> {
    if path.exists() && !path.is_dir() {
        return Err(RunError::DbIsFile(path.to_path_buf()));
    }
    crate::sled_guard::open(path).map_err(|damage| match damage {
        crate::sled_guard::SledDamage::Error(_) if damage.is_locked() => {
            RunError::InUse(path.to_path_buf())
        }
        other => RunError::Damaged {
            path: path.to_path_buf(),
            why: other.to_string(),
        },
    })
}

/// The run an open asks for.
struct Wanted<'a> {
    path: &'a Path,
    game: &'a Game,
    config: &'a SolverConfig,
    scope: &'a RunScope,
}

/// The manifest an open goes on with, and what it found of the stored one.
struct FoundManifest {
    manifest: Manifest,
    /// The format the database was written in.
    version: u32,
    /// True when the database lost its manifest but its ledger counts stored work.
    manifest_lost: bool,
}

impl Wanted<'_> {
    /// A new run's manifest, started at `started`.
    fn fresh(&self, started: u64) -> Manifest {
        Manifest {
            version: VERSION,
            game: self.game.name().to_string(),
            fingerprint: self.game.fingerprint().to_string(),
            config: self.config.clone(),
            started,
            updated: unix_now(),
            finished: false,
            audit_key: Some(new_audit_key()),
            scope: self.scope.clone(),
        }
    }

    /// The stored manifest checked against this run (a newer format, or a run of another
    /// game, options or scope, is refused), or a fresh one for a new run. A database whose
    /// manifest is gone but whose ledger (`key`'s) counts work is marked as having lost it.
    fn manifest(
        &self,
        stored: Option<sled::IVec>,
        ledger: &LedgerRead,
        key: &str,
    ) -> Result<FoundManifest, RunError> {
        let fresh = |manifest_lost| FoundManifest {
            manifest: self.fresh(unix_now()),
            version: VERSION,
            manifest_lost,
        };
        let Some(bytes) = stored else {
            // No manifest, but a ledger that counts stored work: sled dropped the whole log.
            return match ledger {
                LedgerRead::Found { run, tally } if *tally != Tally::default() => {
                    if run != key {
                        return Err(RunError::Damaged {
                            path: self.path.to_path_buf(),
                            why: "its manifest is lost, and its ledger is of another game or \
                                  other options"
                                .into(),
                        });
                    }
                    Ok(fresh(true))
                }
                _ => Ok(fresh(false)),
            };
        };
        let corrupt = |why: String| RunError::Corrupt {
            path: self.path.to_path_buf(),
            what: "the manifest".into(),
            why,
        };
        let mut stored: Manifest =
            serde_json::from_slice(&bytes).map_err(|e| corrupt(e.to_string()))?;
        if stored.version > VERSION {
            return Err(corrupt(format!(
                "format {} is newer than this hakase reads ({VERSION}); use the hakase that \
                 made it",
                stored.version
            )));
        }
        let (game, config, scope) = (self.game, self.config, self.scope);
        if stored.fingerprint != game.fingerprint()
            || stored.config != *config
            || stored.scope != *scope
        {
            return Err(RunError::Mismatch {
                path: self.path.to_path_buf(),
                stored: describe(
                    &stored.game,
                    &stored.fingerprint,
                    &stored.config,
                    &stored.scope,
                ),
                requested: describe(game.name(), game.fingerprint(), config, scope),
            });
        }
        if stored.audit_key.is_none() && !stored.finished {
            stored.audit_key = Some(new_audit_key());
        }
        let version = stored.version;
        Ok(FoundManifest {
            manifest: stored,
            version,
            manifest_lost: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run held by another open reads as in use to a writer and to a reader alike.
    #[test]
    fn a_locked_run_is_in_use_to_writers_and_readers() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("run");
        let held = open_database(&path).expect("first open");
        let writer = open_database(&path).expect_err("the lock is held");
        let Err(reader) = crate::read::read_records(&path) else {
            panic!("the lock is held, yet the read opened the run");
        };
        assert!(matches!(writer, RunError::InUse(_)), "{writer:?}");
        assert!(matches!(reader, RunError::InUse(_)), "{reader:?}");
        assert_eq!(writer.to_string(), reader.to_string());
        drop(held);
    }
}
