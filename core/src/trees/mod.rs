//! Strategy trees: a strategy as a tree of guesses and its evaluation ([`tree`]), the file
//! people exchange it in ([`treefile`]), the check that it plays by the rules ([`verify`]) and
//! the chart of its first two moves ([`chart`]).

pub mod chart;
pub mod tree;
pub mod treefile;
pub(crate) mod verify;
