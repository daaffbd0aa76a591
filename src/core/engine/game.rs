//! A game being played by a person: the moves made, undo and redo, and the
//! counts a rating records; and the clock of active play. Pure: the app draws
//! it, feeds it clicks and tells it the time.

use crate::engine::state::{Move, State, StateError};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One play of one puzzle.
#[derive(Clone, Debug)]
pub struct Game {
    /// `states[0]` is the deal; `states[i]` follows the i-th move.
    states: Vec<State>,
    /// The moves played, one fewer than the states.
    played: Vec<Move>,
    /// For each move played, whether the player made it (not a replay).
    by_player: Vec<bool>,
    /// Moves undone, most recent last, for redo, each with whether the
    /// player made it: redoing a replay's move is not the player's move.
    redo: Vec<(Move, bool)>,
    /// The player's moves, undone ones and redos included.
    moves: u32,
    /// The player's undos (a restart is counted as one restart instead).
    undos: u32,
    /// The player's restarts that took something back.
    restarts: u32,
    /// Whether the puzzle was solved at any point of this play.
    ever_solved: bool,
    /// Whether one of the player's own moves solved it (not a replay's).
    solved_by_player: bool,
    /// Whether moves and undos count (not while a solution is replayed).
    counting: bool,
}

impl Game {
    /// A new game from a deal.
    pub fn new(start: State) -> Game {
        let ever_solved = start.is_solved();
        Game {
            states: vec![start],
            played: Vec::new(),
            by_player: Vec::new(),
            redo: Vec::new(),
            moves: 0,
            undos: 0,
            restarts: 0,
            ever_solved,
            solved_by_player: false,
            counting: true,
        }
    }

    /// The position now.
    pub fn state(&self) -> &State {
        self.states.last().expect("a game always has its deal")
    }

    /// The deal.
    pub fn start(&self) -> &State {
        &self.states[0]
    }

    /// The moves from the deal to now.
    pub fn played(&self) -> &[Move] {
        &self.played
    }

    /// The cells the stack in `from` may move onto.
    pub fn targets(&self, from: usize) -> Vec<usize> {
        self.state()
            .legal_moves()
            .into_iter()
            .filter(|m| m.from as usize == from)
            .map(|m| m.to as usize)
            .collect()
    }

    /// Plays a move; a new move forgets the redo list.
    pub fn play(&mut self, mv: Move) -> Result<(), StateError> {
        let next = self.state().apply(mv)?;
        if self.redo.last().map(|r| r.0) == Some(mv) {
            self.redo.pop();
        } else {
            self.redo.clear();
        }
        self.push(mv, next, self.counting);
        Ok(())
    }

    /// Adds a move; it counts only when made by the player while counting.
    fn push(&mut self, mv: Move, next: State, by_player: bool) {
        let counts = by_player && self.counting;
        self.ever_solved |= next.is_solved();
        if counts {
            self.moves += 1;
            self.solved_by_player |= next.is_solved();
        }
        self.states.push(next);
        self.played.push(mv);
        self.by_player.push(counts);
    }

    /// Takes back the last move; false if there is none.
    pub fn undo(&mut self) -> bool {
        let taken = self.take_back();
        if taken && self.counting {
            self.undos += 1;
        }
        taken
    }

    fn take_back(&mut self) -> bool {
        match self.played.pop() {
            Some(mv) => {
                self.states.pop();
                let by_player = self.by_player.pop().unwrap_or(false);
                self.redo.push((mv, by_player));
                true
            }
            None => false,
        }
    }

    /// Plays the last undone move again; false if there is none.
    pub fn redo(&mut self) -> bool {
        let Some((mv, by_player)) = self.redo.pop() else {
            return false;
        };
        match self.state().apply(mv) {
            Ok(next) => {
                self.push(mv, next, by_player);
                true
            }
            Err(_) => false,
        }
    }

    /// Back to the deal; the moves taken back can be redone. It counts as
    /// one restart (when it took anything back), not as undos.
    pub fn restart(&mut self) {
        let mut any = false;
        while self.take_back() {
            any = true;
        }
        if any && self.counting {
            self.restarts += 1;
        }
    }

    /// Stops (or restarts) counting: while off, moves, undos and restarts
    /// are not counted and a solve is not the player's (a replayed solution
    /// is not the player's play), and a move made then stays uncounted when
    /// it is redone.
    pub fn set_counting(&mut self, on: bool) {
        self.counting = on;
    }

    /// Whether a move can be undone.
    pub fn can_undo(&self) -> bool {
        !self.played.is_empty()
    }

