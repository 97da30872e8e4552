//! The presets have the sizes their descriptions promise.

use hakase_core::rules::presets::{load_preset, presets, species, DEFAULT_GAME};
use hakase_core::Error;

fn sizes(name: &str) -> (usize, usize, u32) {
    let game = load_preset(name).expect("preset loads");
    (game.guesses().len(), game.answers().len(), game.tries())
}

#[test]
fn pokemon_presets_have_the_documented_sizes() {
    assert_eq!(sizes("pokemon-qiita2023"), (493, 285, 10));
    assert_eq!(sizes("pokemon-verbum"), (515, 515, 10));
    assert_eq!(sizes("pokemon-today"), (931, 285, 10));
    assert_eq!(sizes("pokemon-gen:1"), (931, 84, 10));
    assert_eq!(sizes("pokemon-gen:1-2"), (931, 135, 10));
    assert_eq!(sizes("pokemon-gen:2"), (931, 51, 10));
    assert_eq!(sizes("pokemon-gen:1-4"), (931, 285, 10));
    assert_eq!(sizes("pokemon-gen:9"), (931, 47, 10));
}

#[test]
fn pokemon_today_guesses_are_every_name_of_at_most_five_letters() {
    let all = species();
    assert_eq!(all.len(), 1025);
    let short: Vec<&str> = all
        .iter()
        .filter(|s| s.name_ja.chars().count() <= 5)
        .map(|s| s.name_ja.as_str())
        .collect();
    assert_eq!(short.len(), 931);
    let game = load_preset("pokemon-today").expect("preset loads");
    let guesses: Vec<&str> = (0..game.guesses().len() as u32)
        .map(|g| game.guess_text(g))
        .collect();
    assert_eq!(guesses, short);
}

#[test]
fn pokemon_verbum_guesses_are_its_answers() {
    let game = load_preset("pokemon-verbum").expect("preset loads");
    for a in game.all_answers() {
        assert_eq!(game.answer_as_guess(a), a);
    }
}

#[test]
fn wordle_presets_have_the_documented_sizes() {
    assert_eq!(sizes("wordle"), (12972, 2315, 6));
    assert_eq!(sizes("wordle-answers-only"), (2315, 2315, 6));
    assert_eq!(sizes("wordle-nyt2022"), (14855, 2309, 6));
    assert_eq!(sizes("wordle-nyt2023"), (14855, 3158, 6));
}

#[test]
fn every_listed_preset_loads_and_the_default_is_listed() {
    let names: Vec<&str> = presets().iter().map(|p| p.name).collect();
    assert_eq!(
        names,
        [
            "pokemon-qiita2023",
            "pokemon-verbum",
            "pokemon-today",
            "pokemon-gen:1",
            "wordle",
            "wordle-answers-only",
            "wordle-nyt2022",
            "wordle-nyt2023"
        ]
    );
    assert!(names.contains(&DEFAULT_GAME));
    for name in names {
        assert_eq!(load_preset(name).expect("preset loads").name(), name);
    }
}

#[test]
fn fingerprints_tell_games_apart_and_are_stable() {
    let a = load_preset("pokemon-today").expect("preset loads");
    let b = load_preset("pokemon-today").expect("preset loads");
    let c = load_preset("pokemon-gen:1-4").expect("preset loads");
    assert_eq!(a.fingerprint(), b.fingerprint());
    assert_eq!(a.fingerprint().len(), 16);
    // Same lists and tries as pokemon-today, so the same game whatever its name.
    assert_eq!(a.fingerprint(), c.fingerprint());
    let q = load_preset("pokemon-qiita2023").expect("preset loads");
    assert_ne!(a.fingerprint(), q.fingerprint());
}

#[test]
fn bad_game_names_and_generation_specs_are_errors() {
    for name in [
        "pokemon-gen:0",
        "pokemon-gen:10",
        "pokemon-gen:",
        "pokemon-gen:x",
        "pokemon-gen:3-1",
        "pokemon-gen:1-",
        "pokemon-gen:-2",
        "pokemon-gen:1-2-3",
        "pokemon",
        "",
    ] {
        match load_preset(name) {
            Err(Error::UnknownGame { name: got, .. }) => assert_eq!(got, name),
            other => panic!("{name:?} gave {other:?}"),
        }
    }
}
