//! Puzzle search: hill descent with random uphill steps over an energy (seed 001).
//!
//! Start from n random cards in random cells. Each step either swaps a random
//! unused card in for a random puzzle card (probability `swap_in`), or swaps a
//! random puzzle card's cell with another cell, empty or not. A step that does
//! not raise the energy is kept; a worse one is kept with probability
//! `uphill`, else undone. The best puzzle seen is the result.
//!
//! The search is seeded: the same seed and parameters give the same puzzle
//! and trace on any machine (the generator is `Xoshiro256PlusPlus`, a fixed
//! algorithm).

use crate::analysis::AnalysisOptions;
use crate::card::Card;
use crate::energy::Energy;
use crate::features::{Features, Need, features_for};
use crate::solver::{Limits, SearchError};
use crate::state::{Grid, MAX_CELLS, State};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use thiserror::Error;

/// Why a puzzle search did not finish.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum GenError {
    /// Bad parameters (n, grid or probabilities).
    #[error("{0}")]
    Invalid(String),
    /// The scoring search was cancelled or hit the memory cap.
    #[error(transparent)]
    Search(#[from] SearchError),
}

/// The paper's iteration budget for n cards: 2500 below 10, 800 for 10–12, 50 above.
pub fn paper_iterations(n: usize) -> usize {
    match n {
        0..=9 => 2500,
        10..=12 => 800,
        _ => 50,
    }
}

/// The knobs of one search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchParams {
    /// Steps to take.
    pub iterations: usize,
    /// Probability that a step swaps an unused card in (else it swaps cells).
    pub swap_in: f64,
    /// Probability of keeping a step that raises the energy.
    pub uphill: f64,
    /// Rows of the grid.
    pub rows: usize,
    /// Columns of the grid.
    pub cols: usize,
}

impl SearchParams {
    /// The paper's settings for n cards on a 4×4 grid.
    pub fn paper(n: usize) -> SearchParams {
        SearchParams {
            iterations: paper_iterations(n),
            swap_in: 0.3,
            uphill: 0.005,
            rows: 4,
            cols: 4,
        }
    }

    /// Checks the parameters against n cards.
    pub fn check(&self, n: usize) -> Result<Grid, String> {
        let grid = Grid::new(self.rows, self.cols).map_err(|e| e.to_string())?;
        if n == 0 || n > grid.cells() {
            return Err(format!(
                "n must be 1 to {} on a {}x{} grid, not {n}",
                grid.cells(),
                self.rows,
                self.cols
            ));
        }
        for (name, p) in [("swap-in", self.swap_in), ("uphill", self.uphill)] {
            if !(0.0..=1.0).contains(&p) {
                return Err(format!("the {name} probability must be in 0..1, not {p}"));
            }
        }
        Ok(grid)
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The best puzzle seen (the first of equal energy).
    pub best: State,
    /// Its energy.
    pub energy: f64,
    /// The energy of the current puzzle after each step (the start first).
    pub trace: Vec<f64>,
    /// Energies computed (steps whose puzzle was not met before).
    pub evaluations: usize,
}

/// A report after each step: step number, current and best energy.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct StepReport {
    /// Steps done.
    pub iteration: usize,
    /// The current puzzle's energy.
    pub current: f64,
    /// The best energy so far.
    pub best: f64,
}

/// Scores puzzles by one energy, computing only the features it reads and
/// remembering every puzzle it has scored (the search often comes back).
pub struct Scorer<'a> {
    energy: &'a Energy,
    need: Need,
    opts: AnalysisOptions,
    memo: HashMap<[u8; MAX_CELLS], f64>,
}

