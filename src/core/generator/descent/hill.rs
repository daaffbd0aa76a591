//! The hill descent itself: a [`Descent`] takes one seeded step at a time
//! (restarts, the warm-up and the extended budget included), then
//! [`Descent::finish`] confirms the leaders and gives what it [`Found`].

use super::params::{GenError, HalfwayMode, SearchParams};
use super::progress::{LayerHook, Phase, StepReport, layer_progress};
use super::scorer::{EMPTY, Judged, Score, Scorer, to_state};
use crate::engine::features::Features;
use crate::engine::limits::{Cancel, Limits};
use crate::engine::state::{Grid, MAX_CELLS, State};
use crate::generator::energy::Energy;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The best puzzle seen (the first of equal energy).
    pub best: State,
    /// Its energy.
    pub energy: f64,
    /// The energy of the current puzzle after each step (the start first).
    /// Longer than the budget when the budget ended before any solvable
    /// puzzle was met: the search then goes on until it meets one.
    pub trace: Vec<f64>,
    /// Energies computed (steps whose puzzle was not met before).
    pub evaluations: usize,
    /// Steps undone on their halfway ratio's numerator alone, without an
    /// exact energy (see [`SearchParams::screen`]).
    pub screened: usize,
    /// The best puzzle's exact features, when the confirmation computed them all.
    pub features: Option<Features>,
}

/// Runs one hill descent for an n-card puzzle from `seed`. `report` hears
/// about every step, and about the start of each exact analysis of the
/// confirmation; cancelling through `limits` stops it with
/// [`crate::engine::limits::SearchError::Cancelled`].
pub fn hill_descent(
    n: usize,
    energy: &Energy,
    params: &SearchParams,
    seed: u64,
    limits: Limits,
    report: impl FnMut(StepReport),
) -> Result<Found, GenError> {
    Descent::new(n, energy, params, seed, limits)?.run(report)
}

/// One hill descent under way, a step at a time: [`Descent::step`] until
/// it says the descent is over, then [`Descent::finish`] (or all of it at
/// once: [`Descent::run`]).
pub struct Descent<'a> {
    n: usize,
    grid: Grid,
    params: &'a SearchParams,
    rng: Xoshiro256PlusPlus,
    cancel: Cancel,
    scorer: Scorer<'a>,
    /// Hears the layers of the confirmation's exact analyses.
    layers: Option<LayerHook>,
    /// Whether the few best puzzles by estimate are analysed exactly at the end.
    confirming: bool,
    /// The best few distinct puzzles by estimate, for the exact confirmation.
    leaders: Vec<(f64, [u8; MAX_CELLS])>,
    /// Steps of each descent from a fresh start, when the budget is shared
    /// among the restarts.
    steps_per_start: usize,
    /// Whether each start is scored by estimate first (see [`SearchParams::warmup`]).
    warms: bool,
    /// The step the current warm-up ends at, if one is on.
    warm: Option<usize>,
    /// The current puzzle; `deck[n..]` are the unused cards.
    cells: [u8; MAX_CELLS],
    deck: Vec<u8>,
    /// The current puzzle's estimated halfway ratio, during a warm-up.
    estimate: Option<f64>,
    current: Score,
    evaluations: usize,
    screened: usize,
    /// Whether `best` was scored exactly (not during a warm-up).
    best_exact: bool,
    best: [u8; MAX_CELLS],
    best_score: Score,
    trace: Vec<f64>,
    /// The steps after which a search that has met no solvable puzzle
    /// gives up (the budget is extended until it meets one).
    give_up_after: usize,
    /// Steps taken.
    step: usize,
}

