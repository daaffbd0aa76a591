//! Writes that survive a crash or a kill: a whole file replaced at once, and
//! a record appended with one write and synced. The puzzle store, the
//! ratings store and the app's energy files all write through here.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// A file that could not be read or written, with the operating system's
/// reason (said once).
#[derive(Debug, Error)]
// The field is not named `source`: thiserror would make it the error's
// cause too, and `{:#}` would print the reason twice.
#[error("{}: {error}", path.display())]
pub struct FileError {
    /// The file.
    pub path: PathBuf,
    /// What the operating system said.
    pub error: io::Error,
}

impl FileError {
    /// A function that wraps an I/O error with this path, for `map_err`.
    pub fn at(path: &Path) -> impl FnOnce(io::Error) -> FileError + '_ {
        move |error| FileError {
            path: path.to_path_buf(),
            error,
        }
    }
}

/// Replaces (or creates) a whole file: writes a synced sibling, renames it
/// over the file, then syncs the folder so the rename survives a power cut.
/// The folder is made first if it is missing. A crash leaves the old file or
/// the new one, never half of either.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir).map_err(FileError::at(dir))?;
    }
    let tmp = PathBuf::from(format!("{}.writing", path.display()));
    let written = File::create(&tmp)
        .and_then(|mut f| {
            f.write_all(bytes)?;
            f.sync_all()
        })
        .map_err(FileError::at(&tmp))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(FileError::at(path)));
    if written.is_err() {
        // Leave no half-written sibling behind.
        let _ = std::fs::remove_file(&tmp);
    }
    written?;
    if let Some(dir) = dir {
        // Not every platform can open a folder; the rename is done either way.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// Appends one record with a single write, then syncs it: a kill leaves the
/// record whole or cut short at the end of the file, never interleaved with
/// another, and every record before it intact.
pub fn append_synced(file: &mut File, record: &[u8]) -> io::Result<()> {
    file.write_all(record)?;
    file.sync_data()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atomic_write_replaces_the_whole_file_and_makes_its_folder() {
        let dir = crate::temp::TempDir::new("durable");
        let path = dir.join("a/b/file.txt");
        write_atomically(&path, b"first version, longer").unwrap();
        write_atomically(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        // No sibling is left behind.
        let names: Vec<_> = std::fs::read_dir(dir.join("a/b")).unwrap().collect();
        assert_eq!(names.len(), 1);
        // A path under a file cannot be written: the error names the path once.
        let err = write_atomically(&path.join("under"), b"x").unwrap_err();
        let text = err.to_string();
        assert_eq!(text.matches("file.txt").count(), 1, "{text}");
        // A rename that fails (onto a folder that is not empty) leaves no
        // half-written sibling.
        let folder = dir.join("taken");
        std::fs::create_dir_all(folder.join("inside")).unwrap();
        assert!(write_atomically(&folder, b"x").is_err());
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(!left.iter().any(|n| n.ends_with(".writing")), "{left:?}");
    }
}
