//! What proving that first guesses cannot beat a known total costs: the work of an exhaustive
//! search for the optimum once a good first guess is known. `cargo run --release -p
//! hakase-core --example refute_cost -- GAME BETA [--answers=FILE] [--firsts=FILE]
//! [--sample=K] [--from=N] [--hard] [--bounds] [--cap-secs=S]`. Prints how the root's scan
//! bounds the allowed first guesses against BETA, and what each one's split alone proves (those
//! bounded at or above it need no search; `--bounds` stops there), then searches each listed
//! first guess (or every K-th guess the scan keeps, from its N-th) with cutoff BETA, one line
//! each: refuted, its exact value, or open when it had used S CPU seconds; wall and CPU seconds
//! and nodes, then the solver's counters over them all. Run it with `RAYON_NUM_THREADS=1` for
//! one thread's CPU seconds and counters that are the same on every run.

use std::time::Instant;

use hakase_core::rules::presets::load_preset;
use hakase_core::rules::word::read_word_list;
use hakase_core::solver::{Halt, Mode, Outcome, Solver, SolverConfig, DEFAULT_MEMO_ENTRIES};
use hakase_core::{FeedbackTable, Game, WordListInput};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (flags, args): (Vec<String>, Vec<String>) =
        std::env::args().skip(1).partition(|a| a.starts_with("--"));
    let [name, beta] = args.as_slice() else {
        return Err(
            "usage: refute_cost GAME BETA [--answers=FILE] [--firsts=FILE] [--sample=K] [--from=N] [--hard] [--bounds] [--cap-secs=S]"
                .into(),
        );
    };
    let beta: u32 = beta.parse()?;
    let preset = load_preset(name)?;
    let mut game = preset.clone();
    let (mut firsts, mut sample, mut from) = (None, 97usize, 0usize);
    let mut bounds_only = false;
    let mut cap_secs: Option<f64> = None;
    let mut config = SolverConfig::default();
    for flag in &flags {
        if flag == "--hard" {
            config.mode = Mode::Hard;
            continue;
        }
        if flag == "--bounds" {
            bounds_only = true;
            continue;
        }
        if let Some(secs) = flag.strip_prefix("--cap-secs=") {
            cap_secs = Some(secs.parse::<f64>()?);
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
    // What each first guess's split alone proves (its parts' levels filled), before any
    // part is scanned: the root's bound on the game.
    let mut splits: Vec<u32> = order
        .iter()
        .map(|b| solver.evaluate_guess(&root, b.guess, 1).value())
        .collect();
    splits.sort_unstable();
    let at = |share: f64| splits[((splits.len() - 1) as f64 * share) as usize];
    println!(
        "split bounds: least {}, quartiles {} {} {}, greatest {}; {} reach {beta}",
        at(0.0),
        at(0.25),
        at(0.5),
        at(0.75),
        at(1.0),
        splits.iter().filter(|&&s| s >= beta).count()
    );
    if bounds_only {
        return Ok(());
    }
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
        // What the guess's split alone proves, before any part is scanned.
        let split = solver.evaluate_guess(&root, guess, 1).value();
        let (start, cpu, nodes) = (Instant::now(), cpu_seconds(), solver.nodes_searched());
        let halt = Halt::new();
        let outcome = std::thread::scope(|scope| {
            let search = scope.spawn(|| {
                let outcome = solver.evaluate_guess_halting(&root, guess, beta, &halt);
                halt.halt();
                outcome
            });
            // Give up once the process has spent the cap's CPU seconds on this guess.
            while !halt.is_halted() {
                std::thread::sleep(std::time::Duration::from_millis(100));
                if cap_secs.is_some_and(|cap| cpu_seconds() - cpu >= cap) {
                    halt.halt();
                }
            }
            search.join().ok().flatten()
        });
        let verdict = match outcome {
            Some(Outcome::Exact { value, .. }) => format!("exact {value}"),
            Some(Outcome::AtLeast(v)) => format!("refuted (at least {v})"),
            None => "open at the cap".to_string(),
        };
        println!(
            "{}\tscan bound {}\tsplit bound {split}\t{verdict}\t{:.3} s\t{:.3} cpu s\t{} nodes",
            game.guess_text(guess),
            lower.map_or("-".to_string(), |l| l.to_string()),
            start.elapsed().as_secs_f64(),
            cpu_seconds() - cpu,
            solver.nodes_searched() - nodes
        );
    }
    // The solver's counters over every guess searched: with one thread, the same each run.
    println!("total {}", solver.stats.summary());
    Ok(())
}

/// CPU seconds this process has used (user + system), from `/proc/self/stat`; 0 where that
/// cannot be read.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (which may hold spaces) start after its ')'.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
    let ticks = |at: usize| fields.get(at).and_then(|f| f.parse::<f64>().ok());
    // utime and stime are the 12th and 13th fields after the name, in clock ticks (100 a
    // second on Linux).
    ticks(11)
        .zip(ticks(12))
        .map_or(0.0, |(user, system)| (user + system) / 100.0)
}
