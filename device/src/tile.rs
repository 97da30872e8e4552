//! How a hint cell looks on a black/white/red panel, decided once for the chart and the puzzle
//! page, with the legend that explains it.
//!
//! A player knows gray as the dark ⬛ of a shared result, so gray is a solid black tile; the
//! panel's colour marks the letters that are in the answer: green (right place) is a solid
//! colour tile, yellow (elsewhere) a colour frame with a checker of colour inside, so it reads
//! as "half" colour — with or without a letter on it, so the chart, the puzzle page and their
//! legends show yellow the same way.

use embedded_graphics::prelude::Point;
use hakase_core::Cell;

use crate::error::DeviceError;
use crate::font::SMALL;
use crate::frame::{Frame, Ink};

/// Width of the colour frame of a yellow tile.
const FRAME: i32 = 2;

/// Side of a legend tile: as tall as the 5 × 7 print beside it.
pub const LEGEND_TILE: i32 = 7;

/// The cells in legend order, with the word a player uses for each.
const LEGEND: [(Cell, &str); 3] = [
    (Cell::Green, "green"),
    (Cell::Yellow, "yellow"),
    (Cell::Gray, "gray"),
];

/// Draws the tile of `cell`, `size` pixels square with its top left at (`left`, `top`), and
/// returns the ink a letter on it is drawn in (white on the solid tiles, black on yellow's).
pub fn draw_tile(frame: &mut Frame, left: i32, top: i32, size: i32, cell: Cell) -> Ink {
    match cell {
        Cell::Gray => {
            fill(frame, left, top, size, size, Ink::Black);
            Ink::White
        }
        Cell::Green => {
            fill(frame, left, top, size, size, Ink::Colour);
            Ink::White
        }
        Cell::Yellow => {
            for ring in 0..FRAME {
                outline(
                    frame,
                    left + ring,
                    top + ring,
                    size - 2 * ring,
                    size - 2 * ring,
                    Ink::Colour,
                );
            }
            hatch(frame, left + FRAME, top + FRAME, size - 2 * FRAME);
            Ink::Black
        }
    }
}

/// Every other pixel of a square in the panel colour, a checkerboard aligned to the page.
fn hatch(frame: &mut Frame, left: i32, top: i32, size: i32) {
    for y in top..top + size {
        for x in left..left + size {
            if (x + y) % 2 == 0 {
                fill(frame, x, y, 1, 1, Ink::Colour);
            }
        }
    }
}

/// Draws the legend on one line, tiles and words, from `left` with the print's baseline at
/// `baseline`; returns its width.
pub fn draw_legend(frame: &mut Frame, left: i32, baseline: i32) -> Result<i32, DeviceError> {
    let mut x = left;
    for (i, (cell, word)) in LEGEND.iter().enumerate() {
        if i > 0 {
            x += 5;
        }
        x += draw_legend_item(frame, x, baseline, *cell, word)?;
    }
    Ok(x - left)
}

/// Draws one legend entry (tile and word) from `left`, baseline at `baseline`; returns its
/// width.
fn draw_legend_item(
    frame: &mut Frame,
    left: i32,
    baseline: i32,
    cell: Cell,
    word: &str,
) -> Result<i32, DeviceError> {
    draw_tile(frame, left, baseline - LEGEND_TILE + 1, LEGEND_TILE, cell);
    let advance = SMALL.draw(
        word,
        Point::new(left + LEGEND_TILE + 2, baseline),
        Ink::Black,
        frame,
    )?;
    Ok(LEGEND_TILE + 2 + advance)
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

    #[test]
    fn gray_is_black_green_is_colour_yellow_is_a_hatched_frame() {
        let mut frame = Frame::blank();
        assert_eq!(draw_tile(&mut frame, 0, 0, 10, Cell::Gray), Ink::White);
        assert_eq!(draw_tile(&mut frame, 20, 0, 10, Cell::Green), Ink::White);
        assert_eq!(draw_tile(&mut frame, 40, 0, 10, Cell::Yellow), Ink::Black);
        let inks = |left: u32| -> Vec<Ink> { (0..10).map(|x| frame.pixel(left + x, 4)).collect() };
        assert_eq!(inks(0), vec![Ink::Black; 10]);
        assert_eq!(inks(20), vec![Ink::Colour; 10]);
        use Ink::{Colour as C, White as W};
        // Row 4: the two-pixel frame, then the checker (x + y even is colour).
        assert_eq!(inks(40), vec![C, C, C, W, C, W, C, W, C, C]);
    }
}
