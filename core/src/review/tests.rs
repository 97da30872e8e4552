//! Every number of a review checked against the solver asked directly: f of the position
//! before each move, f of every part the player's guess and the optimal guess split it into,
//! and the loss and luck those give.

use std::sync::OnceLock;

use super::*;
use crate::rules::presets::load_preset;
use crate::solver::{FirstGuesses, Solution};

struct Fixture {
    game: Game,
    table: FeedbackTable,
    solution: Solution,
}

/// pokemon-qiita2023 solved whole (proven optimal: ジーランス, 964).
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let game = load_preset("pokemon-qiita2023").expect("preset");
        let table = FeedbackTable::build(&game);
        let solution = Solver::new(&game, &table, SolverConfig::default(), 1 << 20)
            .solve_game(FirstGuesses::Best, &|_| {});
        Fixture {
            game,
            table,
            solution,
        }
    })
}

fn known(f: &Fixture) -> Known<'_> {
    Known {
        tree: f.solution.tree.as_ref().expect("tree"),
        root_proven: true,
        ranking: &f.solution.ranking,
    }
}

/// The solver, asked directly with a fresh memo: f(node), `None` when infeasible.
fn f_of(f: &Fixture, config: &SolverConfig, node: &Node) -> Option<u32> {
    if node.candidates.is_empty() {
        return Some(0);
    }
    let solver = Solver::new(&f.game, &f.table, config.clone(), 1 << 18);
    match solver.evaluate(node, INFEASIBLE) {
        Outcome::Exact { value, .. } => Some(value),
        Outcome::AtLeast(_) => None,
    }
}

/// The node after `guess` shows `pattern` at `node`.
fn after(f: &Fixture, mode: Mode, node: &Node, guess: GuessId, pattern: Pattern) -> Node {
    Node {
        candidates: node
            .candidates
            .iter()
            .copied()
            .filter(|&a| f.table.get(guess, a) == pattern)
            .collect(),
        guesses_left: node.guesses_left - 1,
        hard: if mode == Mode::Hard {
            node.hard.after(&f.game.guesses()[guess as usize], pattern)
        } else {
            HardState::default()
        },
    }
}

/// Σ f over the non-winning parts `guess` splits `node` into: f(position after the guess).
fn f_after_guess(f: &Fixture, config: &SolverConfig, node: &Node, guess: GuessId) -> Option<u32> {
    partition(&f.table, guess, &node.candidates)
        .into_iter()
        .filter(|(p, _)| !p.is_win())
        .map(|(p, _)| f_of(f, config, &after(f, config.mode, node, guess, p)))
        .sum()
}

fn read(f: &Fixture, words: &[&str], answer: &str) -> ReadGame {
    read_game(
        &f.game,
        &f.table,
        &GameText {
            words: words.to_vec(),
            colours: Colours::FromAnswer,
            answer: Some(answer),
        },
    )
    .expect("a game")
}

/// Checks every number of `review` of `game` against the solver, and returns the totals
/// (f before, f after the player's guess, f after the optimal guess) of each move.
fn check_against_solver(
    f: &Fixture,
    config: &SolverConfig,
    game: &ReadGame,
    review: &Review,
) -> Vec<(u32, u32, u32)> {
    let mut node = Node {
        candidates: f.game.all_answers(),
        guesses_left: config.guess_cap(&f.game),
        hard: HardState::default(),
    };
    let mut seen = Vec::new();
    for (m, step) in review.moves.iter().zip(&game.steps) {
        let n = node.candidates.len();
        assert_eq!(m.before, node.candidates);
        let optimum = m.optimum.known().expect("judged");
        let f_before = f_of(f, config, &node).expect("feasible");
        assert_eq!(optimum.total, f_before);
        let best = optimum.guesses[0];
        let after_best = f_after_guess(f, config, &node, best).expect("feasible");
        let after_played = f_after_guess(f, config, &node, step.guess).expect("feasible");
        // f(H) = |H| + f(after the optimal guess); v = |H| + f(after the player's).
        assert_eq!(f_before, n as u32 + after_best);
        assert_eq!(m.played, Judged::Known(n as u32 + after_played));
        let loss = i64::from(after_played) - i64::from(after_best);
        assert_eq!(m.loss_total(), Some(loss));
        assert_eq!(m.loss(), Some(loss as f64 / n as f64));
        let child = after(f, config.mode, &node, step.guess, step.pattern);
        let luck_after = if step.pattern.is_win() {
            0.0
        } else {
            let f_child = f_of(f, config, &child).expect("feasible");
            assert_eq!(m.after_total, Judged::Known(f_child));
            assert_eq!(m.after, child.candidates);
            f64::from(f_child) / child.candidates.len() as f64
        };
        assert_eq!(
            m.luck(),
            Some(f64::from(after_played) / n as f64 - luck_after)
        );
        seen.push((f_before, after_played, after_best));
        node = child;
    }
    seen
}

