//! What proving that first guesses cannot beat a known total costs: the work of an exhaustive
//! search for the optimum once a good first guess is known. `cargo run --release -p
//! hakase-core --example refute_cost -- GAME BETA [--answers=FILE] [--firsts=FILE]
//! [--sample=K] [--from=N] [--hard]`. Prints how the root's scan bounds the allowed first guesses against BETA
//! (those bounded at or above it need no search), then searches each listed first guess
//! (or every K-th guess the scan keeps, from its N-th) with cutoff BETA, one line each: refuted or its exact
//! value, seconds and nodes. With `RAYON_NUM_THREADS=1` the seconds are CPU seconds.

use std::time::Instant;

use hakase_core::presets::load_preset;
use hakase_core::solver::{Mode, Outcome, Solver, SolverConfig, DEFAULT_MEMO_ENTRIES};
use hakase_core::word::read_word_list;
use hakase_core::{FeedbackTable, Game, WordListInput};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (flags, args): (Vec<String>, Vec<String>) =
        std::env::args().skip(1).partition(|a| a.starts_with("--"));
    let [name, beta] = args.as_slice() else {
        return Err(
            "usage: refute_cost GAME BETA [--answers=FILE] [--firsts=FILE] [--sample=K] [--hard]"
                .into(),
        );
    };
    let beta: u32 = beta.parse()?;
    let preset = load_preset(name)?;
    let mut game = preset.clone();
    let (mut firsts, mut sample, mut from) = (None, 97usize, 0usize);
    let mut config = SolverConfig::default();
    for flag in &flags {
        if flag == "--hard" {
            config.mode = Mode::Hard;
            continue;
        }
        let (key, value) = flag.split_once('=').ok_or("flags are --key=value")?;
        match key {
            "--answers" => {
                let answers = WordListInput {
                    label: value.to_string(),
                    words: read_word_list(&std::fs::read(value)?, value)?,
                };
                let guesses: Vec<&str> = (0..preset.guesses().len() as u32)
                    .map(|g| preset.guess_text(g))
                    .collect();
                game = Game::new(
                    &format!("{name} with answers {value}"),
                    WordListInput::from_words("guesses", &guesses),
                    answers,
                    preset.tries(),
                    preset.style(),
                )?;
            }
            "--firsts" => firsts = Some(std::fs::read_to_string(value)?),
            "--sample" => sample = value.parse()?,
            "--from" => from = value.parse()?,
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    let table = FeedbackTable::build(&game);
    let solver = Solver::new(&game, &table, config, DEFAULT_MEMO_ENTRIES);
    let root = solver.root(game.tries());
    let order = solver.guess_order(&root).guesses;
    let open = order.iter().filter(|b| b.lower < beta).count();
    println!(
        "{} answers, {} guesses: the scan keeps {}, bounds {} of them below {beta}",
        root.candidates.len(),
        game.guesses().len(),
        order.len(),
        open
    );
    let at = |share: f64| order[((order.len() - 1) as f64 * share) as usize].lower;
    println!(
        "scan bounds: least {}, quartiles {} {} {}, greatest {}",
        at(0.0),
        at(0.25),
        at(0.5),
        at(0.75),
        at(1.0)
    );
    let listed: Vec<u32> = match firsts {
        Some(text) => text
            .lines()
            .map(|w| game.find_guess(w.trim()))
            .collect::<Result<_, _>>()?,
        None => order[..open]
            .iter()
            .skip(from)
            .step_by(sample.max(1))
            .map(|b| b.guess)
            .collect(),
    };
    for guess in listed {
        let lower = order.iter().find(|b| b.guess == guess).map(|b| b.lower);
        let (start, nodes) = (Instant::now(), solver.nodes_searched());
        let outcome = solver.evaluate_guess(&root, guess, beta);
        let verdict = match outcome {
            Outcome::Exact { value, .. } => format!("exact {value}"),
            Outcome::AtLeast(v) => format!("refuted (at least {v})"),
        };
        println!(
            "{}\tscan bound {}\t{verdict}\t{:.3} s\t{} nodes",
            game.guess_text(guess),
            lower.map_or("-".to_string(), |l| l.to_string()),
            start.elapsed().as_secs_f64(),
            solver.nodes_searched() - nodes
        );
    }
    Ok(())
}
