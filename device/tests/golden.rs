//! The chart pages of a fixed chart must stay pixel-identical to the reviewed PNGs in
//! device/golden/. Regenerate with HAKASE_BLESS=1 and look at the -x4 images before
//! committing them.

use crate::common;

use hakase_device::{page_count, render_page_number, render_pages, Ink, ROWS_PER_PAGE};

#[test]
fn rentora_pages_match_golden() {
    let view = common::rentora_view();
    let frames = render_pages(&view).expect("render");
    let rows = view.rows.iter().filter(|r| !r.is_win()).count();
    assert_eq!(frames.len(), rows.div_ceil(ROWS_PER_PAGE));
    assert_eq!(frames.len(), page_count(&view));

    let dir = common::golden_dir();
    if common::blessing() {
        for entry in std::fs::read_dir(&dir).expect("golden dir").flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with("rentora-p") {
                std::fs::remove_file(entry.path()).expect("remove stale golden");
            }
        }
    }
    for (i, frame) in frames.iter().enumerate() {
        let page = i + 1;
        common::check_golden(frame, &dir.join(format!("rentora-p{page:02}.png")), 1);
        common::check_golden(frame, &dir.join(format!("rentora-p{page:02}-x4.png")), 4);
        assert_eq!(&render_page_number(&view, page).expect("page"), frame);
    }
    let stored = std::fs::read_dir(&dir)
        .expect("golden dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("rentora-p"))
        .count();
    assert_eq!(
        stored,
        2 * frames.len(),
        "stale golden pages in {}",
        dir.display()
    );
}

#[test]
fn rentora_view_is_what_the_core_chart_says() {
    let view = common::rentora_view();
    assert_eq!(view.game, "pokemon-qiita2023");
    assert_eq!(view.first_guess, "レントラー");
    assert_eq!(view.label, hakase_device::Label::Heuristic);
    let total: usize = view.rows.iter().map(|r| r.remaining).sum();
    let game = hakase_core::rules::presets::load_preset("pokemon-qiita2023").expect("preset");
    assert_eq!(total, game.answers().len());
    assert!(view.rows.iter().all(|r| r.cells.len() == 5));
    let wins: Vec<_> = view.rows.iter().filter(|r| r.is_win()).collect();
    assert_eq!(wins.len(), 1);
    assert_eq!(wins[0].second_guess, None);
    assert!(view
        .rows
        .iter()
        .filter(|r| !r.is_win())
        .all(|r| r.second_guess.is_some()));
}

#[test]
fn first_page_starts_with_the_biggest_branch_and_uses_colour() {
    let view = common::rentora_view();
    let biggest = view.rows.iter().map(|r| r.remaining).max().expect("rows");
    let first = hakase_device::layout::display_rows(&view)[0];
    assert_eq!(first.remaining, biggest);
    let frames = render_pages(&view).expect("render");
    let has_colour = frames.iter().any(|f| {
        (0..hakase_device::HEIGHT)
            .any(|y| (0..hakase_device::WIDTH).any(|x| f.pixel(x, y) == Ink::Colour))
    });
    assert!(has_colour, "yellow hints are drawn in the panel colour");
}