impl<'a> Scorer<'a> {
    /// A scorer for `energy` under these limits (the analysis runs on one thread).
    pub fn new(energy: &'a Energy, limits: Limits) -> Scorer<'a> {
        Scorer {
            energy,
            need: energy.need(),
            opts: AnalysisOptions {
                max_depth: None,
                threads: 1,
                limits,
                progress: None,
            },
            memo: HashMap::new(),
        }
    }

    /// The features the energy needs of a puzzle.
    pub fn features(&self, puzzle: &State) -> Result<Features, SearchError> {
        features_for(puzzle, self.need, &self.opts)
    }

    /// The energy of a puzzle, and whether it was computed now (not remembered).
    pub fn score(
        &mut self,
        cells: &[u8; MAX_CELLS],
        grid: Grid,
    ) -> Result<(f64, bool), SearchError> {
        if let Some(&e) = self.memo.get(cells) {
            return Ok((e, false));
        }
        let f = self.features(&to_state(cells, grid))?;
        let e = self.energy.eval(&f);
        self.memo.insert(*cells, e);
        Ok((e, true))
    }
}

/// Empty cell in the search's cell array.
const EMPTY: u8 = u8::MAX;

fn to_state(cells: &[u8; MAX_CELLS], grid: Grid) -> State {
    let tops: Vec<Option<Card>> = cells[..grid.cells()]
        .iter()
        .map(|&c| if c == EMPTY { None } else { Card::from_code(c) })
        .collect();
    State::new(grid, &tops).expect("the search keeps distinct cards in the grid")
}

/// Runs one hill descent for an n-card puzzle from `seed`. `report` hears
/// about every step; cancelling through `limits` stops it with
/// [`SearchError::Cancelled`].
pub fn hill_descent(
    n: usize,
    energy: &Energy,
    params: &SearchParams,
    seed: u64,
    limits: Limits,
    mut report: impl FnMut(StepReport),
) -> Result<Found, GenError> {
    let grid = params.check(n).map_err(GenError::Invalid)?;
    let cells_n = grid.cells();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let cancel = limits.cancel.clone();
    let mut scorer = Scorer::new(energy, limits);

    // A random start: n distinct cards (a partial shuffle of the deck) in
    // n distinct cells (a partial shuffle of the cells).
    let mut deck: Vec<u8> = (0..52).collect();
    for i in 0..n {
        let j = rng.random_range(i..52);
        deck.swap(i, j);
    }
    let mut places: Vec<usize> = (0..cells_n).collect();
    for i in 0..n {
        let j = rng.random_range(i..cells_n);
        places.swap(i, j);
    }
    let mut cells = [EMPTY; MAX_CELLS];
    for i in 0..n {
        cells[places[i]] = deck[i];
    }
    // `deck[n..]` are the unused cards.
    let (mut current, fresh) = scorer.score(&cells, grid)?;
    let mut evaluations = fresh as usize;
    let (mut best, mut best_energy) = (cells, current);
    let mut trace = Vec::with_capacity(params.iterations + 1);
    trace.push(current);
    for iteration in 1..=params.iterations {
        if cancel
            .as_ref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
        {
            return Err(SearchError::Cancelled.into());
        }
        let before = cells;
        let mut swapped_in = None;
        if n < 52 && rng.random_bool(params.swap_in) {
            // An unused card replaces a random puzzle card in its cell.
            let u = rng.random_range(n..52);
            let k = rng.random_range(0..n);
            let cell = occupied_nth(&cells, k);
            swapped_in = Some((u, cells[cell]));
            cells[cell] = deck[u];
        } else if cells_n > 1 {
            // A random puzzle card trades places with another cell.
            let k = rng.random_range(0..n);
            let a = occupied_nth(&cells, k);
            let mut b = rng.random_range(0..cells_n - 1);
            if b >= a {
                b += 1;
            }
            cells.swap(a, b);
        }
        let (e, fresh) = scorer.score(&cells, grid)?;
        evaluations += fresh as usize;
        if accepts(e, current, params.uphill, &mut rng) {
            current = e;
            if let Some((u, out)) = swapped_in {
                deck[u] = out;
            }
            if e < best_energy {
                best = cells;
                best_energy = e;
            }
        } else {
            cells = before;
        }
        trace.push(current);
        report(StepReport {
            iteration,
            current,
            best: best_energy,
        });
    }
    Ok(Found {
        best: to_state(&best, grid),
        energy: best_energy,
        trace,
        evaluations,
    })
}

/// The acceptance rule: a step to an equal or lower energy is kept; a step
/// up is kept with probability `uphill` (drawn only then).
pub fn accepts(new: f64, current: f64, uphill: f64, rng: &mut impl rand::Rng) -> bool {
    new <= current || rng.random_bool(uphill)
}

/// The cell of the k-th occupied cell in row-major order.
fn occupied_nth(cells: &[u8; MAX_CELLS], k: usize) -> usize {
    cells
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c != EMPTY)
        .nth(k)
        .map(|(i, _)| i)
        .expect("k is below the number of cards")
}
