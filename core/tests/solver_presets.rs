//! Proven optima of the real games, asserted exactly, with every tree checked by the
//! independent verifier. The English Wordle first guesses agree with the published optimal
//! totals (salet 7920, trace 7926, crane 7930). Slow in debug builds, so they run in release
//! (`scripts/test`) and are skipped otherwise.

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{FirstGuesses, Mode, Objective, Solver, SolverConfig};
use hakase_core::trees::treefile;
use hakase_core::verify;
use hakase_core::FeedbackTable;

fn release_only() -> bool {
    if cfg!(debug_assertions) {
        eprintln!("skipped in debug builds: run `scripts/test` (release)");
        return false;
    }
    true
}

/// Solves `game` (optionally from one first guess) and checks value, first guess, tree.
fn solve(game: &str, first: Option<&str>, config: SolverConfig) -> (String, u32, Vec<u32>) {
    let game = load_preset(game).expect("preset");
    let table = FeedbackTable::build(&game);
    let solver = Solver::new(&game, &table, config.clone(), 4_000_000);
    let first = first.map_or(FirstGuesses::Best, |w| {
        FirstGuesses::Only(game.find_guess(w).expect("known word"))
    });
    let solution = solver.solve_game(first, &|_| {});
    let best = solution.best.expect("solvable");
    let tree = solution.tree.expect("tree");
    let checked = verify(&game, &tree, config.mode).expect("the verifier accepts the tree");
    assert_eq!(checked.total, u64::from(best.outcome.value()));
    // Both file formats read back to the same tree.
    let json = treefile::to_json(&game, &tree, serde_json::json!({}));
    assert_eq!(treefile::from_json(&game, &json).expect("json"), tree);
    for compact in [false, true] {
        let text = treefile::to_text(&game, &table, &tree, compact);
        assert_eq!(treefile::from_text(&game, &text).expect("text"), tree);
    }
    (
        game.guess_text(best.guess).to_string(),
        best.outcome.value(),
        checked.distribution,
    )
}

#[test]
fn wordle_first_guesses_match_published_optima() {
    if !release_only() {
        return;
    }
    let expected = [
        ("salet", 7920),
        ("crane", 7930),
        ("trace", 7926),
        ("raise", 8014),
        ("soare", 7997),
    ];
    for (word, total) in expected {
        let (first, value, _) = solve("wordle", Some(word), SolverConfig::default());
        assert_eq!((first.as_str(), value), (word, total));
    }
}

#[test]
fn pokemon_qiita2023_optimum() {
    if !release_only() {
        return;
    }
    let (first, total, distribution) = solve("pokemon-qiita2023", None, SolverConfig::default());
    assert_eq!((first.as_str(), total), ("ジーランス", 964));
    assert_eq!(distribution.iter().sum::<u32>(), 285);
    let worst = SolverConfig {
        objective: Objective::Worst,
        ..SolverConfig::default()
    };
    let (first, total, distribution) = solve("pokemon-qiita2023", None, worst);
    assert_eq!(distribution.len(), WORST_QIITA as usize);
    assert_eq!(
        (first.as_str(), total),
        (BEST_WORST_QIITA, TOTAL_WORST_QIITA)
    );
}

#[test]
fn pokemon_today_optimum() {
    if !release_only() {
        return;
    }
    let (first, total, _) = solve("pokemon-today", None, SolverConfig::default());
    assert_eq!((first.as_str(), total), ("ランクルス", 953));
}

#[test]
fn restricted_search_is_an_upper_bound() {
    if !release_only() {
        return;
    }
    let config = SolverConfig {
        top_k: Some(10),
        ..SolverConfig::default()
    };
    assert!(!config.is_exact());
    let (_, total, _) = solve("pokemon-qiita2023", None, config);
    assert!(
        total >= 964,
        "a restricted search cannot beat the proven optimum"
    );
    assert_eq!(total, TOP10_QIITA);
    let hard = SolverConfig {
        mode: Mode::Hard,
        ..SolverConfig::default()
    };
    let (_, hard_total, _) = solve("pokemon-qiita2023", None, hard);
    assert!(hard_total >= 964);
    assert_eq!(hard_total, HARD_QIITA);
}

/// pokemon-qiita2023 under the worst-case objective: five guesses always suffice (four do
/// not), and the best total within five is the unrestricted optimum itself.
const WORST_QIITA: u32 = 5;
const BEST_WORST_QIITA: &str = "ジーランス";
const TOTAL_WORST_QIITA: u32 = 964;
/// The published restricted method (top 10 by entropy per node) on pokemon-qiita2023.
const TOP10_QIITA: u32 = 964;
/// Hard mode on pokemon-qiita2023.
const HARD_QIITA: u32 = 972;

#[test]
fn a_tiny_transposition_table_degrades_speed_not_results() {
    if !release_only() {
        return;
    }
    let game = load_preset("pokemon-qiita2023").expect("preset");
    let table = FeedbackTable::build(&game);
    // 64 shards of 16 entries: the table forgets almost everything it stores.
    let solver = Solver::new(&game, &table, SolverConfig::default(), 0);
    let first = game.find_guess("ジーランス").expect("known word");
    let solution = solver.solve_game(FirstGuesses::Only(first), &|_| {});
    assert_eq!(solution.best.map(|b| b.outcome.value()), Some(964));
    let tree = solution.tree.expect("tree");
    assert_eq!(
        verify(&game, &tree, Mode::Normal).expect("valid").total,
        964
    );
}

