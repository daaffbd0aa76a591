//! The ratings store: `ratings/ratings.csv`, one row per rating of a puzzle.
//!
//! Columns (the README's ratings file): puzzle, grid, n, energy id, grade,
//! every feature, rating 0–10,
//! notes, solved, moves, undos, restarts, hints, solution_shown, seconds,
//! rater, timestamp. Each row is
//! written with one `write` and synced before [`RatingsStore::append`]
//! returns, so a kill loses at most the row being written. A row cut short
//! (the file does not end in a newline) is moved aside to `<file>.torn` before
//! the next append, so it can never swallow the rows after it. Reading goes by
//! column name, so files written before a column was added still read, and a
//! torn last row is reported and skipped. Two writers of one file (two app
//! windows) take turns under its lock, each row whole. A ratings file has at least the
//! `puzzle` and `rating` columns; an empty file is not one (though
//! [`RatingsStore::open`] starts a new file there). Every problem is
//! reported with the file's own 1-based line (the header is line 1).

use crate::agents::grade::grade;
use crate::durable::{FileError, append_synced, write_atomically};
use crate::engine::feature::Feature;
use crate::engine::features::Features;
use crate::lock::{LOCK_WAIT, Locked, lock_path, same_file};
use crate::read::{RATINGS_CAP, read_file};
use serde::Serialize;
use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// What a ratings file is called when it is too large to read.
const RATINGS: &str = "a ratings file";

/// The columns before the features.
const LEAD: [&str; 5] = ["puzzle", "grid", "n", "energy_id", "grade"];
/// The columns after the features.
const TAIL: [&str; 11] = [
    "rating",
    "notes",
    "solved",
    "moves",
    "undos",
    "restarts",
    "hints",
    "solution_shown",
    "seconds",
    "rater",
    "timestamp",
];

/// The header of a ratings file written by this version, in order.
pub fn header() -> Vec<String> {
    // `n` is a lead column.
    let features = Feature::ALL
        .into_iter()
        .filter(|&f| f != Feature::N)
        .map(Feature::column);
    LEAD.iter()
        .copied()
        .chain(features)
        .chain(TAIL.iter().copied())
        .map(str::to_string)
        .collect()
}

/// One rating of one puzzle.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    /// The puzzle in compact research notation.
    pub puzzle: String,
    /// The grid the puzzle is laid out on, as `RxC` (`4x4` for deals).
    pub grid: String,
    /// The id (name and hash) of the energy that produced the puzzle.
    pub energy_id: String,
    /// The puzzle's features.
    pub features: Features,
    /// The rating, 0 to 10.
    pub rating: f64,
    /// Free-text notes (any text; stored safe from spreadsheet formulas).
    pub notes: String,
    /// What the rater did while playing it.
    pub play: PlayRecord,
    /// Who rated it.
    pub rater: String,
    /// When, as UTC `YYYY-MM-DDTHH:MM:SSZ`.
    pub timestamp: String,
}

/// What a rater did while playing a puzzle, saved with the rating: exactly
/// the person's own play, never the solution replay's.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PlayRecord {
    /// Whether the rater solved the puzzle themselves before rating it (a
    /// solve by the solution replay does not count).
    pub solved: bool,
    /// The rater's own moves (undone ones and redos included; never the
    /// replay's).
    pub moves: u32,
    /// The rater's own undos (a restart's take-backs are not undos).
    pub undos: u32,
    /// Times the rater went back to the deal.
    pub restarts: u32,
    /// Hints shown: a move, or "no solution from here" (a search that
    /// failed or was abandoned is not counted).
    pub hints: u32,
    /// Whether the rater asked to see the solution.
    pub solution_shown: bool,
    /// Seconds of active play: only while the puzzle was on screen and the
    /// window had focus, up to the solve.
    pub seconds: f64,
}

impl PlayRecord {
    /// How the game ended, in words, as the Rate panel (and a study) shows
    /// it; `replay_solved` says whether the solution replay reached the end.
    pub fn outcome(&self, replay_solved: bool) -> &'static str {
        match (self.solved, self.solution_shown, replay_solved) {
            (true, false, _) => "solved by you",
            (true, true, _) => "solved by you after the solution was shown",
            (false, _, true) => "not solved by you: the solution replay solved it",
            (false, true, false) => "not solved: the solution was shown, then stopped",
            (false, false, false) => "not solved",
        }
    }
}

