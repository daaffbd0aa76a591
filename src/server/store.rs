//! The study store: one SQLite file (WAL, every change in one transaction)
//! with the studies, their puzzles and every feature, the raters, the
//! hand-out of puzzles to raters, the ratings with their replayed play
//! records, and the admin secret's hash. Everything a rater sends is checked
//! here ([`crate::limits`], the play log's replay), so the command line and
//! the HTTP server store by the same rules, and nothing partial is stored.

use crate::answers::{
    Audit, Counts, DoneReason, Handed, NewStudy, Next, OwnRating, Progress, PuzzleCount, Rater,
    RaterCount, Stored, Study, Submission,
};
use crate::limits::{check_nickname, check_notes, check_pid, check_study_name};
use boaf_core::engine::card::Card;
use boaf_core::engine::features::Features;
use boaf_core::engine::notation::{parse_state, to_compact};
use boaf_core::engine::state::{Grid, State};
use boaf_core::generator::pipeline::{Candidate, utc_now, utc_text};
use boaf_core::study::play_log::{PlayLogError, replay_handed};
use boaf_core::study::ratings::{PlayRecord, Rating};
use rand::{Rng, RngExt};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use sha2::{Digest, Sha256};
use std::path::Path;
use thiserror::Error;

mod batch;

use batch::write;

/// How long a puzzle handed out and neither rated nor skipped counts as
/// taken in the hand-out's order: a rater who left does not keep it from
/// others for ever (it stays the rater's own, should they come back).
pub const STALE_AFTER_SECONDS: u64 = 2 * 60 * 60;

/// The schema this version writes and reads.
pub const SCHEMA_VERSION: i64 = 1;

/// The tables (see the README's "Rating studies").
const SCHEMA: &str = "
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE admin (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    secret_sha256 TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE studies (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    intro TEXT NOT NULL,
    per_rater INTEGER NOT NULL CHECK (per_rater > 0),
    open INTEGER NOT NULL CHECK (open IN (0, 1)),
    completion_code TEXT,
    created TEXT NOT NULL
);
CREATE TABLE puzzles (
    id INTEGER PRIMARY KEY,
    study INTEGER NOT NULL REFERENCES studies(id),
    puzzle TEXT NOT NULL,
    rows INTEGER NOT NULL,
    cols INTEGER NOT NULL,
    energy_id TEXT NOT NULL,
    features TEXT NOT NULL,
    UNIQUE (study, puzzle)
);
CREATE TABLE raters (
    id INTEGER PRIMARY KEY,
    study INTEGER NOT NULL REFERENCES studies(id),
    token_sha256 TEXT NOT NULL UNIQUE,
    nickname TEXT NOT NULL,
    pid TEXT,
    created TEXT NOT NULL
);
CREATE UNIQUE INDEX raters_by_pid ON raters (study, pid) WHERE pid IS NOT NULL;
CREATE TABLE assignments (
    rater INTEGER NOT NULL REFERENCES raters(id),
    puzzle INTEGER NOT NULL REFERENCES puzzles(id),
    position INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('open', 'rated', 'skipped')),
    handed TEXT NOT NULL,
    PRIMARY KEY (rater, puzzle)
);
CREATE INDEX assignments_by_puzzle ON assignments (puzzle, state);
CREATE TABLE ratings (
    id INTEGER PRIMARY KEY,
    rater INTEGER NOT NULL REFERENCES raters(id),
    puzzle INTEGER NOT NULL REFERENCES puzzles(id),
    submission TEXT NOT NULL UNIQUE,
    rating REAL NOT NULL CHECK (rating >= 0 AND rating <= 10),
    notes TEXT NOT NULL,
    solved INTEGER NOT NULL,
    moves INTEGER NOT NULL,
    undos INTEGER NOT NULL,
    restarts INTEGER NOT NULL,
    hints INTEGER NOT NULL,
    solution_shown INTEGER NOT NULL,
    seconds REAL NOT NULL,
    log TEXT NOT NULL,
    created TEXT NOT NULL,
    UNIQUE (rater, puzzle)
);
";

