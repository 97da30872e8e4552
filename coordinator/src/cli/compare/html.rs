//! The self-contained HTML report of a comparison: the table, the plot inlined as SVG, and
//! each strategy's worst answers played side by side with the optimum.

use anyhow::Result;
use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::{Comparison, Entry, WorstGame};
use crate::cli::plot::{svg_plot, Bar};

/// Tile colours as the game shows them: gray, yellow, green.
const TILE: [&str; 3] = ["#787c7e", "#c9b458", "#6aaa64"];

/// The whole page as one string (styles inline, no external files).
pub fn report(comparison: &Comparison, title: &str, bars: &[Bar]) -> Result<String> {
    let svg = svg_plot(title, bars)?;
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "hakase compare: " (comparison.game) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { "How good are common strategies? " (comparison.game) }
                p {
                    (comparison.answers) " answers, " (comparison.tries) " tries"
                    @if let Some(first) = &comparison.first { ", every strategy opens with " b { (first) } }
                    ". " (comparison.reference_note) "."
                }
                (table(comparison))
                p.note {
                    "MIN/MEAN/MAX: guesses per answer found; FAIL: answers not found within the tries; "
                    "EXTRA: guesses in total over the optimum; OPTIMAL: answers found in no more guesses "
                    "than the optimal strategy needs. top-k totals are upper bounds of its restricted search."
                }
                h2 { "Guesses per answer" }
                div.plot { (PreEscaped(svg)) }
                h2 { "Worst answers" }
                p.note { "For each strategy, the answers where it needs most guesses more than the optimum; its game on the left, the optimal one on the right." }
                @for entry in comparison.entries.iter().filter(|e| !e.worst.is_empty()) {
                    (worst(entry))
                }
            }
        }
    };
    Ok(page.into_string())
}

fn table(comparison: &Comparison) -> Markup {
    html! {
        table {
            thead { tr {
                th { "strategy" } th { "first" } th { "universe" } th { "min" } th { "mean" }
                th { "max" } th { "failures" } th { "total" } th { "extra" } th { "optimal" } th { "label" }
            } }
            tbody {
                @for e in &comparison.entries {
                    @let r = &e.row;
                    tr {
                        td { (r.strategy) } td { (r.first) } td { (r.universe.as_deref().unwrap_or("—")) } td.n { (r.min) }
                        td.n { (format!("{:.4}", r.mean)) } td.n { (r.max) } td.n { (r.failures.len()) }
                        td.n { (r.total) }
                        td.n { (r.extra.map_or("—".to_string(), |x| format!("{x:+}"))) }
                        td.n { (r.optimal_percent.map_or("—".to_string(), |p| format!("{p:.1}%"))) }
                        td { (r.label) }
                    }
                }
            }
        }
    }
}

fn worst(entry: &Entry) -> Markup {
    html! {
        h3 { (entry.row.strategy) }
        div.games {
            @for w in &entry.worst {
                (side_by_side(w))
            }
        }
    }
}

fn side_by_side(w: &WorstGame) -> Markup {
    let mine = w
        .guesses
        .map_or("never found".to_string(), |g| format!("{g} guesses"));
    html! {
        div.pair {
            div.answer { b { (w.answer) } " — " (mine) " vs " (w.optimum) }
            div.boards {
                (board(&w.tiles[0]))
                (board(&w.tiles[1]))
            }
        }
    }
}

fn board(rows: &[(String, Vec<u8>)]) -> Markup {
    html! {
        div.board {
            @for (word, cells) in rows {
                div.row {
                    @for (letter, cell) in word.chars().zip(cells) {
                        span.tile style=(format!("background:{}", TILE[usize::from(*cell).min(2)])) { (letter) }
                    }
                }
            }
        }
    }
}

const STYLE: &str = "
body { font-family: 'Noto Sans CJK JP', 'Hiragino Sans', sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 10px; text-align: left; }
th { background: #f3f3f3; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
p.note { color: #555; font-size: 90%; max-width: 60em; }
div.plot svg { max-width: 100%; height: auto; }
div.games { display: flex; flex-wrap: wrap; gap: 1.5em; }
div.pair { border: 1px solid #ddd; padding: 0.6em; border-radius: 6px; }
div.boards { display: flex; gap: 1.2em; margin-top: 0.4em; }
div.row { display: flex; gap: 3px; margin-bottom: 3px; }
span.tile { display: inline-block; width: 1.9em; height: 1.9em; line-height: 1.9em; text-align: center; color: white; font-weight: bold; border-radius: 3px; }
";
