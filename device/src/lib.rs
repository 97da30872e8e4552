//! hakase-device: shows a hakase chart on a Waveshare 2.13" e-Paper (B/C) panel
//! (212 × 104, black/white plus red or yellow, full refresh only).
//!
//! The pipeline: [`ChartView`] (plain data) → [`render_pages`] (one [`Frame`] per page, in the
//! panel's own byte order) → [`write_png`] for previews, [`write_c_header`] for firmware, or
//! [`show_on_panel`] / [`cycle_pages`] / [`button_pages`] for a panel on a Linux board.
//! [`refresh`] drives the panel through any embedded-hal 1.0 implementation.

#![warn(missing_docs)]

pub mod c_header;
pub mod error;
pub mod font;
pub mod frame;
pub mod layout;
pub mod panel;
pub mod png;
pub mod puzzle;
pub mod tile;
pub mod view;

pub use c_header::write_c_header;
pub use error::DeviceError;
pub use frame::{Frame, Ink, HEIGHT, NATIVE_HEIGHT, NATIVE_WIDTH, PLANE_BYTES, WIDTH};
/// The label every view carries: worded in core, beside the solver whose results it judges.
pub use hakase_core::label::Label;
pub use layout::{page_count, render_page_number, render_pages, ROWS_PER_PAGE};
pub use panel::{button_pages, cycle_pages, refresh, select_page, show_on_panel, PanelConfig};
pub use png::{encode_png, write_png, write_rgb_png, PanelColour};
pub use puzzle::{render_puzzle, PuzzleView, PuzzleViewRow, PUZZLE_ROWS};
pub use view::{ChartView, ChartViewRow};
