//! Where things go on the 212 × 104 landscape page, and how the rows are split into pages.
//!
//! ```text
//!  y 0..16   レントラー  pokemon-qiita2023                     2/13
//!                        mean 3.512 heuristic
//!  y 17      ───────────────────────────────────────────────── (black rule)
//!  y 19..90  ■▣■■■   42 ガルーラ              3.64   5   six rows of 12 px
//!  y 95..103 ■ green ▣ yellow ■ gray       guesses  avg max   (the legend)
//! ```
//!
//! Each row shows the five hint cells (the tiles of [`crate::tile`]: gray black, green
//! colour, yellow a hatched colour frame), how many answers remain, right-aligned, the second
//! guess, and in the right third the mean and most guesses of the row's answers, counted from
//! the start (when the chart knows them). Rows are sorted by remaining answers, most first;
//! ties keep pattern order, so the all-gray row leads among equals. The all-green row is
//! left out: it only says "you won" and would take a line that a real branch needs. Every
//! page repeats the header and the legend and shows its number as `page/pages` at the top
//! right.

use embedded_graphics::prelude::Point;

use crate::error::DeviceError;
use crate::font::{NAMES, SMALL};
use crate::frame::{Frame, Ink, WIDTH};
use crate::tile::{draw_legend, draw_tile, fill};
use crate::view::{ChartView, ChartViewRow};
use hakase_core::label::Label;

/// Rows that fit between the header and the legend at 12 px per row.
pub const ROWS_PER_PAGE: usize = 6;

const FIRST_ROW_TOP: i32 = 19;
const ROW_HEIGHT: i32 = 12;
const CELL_SIZE: i32 = 10;
const CELL_PITCH: i32 = 12;
const CELL_LEFT: i32 = 2;
const COUNT_RIGHT: i32 = 86;
const GUESS_LEFT: i32 = 90;
const RULE_Y: i32 = 17;
/// Right edges of the right third's two columns: mean and most guesses of the row.
const MEAN_RIGHT: i32 = 189;
const WORST_RIGHT: i32 = 210;
/// Baseline of the legend at the foot of the page.
const LEGEND_BASELINE: i32 = 101;

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
    draw_foot(&mut frame, view)?;
    Ok(frame)
}

