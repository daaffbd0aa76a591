//! The rules: grids, states (stacks in cells), moves, score and the solved test.
//!
//! A state keeps the top card and the size of each stack. Solvability depends
//! only on the tops and their cells; sizes are kept for display and score.

use crate::engine::card::Card;
use serde::{Deserialize, Serialize};
use std::fmt;
use thiserror::Error;

/// Most cells a grid may have; puzzles use 4×4.
pub const MAX_CELLS: usize = 16;

/// An r×c grid of cells, numbered row-major from 0.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(try_from = "GridShape", into = "GridShape")]
pub struct Grid {
    rows: u8,
    cols: u8,
}

/// The serialized form of a grid, checked on the way in.
#[derive(Serialize, Deserialize)]
struct GridShape {
    rows: u8,
    cols: u8,
}

impl TryFrom<GridShape> for Grid {
    type Error = StateError;
    fn try_from(s: GridShape) -> Result<Grid, StateError> {
        Grid::new(s.rows as usize, s.cols as usize)
    }
}

impl From<Grid> for GridShape {
    fn from(g: Grid) -> GridShape {
        GridShape {
            rows: g.rows,
            cols: g.cols,
        }
    }
}

impl Grid {
    /// The 4×4 grid every research puzzle uses.
    pub const SQUARE4: Grid = Grid { rows: 4, cols: 4 };

    /// A grid of `rows`×`cols` cells; at least one cell and at most 16.
    pub fn new(rows: usize, cols: usize) -> Result<Grid, StateError> {
        if rows == 0 || cols == 0 || rows.checked_mul(cols).is_none_or(|n| n > MAX_CELLS) {
            return Err(StateError::BadGrid { rows, cols });
        }
        Ok(Grid {
            rows: rows as u8,
            cols: cols as u8,
        })
    }

    /// Number of rows.
    pub fn rows(self) -> usize {
        self.rows as usize
    }

    /// Number of columns.
    pub fn cols(self) -> usize {
        self.cols as usize
    }

    /// Number of cells, r·c.
    pub fn cells(self) -> usize {
        self.rows() * self.cols()
    }

    /// Row of a cell.
    pub fn row(self, cell: usize) -> usize {
        cell / self.cols()
    }

    /// Column of a cell.
    pub fn col(self, cell: usize) -> usize {
        cell % self.cols()
    }

    /// Whether two distinct cells share a row or a column.
    pub fn in_line(self, a: usize, b: usize) -> bool {
        a != b && (self.row(a) == self.row(b) || self.col(a) == self.col(b))
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}

/// A move of the stack in cell `from` onto the stack in cell `to`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Move {
    /// The cell whose stack moves (it becomes empty).
    pub from: u8,
    /// The cell whose stack is covered.
    pub to: u8,
}

/// Why a state could not be built or a move could not be made.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum StateError {
    /// The grid has no cells or more than 16.
    #[error("a {rows}x{cols} grid is not allowed: it needs 1 to 16 cells")]
    BadGrid {
        /// Rows asked for.
        rows: usize,
        /// Columns asked for.
        cols: usize,
    },
    /// The number of cells given does not match the grid.
    #[error("{found} cells given for a {grid} grid of {expected} cells")]
    WrongCellCount {
        /// The grid.
        grid: Grid,
        /// Its number of cells.
        expected: usize,
        /// Cells given.
        found: usize,
    },
    /// A card appears twice.
    #[error("card {0} appears twice")]
    DuplicateCard(Card),
    /// Stack sizes that add up to more than a deck.
    #[error("the stacks hold more than 52 cards")]
    TooManyCardsInStacks,
    /// A stack size of zero on a card, or a size given for an empty cell.
    #[error("cell {0} has a bad stack size")]
    BadSize(usize),
    /// The moving card is not the top of any stack.
    #[error("{0} is not the top of a stack")]
    NotATop(Card),
    /// A cell outside the grid.
    #[error("cell {0} is not on the grid")]
    NoSuchCell(usize),
    /// A move from or to an empty cell.
    #[error("cell {0} is empty")]
    EmptyCell(usize),
    /// The two stacks are in neither the same row nor the same column.
    #[error("{0} and {1} are not in the same row or column")]
    NotInLine(Card, Card),
    /// The tops share no suit and their ranks are not the same or adjacent.
    #[error("{0} does not flock with {1}: no shared suit, same or adjacent rank")]
    DoNotFlock(Card, Card),
}

