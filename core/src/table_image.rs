//! A feedback table as one self-checking byte image, so the processes of one machine can map
//! a single copy instead of each building its own. Wordle's table is 60 MB (both copies of
//! the patterns); two workers holding separate copies overflow the cores' shared cache
//! where one copy does not, and each runs about 12 % slower.
//!
//! The image is trusted only after it is checked against the game: magic, format, the game's
//! fingerprint and sizes, a checksum of every byte, and a sample of rows recomputed from the
//! rules (so an image written by a build with other rules is refused even if intact).

use std::io::{self, Write};

use thiserror::Error;
use xxhash_rust::xxh3::Xxh3;

use crate::game::{Game, GuessId};
use crate::table::FeedbackTable;

/// Why an image cannot be used for a game; the caller rebuilds the table.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ImageError {
    /// Too short to hold the header.
    #[error("{0} bytes, shorter than the {HEADER}-byte header")]
    Short(usize),
    /// Not written by hakase.
    #[error("not a hakase feedback table")]
    Magic,
    /// Written by a build with another layout.
    #[error("format {0}, this build reads format {FORMAT}")]
    Format(u32),
    /// Another game's table.
    #[error("the table of game {found}, not of {expected}")]
    Game {
        /// The fingerprint in the image.
        found: String,
        /// The game's fingerprint.
        expected: String,
    },
    /// Sizes that do not match the game, or a truncated file.
    #[error("{found} bytes for {guesses} guesses × {answers} answers, which need {expected}")]
    Length {
        /// The image's length.
        found: usize,
        /// The length the game needs.
        expected: usize,
        /// The game's guesses.
        guesses: usize,
        /// The game's answers.
        answers: usize,
    },
    /// Damaged contents.
    #[error("the checksum does not match the contents")]
    Checksum,
    /// Intact but computed by other rules.
    #[error("guess {0}'s patterns differ from this build's rules")]
    Rules(GuessId),
}

/// The first bytes of every image.
pub const MAGIC: &[u8; 8] = b"hakaseFT";
/// The layout's version: bumped whenever the layout or the pattern encoding changes.
pub const FORMAT: u32 = 1;
/// Header bytes; the patterns start here (64-aligned, like the mapping itself).
const HEADER: usize = 64;
/// Rows recomputed when an image is read (about 0.1 % of Wordle's table).
const SAMPLED_ROWS: usize = 16;

/// The image's length for `game`.
pub fn image_len(game: &Game) -> usize {
    let (guesses, answers) = (game.guesses().len(), game.answers().len());
    HEADER + 2 * guesses * answers + 2 * guesses
}

/// Writes `table`, built for `game`, as an image [`read_image`] accepts.
pub fn write_image(game: &Game, table: &FeedbackTable, out: &mut dyn Write) -> io::Result<()> {
    let parts: Vec<u8> = table
        .part_counts()
        .iter()
        .flat_map(|p| p.to_le_bytes())
        .collect();
    let mut hash = Xxh3::new();
    for chunk in [table.rows(), table.columns(), &parts] {
        hash.update(chunk);
    }
    out.write_all(&header(game, hash.digest()))?;
    out.write_all(table.rows())?;
    out.write_all(table.columns())?;
    out.write_all(&parts)
}

/// The table in `image`, once it is checked to be `game`'s; the table reads its patterns
/// from `image`, which lives as long as the process (a mapping that is never unmapped).
pub fn read_image(game: &Game, image: &'static [u8]) -> Result<FeedbackTable, ImageError> {
    let (guesses, answers) = (game.guesses().len(), game.answers().len());
    if image.len() < HEADER {
        return Err(ImageError::Short(image.len()));
    }
    let (head, body) = image.split_at(HEADER);
    if &head[..8] != MAGIC {
        return Err(ImageError::Magic);
    }
    let format = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
    if format != FORMAT {
        return Err(ImageError::Format(format));
    }
    let found = String::from_utf8_lossy(&head[24..40])
        .trim_end_matches('\0')
        .to_string();
    if found != game.fingerprint() {
        return Err(ImageError::Game {
            found,
            expected: game.fingerprint().to_string(),
        });
    }
    let expected = image_len(game);
    let dims = (u32_at(head, 12) as usize, u32_at(head, 16) as usize);
    if image.len() != expected || dims != (guesses, answers) {
        return Err(ImageError::Length {
            found: image.len(),
            expected,
            guesses,
            answers,
        });
    }
    let mut checksum = [0u8; 8];
    checksum.copy_from_slice(&head[40..48]);
    if xxhash_rust::xxh3::xxh3_64(body) != u64::from_le_bytes(checksum) {
        return Err(ImageError::Checksum);
    }
    let cells = guesses * answers;
    let parts = body[2 * cells..]
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    let table = FeedbackTable::from_shared(answers, &body[..cells], &body[cells..2 * cells], parts);
    check_rules(game, &table)?;
    Ok(table)
}

