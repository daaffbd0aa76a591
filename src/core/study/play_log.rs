//! A play as a browser reports it: the rater's event log (moves, undos,
//! redos, restarts, hints, the solution shown, and the active time), which
//! [`replay`] plays again with the engine to derive the [`PlayRecord`]. The
//! record is trusted, not believed: the counts come from the replay, through
//! the desktop's own [`Session::record`], never from the page; a log that
//! cannot have happened is refused with what is wrong in it.

use crate::engine::game::PlayClock;
use crate::engine::state::{Move, State, StateError};
use crate::study::in_progress::Session;
use crate::study::ratings::PlayRecord;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use thiserror::Error;

/// The most events a log may hold (a 16-card play is 15 moves; this leaves
/// room for hours of undo and redo, and bounds a replay's work).
pub const MAX_EVENTS: usize = 10_000;

/// The longest play a log may report, in milliseconds (one day).
pub const MAX_MS: f64 = 86_400_000.0;

/// The clock slack allowed between a log's active time and the time since
/// its puzzle was handed out, in milliseconds (the hand-out's time is kept
/// to the second, and the request takes its own time).
pub const SLACK_MS: f64 = 5_000.0;

/// One thing the rater did, in the order done.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PlayEvent {
    /// The stack in cell `from` moved onto the stack in cell `to`.
    Move {
        /// The cell whose stack moved.
        from: u8,
        /// The cell whose stack was covered.
        to: u8,
    },
    /// The last move taken back.
    Undo,
    /// The last move taken back played again.
    Redo,
    /// Back to the deal.
    Restart,
    /// A hint shown (a move, or "no solution from here").
    Hint,
    /// The solution shown (its replay's moves are not the rater's and are
    /// not logged).
    Solution,
}

/// The log a rater's page sends with a rating.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayLog {
    /// What the rater did, in order.
    pub events: Vec<PlayEvent>,
    /// Milliseconds of active play (the page on screen and focused, up to
    /// the solve), as the desktop's clock counts them.
    pub active_ms: f64,
    /// Milliseconds from the puzzle's first showing to the rating: the wall
    /// time the log spans, which the active time cannot exceed.
    pub wall_ms: f64,
    /// Whether the page says the rater solved the puzzle.
    pub solved: bool,
}

impl PlayLog {
    /// A log of these moves and nothing else, over these times (a scripted
    /// rater's, as `boaf bench serve` and the tests send).
    pub fn of_moves(moves: &[Move], active_ms: f64, wall_ms: f64, solved: bool) -> PlayLog {
        PlayLog {
            events: moves
                .iter()
                .map(|m| PlayEvent::Move {
                    from: m.from,
                    to: m.to,
                })
                .collect(),
            active_ms,
            wall_ms,
            solved,
        }
    }
}

/// Why a log was refused.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum PlayLogError {
    /// More events than [`MAX_EVENTS`].
    #[error("the log has {0} events; at most {MAX_EVENTS} are accepted")]
    TooManyEvents(usize),
    /// A move that is not legal in the position the replay reached.
    #[error("event {event}: the move from cell {} to cell {} is illegal there: {reason}", mv.from, mv.to)]
    IllegalMove {
        /// The event's 0-based index.
        event: usize,
        /// The move.
        mv: Move,
        /// What the engine said.
        reason: StateError,
    },
    /// An undo with no move to take back.
    #[error("event {0}: an undo with no move to take back")]
    NothingToUndo(usize),
    /// A redo with no move to play again.
    #[error("event {0}: a redo with no undone move to play again")]
    NothingToRedo(usize),
    /// The log's claim of a solve differs from what its replay reached.
    #[error("the log says solved: {claimed}, but its moves {}", if *claimed { "do not solve the puzzle" } else { "solve it" })]
    SolvedMismatch {
        /// What the log claims.
        claimed: bool,
    },
    /// A time that cannot be: not a number, negative, over [`MAX_MS`], or
    /// active time longer than the wall time.
    #[error("impossible time: {0}")]
    BadTime(String),
    /// More active time than has passed since the puzzle was handed out.
    #[error(
        "impossible time: active_ms {active_ms} is more than the {since_ms} ms since the puzzle was handed out"
    )]
    BeforeHandOut {
        /// The active time the log claims.
        active_ms: f64,
        /// The milliseconds since the hand-out, as the server counts them.
        since_ms: f64,
    },
}

