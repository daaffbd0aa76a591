//! The puzzle store: JSON Lines files of candidates (under `puzzles/`, see
//! [`crate::folder`]).
//!
//! Writes append one line and sync it, so a crash loses at most the line
//! being written. Reading skips a torn last line (and any other bad line)
//! with a warning that names it. A store drops duplicates: the same puzzle,
//! or one isomorphic to it (see [`crate::engine::canon`]).

use crate::durable::append_synced;
use crate::engine::canon::canonical_key;
use crate::generator::pipeline::Candidate;
use crate::read::{STORE_CAP, read_file};
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A line of a store that was skipped.
#[derive(Clone, Debug, PartialEq)]
pub struct Skipped {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column of the problem.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// Whether it is the last line and has no newline: a write cut short.
    pub torn: bool,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.torn {
            write!(
                f,
                "line {}: skipped a torn last line (a write cut short)",
                self.line
            )
        } else {
            write!(
                f,
                "line {}, column {}: skipped: {}",
                self.line, self.column, self.message
            )
        }
    }
}

/// Parses a store's text: the candidates, and the lines skipped.
pub fn parse_store(text: &str) -> (Vec<Candidate>, Vec<Skipped>) {
    parse_store_bytes(text.as_bytes())
}

/// Parses a store's bytes line by line, so that a line cut inside a
/// multi-byte character spoils only itself.
pub fn parse_store_bytes(bytes: &[u8]) -> (Vec<Candidate>, Vec<Skipped>) {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let ends_clean = bytes.is_empty() || bytes.ends_with(b"\n");
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let lines: Vec<&[u8]> = if body.is_empty() {
        Vec::new()
    } else {
        body.split(|&b| b == b'\n').collect()
    };
    for (i, line) in lines.iter().enumerate() {
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        match serde_json::from_slice::<Candidate>(line) {
            Ok(c) => out.push(c),
            Err(e) => skipped.push(Skipped {
                line: i + 1,
                column: e.column(),
                message: e.to_string(),
                torn: i + 1 == lines.len() && !ends_clean,
            }),
        }
    }
    (out, skipped)
}

/// The deduplication key of a candidate: its grid and canonical form.
pub fn dedup_key(c: &Candidate) -> Option<String> {
    let state = c.state().ok()?;
    Some(format!("{}x{}:{}", c.rows, c.cols, canonical_key(&state)))
}

/// What a store is called when it is too large to read.
const STORE: &str = "a puzzle store";

/// An open store file that appends new, non-isomorphic candidates.
pub struct PuzzleStore {
    path: PathBuf,
    file: File,
    keys: HashSet<String>,
}

impl PuzzleStore {
    /// Opens (or creates) a store, reading the puzzles already in it.
    /// Returns the store and the lines it skipped.
    pub fn open(path: &Path) -> io::Result<(PuzzleStore, Vec<Skipped>)> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let bytes = match read_file(path, STORE_CAP, STORE) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        let (old, skipped) = parse_store_bytes(&bytes);
        let mut file = OpenOptions::new().create(true).append(true).open(path)?;
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            // End the torn line so the next record starts on a line of its own.
            file.write_all(b"\n")?;
        }
        let keys = old.iter().filter_map(dedup_key).collect();
        Ok((
            PuzzleStore {
                path: path.to_path_buf(),
                file,
                keys,
            },
            skipped,
        ))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Distinct puzzles in the store.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the store has no puzzles.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Appends a candidate unless an isomorphic puzzle is already stored.
    /// Returns whether it was written. The line is synced before returning.
    pub fn add(&mut self, c: &Candidate) -> io::Result<bool> {
        let key = dedup_key(c).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("bad puzzle {}", c.puzzle),
            )
        })?;
        if self.keys.contains(&key) {
            return Ok(false);
        }
        let mut line = serde_json::to_string(c).map_err(io::Error::other)?;
        line.push('\n');
        // A crash leaves at most this line torn, which reading skips.
        append_synced(&mut self.file, line.as_bytes())?;
        self.keys.insert(key);
        Ok(true)
    }
}

/// Reads a store file.
pub fn read_store(path: &Path) -> io::Result<(Vec<Candidate>, Vec<Skipped>)> {
    Ok(parse_store_bytes(&read_file(path, STORE_CAP, STORE)?))
}
