//! The query side: runs loaded into memory ([`run`], [`catalog`]) and the read-only gRPC
//! service over them ([`service`]), shared by `hakase query`, `play`, `serve`, `export`,
//! `plot`, `display` and `chart --run`.

pub mod catalog;
pub mod run;
pub mod service;

pub use catalog::{CatalogError, RunCatalog};
pub use run::{LoadedRun, RunError, RunSummary, DEFAULT_DATA_DIR};
pub use service::{query_service, serve, QueryService, ServiceLimits};