/// The legend of the tiles and, when the rows carry them, the heads of the right third's
/// columns.
fn draw_foot(frame: &mut Frame, view: &ChartView) -> Result<(), DeviceError> {
    draw_legend(frame, CELL_LEFT, LEGEND_BASELINE)?;
    if view.rows.iter().any(|r| r.total.is_some()) {
        let avg = SMALL.draw_right(
            "avg",
            Point::new(MEAN_RIGHT, LEGEND_BASELINE),
            Ink::Black,
            frame,
        )?;
        SMALL.draw_right(
            "max",
            Point::new(WORST_RIGHT, LEGEND_BASELINE),
            Ink::Black,
            frame,
        )?;
        SMALL.draw_right(
            "guesses",
            Point::new(MEAN_RIGHT - avg - 4, LEGEND_BASELINE),
            Ink::Black,
            frame,
        )?;
    }
    Ok(())
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
    for (i, &cell) in row.cells.iter().enumerate() {
        let x = CELL_LEFT + CELL_PITCH * i as i32;
        draw_tile(frame, x, top, CELL_SIZE, cell);
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
    if let (Some(mean), Some(worst)) = (row.mean(), row.worst) {
        let small = Point::new(MEAN_RIGHT, baseline - 1);
        SMALL.draw_right(&format!("{mean:.2}"), small, Ink::Black, frame)?;
        SMALL.draw_right(
            &worst.to_string(),
            Point::new(WORST_RIGHT, small.y),
            Ink::Black,
            frame,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hakase_core::Cell;

    fn row(cells: &[Cell], remaining: usize, second: Option<&str>) -> ChartViewRow {
        ChartViewRow {
            cells: cells.to_vec(),
            remaining,
            second_guess: second.map(str::to_string),
            total: None,
            worst: None,
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
    fn pages_hold_six_rows_and_an_empty_chart_has_one_page() {
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
    fn gray_is_black_green_is_colour_yellow_is_a_hatched_frame() {
        let v = view(vec![row(
            &[Cell::Green, Cell::Yellow, Cell::Gray],
            2,
            Some("ピッピ"),
        )]);
        let frame = render_page_number(&v, 1).unwrap();
        let top = FIRST_ROW_TOP as u32;
        let left = CELL_LEFT as u32;
        // Green: solid colour.
        assert_eq!(frame.pixel(left + 4, top + 4), Ink::Colour);
        // Yellow: a two-pixel colour frame around a checker.
        assert_eq!(frame.pixel(left + 12, top + 4), Ink::Colour);
        assert_eq!(frame.pixel(left + 13, top + 4), Ink::Colour);
        assert_eq!(frame.pixel(left + 12 + 3, top + 4), Ink::Colour);
        assert_eq!(frame.pixel(left + 12 + 4, top + 4), Ink::White);
        // Gray: solid black, like the ⬛ of a shared result.
        assert_eq!(frame.pixel(left + 24, top + 4), Ink::Black);
        assert_eq!(frame.pixel(left + 24 + 4, top + 4), Ink::Black);
        assert_eq!(frame.pixel(left + 24 + 10, top + 4), Ink::White);
    }

    /// The inked pixels of a rectangle, to tell whether something is drawn there.
    fn inked(frame: &Frame, xs: std::ops::Range<u32>, ys: std::ops::Range<u32>) -> usize {
        ys.flat_map(|y| xs.clone().map(move |x| (x, y)))
            .filter(|&(x, y)| frame.pixel(x, y) != Ink::White)
            .count()
    }

    #[test]
    fn every_page_has_the_legend_in_the_panel_inks() {
        let rows = (0..8)
            .map(|i| row(&[Cell::Gray; 5], i + 1, Some("ピカチュウ")))
            .collect();
        for frame in render_pages(&view(rows)).unwrap() {
            let y = LEGEND_BASELINE as u32 - 4;
            // Tiles at x = 2, 41 and 85: green, yellow, gray, each followed by its word.
            assert_eq!(frame.pixel(2 + 3, y), Ink::Colour);
            assert_eq!(frame.pixel(41, y), Ink::Colour);
            assert_eq!(frame.pixel(41 + 3, y), Ink::White);
            assert_eq!(frame.pixel(85 + 3, y), Ink::Black);
            assert!(inked(&frame, 11..36, 95..104) > 20, "the word green");
            assert!(inked(&frame, 94..114, 95..104) > 15, "the word gray");
        }
    }

    #[test]
    fn the_right_third_shows_mean_and_worst_when_known() {
        let mut known = row(&[Cell::Gray; 5], 4, Some("ピッピ"));
        known.total = Some(14);
        known.worst = Some(5);
        assert_eq!(known.mean(), Some(3.5));
        let with = render_page_number(&view(vec![known]), 1).unwrap();
        let without =
            render_page_number(&view(vec![row(&[Cell::Gray; 5], 4, Some("ピッピ"))]), 1).unwrap();
        let right_third = |frame: &Frame| inked(frame, 160..212, FIRST_ROW_TOP as u32..31);
        let foot = |frame: &Frame| inked(frame, 150..212, 95..104);
        assert_eq!(right_third(&without), 0);
        assert_eq!(foot(&without), 0);
        assert!(right_third(&with) > 20, "3.50 and 5 are drawn");
        assert!(foot(&with) > 20, "the columns are named");
        // "5" ends at the right edge of the worst column.
        assert!(inked(&with, WORST_RIGHT as u32 - 5..WORST_RIGHT as u32, 19..31) > 0);
    }
}
