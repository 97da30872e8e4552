//! Heuristics and the strategies people use: entropy and other scores of a guess
//! ([`entropy`]), one-step strategies ([`strategy`]) and the catalogue of named strategies
//! played over every answer ([`strategies`]).

pub mod entropy;
pub mod strategies;
pub mod strategy;
