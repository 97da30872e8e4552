//! `hakase plot`: how many guesses each answer needs, the run's optimal strategy next to a
//! heuristic, as a bar chart PNG.
//!
//! Drawn with embedded-graphics and u8g2's built-in bitmap fonts (the same stack as the
//! e-paper panel), so no system fonts are needed anywhere.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::builder::PossibleValuesParser;
use clap::Args;
use embedded_graphics::pixelcolor::Rgb888;
use embedded_graphics::prelude::*;
use embedded_graphics::primitives::{PrimitiveStyle, Rectangle};
use hakase_core::strategy::STRATEGY_NAMES;
use hakase_core::tree::{build_tree, Evaluation};
use u8g2_fonts::types::{FontColor, HorizontalAlignment, VerticalPosition};
use u8g2_fonts::{fonts, FontRenderer};

use super::query::RunArgs;
use super::strategy;

/// Plot the distribution of guesses per answer: the run's optimum and a heuristic.
#[derive(Debug, Args)]
pub struct Plot {
    /// The run.
    #[command(flatten)]
    pub run: RunArgs,

    /// Where to write the PNG.
    #[arg(long, value_name = "FILE")]
    pub png: PathBuf,

    /// The heuristic drawn next to the optimum (from its own best first guess).
    #[arg(long, value_name = "S", default_value = "entropy",
          value_parser = PossibleValuesParser::new(STRATEGY_NAMES))]
    pub strategy: String,
}

/// One series of bars.
pub struct Series {
    /// Legend text.
    pub label: String,
    /// `counts[k]` answers need `k + 1` guesses.
    pub counts: Vec<u32>,
    /// Bar colour.
    pub colour: Rgb888,
}

impl Plot {
    /// Evaluates both strategies and draws the PNG.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let run = self.run.load()?;
        let oracle = run.oracle()?;
        let game = &run.game;
        let answers = game.all_answers();
        let optimal = oracle.tree().evaluate(game, &run.table, &answers);
        let heuristic = strategy(&self.strategy)?;
        let choose =
            |candidates: &[u32], _depth: u32| heuristic.choose(game, &run.table, candidates);
        let tree = build_tree(&run.table, &answers, 1, &choose);
        let other = tree.evaluate(game, &run.table, &answers);
        let label = |name: &str, first: u32, e: &Evaluation| {
            let first = game.guess_text(first);
            format!(
                "{name} from {first}: total {} mean {:.4} worst {}{}",
                e.total,
                e.mean(),
                e.worst,
                if e.failures.is_empty() {
                    String::new()
                } else {
                    format!(" failures {}", e.failures.len())
                }
            )
        };
        let series = [
            Series {
                label: label("optimal (run)", oracle.tree().guess, &optimal),
                counts: optimal.distribution.clone(),
                colour: Rgb888::new(0x2a, 0x6f, 0xdb),
            },
            Series {
                label: label(&self.strategy, tree.guess, &other),
                counts: other.distribution.clone(),
                colour: Rgb888::new(0xf0, 0x8c, 0x1a),
            },
        ];
        let title = format!(
            "{}: guesses per answer ({} answers)",
            ascii(game.name()),
            answers.len()
        );
        write_bar_chart(&self.png, &title, &series)?;
        writeln!(out, "wrote {}", self.png.display())?;
        Ok(())
    }
}

/// The title font carries ASCII only; anything else is shown as '?'.
fn ascii(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii() { c } else { '?' })
        .collect()
}

/// An RGB image embedded-graphics can draw on.
struct Canvas {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl Canvas {
    fn new(width: u32, height: u32) -> Canvas {
        Canvas {
            width,
            height,
            pixels: vec![0xff; (width * height * 3) as usize],
        }
    }
}

impl OriginDimensions for Canvas {
    fn size(&self) -> Size {
        Size::new(self.width, self.height)
    }
}

impl DrawTarget for Canvas {
    type Color = Rgb888;
    type Error = std::convert::Infallible;