/// A position: the top card and stack size of every cell of a grid.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct State {
    grid: Grid,
    tops: [Option<Card>; MAX_CELLS],
    sizes: [u8; MAX_CELLS],
}

impl State {
    /// A state with one-card stacks (a puzzle or deal), from the cells in row-major order.
    pub fn new(grid: Grid, cells: &[Option<Card>]) -> Result<State, StateError> {
        let sizes: Vec<u8> = cells.iter().map(|c| c.is_some() as u8).collect();
        State::with_sizes(grid, cells, &sizes)
    }

    /// A state with given stack sizes (0 for empty cells, at least 1 under a card).
    pub fn with_sizes(
        grid: Grid,
        cells: &[Option<Card>],
        sizes: &[u8],
    ) -> Result<State, StateError> {
        if cells.len() != grid.cells() || sizes.len() != grid.cells() {
            return Err(StateError::WrongCellCount {
                grid,
                expected: grid.cells(),
                found: cells.len(),
            });
        }
        if sizes.iter().map(|&s| s as usize).sum::<usize>() > 52 {
            return Err(StateError::TooManyCardsInStacks);
        }
        let mut seen = 0u64;
        let mut state = State {
            grid,
            tops: [None; MAX_CELLS],
            sizes: [0; MAX_CELLS],
        };
        for (i, (&card, &size)) in cells.iter().zip(sizes).enumerate() {
            if card.is_some() != (size > 0) {
                return Err(StateError::BadSize(i));
            }
            if let Some(card) = card {
                let bit = 1u64 << card.code();
                if seen & bit != 0 {
                    return Err(StateError::DuplicateCard(card));
                }
                seen |= bit;
            }
            state.tops[i] = card;
            state.sizes[i] = size;
        }
        Ok(state)
    }

    /// The grid.
    pub fn grid(&self) -> Grid {
        self.grid
    }

    /// The top card of a cell, `None` when empty.
    pub fn top(&self, cell: usize) -> Option<Card> {
        self.tops[cell]
    }

    /// The tops of all cells, row-major.
    pub fn tops(&self) -> &[Option<Card>] {
        &self.tops[..self.grid.cells()]
    }

    /// The stack size of a cell (0 when empty).
    pub fn size(&self, cell: usize) -> usize {
        self.sizes[cell] as usize
    }

