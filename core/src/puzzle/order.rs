//! The order-free acceptance rule of a batch, shared by the local batch and the cluster.
//!
//! Each day is generated on its own from the batch seed, its slot and an attempt number
//! ([`super::Generator::generate`]), so days may be made anywhere and arrive in any order.
//! Days are *accepted* in day order: a day's puzzle that is a near-duplicate of an earlier
//! accepted day (the same answer or set of answers left, or the same first row) is re-issued
//! with the next attempt, up to [`MAX_ATTEMPTS`]. Which puzzle a day gets therefore depends
//! only on the seed and the options, never on how many machines made the days or when their
//! results came in.

use std::collections::HashMap;

use super::batch::Slot;
use super::{Grade, Puzzle, Row};

/// Attempts a day gets before it is left empty as a near-duplicate of earlier days.
pub const MAX_ATTEMPTS: u32 = 16;

/// The near-duplicate keys of the accepted puzzles, each with the earliest day holding it.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    answers: HashMap<Vec<String>, usize>,
    first_rows: HashMap<Row, usize>,
}

impl Seen {
    /// Records an accepted puzzle.
    pub fn add(&mut self, puzzle: &Puzzle) {
        let day = puzzle.day;
        let earliest = |held: &mut usize| *held = (*held).min(day);
        earliest(self.answers.entry(answer_key(puzzle)).or_insert(day));
        if let Some(first) = puzzle.rows.first() {
            earliest(self.first_rows.entry(first.clone()).or_insert(day));
        }
    }

    /// True when `puzzle` repeats the answer(s) or the first row of an accepted puzzle of an
    /// *earlier* day (later days never count, so a resumed batch decides as a fresh one).
    pub fn clashes(&self, puzzle: &Puzzle) -> bool {
        let earlier = |day: Option<&usize>| day.is_some_and(|&d| d < puzzle.day);
        earlier(self.answers.get(&answer_key(puzzle)))
            || puzzle
                .rows
                .first()
                .is_some_and(|first| earlier(self.first_rows.get(first)))
    }
}

/// The answer of a deduction puzzle, or the answers left of a best-move problem.
fn answer_key(puzzle: &Puzzle) -> Vec<String> {
    match &puzzle.grade {
        Grade::Deduction(_) => vec![puzzle.solution.clone()],
        Grade::BestMove(grade) => grade.candidates.clone(),
    }
}

/// Why a day of a batch has no puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// The generator found no puzzle for the slot.
    NotFound,
    /// Every attempt repeated an earlier day.
    Duplicates,
}

/// What offering a result decided, in day order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// The day's puzzle is final.
    Accepted(Puzzle),
    /// The day stays empty.
    Missing {
        /// The day.
        day: usize,
        /// Why.
        why: Missing,
    },
    /// The day's result repeated an earlier day: make it again with this attempt.
    Reissued {
        /// The day.
        day: usize,
        /// The attempt to make now.
        attempt: u32,
    },
}

/// One day's progress.
#[derive(Debug, Clone)]
enum Day {
    /// Waiting for the result of `attempt` (held in `result` once it came).
    Open {
        attempt: u32,
        result: Option<Option<Puzzle>>,
    },
    /// Accepted or left empty.
    Settled,
}

/// The days of a batch and which of them are settled; see the module comment for the rule.
#[derive(Debug, Clone)]
pub struct DayOrder {
    slots: Vec<Slot>,
    days: Vec<Day>,
    seen: Seen,
    /// Every day before this index is settled.
    frontier: usize,
}

impl DayOrder {
    /// The batch of `slots` (days 1, 2, … in order) with the puzzles `done` already accepted.
    pub fn new(slots: Vec<Slot>, done: &[Puzzle]) -> DayOrder {
        let mut seen = Seen::default();
        let mut days = vec![
            Day::Open {
                attempt: 0,
                result: None
            };
            slots.len()
        ];
        for puzzle in done {
            if let Some(day) = puzzle.day.checked_sub(1).and_then(|i| days.get_mut(i)) {
                *day = Day::Settled;
                seen.add(puzzle);
            }
        }
        let mut order = DayOrder {
            slots,
            days,
            seen,
            frontier: 0,
        };
        order.advance();
        order
    }

