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

/// Replaces (or creates) a whole file: writes a synced temporary sibling
/// with a name of its own (`.name.XXXXXX.writing`, so two writers of one
/// file never share it), renames it over the file, then syncs the folder so
/// the rename survives a power cut. The folder is made first if it is
/// missing. A crash leaves the old file or the new one, never half of
/// either; a failure (a full disk) leaves the old file and no temporary
/// behind, and its error names the file, not the temporary. A kill mid-write
/// leaves its `.writing` sibling (hidden, and ignored by git), which no later
/// write removes: another writer's may be in use.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(FileError::at(dir))?;
            dir
        }
        None => Path::new("."),
    };
    let prefix = format!(".{}.", path.file_name().unwrap_or_default().display());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".writing");
    // The file gets the permissions `File::create` gives (0666 less the
    // umask), not the temporary's private 0600.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    // Dropping the temporary on an error removes it.
    let mut tmp = builder.tempfile_in(dir).map_err(FileError::at(dir))?;
    // Through the plain file: the temporary's own `Write` appends its path
    // to the OS's reason, which would name the temporary twice.
    tmp.as_file_mut()
        .write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(FileError::at(path))?;
    tmp.persist(path)
        .map_err(|e| FileError::at(path)(e.error))?;
    // Not every platform can open a folder; the rename is done either way.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Appends one record with a single write, then syncs it: a kill leaves the
/// record whole or cut short at the end of the file, never interleaved with
/// another, and every record before it intact. A write or sync that fails
/// (a full disk can take part of the record) cuts the file back to where the
/// record began, so no half record is left for the next one to join.
pub fn append_synced(file: &mut File, record: &[u8]) -> io::Result<()> {
    let start = file.metadata()?.len();
    let done = file.write_all(record).and_then(|()| file.sync_data());
    if done.is_err() && file.metadata().is_ok_and(|m| m.len() > start) {
        // Cutting back frees space, so it works on a full disk too; should
        // it fail, the torn tail is what the next open repairs.
        let _ = file.set_len(start).and_then(|()| file.sync_data());
    }
    done
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
        // Readable by others, as a file made by `File::create`.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            let plain = File::create(dir.join("plain")).unwrap();
            assert_eq!(mode, plain.metadata().unwrap().permissions().mode());
            std::fs::remove_file(dir.join("plain")).unwrap();
        }
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

    #[test]
    fn two_writers_of_one_file_never_tear_it() {
        let dir = crate::temp::TempDir::new("durable-race");
        let path = dir.join("shared.txt");
        // Different lengths, so a mix of the two would show.
        let texts: [&[u8]; 2] = [b"the first writer's text", b"the second's, a longer one"];
        std::thread::scope(|s| {
            for text in texts {
                let path = &path;
                s.spawn(move || {
                    for _ in 0..200 {
                        write_atomically(path, text).unwrap();
                        let now = std::fs::read(path).unwrap();
                        assert!(texts.contains(&now.as_slice()), "{now:?}");
                    }
                });
            }
        });
        assert!(texts.contains(&std::fs::read(&path).unwrap().as_slice()));
        // Only the file is left: no temporary of either writer.
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["shared.txt"], "{left:?}");
    }
}