    /// Whether a move can be redone.
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Whether the position now is solved (one stack left).
    pub fn is_solved(&self) -> bool {
        self.state().is_solved()
    }

    /// Whether the puzzle was solved at some point of this play.
    pub fn ever_solved(&self) -> bool {
        self.ever_solved
    }

    /// Whether one of the player's own moves solved the puzzle (moves made
    /// while not counting, such as a replay's, do not).
    pub fn solved_by_player(&self) -> bool {
        self.solved_by_player
    }

    /// The player's moves, undone ones and redos included.
    pub fn moves(&self) -> u32 {
        self.moves
    }

    /// The player's undos.
    pub fn undos(&self) -> u32 {
        self.undos
    }

    /// The player's restarts.
    pub fn restarts(&self) -> u32 {
        self.restarts
    }
}

/// A game as it is kept while it waits to be resumed: everything but the
/// positions, which follow from the deal and the moves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedGame {
    /// The moves from the deal to now, each with whether the player made it.
    pub played: Vec<(Move, bool)>,
    /// The moves undone, most recent last, as the redo list has them.
    pub redo: Vec<(Move, bool)>,
    /// The player's moves.
    pub moves: u32,
    /// The player's undos.
    pub undos: u32,
    /// The player's restarts.
    pub restarts: u32,
    /// Whether the puzzle was solved at some point.
    pub ever_solved: bool,
    /// Whether the player's own move solved it.
    pub solved_by_player: bool,
}

impl Game {
    /// The game as kept to be resumed (counting is not kept: a game is
    /// saved between replays, never during one).
    pub fn save(&self) -> SavedGame {
        SavedGame {
            played: self
                .played
                .iter()
                .copied()
                .zip(self.by_player.iter().copied())
                .collect(),
            redo: self.redo.clone(),
            moves: self.moves,
            undos: self.undos,
            restarts: self.restarts,
            ever_solved: self.ever_solved,
            solved_by_player: self.solved_by_player,
        }
    }

    /// The saved game resumed from its deal: the same positions, undo and
    /// redo history and counts. Fails at the first move that is not legal
    /// there (a save of another deal), with its index.
    pub fn resume(deal: State, saved: &SavedGame) -> Result<Game, (usize, StateError)> {
        let mut game = Game::new(deal);
        for (i, &(mv, by_player)) in saved.played.iter().enumerate() {
            let next = game.state().apply(mv).map_err(|e| (i, e))?;
            game.states.push(next);
            game.played.push(mv);
            game.by_player.push(by_player);
        }
        game.redo = saved.redo.clone();
        game.moves = saved.moves;
        game.undos = saved.undos;
        game.restarts = saved.restarts;
        game.ever_solved = saved.ever_solved;
        game.solved_by_player = saved.solved_by_player;
        Ok(game)
    }
}

/// The clock of active play: it runs only while told the play is active
/// (the puzzle on screen, the window focused, not solved), so time spent
/// elsewhere is not counted. The caller gives the time, which keeps it
/// testable with any clock.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayClock {
    /// Time counted in earlier active spans.
    total: Duration,
    /// When the current active span began, if one is running.
    since: Option<Duration>,
}

impl PlayClock {
    /// A stopped clock that has counted `total` (a resumed play's time).
    pub fn stopped_at(total: Duration) -> PlayClock {
        PlayClock { total, since: None }
    }

    /// Says whether play is active at time `now`: starts or stops the clock.
    pub fn set_active(&mut self, active: bool, now: Duration) {
        match (self.since, active) {
            (None, true) => self.since = Some(now),
            (Some(start), false) => {
                self.total += now.saturating_sub(start);
                self.since = None;
            }
            _ => {}
        }
    }

    /// Whether the clock is running.
    pub fn is_running(&self) -> bool {
        self.since.is_some()
    }

    /// Active time up to `now`.
    pub fn elapsed(&self, now: Duration) -> Duration {
        self.total + self.since.map_or(Duration::ZERO, |s| now.saturating_sub(s))
    }
}