/// Checks a log's times: each a finite number from 0 to [`MAX_MS`], and the
/// active time within the wall time.
fn check_times(log: &PlayLog) -> Result<(), PlayLogError> {
    for (name, ms) in [("active_ms", log.active_ms), ("wall_ms", log.wall_ms)] {
        if !ms.is_finite() || ms < 0.0 {
            return Err(PlayLogError::BadTime(format!(
                "{name} is {ms}, not a number of milliseconds from 0"
            )));
        }
        if ms > MAX_MS {
            return Err(PlayLogError::BadTime(format!(
                "{name} is {ms}, over the cap of {MAX_MS} (one day)"
            )));
        }
    }
    if log.active_ms > log.wall_ms {
        return Err(PlayLogError::BadTime(format!(
            "active_ms {} is longer than the wall time it spans, wall_ms {}",
            log.active_ms, log.wall_ms
        )));
    }
    Ok(())
}

/// Replays the log of a puzzle handed out `since_ms` ago (see [`replay`]).
/// Its active time may not exceed the time since the hand-out (with
/// [`SLACK_MS`]); its times are then clipped, not refused: the wall time to
/// the time since the hand-out, both to [`MAX_MS`], so a tab left open for
/// days still stores its rating (with a day of active time at most). A
/// negative `since_ms` (the server's clock stepped back) skips the check.
pub fn replay_handed(
    deal: State,
    log: &PlayLog,
    since_ms: f64,
) -> Result<PlayRecord, PlayLogError> {
    // A negative time since the hand-out is the server's clock stepped
    // back (NTP): the hand-out check cannot be made, the day's cap still is.
    let stepped_back = since_ms < 0.0;
    let since_ms = if stepped_back { MAX_MS } else { since_ms };
    for (name, ms) in [("active_ms", log.active_ms), ("wall_ms", log.wall_ms)] {
        if !ms.is_finite() || ms < 0.0 {
            return Err(PlayLogError::BadTime(format!(
                "{name} is {ms}, not a number of milliseconds from 0"
            )));
        }
    }
    if !stepped_back && log.active_ms > since_ms + SLACK_MS {
        return Err(PlayLogError::BeforeHandOut {
            active_ms: log.active_ms,
            since_ms: since_ms.round(),
        });
    }
    let clipped = PlayLog {
        active_ms: log.active_ms.min(MAX_MS),
        wall_ms: log.wall_ms.min(since_ms + SLACK_MS).min(MAX_MS),
        ..log.clone()
    };
    replay(deal, &clipped)
}

