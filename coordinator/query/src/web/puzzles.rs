//! `/api/v1/puzzles…`: the committed puzzle batches (`core/data/puzzles/`, made by `hakase
//! puzzle`) played on the page. A puzzle is sent without its solution (a best-move puzzle
//! with the answers it asks about, which the question counts); the player's answer is
//! checked here (spelling normalised as everywhere: hiragana, half-width kana, capitals). A
//! word that is not a name (a guess) of the game is refused as such, a wrong name is called
//! wrong, and neither gives the solution away: the player may try again, or ask for the
//! solution, which only `/solution` (and a right answer) gives.
//!
//! | method and path | body | answer |
//! | --- | --- | --- |
//! | `GET /puzzles` | | `{"batches": [...]}`: name, game, count |
//! | `GET /puzzles/{batch}/{day}` | | rows, question (and its message key), kind, level, the answers of a best move |
//! | `POST /puzzles/{batch}/{day}/answer` | `{"answer"}` | a name or not, right or wrong; solution and grade once right |
//! | `GET /puzzles/{batch}/{day}/solution` | | the solution and its grade |

use std::sync::{Arc, OnceLock};

use axum::extract::rejection::JsonRejection;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use hakase_core::puzzle::{Goal, Grade, Kind, Level, Puzzle, Row};
use hakase_core::rules::normalize::normalize_word;
use hakase_core::rules::presets::load_preset;
use hakase_core::Game;
use serde::{Deserialize, Serialize};

use crate::message::Message;
use crate::QueryService;
use hakase_serving::http::errors::ApiError;

/// The committed batches, by name, as `hakase puzzle` wrote them.
const BATCHES: [(&str, &str); 2] = [
    (
        "pokemon-today",
        include_str!("../../../../core/data/puzzles/pokemon-today/puzzles.json"),
    ),
    (
        "wordle",
        include_str!("../../../../core/data/puzzles/wordle/puzzles.json"),
    ),
];

/// The batches, parsed once; a batch that does not parse is served empty (and the committed
/// ones are parsed by this module's test).
fn batches() -> &'static Vec<(&'static str, Vec<Puzzle>)> {
    static PARSED: OnceLock<Vec<(&'static str, Vec<Puzzle>)>> = OnceLock::new();
    PARSED.get_or_init(|| {
        BATCHES
            .iter()
            .map(|(name, text)| (*name, serde_json::from_str(text).unwrap_or_default()))
            .collect()
    })
}

/// The games of the batches, loaded once (to tell names from other words); `None` for a
/// batch whose game does not load, whose answers are then only compared with the solution.
fn games() -> &'static Vec<Option<Game>> {
    static GAMES: OnceLock<Vec<Option<Game>>> = OnceLock::new();
    GAMES.get_or_init(|| {
        batches()
            .iter()
            .map(|(_, puzzles)| puzzles.first().and_then(|p| load_preset(&p.game).ok()))
            .collect()
    })
}

/// The puzzle routes, to be nested under `/api/v1`.
pub fn routes() -> Router<Arc<QueryService>> {
    Router::new()
        .route("/puzzles", get(list))
        .route("/puzzles/{batch}/{day}", get(show))
        .route("/puzzles/{batch}/{day}/answer", post(answer))
        .route("/puzzles/{batch}/{day}/solution", get(solution))
}

/// A batch on offer.
#[derive(Debug, Serialize)]
pub struct BatchJson {
    /// Its name, used in the paths.
    pub name: &'static str,
    /// The game its puzzles are played in.
    pub game: String,
    /// How many puzzles (days 1..=count).
    pub count: usize,
}

/// The answer to `/puzzles`: an object, as every JSON document of hakase is.
#[derive(Debug, Serialize)]
pub struct BatchesJson {
    /// The batches on offer.
    pub batches: Vec<BatchJson>,
}

/// `GET /puzzles`.
async fn list() -> Json<BatchesJson> {
    Json(BatchesJson {
        batches: batches()
            .iter()
            .map(|(name, puzzles)| BatchJson {
                name,
                game: puzzles.first().map(|p| p.game.clone()).unwrap_or_default(),
                count: puzzles.len(),
            })
            .collect(),
    })
}

/// A puzzle as the player sees it: no solution, no grade.
#[derive(Debug, Serialize)]
pub struct PuzzleJson {
    /// The batch.
    pub batch: &'static str,
    /// Its day.
    pub day: usize,
    /// Puzzles in the batch.
    pub count: usize,
    /// The game.
    pub game: String,
    /// Deduction or best move.
    pub kind: Kind,
    /// Its level.
    pub level: Level,
    /// The rows shown.
    pub rows: Vec<Row>,
    /// The question, in English.
    pub question: String,
    /// The question's message key, for the page to word it in its language.
    pub question_key: &'static str,
    /// The key's arguments.
    pub question_args: Vec<String>,
    /// A best move's answers still possible (the question counts them); null for a
    /// deduction, whose answer they would give away.
    pub candidates: Option<Vec<String>>,
}

/// The question of `p` as a message key: what is asked, over how many rows or answers.
pub fn question_message(p: &Puzzle) -> Message {
    match &p.grade {
        Grade::Deduction(_) => Message::new("question_deduction", [p.rows.len()]),
        Grade::BestMove(b) => match b.goal {
            Goal::WinWithin { guesses } => Message::new(
                "question_win_within",
                [b.candidates.len(), guesses as usize],
            ),
            Goal::UniqueOptimum => Message::new("question_unique_optimum", [b.candidates.len()]),
        },
    }
}

/// A puzzle found: its batch's name and size, its day, the puzzle and its game.
type Found = (
    &'static str,
    usize,
    usize,
    &'static Puzzle,
    Option<&'static Game>,
);

