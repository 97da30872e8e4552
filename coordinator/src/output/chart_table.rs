//! The one text layout of a first guess's chart, so `chart`, `chart --run`, `solve` and the
//! coordinator's report print the same columns: each pattern, the answers left, the guess
//! after it (`(won)` on the all-green row) and, for an optimal chart, the branch's total and
//! worst case.

use std::io::Write;

use anyhow::Result;

use super::Table;

/// One row of a chart as printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartLine {
    /// The pattern, in the style asked for.
    pub pattern: String,
    /// Answers left after it.
    pub count: usize,
    /// The guess after it; `None` on the winning row.
    pub second_guess: Option<String>,
    /// Guesses the branch needs in total under optimal play (optimal charts only).
    pub total: Option<u64>,
    /// The branch's worst case (optimal charts only).
    pub worst: Option<u32>,
}

/// Writes the rows under a header, aligned; the TOTAL and WORST columns appear when
/// `optimal` (the winning row leaves them empty).
pub fn write_chart_lines(out: &mut dyn Write, lines: &[ChartLine], optimal: bool) -> Result<()> {
    let mut header = vec!["PATTERN", ">LEFT", "SECOND"];
    if optimal {
        header.extend([">TOTAL", ">WORST"]);
    }
    let mut table = Table::new(&header);
    for line in lines {
        let mut cells = vec![
            line.pattern.clone(),
            line.count.to_string(),
            line.second_guess.clone().unwrap_or_else(|| "(won)".into()),
        ];
        if let (true, Some(total), Some(worst)) = (optimal, line.total, line.worst) {
            cells.extend([total.to_string(), worst.to_string()]);
        }
        table.row(cells);
    }
    table.write(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(pattern: &str, count: usize, second: Option<&str>) -> ChartLine {
        ChartLine {
            pattern: pattern.into(),
            count,
            second_guess: second.map(str::to_string),
            total: second.map(|_| 3),
            worst: second.map(|_| 2),
        }
    }

    #[test]
    fn rows_line_up_under_the_header_and_the_win_is_named() {
        let lines = [
            line("BBBBB", 12, Some("ソルロック")),
            line("GGGGG", 1, None),
        ];
        let mut out = Vec::new();
        write_chart_lines(&mut out, &lines, false).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "PATTERN  LEFT  SECOND\nBBBBB      12  ソルロック\nGGGGG       1  (won)\n"
        );
        let mut out = Vec::new();
        write_chart_lines(&mut out, &lines, true).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "PATTERN  LEFT  SECOND      TOTAL  WORST\n\
             BBBBB      12  ソルロック      3      2\n\
             GGGGG       1  (won)\n"
        );
    }
}
