//! The one error type of the crate, so the CLI can report every failure the same way.

use std::path::PathBuf;

/// Everything that can go wrong while rendering a chart or talking to the panel.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// A character that none of the panel fonts can draw.
    #[error("the panel fonts have no glyph for {ch:?} (U+{code:04X}) in {text:?}", code = u32::from(*ch))]
    MissingGlyph {
        /// The character.
        ch: char,
        /// The text it occurs in.
        text: String,
    },
    /// A plane handed to [`crate::Frame::from_planes`] has the wrong size.
    #[error("a {plane} plane must be {expected} bytes, got {actual}")]
    PlaneSize {
        /// "black" or "colour".
        plane: &'static str,
        /// [`crate::PLANE_BYTES`].
        expected: usize,
        /// What was given.
        actual: usize,
    },
    /// A page number outside the rendered pages.
    #[error("page {page} does not exist: there are {pages} pages")]
    NoSuchPage {
        /// The 1-based page asked for.
        page: usize,
        /// How many pages there are.
        pages: usize,
    },
    /// A puzzle with more rows than one page holds.
    #[error("a puzzle page holds at most {max} rows, this puzzle has {rows}")]
    TooManyRows {
        /// The puzzle's rows.
        rows: usize,
        /// [`crate::PUZZLE_ROWS`].
        max: usize,
    },
    /// A PNG scale of zero or one too large to address.
    #[error("PNG scale must be between 1 and {max}, got {scale}")]
    BadScale {
        /// The scale asked for.
        scale: u32,
        /// The largest scale accepted.
        max: u32,
    },
    /// Writing a file or stream failed.
    #[error("cannot write {path}")]
    Write {
        /// Where (a file path, or a description of the stream).
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The PNG encoder failed.
    #[error("cannot encode PNG {path}")]
    Png {
        /// Where.
        path: String,
        /// Why.
        source: png::EncodingError,
    },
    /// A device file (SPI or GPIO chip) does not exist.
    #[error("{what} {path} does not exist (is the interface enabled and the panel HAT attached?)")]
    DeviceMissing {
        /// "SPI device" or "GPIO chip".
        what: &'static str,
        /// The path.
        path: PathBuf,
    },
    /// A device file or GPIO line is held by someone else.
    #[error("{what} is busy{}", consumer.as_ref().map(|c| format!(" (held by {c:?})")).unwrap_or_default())]
    DeviceBusy {
        /// Which device or line.
        what: String,
        /// The process label holding it, if the kernel says.
        consumer: Option<String>,
    },
    /// Not allowed to open a device file.
    #[error("no permission to open {path} (add the user to the spi/gpio group or run as root)")]
    PermissionDenied {
        /// The path.
        path: PathBuf,
    },
    /// Any other failure opening or configuring a device.
    #[error("cannot use {what}: {message}")]
    Device {
        /// Which device or line.
        what: String,
        /// The underlying error.
        message: String,
    },
    /// An SPI transfer failed during a refresh.
    #[error("SPI transfer to the panel failed: {message}")]
    Spi {
        /// The underlying error.
        message: String,
    },
    /// A GPIO read or write failed during a refresh (the driver itself ignores these).
    #[error("GPIO {pin} failed during a refresh: {message}")]
    Gpio {
        /// "BUSY", "DC" or "RST".
        pin: &'static str,
        /// The underlying error.
        message: String,
    },
    /// This build cannot drive a panel (not Linux, or built without the `linux` feature).
    #[error("driving the panel needs a Linux build with the `linux` feature")]
    PanelUnsupported,
    /// BUSY stayed asserted far longer than any refresh takes.
    #[error("the panel stayed busy for more than {seconds} s (check the BUSY wiring and power)")]
    BusyTimeout {
        /// The limit that was exceeded.
        seconds: u32,
    },
}