    /// The occupied cells with their tops.
    pub fn stacks(&self) -> impl Iterator<Item = (usize, Card)> + '_ {
        self.tops()
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.map(|c| (i, c)))
    }

    /// Number of stacks (non-empty cells).
    pub fn stack_count(&self) -> usize {
        self.tops().iter().filter(|c| c.is_some()).count()
    }

    /// Number of cards in all stacks.
    pub fn card_count(&self) -> usize {
        self.sizes[..self.grid.cells()]
            .iter()
            .map(|&s| s as usize)
            .sum()
    }

    /// Moves made so far: cards minus stacks.
    pub fn depth(&self) -> usize {
        self.card_count() - self.stack_count()
    }

    /// Score: the sum of the squared stack sizes (seed 000).
    pub fn score(&self) -> usize {
        self.sizes[..self.grid.cells()]
            .iter()
            .map(|&s| (s as usize).pow(2))
            .sum()
    }

    /// Solved: at most one stack left.
    pub fn is_solved(&self) -> bool {
        self.stack_count() <= 1
    }

    /// The cell whose top is `card`, if it is a top.
    pub fn cell_of(&self, card: Card) -> Option<usize> {
        self.tops().iter().position(|&c| c == Some(card))
    }

    /// Checks a move without making it.
    pub fn check(&self, mv: Move) -> Result<(), StateError> {
        let (a, b) = (mv.from as usize, mv.to as usize);
        for cell in [a, b] {
            if cell >= self.grid.cells() {
                return Err(StateError::NoSuchCell(cell));
            }
            if self.tops[cell].is_none() {
                return Err(StateError::EmptyCell(cell));
            }
        }
        let (ca, cb) = (self.tops[a].unwrap(), self.tops[b].unwrap());
        if !self.grid.in_line(a, b) {
            return Err(StateError::NotInLine(ca, cb));
        }
        if !ca.flocks_with(cb) {
            return Err(StateError::DoNotFlock(ca, cb));
        }
        Ok(())
    }

    /// Whether a move is legal here.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.check(mv).is_ok()
    }

    /// The legal moves, ordered by (from, to).
    pub fn legal_moves(&self) -> Vec<Move> {
        let n = self.grid.cells();
        let mut moves = Vec::new();
        for a in 0..n {
            for b in 0..n {
                let mv = Move {
                    from: a as u8,
                    to: b as u8,
                };
                if self.tops[a].is_some() && self.tops[b].is_some() && self.is_legal(mv) {
                    moves.push(mv);
                }
            }
        }
        moves
    }

    /// The state after a legal move.
    pub fn apply(&self, mv: Move) -> Result<State, StateError> {
        self.check(mv)?;
        let (a, b) = (mv.from as usize, mv.to as usize);
        let mut next = self.clone();
        next.tops[b] = next.tops[a].take();
        next.sizes[b] += next.sizes[a];
        next.sizes[a] = 0;
        Ok(next)
    }

    /// The move named by its two tops, as in `JS-JC`.
    pub fn move_between(&self, moving: Card, target: Card) -> Result<Move, StateError> {
        let a = self.cell_of(moving).ok_or(StateError::NotATop(moving))?;
        let b = self.cell_of(target).ok_or(StateError::NotATop(target))?;
        let mv = Move {
            from: a as u8,
            to: b as u8,
        };
        self.check(mv)?;
        Ok(mv)
    }

    /// The move's name in research notation, `JS-JC`, read off this state.
    pub fn move_name(&self, mv: Move) -> String {
        let name = |cell: u8| {
            self.tops
                .get(cell as usize)
                .copied()
                .flatten()
                .map_or("--".to_string(), |c| c.to_string())
        };
        format!("{}-{}", name(mv.from), name(mv.to))
    }

    /// Plays a sequence of moves, failing on the first illegal one.
    pub fn replay(&self, moves: &[Move]) -> Result<State, (usize, StateError)> {
        let mut s = self.clone();
        for (i, &mv) in moves.iter().enumerate() {
            s = s.apply(mv).map_err(|e| (i, e))?;
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_sizes_are_checked_without_overflow() {
        assert!(Grid::new(4, 4).is_ok());
        assert!(Grid::new(1, 16).is_ok());
        assert!(Grid::new(0, 4).is_err());
        assert!(Grid::new(5, 4).is_err());
        // r·c overflows usize; it must be an error, not a wrap or a panic.
        assert!(Grid::new(usize::MAX / 2 + 1, 2).is_err());
        assert!(Grid::new(4_611_686_018_427_387_905, 4).is_err());
    }

    #[test]
    fn stacks_cannot_hold_more_than_a_deck() {
        let card = |c| Card::from_code(c);
        let cells = [card(0), card(1), None, None];
        let grid = Grid::new(2, 2).unwrap();
        assert_eq!(
            State::with_sizes(grid, &cells, &[40, 13, 0, 0]),
            Err(StateError::TooManyCardsInStacks)
        );
        let s = State::with_sizes(grid, &cells, &[40, 12, 0, 0]).unwrap();
        assert_eq!(s.apply(Move { from: 0, to: 1 }).unwrap().score(), 52 * 52);
    }
}
