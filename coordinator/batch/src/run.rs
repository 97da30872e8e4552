//! One batch being made, wherever its days are made (here, or by workers): the days in
//! order ([`DayOrder`]), the batch directory, the accepted puzzles, and the account printed
//! at the end. Local and cluster batches record days through [`BatchRun::made`], so both
//! apply the same acceptance rule and write the same files.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use hakase_core::puzzle::level::LEVELS;
use hakase_core::puzzle::{DayOrder, Decision, Level, Missing, Puzzle, Slot};
use serde::Serialize;

use crate::error::Result;
use crate::files::{BatchDir, Header};

/// A batch's level counts, asked for and achieved, and the time per puzzle.
#[derive(Debug, Serialize)]
pub struct LevelSummary {
    level: Level,
    asked: usize,
    achieved: usize,
    made_now: usize,
    median_ms: Option<f64>,
}

/// The JSON summary of a batch run.
#[derive(Debug, Serialize)]
pub struct BatchSummary {
    game: String,
    dir: String,
    days: usize,
    made: usize,
    resumed: usize,
    missing: Vec<usize>,
    levels: Vec<LevelSummary>,
    /// How workers' claims were checked (null unless the batch was served to workers).
    pub checked: Option<String>,
}

/// A batch in the making.
pub struct BatchRun {
    /// The days, in order, and which are settled.
    pub order: DayOrder,
    /// The batch directory.
    pub dir: BatchDir,
    slots: Vec<Slot>,
    puzzles: BTreeMap<usize, Puzzle>,
    times: BTreeMap<Level, Vec<f64>>,
    missing: Vec<usize>,
    resumed: usize,
}

impl BatchRun {
    /// Opens (or resumes) the batch of `slots` in `dir`.
    pub fn open(dir: &Path, header: &Header, slots: Vec<Slot>) -> Result<BatchRun> {
        let (batch, done) = BatchDir::open(dir, header)?;
        let order = DayOrder::new(slots.clone(), &done);
        Ok(BatchRun {
            order,
            dir: batch,
            slots,
            resumed: done.len(),
            puzzles: done.into_iter().map(|p| (p.day, p)).collect(),
            times: BTreeMap::new(),
            missing: Vec::new(),
        })
    }

    /// Days in the batch.
    pub fn count(&self) -> usize {
        self.slots.len()
    }

    /// Records what attempt `attempt` at `slot` made (in `ms`, when it was made now), and
    /// acts on what the order decided: accepted days are appended durably, in day order.
    pub fn made(
        &mut self,
        slot: &Slot,
        attempt: u32,
        made: Option<Puzzle>,
        ms: Option<f64>,
    ) -> Result<()> {
        if let Some(ms) = ms {
            self.times.entry(slot.level).or_default().push(ms);
        }
        let count = self.count();
        for decision in self.order.offer(slot.day, attempt, made) {
            match decision {
                Decision::Accepted(puzzle) => {
                    eprintln!(
                        "day {}/{count}: {} {}",
                        puzzle.day, puzzle.level, puzzle.kind
                    );
                    self.dir.append(&puzzle)?;
                    self.puzzles.insert(puzzle.day, puzzle);
                }
                Decision::Reissued { day, attempt } => {
                    eprintln!("day {day}/{count}: repeats an earlier day; making it again (attempt {attempt})");
                }
                Decision::Missing { day, why } => {
                    let why = match why {
                        Missing::NotFound => "no puzzle found",
                        Missing::Duplicates => "every attempt repeated an earlier day",
                    };
                    let slot = self.slots[day - 1];
                    eprintln!("day {day}/{count}: {why} ({} {})", slot.level, slot.kind);
                    self.missing.push(day);
                }
            }
        }
        Ok(())
    }

    /// Writes the batch's files and returns its puzzles and summary.
    pub fn finish(mut self, game: &str) -> Result<(Vec<Puzzle>, BatchSummary)> {
        let all: Vec<Puzzle> = std::mem::take(&mut self.puzzles).into_values().collect();
        self.dir.finish(&all)?;
        let levels = LEVELS
            .into_iter()
            .map(|level| {
                let mut ms = self.times.remove(&level).unwrap_or_default();
                ms.sort_by(f64::total_cmp);
                LevelSummary {
                    level,
                    asked: self.slots.iter().filter(|s| s.level == level).count(),
                    achieved: all.iter().filter(|p| p.level == level).count(),
                    made_now: ms.len(),
                    median_ms: ms.get(ms.len() / 2).copied(),
                }
            })
            .collect();
        let summary = BatchSummary {
            game: game.to_string(),
            dir: self.dir.dir().display().to_string(),
            days: self.count(),
            made: all.len(),
            resumed: self.resumed,
            missing: self.missing,
            levels,
            checked: None,
        };
        Ok((all, summary))
    }
}

/// The summary as text.
pub fn write_summary(out: &mut dyn Write, s: &BatchSummary) -> std::io::Result<()> {
    writeln!(
        out,
        "{} of {} days in {} ({} resumed); sheet.txt, solutions.txt, puzzles.json",
        s.made, s.days, s.dir, s.resumed
    )?;
    writeln!(out, "LEVEL   ASKED  ACHIEVED  MADE NOW  MEDIAN MS")?;
    for l in &s.levels {
        let median = l.median_ms.map_or("-".to_string(), |m| format!("{m:.0}"));
        writeln!(
            out,
            "{:<6} {:>6} {:>9} {:>9} {:>10}",
            l.level.name(),
            l.asked,
            l.achieved,
            l.made_now,
            median
        )?;
    }
    if !s.missing.is_empty() {
        let days: Vec<String> = s.missing.iter().map(usize::to_string).collect();
        writeln!(out, "no puzzle found for days {}", days.join(", "))?;
    }
    if let Some(checked) = &s.checked {
        writeln!(out, "{checked}")?;
    }
    Ok(())
}
