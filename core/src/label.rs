//! How much a result can be trusted, decided and worded in one place, so that the e-paper
//! page, the text chart, `solve`, `runs`, a coordinator's report, the live page, the query
//! answers and the JSON all say the same thing for the same result: a solve restricted to
//! one first guess proves the optimum only *given* that guess, a restricted (top-k) search
//! or a heuristic is only an upper bound, and a distributed result resting on unchecked
//! worker claims is proven only if they hold (never called plainly "proven").

use serde::{Serialize, Serializer};

use crate::plural::plural;
use crate::rules::game::GuessId;
use crate::solver::{Outcome, Solution};

/// The quality of a chart: what its first guess and its numbers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    /// The first guess is a proven-optimal first guess and every number is exact.
    ProvenOptimal,
    /// The numbers are exact for optimal play after this first guess, but the first guess
    /// itself is not (proven to be) optimal.
    Exact,
    /// A heuristic chose the guesses: the numbers are an upper bound, not an optimum.
    Heuristic,
    /// A proof (optimal, or given its first guess) that rests on worker claims nobody
    /// re-ran (a coordinator's run under a sampling audit): it holds only if they do.
    ProvenIfClaimsHold {
        /// The unchecked claims.
        claims: u32,
        /// True when the numbers are optimal only given their first guess (as
        /// [`Label::Exact`]).
        given_first: bool,
    },
}

/// In JSON a label is its name (`proven-optimal`, ..., `proven-if-claims-hold`); the count
/// of a [`Label::ProvenIfClaimsHold`] travels in its own field, its first guess in the
/// field that names a fixed first guess.
impl Serialize for Label {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl Label {
    /// The label of a chart of `first` drawn from `solution` (the optimum of the whole
    /// game): proven-optimal only when the solution is proven and `first` achieves its
    /// best value; exact when the solution is proven but `first` does worse or was not
    /// ranked exactly; heuristic without a proven solution (a top-k run).
    pub fn of_first(solution: Option<&Solution>, first: GuessId) -> Label {
        let Some(solution) = solution.filter(|s| s.proven) else {
            return Label::Heuristic;
        };
        let best = solution.best.map(|b| b.outcome);
        let optimal = solution.best.is_some_and(|b| b.guess == first)
            || solution.ranking.iter().any(|r| {
                r.guess == first
                    && matches!(r.outcome, Outcome::Exact { .. })
                    && Some(r.outcome.value()) == best.map(|b| b.value())
            });
        if optimal {
            Label::ProvenOptimal
        } else {
            Label::Exact
        }
    }

    /// The label of a solved result: `proven` as the solver reported it, `first_fixed` when
    /// the solve was restricted to one first guess (then it is exact, not proven optimal).
    pub fn of_result(proven: bool, first_fixed: bool) -> Label {
        match (proven, first_fixed) {
            (true, false) => Label::ProvenOptimal,
            (true, true) => Label::Exact,
            (false, _) => Label::Heuristic,
        }
    }

    /// This label for a result that rests on `claims` unchecked worker claims: a proof
    /// (optimal, or given its first guess) becomes one that holds only if they do; an upper
    /// bound stays one.
    pub fn resting_on(self, claims: usize) -> Label {
        let claims = u32::try_from(claims).unwrap_or(u32::MAX);
        match self {
            Label::ProvenOptimal | Label::Exact if claims > 0 => Label::ProvenIfClaimsHold {
                claims,
                given_first: self == Label::Exact,
            },
            other => other,
        }
    }

    /// True when the numbers are optimal only given their first guess: the claim names it
    /// (pass it to [`Label::claim`]).
    pub fn given_first(self) -> bool {
        matches!(
            self,
            Label::Exact
                | Label::ProvenIfClaimsHold {
                    given_first: true,
                    ..
                }
        )
    }

    /// The claim in words, as every view prints it; `first` names the first guess the numbers
    /// are for, when the claim depends on it.
    pub fn claim(self, first: Option<&str>) -> String {
        match (self, first) {
            (Label::ProvenOptimal, _) => "proven optimal".to_string(),
            (Label::ProvenIfClaimsHold { claims, .. }, None) => {
                format!("proven optimal {}", unchecked_condition(claims as usize))
            }
            (Label::ProvenIfClaimsHold { claims, .. }, Some(w)) => format!(
                "proven optimal GIVEN THE FIRST GUESS {w} {}",
                unchecked_condition(claims as usize)
            ),
            (Label::Exact, Some(w)) => format!("proven optimal GIVEN THE FIRST GUESS {w}"),
            (Label::Exact, None) => "proven optimal GIVEN THIS FIRST GUESS".to_string(),
            (Label::Heuristic, None) => "UPPER BOUND ONLY (not proven optimal)".to_string(),
            (Label::Heuristic, Some(w)) => {
                format!("UPPER BOUND ONLY given the first guess {w} (not proven optimal)")
            }
        }
    }

