//! The length check every text a client sends passes before anything reads it: a word or a
//! row of colours is a few characters, so a longer one is refused at once, before any
//! lookup, "did you mean" hint or solve spends time on it, and the refusal repeats only its
//! beginning.

use hakase_core::rules::normalize::echo;

/// Characters a word or a row of colours may have: the longest spelling of a five-letter
/// guess or of its colours (emoji with joiners) is well under it.
pub const MAX_TEXT_CHARS: usize = 40;

/// A text longer than [`MAX_TEXT_CHARS`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{text:?} is {chars} characters long; a word or a row of colours has at most \
     {MAX_TEXT_CHARS}"
)]
pub struct TooLongText {
    /// Its beginning (see [`echo`]).
    pub text: String,
    /// Its length in characters.
    pub chars: usize,
}

/// Refuses the first of `texts` longer than [`MAX_TEXT_CHARS`] (counted without reading past
/// the limit).
pub fn check_lengths<'a>(texts: impl IntoIterator<Item = &'a str>) -> Result<(), TooLongText> {
    for text in texts {
        // Bytes bound characters from above: most texts are settled without counting.
        if text.len() > MAX_TEXT_CHARS && text.chars().nth(MAX_TEXT_CHARS).is_some() {
            return Err(TooLongText {
                text: echo(text),
                chars: text.chars().count(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_refused_and_echoed_short() {
        assert_eq!(check_lengths(["crane", "⬛🟨🟩⬛⬛", "ピカチュウ"]), Ok(()));
        let long = "x".repeat(15_000);
        let err = check_lengths(["crane", long.as_str()]).unwrap_err();
        assert_eq!(err.chars, 15_000);
        assert!(err.to_string().len() < 200, "{err}");
        // Forty katakana are 120 bytes but still allowed.
        let forty = "ア".repeat(MAX_TEXT_CHARS);
        assert_eq!(check_lengths([forty.as_str()]), Ok(()));
    }
}
