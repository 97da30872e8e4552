//! hakase-query: the query side. Runs loaded into memory ([`run`], [`catalog`], and
//! [`rescan`], the catalog a server rescans while it runs), the query service over them
//! ([`service`], refusing with [`error`]'s types), its gRPC adapter ([`grpc`]) and its HTTP
//! adapter ([`web`]: the JSON API and the assistant page), shared by `hakase query`, `play`,
//! `serve`, `export`, `plot`, `display`, `chart --run` and `review`.

#![warn(missing_docs)]

pub mod catalog;
pub mod error;
pub mod grpc;
pub mod input;
pub mod message;
pub mod pool;
pub mod ranking;
pub mod rescan;
pub mod review;
pub mod run;
pub mod service;
pub mod stepchart;
pub mod treerun;
pub mod view;
pub mod web;

pub use catalog::{CatalogError, RunCatalog};
pub use error::{ErrorKind, ServiceError};
pub use grpc::{query_service, serve, serve_service};
pub use rescan::{RescannedCatalog, ScanReport, Sources, TreeSource};
pub use run::RunSummary;
pub use service::{Caller, QueryService, ServiceLimits, SOLVE_TIME};
