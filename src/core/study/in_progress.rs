//! Games in progress: a person's play of a candidate that is not rated yet,
//! kept so that it resumes exactly (board, undo and redo history, counts,
//! active time) when the candidate is opened again, after another one or
//! after a restart of the app. [`Session`] is the play that a rating's
//! [`PlayRecord`] is made from, the one owner of that record;
//! `ratings/in-progress.json` keeps the unrated ones, by puzzle, replaced
//! whole at each write and dropped from when the puzzle is rated.

use crate::durable::{FileError, write_atomically};
use crate::engine::game::{Game, PlayClock, SavedGame};
use crate::engine::state::{State, StateError};
use crate::lock::{LOCK_WAIT, lock_path};
use crate::study::ratings::PlayRecord;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

/// One person's play of one puzzle: the game, its clock of active play, and
/// what a rating records besides the game's counts.
#[derive(Clone, Debug)]
pub struct Session {
    /// The game on the board.
    pub game: Game,
    /// Active play time.
    pub clock: PlayClock,
    /// Hints shown (a move, or "no solution from here").
    pub hints: u32,
    /// Whether the person asked to see the solution.
    pub solution_shown: bool,
}

/// A session as kept while it waits: what [`Session::resume`] needs besides the deal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedSession {
    /// The game without its positions.
    pub game: SavedGame,
    /// Active play time so far.
    pub active: Duration,
    /// Hints shown.
    pub hints: u32,
    /// Whether the solution was shown.
    pub solution_shown: bool,
}

impl Session {
    /// A fresh play of a deal: nothing counted yet.
    pub fn new(deal: State) -> Session {
        Session {
            game: Game::new(deal),
            clock: PlayClock::default(),
            hints: 0,
            solution_shown: false,
        }
    }

    /// The record a rating saves, with the active time up to `now`.
    pub fn record(&self, now: Duration) -> PlayRecord {
        PlayRecord {
            solved: self.game.solved_by_player(),
            moves: self.game.moves(),
            undos: self.game.undos(),
            restarts: self.game.restarts(),
            hints: self.hints,
            solution_shown: self.solution_shown,
            seconds: self.clock.elapsed(now).as_secs_f64(),
        }
    }

    /// Whether the person did anything a rating records besides time (a
    /// move, a hint, the solution): such a play is never dropped unrated.
    pub fn in_progress(&self) -> bool {
        self.game.moves() > 0 || self.hints > 0 || self.solution_shown
    }

    /// The session as kept, with its active time up to `now`.
    pub fn save(&self, now: Duration) -> SavedSession {
        SavedSession {
            game: self.game.save(),
            active: self.clock.elapsed(now),
            hints: self.hints,
            solution_shown: self.solution_shown,
        }
    }

    /// A saved session resumed on its deal, its clock stopped until play is
    /// active again (time away is not play). Fails when a saved move is not
    /// legal there.
    pub fn resume(deal: State, saved: &SavedSession) -> Result<Session, (usize, StateError)> {
        Ok(Session {
            game: Game::resume(deal, &saved.game)?,
            clock: PlayClock::stopped_at(saved.active),
            hints: saved.hints,
            solution_shown: saved.solution_shown,
        })
    }
}

/// The games in progress, by puzzle in compact notation.
pub type InProgress = BTreeMap<String, SavedSession>;

/// Why the games in progress could not be read.
#[derive(Debug, Error)]
pub enum InProgressError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] FileError),
    /// The file is not a set of games in progress.
    #[error("{}: not games in progress: {reason}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the JSON reader said.
        reason: String,
    },
}

/// Reads the games in progress (none when the file does not exist).
pub fn read_in_progress(path: &Path) -> Result<InProgress, InProgressError> {
    let text = match crate::read::read_text(path, crate::read::TEXT_CAP, "a games-in-progress file")
    {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(InProgress::new()),
        Err(e) => return Err(FileError::at(path)(e).into()),
    };
    parse_in_progress(text.as_bytes(), path)
}

/// The games in progress in a file's bytes; none when it is blank (made by
/// a writer's lock whose write then failed: a full disk).
fn parse_in_progress(bytes: &[u8], path: &Path) -> Result<InProgress, InProgressError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(InProgress::new());
    }
    serde_json::from_slice(bytes).map_err(|e| InProgressError::Parse {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Keeps one writer's games in progress in a file that another writer (a
/// second app window on the same folder) may keep its own in, and returns
/// what the file holds now.
///
/// `ours` are this writer's games (its own and those it took up from the
/// file); `last` is what the file held when this writer last read or kept
/// it. Under the file's lock, the file is read again and merged against
/// `last`, game by game, then written whole: a game changed here since
/// `last` is ours; one unchanged here is as the file has it now (a game the
/// other writer rated is gone); one that `last` had and is no longer ours
/// was rated or given up here, and is dropped; one never seen here is the
/// other writer's, and is kept. So two windows never drop each other's
/// games, and a rated game does not come back.
pub fn keep_in_progress(
    path: &Path,
    ours: &InProgress,
    last: &InProgress,
) -> Result<InProgress, InProgressError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(FileError::at(path))?;
    }
    // The file is replaced whole, so the lock is taken again on the new
    // file when it was replaced while this waited (lock_path sees to it).
    let lock = lock_path(path, true, LOCK_WAIT).map_err(FileError::at(path))?;
    let bytes = crate::read::read_capped(&*lock, crate::read::TEXT_CAP, "a games-in-progress file")
        .map_err(FileError::at(path))?;
    let theirs = parse_in_progress(&bytes, path)?;
    let mut kept = InProgress::new();
    for (puzzle, game) in ours {
        if last.get(puzzle) != Some(game) {
            // Changed here since: ours wins.
            kept.insert(puzzle.clone(), game.clone());
        } else if let Some(newer) = theirs.get(puzzle) {
            // Unchanged here: as the other writer left it (a game it
            // rated is gone from the file, and so stays gone).
            kept.insert(puzzle.clone(), newer.clone());
        }
    }
    for (puzzle, game) in theirs {
        // Never seen here: another writer's new game.
        if !ours.contains_key(&puzzle) && !last.contains_key(&puzzle) {
            kept.insert(puzzle, game);
        }
    }
    if let Err(e) = write_in_progress(path, &kept) {
        // The empty file made to hold the lock is not left behind (a full
        // disk leaves the folder as it was).
        if bytes.is_empty() && lock.metadata().is_ok_and(|m| m.len() == 0) {
            let _ = std::fs::remove_file(path);
        }
        return Err(e.into());
    }
    drop(lock);
    Ok(kept)
}

