//! The query side: runs loaded into memory ([`run`], [`catalog`]) and the read-only gRPC
//! service over them ([`service`]), shared by `hakase query`, `play`, `serve`, `export`,
//! `plot`, `display`, `chart --run` and `review`.

pub mod catalog;
pub mod claim;
pub mod live;
pub mod message;
pub mod ranking;
pub mod review;
pub mod run;
pub mod service;
pub mod stepchart;
pub mod treerun;
pub mod view;

#[doc(hidden)]
pub use crate::runs::first as firstrun;
pub use catalog::{CatalogError, RunCatalog};
pub use live::{LiveCatalog, ScanReport, Sources, TreeSource};
pub use run::{LoadedRun, RunError, RunSummary, DEFAULT_DATA_DIR};
pub use service::{query_service, serve, serve_live, QueryService, ServiceLimits};
