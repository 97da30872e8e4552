//! Generated puzzles checked independently of the generator: the colours are recomputed here
//! from the words with the game's rule (written again below, not the library's), the answers
//! left are recounted, and best moves are proven by a second exact computation on a game
//! rebuilt from the words of the position alone (fresh ids, fresh solver, every allowed guess
//! evaluated one by one, no classes or bounds shared with the generator).

use std::collections::HashSet;

use hakase_core::puzzle::careless::naive_feedback;
use hakase_core::puzzle::level::KINDS;
use hakase_core::puzzle::{
    plan, DayOrder, Decision, Generator, Goal, Grade, Kind, Level, LevelMix, Puzzle, Reasoning,
};
use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{Solver, SolverConfig, INFEASIBLE};
use hakase_core::{feedback, FeedbackTable, Game, GuessId, Pattern, PatternStyle, WordListInput};

/// The rule as the blog spells it out: greens first; then, left to right, a letter is yellow
/// only while the answer has a copy of it not yet used. 0 gray, 1 yellow, 2 green.
fn colours(guess: &[char], answer: &[char]) -> Vec<u8> {
    let mut out = vec![0u8; guess.len()];
    let mut used = vec![false; answer.len()];
    for i in 0..guess.len() {
        if answer.get(i) == Some(&guess[i]) {
            out[i] = 2;
            used[i] = true;
        }
    }
    for i in 0..guess.len() {
        if out[i] == 2 {
            continue;
        }
        if let Some(j) = (0..answer.len()).find(|&j| !used[j] && answer[j] == guess[i]) {
            used[j] = true;
            out[i] = 1;
        }
    }
    out
}

/// Every cell on its own: the careless reader's rule.
fn careless_colours(guess: &[char], answer: &[char]) -> Vec<u8> {
    guess
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if answer.get(i) == Some(c) {
                2
            } else if answer.contains(c) {
                1
            } else {
                0
            }
        })
        .collect()
}

fn read_cells(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| match c {
            '灰' | 'B' => 0,
            '黄' | 'Y' => 1,
            '緑' | 'G' => 2,
            other => panic!("unexpected cell {other:?} in {text:?}"),
        })
        .collect()
}

fn chars(word: &str) -> Vec<char> {
    word.chars().collect()
}

/// The answers (as text) that fit every row under `rule`.
fn fitting(
    answers: &[String],
    rows: &[(Vec<char>, Vec<u8>)],
    rule: fn(&[char], &[char]) -> Vec<u8>,
) -> Vec<String> {
    answers
        .iter()
        .filter(|a| {
            let a = chars(a);
            rows.iter().all(|(g, p)| rule(g, &a) == *p)
        })
        .cloned()
        .collect()
}

fn answer_texts(game: &Game) -> Vec<String> {
    (0..game.answers().len() as u32)
        .map(|a| game.answer_text(a).to_string())
        .collect()
}

fn guess_texts(game: &Game) -> Vec<String> {
    (0..game.guesses().len() as u32)
        .map(|g| game.guess_text(g).to_string())
        .collect()
}

