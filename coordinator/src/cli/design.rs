//! `hakase design`: the strongest possible first guess among all strings of the game's
//! length over its letters, by entropy (proven) and by exact total.

use std::io::Write;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use hakase_core::design::entropy::{max_entropy, EntropySearch};
use hakase_core::design::run::{real_starts, search_total, Method, TotalOptions, TotalResult};
use hakase_core::design::score::Scorer;
use hakase_core::design::{parse, string_entropy, text, Letters, Space, SpaceOptions};
use hakase_core::solver::memo::BYTES_PER_ENTRY;
use hakase_core::solver::{FirstGuesses, SolverConfig, INFEASIBLE};
use hakase_core::Game;
use serde::Serialize;

use super::{pad, write_json};
use crate::game_args::GameArgs;

/// Find the strongest first guess among all strings, not only real names.
///
/// Any string of the game's length over the letters its words use may be the first guess
/// (a Pokémon that does not exist yet); later guesses are real names. By entropy the search
/// is exact: branch and bound with an admissible bound, so the top string is proven best. By
/// exact total every reported value is the proven optimum of the rest of the game with that
/// string first; small spaces are searched exhaustively (a proof), big ones by local search
/// (the best found, not a proof, with a lower bound no string can beat).
#[derive(Debug, Args)]
pub struct Design {
    /// Which game.
    #[command(flatten)]
    pub game: GameArgs,

    /// What to search for.
    #[arg(long, value_enum, default_value = "both")]
    pub objective: DesignObjective,

    /// Strings to report for each objective.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub top: usize,

    /// Fix a letter in place, as POSITION=LETTER (1-based), e.g. 5=ン. Repeatable.
    #[arg(long = "fix", value_name = "POS=LETTER")]
    pub fix: Vec<String>,

    /// Letters the free positions may use, e.g. ラルイーントス (default: all of the game's).
    #[arg(long, value_name = "LETTERS")]
    pub letters: Option<String>,

    /// Only strings a Japanese reader can pronounce (no small kana, ー, ッ or ン first; no
    /// ーー and the like).
    #[arg(long)]
    pub pronounceable: bool,

    /// Also score these strings (entropy, exact total, worst case), e.g. ラルイーン.
    #[arg(long = "show", value_name = "STRING")]
    pub show: Vec<String>,

    /// Random restarts of the local search on big spaces.
    #[arg(long, default_value_t = 40, value_name = "N")]
    pub kicks: usize,

    /// Seed of the local search's restarts.
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub seed: u64,

    /// Spaces of at most this many strings are searched exhaustively by exact total.
    #[arg(long, default_value_t = 200_000.0, value_name = "N")]
    pub exhaustive_limit: f64,

    /// Stop the entropy search after bounding this many partial strings (then not proven).
    #[arg(long, value_name = "N")]
    pub entropy_nodes: Option<u64>,

    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 512, value_name = "MIB")]
    pub memo_mib: usize,

    /// Text or JSON.
    #[command(flatten)]
    pub output: crate::output::JsonArg,
}

/// Which objectives `hakase design` searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DesignObjective {
    /// Maximum entropy, proven by branch and bound.
    Entropy,
    /// Least exact total.
    Total,
    /// Both.
    Both,
}

/// One reported string.
#[derive(Debug, Serialize)]
struct Row {
    string: String,
    bits: f64,
    /// Exact optimal total with the string first; `None` when the game cannot be won.
    total: Option<u32>,
    mean: Option<f64>,
    /// The smallest worst case any strategy reaches, and the least total within it.
    worst: Option<u32>,
    total_at_worst: Option<u32>,
}

#[derive(Debug, Serialize)]
struct EntropyJson {
    proven: bool,
    partial_strings_bounded: u64,
    seconds: f64,
    rows: Vec<Row>,
}

#[derive(Debug, Serialize)]
struct TotalJson {
    method: Method,
    proven: bool,
    /// No string does better than this.
    lower_bound: u32,
    strings_scored: u64,
    seconds: f64,
    rows: Vec<Row>,
}

#[derive(Debug, Serialize)]
struct RealJson {
    first_guess: String,
    bits: f64,
    total: u32,
    mean: f64,
    proven: bool,
}

