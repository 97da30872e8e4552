//! How guesses split a candidate set: the facts both puzzle kinds are screened by.

use rustc_hash::FxHashMap;

use crate::rules::game::{AnswerId, GuessId};
use crate::rules::pattern::{Pattern, PATTERNS};
use crate::rules::table::FeedbackTable;

/// The candidates that show `pattern` for `guess`.
pub fn narrow(
    table: &FeedbackTable,
    candidates: &[AnswerId],
    guess: GuessId,
    pattern: Pattern,
) -> Vec<AnswerId> {
    let row = table.row(guess);
    candidates
        .iter()
        .copied()
        .filter(|&a| row[a as usize] == pattern.0)
        .collect()
}

/// The partition `guess` makes of `candidates`, labelled by first appearance (the winning
/// part keeps its own label): two guesses with the same key are worth exactly the same.
pub fn split_key(table: &FeedbackTable, guess: GuessId, candidates: &[AnswerId]) -> Vec<u8> {
    const WIN: u8 = u8::MAX;
    let row = table.row(guess);
    let mut labels = [WIN; PATTERNS];
    let mut next = 0u8;
    candidates
        .iter()
        .map(|&a| {
            let code = row[a as usize];
            if Pattern(code).is_win() {
                return WIN;
            }
            let label = &mut labels[code as usize];
            if *label == WIN {
                *label = next;
                next += 1;
            }
            *label
        })
        .collect()
}

/// Guesses grouped by [`split_key`]: each class's guesses in list order, classes in the order
/// of their first guess. Guesses that do not split the set at all (one part, no win) are left
/// out: they can never be right.
pub fn classes(table: &FeedbackTable, candidates: &[AnswerId]) -> Vec<Vec<GuessId>> {
    let mut index: FxHashMap<Vec<u8>, usize> = FxHashMap::default();
    let mut classes: Vec<Vec<GuessId>> = Vec::new();
    for guess in 0..table.guesses() as GuessId {
        let key = split_key(table, guess, candidates);
        if key.iter().all(|&label| label == 0) {
            continue;
        }
        match index.get(&key) {
            Some(&i) => classes[i].push(guess),
            None => {
                index.insert(key, classes.len());
                classes.push(vec![guess]);
            }
        }
    }
    classes
}

/// True when every candidate shows `guess` a different pattern: after it, the next guess wins.
pub fn separates(table: &FeedbackTable, guess: GuessId, candidates: &[AnswerId]) -> bool {
    let row = table.row(guess);
    let mut seen = [false; PATTERNS];
    candidates.iter().all(|&a| {
        let code = row[a as usize] as usize;
        !std::mem::replace(&mut seen[code], true)
    })
}

/// Every guess that separates all candidates (wins within two guesses for every answer).
pub fn separating_guesses(table: &FeedbackTable, candidates: &[AnswerId]) -> Vec<GuessId> {
    (0..table.guesses() as GuessId)
        .filter(|&g| separates(table, g, candidates))
        .collect()
}

/// The words rows are drawn from: every allowed guess, except when the guess list dwarfs the
/// answer list (English Wordle: 12972 against 2315), where rows use the answers, the words
/// players know.
pub fn row_pool(game: &crate::rules::game::Game) -> Vec<GuessId> {
    let answers = game.answers().len();
    if game.guesses().len() > 4 * answers {
        (0..answers as AnswerId)
            .map(|a| game.answer_as_guess(a))
            .collect()
    } else {
        (0..game.guesses().len() as GuessId).collect()
    }
}
