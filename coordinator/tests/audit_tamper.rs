//! `hakase audit` against a finished run whose database was rewritten afterwards: a bound
//! claim raised above the guess's true total, the best's exact value changed, a branch cut
//! from the stored tree. Each must make the audit exit non-zero naming what is false; the
//! untouched run must pass.

use std::path::Path;
use std::process::Command;

use hakase_core::rules::presets::load_preset;
use hakase_core::solver::{FirstGuessValue, Outcome, Solution, Solver, SolverConfig, INFEASIBLE};
use hakase_core::{FeedbackTable, Game};
use hakase_runs::Store;

use crate::common::{scratch, solve_run};

const GAME: &str = "pokemon-qiita2023";

/// Rewrites the stored solution of `run` with `edit`, as someone with the files could.
fn tamper(run: &Path, game: &Game, edit: impl FnOnce(&mut Solution)) {
    let store = Store::open(run, game, &SolverConfig::default()).expect("the run database");
    let mut solution = store.solution().expect("readable").expect("finished");
    edit(&mut solution);
    store.put_solution(&solution).expect("rewritten");
}

/// `hakase audit --run RUN --fraction 1`: exit code and everything it printed.
fn audit(run: &Path) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hakase"))
        .args(["audit", "--fraction", "1", "--run"])
        .arg(run)
        .output()
        .expect("hakase audit runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

fn mismatches(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.starts_with("mismatch: "))
        .collect()
}

#[test]
fn audit_passes_the_untouched_run_and_names_every_rewritten_claim() {
    let dir = scratch("audit-tamper");
    let game = load_preset(GAME).expect("preset");
    let table = FeedbackTable::build(&game);
    let best = game.find_guess("ジーランス").expect("guess");

    let clean = dir.join("clean");
    solve_run(GAME, &clean);
    let (code, text) = audit(&clean);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains(": tree of ジーランス (964) verified; "),
        "{text}"
    );
    assert_eq!(mismatches(&text), Vec::<&str>::new());
    println!(
        "tamper: none: exit 0: {}",
        text.lines().next().unwrap_or("")
    );

    // 1. A bound claim raised above the guess's true total: the runner-up's, the claim that
    //    decides the result.
    let raised = dir.join("raised");
    solve_run(GAME, &raised);
    let mut target: Option<(FirstGuessValue, u32)> = None;
    tamper(&raised, &game, |s| {
        let at = s
            .ranking
            .iter()
            .position(|v| v.guess != best && !v.outcome.is_exact())
            .expect("a bound claim");
        let claim = s.ranking[at];
        let solver = Solver::new(&game, &table, SolverConfig::default(), 1 << 20);
        let root = solver.root(s.guesses_left);
        let Outcome::Exact { value: truth, .. } =
            solver.evaluate_guess(&root, claim.guess, INFEASIBLE)
        else {
            panic!("every first guess of {GAME} wins within the tries");
        };
        s.ranking[at].outcome = Outcome::AtLeast(truth + 5);
        target = Some((claim, truth));
    });
    let (claim, truth) = target.expect("a claim was rewritten");
    let word = game.guess_text(claim.guess).to_string();
    let (code, text) = audit(&raised);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(
        mismatches(&text),
        vec![format!(
            "mismatch: {word}: the run claims at least {}, re-solved to {truth}",
            truth + 5
        )],
        "{text}"
    );
    assert!(text.contains("failed its audit: 1 mismatches"), "{text}");
    println!(
        "tamper: {word} claim {:?} rewritten to at least {}: exit 1: {}",
        claim.outcome,
        truth + 5,
        mismatches(&text).join("; ")
    );

    // 2. The best's exact value lowered by one (ranking and best alike).
    let lowered = dir.join("lowered");
    solve_run(GAME, &lowered);
    tamper(&lowered, &game, |s| {
        let low = Outcome::Exact {
            value: 963,
            guess: best,
        };
        s.best = Some(FirstGuessValue {
            guess: best,
            outcome: low,
        });
        s.ranking[0].outcome = low;
    });
    let (code, text) = audit(&lowered);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains(": tree of ジーランス (963) FAILED; "),
        "{text}"
    );
    assert_eq!(
        mismatches(&text),
        vec![
            "mismatch: the tree totals 964 (worst 5, 0 unsolved, first guess ジーランス); the run \
             says 963 from ジーランス"
        ],
        "{text}"
    );
    println!(
        "tamper: best value 964 rewritten to 963: exit 1: {}",
        mismatches(&text).join("; ")
    );

    // 3. One branch cut from the stored tree: its answers are no longer solved.
    let cut = dir.join("cut");
    solve_run(GAME, &cut);
    let mut lost = 0;
    tamper(&cut, &game, |s| {
        let tree = s.tree.as_mut().expect("a tree");
        let before = tree.evaluate(&game, &table, &game.all_answers());
        tree.branches.pop();
        let after = tree.evaluate(&game, &table, &game.all_answers());
        lost = after.unsolved.len();
        assert!(lost > 0 && after.total < before.total);
    });
    let (code, text) = audit(&cut);
    assert_eq!(code, Some(1), "{text}");
    let found = mismatches(&text);
    assert_eq!(found.len(), 1, "{text}");
    assert!(
        found[0].starts_with("mismatch: the tree totals ")
            && found[0].contains(&format!(
                ", {lost} unsolved, first guess ジーランス); the run says 964"
            )),
        "{text}"
    );
    println!(
        "tamper: last branch of the tree cut (answers lost: {lost}): exit 1: {}",
        found.join("; ")
    );
}
