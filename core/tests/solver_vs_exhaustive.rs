//! The exact solver against a plain memoised exhaustive search written independently here:
//! no bounds, no pruning, no shortcuts, every allowed guess at every node. Over six hundred
//! random small games (five hundred of them with every guess a possible answer, the shape of
//! the big hidden list), for every objective and mode, the values must be equal.

use std::collections::HashMap;

use hakase_core::rules::presets::species;
use hakase_core::solver::hard::HardState;
use hakase_core::solver::{
    FirstGuesses, Mode, Node, Objective, Outcome, Solver, SolverConfig, INFEASIBLE,
};
use hakase_core::{feedback, FeedbackTable, Pattern, PatternStyle};
use hakase_core::{AnswerId, Game, GuessId, WordListInput};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

const INF: u32 = u32::MAX;

/// A node of the plain search: the answers left, the guesses left and, in hard mode, the
/// guesses the clues still allow.
type Key = (Vec<AnswerId>, u32, Vec<GuessId>);

/// The plain search: f(H, d) = |H| + min over allowed g of Σ f(part, d - 1).
struct Exhaustive<'a> {
    game: &'a Game,
    mode: Mode,
    memo: HashMap<Key, u32>,
    reach_memo: HashMap<Key, bool>,
    /// Every guess's letters, and its pattern against every answer, computed once here with
    /// the rule function (not the solver's table).
    letters: Vec<Vec<char>>,
    patterns: Vec<Vec<u8>>,
}

impl<'a> Exhaustive<'a> {
    fn new(game: &'a Game, mode: Mode) -> Self {
        let letters = (0..game.guesses().len() as GuessId)
            .map(|g| game.guess_text(g).chars().collect())
            .collect();
        let patterns = game
            .guesses()
            .iter()
            .map(|g| game.answers().iter().map(|a| feedback(g, a).0).collect())
            .collect();
        Exhaustive {
            game,
            mode,
            memo: HashMap::new(),
            reach_memo: HashMap::new(),
            letters,
            patterns,
        }
    }
}

