//! One feedback table per machine and game. The first worker that needs it writes it as an
//! image in the table directory; every worker of the machine maps that one file, so the
//! cores' shared cache holds one copy. On a 2-core machine, two one-thread Wordle solves
//! with separate tables each ran 12 % slower than with one shared table.
//!
//! The image is checked against the game before use (see [`hakase_core::table_image`]).
//! Anything wrong with the directory or the file costs only the sharing: the worker then
//! builds a table of its own and says why in its log.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use hakase_core::table_image::{self, ImageError};
use hakase_core::{FeedbackTable, Game};
use memmap2::Mmap;
use thiserror::Error;

/// Where a worker's table came from, for its log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableSource {
    /// Mapped from an image another process (or an earlier run) wrote.
    Mapped(PathBuf),
    /// Built here, written as the image, and mapped.
    Written(PathBuf),
    /// Built here for this process only.
    Private,
}

/// Why the shared table could not be used.
#[derive(Debug, Error)]
pub enum SharedTableError {
    /// The directory, lock, image file or mapping failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// An image that was just written does not read back.
    #[error("{path}: {source}")]
    Image {
        /// The image file.
        path: PathBuf,
        /// What is wrong with it.
        source: ImageError,
    },
}

/// The default table directory: the user's cache directory (`$XDG_CACHE_HOME` or
/// `~/.cache`), else the system's temporary directory.
pub fn default_dir() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        });
    match cache {
        Some(cache) => cache.join("hakase").join("tables"),
        None => std::env::temp_dir().join("hakase-tables"),
    }
}

/// `game`'s table: mapped from `dir` (written there first if missing or unusable), or built
/// privately when `dir` is `None` or cannot be used.
pub fn load(game: &Game, dir: Option<&Path>) -> (FeedbackTable, TableSource) {
    let Some(dir) = dir else {
        return (FeedbackTable::build(game), TableSource::Private);
    };
    match shared(game, dir) {
        Ok(shared) => shared,
        Err(err) => {
            tracing::warn!(error = %err, "building a table of this worker's own instead of sharing one");
            (FeedbackTable::build(game), TableSource::Private)
        }
    }
}

/// Maps the image of `game` in `dir`, first writing it if it is missing or refused. One
/// process at a time does this (a lock file): the others wait and map what it wrote.
fn shared(game: &Game, dir: &Path) -> Result<(FeedbackTable, TableSource), SharedTableError> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SharedTableError::Io { path, source }
    };
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let stem = format!("{}.table", game.fingerprint());
    let path = dir.join(&stem);
    let lock_path = dir.join(format!("{stem}.lock"));
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(io_err(&lock_path))?;
    lock.lock().map_err(io_err(&lock_path))?;
    match File::open(&path) {
        Ok(file) => match read(game, &file) {
            Ok(table) => return Ok((table, TableSource::Mapped(path))),
            Err(ReadError::Image(err)) => {
                tracing::warn!(path = %path.display(), error = %err, "replacing a table image this build cannot use");
            }
            Err(ReadError::Io(source)) => return Err(SharedTableError::Io { path, source }),
        },
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(source) => return Err(SharedTableError::Io { path, source }),
    }
    write(game, dir, &stem, &path)?;
    let file = File::open(&path).map_err(io_err(&path))?;
    match read(game, &file) {
        Ok(table) => Ok((table, TableSource::Written(path))),
        Err(ReadError::Io(source)) => Err(SharedTableError::Io { path, source }),
        Err(ReadError::Image(source)) => Err(SharedTableError::Image { path, source }),
    }
    // The lock is released when `lock` is dropped, after the image is in place.
}

/// Builds the table and puts its image at `path`: written whole under a temporary name
/// (left-overs of a crashed writer are removed first), then renamed, so no process ever
/// maps a half-written image. No fsync: an image lost or torn by a crash fails its
/// checksum and is written again.
fn write(game: &Game, dir: &Path, stem: &str, path: &Path) -> Result<(), SharedTableError> {
    let temporary = format!("{stem}.tmp-");
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&temporary) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    let tmp = dir.join(format!("{temporary}{}", std::process::id()));
    let table = FeedbackTable::build(game);
    let written = File::create(&tmp).and_then(|file| {
        let mut out = BufWriter::with_capacity(1 << 20, file);
        table_image::write_image(game, &table, &mut out)?;
        out.flush()
    });
    written
        .and_then(|()| fs::rename(&tmp, path))
        .map_err(|source| {
            let _ = fs::remove_file(&tmp);
            SharedTableError::Io {
                path: path.to_path_buf(),
                source,
            }
        })
}