#[test]
fn a_game_off_the_tree_is_judged_as_the_solver_says() {
    let f = fixture();
    let cache = ReviewCache::default();
    let reviewer = Reviewer::new(&f.game, &f.table, Rules::default(), &cache).with_tree(known(f));
    let game = read(
        f,
        &["レントラー", "ピカチュウ", "ゴーリキー", "スリーパー"],
        "スリーパー",
    );
    let review = reviewer.review(&game).expect("review");
    let totals = check_against_solver(f, &SolverConfig::default(), &game, &review);
    // The run's optimum 964 over 285 answers; レントラー loses 966 − 964 = 2 in all.
    assert_eq!(totals[0], (964, 966 - 285, 964 - 285));
    assert_eq!(review.moves[0].loss(), Some(2.0 / 285.0));
    // ピカチュウ loses 71 − 61 over 23 answers, ゴーリキー 44 − 42 over 17, スリーパー nothing.
    let losses: Vec<Option<i64>> = review.moves.iter().map(MoveReview::loss_total).collect();
    assert_eq!(losses, [Some(2), Some(10), Some(2), Some(0)]);
    assert_eq!(
        review.moves[0].optimum.known().map(|o| o.source),
        Some(Source::Tree)
    );
    assert_eq!(
        review.moves[1].optimum.known().map(|o| o.source),
        Some(Source::Computed)
    );
    assert_eq!(review.moves[1].before.len(), 23);
    assert_eq!(totals[1].0, 61);
    assert!(review.won());
    // From レントラー and its colours, optimal play finds スリーパー in 3 guesses.
    assert_eq!(review.same_first, Some(Judged::Known(3)));
    // guesses played = optimum at the start + Σ loss − Σ luck.
    let identity = review.start_mean().expect("mean") + review.loss().expect("loss")
        - review.luck().expect("luck");
    assert!((identity - 4.0).abs() < 1e-9, "{identity}");
    assert_eq!(review.perfect(), Some(false));
}

#[test]
fn a_game_on_the_tree_is_perfect_and_follows_the_trees_counts() {
    let f = fixture();
    let cache = ReviewCache::default();
    let reviewer = Reviewer::new(&f.game, &f.table, Rules::default(), &cache).with_tree(known(f));
    let tree = f.solution.tree.as_ref().expect("tree");
    let answer = f.game.find_answer("スリーパー").expect("answer");
    let mut words = Vec::new();
    let mut node = tree;
    loop {
        words.push(f.game.guess_text(node.guess));
        let p = f.table.get(node.guess, answer);
        if p.is_win() {
            break;
        }
        node = node.branch(p).expect("branch");
    }
    let game = read(f, &words, "スリーパー");
    let review = reviewer.review(&game).expect("review");
    check_against_solver(f, &SolverConfig::default(), &game, &review);
    assert_eq!(review.perfect(), Some(true));
    assert_eq!(review.loss(), Some(0.0));
    assert_eq!(review.optimal_moves(), words.len());
    // The same first guess, played optimally, is this very game.
    assert_eq!(review.same_first, Some(Judged::Known(words.len() as u32)));
    assert!(review.moves.iter().all(|m| m
        .optimum
        .known()
        .is_some_and(|o| o.source == Source::Tree && o.proof == Proof::Proven)));
}

