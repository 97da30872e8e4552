//! What a result may claim, said the same way everywhere it is shown (CLI text, JSON, the web
//! page, tree files): a solve restricted to one first guess proves the optimum only *given*
//! that guess, and a restricted (top-k) search, or a tree file that records no proof (the
//! text format), is only an upper bound.

/// The claim of a result: `proven` as the solver reported it, and the first guess the solve
/// was restricted to, if any.
pub fn claim(proven: bool, first: Option<&str>) -> String {
    match (proven, first) {
        (true, None) => "proven optimal".to_string(),
        (true, Some(w)) => format!("proven optimal GIVEN THE FIRST GUESS {w}"),
        (false, None) => "UPPER BOUND ONLY (not proven optimal)".to_string(),
        (false, Some(w)) => {
            format!("UPPER BOUND ONLY given the first guess {w} (not proven optimal)")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::claim;

    #[test]
    fn claims_name_the_fixed_first_guess() {
        assert_eq!(claim(true, None), "proven optimal");
        assert_eq!(
            claim(true, Some("salet")),
            "proven optimal GIVEN THE FIRST GUESS salet"
        );
        assert_eq!(
            claim(false, Some("salet")),
            "UPPER BOUND ONLY given the first guess salet (not proven optimal)"
        );
    }
}
