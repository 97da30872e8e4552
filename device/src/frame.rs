//! One page as the panel stores it: two 1-bit planes in the controller's own orientation,
//! bit order and polarity, so the bytes can go to the panel (or into firmware) unchanged.
//!
//! The Waveshare 2.13" B/C panel is natively portrait, 104 pixels wide and 212 lines tall.
//! Each line is 13 bytes, the leftmost pixel in the most significant bit. The black plane
//! (command 0x10) has 1 = white, 0 = black; the colour plane (command 0x13) has 1 = no colour,
//! 0 = red (B) or yellow (C). This matches Waveshare's reference code and the driver's own
//! `clear_frame`, which fills both planes with 0xFF for white. (epd-waveshare's
//! `Display2in13bc` buffer writes 1 for colour in the chromatic plane, which turns a whole
//! panel red, so it is not used here.)
//!
//! Drawing happens in landscape, 212 × 104, with (0, 0) top left: landscape (x, y) is native
//! (column y, line 211 − x), the mapping Waveshare's demos use for horizontal images.

use embedded_graphics::pixelcolor::PixelColor;
use embedded_graphics::prelude::{DrawTarget, OriginDimensions, Pixel, Size};

use crate::error::DeviceError;

/// Landscape width in pixels, as the chart is drawn.
pub const WIDTH: u32 = 212;
/// Landscape height in pixels.
pub const HEIGHT: u32 = 104;
/// Native (portrait) width in pixels: the length of one controller line.
pub const NATIVE_WIDTH: u32 = 104;
/// Native (portrait) height in pixels: the number of controller lines.
pub const NATIVE_HEIGHT: u32 = 212;
/// Bytes per native line.
pub const LINE_BYTES: usize = (NATIVE_WIDTH / 8) as usize;
/// Bytes in one plane: 13 × 212 = 2756.
pub const PLANE_BYTES: usize = LINE_BYTES * NATIVE_HEIGHT as usize;

/// What one pixel shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ink {
    /// Paper.
    White,
    /// Black ink.
    Black,
    /// The panel's third colour: red on the B panel, yellow on the C panel.
    Colour,
}

impl PixelColor for Ink {
    type Raw = ();
}

/// One page: the black plane and the colour plane, exactly as sent with commands 0x10 and
/// 0x13.
#[derive(Clone, PartialEq, Eq)]
pub struct Frame {
    black: [u8; PLANE_BYTES],
    colour: [u8; PLANE_BYTES],
}

impl std::fmt::Debug for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inked = |plane: &[u8]| plane.iter().map(|b| b.count_zeros()).sum::<u32>();
        f.debug_struct("Frame")
            .field("black_pixels", &inked(&self.black))
            .field("colour_pixels", &inked(&self.colour))
            .finish()
    }
}

impl Default for Frame {
    fn default() -> Self {
        Frame::blank()
    }
}

impl Frame {
    /// An all-white page.
    pub fn blank() -> Frame {
        Frame {
            black: [0xFF; PLANE_BYTES],
            colour: [0xFF; PLANE_BYTES],
        }
    }