/// The header: magic, format, sizes, the game's fingerprint and the checksum of the rest.
fn header(game: &Game, checksum: u64) -> [u8; HEADER] {
    let mut head = [0u8; HEADER];
    head[..8].copy_from_slice(MAGIC);
    head[8..12].copy_from_slice(&FORMAT.to_le_bytes());
    head[12..16].copy_from_slice(&(game.guesses().len() as u32).to_le_bytes());
    head[16..20].copy_from_slice(&(game.answers().len() as u32).to_le_bytes());
    let fingerprint = game.fingerprint().as_bytes();
    let n = fingerprint.len().min(16);
    head[24..24 + n].copy_from_slice(&fingerprint[..n]);
    head[40..48].copy_from_slice(&checksum.to_le_bytes());
    head
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Recomputes evenly spaced rows (the last one included) and compares them with both copies
/// of the patterns and the part counts.
fn check_rules(game: &Game, table: &FeedbackTable) -> Result<(), ImageError> {
    let guesses = table.guesses();
    if guesses == 0 {
        return Ok(());
    }
    let step = guesses.div_ceil(SAMPLED_ROWS).max(1);
    let sample: Vec<GuessId> = (0..guesses)
        .step_by(step)
        .chain([guesses - 1])
        .map(|g| g as GuessId)
        .collect();
    for (guess, row) in sample
        .iter()
        .zip(crate::table::recompute_rows(game, &sample))
    {
        let agrees = table.row(*guess) == row.as_slice()
            && (0..table.answers()).all(|a| table.column(a as u32)[*guess as usize] == row[a])
            && table.parts(*guess) == u32::from(crate::table::distinct_patterns(&row));
        if !agrees {
            return Err(ImageError::Rules(*guess));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::load_preset;

    fn image_of(game: &Game) -> Vec<u8> {
        let mut image = Vec::new();
        write_image(game, &FeedbackTable::build(game), &mut image).expect("write");
        image
    }

    fn read(game: &Game, image: Vec<u8>) -> Result<FeedbackTable, ImageError> {
        read_image(game, Vec::leak(image))
    }

    #[test]
    fn a_read_image_gives_every_pattern_and_part_count_of_the_built_table() {
        let game = load_preset("pokemon-today").expect("preset");
        let built = FeedbackTable::build(&game);
        let image = image_of(&game);
        assert_eq!(image.len(), image_len(&game));
        let read = read(&game, image).expect("read");
        assert_eq!(read.guesses(), built.guesses());
        assert_eq!(read.answers(), built.answers());
        assert_eq!(read.rows(), built.rows());
        assert_eq!(read.columns(), built.columns());
        assert_eq!(read.part_counts(), built.part_counts());
        for g in 0..built.guesses() as GuessId {
            assert_eq!(read.row(g), built.row(g));
            assert_eq!(read.parts(g), built.parts(g));
        }
        for a in 0..built.answers() as u32 {
            assert_eq!(read.column(a), built.column(a));
            assert_eq!(read.get(7, a), built.get(7, a));
        }
    }

    #[test]
    fn a_damaged_or_foreign_image_is_refused_with_its_reason() {
        let game = load_preset("pokemon-today").expect("preset");
        let other = load_preset("pokemon-qiita2023").expect("preset");
        let image = image_of(&game);

        assert_eq!(
            read(&game, image[..10].to_vec()).err(),
            Some(ImageError::Short(10))
        );
        let mut magic = image.clone();
        magic[0] = b'H';
        assert_eq!(read(&game, magic).err(), Some(ImageError::Magic));
        let mut format = image.clone();
        format[8] = 9;
        assert_eq!(read(&game, format).err(), Some(ImageError::Format(9)));
        assert!(matches!(
            read(&other, image.clone()).err(),
            Some(ImageError::Game { .. })
        ));
        assert!(matches!(
            read(&game, image[..image.len() - 1].to_vec()).err(),
            Some(ImageError::Length { .. })
        ));
        let mut flipped = image.clone();
        flipped[HEADER + 1234] ^= 1;
        assert_eq!(read(&game, flipped).err(), Some(ImageError::Checksum));
    }

    #[test]
    fn an_intact_image_of_other_rules_is_refused() {
        let game = load_preset("pokemon-today").expect("preset");
        let mut image = image_of(&game);
        let answers = game.answers().len();
        // Guess 0's pattern for answer 0 changed in both copies, the checksum recomputed: the
        // image is consistent, only the rules differ.
        image[HEADER] ^= 1;
        image[HEADER + game.guesses().len() * answers] ^= 1;
        let checksum = xxhash_rust::xxh3::xxh3_64(&image[HEADER..]);
        image[40..48].copy_from_slice(&checksum.to_le_bytes());
        assert_eq!(read(&game, image).err(), Some(ImageError::Rules(0)));
    }
}