#[test]
fn every_optimal_guess_is_listed_and_no_other() {
    let f = fixture();
    let cache = ReviewCache::default();
    let reviewer = Reviewer::new(&f.game, &f.table, Rules::default(), &cache);
    let game = read(f, &["レントラー", "ピカチュウ"], "スリーパー");
    let review = reviewer.review(&game).expect("review");
    let config = SolverConfig::default();
    for m in &review.moves[1..] {
        let optimum = m.optimum.known().expect("judged");
        assert!(optimum.complete);
        let node = Node {
            candidates: m.before.clone(),
            guesses_left: m.guesses_left,
            hard: HardState::default(),
        };
        let n = node.candidates.len() as u32;
        let best: Vec<GuessId> = (0..f.game.guesses().len() as GuessId)
            .filter(|&g| {
                let splits = partition(&f.table, g, &node.candidates).len() > 1
                    || f.game
                        .guess_as_answer(g)
                        .is_some_and(|a| node.candidates == [a]);
                splits && f_after_guess(f, &config, &node, g).map(|v| v + n) == Some(optimum.total)
            })
            .collect();
        let mut listed = optimum.guesses.clone();
        listed.sort_unstable();
        assert_eq!(listed, best, "{} answers", n);
        assert_eq!(optimum.count, best.len());
    }
}

#[test]
fn a_guess_that_splits_nothing_costs_a_whole_guess() {
    let f = fixture();
    let cache = ReviewCache::default();
    let reviewer = Reviewer::new(&f.game, &f.table, Rules::default(), &cache);
    // レントラー twice: the second shows the same colours to every answer left.
    let game = read(f, &["レントラー", "レントラー", "スリーパー"], "スリーパー");
    let review = reviewer.review(&game).expect("review");
    let second = &review.moves[1];
    let node = Node {
        candidates: second.before.clone(),
        guesses_left: 9,
        hard: HardState::default(),
    };
    let same_one_fewer = Node {
        guesses_left: 8,
        ..node.clone()
    };
    let config = SolverConfig::default();
    let n = node.candidates.len() as u32;
    assert_eq!(
        second.played,
        Judged::Known(n + f_of(f, &config, &same_one_fewer).expect("feasible"))
    );
    assert_eq!(second.loss_total(), Some(i64::from(n)));
    // It learns nothing, so the luck is exactly 0 whatever the colours.
    assert_eq!(second.mean_left, n as f64);
    assert_eq!(second.luck(), Some(0.0));
}

#[test]
fn hard_mode_is_judged_under_hard_rules() {
    let f = fixture();
    let cache = ReviewCache::default();
    let rules = Rules {
        mode: Mode::Hard,
        max_guesses: None,
    };
    let reviewer = Reviewer::new(&f.game, &f.table, rules, &cache);
    let game = read(f, &["レントラー", "ゴーリキー", "スリーパー"], "スリーパー");
    // レントラー shows スリーパー only its last ー, which ゴーリキー keeps in place.
    let review = reviewer.review(&game).expect("review");
    check_against_solver(f, &rules.config(), &game, &review);
    // ピカチュウ drops that green ー: hard mode refuses it, naming the step.
    let game = read(f, &["レントラー", "ピカチュウ", "スリーパー"], "スリーパー");
    let err = reviewer.review(&game).expect_err("not allowed");
    assert_eq!(
        err,
        ReviewError::Query(QueryError::NotAllowed {
            step: 2,
            guess: "ピカチュウ".into(),
            why: crate::oracle::HARD_MODE_RULE.into(),
        })
    );
    let game = read(f, &["ジーランス", "スリーパー"], "スリーパー");
    let review = reviewer.review(&game).expect("review");
    let totals = check_against_solver(f, &rules.config(), &game, &review);
    // The hard-mode optimum of the whole game, solved on the spot.
    let hard = Solver::new(&f.game, &f.table, rules.config(), 1 << 20)
        .solve_game(FirstGuesses::Best, &|_| {});
    assert_eq!(Some(totals[0].0), hard.best.map(|b| b.outcome.value()));
}

#[test]
fn strict_mode_is_judged_under_strict_rules() {
    let f = fixture();
    let cache = ReviewCache::default();
    let rules = Rules {
        mode: Mode::Strict,
        max_guesses: None,
    };
    let reviewer = Reviewer::new(&f.game, &f.table, rules, &cache);
    let game = read(f, &["レントラー", "ゴーリキー", "スリーパー"], "スリーパー");
    let review = reviewer.review(&game).expect("review");
    check_against_solver(f, &rules.config(), &game, &review);
    // Every optimal guess of a strict position is a possible answer.
    for m in &review.moves {
        let optimum = m.optimum.known().expect("judged");
        assert!(optimum.guesses.iter().all(|&g| f
            .game
            .guess_as_answer(g)
            .is_some_and(|a| m.before.contains(&a))));
    }
}

