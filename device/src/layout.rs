//! Where things go on the 212 × 104 landscape page, and how the rows are split into pages.
//!
//! ```text
//!  y 0..16   レントラー  pokemon-qiita2023             2/13
//!                        mean 3.512 heuristic
//!  y 17      ───────────────────────────────────────────── (black rule)
//!  y 19..103 ■□■□□   42 ガルーラ        seven rows of 12 px
//! ```
//!
//! Each row shows the five hint cells (green = filled black, yellow = filled colour,
//! gray = black outline), how many answers remain, right-aligned, and the second guess.
//! Rows are sorted by remaining answers, most first; ties keep pattern order, so the
//! all-gray row leads among equals. The all-green row is left out: it only says "you won"
//! and would take a line that a real branch needs. Every page repeats the header and shows
//! its number as `page/pages` at the top right.

use embedded_graphics::prelude::Point;
use hakase_core::Cell;

use crate::error::DeviceError;
use crate::font::{NAMES, SMALL};
use crate::frame::{Frame, Ink, WIDTH};
use crate::label::Label;
use crate::view::{ChartView, ChartViewRow};

/// Rows that fit under the header at 12 px per row.
pub const ROWS_PER_PAGE: usize = 7;

const FIRST_ROW_TOP: i32 = 19;
const ROW_HEIGHT: i32 = 12;
const CELL_SIZE: i32 = 10;
const CELL_PITCH: i32 = 12;
const CELL_LEFT: i32 = 2;
const COUNT_RIGHT: i32 = 86;
const GUESS_LEFT: i32 = 90;
const RULE_Y: i32 = 17;

/// The rows the panel shows, in display order: most remaining answers first, the winning
/// row left out.
pub fn display_rows(view: &ChartView) -> Vec<&ChartViewRow> {
    let mut rows: Vec<&ChartViewRow> = view.rows.iter().filter(|r| !r.is_win()).collect();
    rows.sort_by(|a, b| {
        b.remaining
            .cmp(&a.remaining)
            .then_with(|| a.cells.cmp(&b.cells))
    });
    rows
}

/// How many pages the chart takes (at least one, even with no rows).
pub fn page_count(view: &ChartView) -> usize {
    display_rows(view).len().div_ceil(ROWS_PER_PAGE).max(1)
}

/// Renders every page of the chart.
pub fn render_pages(view: &ChartView) -> Result<Vec<Frame>, DeviceError> {
    let rows = display_rows(view);
    let pages = rows.len().div_ceil(ROWS_PER_PAGE).max(1);
    (0..pages)
        .map(|page| {
            let start = page * ROWS_PER_PAGE;
            let end = (start + ROWS_PER_PAGE).min(rows.len());
            render_page(view, &rows[start..end], page + 1, pages)
        })
        .collect()
}

/// Renders one page (1-based) of the chart.
pub fn render_page_number(view: &ChartView, page: usize) -> Result<Frame, DeviceError> {
    let rows = display_rows(view);
    let pages = rows.len().div_ceil(ROWS_PER_PAGE).max(1);
    if page == 0 || page > pages {
        return Err(DeviceError::NoSuchPage { page, pages });
    }
    let start = (page - 1) * ROWS_PER_PAGE;
    let end = (start + ROWS_PER_PAGE).min(rows.len());
    render_page(view, &rows[start..end], page, pages)
}

fn render_page(
    view: &ChartView,
    rows: &[&ChartViewRow],
    page: usize,
    pages: usize,
) -> Result<Frame, DeviceError> {
    let mut frame = Frame::blank();
    draw_header(&mut frame, view, page, pages)?;
    for (i, row) in rows.iter().enumerate() {
        let top = FIRST_ROW_TOP + ROW_HEIGHT * i as i32;
        draw_row(&mut frame, row, top)?;
    }
    Ok(frame)
}

fn draw_header(
    frame: &mut Frame,
    view: &ChartView,
    page: usize,
    pages: usize,
) -> Result<(), DeviceError> {
    let guess_width = NAMES.draw(&view.first_guess, Point::new(1, 13), Ink::Black, frame)?;
    let left = (guess_width + 5).max(64);
    SMALL.draw(&view.game, Point::new(left, 7), Ink::Black, frame)?;
    let mean = match view.mean_guesses {
        Some(mean) => format!("mean {mean:.3} "),
        None => "mean - ".to_string(),
    };
    let advance = SMALL.draw(&mean, Point::new(left, 15), Ink::Black, frame)?;
    // Colour only for a proven optimum, so the claim stands out and cannot be mistaken.
    let status = view.label.short();
    let ink = if view.label == Label::ProvenOptimal {
        Ink::Colour
    } else {
        Ink::Black
    };
    SMALL.draw(status, Point::new(left + advance, 15), ink, frame)?;
    NAMES.draw_right(
        &format!("{page}/{pages}"),
        Point::new(WIDTH as i32 - 1, 13),
        Ink::Black,
        frame,
    )?;
    fill(frame, 0, RULE_Y, WIDTH as i32, 1, Ink::Black);
    Ok(())
}

