//! One puzzle on one page: its rows as coloured tiles with the letters in them, the question
//! below.
//!
//! ```text
//!  y 0..7    Day 12  hard  best move                pokemon-today   (5 × 7 print)
//!  y 9       ─────────────────────────────────────────────────────  (black rule)
//!  y 11..78  ■▣■□□  up to four rows of 16 px tiles, 17 px apart
//!  y 78..93  the question, wrapped to two lines of small print
//!  y 95..101 ■ green ▣ yellow ■ gray                                (the legend)
//! ```
//!
//! Tiles follow the chart's code ([`crate::tile`]), the same on every page: gray = black
//! tile, green = colour tile (both with a white letter), yellow = colour frame with the
//! checker inside (black letter, haloed in white to stay legible). The legend stands at the
//! foot, where the chart has it.

use embedded_graphics::prelude::Point;
use hakase_core::Cell;

use crate::error::DeviceError;
use crate::font::{NAMES, SMALL};
use crate::frame::{Frame, Ink, WIDTH};
use crate::tile::{draw_legend, draw_tile, fill};

/// Most rows a page shows.
pub const PUZZLE_ROWS: usize = 4;

const TILE: i32 = 16;
const PITCH: i32 = 17;
const FIRST_TOP: i32 = 11;
const RULE_Y: i32 = 9;
const QUESTION_BASELINES: [i32; 2] = [84, 93];
/// Baseline of the legend at the foot of the page, as on the chart's pages.
const LEGEND_BASELINE: i32 = 101;
/// Characters of the 5 × 7 print that fit across the page.
const LINE_CHARS: usize = (WIDTH as usize - 2) / 5;

/// A puzzle ready to be drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct PuzzleView {
    /// Left of the header, e.g. `Day 12  hard  best move`.
    pub title: String,
    /// Right of the header: the game.
    pub game: String,
    /// The rows, in play order (at most [`PUZZLE_ROWS`]).
    pub rows: Vec<PuzzleViewRow>,
    /// Words listed under the rows (a best-move problem's answers left), as many as fit;
    /// the rest are counted as "+N".
    pub words: Vec<String>,
    /// The question, in plain ASCII words (wrapped to two lines; more is cut with "...").
    pub question: String,
}

/// One row: the guess's letters and their colours.
#[derive(Debug, Clone, PartialEq)]
pub struct PuzzleViewRow {
    /// The letters, one per cell.
    pub letters: Vec<char>,
    /// The colours, one per letter.
    pub cells: Vec<Cell>,
}

/// Renders the page. More rows than [`PUZZLE_ROWS`] is an error rather than a cut puzzle.
pub fn render_puzzle(view: &PuzzleView) -> Result<Frame, DeviceError> {
    if view.rows.len() > PUZZLE_ROWS {
        return Err(DeviceError::TooManyRows {
            rows: view.rows.len(),
            max: PUZZLE_ROWS,
        });
    }
    let mut frame = Frame::blank();
    SMALL.draw(&view.title, Point::new(1, 7), Ink::Black, &mut frame)?;
    SMALL.draw_right(
        &view.game,
        Point::new(WIDTH as i32 - 1, 7),
        Ink::Black,
        &mut frame,
    )?;
    fill(&mut frame, 0, RULE_Y, WIDTH as i32, 1, Ink::Black);
    for (i, row) in view.rows.iter().enumerate() {
        draw_row(&mut frame, row, FIRST_TOP + PITCH * i as i32)?;
    }
    draw_legend(&mut frame, 2, LEGEND_BASELINE)?;
    let below_rows = FIRST_TOP + PITCH * view.rows.len() as i32;
    draw_words(&mut frame, &view.words, below_rows)?;
    for (line, baseline) in wrap(&view.question, LINE_CHARS)
        .iter()
        .zip(QUESTION_BASELINES)
    {
        SMALL.draw(line, Point::new(1, baseline), Ink::Black, &mut frame)?;
    }
    Ok(frame)
}

fn draw_row(frame: &mut Frame, row: &PuzzleViewRow, top: i32) -> Result<(), DeviceError> {
    for (i, (&letter, cell)) in row.letters.iter().zip(&row.cells).enumerate() {
        let left = 2 + PITCH * i as i32;
        let ink = draw_tile(frame, left, top, TILE, *cell);
        let text = letter.to_string();
        let width = NAMES.width(&text)?;
        let at = Point::new(left + (TILE - width) / 2, top + TILE - 3);
        if *cell == Cell::Yellow {
            // A black letter on the checker needs a white halo to be read.
            for (dx, dy) in [
                (-1, 0),
                (1, 0),
                (0, -1),
                (0, 1),
                (-1, -1),
                (1, 1),
                (-1, 1),
                (1, -1),
            ] {
                NAMES.draw(&text, at + Point::new(dx, dy), Ink::White, frame)?;
            }
        }
        NAMES.draw(&text, at, ink, frame)?;
    }
    Ok(())
}