impl<'a> Descent<'a> {
    /// A descent for an n-card puzzle from `seed`, at its random start
    /// (scored already); cancelling through `limits` stops it with
    /// [`crate::engine::limits::SearchError::Cancelled`].
    pub fn new(
        n: usize,
        energy: &'a Energy,
        params: &'a SearchParams,
        seed: u64,
        limits: Limits,
    ) -> Result<Descent<'a>, GenError> {
        let grid = params.check(n).map_err(GenError::Invalid)?;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let cancel = limits.cancel.clone();
        let mut scorer = Scorer::new(energy, limits, params.halfway_mode, params.samples)
            .screening(params.screen);
        let confirming = params.halfway_mode == HalfwayMode::Confirm && scorer.reads_halfway();
        let steps_per_start = (params.iterations / params.restarts.saturating_add(1)).max(1);
        let warms = params.warmup > 0.0
            && params.halfway_mode == HalfwayMode::Exact
            && scorer.reads_halfway();
        let warm = warm_until(warms, steps_per_start, 0);
        let (cells, deck) = random_cells(n, grid.cells(), &mut rng);
        let mut estimate = None;
        let start = if warm.is_some() {
            let (score, ratio) = scorer.estimated(&cells, grid)?;
            estimate = ratio;
            score
        } else {
            scorer.score(&cells, grid)?
        };
        let mut trace = Vec::with_capacity(params.iterations.min(1 << 16) + 1);
        trace.push(start.energy);
        let mut descent = Descent {
            n,
            grid,
            params,
            rng,
            cancel,
            scorer,
            layers: None,
            confirming,
            leaders: Vec::new(),
            steps_per_start,
            warms,
            warm,
            cells,
            deck,
            estimate,
            current: start,
            evaluations: 1,
            screened: 0,
            best_exact: warm.is_none(),
            best: cells,
            best_score: start,
            trace,
            give_up_after: params
                .iterations
                .saturating_add(params.iterations.max(100).saturating_mul(100)),
            step: 0,
        };
        descent.note(start, &cells);
        Ok(descent)
    }

    /// The same descent, with `layers` told about each layer of the
    /// confirmation's exact analyses.
    pub fn with_layers(self, layers: Option<LayerHook>) -> Descent<'a> {
        Descent { layers, ..self }
    }

    /// Notes a freshly scored puzzle among the leaders for the confirmation.
    fn note(&mut self, score: Score, cells: &[u8; MAX_CELLS]) {
        if self.confirming && score.solvable && !self.leaders.iter().any(|l| l.1 == *cells) {
            self.leaders.push((score.energy, *cells));
            // Stable: among equal energies the earlier puzzle stays ahead.
            self.leaders.sort_by(|a, b| a.0.total_cmp(&b.0));
            self.leaders.truncate(self.params.confirm.max(1));
        }
    }

    /// Takes the next step and says where the descent is, or `None` once the
    /// budget is spent and a solvable puzzle was met (or the search gave up
    /// meeting one; [`Descent::finish`] then says so).
    pub fn step(&mut self) -> Result<Option<StepReport>, GenError> {
        let iteration = self.step + 1;
        let params = self.params;
        if iteration > params.iterations
            && (self.best_score.solvable || iteration > self.give_up_after)
        {
            return Ok(None);
        }
        self.step = iteration;
        self.cancel.check()?;
        let grid = self.grid;
        if let Some(until) = self.warm
            && (iteration > until || self.estimate.is_some_and(|r| r < params.warmup))
        {
            // The warm-up is over: the current puzzle's exact score.
            self.warm = None;
            self.current = self.scorer.score(&self.cells, grid)?;
            self.evaluations += self.current.fresh as usize;
            if !self.best_exact || self.current.beats(&self.best_score) {
                (self.best, self.best_score, self.best_exact) = (self.cells, self.current, true);
            }
        }
        let restart = params.restarts > 0
            && iteration > 1
            && (iteration - 1).is_multiple_of(self.steps_per_start)
            && (iteration - 1) / self.steps_per_start <= params.restarts;
        // The uphill coin first: a step it keeps needs its exact energy,
        // any other only whether it is worse (see `SearchParams::screen`).
        let keep_anyway = restart || uphill_coin(params.uphill, &mut self.rng);
        let before = self.cells;
        let swapped_in = self.move_cards(restart, iteration);
        let mut step_estimate = None;
        let judged = if self.warm.is_some() {
            let (score, ratio) = self.scorer.estimated(&self.cells, grid)?;
            step_estimate = ratio;
            Judged::Scored(score)
        } else {
            let bar = (!keep_anyway).then_some(self.current);
            self.scorer.judge(&self.cells, grid, bar)?
        };
        let score = match judged {
            Judged::Scored(score) => Some(score),
            Judged::Screened => {
                self.screened += 1;
                None
            }
        };
        if let Some(score) = score.filter(|s| s.fresh) {
            self.evaluations += 1;
            let cells = self.cells;
            self.note(score, &cells);
        }
        // Compared as the best is: solvable first, then energy. (E4 can
        // score a solvable puzzle above the unsolvable penalty.)
        if let Some(score) = score.filter(|s| accepts(s.key(), self.current.key(), keep_anyway)) {
            self.current = score;
            self.estimate = step_estimate;
            if let Some((u, out)) = swapped_in {
                self.deck[u] = out;
            }
            if self.warm.is_none() && score.beats(&self.best_score) {
                self.best = self.cells;
                self.best_score = score;
            }
        } else {
            self.cells = before;
        }
        self.trace.push(self.current.energy);
        Ok(Some(StepReport {
            phase: Phase::Descent {
                step: iteration,
                of: params.iterations,
            },
            current: self.current.energy,
            best: self.best_score.energy,
        }))
    }

    /// Moves the cards for step `iteration`: a fresh start, an unused card
    /// swapped in, or a card moved to another cell. Returns the unused
    /// card's place in the deck and the card it replaced, for a swap in
    /// (the deck changes only if the step is kept).
    fn move_cards(&mut self, restart: bool, iteration: usize) -> Option<(usize, u8)> {
        let (n, cells_n, rng) = (self.n, self.grid.cells(), &mut self.rng);
        if restart {
            // A fresh start takes this step, with a warm-up of its own.
            (self.cells, self.deck) = random_cells(n, cells_n, rng);
            self.warm = warm_until(self.warms, self.steps_per_start, iteration);
        } else if n < 52 && rng.random_bool(self.params.swap_in) {
            // An unused card replaces a random puzzle card in its cell.
            let u = rng.random_range(n..52);
            let k = rng.random_range(0..n);
            let cell = occupied_nth(&self.cells, k);
            let out = self.cells[cell];
            self.cells[cell] = self.deck[u];
            return Some((u, out));
        } else if cells_n > 1 {
            // A random puzzle card trades places with another cell.
            let k = rng.random_range(0..n);
            let a = occupied_nth(&self.cells, k);
            let mut b = rng.random_range(0..cells_n - 1);
            if b >= a {
                b += 1;
            }
            self.cells.swap(a, b);
        }
        None
    }

    /// Ends the descent: with [`HalfwayMode::Confirm`], the exact analysis
    /// of the leaders (`report` hears each start), the least of which is
    /// the result; else the best puzzle met.
    pub fn finish(self, mut report: impl FnMut(StepReport)) -> Result<Found, GenError> {
        if !self.best_score.solvable {
            return Err(GenError::NoSolvable { steps: self.step });
        }
        let (mut best, mut best_energy) = (self.best, self.best_score.energy);
        let mut features = None;
        if self.confirming {
            // The exact energy of each leader; the least wins (the earlier on ties).
            let mut exact_best: Option<(f64, [u8; MAX_CELLS], Features)> = None;
            for (i, (_, cells)) in self.leaders.iter().enumerate() {
                let told = StepReport {
                    phase: Phase::Confirm {
                        k: i + 1,
                        of: self.leaders.len(),
                        layers: None,
                    },
                    current: self.current.energy,
                    best: self.best_score.energy,
                };
                report(told);
                let progress = self.layers.clone().map(|hook| layer_progress(hook, told));
                let (f, e) = self.scorer.exact(&to_state(cells, self.grid), progress)?;
                if exact_best.as_ref().is_none_or(|b| e < b.0) {
                    exact_best = Some((e, *cells, f));
                }
            }
            if let Some((e, cells, f)) = exact_best {
                best = cells;
                best_energy = e;
                // Halfway features come from the full analysis: all of them.
                features = Some(f);
            }
        }
        Ok(Found {
            best: to_state(&best, self.grid),
            energy: best_energy,
            trace: self.trace,
            evaluations: self.evaluations,
            screened: self.screened,
            features,
        })
    }

    /// Every step, then [`Descent::finish`]; `report` hears each step and
    /// the start of each exact analysis of the confirmation.
    pub fn run(mut self, mut report: impl FnMut(StepReport)) -> Result<Found, GenError> {
        while let Some(step) = self.step()? {
            report(step);
        }
        self.finish(report)
    }
}

