//! The entropy ranking and the chart of the seed article's game, pokemon-qiita2023.

use crate::common::preset;
use hakase_core::heuristics::entropy::rank;
use hakase_core::heuristics::strategy::{EntropyStrategy, Strategy};
use hakase_core::trees::chart::Chart;
use hakase_core::Pattern;

#[test]
fn entropy_top_15_on_pokemon_qiita2023() {
    let (game, table) = preset("pokemon-qiita2023");
    let top: Vec<String> = rank(&table, &game.all_answers())
        .iter()
        .take(15)
        .map(|r| format!("{} {:.5}", game.guess_text(r.guess), r.bits))
        .collect();
    assert_eq!(
        top,
        [
            "レントラー 4.15443",
            "ジーランス 4.08785",
            "グラードン 4.06737",
            "ドータクン 4.01163",
            "ネンドール 4.00544",
            "キングラー 3.94865",
            "ルナトーン 3.93535",
            "ヒードラン 3.93524",
            "ドンカラス 3.85808",
            "トドグラー 3.84279",
            "ビークイン 3.77560",
            "ランターン 3.76420",
            "ハンテール 3.71191",
            "ザングース 3.69910",
            "サンダース 3.67307",
        ]
    );
}

#[test]
fn entropy_of_wordle_openers() {
    let (game, table) = preset("wordle");
    let ranked = rank(&table, &game.all_answers());
    assert_eq!(ranked.len(), 12972);
    let top: Vec<String> = ranked
        .iter()
        .take(3)
        .map(|r| format!("{} {:.5}", game.guess_text(r.guess), r.bits))
        .collect();
    assert_eq!(top, ["soare 5.88596", "roate 5.88278", "raise 5.87791"]);
}

#[test]
fn chart_of_rentorar_on_pokemon_qiita2023() {
    let (game, table) = preset("pokemon-qiita2023");
    let first = game.find_guess("レントラー").expect("known");
    let second = |c: &[u32]| EntropyStrategy.choose(&game, &table, c);
    let chart = Chart::build(&game, &table, first, &second);
    assert_eq!(chart.rows.len(), 41);
    let total: usize = chart.rows.iter().map(|r| r.candidates.len()).sum();
    assert_eq!(total, 285);
    let row = |text: &str| {
        let pattern = Pattern::parse(text, 5).expect("valid");
        chart
            .rows
            .iter()
            .find(|r| r.pattern == pattern)
            .expect("row present")
    };
    for (pattern, count) in [
        ("灰灰灰灰灰", 67),
        ("灰灰灰灰黄", 35),
        ("灰灰灰灰緑", 23),
        ("灰黄灰灰灰", 26),
        ("緑灰灰灰灰", 6),
        ("緑緑緑緑緑", 1),
    ] {
        assert_eq!(row(pattern).candidates.len(), count, "{pattern}");
    }
    // The seed article's first line: 灰灰灰灰灰 67 ゴルダック.
    let gray = row("灰灰灰灰灰").second.expect("not a win");
    assert_eq!(game.guess_text(gray), "ゴルダック");
    assert_eq!(row("緑緑緑緑緑").second, None);
    let win = &row("緑緑緑緑緑").candidates;
    assert_eq!(game.answer_text(win[0]), "レントラー");
    // Rows come in pattern order, every non-winning row has a second guess.
    assert!(chart.rows.windows(2).all(|w| w[0].pattern < w[1].pattern));
    assert!(chart
        .rows
        .iter()
        .all(|r| r.second.is_some() != r.pattern.is_win()));
}