/// Checks one puzzle from its words alone; panics with the day on any wrong claim.
fn check(game: &Game, p: &Puzzle) {
    let day = p.day;
    let answers = answer_texts(game);
    let rows: Vec<(Vec<char>, Vec<u8>)> = p
        .rows
        .iter()
        .map(|r| (chars(&r.guess), read_cells(&r.pattern)))
        .collect();
    assert!(
        rows.iter().all(|(g, c)| g.len() == c.len()),
        "day {day}: a row's colours do not match its guess"
    );
    let left = fitting(&answers, &rows, colours);
    match &p.grade {
        Grade::Deduction(g) => {
            assert_eq!(p.kind, Kind::Deduction);
            assert_eq!(
                left,
                vec![p.solution.clone()],
                "day {day}: not a unique answer"
            );
            let counts: Vec<usize> = (1..=rows.len())
                .map(|k| fitting(&answers, &rows[..k], colours).len())
                .collect();
            assert_eq!(counts, g.counts, "day {day}: answers left per row");
            for skip in 0..rows.len() {
                let mut fewer = rows.clone();
                fewer.remove(skip);
                assert!(
                    fitting(&answers, &fewer, colours).len() > 1,
                    "day {day}: row {} is not needed",
                    skip + 1
                );
            }
            let careless = fitting(&answers, &rows, careless_colours);
            assert_eq!(careless.len(), g.careless_left, "day {day}: careless count");
            assert_eq!(careless.contains(&p.solution), g.careless_keeps_answer);
            let reasoning = if careless != [p.solution.clone()] {
                Reasoning::LetterCounts
            } else if rows.iter().any(|(_, c)| c.contains(&1)) {
                Reasoning::YellowsPlaced
            } else {
                Reasoning::GreensOnly
            };
            assert_eq!(reasoning, g.reasoning, "day {day}: reasoning");
            let level = match reasoning {
                Reasoning::GreensOnly => Level::Easy,
                Reasoning::YellowsPlaced => Level::Medium,
                Reasoning::LetterCounts => Level::Hard,
            };
            assert_eq!(level, p.level, "day {day}: level");
        }
        Grade::BestMove(g) => {
            assert_eq!(p.kind, Kind::BestMove);
            assert_eq!(left, g.candidates, "day {day}: answers left");
            check_best_move(game, p, g, &left);
        }
    }
}

/// The second exact computation of a best move.
fn check_best_move(
    game: &Game,
    p: &Puzzle,
    g: &hakase_core::puzzle::BestMoveGrade,
    left: &[String],
) {
    let day = p.day;
    let guesses = guess_texts(game);
    let guesses_left = game.tries() - p.rows.len() as u32;
    let sub = Game::new(
        "check",
        WordListInput::from_words("guesses", &guesses),
        WordListInput::from_words("answers", left),
        guesses_left,
        PatternStyle::Digits,
    )
    .expect("sub-game");
    let table = FeedbackTable::build(&sub);
    let solver = Solver::new(&sub, &table, SolverConfig::default(), 1 << 20);
    let root = solver.root(guesses_left);
    let n = left.len() as u32;
    let id = |word: &str| sub.find_guess(word).expect("a guess of the game");
    let total = |guess: GuessId| solver.evaluate_guess(&root, guess, INFEASIBLE).value();
    let worst = |guess: GuessId| {
        (1..=guesses_left)
            .find(|&d| {
                let node = solver.root(d);
                solver.evaluate_guess(&node, guess, d * n + 1).is_exact()
            })
            .unwrap_or(INFEASIBLE)
    };
    let best = id(&p.solution);
    assert_eq!(total(best), g.total, "day {day}: best total");
    assert_eq!(worst(best), g.worst, "day {day}: best worst case");
    for t in &g.tempting {
        let guess = id(&t.guess);
        assert_eq!(total(guess), t.total, "day {day}: {} total", t.strategy);
        assert_eq!(worst(guess), t.worst, "day {day}: {} worst", t.strategy);
    }
    let entropy = &g.tempting[0];
    assert_eq!(entropy.strategy, "entropy");
    match g.goal {
        Goal::WinWithin { guesses: 2 } => {
            // By brute force over the words: the guesses that give every answer its own colours.
            let separators: Vec<&String> = guesses
                .iter()
                .filter(|w| {
                    let w = chars(w);
                    let mut seen = HashSet::new();
                    left.iter().all(|a| seen.insert(colours(&w, &chars(a))))
                })
                .collect();
            assert_eq!(
                separators,
                vec![&p.solution],
                "day {day}: separating guesses"
            );
            let missed = g.tempting.iter().map(|t| t.worst.saturating_sub(2)).max();
            assert_eq!(missed, Some(g.margin), "day {day}: margin");
            assert!(g.margin > 0);
        }
        Goal::WinWithin { .. } => panic!("day {day}: only two-guess wins are generated"),
        Goal::UniqueOptimum => {
            for guess in 0..sub.guesses().len() as GuessId {
                if guess != best {
                    assert!(
                        !solver.evaluate_guess(&root, guess, g.total + 1).is_exact(),
                        "day {day}: {} is as good as the solution",
                        sub.guess_text(guess)
                    );
                }
            }
            assert!(entropy.total > g.total, "day {day}: entropy is not wrong");
            let missed = g
                .tempting
                .iter()
                .map(|t| t.total.saturating_sub(g.total))
                .max();
            assert_eq!(missed, Some(g.margin), "day {day}: margin");
            assert_eq!(p.level, Level::Hard);
        }
    }
}