/// The step a warm-up from step `from` ends at (a quarter of the descent's
/// steps on; earlier if its estimated ratio falls below
/// [`SearchParams::warmup`]), if the descent `warms` up at all.
fn warm_until(warms: bool, steps_per_start: usize, from: usize) -> Option<usize> {
    warms
        .then_some(from + steps_per_start / 4)
        .filter(|&u| u > from)
}

/// A random puzzle: n distinct cards in n distinct cells of the grid (the
/// search's starting point, and the benchmarks' test puzzles).
pub fn random_puzzle(n: usize, grid: Grid, rng: &mut impl rand::Rng) -> State {
    let (cells, _) = random_cells(n, grid.cells(), rng);
    to_state(&cells, grid)
}

/// n random cards in random cells, and the deck with the unused cards after the first n.
pub(super) fn random_cells(
    n: usize,
    cells_n: usize,
    rng: &mut impl rand::Rng,
) -> ([u8; MAX_CELLS], Vec<u8>) {
    // Partial shuffles of the deck and of the cells.
    let n = n.min(cells_n);
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
    (cells, deck)
}

/// The acceptance rule: a step to an equal or lower score is kept; a step
/// up only when the uphill coin said to keep it anyway. The search compares
/// (unsolvable, energy) pairs, so any solvable puzzle is lower than any
/// unsolvable one.
pub fn accepts<K: PartialOrd>(new: K, current: K, keep_anyway: bool) -> bool {
    keep_anyway || new <= current
}

/// The uphill coin, drawn before every step: whether to keep it even if it
/// is worse (probability `uphill`).
pub fn uphill_coin(uphill: f64, rng: &mut impl rand::Rng) -> bool {
    rng.random_bool(uphill)
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
