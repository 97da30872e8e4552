//! `hakase feedback`: the colours the game shows for one guess against one answer.

use crate::output::plural;
use std::io::Write;

use anyhow::{bail, Context, Result};
use clap::Args;
use hakase_core::rules::word::BOARD;
use hakase_core::{feedback, PatternStyle};
use serde::Serialize;

use super::{guess_len, style_or_default};
use crate::game_args::GameArgs;
use crate::output::{emit, JsonArg, View};

/// Show the colours the game gives GUESS when the answer is ANSWER.
///
/// Example: `hakase feedback キノココ チコリータ` prints 灰灰黄灰: only the third letter (コ)
/// is in the answer, at another place. A letter is yellow only while the answer still has
/// a copy of it not already marked green or yellow further left.
#[derive(Debug, Args)]
pub struct Feedback {
    /// The word guessed (at most 5 letters), e.g. キノココ or drill.
    pub guess: String,

    /// The hidden answer (exactly 5 letters), e.g. チコリータ or slosh.
    pub answer: String,

    /// How to print the pattern: kanji (灰黄緑), letters (BYG), emoji (⬛🟨🟩) or
    /// digits (012). Default: the game's own (kanji for Pokémon, letters for Wordle).
    #[arg(long, value_name = "STYLE")]
    pub style: Option<PatternStyle>,

    /// Which game (its word lists decide which words exist).
    #[command(flatten)]
    pub game: GameArgs,

    /// The bare pattern, or JSON.
    #[command(flatten)]
    pub output: JsonArg,
}

/// The JSON document.
#[derive(Debug, Serialize)]
struct FeedbackJson<'a> {
    game: &'a str,
    guess: &'a str,
    answer: &'a str,
    /// False when the answer word is allowed as a guess but is not among the game's answers.
    answer_is_possible: bool,
    pattern: String,
    digits: String,
}

impl Feedback {
    /// Looks both words up and prints the pattern.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let game = self.game.load()?;
        let guess = game.find_guess(&self.guess).context("reading the guess")?;
        let answer = game
            .find_answer_word(&self.answer)
            .context("reading the answer")?;
        let answer_word = &game.guesses()[answer as usize];
        if answer_word.len() != BOARD {
            bail!(
                "the answer {:?} has {}; answers have exactly {BOARD}",
                game.guess_text(answer),
                plural(answer_word.len() as u64, "letter", "letters")
            );
        }
        let pattern = feedback(&game.guesses()[guess as usize], answer_word);
        let len = guess_len(&game, guess);
        let style = style_or_default(&game, self.style);
        emit(
            out,
            self.output,
            &FeedbackJson {
                game: game.name(),
                guess: game.guess_text(guess),
                answer: game.guess_text(answer),
                answer_is_possible: game.guess_as_answer(answer).is_some(),
                pattern: pattern.format(len, style),
                digits: pattern.format(len, PatternStyle::Digits),
            },
        )
    }
}

impl View for FeedbackJson<'_> {
    fn text(&self, out: &mut dyn Write) -> Result<()> {
        writeln!(out, "{}", self.pattern)?;
        Ok(())
    }
}