/// Checks a batch: every puzzle, days 1..=N in order, and no near-duplicates.
fn check_batch(game: &Game, puzzles: &[Puzzle]) {
    let mut answers = HashSet::new();
    let mut first_rows = HashSet::new();
    for (i, p) in puzzles.iter().enumerate() {
        assert_eq!(p.day, i + 1);
        assert_eq!(p.game, game.name());
        check(game, p);
        let key = match &p.grade {
            Grade::Deduction(_) => vec![p.solution.clone()],
            Grade::BestMove(g) => g.candidates.clone(),
        };
        assert!(
            answers.insert(key),
            "day {}: same answers as an earlier day",
            p.day
        );
        assert!(
            first_rows.insert(p.rows[0].clone()),
            "day {}: same first row",
            p.day
        );
    }
}

fn generate(game: &Game, table: &FeedbackTable, count: usize, mix: &str, seed: u64) -> Vec<Puzzle> {
    let mix: LevelMix = mix.parse().expect("mix");
    let generator = Generator::new(game, table);
    let mut order = DayOrder::new(plan(count, &mix, &KINDS, seed), &[]);
    let mut puzzles = Vec::new();
    loop {
        let Some((slot, attempt)) = order.wanted().next() else {
            break;
        };
        let made = generator.generate(&slot, seed, attempt);
        for decision in order.offer(slot.day, attempt, made) {
            match decision {
                Decision::Accepted(p) => puzzles.push(p),
                Decision::Reissued { .. } => {}
                Decision::Missing { day, why } => panic!("day {day}: no puzzle ({why:?})"),
            }
        }
    }
    puzzles
}

#[test]
fn a_generated_batch_checks_out_and_is_reproducible() {
    let game = load_preset("pokemon-qiita2023").expect("preset");
    let table = FeedbackTable::build(&game);
    let puzzles = generate(&game, &table, 6, "easy:1,medium:1,hard:1", 11);
    check_batch(&game, &puzzles);
    let levels: Vec<Level> = puzzles.iter().map(|p| p.level).collect();
    for level in [Level::Easy, Level::Medium, Level::Hard] {
        assert_eq!(levels.iter().filter(|&&l| l == level).count(), 2);
    }
    assert_eq!(
        puzzles,
        generate(&game, &table, 6, "easy:1,medium:1,hard:1", 11)
    );
}

#[test]
fn a_wordle_best_move_problem_checks_out() {
    let game = load_preset("wordle").expect("preset");
    let table = FeedbackTable::build(&game);
    let generator = Generator::new(&game, &table);
    let slot = hakase_core::puzzle::Slot {
        day: 1,
        level: Level::Medium,
        kind: Kind::BestMove,
    };
    let p = generator.generate(&slot, 5, 0).expect("a puzzle");
    assert_eq!(p.level, Level::Medium);
    check(&game, &p);
}

