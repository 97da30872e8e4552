//! `hakase plot`, and the plot `hakase compare` draws: how many guesses each answer needs,
//! one stacked bar per strategy (PNG or SVG, through plotters).
//!
//! PNG text is drawn with a bundled subset of Noto Sans CJK JP (core/data/fonts, SIL OFL 1.1), so
//! katakana names read the same on every machine; SVG text names `sans-serif` and is drawn by
//! the viewer.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Once;

use crate::output::{distribution_text, emit, plural, JsonArg, Label, View};
use anyhow::{anyhow, bail, Context, Result};
use clap::builder::PossibleValuesParser;
use clap::{ArgGroup, Args};
use hakase_core::heuristics::strategies::play::play_tree;
use hakase_core::heuristics::strategies::scoreboard::guesses_per_answer;
use hakase_core::heuristics::strategies::universe::Universe;
use hakase_core::heuristics::strategies::Greedy;
use hakase_core::heuristics::strategy::STRATEGY_NAMES;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Serialize;

use super::query::RunSource;
use super::strategy;

/// Plot how many guesses each answer needs: the run's optimum and a heuristic.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("out").required(true).multiple(true).args(["png", "svg"])))]
pub struct Plot {
    /// The run.
    #[command(flatten)]
    pub run: RunSource,

    /// Write the plot as a PNG image.
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,

    /// Write the plot as an SVG image.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// The heuristic drawn below the optimum (from its own best first guess).
    #[arg(long, value_name = "S", default_value = "entropy",
          value_parser = PossibleValuesParser::new(STRATEGY_NAMES))]
    pub strategy: String,

    /// Text or JSON for the summary of what was drawn.
    #[command(flatten)]
    pub output: JsonArg,
}

/// What `plot` drew: the files and each bar's numbers.
#[derive(Debug, Serialize)]
struct PlotReport {
    game: String,
    run: String,
    answers: usize,
    /// The files written.
    files: Vec<String>,
    /// One per bar, top first.
    bars: Vec<BarJson>,
}

/// One bar's numbers.
#[derive(Debug, Serialize)]
struct BarJson {
    /// "optimum" or the heuristic's name.
    strategy: String,
    first_guess: String,
    /// What the bar's numbers are: `proven-optimal`, `exact` (optimal given its first
    /// guess, as a `solve --first W` run is) or `heuristic`.
    label: Label,
    /// `distribution[k]` answers took `k + 1` guesses.
    distribution: Vec<u64>,
    /// Guesses over the answers found, their mean and the most any needed.
    total: u64,
    mean: f64,
    worst: u32,
    /// Answers never found.
    failures: usize,
}

impl BarJson {
    fn new(strategy: &str, first_guess: &str, label: Label, guesses: &[Option<u32>]) -> BarJson {
        let found: Vec<u32> = guesses.iter().flatten().copied().collect();
        let worst = found.iter().copied().max().unwrap_or(0);
        let mut distribution = vec![0u64; worst as usize];
        for &g in &found {
            distribution[g.max(1) as usize - 1] += 1;
        }
        let total: u64 = found.iter().map(|&g| u64::from(g)).sum();
        BarJson {
            strategy: strategy.to_string(),
            first_guess: first_guess.to_string(),
            label,
            distribution,
            total,
            mean: total as f64 / found.len().max(1) as f64,
            worst,
            failures: guesses.len() - found.len(),
        }
    }
}

impl View for PlotReport {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        for file in &self.files {
            writeln!(out, "wrote {file}")?;
        }
        for bar in &self.bars {
            writeln!(
                out,
                "{}: total {}, mean {:.4}, worst {}, guesses {}{}",
                bar_label(&bar.strategy, &bar.first_guess, bar.label),
                bar.total,
                bar.mean,
                bar.worst,
                distribution_text(&bar.distribution),
                if bar.failures > 0 {
                    format!(", {} never found", bar.failures)
                } else {
                    String::new()
                }
            )?;
        }
        Ok(())
    }
}

/// A bar's name as drawn and printed: the optimum of a run restricted to its first guess
/// is optimal only given that guess, and says so; a heuristic's bar names the heuristic.
fn bar_label(strategy: &str, first: &str, label: Label) -> String {
    match label {
        Label::Exact => format!("{strategy} given the first guess {first}"),
        Label::ProvenIfClaimsHold { claims, .. } => format!(
            "{strategy} ({first}, {})",
            hakase_core::label::unchecked_condition(claims as usize)
        ),
        Label::ProvenOptimal | Label::Heuristic => format!("{strategy} ({first})"),
    }
}