enum ReadError {
    Io(io::Error),
    Image(ImageError),
}

/// Images this process has mapped, by file identity (device, inode). Each is mapped once and
/// never unmapped, so tables borrow it for the process's life: the solver's innermost loops
/// then read plain slices. A worker serving run after run maps each image once; an image
/// replaced on disk is a new inode, mapped anew (the old mapping, refused or not, stays:
/// address space only, its pages belong to the page cache).
static MAPPED: Mutex<BTreeMap<(u64, u64), &'static [u8]>> = Mutex::new(BTreeMap::new());

fn read(game: &Game, file: &File) -> Result<FeedbackTable, ReadError> {
    let meta = file.metadata().map_err(ReadError::Io)?;
    let image = {
        let mut mapped = MAPPED.lock().unwrap_or_else(PoisonError::into_inner);
        match mapped.entry((meta.dev(), meta.ino())) {
            Entry::Occupied(image) => *image.get(),
            Entry::Vacant(slot) => {
                let map: &'static Mmap = Box::leak(Box::new(map(file).map_err(ReadError::Io)?));
                *slot.insert(&map[..])
            }
        }
    };
    table_image::read_image(game, image).map_err(ReadError::Image)
}

/// Maps `file` read-only.
#[allow(unsafe_code)]
fn map(file: &File) -> io::Result<Mmap> {
    // SAFETY: hakase never changes an image in place: images are written whole under a
    // temporary name and renamed over the old one, whose mappings keep the old bytes. The
    // bytes are checked after mapping, and the mapping is never unmapped (see `MAPPED`). Only another program truncating the file could
    // change them; the worker would then die of SIGBUS, which the coordinator treats as any
    // lost worker (its leases expire and the jobs are handed out again).
    unsafe { Mmap::map(file) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hakase_core::presets::load_preset;

    #[test]
    fn the_first_load_writes_the_image_and_the_next_maps_the_same_patterns() {
        let game = load_preset("pokemon-today").expect("preset");
        let dir = tempdir("first");
        let (written, source) = load(&game, Some(&dir));
        assert!(matches!(source, TableSource::Written(_)), "{source:?}");
        let (mapped, source) = load(&game, Some(&dir));
        assert!(matches!(source, TableSource::Mapped(_)), "{source:?}");
        let built = FeedbackTable::build(&game);
        for table in [&written, &mapped] {
            assert_eq!(table.rows(), built.rows());
            assert_eq!(table.columns(), built.columns());
            assert_eq!(table.part_counts(), built.part_counts());
        }
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_damaged_image_is_replaced_and_stale_temporaries_removed() {
        let game = load_preset("pokemon-today").expect("preset");
        let dir = tempdir("damaged");
        let (_, source) = load(&game, Some(&dir));
        let TableSource::Written(path) = source else {
            panic!("not written: {source:?}");
        };
        let mut bytes = fs::read(&path).expect("read image");
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        fs::write(&path, &bytes).expect("damage");
        let stale = dir.join(format!("{}.table.tmp-1", game.fingerprint()));
        fs::write(&stale, b"half").expect("stale");
        let (table, source) = load(&game, Some(&dir));
        assert_eq!(source, TableSource::Written(path));
        assert_eq!(table.rows(), FeedbackTable::build(&game).rows());
        assert!(!stale.exists());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unusable_directory_leaves_the_worker_a_private_table() {
        let game = load_preset("pokemon-today").expect("preset");
        let dir = tempdir("unusable");
        fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("a-file");
        fs::write(&file, b"x").expect("file");
        let (table, source) = load(&game, Some(&file.join("tables")));
        assert_eq!(source, TableSource::Private);
        assert_eq!(table.rows(), FeedbackTable::build(&game).rows());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn workers_starting_together_map_one_image() {
        let game = load_preset("pokemon-today").expect("preset");
        let dir = tempdir("together");
        let sources: Vec<TableSource> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| load(&game, Some(&dir)).1))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("thread"))
                .collect()
        });
        let written = sources
            .iter()
            .filter(|s| matches!(s, TableSource::Written(_)))
            .count();
        let mapped = sources
            .iter()
            .filter(|s| matches!(s, TableSource::Mapped(_)))
            .count();
        assert_eq!((written, mapped), (1, 3), "{sources:?}");
        let _ = fs::remove_dir_all(&dir);
    }

    fn tempdir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hakase-shared-table-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }
}