/// Why a rating could not be stored or a ratings file read.
#[derive(Debug, Error)]
pub enum RatingsError {
    /// The rating is outside 0..=10 or not a number.
    #[error("a rating must be a number from 0 to 10, not {0}")]
    BadRating(f64),
    /// The file is not a ratings file: it is empty, or its header lacks the
    /// `puzzle` or `rating` column, or is not CSV.
    #[error("{path} is not a ratings file: {reason}")]
    NotRatings {
        /// The file.
        path: String,
        /// Why not, with the first line when there is one.
        reason: String,
    },
    /// The file could not be read or written.
    // Not a `source`: the OS error is in the message, and a chain printer
    // would say it twice.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// What the operating system said.
        error: io::Error,
    },
}

/// Characters that make a spreadsheet read a cell as a formula (OWASP's list).
const FORMULA_START: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// Makes a note safe to open in a spreadsheet: a note that starts (after any
/// quotes) with a formula character gets one more leading `'`. Reversed
/// exactly by [`unescape_note`], whatever the note.
pub fn escape_note(note: &str) -> String {
    let rest = note.trim_start_matches('\'');
    if rest.starts_with(FORMULA_START) {
        format!("'{note}")
    } else {
        note.to_string()
    }
}

/// The note as it was typed, from its stored form.
pub fn unescape_note(stored: &str) -> String {
    let rest = stored.trim_start_matches('\'');
    if stored.starts_with('\'') && rest.starts_with(FORMULA_START) {
        stored[1..].to_string()
    } else {
        stored.to_string()
    }
}

fn number(x: Option<f64>) -> String {
    x.map_or_else(String::new, |v| v.to_string())
}

impl Rating {
    /// The value of `column` in this version's layout (`None` for a column
    /// this version does not write).
    fn field(&self, column: &str) -> Option<String> {
        Some(match column {
            "puzzle" => self.puzzle.clone(),
            "grid" => self.grid.clone(),
            "n" => self.features.n.to_string(),
            "energy_id" => self.energy_id.clone(),
            // Derived from the features by the default rule; empty when ungraded.
            "grade" => grade(&self.features).map_or_else(String::new, |g| g.name().to_string()),
            "rating" => self.rating.to_string(),
            "notes" => escape_note(&self.notes),
            "solved" => self.play.solved.to_string(),
            "moves" => self.play.moves.to_string(),
            "undos" => self.play.undos.to_string(),
            "restarts" => self.play.restarts.to_string(),
            "hints" => self.play.hints.to_string(),
            "solution_shown" => self.play.solution_shown.to_string(),
            "seconds" => format!("{:.1}", self.play.seconds),
            "rater" => self.rater.clone(),
            "timestamp" => self.timestamp.clone(),
            "solvable" => self.features.solvable.to_string(),
            f => number(self.features.get(Feature::from_column(f)?)),
        })
    }
}

/// A ratings file open for appending.
#[derive(Debug)]
pub struct RatingsStore {
    path: PathBuf,
    columns: Vec<String>,
    backup: Option<PathBuf>,
    /// Where the file ended after this store's last write (`None`: unknown,
    /// read it again before the next).
    end: Option<u64>,
}

/// Where a locked file ends, or `None` when the name now leads to another
/// file (rewritten by a rename while it was locked).
fn end_of(file: &File, path: &Path) -> Result<Option<u64>, RatingsError> {
    if !same_file(file, path).map_err(io_err(path))? {
        return Ok(None);
    }
    Ok(Some(file.metadata().map_err(io_err(path))?.len()))
}

/// What [`RatingsStore::open`] had to repair: a torn last row moved aside.
#[derive(Clone, Debug, PartialEq)]
pub struct Repair {
    /// Where the torn bytes were saved.
    pub saved_to: PathBuf,
    /// How many bytes were moved.
    pub bytes: usize,
}

impl From<FileError> for RatingsError {
    fn from(e: FileError) -> RatingsError {
        RatingsError::Io {
            path: e.path.display().to_string(),
            error: e.error,
        }
    }
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> RatingsError + '_ {
    move |error| RatingsError::Io {
        path: path.display().to_string(),
        error,
    }
}