/// A numbered deal and a solution of it, for the tests of games and of
/// games in progress.
#[cfg(test)]
pub(crate) fn deal_and_solution(number: i32) -> (State, Vec<Move>) {
    let deal = crate::engine::deal::deal(number);
    match crate::engine::solver::solve(&deal) {
        Ok(crate::engine::solver::Verdict::Solvable(path)) => (deal, path),
        other => panic!("deal {number} is not solvable: {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undo_redo_and_counts() {
        let (deal, path) = deal_and_solution(0);
        let mut g = Game::new(deal.clone());
        for &mv in &path[..3] {
            g.play(mv).unwrap();
        }
        let after3 = g.state().clone();
        assert!(g.undo() && g.undo());
        assert_eq!(g.state(), &deal.replay(&path[..1]).unwrap());
        assert!(g.redo());
        assert!(g.redo());
        assert_eq!(g.state(), &after3);
        assert!(!g.redo());
        assert_eq!((g.moves(), g.undos()), (5, 2));
        g.restart();
        assert_eq!(g.state(), &deal);
        // A restart is one restart, not three undos; one at the deal is none.
        assert_eq!((g.undos(), g.restarts()), (2, 1));
        g.restart();
        assert_eq!(g.restarts(), 1);
        for &mv in &path {
            let from = mv.from as usize;
            assert!(g.targets(from).contains(&(mv.to as usize)));
            g.play(mv).unwrap();
        }
        assert!(g.is_solved() && g.ever_solved() && g.solved_by_player());
        assert_eq!(g.played(), &path[..]);
        // An illegal move changes nothing.
        let before = g.moves();
        assert!(g.play(path[0]).is_err());
        assert_eq!(g.moves(), before);
        // Moves made while not counting (a replay) leave the counts alone.
        g.set_counting(false);
        g.restart();
        g.play(path[0]).unwrap();
        assert_eq!((g.moves(), g.undos(), g.restarts()), (before, 2, 1));
    }

    #[test]
    fn a_replay_solve_is_not_the_players() {
        let (deal, path) = deal_and_solution(0);
        let mut g = Game::new(deal);
        g.play(path[0]).unwrap();
        g.set_counting(false);
        for &mv in &path[1..] {
            g.play(mv).unwrap();
        }
        g.set_counting(true);
        assert!(g.ever_solved() && !g.solved_by_player());
        assert_eq!(g.moves(), 1);
        // Taking the replay back with a restart is one restart, no undos.
        g.restart();
        assert_eq!((g.undos(), g.restarts()), (0, 1));
        // Redoing the replay's moves is not the player's solve.
        while g.redo() {}
        assert!(g.is_solved() && !g.solved_by_player());
        assert_eq!(g.moves(), 1 + 1);
        g.restart();
        // Solving it afterwards with the player's own moves counts.
        for &mv in &path {
            g.play(mv).unwrap();
        }
        assert!(g.solved_by_player());
        assert_eq!(g.moves(), 2 + path.len() as u32);
    }

    #[test]
    fn a_saved_game_resumes_exactly() {
        let (deal, path) = deal_and_solution(0);
        let mut g = Game::new(deal.clone());
        for &mv in &path[..4] {
            g.play(mv).unwrap();
        }
        g.undo();
        g.set_counting(false);
        g.play(path[3]).unwrap();
        g.set_counting(true);
        g.undo();
        g.undo();
        let saved = g.save();
        let text = serde_json::to_string(&saved).unwrap();
        let back: SavedGame = serde_json::from_str(&text).unwrap();
        assert_eq!(back, saved);
        let mut r = Game::resume(deal.clone(), &back).unwrap();
        assert_eq!(r.save(), saved);
        assert_eq!(r.state(), g.state());
        assert_eq!(r.played(), g.played());
        // The same history: redo and undo go the same way in both.
        while g.redo() {
            assert!(r.redo());
            assert_eq!(r.state(), g.state());
        }
        assert!(!r.redo());
        g.restart();
        r.restart();
        assert_eq!(r.save(), g.save());
        // A save of another deal does not resume on this one: its first
        // move leaves from a cell emptied here.
        let mut one = Game::new(deal.clone());
        one.play(path[0]).unwrap();
        let moved = deal.apply(path[0]).unwrap();
        assert_eq!(Game::resume(moved, &one.save()).unwrap_err().0, 0);
    }

    #[test]
    fn the_play_clock_counts_only_active_spans() {
        let s = Duration::from_secs;
        let mut c = PlayClock::default();
        assert_eq!(c.elapsed(s(5)), Duration::ZERO);
        c.set_active(true, s(10));
        assert_eq!(c.elapsed(s(13)), s(3));
        // Told again that it is active: the span goes on from 10.
        c.set_active(true, s(14));
        c.set_active(false, s(16));
        assert!(!c.is_running());
        // Away for 100 s: nothing counted.
        assert_eq!(c.elapsed(s(116)), s(6));
        c.set_active(true, s(116));
        c.set_active(false, s(120));
        assert_eq!(c.elapsed(s(500)), s(10));
    }
}
