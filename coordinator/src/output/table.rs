//! Aligned text tables: every column as wide as its widest cell in terminal columns, so
//! katakana, ♀/♂ and ASCII rows line up under their header.

use std::io::Write;

use anyhow::Result;

use super::{pad, width};

/// A table of text cells with a header row; numbers are right-aligned, text left-aligned.
#[derive(Debug, Clone)]
pub struct Table {
    header: Vec<String>,
    right: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headers; a header starting with `>` is right-aligned
    /// (the `>` is not printed).
    pub fn new(header: &[&str]) -> Self {
        Table {
            header: header
                .iter()
                .map(|h| h.trim_start_matches('>').to_string())
                .collect(),
            right: header.iter().map(|h| h.starts_with('>')).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; missing cells print empty, extra cells are kept in the last column.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Writes the header and the rows, columns two spaces apart, no trailing spaces.
    pub fn write(&self, out: &mut dyn Write) -> Result<()> {
        let columns = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| width(h)).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().take(columns).enumerate() {
                widths[i] = widths[i].max(width(cell));
            }
        }
        self.write_row(out, &self.header, &widths)?;
        for row in &self.rows {
            self.write_row(out, row, &widths)?;
        }
        Ok(())
    }

    fn write_row(&self, out: &mut dyn Write, cells: &[String], widths: &[usize]) -> Result<()> {
        let mut line = String::new();
        for (i, &w) in widths.iter().enumerate() {
            let cell = cells.get(i).map_or("", String::as_str);
            if i > 0 {
                line.push_str("  ");
            }
            if self.right[i] {
                line.push_str(&" ".repeat(w.saturating_sub(width(cell))));
                line.push_str(cell);
            } else {
                line.push_str(&pad(cell, w));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kana_and_gender_signs_line_up() {
        let mut table = Table::new(&["WORD", ">BITS"]);
        table.row(vec!["ニドラン♀".into(), "3.5".into()]);
        table.row(vec!["レントラー".into(), "4.15443".into()]);
        table.row(vec!["salet".into(), "10".into()]);
        let mut out = Vec::new();
        table.write(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "WORD           BITS\n\
             ニドラン♀       3.5\n\
             レントラー  4.15443\n\
             salet            10\n"
        );
    }
}
