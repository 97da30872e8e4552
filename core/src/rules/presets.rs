//! The games hakase knows by name, built from the word lists embedded in the binary.

use crate::error::{Error, Result};
use crate::rules::game::{Game, WordListInput};
use crate::rules::pattern::PatternStyle;
use crate::rules::word::{read_word_list, BOARD};

const SPECIES_CSV: &str = include_str!("../../data/pokemon/species.csv");
const WORDLE_ANSWERS: &[u8] = include_bytes!("../../data/wordle/answers.txt");
const WORDLE_ALLOWED: &[u8] = include_bytes!("../../data/wordle/allowed.txt");
const NYT_ALLOWED: &[u8] = include_bytes!("../../data/wordle/nyt_allowed.txt");
const NYT2022_ANSWERS: &[u8] = include_bytes!("../../data/wordle/nyt2022_answers.txt");
const NYT2023_ANSWERS: &[u8] = include_bytes!("../../data/wordle/nyt2023_answers.txt");

/// Tries in every Pokémon Wordle preset.
pub const POKEMON_TRIES: u32 = 10;
/// Tries in English Wordle.
pub const WORDLE_TRIES: u32 = 6;
/// The game used when none is named.
pub const DEFAULT_GAME: &str = "pokemon-today";

/// A preset as listed by `hakase games`.
#[derive(Debug, Clone)]
pub struct PresetInfo {
    /// The name to pass to `--game`.
    pub name: &'static str,
    /// What the lists are, for people choosing a game.
    pub description: &'static str,
}

/// The named presets (the `pokemon-gen:N[-M]` family is listed by its first generation).
pub fn presets() -> Vec<PresetInfo> {
    vec![
        PresetInfo { name: "pokemon-qiita2023", description: "answers: 5-letter names of #1–493; guesses: all 493 names (the seed article's game)" },
        PresetInfo { name: "pokemon-verbum", description: "guesses = answers: the 515 5-letter names of #1–898 (Project Verbum)" },
        PresetInfo { name: "pokemon-today", description: "answers: 5-letter names of #1–493; guesses: every name of at most 5 letters (#1–1025)" },
        PresetInfo { name: "pokemon-gen:1", description: "answers: 5-letter names of generation 1 (also gen:N-M); guesses: every name of at most 5 letters" },
        PresetInfo { name: "wordle", description: "English Wordle: 2315 answers, 12972 allowed guesses, 6 tries" },
        PresetInfo { name: "wordle-answers-only", description: "English Wordle restricted to guessing the 2315 answers" },
        PresetInfo { name: "wordle-nyt2022", description: "Wordle as the NYT runs it since 2022-08-30: 2309 answers, 14855 allowed guesses" },
        PresetInfo { name: "wordle-nyt2023", description: "the NYT game's extended answer list of 2023-07-01: 3158 answers, 14855 allowed guesses" },
    ]
}

/// The presets a word typed in another game is looked up in, in this order, for the hint
/// of an unknown word: between them they hold every word of every preset (pokemon-today
/// guesses every name of at most five letters, the NYT list extends wordle's).
const HINT_PRESETS: [&str; 3] = ["pokemon-today", "wordle", "wordle-nyt2022"];

/// The first preset other than `game` whose allowed guesses include `word`: "salet" typed
/// in pokemon-today belongs to wordle. A customised game (`PRESET (answers from …)`) left
/// its family's words out on purpose: only the other family is named. The presets are
/// loaded once, on the first unknown word.
pub fn preset_with_guess(word: &str, game: &str) -> Option<&'static str> {
    static GAMES: std::sync::OnceLock<Vec<(&'static str, Game)>> = std::sync::OnceLock::new();
    let games = GAMES.get_or_init(|| {
        HINT_PRESETS
            .iter()
            .filter_map(|&name| load_preset(name).ok().map(|g| (name, g)))
            .collect()
    });
    let family = |name: &str| name.starts_with("wordle");
    let custom = game.split_once(" (").map(|(base, _)| family(base));
    games
        .iter()
        .filter(|(name, _)| *name != game && custom.is_none_or(|f| f != family(name)))
        .find(|(_, g)| g.lookup_guess(word).is_some())
        .map(|(name, _)| *name)
}

