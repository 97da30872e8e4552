//! The plain data the panel shows, independent of how the chart was computed, so that a
//! chart read from a file, a solver run or a test all render the same way.

use hakase_core::oracle::OptimalChart;
use hakase_core::trees::chart::Chart;
use hakase_core::{Cell, Game};

use hakase_core::label::Label;

/// A chart ready to be drawn: the header facts and one row per feedback of the first guess.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartView {
    /// The game's name, e.g. `pokemon-qiita2023`.
    pub game: String,
    /// The first guess the chart is for.
    pub first_guess: String,
    /// Mean guesses of the strategy behind the chart, when it was evaluated.
    pub mean_guesses: Option<f64>,
    /// What the numbers are: proven optimal, exact after this first guess, or heuristic.
    pub label: Label,
    /// The rows in any order; the layout sorts them.
    pub rows: Vec<ChartViewRow>,
}

/// One feedback of the first guess.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartViewRow {
    /// The feedback, one cell per letter of the first guess.
    pub cells: Vec<Cell>,
    /// How many answers show this feedback.
    pub remaining: usize,
    /// What to guess next; `None` on the winning row.
    pub second_guess: Option<String>,
    /// Guesses over the row's answers counted from the start, when the chart knows them.
    pub total: Option<u64>,
    /// Most guesses any of the row's answers needs, counted from the start.
    pub worst: Option<u32>,
}

impl ChartViewRow {
    /// True for the all-green row: the first guess was the answer.
    pub fn is_win(&self) -> bool {
        !self.cells.is_empty() && self.cells.iter().all(|&c| c == Cell::Green)
    }

    /// Mean guesses of the row's answers, counted from the start, when the total is known.
    pub fn mean(&self) -> Option<f64> {
        self.total
            .map(|total| total as f64 / self.remaining.max(1) as f64)
    }
}

impl ChartView {
    /// Copies what the panel needs out of a core chart: names instead of ids, counts
    /// instead of candidate lists.
    pub fn from_chart(game: &Game, chart: &Chart, mean: Option<f64>, label: Label) -> ChartView {
        let len = game
            .guesses()
            .get(chart.first as usize)
            .map_or(0, |word| word.len());
        ChartView {
            game: game.name().to_string(),
            first_guess: game.guess_text(chart.first).to_string(),
            mean_guesses: mean,
            label,
            rows: chart
                .rows
                .iter()
                .map(|row| ChartViewRow {
                    cells: row.pattern.cells(len),
                    remaining: row.candidates.len(),
                    second_guess: row.second.map(|g| game.guess_text(g).to_string()),
                    total: None,
                    worst: None,
                })
                .collect(),
        }
    }

    /// The view of a chart under the optimal strategy: the plain chart plus each row's total
    /// and worst case, and the mean over all answers.
    pub fn from_optimal(game: &Game, chart: &OptimalChart, label: Label) -> ChartView {
        let mean = chart.total as f64 / game.answers().len().max(1) as f64;
        let mut view = ChartView::from_chart(game, &chart.to_chart(), Some(mean), label);
        for (row, optimal) in view.rows.iter_mut().zip(&chart.rows) {
            row.total = Some(optimal.total);
            row.worst = Some(optimal.worst);
        }
        view
    }
}
