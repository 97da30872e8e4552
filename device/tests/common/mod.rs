//! Fixtures shared by the integration tests: the chart behind the golden images and
//! helpers to compare frames with PNG files.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use hakase_core::heuristics::strategy::{EntropyStrategy, Strategy};
use hakase_core::rules::presets::load_preset;
use hakase_core::trees::chart::Chart;
use hakase_core::trees::tree::build_tree;
use hakase_core::FeedbackTable;
use hakase_device::{ChartView, Frame, Ink, PanelColour, HEIGHT, WIDTH};

/// pokemon-qiita2023, first guess レントラー, second guesses, mean and each row's total and
/// worst from the entropy strategy (a heuristic, so not proven).
pub fn rentora_view() -> ChartView {
    let game = load_preset("pokemon-qiita2023").expect("preset");
    let table = FeedbackTable::build(&game);
    let first = game
        .find_guess("レントラー")
        .expect("レントラー is a guess");
    let strategy = EntropyStrategy;
    let chart = Chart::build(&game, &table, first, &|cands| {
        strategy.choose(&game, &table, cands)
    });
    let answers = game.all_answers();
    let tree = build_tree(&table, &answers, 1, &|cands, depth| {
        if depth == 1 {
            first
        } else {
            strategy.choose(&game, &table, cands)
        }
    });
    let mean = tree.evaluate(&game, &table, &answers).mean();
    let mut view =
        ChartView::from_chart(&game, &chart, Some(mean), hakase_device::Label::Heuristic);
    for (row, chart_row) in view.rows.iter_mut().zip(&chart.rows) {
        let n = chart_row.candidates.len() as u64;
        let (total, worst) = match tree.branch(chart_row.pattern) {
            Some(child) if !chart_row.pattern.is_win() => {
                let eval = child.evaluate(&game, &table, &chart_row.candidates);
                (eval.total + n, eval.worst + 1)
            }
            _ => (1, 1),
        };
        row.total = Some(total);
        row.worst = Some(worst);
    }
    view
}

pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("golden")
}

pub fn blessing() -> bool {
    std::env::var("HAKASE_BLESS").is_ok_and(|v| v == "1")
}

/// Decodes a PNG to (width, height, RGB bytes).
pub fn decode_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| {
        panic!(
            "cannot open {}: {e} (run with HAKASE_BLESS=1 to create it)",
            path.display()
        )
    });
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().expect("PNG header");
    let mut data = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut data).expect("PNG data");
    assert_eq!(info.color_type, png::ColorType::Rgb, "{}", path.display());
    assert_eq!(info.bit_depth, png::BitDepth::Eight, "{}", path.display());
    data.truncate(info.buffer_size());
    (info.width, info.height, data)
}

/// The RGB image a frame should give at `scale`.
pub fn expected_rgb(frame: &Frame, scale: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for y in 0..HEIGHT * scale {
        for x in 0..WIDTH * scale {
            out.extend(PanelColour::Red.rgb(frame.pixel(x / scale, y / scale)));
        }
    }
    out
}

/// Asserts that the PNG at `path` shows `frame` at `scale`, pixel for pixel; with
/// HAKASE_BLESS=1 writes it first.
pub fn check_golden(frame: &Frame, path: &Path, scale: u32) {
    if blessing() {
        hakase_device::write_png(frame, path, scale, PanelColour::Red).expect("write golden");
    }
    let (width, height, rgb) = decode_png(path);
    assert_eq!(
        (width, height),
        (WIDTH * scale, HEIGHT * scale),
        "{}",
        path.display()
    );
    let expected = expected_rgb(frame, scale);
    if rgb != expected {
        let first = rgb
            .chunks(3)
            .zip(expected.chunks(3))
            .position(|(a, b)| a != b)
            .unwrap_or(0) as u32;
        panic!(
            "{} differs from the rendered page, first at ({}, {}); rerun with HAKASE_BLESS=1 \
             if the change is intended, then look at the images",
            path.display(),
            first % width,
            first / width
        );
    }
}

/// Counts inked pixels, to tell that something was drawn.
pub fn inked(frame: &Frame) -> usize {
    (0..HEIGHT)
        .flat_map(|y| (0..WIDTH).map(move |x| (x, y)))
        .filter(|&(x, y)| frame.pixel(x, y) != Ink::White)
        .count()
}