/// A lone first guess reports its parts as they settle (the only progress a search of one
/// huge first guess has), ending with every non-winning part settled.
#[test]
fn a_lone_first_guess_reports_its_parts() {
    let game = load_preset("pokemon-qiita2023").expect("preset");
    let table = FeedbackTable::build(&game);
    let solver = Solver::new(&game, &table, SolverConfig::default(), 1_000_000);
    let guess = game.find_guess("ジーランス").expect("known word");
    let parts = hakase_core::rules::history::open_parts(&table, guess, &game.all_answers()).len();
    let seen = std::sync::Mutex::new(Vec::new());
    let solution = solver.solve_game(FirstGuesses::Only(guess), &|p| {
        if let (Some(step), Some(lower)) = (p.parts, p.lower) {
            seen.lock()
                .expect("lock")
                .push((step, lower, p.work.share()));
        }
    });
    assert_eq!(solution.best.map(|b| b.outcome.value()), Some(964));
    let mut seen = seen.into_inner().expect("lock");
    assert!(
        seen.iter().all(|&((_, all), _, _)| all == parts),
        "{seen:?}"
    );
    seen.sort_by_key(|s| s.0);
    // The bound only rises, from the parts' floors to the value once all are settled, and
    // the work share with it.
    assert!(
        seen.windows(2)
            .all(|w| w[0].1 <= w[1].1 && w[0].2 <= w[1].2),
        "{seen:?}"
    );
    let (_, last_lower, last_share) = *seen.last().expect("reports");
    assert_eq!((last_lower, last_share), (964, 1.0));
    let settled: Vec<usize> = seen.iter().map(|&((settled, _), _, _)| settled).collect();
    assert_eq!(
        settled,
        (0..=parts).collect::<Vec<_>>(),
        "each part once, from none to all"
    );
}

/// A ranking's progress counts each first guess by its expected cost, (Σ part²)^1.75 over its
/// non-winning parts, so that an ETA allows for the costly ones: the steps are exactly the
/// listed guesses' costs, and the last report has done all of the total.
#[test]
fn a_rankings_progress_counts_each_first_guess_by_its_cost() {
    let game = load_preset("pokemon-qiita2023").expect("preset");
    let table = FeedbackTable::build(&game);
    let solver = Solver::new(&game, &table, SolverConfig::default(), 1_000_000);
    let answers = game.all_answers();
    let listed: Vec<_> = (0..game.guesses().len() as u32).step_by(97).collect();
    let cost = |guess| {
        let parts = hakase_core::rules::history::open_parts(&table, guess, &answers);
        let squares: f64 = parts.iter().map(|p| (p.1.len() as f64).powi(2)).sum();
        squares.powf(1.75)
    };
    let mut expected: Vec<f64> = listed.iter().map(|&g| cost(g)).collect();
    let seen = std::sync::Mutex::new(Vec::new());
    solver.solve_game(FirstGuesses::Listed(&listed), &|p| {
        seen.lock().expect("lock").push(p.work);
    });
    let mut seen = seen.into_inner().expect("lock");
    seen.sort_by(|a, b| a.done.total_cmp(&b.done));
    let total: f64 = expected.iter().sum();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.max(1.0);
    assert_eq!(seen.len(), listed.len());
    assert!(seen
        .iter()
        .all(|w| close(w.total, total) && w.resumed == 0.0));
    let mut steps: Vec<f64> = seen
        .iter()
        .scan(0.0, |before, w| {
            let step = w.done - *before;
            *before = w.done;
            Some(step)
        })
        .collect();
    steps.sort_by(f64::total_cmp);
    expected.sort_by(f64::total_cmp);
    assert!(
        steps.iter().zip(&expected).all(|(&a, &b)| close(a, b)),
        "{steps:?} against {expected:?}"
    );
    let last = seen.last().expect("reports");
    assert!(close(last.done, total) && last.eta_secs(10.0).is_none());
}

/// A search for the best first guess counts its first guesses one each: its cutoffs refute
/// the costly-looking guesses cheapest, so the ranking's cost model would make its ETA absurd.
#[test]
fn a_best_search_counts_its_first_guesses_one_each() {
    let game = load_preset("pokemon-qiita2023").expect("preset");
    let table = FeedbackTable::build(&game);
    let solver = Solver::new(&game, &table, SolverConfig::default(), 1_000_000);
    let seen = std::sync::Mutex::new(Vec::new());
    solver.solve_game(FirstGuesses::Best, &|p| {
        seen.lock().expect("lock").push((p.done, p.total, p.work));
    });
    let seen = seen.into_inner().expect("lock");
    assert!(!seen.is_empty());
    for (done, total, work) in seen {
        assert_eq!((work.done, work.total), (done as f64, total as f64));
    }
}
