//! Process plumbing of the cluster commands, now in the serving shell ([`crate::serving`]);
//! kept under its old path for the commands that name it.

pub use crate::serving::{init_logging, last_signal, shutdown_signal, LogFormat, SIGINT, SIGTERM};
