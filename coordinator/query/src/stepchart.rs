//! The chart of the current step of a game in progress: for the optimal next guess, each
//! pattern it can show, how many answers each leaves and the guess after it. Before any guess
//! it is the chart of the run's first guess; the web page shows it under the suggestion.
//!
//! Off the stored tree, the step was solved exactly on the spot (bounded by the service's
//! solve limit); every row is read from that solved subtree, so those rows are exact too and
//! cost no further solve. The chart's `source` says "computed".
//!
//! A chart of a chosen first guess ([`FirstChart`]) has the same shape, and adds what the
//! `Chart` RPC also reports: the strategy's total and worst, and what the run may claim.

use hakase_core::oracle::{NextGuess, OptimalChart, Oracle, QueryError, Source};
use hakase_core::rules::history::{partition, Step};
use hakase_core::trees::tree::Tree;
use hakase_core::PatternStyle;
use serde::Serialize;

use hakase_runs::LoadedRun;

/// One pattern of the step's guess.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepRow {
    /// The pattern in the game's notation.
    pub pattern: String,
    /// The pattern in digits (0 gray, 1 yellow, 2 green).
    pub digits: String,
    /// Answers left after it.
    pub count: usize,
    /// The optimal guess after it (`None` on the winning row): from the stored tree, or from
    /// the subtree solved on the spot when the history left it.
    pub next_guess: Option<String>,
    /// Guesses over the row's answers counted from this step's guess (rows add up to the
    /// step's total); `None` when `next_guess` is unknown.
    pub total: Option<u64>,
    /// Most guesses any of the row's answers needs from this step's guess on.
    pub worst: Option<u32>,
}

/// The chart of one step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepChart {
    /// Steps played before it.
    pub steps: usize,
    /// The step's guess (the optimal next guess); `None` once won or when no strategy wins.
    pub guess: Option<String>,
    /// Answers possible before the guess.
    pub count: usize,
    /// One row per pattern, in pattern order (灰灰灰灰灰 first).
    pub rows: Vec<StepRow>,
    /// The stored tree, or an on-the-spot solve when the history left it.
    pub source: Source,
}

/// The chart of a first guess over every answer, under optimal play from that guess on.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstChart {
    /// The chart in the step chart's shape: no step played, every answer, and every row's
    /// total and worst known.
    pub chart: StepChart,
    /// Guesses over all answers.
    pub total: u64,
    /// Most guesses any answer needs.
    pub worst: u32,
    /// The run's result is a proof.
    pub proven: bool,
    /// What the run may claim.
    pub claim: String,
}

impl FirstChart {
    /// The chart `chart` of `run`'s game, in words.
    pub fn new(run: &LoadedRun, chart: &OptimalChart) -> FirstChart {
        let game = &run.game;
        let len = game.guesses()[chart.first as usize].len();
        let rows = chart
            .rows
            .iter()
            .map(|r| StepRow {
                pattern: r.row.pattern.format(len, game.style()),
                digits: r.row.pattern.format(len, PatternStyle::Digits),
                count: r.row.candidates.len(),
                next_guess: r.row.second.map(|g| game.guess_text(g).to_string()),
                total: Some(r.total),
                worst: Some(r.worst),
            })
            .collect();
        FirstChart {
            chart: StepChart {
                steps: 0,
                guess: Some(game.guess_text(chart.first).to_string()),
                count: game.answers().len(),
                rows,
                source: chart.source,
            },
            total: chart.total,
            worst: chart.worst,
            proven: run.proven_outright(),
            claim: run.claim(),
        }
    }
}

/// The chart of the step after `steps`, given the answer `next` the oracle gave for them and,
/// off the stored tree, the subtree it solved (see [`Oracle::next_guess_with_tree`]).
pub fn step_chart(
    run: &LoadedRun,
    oracle: &Oracle<'_>,
    steps: &[Step],
    next: &NextGuess,
    solved: Option<&Tree>,
) -> Result<StepChart, QueryError> {
    let game = &run.game;
    let mut chart = StepChart {
        steps: steps.len(),
        guess: next.guess.map(|g| game.guess_text(g).to_string()),
        count: next.candidates.len(),
        rows: Vec::new(),
        source: next.source,
    };
    let Some(guess) = next.guess.filter(|_| !next.won) else {
        return Ok(chart);
    };
    let len = game.guesses()[guess as usize].len();
    let mut after = steps.to_vec();
    for (pattern, part) in partition(&run.table, guess, &next.candidates) {
        let n = part.len();
        let mut row = StepRow {
            pattern: pattern.format(len, game.style()),
            digits: pattern.format(len, PatternStyle::Digits),
            count: n,
            next_guess: None,
            total: None,
            worst: None,
        };
        if pattern.is_win() {
            row.total = Some(1);
            row.worst = Some(1);
        } else if next.source == Source::Tree {
            after.push(Step { guess, pattern });
            let child = oracle.next_guess(&after)?;
            after.pop();
            row.next_guess = child.guess.map(|g| game.guess_text(g).to_string());
            row.total = child.total.map(|t| t + n as u64);
            row.worst = child.worst.map(|w| w + 1);
        } else if let Some((_, child)) =
            solved.and_then(|t| t.branches.iter().find(|(p, _)| *p == pattern))
        {
            let eval = child.evaluate(game, &run.table, &part);
            row.next_guess = Some(game.guess_text(child.guess).to_string());
            row.total = Some(eval.total + n as u64);
            row.worst = Some(eval.worst + 1);
        }
        chart.rows.push(row);
    }
    Ok(chart)
}