/// One bar: a strategy's guesses per answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bar {
    /// Shown left of the bar.
    pub label: String,
    /// The guesses each answer needed; `None` for an answer never found.
    pub guesses: Vec<Option<u32>>,
}

impl Plot {
    /// Plays the heuristic, reads the optimum from the run and draws both.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let run = self.run.load()?;
        let oracle = run.oracle()?;
        let game = &run.game;
        let answers = game.answers().len();
        let optimal = guesses_per_answer(oracle.tree(), &run.table, answers);
        let player = Greedy(strategy(&self.strategy)?);
        let tree = play_tree(game, &run.table, &player, &Universe::answers(game), None);
        let optimum_first = game.guess_text(oracle.tree().guess).to_string();
        let optimum_label = run.label(oracle.tree().guess);
        let heuristic_first = game.guess_text(tree.guess).to_string();
        let heuristic = guesses_per_answer(&tree, &run.table, answers);
        let report = PlotReport {
            game: game.name().to_string(),
            run: run.name.clone(),
            answers,
            files: [&self.png, &self.svg]
                .into_iter()
                .flatten()
                .map(|p| p.display().to_string())
                .collect(),
            bars: vec![
                BarJson::new("optimum", &optimum_first, optimum_label, &optimal),
                BarJson::new(
                    &self.strategy,
                    &heuristic_first,
                    Label::Heuristic,
                    &heuristic,
                ),
            ],
        };
        let bars = [
            Bar {
                label: bar_label("optimum", &optimum_first, optimum_label),
                guesses: optimal,
            },
            Bar {
                label: bar_label(&self.strategy, &heuristic_first, Label::Heuristic),
                guesses: heuristic,
            },
        ];
        let title = format!("{}: guesses per answer ({answers} answers)", game.name());
        for path in [&self.png, &self.svg].into_iter().flatten() {
            write_plot(path, &title, &bars)?;
        }
        emit(out, self.output, &report)
    }
}

/// The bundled font PNG text is drawn with.
const FONT: &[u8] = include_bytes!("../../../core/data/fonts/HakasePlotSansJP-Regular.otf");
const FAMILY: &str = "sans-serif";

/// Makes the bundled font the one plotters draws bitmap text with (once per process).
fn register_font() -> Result<()> {
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(|| {
        result = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
            .map_err(|_| anyhow!("the bundled plot font cannot be read"));
    });
    result
}

/// Writes the plot as PNG or SVG, chosen by the file's extension.
pub fn write_plot(path: &Path, title: &str, bars: &[Bar]) -> Result<()> {
    let size = plot_size(bars);
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let drawn = match extension.as_deref() {
        Some("png") => {
            register_font()?;
            // Drawn into memory, written by hakase's one PNG writer (hakase-device).
            let mut rgb = vec![0u8; size.0 as usize * size.1 as usize * 3];
            {
                let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
                draw(&root, title, bars)?;
                root.present().map_err(|e| anyhow!("{e}"))?;
            }
            hakase_device::write_rgb_png(path, size.0, size.1, &rgb).map_err(anyhow::Error::from)
        }
        Some("svg") => {
            let root = SVGBackend::new(path, size).into_drawing_area();
            draw(&root, title, bars).and_then(|()| root.present().map_err(|e| anyhow!("{e}")))
        }
        _ => bail!("{}: the plot file must end in .png or .svg", path.display()),
    };
    drawn.with_context(|| format!("writing {}", path.display()))
}

/// The plot as an SVG document, for inlining in HTML reports.
pub fn svg_plot(title: &str, bars: &[Bar]) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, plot_size(bars)).into_drawing_area();
        draw(&root, title, bars)?;
        root.present()
            .map_err(|e| anyhow!("drawing the plot: {e}"))?;
    }
    Ok(svg)
}

const WIDTH: u32 = 1100;
const BAR_HEIGHT: u32 = 34;
const HEADER: u32 = 84;

fn plot_size(bars: &[Bar]) -> (u32, u32) {
    (WIDTH, HEADER + 70 + BAR_HEIGHT * bars.len().max(1) as u32)
}

/// Colours for 1, 2, … guesses: green (quick) through yellow to red (slow).
const SHADES: [RGBColor; 9] = [
    RGBColor(0x00, 0x68, 0x37),
    RGBColor(0x1a, 0x98, 0x50),
    RGBColor(0x66, 0xbd, 0x63),
    RGBColor(0xa6, 0xd9, 0x6a),
    RGBColor(0xfe, 0xe0, 0x8b),
    RGBColor(0xfd, 0xae, 0x61),
    RGBColor(0xf4, 0x6d, 0x43),
    RGBColor(0xd7, 0x30, 0x27),
    RGBColor(0xa5, 0x00, 0x26),
];
/// Answers never found.
const NEVER: RGBColor = RGBColor(0x33, 0x33, 0x33);