impl Exhaustive<'_> {
    /// The non-winning parts `guess` splits `set` into, by pattern code.
    fn parts(&self, set: &[AnswerId], guess: GuessId) -> Vec<(u8, Vec<AnswerId>)> {
        let mut parts: HashMap<u8, Vec<AnswerId>> = HashMap::new();
        for &a in set {
            let code = self.patterns[guess as usize][a as usize];
            if !Pattern(code).is_win() {
                parts.entry(code).or_default().push(a);
            }
        }
        let mut parts: Vec<(u8, Vec<AnswerId>)> = parts.into_iter().collect();
        parts.sort_unstable();
        parts
    }

    fn everything(&self) -> Vec<GuessId> {
        (0..self.game.guesses().len() as GuessId).collect()
    }

    /// Hard mode, checked against one played step: its greens stay in place and every letter
    /// it revealed (green or yellow) is used at least as often as it was revealed.
    fn hard_allows(&self, guess: GuessId, step: (GuessId, u8)) -> bool {
        let word = &self.letters[guess as usize];
        let (past, code) = step;
        let past_word = &self.letters[past as usize];
        let cells = Pattern(code).cells(past_word.len());
        let mut needed: HashMap<char, usize> = HashMap::new();
        for (i, (&letter, cell)) in past_word.iter().zip(&cells).enumerate() {
            match cell {
                hakase_core::Cell::Green => {
                    if word.get(i) != Some(&letter) {
                        return false;
                    }
                    *needed.entry(letter).or_default() += 1;
                }
                hakase_core::Cell::Yellow => *needed.entry(letter).or_default() += 1,
                hakase_core::Cell::Gray => {}
            }
        }
        needed
            .iter()
            .all(|(l, &n)| word.iter().filter(|&&c| c == *l).count() >= n)
    }

    /// The guesses allowed after `step`, given those allowed before it.
    fn allowed_after(&self, before: &[GuessId], step: (GuessId, u8)) -> Vec<GuessId> {
        match self.mode {
            Mode::Hard => before
                .iter()
                .copied()
                .filter(|&g| self.hard_allows(g, step))
                .collect(),
            _ => before.to_vec(),
        }
    }

    fn allowed(&self, set: &[AnswerId], hard_allowed: &[GuessId]) -> Vec<GuessId> {
        let all = 0..self.game.guesses().len() as GuessId;
        match self.mode {
            Mode::Normal => all.collect(),
            Mode::Hard => hard_allowed.to_vec(),
            Mode::Strict => all
                .filter(|&g| {
                    self.game
                        .guess_as_answer(g)
                        .is_some_and(|a| set.contains(&a))
                })
                .collect(),
        }
    }

    /// The guesses allowed at a node and its memo key: in hard mode the allowed list is part
    /// of the state (see `total`).
    fn node(&self, set: &[AnswerId], depth: u32, hard_allowed: &[GuessId]) -> (Vec<GuessId>, Key) {
        let allowed = self.allowed(set, hard_allowed);
        let state = if self.mode == Mode::Hard {
            allowed.clone()
        } else {
            Vec::new()
        };
        (allowed, (set.to_vec(), depth, state))
    }

    /// `hard_allowed`: in hard mode, the guesses the history so far allows. Constraints only
    /// accumulate, so that list determines every later choice: it is the state, together
    /// with the set and the depth.
    fn total(&mut self, set: &[AnswerId], depth: u32, hard_allowed: &[GuessId]) -> u32 {
        if depth == 0 {
            return INF;
        }
        let (allowed, key) = self.node(set, depth, hard_allowed);
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let mut best = INF;
        for g in allowed {
            let mut sum = set.len() as u32;
            for (code, part) in self.parts(set, g) {
                let next = self.allowed_after(hard_allowed, (g, code));
                let v = self.total(&part, depth - 1, &next);
                if v == INF {
                    sum = INF;
                    break;
                }
                sum += v;
            }
            best = best.min(sum);
        }
        self.memo.insert(key, best);
        best
    }

    /// True when some strategy finds every answer of `set` within `depth` guesses: plain
    /// minimax over every allowed guess, memoised like `total`.
    fn reaches(&mut self, set: &[AnswerId], depth: u32, hard_allowed: &[GuessId]) -> bool {
        if set.is_empty() {
            return true;
        }
        if depth == 0 {
            return false;
        }
        let (allowed, key) = self.node(set, depth, hard_allowed);
        if let Some(&known) = self.reach_memo.get(&key) {
            return known;
        }
        let found = allowed.iter().any(|&g| {
            self.parts(set, g).iter().all(|(code, part)| {
                let next = self.allowed_after(hard_allowed, (g, *code));
                self.reaches(part, depth - 1, &next)
            })
        });
        self.reach_memo.insert(key, found);
        found
    }

    /// The fewest guesses that always win, computed without the total at all.
    fn worst(&mut self, set: &[AnswerId], cap: u32) -> Option<u32> {
        let everything = self.everything();
        (1..=cap).find(|&d| self.reaches(set, d, &everything))
    }
}

fn random_pokemon_game(rng: &mut StdRng) -> Game {
    let all = species();
    let mut five: Vec<String> = all
        .iter()
        .map(|s| s.name_ja.clone())
        .filter(|n| n.chars().count() == 5)
        .collect();
    let mut short: Vec<String> = all
        .iter()
        .map(|s| s.name_ja.clone())
        .filter(|n| n.chars().count() < 5)
        .collect();
    five.shuffle(rng);
    short.shuffle(rng);
    let answers: Vec<String> = five[..rng.gen_range(30..=40)].to_vec();
    let mut guesses: Vec<String> = answers.clone();
    let extra = rng.gen_range(60..=70) - answers.len();
    let from_five = extra / 2;
    guesses.extend(five[40..40 + from_five].iter().cloned());
    guesses.extend(short[..extra - from_five].iter().cloned());
    guesses.shuffle(rng);
    // Five tries keep the plain search's state space small; optimal trees need four or five.
    Game::new(
        "random-pokemon",
        WordListInput::from_words("guesses", &guesses),
        WordListInput::from_words("answers", &answers),
        5,
        PatternStyle::Kanji,
    )
    .expect("random game is valid")
}

/// Adds distinct random words over `alphabet` to `words` until it holds `count`, the n-th of
/// `length(n)` letters.
fn add_words(
    rng: &mut StdRng,
    alphabet: &[char],
    words: &mut Vec<String>,
    (count, length): (usize, fn(usize) -> usize),
) {
    while words.len() < count {
        let w: String = (0..length(words.len()))
            .map(|_| alphabet[rng.gen_range(0..alphabet.len())])
            .collect();
        if !words.contains(&w) {
            words.push(w);
        }
    }
}

