//! `hakase display`: the chart on the 2.13" e-paper panel, or its PNG previews and C header.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use hakase_core::solver::{FirstGuesses, Solver, SolverConfig, DEFAULT_MEMO_ENTRIES};
use hakase_core::{FeedbackTable, Game};
use hakase_device::{
    button_pages, cycle_pages, render_pages, select_page, show_on_panel, write_c_header, write_png,
    ChartView, Frame, Label, PanelColour, PanelConfig,
};

use crate::game_args::{allow_first, GameArgs};
use crate::output::{emit, plural, JsonArg, View};
use serde::Serialize;

/// Show the optimal chart on a Waveshare 2.13" (B/C) e-paper panel, or write its pages as
/// PNG previews or a C header for firmware.
///
/// The chart comes from a run (--run R) or, without a run, from an exact solve in memory of
/// --game (optionally from --first W), which is quick for small games.
#[derive(Debug, Args)]
pub struct Display {
    /// The run whose chart to show.
    #[command(flatten)]
    pub at: crate::cli::run_args::RunArgs,

    /// Without a run: solve this preset game exactly in memory.
    #[arg(long, value_name = "G", conflicts_with = "run")]
    pub game: Option<String>,

    /// The first guess (default: the optimal one).
    #[arg(long, value_name = "W")]
    pub first: Option<String>,

    /// Let --first be any string of at most 5 letters, not only an allowed guess (e.g. a
    /// string from `hakase design`); later guesses are still the game's words.
    #[arg(long, requires = "first", conflicts_with = "run")]
    pub allow_any_first: bool,

    /// Write each page as PNG into DIR (page-NN.png at panel size and page-NN-x4.png).
    #[arg(long, value_name = "DIR")]
    pub png: Option<PathBuf>,

    /// Write every page as a C header for firmware.
    #[arg(long, value_name = "FILE")]
    pub c_header: Option<PathBuf>,

    /// Show on a panel through this spidev device, e.g. /dev/spidev0.0.
    #[arg(long, value_name = "DEV", requires = "gpiochip")]
    pub spi: Option<PathBuf>,

    /// The GPIO character device of the panel's lines, e.g. /dev/gpiochip0.
    #[arg(long, value_name = "DEV")]
    pub gpiochip: Option<PathBuf>,

    /// GPIO line of BUSY.
    #[arg(long, value_name = "N", default_value_t = 24)]
    pub busy: u32,

    /// GPIO line of DC.
    #[arg(long, value_name = "N", default_value_t = 25)]
    pub dc: u32,

    /// GPIO line of RST.
    #[arg(long, value_name = "N", default_value_t = 17)]
    pub rst: u32,

    /// Show page N (from 1) on the panel.
    #[arg(long, value_name = "N", requires = "spi", conflicts_with_all = ["cycle", "button"],
          value_parser = clap::value_parser!(u64).range(1..))]
    pub page: Option<u64>,

    /// Show the pages on the panel in turn, this long each (e.g. 10m, 30s, 1h).
    #[arg(long, value_name = "INTERVAL", requires = "spi", conflicts_with = "button",
          value_parser = parse_interval)]
    pub cycle: Option<Duration>,

    /// Show the next page each time the button on this GPIO line is pressed.
    #[arg(long, value_name = "GPIO", requires = "spi")]
    pub button: Option<u32>,

    /// Text or JSON for the summary of what was written or shown.
    #[command(flatten)]
    pub output: JsonArg,
}

/// What `display` drew and where it went.
#[derive(Debug, Serialize)]
struct DisplayReport {
    game: String,
    /// The run charted, null for an in-memory solve.
    run: Option<String>,
    first_guess: String,
    /// "proven-optimal", "exact" or "heuristic", as on the page.
    label: Label,
    /// Mean guesses over all answers.
    mean: Option<f64>,
    /// How many pages the chart takes.
    pages: usize,
    /// The files written: PNG previews, then the C header.
    files: Vec<String>,
    /// The panel's SPI device, when the chart was shown on a panel.
    panel: Option<String>,
}

impl View for DisplayReport {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        let pages = plural(self.pages as u64, "page", "pages");
        match self.files.as_slice() {
            [] => {}
            [one] => writeln!(out, "wrote {one}")?,
            [first, .., last] => {
                writeln!(out, "wrote {} files: {first} … {last}", self.files.len())?
            }
        }
        writeln!(
            out,
            "{} on {}: {pages}, {}",
            self.first_guess,
            self.game,
            self.label.claim(
                self.label
                    .given_first()
                    .then_some(self.first_guess.as_str())
            )
        )?;
        if let Some(panel) = &self.panel {
            writeln!(out, "shown on the panel at {panel}")?;
        }
        Ok(())
    }
}

/// Reads `10m`, `30s`, `1h` or plain seconds (a clap value parser, so a bad interval is
/// refused before anything is computed).
fn parse_interval(text: &str) -> Result<Duration, String> {
    interval(text).map_err(|e| e.to_string())
}