impl RatingsStore {
    /// Opens (or creates, with its folder and header) a ratings file.
    ///
    /// A torn last row is moved to `<file>.torn`. A whole last row that only
    /// lacks its newline gets one. A file with no rows (new, or its header
    /// cut short) gets the full header. A file written before some columns
    /// existed is rewritten with them (empty in its old rows) by writing a
    /// copy and renaming it over the file, after saving the old one as
    /// `<file>.bak` (or `.bak2`, …); one with rows that do not read is not
    /// rewritten, and keeps its own layout. All this is done under the
    /// file's lock (see [`crate::lock`]), so two writers never repair it at once.
    pub fn open(path: &Path) -> Result<(RatingsStore, Option<Repair>), RatingsError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io_err(path))?;
        }
        let lock = lock_path(path, true, LOCK_WAIT).map_err(io_err(path))?;
        let (mut store, repair) = RatingsStore::open_locked(path)?;
        store.end = end_of(&lock, path)?;
        Ok((store, repair))
    }

    /// [`RatingsStore::open`] once the file is locked.
    fn open_locked(path: &Path) -> Result<(RatingsStore, Option<Repair>), RatingsError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io_err(path))?;
        }
        let mut bytes = match read_file(path, RATINGS_CAP, RATINGS) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io_err(path)(e)),
        };
        let name = path.display().to_string();
        let table = if bytes.iter().all(u8::is_ascii_whitespace) {
            RatingsTable::default()
        } else {
            parse_table(&bytes, &name)?
        };
        let ours = header();
        if table.rows.is_empty() && table.skipped.is_empty() {
            // No rows to keep: a new file, or a header cut short by a kill.
            let cut_short = record(&ours).starts_with(bytes.trim_ascii_end());
            let known = table.headers.iter().all(|h| ours.contains(h));
            if !cut_short && !known && table.column("puzzle").is_none() {
                return Err(not_ratings(&table, &bytes, &name).unwrap_or_else(|| {
                    RatingsError::NotRatings {
                        path: name.clone(),
                        reason: "its header has no 'puzzle' column".into(),
                    }
                }));
            }
            // Already this header: left alone (a writer that reads the file
            // again must not rename it from under the lock every time).
            if bytes != record(&ours) {
                write_atomically(path, &record(&ours))?;
            }
            return Ok((RatingsStore::at(path, ours), None));
        }
        if let Some(e) = not_ratings(&table, &bytes, &name) {
            return Err(e);
        }
        let mut file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io_err(path))?;
        let mut repair = None;
        if let Some(start) = table.torn_at {
            // Keep the torn bytes, then cut them off so the next row starts
            // on a line of its own and outside any quote they opened.
            let saved_to = PathBuf::from(format!("{name}.torn"));
            let mut side = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&saved_to)
                .map_err(io_err(&saved_to))?;
            side.write_all(&bytes[start..]).map_err(io_err(&saved_to))?;
            side.write_all(b"\n").map_err(io_err(&saved_to))?;
            side.sync_all().map_err(io_err(&saved_to))?;
            file.set_len(start as u64).map_err(io_err(path))?;
            file.sync_all().map_err(io_err(path))?;
            repair = Some(Repair {
                saved_to,
                bytes: bytes.len() - start,
            });
            bytes.truncate(start);
        }
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            // Whole, but edited without a final newline: end the line.
            file.seek(SeekFrom::End(0)).map_err(io_err(path))?;
            file.write_all(b"\n").map_err(io_err(path))?;
            file.sync_all().map_err(io_err(path))?;
        }
        let missing = ours.iter().any(|c| table.column(c).is_none());
        let mut store = RatingsStore::at(path, table.headers.clone());
        // Rows that did not read would not survive a rewrite: keep the layout then.
        let unread = table.skipped.len() - usize::from(table.torn_at.is_some());
        if missing && unread == 0 {
            let (columns, backup) = migrate(path, &table)?;
            store.columns = columns;
            store.backup = Some(backup);
        }
        Ok((store, repair))
    }

    fn at(path: &Path, columns: Vec<String>) -> RatingsStore {
        RatingsStore {
            path: path.to_path_buf(),
            columns,
            backup: None,
            end: None,
        }
    }

    /// Locks the file for one append. When it has changed since this store
    /// last wrote (another writer appended, repaired or rewrote it), it is
    /// read again as [`RatingsStore::open`] reads it first: a row they left
    /// torn is moved aside and columns they added are taken up, so the row
    /// to come lands on a line of its own in the file's own layout.
    fn lock(&mut self) -> Result<Locked, RatingsError> {
        loop {
            let file = lock_path(&self.path, false, LOCK_WAIT).map_err(io_err(&self.path))?;
            let len = file.metadata().map_err(io_err(&self.path))?.len();
            if self.end == Some(len) {
                return Ok(file);
            }
            let (fresh, _) = RatingsStore::open_locked(&self.path)?;
            self.columns = fresh.columns;
            self.backup = fresh.backup.or(self.backup.take());
            self.end = end_of(&file, &self.path)?;
            if self.end.is_some() {
                return Ok(file);
            }
        }
    }

    /// Where the file was saved before [`RatingsStore::open`] added columns to it.
    pub fn backup(&self) -> Option<&Path> {
        self.backup.as_deref()
    }

    /// A rating as one CSV row (with its newline) in this file's layout.
    pub fn row_bytes(&self, rating: &Rating) -> Result<Vec<u8>, RatingsError> {
        if !(0.0..=10.0).contains(&rating.rating) {
            return Err(RatingsError::BadRating(rating.rating));
        }
        let fields: Vec<String> = self
            .columns
            .iter()
            .map(|c| rating.field(c).unwrap_or_default())
            .collect();
        Ok(record(&fields))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one rating as one row and syncs it to disk.
    /// Another writer's rows are never interleaved with it: the file is
    /// locked from the check of where it ends to the sync.
    pub fn append(&mut self, rating: &Rating) -> Result<(), RatingsError> {
        let mut file = self.lock()?;
        let line = self.row_bytes(rating)?;
        // One write: a kill leaves the row whole or torn, never interleaved.
        append_synced(&mut file, &line).map_err(io_err(&self.path))?;
        self.end = self.end.map(|end| end + line.len() as u64);
        Ok(())
    }
}