    /// The label's name in JSON and gRPC (`proven-optimal`, `exact`, `heuristic`): the kind
    /// a client words in its own language.
    pub fn name(self) -> &'static str {
        match self {
            Label::ProvenOptimal => "proven-optimal",
            Label::Exact => "exact",
            Label::Heuristic => "heuristic",
            Label::ProvenIfClaimsHold { .. } => "proven-if-claims-hold",
        }
    }

    /// The word the e-paper header shows: it has room for one short word. The star of a
    /// proof resting on unchecked claims is the mark every ranking gives their rows.
    pub fn short(self) -> &'static str {
        match self {
            Label::ProvenOptimal => "proven",
            Label::Exact => "exact",
            Label::Heuristic => "heuristic",
            Label::ProvenIfClaimsHold { .. } => "proven*",
        }
    }

    /// The unchecked worker claims the result rests on (0 for every other label).
    pub fn unchecked_claims(self) -> u32 {
        match self {
            Label::ProvenIfClaimsHold { claims, .. } => claims,
            _ => 0,
        }
    }
}

/// The condition a result resting on `claims` unchecked worker claims is proven under, in the
/// one wording every view uses: "if 3 unchecked worker claims hold". Views that list rows
/// add ", marked *" (see [`MARKED`]): the rows resting on them carry the mark.
pub fn unchecked_condition(claims: usize) -> String {
    format!(
        "if {}",
        plural(
            claims as u64,
            "unchecked worker claim holds",
            "unchecked worker claims hold"
        )
    )
}

/// What a view that lists rows adds to [`unchecked_condition`]: where the claims are.
pub const MARKED: &str = ", marked *";

/// How far a run's result is proven, in the words of a coordinator's headline: a restricted
/// search proves nothing, and rows resting on `unchecked` worker claims are proven only if
/// those hold. The live page says it in the same words.
pub fn proof_words(proven: bool, unchecked: usize) -> String {
    match (proven, unchecked) {
        (false, _) => "not proven (restricted search)".to_string(),
        (true, 0) => "proven".to_string(),
        (true, n) => format!(
            "proven {}{MARKED}; --audit-fraction 1 checks all",
            unchecked_condition(n)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::{proof_words, unchecked_condition, Label};

    #[test]
    fn proof_words_say_what_rests_on_unchecked_claims() {
        assert_eq!(proof_words(false, 3), "not proven (restricted search)");
        assert_eq!(proof_words(true, 0), "proven");
        assert_eq!(
            proof_words(true, 1),
            "proven if 1 unchecked worker claim holds, marked *; --audit-fraction 1 checks all"
        );
        assert_eq!(
            proof_words(true, 2),
            "proven if 2 unchecked worker claims hold, marked *; --audit-fraction 1 checks all"
        );
    }

    #[test]
    fn a_proof_resting_on_unchecked_claims_is_never_plainly_proven() {
        assert_eq!(unchecked_condition(1), "if 1 unchecked worker claim holds");
        let label = Label::ProvenOptimal.resting_on(3);
        assert_eq!(
            label,
            Label::ProvenIfClaimsHold {
                claims: 3,
                given_first: false
            }
        );
        assert!(Label::Exact.resting_on(1).given_first());
        assert_eq!(
            label.claim(None),
            "proven optimal if 3 unchecked worker claims hold"
        );
        assert_eq!(
            Label::Exact.resting_on(1).claim(Some("salet")),
            "proven optimal GIVEN THE FIRST GUESS salet if 1 unchecked worker claim holds"
        );
        assert_eq!(label.name(), "proven-if-claims-hold");
        assert_eq!(
            serde_json::to_string(&label).expect("JSON"),
            "\"proven-if-claims-hold\""
        );
        assert_eq!(label.short(), "proven*");
        assert_eq!(Label::Heuristic.resting_on(3), Label::Heuristic);
        assert_eq!(Label::ProvenOptimal.resting_on(0), Label::ProvenOptimal);
    }

    #[test]
    fn claims_name_the_fixed_first_guess() {
        let claim =
            |proven, first: Option<&str>| Label::of_result(proven, first.is_some()).claim(first);
        assert_eq!(claim(true, None), "proven optimal");
        assert_eq!(
            claim(true, Some("salet")),
            "proven optimal GIVEN THE FIRST GUESS salet"
        );
        assert_eq!(claim(false, None), "UPPER BOUND ONLY (not proven optimal)");
        assert_eq!(
            claim(false, Some("salet")),
            "UPPER BOUND ONLY given the first guess salet (not proven optimal)"
        );
        assert_eq!(
            Label::Exact.claim(None),
            "proven optimal GIVEN THIS FIRST GUESS"
        );
    }
}