    /// The days still to be made, with the attempt each needs, in day order.
    pub fn wanted(&self) -> impl Iterator<Item = (Slot, u32)> + '_ {
        self.slots
            .iter()
            .zip(&self.days)
            .skip(self.frontier)
            .filter_map(|(slot, day)| match day {
                Day::Open {
                    attempt,
                    result: None,
                } => Some((*slot, *attempt)),
                _ => None,
            })
    }

    /// The slot of `day` and the attempt it waits for, if it waits for one.
    pub fn waiting(&self, day: usize) -> Option<(Slot, u32)> {
        let i = day.checked_sub(1)?;
        match self.days.get(i)? {
            Day::Open {
                attempt,
                result: None,
            } => Some((self.slots[i], *attempt)),
            _ => None,
        }
    }

    /// True when every day is settled.
    pub fn is_done(&self) -> bool {
        self.frontier == self.days.len()
    }

    /// Takes the result of `attempt` at `day` (`None`: no puzzle found) and returns what it
    /// decided, in day order. A result for a day or attempt not waited for is ignored.
    pub fn offer(&mut self, day: usize, attempt: u32, made: Option<Puzzle>) -> Vec<Decision> {
        if self.waiting(day).map(|(_, a)| a) != Some(attempt) {
            return Vec::new();
        }
        let i = day - 1;
        let mut decisions = Vec::new();
        // Accepted days are all earlier than this one, so a clash now is final.
        if made.as_ref().is_some_and(|p| self.seen.clashes(p)) {
            decisions.push(self.reissue(i, attempt));
        } else {
            self.days[i] = Day::Open {
                attempt,
                result: Some(made),
            };
        }
        decisions.extend(self.advance());
        decisions
    }

    /// Moves day `i` to its next attempt, or leaves it empty after the last.
    fn reissue(&mut self, i: usize, attempt: u32) -> Decision {
        let day = self.slots[i].day;
        if attempt + 1 < MAX_ATTEMPTS {
            self.days[i] = Day::Open {
                attempt: attempt + 1,
                result: None,
            };
            Decision::Reissued {
                day,
                attempt: attempt + 1,
            }
        } else {
            self.days[i] = Day::Settled;
            Decision::Missing {
                day,
                why: Missing::Duplicates,
            }
        }
    }

    /// Settles days in order while the next one has its result.
    fn advance(&mut self) -> Vec<Decision> {
        let mut decisions = Vec::new();
        while let Some(day) = self.days.get_mut(self.frontier) {
            let Day::Open { attempt, result } = day else {
                self.frontier += 1;
                continue;
            };
            let attempt = *attempt;
            let Some(made) = result.take() else {
                break;
            };
            match made {
                None => {
                    *day = Day::Settled;
                    decisions.push(Decision::Missing {
                        day: self.slots[self.frontier].day,
                        why: Missing::NotFound,
                    });
                }
                Some(puzzle) if self.seen.clashes(&puzzle) => {
                    decisions.push(self.reissue(self.frontier, attempt));
                }
                Some(puzzle) => {
                    *day = Day::Settled;
                    self.seen.add(&puzzle);
                    decisions.push(Decision::Accepted(puzzle));
                }
            }
        }
        decisions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{DeductionGrade, Kind, Level, Reasoning};

    fn slot(day: usize) -> Slot {
        Slot {
            day,
            level: Level::Easy,
            kind: Kind::Deduction,
        }
    }

    fn puzzle(day: usize, answer: &str, first: &str) -> Puzzle {
        Puzzle {
            day,
            game: "g".into(),
            kind: Kind::Deduction,
            level: Level::Easy,
            rows: vec![Row {
                guess: first.into(),
                pattern: "BBBBB".into(),
            }],
            question: String::new(),
            solution: answer.into(),
            grade: Grade::Deduction(DeductionGrade {
                counts: vec![1],
                reasoning: Reasoning::GreensOnly,
                careless_left: 1,
                careless_keeps_answer: true,
            }),
        }
    }

    /// Replays results in `arrival` order and returns the accepted answers and the log.
    fn run(arrival: &[(usize, u32, &str, &str)]) -> (Vec<String>, Vec<Decision>) {
        let mut order = DayOrder::new((1..=3).map(slot).collect(), &[]);
        let mut log = Vec::new();
        for &(day, attempt, answer, first) in arrival {
            log.extend(order.offer(day, attempt, Some(puzzle(day, answer, first))));
        }
        assert!(order.is_done());
        let accepted = log
            .iter()
            .filter_map(|d| match d {
                Decision::Accepted(p) => Some(format!("{}:{}", p.day, p.solution)),
                _ => None,
            })
            .collect();
        (accepted, log)
    }

    #[test]
    fn the_same_days_are_accepted_whatever_the_arrival_order() {
        // Day 2's first attempt repeats day 1's answer; day 3's repeats day 2's second one.
        let results = [
            (1, 0, "apple", "r1"),
            (2, 0, "apple", "r2"),
            (2, 1, "berry", "r3"),
            (3, 0, "berry", "r4"),
            (3, 1, "cherry", "r5"),
        ];
        let want = vec!["1:apple", "2:berry", "3:cherry"];
        let (in_order, log) = run(&results);
        assert_eq!(in_order, want);
        assert!(log.contains(&Decision::Reissued { day: 2, attempt: 1 }));
        assert!(log.contains(&Decision::Reissued { day: 3, attempt: 1 }));
        // Later days first: day 3's clash only shows once day 2 is accepted.
        let reversed = [results[3], results[1], results[0], results[2], results[4]];
        assert_eq!(run(&reversed).0, want);
    }

    #[test]
    fn stale_results_are_ignored_and_a_resume_counts_only_earlier_days() {
        let mut order = DayOrder::new((1..=2).map(slot).collect(), &[puzzle(2, "kiwi", "r2")]);
        assert_eq!(order.wanted().collect::<Vec<_>>(), vec![(slot(1), 0)]);
        assert!(order.offer(1, 3, Some(puzzle(1, "kiwi", "x"))).is_empty());
        // Day 1 may repeat day 2: only earlier days count.
        assert_eq!(
            order.offer(1, 0, Some(puzzle(1, "kiwi", "x"))),
            vec![Decision::Accepted(puzzle(1, "kiwi", "x"))]
        );
        assert!(order.is_done());
    }
}
