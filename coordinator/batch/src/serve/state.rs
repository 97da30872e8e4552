//! What a batch server holds: the batch and its leases under one lock, and the fixed
//! things every call reads (the game and its table, the audit policy).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hakase_core::plural::plural;
use hakase_core::solver::SolverConfig;
use hakase_core::GameTable;
use hakase_engine::audit::AuditPolicy;
use hakase_proto::options::solver_options;
use hakase_proto::v1::{GameSpec, SolverOptions};
use hakase_runs::new_audit_key;

use crate::error::Result;
use crate::run::BatchRun;

/// Everything the services share.
pub struct Shared {
    /// The batch and its leases.
    pub state: Mutex<State>,
    /// The game the days are made in, with its feedback table.
    pub tables: Arc<GameTable>,
    /// The game as workers receive it.
    pub spec: GameSpec,
    /// The solver options workers receive (the defaults).
    pub options: SolverOptions,
    /// The batch seed.
    pub seed: u64,
    /// What names this batch to workers.
    pub run_id: String,
    /// What the audit sample is drawn from: the run id and a secret of this session.
    pub audit_seed: String,
    /// Which best-move claims are made again.
    pub policy: AuditPolicy,
    /// How long a day stays leased without a heartbeat.
    pub lease: Duration,
    /// Told true once every day is settled.
    pub done: tokio::sync::watch::Sender<bool>,
}

impl Shared {
    /// The shared part of a server of `run`, with a fresh audit secret.
    pub fn new(
        run: BatchRun,
        tables: &Arc<GameTable>,
        seed: u64,
        policy: AuditPolicy,
        lease: Duration,
        done: tokio::sync::watch::Sender<bool>,
    ) -> Result<Shared> {
        let game = &tables.game;
        let run_id = format!(
            "puzzles/{}/{seed}/{}",
            game.fingerprint(),
            run.dir.dir().display()
        );
        Ok(Shared {
            state: Mutex::new(State::new(run)),
            tables: Arc::clone(tables),
            spec: hakase_proto::game::to_spec(game),
            options: solver_options(&SolverConfig::default()),
            seed,
            audit_seed: format!("{run_id}/{}", new_audit_key()),
            run_id,
            policy,
            lease,
            done,
        })
    }
}

/// What the server holds under its lock.
pub struct State {
    /// The batch being made.
    pub run: BatchRun,
    /// Leased attempts: (day, attempt) → worker and expiry.
    pub leases: HashMap<(usize, u32), (u64, Instant)>,
    /// The last worker id handed out.
    pub next_worker: u64,
    /// Workers refused for a claim that did not check.
    pub refused: HashSet<u64>,
    /// Their own tokens, refused too.
    pub refused_tokens: HashSet<String>,
    /// Workers that registered or leased.
    pub live: HashSet<u64>,
    /// Workers told the batch is done.
    pub told: HashSet<u64>,
    /// How the claims were checked.
    pub checked: Checked,
}

impl State {
    /// The state of a batch no worker has joined yet.
    fn new(run: BatchRun) -> State {
        State {
            run,
            leases: HashMap::new(),
            next_worker: 0,
            refused: HashSet::new(),
            refused_tokens: HashSet::new(),
            live: HashSet::new(),
            told: HashSet::new(),
            checked: Checked::default(),
        }
    }
}

/// How the claims were checked, for the final line.
#[derive(Debug, Default)]
pub struct Checked {
    /// Deduction puzzles made again (all of them).
    pub deductions_remade: u64,
    /// Best-move problems taken.
    pub best_moves: u64,
    /// Of them, made again by the audit sample.
    pub best_moves_remade: u64,
    /// "No puzzle" claims made again (all of them).
    pub not_found_remade: u64,
    /// Workers refused.
    pub refused: Vec<u64>,
}

impl Checked {
    /// The final line, with the audit policy's share (`fraction`, 0–1).
    pub fn line(&self, fraction: f64) -> String {
        format!(
            "checked: {} made again here and equal; {} of {} made again (policy at {}%), the \
             rest checked by their rows; {} made again; {} refused",
            plural(
                self.deductions_remade,
                "deduction puzzle",
                "deduction puzzles"
            ),
            self.best_moves_remade,
            plural(self.best_moves, "best-move problem", "best-move problems"),
            fraction * 100.0,
            plural(
                self.not_found_remade,
                "\"no puzzle\" claim",
                "\"no puzzle\" claims"
            ),
            plural(self.refused.len() as u64, "worker", "workers")
        )
    }
}
