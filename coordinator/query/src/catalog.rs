//! The runs a query server answers for, loaded once and shared read-only by every request.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use thiserror::Error;

use super::run::RunSummary;
use hakase_runs::{self as run, LoadedRun, RunError};

/// Why a request's run could not be picked.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CatalogError {
    /// No run has that name.
    #[error("no run named {name:?} (available: {available})")]
    Unknown {
        /// The name asked for.
        name: String,
        /// The names on offer.
        available: String,
    },
    /// No name was given and there is more than one run.
    #[error("several runs are served; name one of: {0}")]
    Ambiguous(String),
    /// Nothing is served.
    #[error("no runs are loaded")]
    Empty,
}

/// Loaded runs by name.
#[derive(Default, Clone)]
pub struct RunCatalog {
    runs: BTreeMap<String, Arc<LoadedRun>>,
}

impl RunCatalog {
    /// A catalog of the given runs; a name seen twice keeps the first.
    pub fn new(runs: impl IntoIterator<Item = LoadedRun>) -> RunCatalog {
        RunCatalog::from_shared(runs.into_iter().map(Arc::new))
    }

    /// A catalog of runs already shared (a rescan keeps the unchanged ones).
    pub fn from_shared(runs: impl IntoIterator<Item = Arc<LoadedRun>>) -> RunCatalog {
        let mut map = BTreeMap::new();
        for run in runs {
            map.entry(run.name.clone()).or_insert(run);
        }
        RunCatalog { runs: map }
    }

    /// The names served, in order.
    pub fn names(&self) -> Vec<String> {
        self.runs.keys().cloned().collect()
    }

    /// The runs, by name.
    pub fn runs(&self) -> impl Iterator<Item = &Arc<LoadedRun>> {
        self.runs.values()
    }

    /// One run directory.
    pub fn single(path: &Path) -> Result<RunCatalog, RunError> {
        Ok(RunCatalog::new([run::load_path(path)?]))
    }

    /// The run called `name`; an empty name picks the only run.
    pub fn get(&self, name: &str) -> Result<Arc<LoadedRun>, CatalogError> {
        let names = || self.names().join(", ");
        if name.is_empty() {
            return match self.runs.len() {
                0 => Err(CatalogError::Empty),
                1 => self
                    .runs
                    .values()
                    .next()
                    .cloned()
                    .ok_or(CatalogError::Empty),
                _ => Err(CatalogError::Ambiguous(names())),
            };
        }
        self.runs
            .get(name)
            .cloned()
            .ok_or_else(|| CatalogError::Unknown {
                name: name.to_string(),
                available: names(),
            })
    }

    /// Summaries of every run, by name.
    pub fn summaries(&self) -> Vec<RunSummary> {
        self.runs.values().map(|r| RunSummary::of(r)).collect()
    }

    /// Number of runs.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// True when no run is loaded.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }
}
