//! The solver options put into words, in one place: the words the JSON and the wire carry,
//! the sentence a solve prints, the few words a run listing shows, and the slug that names
//! a run's directory. Every command and message takes them from here, so an option is
//! spelt alike everywhere.

use super::{Mode, Objective, SolverConfig};

impl Objective {
    /// Every objective, for parsing and tests.
    pub const ALL: [Objective; 2] = [Objective::Total, Objective::Worst];

    /// The word the JSON `options` object and the gRPC messages carry (serde's word).
    pub fn word(self) -> &'static str {
        match self {
            Objective::Total => "total",
            Objective::Worst => "worst",
        }
    }

    /// The objective [`Objective::word`] names; `None` for a word it never gives.
    pub fn from_word(word: &str) -> Option<Objective> {
        Objective::ALL.into_iter().find(|o| o.word() == word)
    }

    /// What is minimised, as a solve's summary says it.
    pub fn description(self) -> &'static str {
        match self {
            Objective::Total => "fewest guesses in total",
            Objective::Worst => "fewest guesses in the worst case",
        }
    }
}

impl Mode {
    /// Every mode, for parsing and tests.
    pub const ALL: [Mode; 3] = [Mode::Normal, Mode::Hard, Mode::Strict];

    /// The word the JSON `options` object and the gRPC messages carry (serde's word), which
    /// the messages also print ("hard mode").
    pub fn word(self) -> &'static str {
        match self {
            Mode::Normal => "normal",
            Mode::Hard => "hard",
            Mode::Strict => "strict",
        }
    }

    /// The mode [`Mode::word`] names; `None` for a word it never gives.
    pub fn from_word(word: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.word() == word)
    }
}

impl SolverConfig {
    /// The options as a solve's summary line states them: "objective: fewest guesses in
    /// total, normal mode", with ", top-K search" for the restricted method.
    pub fn description(&self) -> String {
        let top_k = self
            .top_k
            .map_or(String::new(), |k| format!(", top-{k} search"));
        format!(
            "objective: {}, {} mode{top_k}",
            self.objective.description(),
            self.mode.word()
        )
    }

    /// The options in a few words for a listing: the objective, then only what differs from
    /// the default ("worst, hard, max 5, top-30").
    pub fn brief(&self) -> String {
        let mut parts = vec![self.objective.word().to_string()];
        if self.mode != Mode::Normal {
            parts.push(self.mode.word().to_string());
        }
        if let Some(cap) = self.max_guesses {
            parts.push(format!("max {cap}"));
        }
        if let Some(k) = self.top_k {
            parts.push(format!("top-{k}"));
        }
        parts.join(", ")
    }

    /// What a run's name adds to the game's for every option that changes the result
    /// ("-worst-hard-max5-top30"; empty for the defaults), so runs never collide.
    pub fn slug(&self) -> String {
        let mut slug = String::new();
        if self.objective != Objective::Total {
            slug.push('-');
            slug.push_str(self.objective.word());
        }
        if self.mode != Mode::Normal {
            slug.push('-');
            slug.push_str(self.mode.word());
        }
        if let Some(cap) = self.max_guesses {
            slug.push_str(&format!("-max{cap}"));
        }
        if let Some(k) = self.top_k {
            slug.push_str(&format!("-top{k}"));
        }
        slug
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_are_serdes_and_read_back() {
        for objective in Objective::ALL {
            assert_eq!(serde_json::to_value(objective).unwrap(), objective.word());
            assert_eq!(Objective::from_word(objective.word()), Some(objective));
        }
        for mode in Mode::ALL {
            assert_eq!(serde_json::to_value(mode).unwrap(), mode.word());
            assert_eq!(Mode::from_word(mode.word()), Some(mode));
        }
        assert_eq!(Mode::from_word("Hard"), None);
    }

    #[test]
    fn each_form_says_what_differs_from_the_default() {
        let plain = SolverConfig::default();
        assert_eq!(
            plain.description(),
            "objective: fewest guesses in total, normal mode"
        );
        assert_eq!(plain.brief(), "total");
        assert_eq!(plain.slug(), "");
        let all = SolverConfig {
            objective: Objective::Worst,
            max_guesses: Some(5),
            mode: Mode::Hard,
            top_k: Some(30),
        };
        assert_eq!(
            all.description(),
            "objective: fewest guesses in the worst case, hard mode, top-30 search"
        );
        assert_eq!(all.brief(), "worst, hard, max 5, top-30");
        assert_eq!(all.slug(), "-worst-hard-max5-top30");
    }
}