    /// Rebuilds a page from planes in panel order, e.g. read back from a C header.
    pub fn from_planes(black: &[u8], colour: &[u8]) -> Result<Frame, DeviceError> {
        let plane = |name: &'static str, bytes: &[u8]| -> Result<[u8; PLANE_BYTES], DeviceError> {
            bytes.try_into().map_err(|_| DeviceError::PlaneSize {
                plane: name,
                expected: PLANE_BYTES,
                actual: bytes.len(),
            })
        };
        Ok(Frame {
            black: plane("black", black)?,
            colour: plane("colour", colour)?,
        })
    }

    /// The black plane (command 0x10): 1 = white, 0 = black.
    pub fn black(&self) -> &[u8; PLANE_BYTES] {
        &self.black
    }

    /// The colour plane (command 0x13): 1 = no colour, 0 = colour.
    pub fn colour(&self) -> &[u8; PLANE_BYTES] {
        &self.colour
    }

    /// The ink at landscape (x, y); white outside the page.
    pub fn pixel(&self, x: u32, y: u32) -> Ink {
        let Some((index, mask)) = locate(x, y) else {
            return Ink::White;
        };
        if self.colour[index] & mask == 0 {
            Ink::Colour
        } else if self.black[index] & mask == 0 {
            Ink::Black
        } else {
            Ink::White
        }
    }

    /// Sets the ink at landscape (x, y); points outside the page are ignored.
    pub fn set_pixel(&mut self, x: u32, y: u32, ink: Ink) {
        let Some((index, mask)) = locate(x, y) else {
            return;
        };
        // A colour pixel keeps its black bit white, as Waveshare's examples send it.
        let (black, colour) = match ink {
            Ink::White => (true, true),
            Ink::Black => (false, true),
            Ink::Colour => (true, false),
        };
        set_bit(&mut self.black[index], mask, black);
        set_bit(&mut self.colour[index], mask, colour);
    }
}

/// Byte index and bit mask of landscape (x, y) in a plane.
fn locate(x: u32, y: u32) -> Option<(usize, u8)> {
    if x >= WIDTH || y >= HEIGHT {
        return None;
    }
    let native_x = y;
    let native_y = NATIVE_HEIGHT - 1 - x;
    let index = native_y as usize * LINE_BYTES + (native_x / 8) as usize;
    Some((index, 0x80 >> (native_x % 8)))
}

fn set_bit(byte: &mut u8, mask: u8, one: bool) {
    if one {
        *byte |= mask;
    } else {
        *byte &= !mask;
    }
}

impl OriginDimensions for Frame {
    fn size(&self) -> Size {
        Size::new(WIDTH, HEIGHT)
    }
}

impl DrawTarget for Frame {
    type Color = Ink;
    type Error = std::convert::Infallible;

    fn draw_iter<I>(&mut self, pixels: I) -> Result<(), Self::Error>
    where
        I: IntoIterator<Item = Pixel<Ink>>,
    {
        for Pixel(point, ink) in pixels {
            if let (Ok(x), Ok(y)) = (u32::try_from(point.x), u32::try_from(point.y)) {
                self.set_pixel(x, y, ink);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_left_is_the_first_bit_of_the_last_line() {
        let mut frame = Frame::blank();
        frame.set_pixel(0, 0, Ink::Black);
        assert_eq!(frame.black()[PLANE_BYTES - LINE_BYTES], 0x7F);
        assert_eq!(frame.black().iter().filter(|&&b| b != 0xFF).count(), 1);
        assert!(frame.colour().iter().all(|&b| b == 0xFF));
    }

    #[test]
    fn bottom_right_is_the_last_bit_of_the_first_line() {
        let mut frame = Frame::blank();
        frame.set_pixel(WIDTH - 1, HEIGHT - 1, Ink::Colour);
        assert_eq!(frame.colour()[LINE_BYTES - 1], 0xFE);
        assert!(frame.black().iter().all(|&b| b == 0xFF));
        assert_eq!(frame.pixel(WIDTH - 1, HEIGHT - 1), Ink::Colour);
    }

    #[test]
    fn pixels_round_trip_and_overwrite() {
        let mut frame = Frame::blank();
        frame.set_pixel(10, 20, Ink::Colour);
        frame.set_pixel(10, 20, Ink::Black);
        assert_eq!(frame.pixel(10, 20), Ink::Black);
        frame.set_pixel(10, 20, Ink::White);
        assert_eq!(frame, Frame::blank());
        assert_eq!(frame.pixel(WIDTH, 0), Ink::White);
    }

    #[test]
    fn planes_must_have_the_panel_size() {
        let err = Frame::from_planes(&[0; 10], &[0; PLANE_BYTES]).unwrap_err();
        assert!(matches!(
            err,
            DeviceError::PlaneSize {
                plane: "black",
                actual: 10,
                ..
            }
        ));
    }
}
