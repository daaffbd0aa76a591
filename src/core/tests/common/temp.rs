//! Temporary folders for tests, removed when the test ends, whether it
//! passes or fails (the guard's `Drop` runs while a panic unwinds too).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// A fresh, empty folder under the system's temporary folder, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A folder named after the test and this process, emptied first.
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("boaf-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// A path inside the folder.
    pub fn join(&self, rest: impl AsRef<Path>) -> PathBuf {
        self.0.join(rest)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