/// A game of Latin-letter words.
fn letters_game(name: &str, guesses: &[String], answers: &[String], tries: u32) -> Game {
    Game::new(
        name,
        WordListInput::from_words("guesses", guesses),
        WordListInput::from_words("answers", answers),
        tries,
        PatternStyle::Letters,
    )
    .expect("random game is valid")
}

/// Words over a three-letter alphabet: many repeated letters, the hard case for the colouring.
fn random_tiny_alphabet_game(rng: &mut StdRng, tries: u32) -> Game {
    let abc = ['a', 'b', 'c'];
    let mut answers = Vec::new();
    add_words(rng, &abc, &mut answers, (18, |_| 5));
    let mut guesses = answers.clone();
    add_words(rng, &abc, &mut guesses, (30, |n| 3 + n % 3));
    letters_game("random-abc", &guesses, &answers, tries)
}

/// Every guess a possible answer, as in the big hidden list: `size` five-letter words over
/// the first `letters` letters of the alphabet (few letters, so parts are large next to the
/// widest split and the level-filling bounds bind).
fn random_all_answers_game(rng: &mut StdRng, letters: usize, size: usize, tries: u32) -> Game {
    let alphabet = ['a', 'b', 'c', 'd', 'e', 'f'];
    let mut words = Vec::new();
    add_words(rng, &alphabet[..letters], &mut words, (size, |_| 5));
    letters_game("random-all-answers", &words, &words, tries)
}

/// The solver and the plain search of `mode` on `game`.
fn solver_and_plain<'g>(
    game: &'g Game,
    table: &'g FeedbackTable,
    mode: Mode,
) -> (Solver<'g>, Exhaustive<'g>) {
    let config = SolverConfig {
        mode,
        ..SolverConfig::default()
    };
    (
        Solver::new(game, table, config, 1 << 14),
        Exhaustive::new(game, mode),
    )
}

fn check(game: &Game, config: SolverConfig, label: &str) {
    let table = FeedbackTable::build(game);
    let solver = Solver::new(game, &table, config.clone(), 1 << 16);
    let solution = solver.solve_game(FirstGuesses::Best, &|_| {});
    let mut plain = Exhaustive::new(game, config.mode);
    let all = game.all_answers();
    let cap = config.guess_cap(game);
    let (expected_depth, expected_total) = match config.objective {
        Objective::Total => (cap, plain.total(&all, cap, &plain.everything())),
        Objective::Worst => match plain.worst(&all, cap) {
            Some(d) => (d, plain.total(&all, d, &plain.everything())),
            None => (cap, INF),
        },
    };
    match solution.best {
        None => assert_eq!(expected_total, INF, "{label}: solver says impossible"),
        Some(best) => {
            assert_eq!(
                best.outcome.value(),
                expected_total,
                "{label}: optimal total"
            );
            assert!(best.outcome.value() < INFEASIBLE);
            assert_eq!(
                solution.guesses_left, expected_depth,
                "{label}: guess budget"
            );
            let evaluation = solution.evaluation.as_ref().expect("tree evaluated");
            assert_eq!(
                evaluation.total,
                u64::from(expected_total),
                "{label}: tree total"
            );
            assert_eq!(
                evaluation.solved as usize,
                all.len(),
                "{label}: every answer"
            );
            assert!(evaluation.worst <= expected_depth, "{label}: tree depth");
            if config.objective == Objective::Worst {
                assert_eq!(evaluation.worst, expected_depth, "{label}: worst case");
            }
        }
    }
}

/// Every objective and mode. The plain search is slowest in hard mode (its state includes
/// the guesses still allowed), so only every third Pokémon game is checked in hard mode.
fn configs() -> Vec<(SolverConfig, &'static str)> {
    let base = SolverConfig::default();
    vec![
        (base.clone(), "total"),
        (
            SolverConfig {
                objective: Objective::Worst,
                ..base.clone()
            },
            "worst",
        ),
        (
            SolverConfig {
                max_guesses: Some(3),
                ..base.clone()
            },
            "capped-3",
        ),
        (
            SolverConfig {
                mode: Mode::Hard,
                ..base.clone()
            },
            "hard",
        ),
        (
            SolverConfig {
                mode: Mode::Strict,
                ..base.clone()
            },
            "strict",
        ),
    ]
}