/// A whole ratings file (header and one row per rating) in this version's
/// layout, as [`RatingsStore::append`] writes each row: a study's export.
pub fn ratings_csv(ratings: &[Rating]) -> Result<Vec<u8>, RatingsError> {
    let columns = header();
    let mut out = record(&columns);
    let store = RatingsStore::at(Path::new(""), columns);
    for r in ratings {
        out.extend(store.row_bytes(r)?);
    }
    Ok(out)
}

/// Rewrites a ratings file with every column of [`header`] (its own first,
/// `timestamp` last), after copying it to a backup no earlier one is
/// overwritten by. Returns the new columns and the backup.
fn migrate(path: &Path, table: &RatingsTable) -> Result<(Vec<String>, PathBuf), RatingsError> {
    let backup = (1..)
        .map(|i| match i {
            1 => PathBuf::from(format!("{}.bak", path.display())),
            i => PathBuf::from(format!("{}.bak{i}", path.display())),
        })
        .find(|p| !p.exists())
        .expect("some backup name is free");
    std::fs::copy(path, &backup).map_err(io_err(&backup))?;
    // The timestamp stays last: it is how a row cut short is recognized.
    let mut columns: Vec<String> = table
        .headers
        .iter()
        .chain(header().iter().filter(|c| table.column(c).is_none()))
        .filter(|c| *c != "timestamp")
        .cloned()
        .collect();
    columns.push("timestamp".into());
    let mut out = record(&columns);
    for row in 0..table.rows.len() {
        let fields: Vec<String> = columns
            .iter()
            .map(|c| table.text(row, c).unwrap_or_default().to_string())
            .collect();
        out.extend(record(&fields));
    }
    write_atomically(path, &out)?;
    Ok((columns, backup))
}

/// One CSV record with its newline.
fn record(fields: &[String]) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    // Writing to a Vec cannot fail.
    w.write_record(fields).expect("CSV into memory");
    w.into_inner().expect("CSV into memory")
}

/// A row of a ratings file that was skipped.
#[derive(Clone, Debug, PartialEq)]
pub struct SkippedRow {
    /// The 1-based line the row starts on.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for SkippedRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: skipped: {}", self.line, self.message)
    }
}

/// A cell of a ratings file that holds text where a number belongs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValueProblem {
    /// The 1-based file line of its row.
    pub line: u64,
    /// The column.
    pub column: String,
    /// The text in the cell.
    pub text: String,
}

impl std::fmt::Display for ValueProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: '{}' is not a number",
            self.line, self.column, self.text
        )
    }
}

/// A ratings file read by column name.
#[derive(Clone, Debug, Default)]
pub struct RatingsTable {
    /// The column names, in the file's order.
    pub headers: Vec<String>,
    /// The rows that read whole, each with one value per column.
    pub rows: Vec<Vec<String>>,
    /// The 1-based file line each of `rows` starts on (the header is line 1).
    pub lines: Vec<u64>,
    /// The rows that did not, with why.
    pub skipped: Vec<SkippedRow>,
    /// Where a torn last row starts, if the file does not end in a newline.
    pub torn_at: Option<usize>,
}

