//! Jobs: content-addressed subproblems of the search, and what a worker proves about them.

use std::fmt;

use hakase_core::rules::word::BOARD;
use hakase_core::solver::hard::HardState;
use hakase_core::solver::{Node, Outcome, SolverConfig, INFEASIBLE};
use hakase_core::trees::tree::Tree;
use hakase_core::{AnswerId, GuessId};
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::error::ProtoError;
use crate::v1;

/// The content address of a subproblem: a 128-bit hash of the game fingerprint, the solver
/// configuration and the subproblem itself, but not the cutoff, so every request for the
/// same subproblem maps to one stored result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct JobId(pub u128);

impl JobId {
    /// The 16 big-endian bytes used on the wire and as sled keys.
    pub fn to_bytes(self) -> [u8; 16] {
        self.0.to_be_bytes()
    }

    /// Reads the wire form.
    pub fn from_bytes(bytes: &[u8]) -> Result<JobId, ProtoError> {
        let array: [u8; 16] = bytes
            .try_into()
            .map_err(|_| ProtoError::invalid("job_id", "must be 16 bytes"))?;
        Ok(JobId(u128::from_be_bytes(array)))
    }

    /// Ids as a repeated `bytes` field carries them.
    pub fn list_to_wire<'a>(ids: impl IntoIterator<Item = &'a JobId>) -> Vec<Vec<u8>> {
        ids.into_iter().map(|id| id.to_bytes().to_vec()).collect()
    }

    /// The well-formed ids of a repeated `bytes` field from the other side, for lists that
    /// only name jobs to drop: a malformed entry names no job held here.
    pub fn list_from_wire(field: &[Vec<u8>]) -> Vec<JobId> {
        field
            .iter()
            .filter_map(|bytes| JobId::from_bytes(bytes).ok())
            .collect()
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

/// What a job asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum JobKind {
    /// The value of the node (a first-move job: a part after a first guess).
    Node,
    /// The value of playing this guess at the node (a whole first-guess job).
    Guess(GuessId),
    /// The least value over the guesses at positions `from..to` of the node's search order
    /// ([`hakase_core::solver::Solver::guess_order`]): a second-move job over a run of second
    /// guesses, so that the guesses of one huge part are shared among workers.
    Slice {
        /// The first position.
        from: u32,
        /// One past the last position.
        to: u32,
    },
}

/// A subproblem, without its cutoff.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct JobSpec {
    /// Node or guess evaluation.
    pub kind: JobKind,
    /// The candidate set, guesses left and hard-mode state.
    pub node: Node,
}

impl JobSpec {
    /// The content address of this subproblem in a run of `fingerprint` under `config`.
    pub fn id(&self, fingerprint: &str, config: &SolverConfig) -> JobId {
        let mut h = Xxh3::new();
        h.update(b"hakase-job-v1\0");
        h.update(fingerprint.as_bytes());
        h.update(&[0, config.mode as u8]);
        h.update(&config.top_k.map_or(0u64, |k| k as u64 + 1).to_le_bytes());
        match self.kind {
            JobKind::Node => h.update(&[1]),
            JobKind::Guess(g) => {
                h.update(&[2]);
                h.update(&g.to_le_bytes());
            }
            JobKind::Slice { from, to } => {
                h.update(&[3]);
                h.update(&from.to_le_bytes());
                h.update(&to.to_le_bytes());
            }
        }
        h.update(&self.node.guesses_left.to_le_bytes());
        for green in self.node.hard.greens {
            h.update(&[u8::from(green.is_some()), green.unwrap_or(0)]);
        }
        for &(letter, copies) in &self.node.hard.at_least {
            h.update(&[letter, copies]);
        }
        h.update(&[0xFF]);
        for &a in &self.node.candidates {
            h.update(&a.to_le_bytes());
        }
        JobId(h.digest128())
    }

    /// The wire form, with cutoff `beta`.
    pub fn to_proto(&self, id: JobId, beta: u32) -> v1::Job {
        let (kind, guess, (slice_from, slice_to)) = match self.kind {
            JobKind::Node => (v1::JobKind::Node, 0, (0, 0)),
            JobKind::Guess(g) => (v1::JobKind::Guess, g, (0, 0)),
            JobKind::Slice { from, to } => (v1::JobKind::Slice, 0, (from, to)),
        };
        v1::Job {
            id: id.to_bytes().to_vec(),
            kind: kind as i32,
            candidates: self.node.candidates.clone(),
            guesses_left: self.node.guesses_left,
            hard: Some(hard_to_proto(&self.node.hard)),
            guess,
            beta,
            first_index: 0,
            recheck: false,
            slice_from,
            slice_to,
        }
    }

    /// Reads and validates a job for a game of `answers` answers and `guesses` guesses,
    /// returning its id, spec and cutoff.
    pub fn from_proto(
        job: &v1::Job,
        answers: usize,
        guesses: usize,
    ) -> Result<(JobId, JobSpec, u32), ProtoError> {
        let id = JobId::from_bytes(&job.id)?;
        let kind = match v1::JobKind::try_from(job.kind) {
            Ok(v1::JobKind::Node) => JobKind::Node,
            Ok(v1::JobKind::Guess) => {
                if job.guess as usize >= guesses {
                    return Err(ProtoError::invalid("guess", "out of range"));
                }
                JobKind::Guess(job.guess)
            }
            Ok(v1::JobKind::Slice) => {
                // A node's search order holds each allowed guess at most once.
                if job.slice_from >= job.slice_to || job.slice_to as usize > guesses {
                    return Err(ProtoError::invalid(
                        "slice",
                        "not a run of positions in the search order",
                    ));
                }
                JobKind::Slice {
                    from: job.slice_from,
                    to: job.slice_to,
                }
            }
            _ => return Err(ProtoError::invalid("kind", "unknown job kind")),
        };
        let candidates = checked_candidates(&job.candidates, answers)?;
        if job.guesses_left > 64 {
            return Err(ProtoError::invalid("guesses_left", "more than 64"));
        }
        let hard = match &job.hard {
            Some(h) => hard_from_proto(h)?,
            None => HardState::default(),
        };
        let spec = JobSpec {
            kind,
            node: Node {
                candidates,
                guesses_left: job.guesses_left,
                hard,
            },
        };
        Ok((id, spec, job.beta.min(INFEASIBLE)))
    }
}

