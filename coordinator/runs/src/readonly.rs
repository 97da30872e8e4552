//! Reading a run kept where this process may not write (a read-only mount, an archive, a
//! results volume shared with other users). sled opens its files for writing even to read
//! and has no read-only mode, so a reader refused for that reason reads a private copy of the
//! run in a temporary directory, dropped with the read.

use std::io::{self, ErrorKind};
use std::path::Path;

use crate::sled_guard::SledDamage;

/// A run's files copied to a temporary directory, removed when dropped.
pub(super) struct ReadOnlyCopy {
    dir: tempfile::TempDir,
}

impl ReadOnlyCopy {
    /// Copies the run directory `run` (its files and sub-directories) to a new temporary
    /// directory.
    pub(super) fn of(run: &Path) -> io::Result<ReadOnlyCopy> {
        let dir = tempfile::Builder::new().prefix("hakase-read-").tempdir()?;
        copy_tree(run, dir.path())?;
        Ok(ReadOnlyCopy { dir })
    }

    /// Where the copy is.
    pub(super) fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// True when sled could not open a run because this process may not write there.
pub(super) fn refused_for_writing(damage: &SledDamage) -> bool {
    match damage {
        SledDamage::Error(sled::Error::Io(e)) => {
            matches!(
                e.kind(),
                ErrorKind::ReadOnlyFilesystem | ErrorKind::PermissionDenied
            )
        }
        _ => false,
    }
}

/// Copies the regular files and directories under `from` into `to` (symbolic links are not
/// followed: a run holds none, and a copy must not read outside it).
fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            std::fs::create_dir(&target)?;
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hakase_core::rules::presets::load_preset;
    use hakase_core::solver::SolverConfig;

    use crate::read::read_records;
    use crate::Store;

    #[test]
    fn only_a_refusal_to_write_reads_a_copy() {
        let io = |kind| SledDamage::Error(sled::Error::Io(io::Error::from(kind)));
        assert!(refused_for_writing(&io(ErrorKind::ReadOnlyFilesystem)));
        assert!(refused_for_writing(&io(ErrorKind::PermissionDenied)));
        assert!(!refused_for_writing(&io(ErrorKind::NotFound)));
        assert!(!refused_for_writing(&SledDamage::Panicked("x".into())));
    }

    #[test]
    fn a_copy_reads_as_the_run_and_leaves_nothing_behind() {
        let run = std::env::temp_dir().join(format!("hakase-readonly-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&run);
        let game = load_preset("pokemon-qiita2023").expect("preset");
        drop(Store::open(&run, &game, &SolverConfig::default()).expect("a new run"));
        let copy = ReadOnlyCopy::of(&run).expect("copied");
        let kept = copy.path().to_path_buf();
        let original = read_records(&run).expect("the run");
        let copied = read_records(copy.path()).expect("the copy");
        assert_eq!(
            serde_json::to_string(&original.manifest).expect("JSON"),
            serde_json::to_string(&copied.manifest).expect("JSON")
        );
        drop(copy);
        assert!(!kept.exists(), "the copy is removed with the read");
        let _ = std::fs::remove_dir_all(&run);
    }
}
