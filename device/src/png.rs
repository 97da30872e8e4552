//! PNG previews of pages (what the panel will show, for people without a panel and for the
//! golden-image tests), and the one PNG writer of hakase: `hakase plot` writes its RGB images
//! through [`write_rgb_png`] too.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::error::DeviceError;
use crate::frame::{Frame, Ink, HEIGHT, WIDTH};

/// The largest enlargement accepted; 16× is already 3392 × 1664.
pub const MAX_SCALE: u32 = 16;

/// Which third colour the panel has, for previews.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PanelColour {
    /// The 2.13" (B): red.
    #[default]
    Red,
    /// The 2.13" (C): yellow.
    Yellow,
}

impl PanelColour {
    /// The RGB value used for an ink in previews.
    pub fn rgb(self, ink: Ink) -> [u8; 3] {
        match (ink, self) {
            (Ink::White, _) => [0xFF, 0xFF, 0xFF],
            (Ink::Black, _) => [0x00, 0x00, 0x00],
            (Ink::Colour, PanelColour::Red) => [0xD0, 0x00, 0x00],
            (Ink::Colour, PanelColour::Yellow) => [0xE8, 0xB4, 0x00],
        }
    }
}

/// Writes `frame` as a PNG file, each panel pixel `scale` × `scale` image pixels.
pub fn write_png(
    frame: &Frame,
    path: &Path,
    scale: u32,
    colour: PanelColour,
) -> Result<(), DeviceError> {
    write_file(path, |out, name| {
        encode_png(frame, scale, colour, out, name)
    })
}

/// Writes an 8-bit RGB image (`rgb` holds `width` × `height` pixels, row by row) as a PNG
/// file.
pub fn write_rgb_png(path: &Path, width: u32, height: u32, rgb: &[u8]) -> Result<(), DeviceError> {
    write_file(path, |out, name| {
        encode(out, name, width, height, Pixels::Rgb, rgb)
    })
}

/// Creates `path` and hands a buffered writer to `encode`, naming the file in every error.
fn write_file(
    path: &Path,
    encode: impl FnOnce(&mut BufWriter<File>, &str) -> Result<(), DeviceError>,
) -> Result<(), DeviceError> {
    let shown = path.display().to_string();
    let file = File::create(path).map_err(|source| DeviceError::Write {
        path: shown.clone(),
        source,
    })?;
    let mut out = BufWriter::new(file);
    encode(&mut out, &shown)?;
    out.flush().map_err(|source| DeviceError::Write {
        path: shown,
        source,
    })
}

/// Encodes `frame` as an indexed-colour PNG into `out`; `name` only labels errors.
pub fn encode_png<W: Write>(
    frame: &Frame,
    scale: u32,
    colour: PanelColour,
    out: W,
    name: &str,
) -> Result<(), DeviceError> {
    if scale == 0 || scale > MAX_SCALE {
        return Err(DeviceError::BadScale {
            scale,
            max: MAX_SCALE,
        });
    }
    let width = WIDTH * scale;
    let height = HEIGHT * scale;
    let palette: Vec<u8> = [Ink::White, Ink::Black, Ink::Colour]
        .iter()
        .flat_map(|&ink| colour.rgb(ink))
        .collect();
    let mut data = Vec::with_capacity((width * height) as usize);
    for y in 0..height {
        for x in 0..width {
            data.push(match frame.pixel(x / scale, y / scale) {
                Ink::White => 0u8,
                Ink::Black => 1,
                Ink::Colour => 2,
            });
        }
    }
    encode(out, name, width, height, Pixels::Indexed(palette), &data)
}

/// How the bytes of an image are to be read.
enum Pixels {
    /// One byte per pixel, an index into this RGB palette.
    Indexed(Vec<u8>),
    /// Three bytes per pixel.
    Rgb,
}

/// The PNG encoding itself, shared by both kinds of image.
fn encode<W: Write>(
    out: W,
    name: &str,
    width: u32,
    height: u32,
    pixels: Pixels,
    data: &[u8],
) -> Result<(), DeviceError> {
    let mut encoder = png::Encoder::new(out, width, height);
    encoder.set_depth(png::BitDepth::Eight);
    match pixels {
        Pixels::Indexed(palette) => {
            encoder.set_color(png::ColorType::Indexed);
            encoder.set_palette(palette);
        }
        Pixels::Rgb => encoder.set_color(png::ColorType::Rgb),
    }
    let png_error = |source| DeviceError::Png {
        path: name.to_string(),
        source,
    };
    let mut writer = encoder.write_header().map_err(png_error)?;
    writer.write_image_data(data).map_err(png_error)?;
    writer.finish().map_err(png_error)
}
