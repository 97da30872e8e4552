//! Sending a game over the wire: the word lists and rules, rebuilt and fingerprint-checked on
//! the other side so a worker can never solve a different game than the run's.

use hakase_core::{Game, PatternStyle, WordListInput};

use crate::error::ProtoError;
use crate::v1::GameSpec;

/// Most words a list may have on the wire (English Wordle has 12,972 guesses).
pub const MAX_WORDS: usize = 1 << 20;

/// The wire form of a game.
pub fn to_spec(game: &Game) -> GameSpec {
    GameSpec {
        name: game.name().to_string(),
        tries: game.tries(),
        style: style_name(game.style()).to_string(),
        guesses: (0..game.guesses().len() as u32)
            .map(|g| game.guess_text(g).to_string())
            .collect(),
        answers: (0..game.answers().len() as u32)
            .map(|a| game.answer_text(a).to_string())
            .collect(),
    }
}

/// Rebuilds a game; fails unless its fingerprint is `fingerprint`.
pub fn from_spec(spec: &GameSpec, fingerprint: &str) -> Result<Game, ProtoError> {
    for (field, list) in [("guesses", &spec.guesses), ("answers", &spec.answers)] {
        if list.len() > MAX_WORDS {
            return Err(ProtoError::TooLarge {
                field,
                len: list.len(),
                max: MAX_WORDS,
            });
        }
    }
    let style: PatternStyle = spec
        .style
        .parse()
        .map_err(|why: String| ProtoError::invalid("style", why))?;
    let game = Game::new(
        &spec.name,
        WordListInput::from_words("guesses", &spec.guesses),
        WordListInput::from_words("answers", &spec.answers),
        spec.tries,
        style,
    )?;
    if game.fingerprint() != fingerprint {
        return Err(ProtoError::invalid(
            "game",
            format!(
                "rebuilt game has fingerprint {}, expected {fingerprint}",
                game.fingerprint()
            ),
        ));
    }
    Ok(game)
}

/// The name `PatternStyle::from_str` reads back.
pub fn style_name(style: PatternStyle) -> &'static str {
    match style {
        PatternStyle::Kanji => "kanji",
        PatternStyle::Letters => "letters",
        PatternStyle::Emoji => "emoji",
        PatternStyle::Digits => "digits",
    }
}