/// The colour of answers that took `guesses` guesses.
pub fn shade(guesses: u32) -> RGBColor {
    SHADES[(guesses.max(1) as usize - 1).min(SHADES.len() - 1)]
}

/// Draws the title, a legend of guess counts, and one stacked bar per strategy (the first on
/// top) over an axis of answers.
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, title: &str, bars: &[Bar]) -> Result<()>
where
    DB::ErrorType: 'static,
{
    if bars.is_empty() {
        bail!("nothing to plot");
    }
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let most = bars
        .iter()
        .flat_map(|b| b.guesses.iter().flatten().copied())
        .max()
        .unwrap_or(1);
    let never = bars.iter().any(|b| b.guesses.iter().any(Option::is_none));
    let (header, body) = root.split_vertically(HEADER);
    draw_header(&header, title, most, never)?;
    draw_bars(&body, bars, most, never)
}

/// A drawing error, said the same way for every step.
fn fail(e: &dyn std::fmt::Display) -> anyhow::Error {
    anyhow!("drawing the plot: {e}")
}

/// The title and the legend: one colour per guess count, and "never found" when needed.
fn draw_header<DB: DrawingBackend>(
    header: &DrawingArea<DB, Shift>,
    title: &str,
    most: u32,
    never: bool,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    header
        .draw_text(title, &(FAMILY, 22).into_font().color(&BLACK), (20, 12))
        .map_err(|e| fail(&e))?;
    let mut keys: Vec<(String, RGBColor)> = (1..=most)
        .map(|k| (plural(k, "guess", "guesses"), shade(k)))
        .collect();
    if never {
        keys.push(("never found".into(), NEVER));
    }
    let legend_font = (FAMILY, 15).into_font().color(&BLACK);
    let mut x = 20i32;
    for (text, colour) in &keys {
        header
            .draw(&Rectangle::new([(x, 52), (x + 16, 68)], colour.filled()))
            .map_err(|e| fail(&e))?;
        header
            .draw_text(text, &legend_font, (x + 22, 52))
            .map_err(|e| fail(&e))?;
        x += 40 + 7 * text.chars().count() as i32;
    }
    Ok(())
}

/// The axis of answers and one stacked bar per strategy, the first on top.
fn draw_bars<DB: DrawingBackend>(
    body: &DrawingArea<DB, Shift>,
    bars: &[Bar],
    most: u32,
    never: bool,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let answers = bars
        .iter()
        .map(|b| b.guesses.len())
        .max()
        .unwrap_or(0)
        .max(1) as u32;
    let rows = bars.len().max(1);
    let mut chart = ChartBuilder::on(body)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(46)
        .y_label_area_size(270)
        .build_cartesian_2d(0u32..answers, (0..rows - 1).into_segmented())
        .map_err(|e| fail(&e))?;
    let label_of = |v: &SegmentValue<usize>| match v {
        SegmentValue::CenterOf(i) if *i < rows => bars[rows - 1 - i].label.clone(),
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("answers")
        .x_labels(12)
        .y_labels(rows)
        .y_label_formatter(&label_of)
        .label_style((FAMILY, 15).into_font())
        .axis_desc_style((FAMILY, 15).into_font())
        .draw()
        .map_err(|e| fail(&e))?;
    // Cumulative counts per bar (bottom row = last bar): bar i's segment for k guesses spans
    // from the answers found in fewer guesses to those found in at most k.
    let upto = |bar: &Bar, k: u32| -> u32 {
        bar.guesses
            .iter()
            .filter(|g| g.is_some_and(|g| g <= k))
            .count() as u32
    };
    let row_bar = |v: &SegmentValue<usize>| match v {
        SegmentValue::Exact(i) | SegmentValue::CenterOf(i) if *i < rows => bars.get(rows - 1 - i),
        _ => None,
    };
    for k in 1..=most + u32::from(never) {
        let colour = if k > most { NEVER } else { shade(k) };
        let end = |bar: &Bar| {
            if k > most {
                bar.guesses.len() as u32
            } else {
                upto(bar, k)
            }
        };
        let series = Histogram::horizontal(&chart)
            .style(colour.filled())
            .margin(5)
            .baseline_func(move |v| row_bar(v).map_or(0, |bar| upto(bar, k - 1)))
            .data((0..rows).map(|i| (i, end(&bars[rows - 1 - i]))));
        chart.draw_series(series).map_err(|e| fail(&e))?;
    }
    Ok(())
}
