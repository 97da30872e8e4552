//! Every letter of every Pokémon name must be drawable on the panel.

use crate::common;

use embedded_graphics::prelude::Point;
use hakase_device::font::NAMES;
use hakase_device::{Frame, Ink};

fn name_chars() -> Vec<char> {
    let mut chars: Vec<char> = hakase_core::rules::presets::species()
        .iter()
        .flat_map(|s| s.name_ja.chars().collect::<Vec<_>>())
        .collect();
    chars.sort_unstable();
    chars.dedup();
    chars
}

#[test]
fn every_character_of_every_name_has_a_glyph() {
    let species = hakase_core::rules::presets::species();
    assert_eq!(species.len(), 1025);
    let mut missing = Vec::new();
    for s in &species {
        for ch in s.name_ja.chars() {
            if !NAMES.has_glyph(ch) {
                missing.push((s.name_ja.clone(), ch));
            }
        }
    }
    assert_eq!(missing, Vec::<(String, char)>::new());
}

#[test]
fn every_name_character_draws_pixels() {
    let chars = name_chars();
    // The tricky ones are among them.
    for ch in ['ー', 'ァ', 'ッ', '♀', '♂', '２', 'Ｚ', '：', '・'] {
        assert!(chars.contains(&ch), "{ch} is in some name");
    }
    for ch in chars {
        let mut frame = Frame::blank();
        let advance = NAMES
            .draw(&ch.to_string(), Point::new(10, 20), Ink::Black, &mut frame)
            .unwrap_or_else(|e| panic!("{ch:?}: {e}"));
        assert!(advance > 0, "{ch:?} advances the pen");
        assert!(common::inked(&frame) > 0, "{ch:?} draws pixels");
    }
}

#[test]
fn every_name_renders() {
    for s in hakase_core::rules::presets::species() {
        let mut frame = Frame::blank();
        let width = NAMES
            .draw(&s.name_ja, Point::new(0, 20), Ink::Black, &mut frame)
            .unwrap_or_else(|e| panic!("{}: {e}", s.name_ja));
        assert!(width <= 6 * 12, "{} is {width} px wide", s.name_ja);
    }
}

/// A sheet of every character used in names, for people to check legibility.
#[test]
fn glyph_sheet_matches_golden() {
    let chars = name_chars();
    let mut frame = Frame::blank();
    for (row, line) in chars.chunks(17).enumerate() {
        let text: String = line.iter().collect();
        NAMES
            .draw(
                &text,
                Point::new(2, 13 + 17 * row as i32),
                Ink::Black,
                &mut frame,
            )
            .expect("sheet");
    }
    let dir = common::golden_dir();
    common::check_golden(&frame, &dir.join("glyphs.png"), 1);
    common::check_golden(&frame, &dir.join("glyphs-x4.png"), 4);
}