/// The puzzle of `day` (as the path spells it: a day that is no number is no day of the
/// batch either) in `batch`.
fn find(batch: &str, day: &str) -> Result<Found, ApiError> {
    let (index, (name, puzzles)) = batches()
        .iter()
        .enumerate()
        .find(|(_, (name, _))| *name == batch)
        .ok_or_else(|| {
            let names: Vec<&str> = batches().iter().map(|(n, _)| *n).collect();
            ApiError::new(
                StatusCode::NOT_FOUND,
                "not_found",
                format!(
                    "no puzzle batch {batch:?} (available: {})",
                    names.join(", ")
                ),
            )
            .with_message(Message::new(
                "puzzle_batch",
                [batch.to_string(), names.join(", ")],
            ))
        })?;
    let number = day.parse::<usize>().ok();
    let puzzle = number
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| puzzles.get(i))
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "not_found",
                format!("batch {name} has days 1 to {}, not {day}", puzzles.len()),
            )
            .with_message(Message::new(
                "puzzle_day",
                [name.to_string(), puzzles.len().to_string(), day.to_string()],
            ))
        })?;
    let game = games().get(index).and_then(Option::as_ref);
    Ok((
        name,
        puzzles.len(),
        number.unwrap_or_default(),
        puzzle,
        game,
    ))
}

/// `GET /puzzles/{batch}/{day}`.
async fn show(Path((batch, day)): Path<(String, String)>) -> Result<Json<PuzzleJson>, ApiError> {
    let (batch, count, day, p, _) = find(&batch, &day)?;
    let question = question_message(p);
    Ok(Json(PuzzleJson {
        batch,
        day,
        count,
        game: p.game.clone(),
        kind: p.kind,
        level: p.level,
        rows: p.rows.clone(),
        question: p.question.clone(),
        question_key: question.key,
        question_args: question.args,
        candidates: match &p.grade {
            Grade::BestMove(b) => Some(b.candidates.clone()),
            Grade::Deduction(_) => None,
        },
    }))
}

/// The player's answer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerJson {
    /// The word named (any spelling the game's input accepts).
    pub answer: String,
}

/// The verdict on an answer: the solution only once it is right.
#[derive(Debug, Serialize)]
pub struct VerdictJson {
    /// The answer matches the solution.
    pub correct: bool,
    /// The answer is a name (an allowed guess) of the puzzle's game; false for any other
    /// word, which is not counted as a try.
    pub name: bool,
    /// The answer as read (normalised; the game's spelling when it is a name).
    pub answer: String,
    /// The solution, once the answer is right (null before: the player may try again, or
    /// ask `/solution`).
    pub solution: Option<String>,
    /// Why it is the solution, once right: the grade, every number proven when graded
    /// exactly.
    pub grade: Option<Grade>,
}

/// The solution of a puzzle, asked for.
#[derive(Debug, Serialize)]
pub struct SolutionJson {
    /// The solution.
    pub solution: String,
    /// Why: the grade.
    pub grade: Grade,
}

/// `POST /puzzles/{batch}/{day}/answer`.
async fn answer(
    Path((batch, day)): Path<(String, String)>,
    body: Result<Json<AnswerJson>, JsonRejection>,
) -> Result<Json<VerdictJson>, ApiError> {
    let (_, _, _, p, game) = find(&batch, &day)?;
    let Json(body) = body?;
    let typed = normalize_word(&body.answer);
    if typed.is_empty() {
        return Err(ApiError::bad_request("the answer is empty")
            .with_message(Message::new("answer_empty", Vec::<String>::new())));
    }
    let named = game.map(|g| {
        g.lookup_guess(&typed)
            .map(|id| g.guess_text(id).to_string())
    });
    let (name, answer) = match named {
        Some(Some(word)) => (true, word),
        Some(None) => (false, typed),
        // No game to ask: every word counts as a name.
        None => (true, typed),
    };
    let correct = name && normalize_word(&answer) == normalize_word(&p.solution);
    Ok(Json(VerdictJson {
        correct,
        name,
        answer,
        solution: correct.then(|| p.solution.clone()),
        grade: correct.then(|| p.grade.clone()),
    }))
}

/// `GET /puzzles/{batch}/{day}/solution`.
async fn solution(
    Path((batch, day)): Path<(String, String)>,
) -> Result<Json<SolutionJson>, ApiError> {
    let (_, _, _, p, _) = find(&batch, &day)?;
    Ok(Json(SolutionJson {
        solution: p.solution.clone(),
        grade: p.grade.clone(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_batches_parse_and_their_games_load() {
        let counts: Vec<(&str, usize)> = batches().iter().map(|(n, p)| (*n, p.len())).collect();
        assert_eq!(counts, [("pokemon-today", 90), ("wordle", 90)]);
        assert!(games().iter().all(Option::is_some));
    }

    #[test]
    fn questions_have_keys_that_say_what_the_english_says() {
        for (_, puzzles) in batches() {
            for p in puzzles {
                let m = question_message(p);
                let english = match m.key {
                    "question_deduction" => {
                        format!("Exactly one answer fits these {} rows. Which?", m.args[0])
                    }
                    "question_win_within" => format!(
                        "{} answers are left. Exactly one guess wins within {} guesses \
                         whatever the answer. Which?",
                        m.args[0], m.args[1]
                    ),
                    _ => format!(
                        "{} answers are left. Exactly one guess needs the fewest guesses in \
                         total over them, with perfect play after. Which?",
                        m.args[0]
                    ),
                };
                assert_eq!(p.question, english, "day {}", p.day);
            }
        }
    }
}
