//! A tiny filesystem for the full-disk tests: a tmpfs mounted on a folder
//! for one test and unmounted when the guard goes (pass or fail, the `Drop`
//! runs while a panic unwinds too), and a filler that takes every free byte.
//!
//! Mounting needs root and `mount`. Without them a test skips with a message
//! under a plain `cargo test`; `tests/run` (as root) sets `BOAF_FS_TESTS=1`,
//! which makes that a failure instead.

#![allow(dead_code)]

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs mounted on a folder, unmounted on drop.
pub struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mounts a tmpfs of `size` (as `mount -o size=` reads it: `256k`) on
    /// `dir`, made first. `None`, after saying why `test` is skipped, when it
    /// cannot be mounted and `BOAF_FS_TESTS=1` is not set; a failure when it is.
    pub fn mount(dir: &Path, size: &str, test: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(dir).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output();
        let why = match out {
            Ok(o) if o.status.success() => return Some(Tmpfs(dir.to_path_buf())),
            // Its first line: the rest is a hint to read dmesg.
            Ok(o) => String::from_utf8_lossy(&o.stderr)
                .lines()
                .next()
                .unwrap_or("mount failed")
                .to_string(),
            Err(e) => format!("mount: {e}"),
        };
        let required = std::env::var("BOAF_FS_TESTS").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "{test}: BOAF_FS_TESTS=1, but a tmpfs cannot be mounted on {}: {why}",
            dir.display()
        );
        eprintln!(
            "skipped {test}: it mounts a small tmpfs, which needs root and mount ({why}); \
             tests/run runs it as root"
        );
        None
    }

    /// A path on the filesystem.
    pub fn join(&self, rest: impl AsRef<Path>) -> PathBuf {
        self.0.join(rest)
    }

    /// Fills every free byte with a file of its own, `filler`, so that the
    /// next write that needs a new page fails with "No space left on
    /// device"; returns the filler's path, for [`Tmpfs::free`].
    pub fn fill(&self) -> PathBuf {
        let path = self.0.join("filler");
        let mut file = File::create(&path).unwrap();
        let page = [0u8; 4096];
        loop {
            match file.write(&page) {
                Ok(0) => panic!("the filler wrote nothing, yet no error"),
                Ok(_) => {}
                Err(e) => {
                    assert_eq!(e.raw_os_error(), Some(28), "filling: {e}");
                    break;
                }
            }
        }
        path
    }

    /// Frees the space [`Tmpfs::fill`] took.
    pub fn free(&self, filler: &Path) {
        std::fs::remove_file(filler).unwrap();
    }
}

/// The names in a folder, sorted (what a failed save left there).
pub fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let plain = Command::new("umount").arg(&self.0).status();
        if !plain.is_ok_and(|s| s.success()) {
            // Busy (a file still open): detach it now; the kernel finishes
            // the unmount when the last file closes.
            let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        }
    }
}