#[test]
fn a_run_restricted_to_its_first_guess_only_judges_the_first_move_given_it() {
    let f = fixture();
    let first = f.game.find_guess("レントラー").expect("word");
    let solution = Solver::new(&f.game, &f.table, SolverConfig::default(), 1 << 20)
        .solve_game(FirstGuesses::Only(first), &|_| {});
    let cache = ReviewCache::default();
    let reviewer = Reviewer::new(&f.game, &f.table, Rules::default(), &cache).with_tree(Known {
        tree: solution.tree.as_ref().expect("tree"),
        root_proven: false,
        ranking: &solution.ranking,
    });
    let game = read(f, &["ジーランス", "スリーパー"], "スリーパー");
    let review = reviewer.review(&game).expect("review");
    let first_move = review.moves[0].optimum.known().expect("judged");
    assert_eq!(first_move.proof, Proof::GivenFirstGuess);
    assert_eq!(first_move.guesses, [first]);
    assert_eq!(first_move.total, 966);
    assert!(!first_move.complete);
    // ジーランス does better than the run's fixed first guess: the loss is negative, and the
    // move counts as optimal against what the run knows.
    assert_eq!(review.moves[0].played, Judged::Known(964));
    assert_eq!(review.moves[0].loss_total(), Some(-2));
    assert_eq!(review.moves[0].optimal(), Some(true));
}

#[test]
fn positions_above_the_solve_limit_are_not_solved() {
    let f = fixture();
    let cache = ReviewCache::default();
    let reviewer = Reviewer::new(&f.game, &f.table, Rules::default(), &cache).with_solve_limit(100);
    let game = read(f, &["レントラー", "ゴーリキー", "スリーパー"], "スリーパー");
    let review = reviewer.review(&game).expect("review");
    assert_eq!(
        review.moves[0].optimum,
        Judged::TooLarge {
            candidates: 285,
            limit: 100
        }
    );
    assert_eq!(review.moves[0].loss(), None);
    assert_eq!(review.perfect(), None);
    assert!(review.moves[1].optimum.known().is_some());
}

#[test]
fn a_cap_on_guesses_makes_positions_infeasible() {
    let f = fixture();
    let cache = ReviewCache::default();
    let rules = Rules {
        mode: Mode::Normal,
        max_guesses: Some(3),
    };
    let reviewer = Reviewer::new(&f.game, &f.table, rules, &cache);
    let game = read(f, &["レントラー", "レントラー", "スリーパー"], "スリーパー");
    let review = reviewer.review(&game).expect("review");
    // Two guesses left for 23 answers: no strategy finds them all.
    assert_eq!(review.moves[1].optimum, Judged::Infeasible);
    assert_eq!(review.moves[1].loss(), None);
}

#[test]
fn bad_histories_are_refused_at_their_first_fault() {
    let f = fixture();
    let cache = ReviewCache::default();
    let reviewer = Reviewer::new(&f.game, &f.table, Rules::default(), &cache);
    let rent = f.game.find_guess("レントラー").expect("word");
    let gori = f.game.find_guess("ゴーリキー").expect("word");
    let game = ReadGame {
        steps: vec![
            Step {
                guess: rent,
                pattern: Pattern::parse("灰灰灰灰緑", 5).expect("pattern"),
            },
            Step {
                guess: gori,
                pattern: Pattern::parse("灰灰灰灰灰", 5).expect("pattern"),
            },
        ],
        answer: None,
    };
    let err = reviewer.review(&game).expect_err("no answer fits");
    assert_eq!(
        err.to_string(),
        format!(
            "step 2 (ゴーリキー 灰灰灰灰灰): {}",
            crate::rules::history::NO_ANSWER_FITS
        )
    );
}

#[test]
fn a_second_review_reads_its_positions_from_the_cache() {
    let f = fixture();
    let cache = ReviewCache::default();
    let reviewer = Reviewer::new(&f.game, &f.table, Rules::default(), &cache);
    let game = read(f, &["レントラー", "ゴーリキー", "スリーパー"], "スリーパー");
    let first = reviewer.review(&game).expect("review");
    let held = cache.positions();
    assert!(held >= 3, "{held}");
    let again = Reviewer::new(&f.game, &f.table, Rules::default(), &cache)
        .review(&game)
        .expect("review");
    assert_eq!(first, again);
    assert_eq!(cache.positions(), held);
}