fn interval(text: &str) -> Result<Duration> {
    let text = text.trim();
    let (number, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let n: u64 = number
        .parse()
        .with_context(|| format!("{text:?}: expected e.g. 10m, 30s or 1h"))?;
    let seconds = match unit {
        "" | "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        _ => bail!("{text:?}: the unit must be s, m or h"),
    };
    if seconds == 0 {
        bail!("the interval must be longer than zero");
    }
    Ok(Duration::from_secs(seconds))
}

impl Display {
    /// Builds the chart's pages and sends them where asked.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        if let Some(dir) = self.png.as_ref().filter(|d| d.exists() && !d.is_dir()) {
            // The pages are several files; a file here is a mistaken path, not one to replace.
            bail!(
                "--png {}: is a file, but --png takes a directory to write the pages into \
                 (page-01.png, page-01-x4.png, …; pages already there are overwritten)",
                dir.display()
            );
        }
        let view = self.view()?;
        let frames = render_pages(&view).context("rendering the chart")?;
        if let Some(page) = self.page {
            select_page(&frames, usize::try_from(page).unwrap_or(usize::MAX))?;
        }
        let mut report = DisplayReport {
            game: view.game.clone(),
            run: self.at.run.clone(),
            first_guess: view.first_guess.clone(),
            label: view.label,
            mean: view.mean_guesses,
            pages: frames.len(),
            files: Vec::new(),
            panel: None,
        };
        if let Some(dir) = &self.png {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            for (i, frame) in frames.iter().enumerate() {
                for (scale, suffix) in [(1, ""), (4, "-x4")] {
                    let path = dir.join(format!("page-{:02}{suffix}.png", i + 1));
                    write_png(frame, &path, scale, PanelColour::Red)
                        .with_context(|| format!("writing {}", path.display()))?;
                    report.files.push(path.display().to_string());
                }
            }
        }
        if let Some(path) = &self.c_header {
            let file = std::fs::File::create(path)
                .with_context(|| format!("creating {}", path.display()))?;
            write_c_header(&frames, std::io::BufWriter::new(file))
                .with_context(|| format!("writing {}", path.display()))?;
            report.files.push(path.display().to_string());
        }
        if let Some(spi) = &self.spi {
            let config = PanelConfig {
                spi: spi.clone(),
                gpiochip: self.gpiochip.clone().unwrap_or_default(),
                busy: self.busy,
                dc: self.dc,
                rst: self.rst,
            };
            self.drive(&config, &frames)?;
            report.panel = Some(spi.display().to_string());
        }
        if report.files.is_empty() && report.panel.is_none() {
            bail!("say where to show the chart: --png DIR, --c-header FILE or --spi DEV --gpiochip DEV");
        }
        emit(out, self.output, &report)
    }

    fn drive(&self, config: &PanelConfig, frames: &[Frame]) -> Result<()> {
        if let Some(interval) = self.cycle {
            cycle_pages(config, frames, interval).context("cycling pages on the panel")?;
            return Ok(());
        }
        if let Some(button) = self.button {
            button_pages(config, frames, button).context("paging with the button")?;
            return Ok(());
        }
        let page = self
            .page
            .map_or(1, |p| usize::try_from(p).unwrap_or(usize::MAX));
        let frame = select_page(frames, page)?;
        show_on_panel(config, frame).context("showing the chart on the panel")?;
        Ok(())
    }

    /// The chart to show: from the run, or from an in-memory exact solve.
    fn view(&self) -> Result<ChartView> {
        if let Some(run) = self.at.spec() {
            let run = hakase_runs::load(run, &self.at.data_dir())
                .with_context(|| format!("loading run {run:?}"))?;
            let first = self
                .first
                .as_deref()
                .map(|w| run.game.find_guess(w).context("reading --first"))
                .transpose()?;
            let oracle = run.oracle()?;
            let chart = oracle.chart(first)?;
            let label = run.label(chart.first);
            return Ok(ChartView::from_optimal(&run.game, &chart, label));
        }
        let Some(name) = &self.game else {
            bail!("give --run R, or --game G to solve a game in memory");
        };
        let args = GameArgs {
            game: Some(name.clone()),
            answers: None,
            guesses: None,
            tries: None,
        };
        let game: Game = allow_first(args.load()?, self.first.as_deref(), self.allow_any_first)?;
        let table = FeedbackTable::build(&game);
        let solver = Solver::new(
            &game,
            &table,
            SolverConfig::default(),
            DEFAULT_MEMO_ENTRIES / 8,
        );
        let first = match &self.first {
            Some(w) => FirstGuesses::Only(game.find_guess(w).context("reading --first")?),
            None => FirstGuesses::Best,
        };
        let solution = solver.solve_game(first, &|_| {});
        let oracle = hakase_core::oracle::Oracle::new(&game, &table, &solution)?;
        let chart = oracle.chart(None)?;
        // An exact solve of one given first guess is exact, not proven optimal.
        let label = Label::of_result(solution.proven, self.first.is_some());
        Ok(ChartView::from_optimal(&game, &chart, label))
    }
}