fn draw_row(frame: &mut Frame, row: &ChartViewRow, top: i32) -> Result<(), DeviceError> {
    for (i, cell) in row.cells.iter().enumerate() {
        let x = CELL_LEFT + CELL_PITCH * i as i32;
        match cell {
            Cell::Green => fill(frame, x, top, CELL_SIZE, CELL_SIZE, Ink::Black),
            Cell::Yellow => fill(frame, x, top, CELL_SIZE, CELL_SIZE, Ink::Colour),
            Cell::Gray => outline(frame, x, top, CELL_SIZE, CELL_SIZE, Ink::Black),
        }
    }
    let baseline = top + CELL_SIZE;
    NAMES.draw_right(
        &row.remaining.to_string(),
        Point::new(COUNT_RIGHT, baseline),
        Ink::Black,
        frame,
    )?;
    let guess = row.second_guess.as_deref().unwrap_or("-");
    NAMES.draw(guess, Point::new(GUESS_LEFT, baseline), Ink::Black, frame)?;
    Ok(())
}

/// Fills a rectangle (clipped to the page).
pub(crate) fn fill(frame: &mut Frame, x: i32, y: i32, width: i32, height: i32, ink: Ink) {
    for py in y..y + height {
        for px in x..x + width {
            if let (Ok(px), Ok(py)) = (u32::try_from(px), u32::try_from(py)) {
                frame.set_pixel(px, py, ink);
            }
        }
    }
}

/// Draws a rectangle's one-pixel border (clipped to the page).
pub(crate) fn outline(frame: &mut Frame, x: i32, y: i32, width: i32, height: i32, ink: Ink) {
    fill(frame, x, y, width, 1, ink);
    fill(frame, x, y + height - 1, width, 1, ink);
    fill(frame, x, y, 1, height, ink);
    fill(frame, x + width - 1, y, 1, height, ink);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[Cell], remaining: usize, second: Option<&str>) -> ChartViewRow {
        ChartViewRow {
            cells: cells.to_vec(),
            remaining,
            second_guess: second.map(str::to_string),
        }
    }

    fn view(rows: Vec<ChartViewRow>) -> ChartView {
        ChartView {
            game: "test".into(),
            first_guess: "ピカチュウ".into(),
            mean_guesses: Some(3.25),
            label: Label::ProvenOptimal,
            rows,
        }
    }

    #[test]
    fn rows_sort_by_size_then_pattern_and_drop_the_win() {
        use Cell::{Gray as G, Green as W, Yellow as Y};
        let v = view(vec![
            row(&[W, W, W, W, W], 1, None),
            row(&[Y, G, G, G, G], 5, Some("イーブイ")),
            row(&[G, G, G, G, G], 5, Some("ピッピ")),
            row(&[G, Y, G, G, G], 9, Some("ロコン")),
        ]);
        let remaining: Vec<(usize, Option<&str>)> = display_rows(&v)
            .iter()
            .map(|r| (r.remaining, r.second_guess.as_deref()))
            .collect();
        assert_eq!(
            remaining,
            vec![
                (9, Some("ロコン")),
                (5, Some("ピッピ")),
                (5, Some("イーブイ"))
            ]
        );
    }

    #[test]
    fn pages_hold_seven_rows_and_an_empty_chart_has_one_page() {
        let rows = (0..15)
            .map(|i| row(&[Cell::Gray; 5], i + 1, Some("ピカチュウ")))
            .collect();
        let v = view(rows);
        assert_eq!(page_count(&v), 3);
        assert_eq!(render_pages(&v).unwrap().len(), 3);
        assert_eq!(page_count(&view(Vec::new())), 1);
        assert!(matches!(
            render_page_number(&v, 4),
            Err(DeviceError::NoSuchPage { page: 4, pages: 3 })
        ));
        assert_eq!(
            render_page_number(&v, 2).unwrap(),
            render_pages(&v).unwrap()[1]
        );
    }

    #[test]
    fn cells_use_black_colour_and_outline() {
        let v = view(vec![row(
            &[Cell::Green, Cell::Yellow, Cell::Gray],
            2,
            Some("ピッピ"),
        )]);
        let frame = render_page_number(&v, 1).unwrap();
        let top = FIRST_ROW_TOP as u32;
        assert_eq!(frame.pixel(CELL_LEFT as u32 + 4, top + 4), Ink::Black);
        assert_eq!(frame.pixel(CELL_LEFT as u32 + 12 + 4, top + 4), Ink::Colour);
        assert_eq!(frame.pixel(CELL_LEFT as u32 + 24, top + 4), Ink::Black);
        assert_eq!(frame.pixel(CELL_LEFT as u32 + 24 + 4, top + 4), Ink::White);
    }
}