/// Replays a log on its deal and derives the play record, as the desktop
/// records its own play (the same [`Session`] and [`Session::record`]).
/// Refuses a log that cannot have happened; the first problem is reported.
pub fn replay(deal: State, log: &PlayLog) -> Result<PlayRecord, PlayLogError> {
    if log.events.len() > MAX_EVENTS {
        return Err(PlayLogError::TooManyEvents(log.events.len()));
    }
    check_times(log)?;
    let mut session = Session::new(deal);
    for (event, &e) in log.events.iter().enumerate() {
        match e {
            PlayEvent::Move { from, to } => {
                let mv = Move { from, to };
                session
                    .game
                    .play(mv)
                    .map_err(|reason| PlayLogError::IllegalMove { event, mv, reason })?;
            }
            PlayEvent::Undo => {
                if !session.game.undo() {
                    return Err(PlayLogError::NothingToUndo(event));
                }
            }
            PlayEvent::Redo => {
                if !session.game.redo() {
                    return Err(PlayLogError::NothingToRedo(event));
                }
            }
            PlayEvent::Restart => session.game.restart(),
            PlayEvent::Hint => session.hints += 1,
            PlayEvent::Solution => session.solution_shown = true,
        }
    }
    // The page's clock counted the active time; it stopped at the rating.
    session.clock = PlayClock::stopped_at(Duration::from_secs_f64(log.active_ms / 1000.0));
    let record = session.record(Duration::ZERO);
    if record.solved != log.solved {
        return Err(PlayLogError::SolvedMismatch {
            claimed: log.solved,
        });
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::game::deal_and_solution;

    fn mv(m: Move) -> PlayEvent {
        PlayEvent::Move {
            from: m.from,
            to: m.to,
        }
    }

    fn log(events: Vec<PlayEvent>, solved: bool) -> PlayLog {
        PlayLog {
            events,
            active_ms: 61_500.0,
            wall_ms: 90_000.0,
            solved,
        }
    }

    #[test]
    fn a_log_replays_to_the_record_of_its_moves() {
        let (deal, path) = deal_and_solution(0);
        // Two moves, an undo, a redo (which counts as a move, as on the
        // desktop), a restart, a hint, the whole solution, a hint.
        let mut events = vec![mv(path[0]), mv(path[1]), PlayEvent::Undo, PlayEvent::Redo];
        events.push(PlayEvent::Restart);
        events.push(PlayEvent::Hint);
        events.extend(path.iter().map(|&m| mv(m)));
        events.push(PlayEvent::Hint);
        let record = replay(deal.clone(), &log(events.clone(), true)).unwrap();
        // Moves by hand: 2 played, 1 redone, then the solution's.
        assert_eq!(
            record,
            PlayRecord {
                solved: true,
                moves: 3 + path.len() as u32,
                undos: 1,
                restarts: 1,
                hints: 2,
                solution_shown: false,
                seconds: 61.5,
            }
        );
        // The desktop's session, played the same way, records the same.
        let mut s = Session::new(deal.clone());
        s.game.play(path[0]).unwrap();
        s.game.play(path[1]).unwrap();
        s.game.undo();
        s.game.redo();
        s.game.restart();
        s.hints += 1;
        for &m in &path {
            s.game.play(m).unwrap();
        }
        s.hints += 1;
        s.clock = PlayClock::stopped_at(Duration::from_millis(61_500));
        assert_eq!(s.record(Duration::from_secs(999)), record);

        // Not solved, the solution shown: the record says so.
        let part = vec![mv(path[0]), PlayEvent::Solution];
        let r = replay(deal, &log(part, false)).unwrap();
        assert_eq!((r.solved, r.moves, r.solution_shown), (false, 1, true));
    }

    #[test]
    fn each_impossible_log_is_refused_with_what_is_wrong() {
        let (deal, path) = deal_and_solution(0);
        let first = path[0];
        let bad = Move {
            from: first.from,
            to: first.from,
        };
        let err = replay(deal.clone(), &log(vec![mv(first), mv(bad)], false)).unwrap_err();
        assert!(
            matches!(err, PlayLogError::IllegalMove { event: 1, mv, .. } if mv == bad),
            "{err}"
        );
        assert!(
            err.to_string().starts_with("event 1: the move from cell"),
            "{err}"
        );
        let off_grid = Move { from: 200, to: 0 };
        assert!(matches!(
            replay(deal.clone(), &log(vec![mv(off_grid)], false)),
            Err(PlayLogError::IllegalMove { event: 0, .. })
        ));
        assert_eq!(
            replay(deal.clone(), &log(vec![PlayEvent::Undo], false)),
            Err(PlayLogError::NothingToUndo(0))
        );
        assert_eq!(
            replay(deal.clone(), &log(vec![mv(first), PlayEvent::Redo], false)),
            Err(PlayLogError::NothingToRedo(1))
        );
        // A solve claimed and not reached, and one reached and not claimed.
        let err = replay(deal.clone(), &log(vec![mv(first)], true)).unwrap_err();
        assert_eq!(err, PlayLogError::SolvedMismatch { claimed: true });
        assert!(err.to_string().contains("do not solve"), "{err}");
        let all: Vec<PlayEvent> = path.iter().map(|&m| mv(m)).collect();
        assert_eq!(
            replay(deal.clone(), &log(all, false)),
            Err(PlayLogError::SolvedMismatch { claimed: false })
        );
        // Times.
        for (active, wall, says) in [
            (-1.0, 10.0, "active_ms is -1"),
            (f64::NAN, 10.0, "active_ms is NaN"),
            (5.0, f64::INFINITY, "wall_ms is inf"),
            (5.0, MAX_MS + 1.0, "over the cap"),
            (20.0, 10.0, "longer than the wall time"),
        ] {
            let mut l = log(vec![], false);
            (l.active_ms, l.wall_ms) = (active, wall);
            let err = replay(deal.clone(), &l).unwrap_err();
            assert!(matches!(err, PlayLogError::BadTime(_)), "{err}");
            assert!(err.to_string().contains(says), "{err} lacks {says}");
        }
        // Too many events, refused before any replay.
        let many = log(vec![PlayEvent::Hint; MAX_EVENTS + 1], false);
        assert_eq!(
            replay(deal.clone(), &many),
            Err(PlayLogError::TooManyEvents(MAX_EVENTS + 1))
        );
        assert!(replay(deal, &log(vec![PlayEvent::Hint; MAX_EVENTS], false)).is_ok());
    }

    #[test]
    fn a_log_longer_than_its_hand_out_is_refused_and_long_times_are_clipped() {
        let (deal, _) = deal_and_solution(0);
        let times = |active_ms, wall_ms| PlayLog {
            active_ms,
            wall_ms,
            ..log(vec![], false)
        };
        // A minute of play claimed 10 s after the hand-out.
        let err = replay_handed(deal.clone(), &times(60_000.0, 60_000.0), 10_000.0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "impossible time: active_ms 60000 is more than the 10000 ms since the puzzle was handed out"
        );
        // Within the slack it is taken.
        let r = replay_handed(deal.clone(), &times(14_000.0, 14_000.0), 10_000.0).unwrap();
        assert_eq!(r.seconds, 14.0);
        // A tab left open two days: the wall time and the active time are
        // clipped to a day, and the rating goes in.
        let two_days = 2.0 * MAX_MS;
        let r = replay_handed(deal.clone(), &times(1.5 * MAX_MS, two_days), two_days).unwrap();
        assert_eq!(r.seconds, 86_400.0);
        // A wall time past the hand-out (the page's clock jumped) is clipped too.
        let r = replay_handed(deal.clone(), &times(2_000.0, two_days), 3_000.0).unwrap();
        assert_eq!(r.seconds, 2.0);
        // The server's clock stepped back since the hand-out: no hand-out
        // check, only the day's cap.
        let r = replay_handed(deal.clone(), &times(60_000.0, 90_000.0), -30_000.0).unwrap();
        assert_eq!(r.seconds, 60.0);
        let r = replay_handed(deal.clone(), &times(1.5 * MAX_MS, two_days), -1.0).unwrap();
        assert_eq!(r.seconds, 86_400.0);
        // What is no time at all is still refused.
        assert!(matches!(
            replay_handed(deal, &times(f64::NAN, 1.0), 3_000.0),
            Err(PlayLogError::BadTime(_))
        ));
    }

    #[test]
    fn the_log_reads_from_the_json_a_page_sends() {
        let text = r#"{"events":[{"kind":"move","from":3,"to":7},{"kind":"undo"},
            {"kind":"redo"},{"kind":"restart"},{"kind":"hint"},{"kind":"solution"}],
            "active_ms":1200.5,"wall_ms":3000,"solved":false}"#;
        let l: PlayLog = serde_json::from_str(text).unwrap();
        assert_eq!(l.events[0], PlayEvent::Move { from: 3, to: 7 });
        assert_eq!(l.events.len(), 6);
        assert_eq!(
            serde_json::from_str::<PlayLog>(&serde_json::to_string(&l).unwrap()).unwrap(),
            l
        );
        // A cell that is no cell, or a field the log has not, does not read.
        for wrong in [
            r#"{"events":[{"kind":"move","from":300,"to":7}],"active_ms":1,"wall_ms":1,"solved":false}"#,
            r#"{"events":[],"active_ms":1,"wall_ms":1,"solved":false,"moves":3}"#,
            r#"{"events":[{"kind":"teleport"}],"active_ms":1,"wall_ms":1,"solved":false}"#,
        ] {
            assert!(serde_json::from_str::<PlayLog>(wrong).is_err(), "{wrong}");
        }
    }
}
