//! Bitmap fonts with per-character fallback, so that every letter of every Pokémon name can
//! be drawn on a panel that has no font of its own.
//!
//! The main face is U8g2's 12-pixel Japanese font `b12_t_japanese3`: katakana, small kana,
//! ー, ・ and the full-width ２ Ｚ ： that a few names use. It has no ♀ or ♂ (ニドラン♀ and
//! ニドラン♂ are both answers), so those fall back to the 12-pixel WenQuanYi font
//! `wqy12_t_gb2312a`, whose full-width ♀ ♂ sit on the same baseline; the narrower
//! terminal-font symbols were too small to tell apart on the panel.

use embedded_graphics::prelude::Point;
use u8g2_fonts::types::{FontColor, VerticalPosition};
use u8g2_fonts::{fonts, FontRenderer};

use crate::error::DeviceError;
use crate::frame::{Frame, Ink};

/// A list of fonts tried in order for each character.
#[derive(Debug)]
pub struct Face {
    fonts: &'static [FontRenderer],
}

static NAME_FONTS: [FontRenderer; 2] = [
    FontRenderer::new::<fonts::u8g2_font_b12_t_japanese3>(),
    FontRenderer::new::<fonts::u8g2_font_wqy12_t_gb2312a>(),
];

static SMALL_FONTS: [FontRenderer; 3] = [
    FontRenderer::new::<fonts::u8g2_font_5x7_tf>(),
    FontRenderer::new::<fonts::u8g2_font_b12_t_japanese3>(),
    FontRenderer::new::<fonts::u8g2_font_wqy12_t_gb2312a>(),
];

/// The face for names, counts and the page number: 12 px, katakana are 11 px tall.
pub static NAMES: Face = Face { fonts: &NAME_FONTS };

/// The face for the header's small print: 5 × 7 ASCII, with the name face behind it for
/// anything else (a game name in katakana, say).
pub static SMALL: Face = Face {
    fonts: &SMALL_FONTS,
};

impl Face {
    /// The first font of the face that has `ch`.
    fn font_for(&self, ch: char) -> Option<&FontRenderer> {
        self.fonts.iter().find(|font| {
            font.get_rendered_dimensions(ch, Point::zero(), VerticalPosition::Baseline)
                .is_ok()
        })
    }

    /// Whether some font of the face can draw `ch`.
    pub fn has_glyph(&self, ch: char) -> bool {
        self.font_for(ch).is_some()
    }

    /// How far drawing `text` advances the pen, in pixels.
    pub fn width(&self, text: &str) -> Result<i32, DeviceError> {
        let mut width = 0;
        for ch in text.chars() {
            let font = self.font_for(ch).ok_or_else(|| missing(ch, text))?;
            let dims = font
                .get_rendered_dimensions(ch, Point::zero(), VerticalPosition::Baseline)
                .map_err(|_| missing(ch, text))?;
            width += dims.advance.x;
        }
        Ok(width)
    }

    /// Draws `text` with its baseline starting at `origin`; returns the advance in pixels.
    pub fn draw(
        &self,
        text: &str,
        origin: Point,
        ink: Ink,
        frame: &mut Frame,
    ) -> Result<i32, DeviceError> {
        let mut pen = origin;
        for ch in text.chars() {
            let font = self.font_for(ch).ok_or_else(|| missing(ch, text))?;
            let dims = font
                .render(
                    ch,
                    pen,
                    VerticalPosition::Baseline,
                    FontColor::Transparent(ink),
                    frame,
                )
                .map_err(|_| missing(ch, text))?;
            pen.x += dims.advance.x;
        }
        Ok(pen.x - origin.x)
    }

    /// Draws `text` so that it ends at `right` (baseline at `right.y`).
    pub fn draw_right(
        &self,
        text: &str,
        right: Point,
        ink: Ink,
        frame: &mut Frame,
    ) -> Result<i32, DeviceError> {
        let width = self.width(text)?;
        self.draw(text, Point::new(right.x - width, right.y), ink, frame)
    }
}

fn missing(ch: char, text: &str) -> DeviceError {
    DeviceError::MissingGlyph {
        ch,
        text: text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_characters_are_reported_not_skipped() {
        let err = NAMES.width("ピカ\u{E000}").unwrap_err();
        assert!(matches!(
            err,
            DeviceError::MissingGlyph { ch: '\u{E000}', .. }
        ));
        let mut frame = Frame::blank();
        assert!(NAMES
            .draw("\u{E000}", Point::new(0, 20), Ink::Black, &mut frame)
            .is_err());
    }

    #[test]
    fn katakana_advance_twelve_pixels() {
        assert_eq!(NAMES.width("レントラー").unwrap(), 60);
    }
}
