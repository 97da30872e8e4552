//! The library side of the `hakase` command: the run directory ([`runs`]), the distributed
//! search ([`cluster`]), the query service ([`query`]) with its HTTP adapter ([`web`]), the
//! serving shell every server runs on ([`serving`]) and the printing the commands share
//! ([`output`]).

#![warn(missing_docs)]

pub mod cluster;
pub mod output;
pub mod query;
pub mod runs;
pub mod serving;
pub mod web;
