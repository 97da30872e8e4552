//! How values are encoded in a run's database: bincode, sealed with a CRC-32 from format 3
//! on, and the compact forms of job specs and results.

use hakase_core::solver::hard::HardState;
use hakase_core::solver::{FirstGuessValue, Outcome};
use hakase_proto::job::{JobId, JobKind, JobSpec};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A job's spec as stored. Nearly every job of a run is a whole first guess, whose candidates
/// are every answer: those are left out (they were 4.6 KB of each Wordle job).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) enum StoredSpec {
    /// A job on every answer.
    EveryAnswer {
        kind: JobKind,
        guesses_left: u32,
        hard: HardState,
    },
    /// Any other job, whole.
    Whole(JobSpec),
}

/// A result as stored: the answer with its tree pre-encoded.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct StoredResult {
    pub(super) beta: u32,
    pub(super) outcome: Outcome,
    pub(super) tree: Vec<u8>,
    pub(super) nodes: u64,
    pub(super) millis: u64,
}

/// A value as stored from format 3 on: a CRC-32 of its bytes (little-endian), then the
/// bytes. sled checks its own log, but a value handed back damaged (or written by a bug or
/// another tool) must be found and recomputed, not decoded into a wrong total.
pub(super) fn seal(payload: &[u8]) -> Vec<u8> {
    let mut sealed = Vec::with_capacity(payload.len() + 4);
    sealed.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    sealed.extend_from_slice(payload);
    sealed
}

/// The bytes under a seal, if the seal holds.
pub(super) fn unseal(bytes: &[u8]) -> Option<&[u8]> {
    let (crc, payload) = bytes.split_first_chunk::<4>()?;
    (u32::from_le_bytes(*crc) == crc32fast::hash(payload)).then_some(payload)
}

/// Decodes a whole bincode value (trailing bytes are damage too).
pub(super) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    match bincode::serde::decode_from_slice(bytes, bincode_config()) {
        Ok((value, read)) if read == bytes.len() => Ok(value),
        Ok((_, read)) => Err(format!("{} bytes after the value", bytes.len() - read)),
        Err(e) => Err(e.to_string()),
    }
}

/// True when a settled first guess's key and value read back whole and agree.
pub(super) fn settled_ok(key: &[u8], payload: &[u8]) -> bool {
    key.len() == 8
        && decode::<FirstGuessValue>(payload)
            .is_ok_and(|value| key[4..] == value.guess.to_be_bytes())
}

/// True when a result's key and value read back whole.
pub(super) fn result_ok(key: &[u8], payload: &[u8]) -> bool {
    JobId::from_bytes(key).is_ok() && decode::<StoredResult>(payload).is_ok()
}

pub(super) fn bincode_config() -> bincode::config::Configuration {
    bincode::config::standard()
}