fn committed(game: &str) -> Vec<Puzzle> {
    let path = format!(
        "{}/data/puzzles/{game}/puzzles.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("committed batch");
    serde_json::from_str(&text).expect("batch JSON")
}

fn check_committed(name: &str) {
    let game = load_preset(name).expect("preset");
    let puzzles = committed(name);
    assert_eq!(puzzles.len(), 90);
    check_batch(&game, &puzzles);
    for level in [Level::Easy, Level::Medium, Level::Hard] {
        assert_eq!(
            puzzles.iter().filter(|p| p.level == level).count(),
            30,
            "{level}"
        );
    }
}

#[test]
fn the_committed_pokemon_batch_checks_out() {
    check_committed("pokemon-today");
}

#[test]
fn the_committed_wordle_batch_checks_out() {
    check_committed("wordle");
}

#[test]
fn the_careless_reader_follows_the_naive_rule() {
    let game = Game::new(
        "blog",
        WordListInput::from_words("g", &["drill", "asset"]),
        WordListInput::from_words("a", &["slosh"]),
        6,
        PatternStyle::Letters,
    )
    .expect("game");
    let word = |g: u32| game.guesses()[g as usize];
    let slosh = game.answers()[0];
    let show = |p: Pattern| p.format(5, PatternStyle::Letters);
    assert_eq!(show(feedback(&word(0), &slosh)), "BBBYB");
    assert_eq!(show(naive_feedback(&word(0), &slosh)), "BBBYY");
    assert_eq!(show(feedback(&word(1), &slosh)), "BYYBB");
    assert_eq!(show(naive_feedback(&word(1), &slosh)), "BYYBB");
}

#[test]
fn level_mixes_add_up_and_bad_ones_are_refused() {
    let mix: LevelMix = "easy:40%,medium:40%,hard:20%".parse().expect("mix");
    assert_eq!(
        mix.counts(365),
        vec![(Level::Easy, 146), (Level::Medium, 146), (Level::Hard, 73)]
    );
    let thirds: LevelMix = "hard:1,easy:1,medium:1".parse().expect("mix");
    assert_eq!(
        thirds.counts(10),
        vec![(Level::Easy, 3), (Level::Medium, 3), (Level::Hard, 4)]
    );
    let slots = plan(365, &mix, &KINDS, 9);
    assert_eq!(slots.len(), 365);
    let hard_best = slots
        .iter()
        .filter(|s| s.level == Level::Hard && s.kind == Kind::BestMove)
        .count();
    assert_eq!(hard_best, 36);
    assert_eq!(plan(365, &mix, &KINDS, 9), slots);
    for bad in [
        "easy",
        "easy:x",
        "easy:-1",
        "easy:0",
        "easy:1,easy:2",
        "tricky:5",
    ] {
        assert!(bad.parse::<LevelMix>().is_err(), "{bad}");
    }
}

#[test]
fn claims_are_checked_against_the_rows() {
    use hakase_core::puzzle::claim::{check, ClaimError};
    let game = load_preset("pokemon-qiita2023").expect("preset");
    let table = FeedbackTable::build(&game);
    let generator = Generator::new(&game, &table);
    for kind in [Kind::Deduction, Kind::BestMove] {
        let slot = hakase_core::puzzle::Slot {
            day: 3,
            level: Level::Easy,
            kind,
        };
        let p = generator.generate(&slot, 2, 0).expect("a puzzle");
        assert_eq!(check(&game, &table, &slot, &p), Ok(()));
        let other_day = hakase_core::puzzle::Slot { day: 4, ..slot };
        assert!(matches!(
            check(&game, &table, &other_day, &p),
            Err(ClaimError::WrongSlot { day: 3, .. })
        ));
        let mut lie = p.clone();
        match &mut lie.grade {
            Grade::Deduction(_) => lie.solution = game.answer_text(0).to_string(),
            Grade::BestMove(g) => {
                g.candidates.pop();
            }
        }
        if lie.solution != p.solution || matches!(lie.grade, Grade::BestMove(_)) {
            assert!(matches!(
                check(&game, &table, &slot, &lie),
                Err(ClaimError::WrongAnswers { .. })
            ));
        }
        let mut bad_row = p.clone();
        bad_row.rows[0].pattern = bad_row.rows[0].pattern.to_lowercase() + "x";
        assert_eq!(
            check(&game, &table, &slot, &bad_row),
            Err(ClaimError::BadRow(1))
        );
    }
}