impl RatingsTable {
    /// The index of a column.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h == name)
    }

    /// A row's text in a column (`None` if the file has no such column).
    pub fn text(&self, row: usize, name: &str) -> Option<&str> {
        let c = self.column(name)?;
        self.rows.get(row)?.get(c).map(String::as_str)
    }

    /// The file line a row starts on.
    pub fn line(&self, row: usize) -> Option<u64> {
        self.lines.get(row).copied()
    }

    /// A row's number in a column: `None` when the column is missing, empty
    /// or not a finite number. `true`/`false` read as 1 and 0.
    pub fn number(&self, row: usize, name: &str) -> Option<f64> {
        self.checked_number(row, name).ok().flatten()
    }

    /// A row's number in a column: `Ok(None)` when the column is missing or
    /// the cell empty, and the line, column and text when the cell holds
    /// something that is not a finite number. `true`/`false` read as 1 and 0.
    pub fn checked_number(&self, row: usize, name: &str) -> Result<Option<f64>, ValueProblem> {
        let Some(text) = self.text(row, name) else {
            return Ok(None);
        };
        match text.trim() {
            "" => Ok(None),
            "true" => Ok(Some(1.0)),
            "false" => Ok(Some(0.0)),
            t => match t.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(Some(v)),
                _ => Err(ValueProblem {
                    line: self.line(row).unwrap_or(0),
                    column: name.to_string(),
                    text: text.to_string(),
                }),
            },
        }
    }

    /// A row's notes as they were typed.
    pub fn notes(&self, row: usize) -> Option<String> {
        self.text(row, "notes").map(unescape_note)
    }
}

/// Reads a ratings file's bytes. Rows with the wrong number of fields or bad
/// UTF-8 are skipped and listed; a last row with no newline is torn. Bytes
/// that are empty, or whose header lacks the `puzzle` or `rating` column, are
/// not a ratings file.
pub fn parse_ratings(bytes: &[u8], path: &str) -> Result<RatingsTable, RatingsError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(RatingsError::NotRatings {
            path: path.to_string(),
            reason: "it is empty".into(),
        });
    }
    let table = parse_table(bytes, path)?;
    match not_ratings(&table, bytes, path) {
        Some(e) => Err(e),
        None => Ok(table),
    }
}

/// Why `table` (read from `bytes`) is not a ratings file, if it is not: a
/// ratings file has at least the `puzzle` and `rating` columns.
fn not_ratings(table: &RatingsTable, bytes: &[u8], path: &str) -> Option<RatingsError> {
    let lacking: Vec<&str> = ["puzzle", "rating"]
        .into_iter()
        .filter(|c| table.column(c).is_none())
        .collect();
    let reason = match lacking[..] {
        [] => return None,
        [c] => format!("its header has no '{c}' column"),
        _ => "its header has no 'puzzle' and 'rating' columns".into(),
    };
    Some(RatingsError::NotRatings {
        path: path.to_string(),
        reason: format!("{reason} (first line: {})", first_line(bytes)),
    })
}

/// The first line that is not blank, shortened and quoted, to show what a
/// file that is not a ratings file holds.
fn first_line(bytes: &[u8]) -> String {
    const SHOWN: usize = 60;
    let line = bytes
        .split(|&b| b == b'\n' || b == b'\r')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
        .unwrap_or_default();
    let text = String::from_utf8_lossy(line);
    let mut short: String = text.chars().take(SHOWN).collect();
    if text.chars().count() > SHOWN {
        short.push('…');
    }
    format!("{short:?}")
}

