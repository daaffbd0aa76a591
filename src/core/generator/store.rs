//! The puzzle store: JSON Lines files of candidates (under `puzzles/`, see
//! [`crate::folder`]).
//!
//! Writes append one line and sync it, so a crash loses at most the line
//! being written. Reading skips a torn last line (and any other bad line)
//! with a warning that names it; opening moves a torn last line aside.
//! Writers take turns under the file's lock (see [`crate::lock`]). A store drops duplicates: the same puzzle,
//! or one isomorphic to it (see [`crate::engine::canon`]).

use crate::durable::append_synced;
use crate::engine::canon::canonical_key;
use crate::generator::pipeline::Candidate;
use crate::lock::{self, LOCK_WAIT, lock_path};
use crate::read::{STORE_CAP, read_capped, read_file};
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
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
    keys: HashSet<String>,
    /// Where the file ended when this store last read or wrote it.
    end: u64,
    /// The lines before `end`, to number a skipped line in the whole file.
    lines: usize,
}

impl PuzzleStore {
    /// Opens (or creates) a store, reading the puzzles already in it.
    /// Returns the store and the lines it skipped. A torn last line (a write
    /// cut short) is among them, and is moved to `<file>.torn` and cut off,
    /// so the next line starts on a line of its own and every line reads.
    pub fn open(path: &Path) -> io::Result<(PuzzleStore, Vec<Skipped>)> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let mut store = PuzzleStore {
            path: path.to_path_buf(),
            keys: HashSet::new(),
            end: 0,
            lines: 0,
        };
        // The whole lines are read before the lock, so that reading a big
        // store never keeps another writer waiting (it gives up after
        // LOCK_WAIT); under the lock, only what came after them is read.
        let (read, mut skipped) = store.read_whole_lines()?;
        let mut lock = lock_path(path, true, LOCK_WAIT)?;
        if read.is_some_and(|file| !lock::same_open_file(&file, &lock).unwrap_or(false)) {
            // Replaced meanwhile: read the new file from its start.
            store.end = 0;
            store.lines = 0;
            store.keys.clear();
            skipped.clear();
        }
        skipped.extend(store.catch_up(&mut lock)?);
        Ok((store, skipped))
    }

    /// Reads the whole lines of the file without its lock: what ends in a
    /// newline is never written again (a torn tail is only ever cut off
    /// after its last newline). Returns the file read, if there was one.
    fn read_whole_lines(&mut self) -> io::Result<(Option<File>, Vec<Skipped>)> {
        let file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((None, Vec::new())),
            Err(e) => return Err(e),
        };
        let bytes = read_capped(&file, STORE_CAP, STORE)?;
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let skipped = self.take_in(&bytes[..whole]);
        Ok((Some(file), skipped))
    }

    /// Takes in lines that end in a newline and start at `self.end`: their
    /// puzzles join the duplicates to drop. Returns the lines skipped,
    /// numbered in the whole file.
    fn take_in(&mut self, bytes: &[u8]) -> Vec<Skipped> {
        let (found, mut skipped) = parse_store_bytes(bytes);
        self.keys.extend(found.iter().filter_map(dedup_key));
        for s in &mut skipped {
            s.line += self.lines;
        }
        self.end += bytes.len() as u64;
        self.lines += bytes.iter().filter(|&&b| b == b'\n').count();
        skipped
    }

    /// Reads what the locked file gained since this store last read or
    /// wrote it (another writer's lines, or all of it at first): their
    /// puzzles join the duplicates to drop, and a torn line they left is
    /// moved aside. Returns the lines skipped.
    fn catch_up(&mut self, lock: &mut File) -> io::Result<Vec<Skipped>> {
        let len = lock.metadata()?.len();
        if len < self.end {
            // Cut shorter by hand: read it all again.
            self.end = 0;
            self.lines = 0;
            self.keys.clear();
        }
        let mut reader: &File = lock;
        reader.seek(SeekFrom::Start(self.end))?;
        // Capped: a huge file is refused, not read until memory runs out.
        let mut bytes = read_capped(reader.take(len - self.end), STORE_CAP, STORE)?;
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            let start = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let (_, last) = parse_store_bytes(&bytes[start..]);
            if last.first().is_some_and(|s| s.torn) {
                // Kept beside the store, then cut off.
                let saved_to = PathBuf::from(format!("{}.torn", self.path.display()));
                let mut side = OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&saved_to)?;
                side.write_all(&bytes[start..])?;
                side.write_all(b"\n")?;
                side.sync_all()?;
                let cut = self.end + start as u64;
                lock.set_len(cut)?;
                lock.sync_all()?;
                bytes.truncate(start);
                let mut skipped = self.take_in(&bytes);
                skipped.extend(last.into_iter().map(|s| Skipped {
                    line: self.lines + 1,
                    ..s
                }));
                return Ok(skipped);
            }
            // Whole, but without its newline: end the line.
            append_synced(lock, b"\n")?;
            bytes.push(b'\n');
        }
        Ok(self.take_in(&bytes))
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
    /// The file is locked from the check for duplicates to the sync, after
    /// reading what another writer (`boaf generate`, another window) added,
    /// so two writers never interleave lines or store one puzzle twice.
    pub fn add(&mut self, c: &Candidate) -> io::Result<bool> {
        let key = dedup_key(c).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("bad puzzle {}", c.puzzle),
            )
        })?;
        let mut lock = lock_path(&self.path, false, LOCK_WAIT)?;
        self.catch_up(&mut lock)?;
        if self.keys.contains(&key) {
            return Ok(false);
        }
        let mut line = serde_json::to_string(c).map_err(io::Error::other)?;
        line.push('\n');
        // A crash leaves at most this line torn, which reading skips.
        append_synced(&mut lock, line.as_bytes())?;
        self.end += line.len() as u64;
        self.lines += 1;
        self.keys.insert(key);
        Ok(true)
    }
}

/// Reads a store file.
pub fn read_store(path: &Path) -> io::Result<(Vec<Candidate>, Vec<Skipped>)> {
    Ok(parse_store_bytes(&read_file(path, STORE_CAP, STORE)?))
}