/// Replaces the file with these games in progress, all at once.
pub fn write_in_progress(path: &Path, games: &InProgress) -> Result<(), FileError> {
    let text = serde_json::to_string_pretty(games).expect("games in progress serialize");
    write_atomically(path, text.as_bytes())
}

/// Moves a file that does not read out of the way, to `<file>.bad` (an
/// older one there is replaced), so a new one can be started; returns where.
pub fn set_aside(path: &Path) -> Result<PathBuf, FileError> {
    let mut bad = path.as_os_str().to_owned();
    bad.push(".bad");
    let bad = PathBuf::from(bad);
    std::fs::rename(path, &bad).map_err(FileError::at(path))?;
    Ok(bad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::game::deal_and_solution;

    #[test]
    fn a_saved_session_round_trips_exactly() {
        let (deal, path) = deal_and_solution(0);
        let mut s = Session::new(deal.clone());
        s.clock.set_active(true, Duration::from_millis(1_000));
        for &mv in &path[..3] {
            s.game.play(mv).unwrap();
        }
        s.game.undo();
        s.hints = 2;
        s.solution_shown = true;
        assert!(s.in_progress());
        let now = Duration::from_millis(8_123);
        let record = s.record(now);
        let dir = crate::temp::TempDir::new("in-progress");
        let file = dir.join("ratings/in-progress.json");
        assert!(read_in_progress(&file).unwrap().is_empty());
        let mut games = InProgress::new();
        games.insert("TH5H".into(), s.save(now));
        write_in_progress(&file, &games).unwrap();
        let back = read_in_progress(&file).unwrap();
        assert_eq!(back, games);
        let r = Session::resume(deal.clone(), &back["TH5H"]).unwrap();
        // Resumed later: the time away is not counted, and the record is the same.
        assert_eq!(r.record(Duration::from_secs(500)), record);
        assert_eq!(r.clock.elapsed(now), Duration::from_millis(7_123));
        assert_eq!(r.game.state(), s.game.state());
        assert_eq!(r.game.save(), s.game.save());
        assert!(!r.clock.is_running());
        assert!(!Session::new(deal).in_progress());
        // A file that does not read says so, and can be set aside.
        std::fs::write(&file, "{ torn").unwrap();
        let err = read_in_progress(&file).unwrap_err();
        assert!(err.to_string().contains("not games in progress"), "{err}");
        let bad = set_aside(&file).unwrap();
        assert!(bad.ends_with("in-progress.json.bad") && !file.exists());
        assert!(read_in_progress(&file).unwrap().is_empty());
    }

    #[test]
    fn two_writers_keep_each_others_games_and_a_rated_game_does_not_come_back() {
        let (deal, path) = deal_and_solution(0);
        let played = |moves: usize| {
            let mut s = Session::new(deal.clone());
            for &mv in &path[..moves] {
                s.game.play(mv).unwrap();
            }
            s.save(Duration::from_secs(moves as u64))
        };
        let games = |list: &[(&str, usize)]| -> InProgress {
            list.iter()
                .map(|&(p, m)| (p.to_string(), played(m)))
                .collect()
        };
        let dir = crate::temp::TempDir::new("in-progress-two");
        let file = dir.join("ratings/in-progress.json");
        // Window A keeps game a; window B, opened before, keeps game b.
        let last_a = keep_in_progress(&file, &games(&[("a", 1)]), &InProgress::new()).unwrap();
        assert_eq!(last_a, games(&[("a", 1)]));
        let last_b = keep_in_progress(&file, &games(&[("b", 2)]), &InProgress::new()).unwrap();
        assert_eq!(last_b, games(&[("a", 1), ("b", 2)]));
        // A plays on in a and starts c; b, which A never saw, stays.
        let last_a = keep_in_progress(&file, &games(&[("a", 3), ("c", 1)]), &last_a).unwrap();
        assert_eq!(last_a, games(&[("a", 3), ("b", 2), ("c", 1)]));
        assert_eq!(read_in_progress(&file).unwrap(), last_a);
        // B rates b and keeps a as it last saw it: b is gone, a keeps A's
        // later play, and c stays.
        let last_b = keep_in_progress(&file, &games(&[("a", 1)]), &last_b).unwrap();
        assert_eq!(last_b, games(&[("a", 3), ("c", 1)]));
        // A rates a; B, which held a unchanged, does not bring it back,
        // while its own move in c wins over what it last saw.
        let last_a = keep_in_progress(&file, &games(&[("c", 1)]), &last_a).unwrap();
        assert_eq!(last_a, games(&[("c", 1)]));
        let last_b = keep_in_progress(&file, &games(&[("a", 3), ("c", 2)]), &last_b).unwrap();
        assert_eq!(last_b, games(&[("c", 2)]));
        assert_eq!(read_in_progress(&file).unwrap(), last_b);
    }
}
