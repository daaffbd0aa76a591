//! A game being played by a person: the moves made, undo and redo, and the
//! counts a rating records. Pure: the app draws it and feeds it clicks.

use crate::engine::state::{Move, State, StateError};

/// One play of one puzzle.
#[derive(Clone, Debug)]
pub struct Game {
    /// `states[0]` is the deal; `states[i]` follows the i-th move.
    states: Vec<State>,
    /// The moves played, one fewer than the states.
    played: Vec<Move>,
    /// Moves undone, most recent last, for redo.
    redo: Vec<Move>,
    /// Every move made, undone ones and redos included.
    moves: u32,
    /// Undos used (a restart counts each move it takes back).
    undos: u32,
    /// Whether the puzzle was solved at any point of this play.
    ever_solved: bool,
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
            redo: Vec::new(),
            moves: 0,
            undos: 0,
            ever_solved,
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
        if self.redo.last() == Some(&mv) {
            self.redo.pop();
        } else {
            self.redo.clear();
        }
        self.push(mv, next);
        Ok(())
    }

    fn push(&mut self, mv: Move, next: State) {
        self.ever_solved |= next.is_solved();
        self.states.push(next);
        self.played.push(mv);
        if self.counting {
            self.moves += 1;
        }
    }

    /// Takes back the last move; false if there is none.
    pub fn undo(&mut self) -> bool {
        match self.played.pop() {
            Some(mv) => {
                self.states.pop();
                self.redo.push(mv);
                if self.counting {
                    self.undos += 1;
                }
                true
            }
            None => false,
        }
    }

    /// Plays the last undone move again; false if there is none.
    pub fn redo(&mut self) -> bool {
        let Some(mv) = self.redo.pop() else {
            return false;
        };
        match self.state().apply(mv) {
            Ok(next) => {
                self.push(mv, next);
                true
            }
            Err(_) => false,
        }
    }

    /// Back to the deal; the moves taken back count as undos and can be redone.
    pub fn restart(&mut self) {
        while self.undo() {}
    }

    /// Stops (or restarts) counting moves and undos: a replayed solution is
    /// not the player's play.
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

    /// Moves made, undone ones included.
    pub fn moves(&self) -> u32 {
        self.moves
    }

    /// Undos used.
    pub fn undos(&self) -> u32 {
        self.undos
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::notation::parse_state;
    use crate::engine::solver::{Verdict, solve};

    #[test]
    fn undo_redo_and_counts() {
        let deal = parse_state("TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S", None).unwrap();
        let Verdict::Solvable(path) = solve(&deal).unwrap() else {
            panic!("deal 1 is solvable");
        };
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
        assert_eq!(g.undos(), 5);
        for &mv in &path {
            let from = mv.from as usize;
            assert!(g.targets(from).contains(&(mv.to as usize)));
            g.play(mv).unwrap();
        }
        assert!(g.is_solved() && g.ever_solved());
        assert_eq!(g.played(), &path[..]);
        // An illegal move changes nothing.
        let before = g.moves();
        assert!(g.play(path[0]).is_err());
        assert_eq!(g.moves(), before);
        // Moves made while not counting (a replay) leave the counts alone.
        g.set_counting(false);
        g.restart();
        g.play(path[0]).unwrap();
        assert_eq!((g.moves(), g.undos()), (before, 5));
    }
}