/// Why the store refused or failed. The rater's mistakes and the designer's
/// are told apart from the database's own failures by [`StoreError::is_refusal`].
#[derive(Debug, Error)]
pub enum StoreError {
    /// The database failed.
    #[error("the study database: {0}")]
    Sql(#[from] rusqlite::Error),
    /// The file was written by a newer boaf.
    #[error("the study database has schema {0}; this boaf reads schema {SCHEMA_VERSION}")]
    NewerSchema(i64),
    /// No study has this name.
    #[error("no study named {0:?}")]
    NoStudy(String),
    /// A study of this name exists.
    #[error("a study named {0:?} exists already")]
    StudyExists(String),
    /// A study that cannot be made: no puzzles, or none per rater.
    #[error("{0}")]
    BadStudy(String),
    /// The study is closed to raters.
    #[error("the study {0:?} is closed")]
    Closed(String),
    /// An external participant id that joined the study already.
    #[error("participant {0:?} has joined this study already: go on in the browser you started in")]
    PidTaken(String),
    /// A token that belongs to no rater of the study.
    #[error("no rater of this study has that token: join first")]
    UnknownRater,
    /// A puzzle id the study does not have.
    #[error("the study has no puzzle {0}")]
    UnknownPuzzle(i64),
    /// A puzzle of the study that was not handed to this rater.
    #[error("puzzle {0} was not handed to you")]
    NotHanded(i64),
    /// A second rating of one puzzle by one rater.
    #[error("you rated puzzle {0} already")]
    AlreadyRated(i64),
    /// A rating of a puzzle the rater skipped.
    #[error("you skipped puzzle {0}")]
    WasSkipped(i64),
    /// A submission id that another rater (or another puzzle) used.
    #[error("submission id {0:?} was used for another rating")]
    SubmissionReused(String),
    /// The play log cannot have happened.
    #[error("the play log: {0}")]
    Log(#[from] PlayLogError),
    /// A value a rater or designer sent that is out of bounds.
    #[error("{0}")]
    Invalid(String),
    /// A puzzle stored in the study that does not read (a damaged file).
    #[error("stored puzzle {0} does not read: {1}")]
    BadPuzzle(i64, String),
}

impl StoreError {
    /// Whether the error is the caller's (a refusal: a 4xx on the web), not
    /// the database's.
    pub fn is_refusal(&self) -> bool {
        !matches!(
            self,
            StoreError::Sql(_) | StoreError::NewerSchema(_) | StoreError::BadPuzzle(..)
        )
    }
}

/// The hex SHA-256 of a secret or token: only hashes are stored.
pub fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A new random secret: 32 bytes from the thread's CSPRNG, in hex.
pub fn random_secret() -> String {
    let bytes: [u8; 32] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A rater's id in exports: the external pid when there is one.
fn rater_id(id: i64, pid: Option<String>) -> String {
    pid.unwrap_or_else(|| format!("r{id}"))
}

/// The study database, open.
pub struct Store {
    conn: Connection,
}

impl Store {
    /// Opens (creating with its schema if new) the study database, in WAL
    /// mode with full syncs, so an acknowledged rating survives a kill.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| StoreError::Invalid(format!("{}: {e}", dir.display())))?;
        }
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let has_schema: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'schema_version')",
            [],
            |r| r.get(0),
        )?;
        if has_schema {
            let version: i64 =
                tx.query_row("SELECT MAX(version) FROM schema_version", [], |r| r.get(0))?;
            if version > SCHEMA_VERSION {
                return Err(StoreError::NewerSchema(version));
            }
        } else {
            tx.execute_batch(SCHEMA)?;
            tx.execute(
                "INSERT INTO schema_version (version) VALUES (?1)",
                [SCHEMA_VERSION],
            )?;
        }
        tx.commit()?;
        Ok(Store { conn })
    }

    /// The journal mode in use (`wal`), for the tests.
    pub fn journal_mode(&self) -> Result<String, StoreError> {
        Ok(self
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))?)
    }

    /// Makes a new admin secret, stores its hash (replacing the old one) and
    /// returns it: the only time it is seen.
    pub fn new_admin_secret(&mut self) -> Result<String, StoreError> {
        let secret = random_secret();
        self.conn.execute(
            "INSERT OR REPLACE INTO admin (id, secret_sha256, created) VALUES (1, ?1, ?2)",
            params![sha256_hex(&secret), utc_now()],
        )?;
        Ok(secret)
    }

    /// Whether `secret` is the admin secret.
    pub fn is_admin_secret(&self, secret: &str) -> Result<bool, StoreError> {
        let stored: Option<String> = self
            .conn
            .query_row("SELECT secret_sha256 FROM admin WHERE id = 1", [], |r| {
                r.get(0)
            })
            .optional()?;
        // Compared hash to hash, every byte: the time says nothing of the secret.
        Ok(stored.is_some_and(|s| {
            let given = sha256_hex(secret);
            s.len() == given.len()
                && s.bytes()
                    .zip(given.bytes())
                    .fold(0, |acc, (a, b)| acc | (a ^ b))
                    == 0
        }))
    }

    /// Creates a study with these puzzles (a puzzle given twice is kept once).
    pub fn create_study(
        &mut self,
        new: &NewStudy,
        puzzles: &[Candidate],
    ) -> Result<Study, StoreError> {
        check_study_name(&new.name).map_err(StoreError::Invalid)?;
        if new.per_rater == 0 {
            return Err(StoreError::BadStudy(
                "a study gives each rater at least 1 puzzle".into(),
            ));
        }
        if puzzles.is_empty() {
            return Err(StoreError::BadStudy(format!(
                "the study {:?} has no puzzles",
                new.name
            )));
        }
        let tx = write(&mut self.conn)?;
        let exists: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM studies WHERE name = ?1)",
            [&new.name],
            |r| r.get(0),
        )?;
        if exists {
            return Err(StoreError::StudyExists(new.name.clone()));
        }
        tx.execute(
            "INSERT INTO studies (name, intro, per_rater, open, completion_code, created)
             VALUES (?1, ?2, ?3, 1, ?4, ?5)",
            params![
                new.name,
                new.intro,
                new.per_rater,
                new.completion_code,
                utc_now()
            ],
        )?;
        let study = tx.last_insert_rowid();
        {
            let mut add = tx.prepare(
                "INSERT OR IGNORE INTO puzzles (study, puzzle, rows, cols, energy_id, features)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for c in puzzles {
                let features = serde_json::to_string(&c.features).expect("features serialize");
                add.execute(params![
                    study,
                    c.puzzle,
                    c.rows as i64,
                    c.cols as i64,
                    c.energy_id,
                    features
                ])?;
            }
        }
        tx.commit()?;
        self.study(&new.name)
    }

    /// Every study, by name.
    pub fn studies(&self) -> Result<Vec<Study>, StoreError> {
        let names: Vec<String> = self
            .conn
            .prepare("SELECT name FROM studies ORDER BY name")?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        names.iter().map(|n| self.study(n)).collect()
    }

    /// The study of this name.
    pub fn study(&self, name: &str) -> Result<Study, StoreError> {
        self.conn
            .query_row(
                "SELECT s.id, s.name, s.intro, s.per_rater, s.open, s.completion_code,
                    (SELECT COUNT(*) FROM puzzles WHERE study = s.id),
                    (SELECT COUNT(*) FROM raters WHERE study = s.id),
                    (SELECT COUNT(*) FROM ratings r JOIN raters w ON r.rater = w.id
                      WHERE w.study = s.id)
                 FROM studies s WHERE s.name = ?1",
                [name],
                |r| {
                    Ok(Study {
                        id: r.get(0)?,
                        name: r.get(1)?,
                        intro: r.get(2)?,
                        per_rater: r.get(3)?,
                        open: r.get(4)?,
                        completion_code: r.get(5)?,
                        puzzles: r.get(6)?,
                        raters: r.get(7)?,
                        ratings: r.get(8)?,
                    })
                },
            )
            .optional()?
            .ok_or_else(|| StoreError::NoStudy(name.to_string()))
    }

    /// Opens or closes a study to raters.
    pub fn set_open(&mut self, name: &str, open: bool) -> Result<Study, StoreError> {
        let changed = self.conn.execute(
            "UPDATE studies SET open = ?1 WHERE name = ?2",
            params![open, name],
        )?;
        if changed == 0 {
            return Err(StoreError::NoStudy(name.to_string()));
        }
        self.study(name)
    }

    /// What a rater's request reads of a study: not its counts, which scan
    /// its ratings and would make each request slower as the study grows.
    fn head(&self, name: &str) -> Result<Head, StoreError> {
        self.conn
            .query_row(
                "SELECT id, name, per_rater, open, completion_code FROM studies WHERE name = ?1",
                [name],
                |r| {
                    Ok(Head {
                        id: r.get(0)?,
                        name: r.get(1)?,
                        per_rater: r.get(2)?,
                        open: r.get(3)?,
                        completion_code: r.get(4)?,
                    })
                },
            )
            .optional()?
            .ok_or_else(|| StoreError::NoStudy(name.to_string()))
    }

    /// An open study, or why not.
    fn open_study(&self, name: &str) -> Result<Head, StoreError> {
        let study = self.head(name)?;
        if !study.open {
            return Err(StoreError::Closed(study.name));
        }
        Ok(study)
    }

    /// A new rater of an open study, with its token (returned once; only its
    /// hash is kept).
    pub fn join(
        &mut self,
        study: &str,
        nickname: &str,
        pid: Option<&str>,
    ) -> Result<(Rater, String), StoreError> {
        let study = self.open_study(study)?;
        let nickname = check_nickname(nickname).map_err(StoreError::Invalid)?;
        if let Some(pid) = pid {
            check_pid(pid).map_err(StoreError::Invalid)?;
            // One rater per participant: a second join would rate twice under one id.
            let taken: bool = self.conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM raters WHERE study = ?1 AND pid = ?2)",
                params![study.id, pid],
                |r| r.get(0),
            )?;
            if taken {
                return Err(StoreError::PidTaken(pid.to_string()));
            }
        }
        let token = random_secret();
        self.conn.execute(
            "INSERT INTO raters (study, token_sha256, nickname, pid, created)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![study.id, sha256_hex(&token), nickname, pid, utc_now()],
        )?;
        let id = self.conn.last_insert_rowid();
        let rater = Rater {
            id,
            study: study.id,
            rater: rater_id(id, pid.map(str::to_string)),
            nickname,
        };
        Ok((rater, token))
    }

    /// The rater of this study whose token this is.
    pub fn rater(&self, study: &str, token: &str) -> Result<Rater, StoreError> {
        let study = self.head(study)?;
        self.conn
            .query_row(
                "SELECT id, nickname, pid FROM raters WHERE token_sha256 = ?1 AND study = ?2",
                params![sha256_hex(token), study.id],
                |r| {
                    Ok(Rater {
                        id: r.get(0)?,
                        study: study.id,
                        rater: rater_id(r.get(0)?, r.get(2)?),
                        nickname: r.get(1)?,
                    })
                },
            )
            .optional()?
            .ok_or(StoreError::UnknownRater)
    }

    /// The rater's puzzle: the one in progress if any, else a new one,
    /// least rated first (counting those handed out and not yet rated or
    /// skipped, so raters at the same moment spread out), ties at random;
    /// never one the rater had. Skips do not count towards `per_rater`, up
    /// to as many again: done after `per_rater` rated or skipped, or when
    /// the study has no more for this rater. The completion code needs a
    /// rating of a puzzle the rater played at least one move in.
    pub fn next(
        &mut self,
        study: &str,
        rater: &Rater,
        rng: &mut impl Rng,
    ) -> Result<Next, StoreError> {
        let study = self.open_study(study)?;
        let tx = write(&mut self.conn)?;
        let current: Option<i64> = tx
            .query_row(
                "SELECT puzzle FROM assignments WHERE rater = ?1 AND state = 'open'
                 ORDER BY position LIMIT 1",
                [rater.id],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(p) = current {
            return Ok(Next::Puzzle(handed(&tx, rater, p)?));
        }
        let (had, rated, skipped): (u32, u32, u32) = tx.query_row(
            "SELECT COUNT(*), COUNT(*) FILTER (WHERE state = 'rated'),
                 COUNT(*) FILTER (WHERE state = 'skipped')
             FROM assignments WHERE rater = ?1",
            [rater.id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        // The code is for a rater who played: skipping every puzzle, or
        // rating without a move (an empty log), does not earn it.
        let played: u32 = tx.query_row(
            "SELECT COUNT(*) FROM ratings WHERE rater = ?1 AND moves > 0",
            [rater.id],
            |r| r.get(0),
        )?;
        let done = Next::Done {
            completion_code: study.completion_code.clone().filter(|_| played > 0),
            reason: if played > 0 {
                DoneReason::Rated
            } else {
                DoneReason::NoRating
            },
        };
        if rated >= study.per_rater || skipped >= study.per_rater {
            return Ok(done);
        }
        let loads: Vec<(i64, u32)> = tx
            .prepare(
                "SELECT p.id, (SELECT COUNT(*) FROM assignments a
                     WHERE a.puzzle = p.id
                     AND (a.state = 'rated' OR (a.state = 'open' AND a.handed > ?3)))
                 FROM puzzles p WHERE p.study = ?1 AND p.id NOT IN
                     (SELECT puzzle FROM assignments WHERE rater = ?2)
                 ORDER BY p.id",
            )?
            .query_map(params![study.id, rater.id, stale_before()], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<Result<_, _>>()?;
        let Some(least) = loads.iter().map(|l| l.1).min() else {
            return Ok(done);
        };
        let ties: Vec<i64> = loads.iter().filter(|l| l.1 == least).map(|l| l.0).collect();
        let puzzle = ties[rng.random_range(0..ties.len())];
        tx.execute(
            "INSERT INTO assignments (rater, puzzle, position, state, handed)
             VALUES (?1, ?2, ?3, 'open', ?4)",
            params![rater.id, puzzle, had + 1, utc_now()],
        )?;
        let h = handed(&tx, rater, puzzle)?;
        tx.commit()?;
        Ok(Next::Puzzle(h))
    }

    /// The state of the rater's assignment of a puzzle and the milliseconds
    /// since it was handed out, or why there is none (no such puzzle in the
    /// study, or not handed to the rater).
    fn assignment(
        conn: &Connection,
        rater: &Rater,
        puzzle: i64,
    ) -> Result<(String, f64), StoreError> {
        let state: Option<(String, f64)> = conn
            .query_row(
                "SELECT state, (julianday('now') - julianday(handed)) * 86400000.0
                 FROM assignments WHERE rater = ?1 AND puzzle = ?2",
                params![rater.id, puzzle],
                |r| Ok((r.get(0)?, r.get::<_, Option<f64>>(1)?.unwrap_or(0.0))),
            )
            .optional()?;
        if let Some(s) = state {
            return Ok(s);
        }
        let in_study: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM puzzles WHERE id = ?1 AND study = ?2)",
            params![puzzle, rater.study],
            |r| r.get(0),
        )?;
        Err(if in_study {
            StoreError::NotHanded(puzzle)
        } else {
            StoreError::UnknownPuzzle(puzzle)
        })
    }

    /// Stores a rating, its play log replayed into the record, in one
    /// transaction; a retry with the same submission id answers as the first
    /// time and stores nothing more.
    pub fn submit(
        &mut self,
        study: &str,
        rater: &Rater,
        s: &Submission,
    ) -> Result<Stored, StoreError> {
        if s.id.is_empty() || s.id.len() > 64 || !s.id.chars().all(|c| c.is_ascii_graphic()) {
            return Err(StoreError::Invalid(
                "a submission id is 1 to 64 printable ASCII characters".into(),
            ));
        }
        // A retry of a stored rating gets its first answer, even once the
        // study has closed (the rater's first try was taken).
        let earlier = self
            .conn
            .query_row(
                "SELECT id, rater, puzzle, solved, moves, undos, restarts, hints,
                        solution_shown, seconds FROM ratings WHERE submission = ?1",
                [&s.id],
                |r| {
                    Ok((
                        r.get::<_, i64>(1)?,
                        Stored {
                            rating_id: r.get(0)?,
                            puzzle: r.get(2)?,
                            record: play_record(r, 3)?,
                        },
                    ))
                },
            )
            .optional()?;
        if let Some((by, stored)) = earlier {
            return if by == rater.id && stored.puzzle == s.puzzle {
                Ok(stored)
            } else {
                Err(StoreError::SubmissionReused(s.id.clone()))
            };
        }
        self.open_study(study)?;
        let tx = write(&mut self.conn)?;
        let (state, since_ms) = Store::assignment(&tx, rater, s.puzzle)?;
        match state.as_str() {
            "rated" => return Err(StoreError::AlreadyRated(s.puzzle)),
            "skipped" => return Err(StoreError::WasSkipped(s.puzzle)),
            _ => {}
        }
        if !(0.0..=10.0).contains(&s.rating) {
            return Err(StoreError::Invalid(format!(
                "a rating is a number from 0 to 10, not {}",
                s.rating
            )));
        }
        check_notes(&s.notes).map_err(StoreError::Invalid)?;
        let deal = puzzle_state(&tx, s.puzzle)?;
        let play = replay_handed(deal, &s.log, since_ms)?;
        let log = serde_json::to_string(&s.log).expect("a play log serializes");
        tx.execute(
            "INSERT INTO ratings (rater, puzzle, submission, rating, notes, solved, moves,
                 undos, restarts, hints, solution_shown, seconds, log, created)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            params![
                rater.id,
                s.puzzle,
                s.id,
                s.rating,
                s.notes,
                play.solved,
                play.moves,
                play.undos,
                play.restarts,
                play.hints,
                play.solution_shown,
                play.seconds,
                log,
                utc_now()
            ],
        )?;
        let rating_id = tx.last_insert_rowid();
        tx.execute(
            "UPDATE assignments SET state = 'rated' WHERE rater = ?1 AND puzzle = ?2",
            params![rater.id, s.puzzle],
        )?;
        tx.commit()?;
        Ok(Stored {
            rating_id,
            puzzle: s.puzzle,
            record: play,
        })
    }

    /// Skips the rater's puzzle (skipping it again changes nothing).
    pub fn skip(&mut self, study: &str, rater: &Rater, puzzle: i64) -> Result<(), StoreError> {
        self.open_study(study)?;
        let tx = write(&mut self.conn)?;
        if Store::assignment(&tx, rater, puzzle)?.0 == "rated" {
            return Err(StoreError::AlreadyRated(puzzle));
        }
        tx.execute(
            "UPDATE assignments SET state = 'skipped' WHERE rater = ?1 AND puzzle = ?2",
            params![rater.id, puzzle],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The rater's own progress and ratings.
    pub fn progress(&self, study: &str, rater: &Rater) -> Result<Progress, StoreError> {
        let study = self.head(study)?;
        let count = |state: &str| -> Result<u32, StoreError> {
            Ok(self.conn.query_row(
                "SELECT COUNT(*) FROM assignments WHERE rater = ?1 AND state = ?2",
                params![rater.id, state],
                |r| r.get(0),
            )?)
        };
        let ratings = self
            .conn
            .prepare("SELECT puzzle, rating, notes FROM ratings WHERE rater = ?1 ORDER BY id")?
            .query_map([rater.id], |r| {
                Ok(OwnRating {
                    puzzle: r.get(0)?,
                    rating: r.get(1)?,
                    notes: r.get(2)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(Progress {
            per_rater: study.per_rater,
            rated: count("rated")?,
            skipped: count("skipped")?,
            ratings,
        })
    }

    /// The study's counts per puzzle and per rater.
    pub fn counts(&self, study: &str) -> Result<Counts, StoreError> {
        let study = self.study(study)?;
        let puzzles = self
            .conn
            .prepare(
                "SELECT p.id, p.puzzle,
                    (SELECT COUNT(*) FROM assignments a WHERE a.puzzle = p.id AND a.state = 'rated'),
                    (SELECT COUNT(*) FROM assignments a WHERE a.puzzle = p.id AND a.state = 'skipped'),
                    (SELECT COUNT(*) FROM assignments a WHERE a.puzzle = p.id AND a.state = 'open')
                 FROM puzzles p WHERE p.study = ?1 ORDER BY p.id",
            )?
            .query_map([study.id], |r| {
                Ok(PuzzleCount {
                    id: r.get(0)?,
                    puzzle: r.get(1)?,
                    rated: r.get(2)?,
                    skipped: r.get(3)?,
                    open: r.get(4)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        let raters = self
            .conn
            .prepare(
                "SELECT w.id, w.pid, w.nickname,
                    (SELECT COUNT(*) FROM assignments a WHERE a.rater = w.id AND a.state = 'rated'),
                    (SELECT COUNT(*) FROM assignments a WHERE a.rater = w.id AND a.state = 'skipped')
                 FROM raters w WHERE w.study = ?1 ORDER BY w.id",
            )?
            .query_map([study.id], |r| {
                Ok(RaterCount {
                    rater: rater_id(r.get(0)?, r.get(1)?),
                    nickname: r.get(2)?,
                    rated: r.get(3)?,
                    skipped: r.get(4)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(Counts { puzzles, raters })
    }

    /// The study's ratings as rows of a ratings file, in the order made,
    /// each with its puzzle's every feature.
    pub fn export(&self, study: &str) -> Result<Vec<Rating>, StoreError> {
        let study = self.study(study)?;
        let mut rows = self.conn.prepare(
            "SELECT p.puzzle, p.rows, p.cols, p.energy_id, p.features, r.rating, r.notes,
                    r.solved, r.moves, r.undos, r.restarts, r.hints, r.solution_shown,
                    r.seconds, w.id, w.pid, r.created
             FROM ratings r JOIN puzzles p ON p.id = r.puzzle JOIN raters w ON w.id = r.rater
             WHERE p.study = ?1 ORDER BY r.id",
        )?;
        let rows = rows.query_map([study.id], |r| {
            let features: String = r.get(4)?;
            // A damaged features column is the database's failure, with its place.
            let features = serde_json::from_str::<Features>(&features).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(4, rusqlite::types::Type::Text, e.into())
            })?;
            Ok(Rating {
                puzzle: r.get(0)?,
                grid: format!("{}x{}", r.get::<_, u32>(1)?, r.get::<_, u32>(2)?),
                energy_id: r.get(3)?,
                features,
                rating: r.get(5)?,
                notes: r.get(6)?,
                play: play_record(r, 7)?,
                rater: rater_id(r.get(14)?, r.get(15)?),
                timestamp: r.get(16)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every stored rating of a study, and what a half-written one would
    /// leave (the checks `boaf bench serve` runs after a kill).
    pub fn audit(&self, study: &str) -> Result<Audit, StoreError> {
        let study = self.study(study)?;
        let ratings = self
            .conn
            .prepare(
                "SELECT r.submission, r.rater, r.puzzle FROM ratings r
                 JOIN raters w ON w.id = r.rater WHERE w.study = ?1 ORDER BY r.id",
            )?
            .query_map([study.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?;
        let count = |sql: &str| -> Result<u32, StoreError> {
            Ok(self.conn.query_row(sql, [study.id], |r| r.get(0))?)
        };
        // A rating whose record or log is missing, or that no rated
        // assignment owns; an assignment marked rated with no rating.
        let half_written = count(
            "SELECT COUNT(*) FROM ratings r JOIN raters w ON w.id = r.rater
             WHERE w.study = ?1 AND (r.log = '' OR r.seconds IS NULL OR NOT EXISTS
                 (SELECT 1 FROM assignments a WHERE a.rater = r.rater
                  AND a.puzzle = r.puzzle AND a.state = 'rated'))",
        )? + count(
            "SELECT COUNT(*) FROM assignments a JOIN raters w ON w.id = a.rater
             WHERE w.study = ?1 AND a.state = 'rated' AND NOT EXISTS
                 (SELECT 1 FROM ratings r WHERE r.rater = a.rater AND r.puzzle = a.puzzle)",
        )?;
        Ok(Audit {
            ratings,
            half_written,
            integrity: self.integrity_check()?,
        })
    }

    /// Runs SQLite's own check of the file: `ok` when it is whole.
    pub fn integrity_check(&self) -> Result<String, StoreError> {
        Ok(self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))?)
    }
}

/// The hand-out time before which an open assignment is stale
/// ([`STALE_AFTER_SECONDS`]), as the `handed` column writes times.
fn stale_before() -> String {
    utc_text(boaf_core::generator::pipeline::unix_secs().saturating_sub(STALE_AFTER_SECONDS))
}

/// A study's row without its counts (see [`Store::head`]).
struct Head {
    id: i64,
    name: String,
    per_rater: u32,
    open: bool,
    completion_code: Option<String>,
}

/// A puzzle handed to a rater, with its cards as the app shows them.
fn handed(conn: &Connection, rater: &Rater, puzzle: i64) -> Result<Handed, StoreError> {
    // The skipped do not count towards `per_rater`, nor in the position.
    let position: u32 = conn.query_row(
        "SELECT COUNT(*) + 1 FROM assignments WHERE rater = ?1 AND state = 'rated'",
        [rater.id],
        |r| r.get(0),
    )?;
    let state = puzzle_state(conn, puzzle)?;
    // The page reads compact notation only; a puzzle stored in another
    // notation is sent as the state it reads to.
    Ok(Handed {
        id: puzzle,
        puzzle: to_compact(&state),
        rows: state.grid().rows() as u32,
        cols: state.grid().cols() as u32,
        position,
        cards: state.tops().iter().map(|c| c.map(Card::face)).collect(),
    })
}

/// The play record in a row's columns from `first` on: solved, moves,
/// undos, restarts, hints, solution_shown, seconds (the ratings table's order).
fn play_record(r: &rusqlite::Row, first: usize) -> rusqlite::Result<PlayRecord> {
    Ok(PlayRecord {
        solved: r.get(first)?,
        moves: r.get(first + 1)?,
        undos: r.get(first + 2)?,
        restarts: r.get(first + 3)?,
        hints: r.get(first + 4)?,
        solution_shown: r.get(first + 5)?,
        seconds: r.get(first + 6)?,
    })
}

/// A stored puzzle as a state on its own grid.
fn puzzle_state(conn: &Connection, id: i64) -> Result<State, StoreError> {
    let (text, rows, cols): (String, u32, u32) = conn.query_row(
        "SELECT puzzle, rows, cols FROM puzzles WHERE id = ?1",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let grid = Grid::new(rows as usize, cols as usize)
        .map_err(|e| StoreError::BadPuzzle(id, e.to_string()))?;
    parse_state(&text, Some(grid)).map_err(|e| StoreError::BadPuzzle(id, e.to_string()))
}