/// Lays `words` out in lines of the name face from `top` down to the question; what does not
/// fit is counted at the end as "+N".
fn draw_words(frame: &mut Frame, words: &[String], top: i32) -> Result<(), DeviceError> {
    const LINE: i32 = 13;
    const GAP: i32 = 6;
    let right = WIDTH as i32 - 2;
    let lines = ((QUESTION_BASELINES[0] - 9 - top) / LINE).max(0);
    // Place greedily: (x, line) of each word that fits.
    let mut placed: Vec<(i32, i32)> = Vec::new();
    let (mut x, mut line) = (2, 0);
    for word in words {
        let width = NAMES.width(word)?;
        if x > 2 && x + width > right {
            x = 2;
            line += 1;
        }
        if line >= lines {
            break;
        }
        placed.push((x, line));
        x += width + GAP;
    }
    // Make room for "+N" after the last word kept.
    while placed.len() < words.len() {
        let rest = format!("+{}", words.len() - placed.len());
        let Some(&(x, line)) = placed.last() else {
            break;
        };
        let end = x + NAMES.width(&words[placed.len() - 1])? + GAP;
        if end + NAMES.width(&rest)? <= right {
            NAMES.draw(
                &rest,
                Point::new(end, top + LINE * (line + 1)),
                Ink::Black,
                frame,
            )?;
            break;
        }
        placed.pop();
    }
    for (word, &(x, line)) in words.iter().zip(&placed) {
        NAMES.draw(
            word,
            Point::new(x, top + LINE * (line + 1)),
            Ink::Black,
            frame,
        )?;
    }
    Ok(())
}

/// Greedy word wrap into at most two lines of `width` characters; what does not fit ends
/// the second line with "...".
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().map_or(0, |l| l.chars().count());
        if line > 0 && line + 1 + word.chars().count() > width {
            lines.push(String::new());
        }
        if let Some(last) = lines.last_mut() {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    if lines.len() > QUESTION_BASELINES.len() {
        lines.truncate(QUESTION_BASELINES.len());
        if let Some(last) = lines.last_mut() {
            let keep: String = last.chars().take(width.saturating_sub(3)).collect();
            *last = format!("{keep}...");
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(rows: usize) -> PuzzleView {
        PuzzleView {
            title: "Day 1  easy  deduction".into(),
            game: "pokemon-today".into(),
            rows: (0..rows)
                .map(|_| PuzzleViewRow {
                    letters: "ピカチュウ".chars().collect(),
                    cells: vec![
                        Cell::Green,
                        Cell::Yellow,
                        Cell::Gray,
                        Cell::Gray,
                        Cell::Gray,
                    ],
                })
                .collect(),
            words: Vec::new(),
            question: "Exactly one answer fits these rows. Which?".into(),
        }
    }

    #[test]
    fn tiles_and_legend_look_as_on_the_chart_pages() {
        let frame = render_puzzle(&view(1)).unwrap();
        let top = FIRST_TOP as u32;
        // Corners avoid the letter strokes: green is solid colour, gray solid black, yellow
        // a colour frame with the chart's checker inside (x + y even is colour).
        assert_eq!(frame.pixel(3, top + 1), Ink::Colour);
        let yellow = 2 + 17;
        assert_eq!(frame.pixel(yellow + 1, top + 1), Ink::Colour);
        assert_eq!(frame.pixel(yellow + 2, top + 2), Ink::Colour);
        assert_eq!(frame.pixel(yellow + 3, top + 2), Ink::White);
        assert_eq!(frame.pixel(yellow + 13, top + 13), Ink::Colour);
        assert_eq!(frame.pixel(2 + 34, top + 1), Ink::Black);
        assert_eq!(frame.pixel(2 + 34, top + 15), Ink::Black);
        // The legend at the foot, where the chart has it: green, yellow, gray at x = 2, 41
        // and 85, the same pixels as a chart page's.
        let y = LEGEND_BASELINE as u32 - 4;
        assert_eq!(frame.pixel(2 + 3, y), Ink::Colour);
        assert_eq!(frame.pixel(41, y), Ink::Colour);
        assert_eq!(frame.pixel(41 + 3, y), Ink::White);
        assert_eq!(frame.pixel(41 + 4, y), Ink::Colour);
        assert_eq!(frame.pixel(85 + 3, y), Ink::Black);
        // Nothing is drawn right of the rows any more.
        let right = (150..212)
            .flat_map(|x| (top..top + 30).map(move |y| (x, y)))
            .filter(|&(x, y)| frame.pixel(x, y) != Ink::White)
            .count();
        assert_eq!(right, 0);
    }

    #[test]
    fn too_many_rows_are_refused() {
        assert!(render_puzzle(&view(PUZZLE_ROWS)).is_ok());
        assert!(matches!(
            render_puzzle(&view(PUZZLE_ROWS + 1)),
            Err(DeviceError::TooManyRows { rows: 5, max: 4 })
        ));
    }

    #[test]
    fn questions_wrap_to_two_lines_and_cut() {
        assert_eq!(wrap("a bb ccc", 4), vec!["a bb", "ccc"]);
        assert_eq!(wrap("aaaa bbbb cccc", 4), vec!["aaaa", "b..."]);
        assert_eq!(wrap("", 10), vec![""]);
    }
}
