//! The chart: for one first guess, every feedback, how many answers remain, and what to guess
//! next. It is what players print and what the e-paper panel shows.

use serde::Serialize;

use crate::rules::game::{AnswerId, Game, GuessId};
use crate::rules::history::partition;
use crate::rules::pattern::Pattern;
use crate::rules::table::FeedbackTable;

/// One line of the chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChartRow {
    /// The feedback of the first guess.
    pub pattern: Pattern,
    /// Answers that show this feedback.
    pub candidates: Vec<AnswerId>,
    /// The second guess; `None` on the winning row.
    pub second: Option<GuessId>,
}

/// A first guess and its rows in pattern order (灰灰灰灰灰 first).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chart {
    /// The first guess.
    pub first: GuessId,
    /// One row per feedback the answers can show, the winning one included.
    pub rows: Vec<ChartRow>,
}

impl Chart {
    /// Builds the chart of `first` over all answers, asking `second` for each non-winning part.
    pub fn build(
        game: &Game,
        table: &FeedbackTable,
        first: GuessId,
        second: &dyn Fn(&[AnswerId]) -> GuessId,
    ) -> Chart {
        let rows = partition(table, first, &game.all_answers())
            .into_iter()
            .map(|(pattern, candidates)| ChartRow {
                second: (!pattern.is_win()).then(|| second(&candidates)),
                pattern,
                candidates,
            })
            .collect();
        Chart { first, rows }
    }
}