/// 14 games × 4 configurations + 5 in hard mode = 61 checks.
#[test]
fn random_pokemon_games_match_plain_search() {
    let mut rng = StdRng::seed_from_u64(2026);
    for round in 0..14 {
        let game = random_pokemon_game(&mut rng);
        for (config, name) in configs() {
            if config.mode == Mode::Hard && round % 3 != 0 {
                continue;
            }
            check(&game, config, &format!("pokemon game {round} {name}"));
        }
    }
}

/// 8 games × 5 configurations = 40 checks.
#[test]
fn tiny_alphabet_games_match_plain_search() {
    let mut rng = StdRng::seed_from_u64(7);
    for round in 0..8 {
        let tries = [4, 6][round % 2];
        let game = random_tiny_alphabet_game(&mut rng, tries);
        for (config, name) in configs() {
            check(&game, config, &format!("abc game {round} {name}"));
        }
    }
}

/// The depth-only search's least worst case of random answer sets (every subset a root of its
/// own), in every mode, against plain minimax: 10 games × 3 modes × 12 sets.
#[test]
fn least_worst_case_of_random_sets_matches_plain_minimax() {
    let mut rng = StdRng::seed_from_u64(16);
    for round in 0..10 {
        let game = if round % 2 == 0 {
            random_pokemon_game(&mut rng)
        } else {
            random_tiny_alphabet_game(&mut rng, 6)
        };
        let table = FeedbackTable::build(&game);
        for mode in [Mode::Normal, Mode::Hard, Mode::Strict] {
            if mode == Mode::Hard && round % 4 != 0 {
                continue;
            }
            let (solver, mut plain) = solver_and_plain(&game, &table, mode);
            let cap = game.tries();
            for _ in 0..12 {
                let keep = rng.gen_range(0.2..1.0);
                let set: Vec<AnswerId> = game
                    .all_answers()
                    .into_iter()
                    .filter(|_| rng.gen_bool(keep))
                    .collect();
                let node = Node {
                    candidates: set.clone(),
                    guesses_left: cap,
                    hard: HardState::default(),
                };
                assert_eq!(
                    solver.least_worst_case(&node),
                    plain.worst(&set, cap),
                    "game {round} {mode:?}: {} answers",
                    set.len()
                );
            }
        }
    }
}

/// Worst-case objective from one first guess: the budget is the least that wins after it,
/// and the total the least within that budget.
#[test]
fn worst_case_from_a_given_first_guess_matches_plain_minimax() {
    let mut rng = StdRng::seed_from_u64(61);
    for round in 0..4 {
        let game = random_pokemon_game(&mut rng);
        let table = FeedbackTable::build(&game);
        let config = SolverConfig {
            objective: Objective::Worst,
            ..SolverConfig::default()
        };
        let solver = Solver::new(&game, &table, config, 1 << 14);
        let mut plain = Exhaustive::new(&game, Mode::Normal);
        let all = game.all_answers();
        let everything = plain.everything();
        for _ in 0..3 {
            // A guess that does not split the answers is never played: draw one that does.
            let (first, parts) = loop {
                let first = rng.gen_range(0..game.guesses().len()) as GuessId;
                let parts = plain.parts(&all, first);
                if parts.len() > 1 || parts[0].1.len() < all.len() {
                    break (first, parts);
                }
            };
            let solution = solver.solve_game(FirstGuesses::Only(first), &|_| {});
            let expected = (2..=game.tries()).find(|&d| {
                parts
                    .iter()
                    .all(|(_, part)| plain.reaches(part, d - 1, &everything))
            });
            let best = solution
                .best
                .expect("a first guess that splits is winnable");
            let d = expected.expect("within the tries");
            assert_eq!(solution.guesses_left, d, "game {round} first {first}");
            let total = all.len() as u32
                + parts
                    .iter()
                    .map(|(_, part)| plain.total(part, d - 1, &everything))
                    .sum::<u32>();
            assert_eq!(best.outcome.value(), total, "game {round} first {first}");
        }
    }
}

#[test]
fn impossible_caps_are_reported_not_numbered() {
    let mut rng = StdRng::seed_from_u64(99);
    let game = random_pokemon_game(&mut rng);
    let config = SolverConfig {
        max_guesses: Some(1),
        ..SolverConfig::default()
    };
    let table = FeedbackTable::build(&game);
    let solver = Solver::new(&game, &table, config, 1 << 12);
    let solution = solver.solve_game(FirstGuesses::Best, &|_| {});
    assert!(solution.best.is_none());
    assert!(solution.tree.is_none());
}

