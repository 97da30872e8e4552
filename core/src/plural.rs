//! Counted nouns in English, spelled in one place: every message of every crate that says
//! "1 answer" or "2 answers" goes through [`plural`], so none says "1 answers".

/// `count` followed by the noun, singular for exactly one: "1 guess", "2 guesses", "-2
/// guesses" (a difference may be negative).
pub fn plural(count: impl Into<i128>, singular: &str, plural: &str) -> String {
    let count = count.into();
    format!("{count} {}", if count == 1 { singular } else { plural })
}

#[cfg(test)]
mod tests {
    use super::plural;

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(plural(1u32, "guess", "guesses"), "1 guess");
        assert_eq!(plural(0u32, "guess", "guesses"), "0 guesses");
        assert_eq!(plural(2u64, "answer", "answers"), "2 answers");
        assert_eq!(plural(1u8, "try", "tries"), "1 try");
        assert_eq!(plural(-1i64, "guess", "guesses"), "-1 guesses");
    }
}
