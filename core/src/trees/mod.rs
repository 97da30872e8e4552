//! Strategy trees: a strategy as a tree of guesses and its evaluation ([`tree`]), the file
//! people exchange it in ([`treefile`]), the facts such a file states about its tree
//! (game, total, mode), checked against the tree ([`stated`]), the check that the tree plays
//! by the rules ([`verify`](crate::verify())) and the chart of its first two moves ([`chart`]).

pub mod chart;
pub mod stated;
pub mod tree;
pub mod treefile;
pub(crate) mod verify;