/// Hard-mode nodes below one or two clues, where constraints already bind and guesses of the
/// same split differ in what they reveal (the case the dominance rule between same-shape
/// guesses decides): exact values, and with a random cutoff either the exact value below it
/// or a bound between the cutoff and the value.
#[test]
fn hard_mode_nodes_below_clues_match_plain_search() {
    let mut rng = StdRng::seed_from_u64(1616);
    let mut checked = 0;
    for round in 0..4 {
        let game = if round % 2 == 0 {
            random_tiny_alphabet_game(&mut rng, 6)
        } else {
            random_pokemon_game(&mut rng)
        };
        let table = FeedbackTable::build(&game);
        let config = SolverConfig {
            mode: Mode::Hard,
            ..SolverConfig::default()
        };
        let solver = Solver::new(&game, &table, config, 1 << 14);
        let mut plain = Exhaustive::new(&game, Mode::Hard);
        let everything = plain.everything();
        let words = game.guesses();
        for _ in 0..2 {
            let first = rng.gen_range(0..words.len()) as GuessId;
            for (code, part) in plain.parts(&game.all_answers(), first) {
                let hard = HardState::default().after(&words[first as usize], Pattern(code));
                let allowed = plain.allowed_after(&everything, (first, code));
                let mut nodes = vec![(part.clone(), game.tries() - 1, hard.clone(), allowed)];
                // One more clue, from a guess the first one still allows.
                let second = nodes[0].3[rng.gen_range(0..nodes[0].3.len())];
                for (code2, part2) in plain.parts(&part, second) {
                    nodes.push((
                        part2,
                        game.tries() - 2,
                        hard.after(&words[second as usize], Pattern(code2)),
                        plain.allowed_after(&nodes[0].3, (second, code2)),
                    ));
                }
                for (set, depth, hard, allowed) in nodes {
                    if set.len() < 3 {
                        continue;
                    }
                    let expected = match plain.total(&set, depth, &allowed) {
                        INF => INFEASIBLE,
                        v => v,
                    };
                    let node = Node {
                        candidates: set.clone(),
                        guesses_left: depth,
                        hard,
                    };
                    let label = format!("game {round} first {first} set {set:?}");
                    assert_eq!(
                        solver.evaluate(&node, INFEASIBLE).value(),
                        expected,
                        "{label}"
                    );
                    let beta = rng.gen_range(set.len() as u32..=expected.min(4 * set.len() as u32));
                    let fresh = Solver::new(&game, &table, solver.config().clone(), 1 << 14);
                    match fresh.evaluate(&node, beta) {
                        hakase_core::solver::Outcome::Exact { value, .. } => {
                            assert!(value < beta, "{label}");
                            assert_eq!(value, expected, "{label}");
                        }
                        hakase_core::solver::Outcome::AtLeast(bound) => {
                            assert!(bound >= beta && bound <= expected, "{label}: {bound}");
                        }
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 20, "too few nodes checked: {checked}");
}

/// A slice of a node's search order (what a second-move job of a distributed search asks)
/// is worth the least of its guesses' plain values: exact below the cutoff, a bound at or
/// above it, and over slices covering the whole order the node's own value.
#[test]
fn slices_of_the_search_order_match_plain_search() {
    let mut rng = StdRng::seed_from_u64(3131);
    let mut checked = 0;
    for round in 0..6 {
        let game = random_pokemon_game(&mut rng);
        let table = FeedbackTable::build(&game);
        let solver = Solver::new(&game, &table, SolverConfig::default(), 1 << 14);
        let mut plain = Exhaustive::new(&game, Mode::Normal);
        let everything = plain.everything();
        let all = game.all_answers();
        let first = rng.gen_range(0..game.guesses().len()) as GuessId;
        // The root, and the largest part after a random first guess.
        let mut nodes = vec![(all.clone(), game.tries())];
        if let Some((_, part)) = plain
            .parts(&all, first)
            .into_iter()
            .max_by_key(|p| p.1.len())
        {
            nodes.push((part, game.tries() - 1));
        }
        for (set, depth) in nodes {
            let node = Node {
                candidates: set.clone(),
                guesses_left: depth.min(set.len() as u32),
                hard: HardState::default(),
            };
            let order = solver.guess_order(&node).guesses;
            let value_of = |plain: &mut Exhaustive, g: GuessId| -> u32 {
                let mut sum = set.len() as u32;
                for (_, part) in plain.parts(&set, g) {
                    let v = plain.total(&part, node.guesses_left - 1, &everything);
                    if v == INF {
                        return INFEASIBLE;
                    }
                    sum += v;
                }
                sum
            };
            let values: Vec<u32> = order
                .iter()
                .map(|b| value_of(&mut plain, b.guess))
                .collect();
            let mut from = 0;
            let mut least = INFEASIBLE;
            while from < order.len() {
                let to = (from + rng.gen_range(1..6)).min(order.len() + 1);
                let truth = values[from..to.min(order.len())].iter().copied().min();
                let truth = truth.unwrap_or(INFEASIBLE);
                least = least.min(truth);
                let label = format!("game {round}, {} answers, slice {from}..{to}", set.len());
                // A slice skips the guesses of its range that a finer guess beats (the node
                // skips them too), so its least can only lie above the range's.
                match solver.evaluate_slice(&node, from..to, INFEASIBLE) {
                    Outcome::Exact { value, guess } => {
                        assert!(value >= truth, "{label}: {value} below {truth}");
                        let at = order
                            .iter()
                            .position(|b| b.guess == guess)
                            .expect("in order");
                        assert!((from..to).contains(&at), "{label}: guess from outside");
                        assert_eq!(values[at], value, "{label}: the guess named");
                        // Under a cutoff at its value, a bound at it: never above, by the
                        // solver's contract of proven bounds.
                        let cut = solver.evaluate_slice(&node, from..to, value);
                        assert_eq!(cut, Outcome::AtLeast(value), "{label}");
                    }
                    Outcome::AtLeast(bound) => assert!(bound >= truth, "{label}: {bound}"),
                }
                checked += 1;
                from = to;
            }
            let whole = solver.evaluate(&node, INFEASIBLE).value();
            assert_eq!(
                least, whole,
                "game {round}: the slices' least is the node's value"
            );
        }
    }
    assert!(checked > 20, "only {checked} slices checked");
}

/// 500 games whose answers are all the guesses (8 to 16 words over 2 to 4 letters, 3 to 6
/// tries), each in every objective and mode: 2,500 checks.
#[test]
fn games_whose_answers_are_the_guesses_match_plain_search() {
    let mut rng = StdRng::seed_from_u64(5296);
    for round in 0..500 {
        let letters = 2 + round % 3;
        let size = rng.gen_range(8..=16).min(1 << letters);
        let tries = 3 + (round % 4) as u32;
        let game = random_all_answers_game(&mut rng, letters, size, tries);
        for (config, name) in configs() {
            check(&game, config, &format!("all-answers game {round} {name}"));
        }
    }
}

/// What a first guess's split alone proves (each part's levels filled, no guess splitting
/// wider than any splits all the answers) is never above its plain value, and equals it
/// often: a bound one higher would be wrong there.
#[test]
fn first_guess_split_bounds_are_admissible_and_tight() {
    let mut rng = StdRng::seed_from_u64(4);
    let (mut checked, mut tight) = (0, 0);
    for round in 0..40 {
        let game = match round % 2 {
            0 => random_tiny_alphabet_game(&mut rng, 6),
            _ => random_all_answers_game(&mut rng, 2 + round % 4 / 2, 16, 6),
        };
        let table = FeedbackTable::build(&game);
        for mode in [Mode::Normal, Mode::Hard] {
            let (solver, mut plain) = solver_and_plain(&game, &table, mode);
            let everything = plain.everything();
            let all = game.all_answers();
            let root = solver.root(game.tries());
            for first in 0..game.guesses().len() as GuessId {
                let parts = plain.parts(&all, first);
                if parts.len() == 1 && parts[0].1.len() == all.len() {
                    continue;
                }
                let mut value = all.len() as u32;
                for (code, part) in &parts {
                    let next = plain.allowed_after(&everything, (first, *code));
                    match plain.total(part, game.tries() - 1, &next) {
                        INF => {
                            value = INFEASIBLE;
                            break;
                        }
                        v => value += v,
                    }
                }
                let bound = solver.evaluate_guess(&root, first, 1).value();
                assert!(
                    bound <= value,
                    "game {round} {mode:?} first {first}: {bound} > {value}"
                );
                tight += usize::from(bound == value && value < INFEASIBLE);
                checked += 1;
            }
        }
    }
    assert!(checked > 800, "only {checked} first guesses");
    assert!(
        tight > 0,
        "no split bound was tight: one higher would go unnoticed"
    );
}
