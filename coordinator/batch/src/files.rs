//! A batch on disk, resumable: `batch.json` says what the batch is, `puzzles.jsonl` gets one
//! line per finished day (written and synced before the next day starts), and the final
//! `puzzles.json`, `sheet.txt` and `solutions.txt` are written from those lines at the end.
//! A rerun with the same options skips the days already in `puzzles.jsonl`; a torn last line
//! (the process killed mid-write) is cut off and that day made again.
//!
//! A batch served to workers also keeps `claims.jsonl`: every checked result a worker
//! reported, synced before the worker hears it was taken, so days made out of order (and not
//! yet accepted) survive a coordinator restart. It is removed when the batch is finished, so
//! the finished directory is the same as a local batch's.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use hakase_core::puzzle::{Kind, Puzzle};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{BatchError, Result};
use crate::sheet::{puzzle_text, solution_text};

/// What identifies a batch: a rerun must ask for exactly the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The game's name.
    pub game: String,
    /// The game's fingerprint (rules and lists).
    pub fingerprint: String,
    /// The batch seed.
    pub seed: u64,
    /// Days in the batch.
    pub count: usize,
    /// The level mix as given.
    pub levels: String,
    /// The kinds the days alternate.
    pub kinds: Vec<Kind>,
}

/// A worker's result for one attempt at a day, as checked and kept by the coordinator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// The day.
    pub day: usize,
    /// The attempt.
    pub attempt: u32,
    /// The puzzle, or `None` when no puzzle was found for the slot.
    pub puzzle: Option<Puzzle>,
}

/// An open batch directory.
pub struct BatchDir {
    dir: PathBuf,
    lines: File,
    claims: Option<File>,
}

const HEADER: &str = "batch.json";
const LINES: &str = "puzzles.jsonl";
const CLAIMS: &str = "claims.jsonl";

impl BatchDir {
    /// Opens or creates the batch in `dir`; returns it with the puzzles already made.
    pub fn open(dir: &Path, header: &Header) -> Result<(BatchDir, Vec<Puzzle>)> {
        fs::create_dir_all(dir).map_err(BatchError::io("creating", dir))?;
        let header_path = dir.join(HEADER);
        if header_path.exists() {
            let text = fs::read_to_string(&header_path)
                .map_err(BatchError::io("reading", &header_path))?;
            let stored: Header =
                serde_json::from_str(&text).map_err(|source| BatchError::Json {
                    path: header_path.clone(),
                    source,
                })?;
            if &stored != header {
                return Err(BatchError::Another {
                    dir: dir.to_path_buf(),
                    game: stored.game,
                    seed: stored.seed,
                    count: stored.count,
                    levels: stored.levels,
                });
            }
        } else {
            let text = serde_json::to_string_pretty(header).map_err(BatchError::Encode)?;
            fs::write(&header_path, text + "\n")
                .map_err(BatchError::io("writing", &header_path))?;
        }
        let lines_path = dir.join(LINES);
        let done = read_lines(&lines_path)?;
        let lines = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&lines_path)
            .map_err(BatchError::io("opening", &lines_path))?;
        Ok((
            BatchDir {
                dir: dir.to_path_buf(),
                lines,
                claims: None,
            },
            done,
        ))
    }

    /// Appends a finished puzzle durably (written and synced).
    pub fn append(&mut self, puzzle: &Puzzle) -> Result<()> {
        append_synced(&mut self.lines, &self.dir.join(LINES), [puzzle])
    }

    /// Opens the claims kept by an earlier coordinator of this batch (see the module comment)
    /// and returns them.
    pub fn open_claims(&mut self) -> Result<Vec<Claim>> {
        let path = self.dir.join(CLAIMS);
        let claims = read_lines(&path)?;
        self.claims = Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(BatchError::io("opening", &path))?,
        );
        Ok(claims)
    }

    /// Appends checked claims durably (one sync for all of them).
    pub fn append_claims(&mut self, claims: &[Claim]) -> Result<()> {
        let path = self.dir.join(CLAIMS);
        let Some(file) = self.claims.as_mut() else {
            return Err(BatchError::ClaimsNotOpen { path });
        };
        append_synced(file, &path, claims)
    }

    /// Writes the whole batch: JSON, the sheet without solutions, and the solutions.
    pub fn finish(&self, puzzles: &[Puzzle]) -> Result<()> {
        let write = |name: &str, text: String| {
            let path = self.dir.join(name);
            fs::write(&path, text).map_err(BatchError::io("writing", &path))
        };
        write(
            "puzzles.json",
            serde_json::to_string_pretty(puzzles).map_err(BatchError::Encode)? + "\n",
        )?;
        let sheet: Vec<String> = puzzles.iter().map(puzzle_text).collect();
        write("sheet.txt", sheet.join("\n"))?;
        let solutions: Vec<String> = puzzles.iter().map(solution_text).collect();
        write("solutions.txt", solutions.join("\n"))?;
        let claims = self.dir.join(CLAIMS);
        if claims.exists() {
            fs::remove_file(&claims).map_err(BatchError::io("removing", &claims))?;
        }
        Ok(())
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Writes one JSON line per item to `file` (at `path`, for errors) and syncs once.
fn append_synced<T: Serialize>(
    file: &mut File,
    path: &Path,
    items: impl IntoIterator<Item = T>,
) -> Result<()> {
    let mut text = String::new();
    for item in items {
        text += &serde_json::to_string(&item).map_err(BatchError::Encode)?;
        text.push('\n');
    }
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_data())
        .map_err(BatchError::io("appending to", path))
}

/// The lines of `path`; a last line without its newline or not readable is cut off.
fn read_lines<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    let Ok(bytes) = fs::read(path) else {
        return Ok(Vec::new());
    };
    let mut puzzles = Vec::new();
    let mut good = 0usize;
    while let Some(end) = bytes[good..].iter().position(|&b| b == b'\n') {
        match serde_json::from_slice::<T>(&bytes[good..good + end]) {
            Ok(puzzle) => puzzles.push(puzzle),
            Err(_) => break,
        }
        good += end + 1;
    }
    if good < bytes.len() {
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(BatchError::io("opening", path))?;
        file.set_len(good as u64)
            .map_err(BatchError::io("cutting the torn end of", path))?;
    }
    Ok(puzzles)
}