/// One Pokémon species from the bundled table.
#[derive(Debug, Clone)]
pub struct Species {
    /// National Pokédex number.
    pub dex: u32,
    /// Generation that introduced it.
    pub generation: u32,
    /// Katakana name, as the game spells it.
    pub name_ja: String,
    /// English name, for people who do not read katakana.
    pub name_en: String,
}

/// All 1025 species in Pokédex order.
pub fn species() -> Vec<Species> {
    SPECIES_CSV
        .lines()
        .skip(1)
        .filter_map(|line| {
            let mut fields = line.trim_end_matches('\r').splitn(4, ',');
            Some(Species {
                dex: fields.next()?.parse().ok()?,
                generation: fields.next()?.parse().ok()?,
                name_ja: fields.next()?.to_string(),
                name_en: fields.next()?.to_string(),
            })
        })
        .collect()
}

/// Builds a named preset.
pub fn load_preset(name: &str) -> Result<Game> {
    let all = species();
    let names = |keep: &dyn Fn(&Species) -> bool, max_len: usize| -> Vec<String> {
        all.iter()
            .filter(|s| keep(s) && s.name_ja.chars().count() <= max_len)
            .map(|s| s.name_ja.clone())
            .collect()
    };
    let five = |keep: &dyn Fn(&Species) -> bool| -> Vec<String> {
        names(keep, BOARD)
            .into_iter()
            .filter(|n| n.chars().count() == BOARD)
            .collect()
    };
    let pokemon = |guesses: Vec<String>, answers: Vec<String>| {
        Game::new(
            name,
            WordListInput::from_words("guesses", &guesses),
            WordListInput::from_words("answers", &answers),
            POKEMON_TRIES,
            PatternStyle::Kanji,
        )
    };
    match name {
        "pokemon-qiita2023" => pokemon(
            names(&|s| s.dex <= 493, usize::MAX),
            five(&|s| s.dex <= 493),
        ),
        "pokemon-verbum" => {
            let list = five(&|s| s.dex <= 898);
            pokemon(list.clone(), list)
        }
        "pokemon-today" => pokemon(names(&|_| true, BOARD), five(&|s| s.dex <= 493)),
        "wordle" | "wordle-answers-only" => {
            let answers = WordListInput {
                label: "wordle answers".into(),
                words: read_word_list(WORDLE_ANSWERS, "wordle answers")?,
            };
            let guesses = if name == "wordle" {
                WordListInput {
                    label: "wordle allowed".into(),
                    words: read_word_list(WORDLE_ALLOWED, "wordle allowed")?,
                }
            } else {
                answers.clone()
            };
            Game::new(name, guesses, answers, WORDLE_TRIES, PatternStyle::Letters)
        }
        "wordle-nyt2022" | "wordle-nyt2023" => {
            let (label, list) = match name {
                "wordle-nyt2022" => ("nyt2022 answers", NYT2022_ANSWERS),
                _ => ("nyt2023 answers", NYT2023_ANSWERS),
            };
            let answers = WordListInput {
                label: label.into(),
                words: read_word_list(list, label)?,
            };
            let guesses = WordListInput {
                label: "nyt allowed".into(),
                words: read_word_list(NYT_ALLOWED, "nyt allowed")?,
            };
            Game::new(name, guesses, answers, WORDLE_TRIES, PatternStyle::Letters)
        }
        _ => {
            if let Some(range) = name.strip_prefix("pokemon-gen:") {
                let (low, high) = parse_generations(name, range)?;
                return pokemon(
                    names(&|_| true, BOARD),
                    five(&|s| (low..=high).contains(&s.generation)),
                );
            }
            Err(Error::UnknownGame {
                name: name.to_string(),
                why: "see `hakase games` for the presets, or pass --answers FILE".into(),
            })
        }
    }
}

fn parse_generations(name: &str, range: &str) -> Result<(u32, u32)> {
    let bad = |why: &str| Error::UnknownGame {
        name: name.to_string(),
        why: why.to_string(),
    };
    let parse = |s: &str| -> Result<u32> {
        s.trim()
            .parse::<u32>()
            .ok()
            .filter(|g| (1..=9).contains(g))
            .ok_or_else(|| bad("generations are numbers from 1 to 9"))
    };
    let (low, high) = match range.split_once('-') {
        Some((a, b)) => (parse(a)?, parse(b)?),
        None => {
            let g = parse(range)?;
            (g, g)
        }
    };
    if low > high {
        return Err(bad("the first generation must not exceed the last"));
    }
    Ok((low, high))
}