#[derive(Debug, Serialize)]
struct DesignJson {
    game: String,
    answers: usize,
    letters: usize,
    strings: f64,
    strings_told_apart: f64,
    /// The two searches: `total` is the sum of guesses everywhere else, so they are named
    /// for what they search.
    entropy_search: Option<EntropyJson>,
    total_search: Option<TotalJson>,
    best_real: Option<RealJson>,
    shown: Vec<Row>,
}

impl Design {
    fn space_options(&self) -> Result<SpaceOptions> {
        let mut fixed = Vec::new();
        for spec in &self.fix {
            let (pos, letter) = spec
                .split_once('=')
                .ok_or_else(|| anyhow!("--fix {spec:?}: write POSITION=LETTER, e.g. 5=ン"))?;
            let pos: usize = pos
                .trim()
                .parse()
                .with_context(|| format!("--fix {spec:?}: position"))?;
            let mut chars = letter.trim().chars();
            let (Some(c), None) = (chars.next(), chars.next()) else {
                bail!("--fix {spec:?}: give exactly one letter");
            };
            fixed.push((pos, c));
        }
        Ok(SpaceOptions {
            fixed,
            letters: self.letters.as_ref().map(|l| l.trim().chars().collect()),
            pronounceable: self.pronounceable,
        })
    }

    /// Runs the searches asked for and prints what they proved or found.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let loaded = self.game.load_with_table()?;
        let (game, table) = (&loaded.game, &loaded.table);
        let space = Space::new(game, &self.space_options()?).context("the design options")?;
        let shown: Vec<Letters> = self
            .show
            .iter()
            .map(|s| parse(game, s).with_context(|| format!("--show {s}")))
            .collect::<Result<_>>()?;
        let entries = self.memo_mib.max(1) * (1 << 20) / BYTES_PER_ENTRY;
        let scorer = Scorer::new(game, table, SolverConfig::default(), entries);
        let starts = real_starts(game, table, &space, 10);
        let entropy = self.entropy_search(game, &space, &starts);
        let total = self.total_search(&scorer, &space, entropy.as_ref(), &starts);
        let row_of = |letters: Letters, known: Option<u32>| row(&scorer, game, letters, known);
        let doc = DesignJson {
            game: game.name().to_string(),
            answers: game.answers().len(),
            letters: game.alphabet().len(),
            strings: space.strings(),
            strings_told_apart: space.searched(),
            entropy_search: entropy.map(|(e, seconds)| EntropyJson {
                proven: e.proven,
                partial_strings_bounded: e.nodes,
                seconds,
                rows: e.top.iter().map(|s| row_of(s.letters, None)).collect(),
            }),
            total_search: total.map(|(t, seconds)| TotalJson {
                method: t.method,
                proven: t.proven,
                lower_bound: t.lower_bound,
                strings_scored: t.scored,
                seconds,
                rows: t
                    .top
                    .iter()
                    .map(|v| row_of(v.letters, Some(v.total)))
                    .collect(),
            }),
            best_real: best_real(&scorer, game),
            shown: shown.iter().map(|&s| row_of(s, None)).collect(),
        };
        if self.output.json {
            return write_json(out, &doc);
        }
        print(out, &doc)
    }

    /// The search by entropy with its time in seconds, unless only the total is asked for.
    fn entropy_search(
        &self,
        game: &Game,
        space: &Space,
        starts: &[Letters],
    ) -> Option<(EntropySearch, f64)> {
        (self.objective != DesignObjective::Total).then(|| {
            let started = Instant::now();
            let found = max_entropy(game, space, self.top, starts, self.entropy_nodes);
            (found, started.elapsed().as_secs_f64())
        })
    }

    /// The search by exact total with its time in seconds, seeded with the entropy search's
    /// strings and the real starts, unless only entropy is asked for.
    fn total_search(
        &self,
        scorer: &Scorer<'_>,
        space: &Space,
        entropy: Option<&(EntropySearch, f64)>,
        starts: &[Letters],
    ) -> Option<(TotalResult, f64)> {
        if self.objective == DesignObjective::Entropy {
            return None;
        }
        let started = Instant::now();
        let mut seeds: Vec<Letters> = entropy
            .iter()
            .flat_map(|(e, _)| e.top.iter().map(|s| s.letters))
            .collect();
        seeds.extend(starts);
        let found = search_total(
            scorer,
            space,
            &seeds,
            TotalOptions {
                top: self.top,
                exhaustive_limit: self.exhaustive_limit,
                node_limit: None,
                kicks: self.kicks,
                seed: self.seed,
            },
        );
        Some((found, started.elapsed().as_secs_f64()))
    }
}