/// Whether byte `i` ends a line: a `\n`, or a `\r` not followed by one.
fn ends_line(bytes: &[u8], i: usize) -> bool {
    bytes[i] == b'\n' || (bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
}

/// Reads CSV bytes by column name, whatever the columns.
fn parse_table(bytes: &[u8], path: &str) -> Result<RatingsTable, RatingsError> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(true)
        .from_reader(bytes);
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| RatingsError::NotRatings {
            path: path.to_string(),
            reason: format!(
                "its first line is not CSV text ({e}): {}",
                first_line(bytes)
            ),
        })?
        .iter()
        // A spreadsheet's "CSV UTF-8" starts with a byte-order mark.
        .map(|h| h.trim_start_matches('\u{feff}').trim().to_string())
        .collect();
    let mut table = RatingsTable {
        headers,
        ..RatingsTable::default()
    };
    let mut record = csv::ByteRecord::new();
    // The CSV reader's position is where it stopped, which can be a blank
    // line or the `\n` of a `\r\n` before the record: the record starts at
    // its first byte that does not end a line. Lines are counted here, from
    // the bytes, and carried forward (records come in file order).
    let (mut counted_to, mut line) = (0usize, 1u64);
    let mut start_of = |at: usize| {
        let at = at.min(bytes.len());
        let start = at
            + bytes[at..]
                .iter()
                .take_while(|&&b| b == b'\n' || b == b'\r')
                .count();
        line += (counted_to..start).filter(|&i| ends_line(bytes, i)).count() as u64;
        counted_to = start;
        (start as u64, line)
    };
    // Each record with where it starts; judged after, once the last is known.
    let mut records: Vec<(u64, u64, Result<Vec<String>, String>)> = Vec::new();
    loop {
        let before = reader.position().clone();
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {
                let at = record.position().cloned().unwrap_or(before);
                if record.len() == 1 && record.get(0).is_some_and(<[u8]>::is_empty) {
                    continue; // a blank line
                }
                let row = if record.len() != table.headers.len() {
                    Err(format!(
                        "{} fields where the header has {}",
                        record.len(),
                        table.headers.len()
                    ))
                } else {
                    record
                        .iter()
                        .map(|f| String::from_utf8(f.to_vec()))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|_| "not valid UTF-8".to_string())
                };
                let (start, line) = start_of(at.byte() as usize);
                records.push((start, line, row));
            }
            Err(e) => {
                let (start, line) = start_of(before.byte() as usize);
                records.push((start, line, Err(e.to_string())));
            }
        }
    }
    // The last record is torn when a write was cut short: no newline at the
    // end, or a quote left open (a cut inside multi-line notes).
    // A whole row that only lacks its newline (a hand edit) is kept.
    let torn = records.last().is_some_and(|(start, _, row)| {
        let tail = &bytes[(*start as usize).min(bytes.len())..];
        let open_quote = tail.iter().filter(|&&b| b == b'"').count() % 2 == 1;
        // Only a complete timestamp in the last column shows a row is whole.
        let whole = row.as_ref().is_ok_and(|r| {
            table.headers.last().is_some_and(|h| h == "timestamp")
                && r.last().is_some_and(|t| t.len() == 20 && t.ends_with('Z'))
        });
        open_quote || (!tail.ends_with(b"\n") && !whole)
    });
    let count = records.len();
    for (i, (start, line, row)) in records.into_iter().enumerate() {
        if torn && i + 1 == count {
            table.torn_at = Some(start as usize);
            table.skipped.push(SkippedRow {
                line,
                message: "a torn last row (a write cut short)".into(),
            });
            continue;
        }
        match row {
            Ok(row) => {
                table.rows.push(row);
                table.lines.push(line);
            }
            Err(message) => table.skipped.push(SkippedRow { line, message }),
        }
    }
    Ok(table)
}

/// Reads a ratings file (see [`parse_ratings`]).
pub fn read_ratings(path: &Path) -> Result<RatingsTable, RatingsError> {
    let bytes = read_file(path, RATINGS_CAP, RATINGS).map_err(io_err(path))?;
    parse_ratings(&bytes, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_escape_round_trips() {
        for note in [
            "", "fine", "=SUM(A1)", "+1", "-", "@x", "'=x", "''+", "'plain", "\tx", "a=b",
        ] {
            let stored = escape_note(note);
            assert!(!stored.starts_with(FORMULA_START), "{note:?} -> {stored:?}");
            assert_eq!(unescape_note(&stored), note);
        }
        assert_eq!(escape_note("=1+1"), "'=1+1");
        assert_eq!(escape_note("ok"), "ok");
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_column() {
        let t = parse_ratings("\u{feff}puzzle,rating\nAH,7\n".as_bytes(), "r.csv").unwrap();
        assert_eq!(t.text(0, "puzzle"), Some("AH"));
        assert_eq!(t.number(0, "rating"), Some(7.0));
    }

    #[test]
    fn header_has_every_column_once() {
        let h = header();
        // 5 lead columns (the grade among them), the 14 features but n,
        // the 11 after them.
        assert_eq!(h.len(), 5 + 14 + 11);
        assert_eq!(h.iter().filter(|c| *c == "grade").count(), 1);
        for f in Feature::ALL.map(Feature::column) {
            assert_eq!(h.iter().filter(|c| *c == f).count(), 1, "{f}");
        }
    }
}
