//! The run store's tests: opening, reopening, damage and format conversion.

use std::path::{Path, PathBuf};

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{FirstGuessValue, Node, Outcome, SolverConfig};
use hakase_core::Game;
use hakase_proto::job::{JobAnswer, JobId, JobKind, JobSpec};

use hakase_core::solver::hard::HardState;

use super::encoding::{bincode_config, unseal};
use super::layout::*;
use super::records::StoredState;
use super::*;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hakase-store-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn first_guess_job(game: &Game, guess: u32) -> JobSpec {
    JobSpec {
        kind: JobKind::Guess(guess),
        node: Node {
            candidates: game.all_answers(),
            guesses_left: 10,
            hard: HardState::default(),
        },
    }
}

/// Rewrites the manifest's format number, as an older or newer hakase would have left it.
fn set_version(db: &sled::Db, version: u32) {
    let meta = db.open_tree("meta").expect("meta");
    let bytes = meta.get("manifest").expect("read").expect("a manifest");
    let mut manifest: Manifest = serde_json::from_slice(&bytes).expect("manifest");
    manifest.version = version;
    let bytes = serde_json::to_vec(&manifest).expect("encode");
    meta.insert("manifest", bytes).expect("write");
    db.flush().expect("flush");
}

/// Rewrites the manifest as a hakase from before audit keys left it: no key, and
/// `finished` as given.
fn strip_audit_key(db: &sled::Db, finished: bool) {
    let meta = db.open_tree("meta").expect("meta");
    let bytes = meta.get("manifest").expect("read").expect("a manifest");
    let mut json: serde_json::Value = serde_json::from_slice(&bytes).expect("manifest");
    let fields = json.as_object_mut().expect("an object");
    assert!(fields.remove("audit_key").is_some(), "a new run has a key");
    fields.insert("finished".into(), finished.into());
    meta.insert("manifest", serde_json::to_vec(&json).expect("encode"))
        .expect("write");
    db.flush().expect("flush");
}