/// One string's row: its entropy, exact total (`known` when the search already has it) and
/// the least worst case with the least total within it.
fn row(scorer: &Scorer<'_>, game: &Game, letters: Letters, known: Option<u32>) -> Row {
    let total = known
        .or_else(|| scorer.total(letters, INFEASIBLE).exact())
        .filter(|&t| t < INFEASIBLE);
    let worst = scorer.worst(letters);
    Row {
        string: text(game, letters),
        bits: string_entropy(game, letters),
        total,
        mean: total.map(|t| f64::from(t) / game.answers().len() as f64),
        worst: worst.map(|w| w.0),
        total_at_worst: worst.map(|w| w.1),
    }
}

/// The best real first guess by exact total, with the solver's proof.
fn best_real(scorer: &Scorer<'_>, game: &Game) -> Option<RealJson> {
    let solution = scorer.solver().solve_game(FirstGuesses::Best, &|_| {});
    let best = solution.best?;
    let total = best.outcome.value();
    let table = scorer.solver().table();
    Some(RealJson {
        first_guess: game.guess_text(best.guess).to_string(),
        bits: hakase_core::heuristics::entropy::entropy(table, best.guess, &game.all_answers()),
        total,
        mean: f64::from(total) / game.answers().len() as f64,
        proven: solution.proven,
    })
}

fn print(out: &mut dyn Write, doc: &DesignJson) -> Result<()> {
    writeln!(
        out,
        "{}: {} strings of 5 letters as the first guess ({} told apart; the game's words \
         use {} letters), {} answers",
        doc.game,
        count(doc.strings),
        count(doc.strings_told_apart),
        doc.letters,
        doc.answers
    )?;
    if let Some(e) = &doc.entropy_search {
        let claim = if e.proven {
            "exact maximum, proven by branch and bound"
        } else {
            "best found, not proven (node limit reached)"
        };
        writeln!(
            out,
            "\nBy entropy: {claim} ({} partial strings bounded, {:.1} s)",
            e.partial_strings_bounded, e.seconds
        )?;
        rows(out, &e.rows)?;
    }
    if let Some(t) = &doc.total_search {
        let claim = match (t.method, t.proven) {
            (_, true) => "proven best (exhaustive branch and bound)".to_string(),
            (Method::Exhaustive, false) => "best found, not proven (node limit)".to_string(),
            (Method::Local, false) => "best found by local search, not proven".to_string(),
        };
        writeln!(
            out,
            "\nBy exact total: {claim}; {} strings scored exactly, {:.1} s; no string can do \
             better than {}",
            t.strings_scored, t.seconds, t.lower_bound
        )?;
        rows(out, &t.rows)?;
    }
    if let Some(r) = &doc.best_real {
        writeln!(
            out,
            "\nBest real first guess: {} total {} (mean {:.4}){}, {:.5} bits",
            r.first_guess,
            r.total,
            r.mean,
            if r.proven { ", proven" } else { "" },
            r.bits
        )?;
    }
    if !doc.shown.is_empty() {
        writeln!(out, "\nAsked for:")?;
        rows(out, &doc.shown)?;
    }
    Ok(())
}

/// A count of strings: exact when small, else in scientific notation.
fn count(n: f64) -> String {
    if n < 1e7 {
        format!("{n:.0}")
    } else {
        format!("{n:.3e}")
    }
}

fn rows(out: &mut dyn Write, rows: &[Row]) -> Result<()> {
    writeln!(out, "RANK  STRING      BITS     TOTAL  MEAN    WORST")?;
    for (i, r) in rows.iter().enumerate() {
        let total = r.total.map_or("-".to_string(), |t| t.to_string());
        let mean = r.mean.map_or("-".to_string(), |m| format!("{m:.4}"));
        let worst = match (r.worst, r.total_at_worst) {
            (Some(w), Some(t)) if Some(t) != r.total => format!("{w} (total {t})"),
            (Some(w), _) => w.to_string(),
            _ => "-".to_string(),
        };
        writeln!(
            out,
            "{:>4}  {}{:.5}  {:>5}  {:<6}  {}",
            i + 1,
            pad(&r.string, 12),
            r.bits,
            total,
            mean,
            worst
        )?;
    }
    Ok(())
}