/// Checks a candidate list: strictly ascending answer ids of this game.
fn checked_candidates(list: &[u32], answers: usize) -> Result<Vec<AnswerId>, ProtoError> {
    if list.len() > answers {
        return Err(ProtoError::TooLarge {
            field: "candidates",
            len: list.len(),
            max: answers,
        });
    }
    if list.is_empty() {
        return Err(ProtoError::invalid("candidates", "empty"));
    }
    if list.windows(2).any(|w| w[0] >= w[1]) {
        return Err(ProtoError::invalid("candidates", "not strictly ascending"));
    }
    if list.last().is_some_and(|&a| a as usize >= answers) {
        return Err(ProtoError::invalid("candidates", "answer id out of range"));
    }
    Ok(list.to_vec())
}

fn hard_to_proto(hard: &HardState) -> v1::HardState {
    v1::HardState {
        greens: hard
            .greens
            .iter()
            .map(|g| g.map_or(0, |l| u32::from(l) + 1))
            .collect(),
        at_least: hard
            .at_least
            .iter()
            .map(|&(letter, copies)| v1::LetterCount {
                letter: u32::from(letter),
                copies: u32::from(copies),
            })
            .collect(),
    }
}

fn hard_from_proto(hard: &v1::HardState) -> Result<HardState, ProtoError> {
    let mut out = HardState::default();
    if hard.greens.len() > BOARD {
        return Err(ProtoError::invalid("hard.greens", "longer than the board"));
    }
    for (slot, &g) in out.greens.iter_mut().zip(&hard.greens) {
        *slot = match g {
            0 => None,
            1..=256 => Some((g - 1) as u8),
            _ => return Err(ProtoError::invalid("hard.greens", "letter out of range")),
        };
    }
    if hard.at_least.len() > 256 {
        return Err(ProtoError::invalid("hard.at_least", "too many letters"));
    }
    for c in &hard.at_least {
        let (Ok(letter), Ok(copies)) = (u8::try_from(c.letter), u8::try_from(c.copies)) else {
            return Err(ProtoError::invalid("hard.at_least", "value out of range"));
        };
        out.at_least.push((letter, copies));
    }
    if out.at_least.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err(ProtoError::invalid("hard.at_least", "not sorted by letter"));
    }
    Ok(out)
}

/// What a worker proved about a job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobAnswer {
    /// The cutoff it was solved with.
    pub beta: u32,
    /// Exact value and guess, or a lower bound ≥ `beta`.
    pub outcome: Outcome,
    /// The optimal subtree, for exact answers.
    pub tree: Option<Tree>,
    /// Search nodes scanned.
    pub nodes: u64,
    /// Milliseconds spent.
    pub millis: u64,
}

impl JobAnswer {
    /// True when this answer settles a request with cutoff `beta`: exact, or a bound at least
    /// as high.
    pub fn answers(&self, beta: u32) -> bool {
        match self.outcome {
            Outcome::Exact { .. } => true,
            Outcome::AtLeast(bound) => bound >= beta,
        }
    }

    /// The wire form.
    pub fn to_proto(&self, id: JobId) -> v1::JobResult {
        let (exact, value, guess) = match self.outcome {
            Outcome::Exact { value, guess } => (true, value, guess),
            Outcome::AtLeast(bound) => (false, bound, 0),
        };
        v1::JobResult {
            job_id: id.to_bytes().to_vec(),
            beta: self.beta,
            exact,
            value,
            guess,
            tree: self
                .tree
                .as_ref()
                .map(crate::tree::encode)
                .unwrap_or_default(),
            nodes: self.nodes,
            millis: self.millis,
        }
    }

    /// Reads a result for a game of `guesses` guesses; exact results must carry a tree.
    pub fn from_proto(
        result: &v1::JobResult,
        guesses: usize,
    ) -> Result<(JobId, JobAnswer), ProtoError> {
        let id = JobId::from_bytes(&result.job_id)?;
        let beta = result.beta.min(INFEASIBLE);
        let (outcome, tree) = if result.exact {
            if result.guess as usize >= guesses {
                return Err(ProtoError::invalid("guess", "out of range"));
            }
            if result.value >= INFEASIBLE {
                return Err(ProtoError::invalid("value", "exact value out of range"));
            }
            let tree = crate::tree::decode(&result.tree, guesses)?;
            if tree.guess != result.guess {
                return Err(ProtoError::invalid(
                    "tree",
                    "root guess differs from the result's",
                ));
            }
            (
                Outcome::Exact {
                    value: result.value,
                    guess: result.guess,
                },
                Some(tree),
            )
        } else {
            if result.value < beta {
                return Err(ProtoError::invalid("value", "bound below the cutoff"));
            }
            (Outcome::AtLeast(result.value.min(INFEASIBLE)), None)
        };
        Ok((
            id,
            JobAnswer {
                beta,
                outcome,
                tree,
                nodes: result.nodes,
                millis: result.millis,
            },
        ))
    }
}