#[test]
fn a_run_keeps_a_secret_audit_key_that_workers_are_not_told() {
    let game = load_preset("pokemon-gen:1").expect("preset");
    let config = SolverConfig::default();
    let (dir_a, dir_b) = (scratch("key-a"), scratch("key-b"));
    let key = |dir: &Path| {
        let store = Store::open(dir, &game, &config).expect("store");
        let manifest = store.manifest();
        (
            manifest.audit_key.clone().expect("a key"),
            store.run_id(),
            store.audit_seed().to_string(),
        )
    };
    let (key_a, run_a, seed_a) = key(&dir_a);
    assert_eq!(key_a.len(), 32);
    assert!(key_a.bytes().all(|b| b.is_ascii_hexdigit()), "{key_a}");
    // The public run id (sent at registration) does not carry the key; the seed does.
    assert!(!run_a.contains(&key_a), "{run_a}");
    assert!(seed_a.contains(&key_a) && seed_a != run_a);
    // Kept across a restart, so a resumed run and `hakase audit` draw the same sample.
    assert_eq!(key(&dir_a).0, key_a);
    // Another run started in the same second (same run id) has another key.
    assert_ne!(key(&dir_b).0, key_a);
    for dir in [dir_a, dir_b] {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_run_from_before_audit_keys_gets_one_unless_it_is_finished() {
    let game = load_preset("pokemon-gen:1").expect("preset");
    let config = SolverConfig::default();
    for finished in [false, true] {
        let dir = scratch(&format!("legacy-key-{finished}"));
        drop(Store::open(&dir, &game, &config).expect("store"));
        {
            let db = crate::sled_guard::open(&dir).expect("sled");
            strip_audit_key(&db, finished);
        }
        let store = Store::open(&dir, &game, &config).expect("an older run opens");
        let manifest = store.manifest();
        if finished {
            // Nothing is left to sample during the run: `hakase audit` draws from the
            // public run id.
            assert_eq!(manifest.audit_key, None);
            assert_eq!(store.audit_seed(), store.run_id());
        } else {
            // The rest of an unfinished run is sampled from a secret.
            assert_eq!(manifest.audit_key.as_ref().map(String::len), Some(32));
            assert_ne!(store.audit_seed(), store.run_id());
        }
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn leases_are_read_back_with_the_specs_stored_before_them() {
    let dir = scratch("status");
    let game = load_preset("pokemon-gen:1").expect("preset");
    let config = SolverConfig::default();
    let whole = first_guess_job(&game, 3);
    let part = JobSpec {
        kind: JobKind::Node,
        node: Node {
            candidates: vec![2, 3, 5, 8],
            guesses_left: 9,
            hard: HardState::default(),
        },
    };
    let (leased, part_leased, unleased) = (JobId(7), JobId(8), JobId(9));
    let lease = JobStatus {
        state: StoredState::Leased {
            beta: 400,
            expiry: 1_234,
        },
        completions: 0,
    };
    let done = JobStatus {
        state: StoredState::Done,
        completions: 1,
    };
    {
        let store = Store::open(&dir, &game, &config).expect("store");
        store.put_spec(leased, &whole).expect("spec");
        store.put_status(leased, lease).expect("status");
        store.put_spec(part_leased, &part).expect("spec");
        store.put_status(part_leased, lease).expect("status");
        store.put_status(part_leased, done).expect("status");
        // A status whose spec never reached the disk is left to the planner.
        store.put_status(unleased, lease).expect("status");
        store.flush().expect("flush");
    }
    let store = Store::open(&dir, &game, &config).expect("store");
    let jobs = store.load_jobs().expect("jobs");
    let record = |spec: &JobSpec, status: JobStatus| JobRecord {
        spec: spec.clone(),
        state: status.state,
        completions: status.completions,
    };
    assert_eq!(
        jobs,
        vec![
            (leased, record(&whole, lease)),
            (part_leased, record(&part, done))
        ]
    );
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_format_1_database_is_converted_and_keeps_its_jobs() {
    let dir = scratch("format1");
    let game = load_preset("pokemon-gen:1").expect("preset");
    let config = SolverConfig::default();
    let old = JobRecord {
        spec: first_guess_job(&game, 5),
        state: StoredState::Leased {
            beta: 390,
            expiry: 99,
        },
        completions: 2,
    };
    drop(Store::open(&dir, &game, &config).expect("store"));
    {
        let db = crate::sled_guard::open(&dir).expect("sled");
        let legacy = db.open_tree(LEGACY_JOBS).expect("tree");
        let bytes = bincode::serde::encode_to_vec(&old, bincode_config()).expect("encode");
        legacy.insert(JobId(11).to_bytes(), bytes).expect("insert");
        set_version(&db, 1);
    }
    let store = Store::open(&dir, &game, &config).expect("a format 1 database opens");
    assert_eq!(store.load_jobs().expect("jobs"), vec![(JobId(11), old)]);
    assert_eq!(store.manifest().version, VERSION);
    let names = store.db.tree_names();
    assert!(
        !names.iter().any(|n| n.as_ref() == LEGACY_JOBS.as_bytes()),
        "the format 1 tree is dropped"
    );
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

fn bound(beta: u32) -> JobAnswer {
    JobAnswer {
        beta,
        outcome: Outcome::AtLeast(beta + 1),
        tree: None,
        nodes: u64::from(beta) * 3,
        millis: 7,
    }
}

fn settled_value(guess: u32) -> FirstGuessValue {
    FirstGuessValue {
        guess,
        outcome: Outcome::AtLeast(900 + guess),
    }
}

/// Flips one bit of the stored value under `key` in `tree`, through sled directly, as
/// damage on disk that sled did not catch would leave it.
fn flip_value(dir: &Path, tree: &str, key: &[u8], at: usize) {
    let db = crate::sled_guard::open(dir).expect("sled");
    let tree = db.open_tree(tree).expect("tree");
    let mut value = tree.get(key).expect("read").expect("a value").to_vec();
    value[at] ^= 0x10;
    tree.insert(key, value).expect("write");
    db.flush().expect("flush");
}

#[test]
fn a_flipped_byte_in_one_result_is_counted_and_the_others_load_exactly() {
    let dir = scratch("flip-result");
    let game = load_preset("pokemon-gen:1").expect("preset");
    let config = SolverConfig::default();
    let ids: Vec<JobId> = (1..=5).map(|k| JobId(k * 1_000_003)).collect();
    {
        let store = Store::open(&dir, &game, &config).expect("store");
        for (k, id) in ids.iter().enumerate() {
            store
                .put_result(*id, &bound(300 + k as u32))
                .expect("result");
        }
        store.flush().expect("flush");
    }
    // A byte of the payload of the third result (after its 4-byte checksum).
    flip_value(&dir, "results", &ids[2].to_bytes(), 5);
    let store = Store::open(&dir, &game, &config).expect("a damaged value is no error");
    let reopened = store.reopened();
    assert_eq!(
        reopened.damage,
        Damage {
            results_unreadable: 1,
            ..Damage::default()
        }
    );
    assert_eq!((reopened.results, reopened.unchecked.as_deref()), (4, None));
    let expected: Vec<(JobId, Outcome, u32)> = ids
        .iter()
        .enumerate()
        .filter(|&(k, _)| k != 2)
        .map(|(k, id)| (*id, bound(300 + k as u32).outcome, 300 + k as u32))
        .collect();
    assert_eq!(store.load_results().expect("results"), expected);
    // The damaged value is dropped (so it is recomputed) and the account is kept.
    assert_eq!(store.tree(ids[2]).expect("no value, no error"), None);
    drop(store);
    let store = Store::open(&dir, &game, &config).expect("store");
    assert_eq!(store.reopened().damage, Damage::default());
    assert_eq!(
        store.damage_history().expect("history").results_unreadable,
        1
    );
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_flipped_byte_in_a_settled_first_guess_is_counted() {
    let dir = scratch("flip-settled");
    let game = load_preset("pokemon-gen:1").expect("preset");
    let config = SolverConfig::default();
    let values: Vec<(u32, FirstGuessValue)> = (0..6).map(|g| (10, settled_value(g))).collect();
    {
        let store = Store::open(&dir, &game, &config).expect("store");
        store.put_settled(&values).expect("settled");
        store.flush().expect("flush");
    }
    let mut key = 10u32.to_be_bytes().to_vec();
    key.extend_from_slice(&4u32.to_be_bytes());
    // The checksum itself damaged this time.
    flip_value(&dir, "settled", &key, 1);
    let store = Store::open(&dir, &game, &config).expect("store");
    assert_eq!(store.reopened().damage.settled(), 1);
    assert_eq!(store.reopened().damage.settled_unreadable, 1);
    let mut expected = values.clone();
    expected.remove(4);
    assert_eq!(store.load_settled().expect("settled"), expected);
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn values_gone_from_the_log_are_counted_by_the_ledger() {
    let dir = scratch("lost");
    let game = load_preset("pokemon-gen:1").expect("preset");
    let config = SolverConfig::default();
    let values: Vec<(u32, FirstGuessValue)> = (0..5).map(|g| (10, settled_value(g))).collect();
    {
        let store = Store::open(&dir, &game, &config).expect("store");
        store.put_settled(&values).expect("settled");
        store.put_result(JobId(5), &bound(400)).expect("result");
        store.flush().expect("flush");
    }
    // As sled leaves a log whose end it dropped: two values gone, no trace in the database.
    {
        let db = crate::sled_guard::open(&dir).expect("sled");
        let settled = db.open_tree("settled").expect("tree");
        let keys: Vec<_> = settled
            .iter()
            .keys()
            .take(2)
            .map(|k| k.expect("key"))
            .collect();
        for key in keys {
            settled.remove(key).expect("remove");
        }
        db.flush().expect("flush");
    }
    let store = Store::open(&dir, &game, &config).expect("store");
    assert_eq!(
        store.reopened().damage,
        Damage {
            settled_lost: 2,
            ..Damage::default()
        }
    );
    assert_eq!((store.reopened().settled, store.reopened().results), (3, 1));
    drop(store);
    // Reported once: the ledger now counts what is left.
    let store = Store::open(&dir, &game, &config).expect("store");
    assert!(store.reopened().damage.is_empty());
    assert_eq!(store.damage_history().expect("history").settled_lost, 2);
    drop(store);
    // A database whose whole log is gone, manifest and all, is still known as this run:
    // another game's request for it is refused as damaged, not started afresh, and this
    // run's counts it all as lost.
    {
        let db = crate::sled_guard::open(&dir).expect("sled");
        for tree in ["meta", "settled", "results"] {
            db.open_tree(tree).expect("tree").clear().expect("clear");
        }
        db.flush().expect("flush");
    }
    let other = load_preset("pokemon-gen:2").expect("preset");
    let err = Store::open(&dir, &other, &config).err().expect("refused");
    assert!(matches!(err, RunError::Damaged { .. }), "{err}");
    let store = Store::open(&dir, &game, &config).expect("store");
    assert_eq!(
        store.reopened().damage,
        Damage {
            settled_lost: 3,
            results_lost: 1,
            ..Damage::default()
        }
    );
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_removed_result_lowers_the_ledger_before_it_leaves_the_disk() {
    let dir = scratch("remove");
    let game = load_preset("pokemon-gen:1").expect("preset");
    let config = SolverConfig::default();
    {
        let store = Store::open(&dir, &game, &config).expect("store");
        for k in 1..=3 {
            store.put_result(JobId(k), &bound(300)).expect("result");
        }
        store.flush().expect("flush");
        store.remove_result(JobId(2)).expect("remove");
        // sled's own flush, not the store's: the ledger was lowered already.
        store.db.flush().expect("flush");
        // Written and never flushed by the store: not counted, no alarm either way.
        store.put_result(JobId(9), &bound(300)).expect("result");
    }
    let store = Store::open(&dir, &game, &config).expect("store");
    assert!(store.reopened().damage.is_empty(), "{:?}", store.reopened());
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unreadable_ledger_is_said_not_taken_for_damage() {
    let dir = scratch("ledger");
    let game = load_preset("pokemon-gen:1").expect("preset");
    let config = SolverConfig::default();
    {
        let store = Store::open(&dir, &game, &config).expect("store");
        store.put_result(JobId(1), &bound(300)).expect("result");
        store.flush().expect("flush");
    }
    let ledger = dir.join(LEDGER_FILE);
    let text = std::fs::read_to_string(&ledger).expect("a ledger");
    std::fs::write(&ledger, text.replace("results 1", "results 7")).expect("write");
    let store = Store::open(&dir, &game, &config).expect("store");
    assert!(store.reopened().damage.is_empty());
    let why = store.reopened().unchecked.clone().expect("said");
    assert!(why.contains("fails its checksum"), "{why}");
    drop(store);
    // The open wrote a good one again.
    let store = Store::open(&dir, &game, &config).expect("store");
    assert_eq!(store.reopened().unchecked, None);
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_format_2_database_is_sealed_and_its_damage_counted() {
    let dir = scratch("format2");
    let game = load_preset("pokemon-gen:1").expect("preset");
    let config = SolverConfig::default();
    let values: Vec<(u32, FirstGuessValue)> = (0..3).map(|g| (10, settled_value(g))).collect();
    {
        let store = Store::open(&dir, &game, &config).expect("store");
        store.put_settled(&values).expect("settled");
        store.put_result(JobId(1), &bound(300)).expect("result");
        store.put_result(JobId(2), &bound(310)).expect("result");
        store.flush().expect("flush");
    }
    // As format 2 wrote them: bare values, no ledger; one result cut short.
    {
        let db = crate::sled_guard::open(&dir).expect("sled");
        for name in ["settled", "results"] {
            let tree = db.open_tree(name).expect("tree");
            for item in tree.iter() {
                let (key, value) = item.expect("item");
                let bare = unseal(&value).expect("sealed").to_vec();
                tree.insert(key, bare).expect("write");
            }
        }
        let results = db.open_tree("results").expect("tree");
        let bare = results
            .get(JobId(2).to_bytes())
            .expect("read")
            .expect("value");
        results
            .insert(JobId(2).to_bytes(), &bare[..bare.len() - 1])
            .expect("write");
        set_version(&db, 2);
    }
    std::fs::remove_file(dir.join(LEDGER_FILE)).expect("no ledger in format 2");
    let store = Store::open(&dir, &game, &config).expect("a format 2 database opens");
    assert_eq!(store.manifest().version, VERSION);
    assert_eq!(
        store.reopened().damage,
        Damage {
            results_unreadable: 1,
            ..Damage::default()
        }
    );
    let why = store.reopened().unchecked.clone().expect("said");
    assert!(why.contains("older hakase (format 2)"), "{why}");
    assert_eq!(store.load_settled().expect("settled"), values);
    assert_eq!(
        store.load_results().expect("results"),
        vec![(JobId(1), Outcome::AtLeast(301), 300)]
    );
    for item in store.results.iter().chain(store.settled.iter()) {
        let (_, value) = item.expect("item");
        assert!(unseal(&value).is_some(), "every value is sealed now");
    }
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_database_of_a_newer_format_is_refused_by_name() {
    let dir = scratch("newer");
    let game = load_preset("pokemon-gen:1").expect("preset");
    let config = SolverConfig::default();
    drop(Store::open(&dir, &game, &config).expect("store"));
    {
        let db = crate::sled_guard::open(&dir).expect("sled");
        set_version(&db, VERSION + 1);
    }
    let err = Store::open(&dir, &game, &config)
        .err()
        .expect("a newer format is refused");
    assert!(err.to_string().contains("newer"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