    fn draw_iter<I>(&mut self, pixels: I) -> Result<(), Self::Error>
    where
        I: IntoIterator<Item = Pixel<Self::Color>>,
    {
        for Pixel(point, colour) in pixels {
            if point.x < 0 || point.y < 0 {
                continue;
            }
            let (x, y) = (point.x as u32, point.y as u32);
            if x >= self.width || y >= self.height {
                continue;
            }
            let i = ((y * self.width + x) * 3) as usize;
            self.pixels[i..i + 3].copy_from_slice(&[colour.r(), colour.g(), colour.b()]);
        }
        Ok(())
    }
}

const WIDTH: u32 = 800;
const HEIGHT: u32 = 480;
const LEFT: i32 = 60;
const RIGHT: i32 = 20;
const TOP: i32 = 90;
const BOTTOM: i32 = 50;

/// Draws the bars of every series side by side per number of guesses, with axis labels,
/// counts over the bars and a legend, and writes the PNG.
pub fn write_bar_chart(path: &Path, title: &str, series: &[Series]) -> Result<()> {
    let mut canvas = Canvas::new(WIDTH, HEIGHT);
    let font = FontRenderer::new::<fonts::u8g2_font_6x13_tf>();
    let big = FontRenderer::new::<fonts::u8g2_font_7x14_tf>();
    // Legends name katakana first guesses: this font has ASCII and kana.
    let kana = FontRenderer::new::<fonts::u8g2_font_b12_t_japanese3>();
    let black = Rgb888::BLACK;
    let grey = Rgb888::new(0xcc, 0xcc, 0xcc);
    let text = |canvas: &mut Canvas, f: &FontRenderer, s: &str, at: Point, align| {
        // Text that does not fit is clipped by the canvas; rendering cannot fail otherwise.
        let _ = f.render_aligned(
            s,
            at,
            VerticalPosition::Baseline,
            align,
            FontColor::Transparent(black),
            canvas,
        );
    };
    text(
        &mut canvas,
        &big,
        title,
        Point::new(LEFT, 22),
        HorizontalAlignment::Left,
    );
    for (i, s) in series.iter().enumerate() {
        let y = 42 + i as i32 * 18;
        let _ = Rectangle::new(Point::new(LEFT, y - 10), Size::new(12, 12))
            .into_styled(PrimitiveStyle::with_fill(s.colour))
            .draw(&mut canvas);
        text(
            &mut canvas,
            &kana,
            &s.label,
            Point::new(LEFT + 18, y),
            HorizontalAlignment::Left,
        );
    }
    let groups = series
        .iter()
        .map(|s| s.counts.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let max = series
        .iter()
        .flat_map(|s| s.counts.iter().copied())
        .max()
        .unwrap_or(0)
        .max(1);
    let plot_w = WIDTH as i32 - LEFT - RIGHT;
    let plot_h = HEIGHT as i32 - TOP - BOTTOM;
    let base = TOP + plot_h;
    // Grid lines and y labels at five even steps.
    for k in 0..=5 {
        let value = (u64::from(max) * k / 5) as u32;
        let y = base - (i64::from(value) * i64::from(plot_h) / i64::from(max)) as i32;
        let _ = Rectangle::new(Point::new(LEFT, y), Size::new(plot_w as u32, 1))
            .into_styled(PrimitiveStyle::with_fill(grey))
            .draw(&mut canvas);
        text(
            &mut canvas,
            &font,
            &value.to_string(),
            Point::new(LEFT - 6, y + 4),
            HorizontalAlignment::Right,
        );
    }
    let group_w = plot_w / groups as i32;
    let bar_w = ((group_w - 16) / series.len().max(1) as i32).max(2);
    for g in 0..groups {
        let x0 = LEFT + g as i32 * group_w + 8;
        for (i, s) in series.iter().enumerate() {
            let count = s.counts.get(g).copied().unwrap_or(0);
            let h = (i64::from(count) * i64::from(plot_h) / i64::from(max)) as i32;
            let x = x0 + i as i32 * bar_w;
            if h > 0 {
                let _ = Rectangle::new(
                    Point::new(x, base - h),
                    Size::new((bar_w - 2) as u32, h as u32),
                )
                .into_styled(PrimitiveStyle::with_fill(s.colour))
                .draw(&mut canvas);
            }
            text(
                &mut canvas,
                &font,
                &count.to_string(),
                Point::new(x + bar_w / 2, base - h - 4),
                HorizontalAlignment::Center,
            );
        }
        text(
            &mut canvas,
            &font,
            &(g + 1).to_string(),
            Point::new(x0 + group_w / 2 - 8, base + 18),
            HorizontalAlignment::Center,
        );
    }
    let _ = Rectangle::new(Point::new(LEFT, base), Size::new(plot_w as u32, 2))
        .into_styled(PrimitiveStyle::with_fill(black))
        .draw(&mut canvas);
    text(
        &mut canvas,
        &font,
        "guesses needed",
        Point::new(LEFT + plot_w / 2, HEIGHT as i32 - 10),
        HorizontalAlignment::Center,
    );
    encode(path, &canvas)
}

fn encode(path: &Path, canvas: &Canvas) -> Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), canvas.width, canvas.height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder
        .write_header()
        .with_context(|| format!("writing {}", path.display()))?;
    writer
        .write_image_data(&canvas.pixels)
        .with_context(|| format!("writing {}", path.display()))?;
    writer
        .finish()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
