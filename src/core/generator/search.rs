//! Puzzle search: hill descent with random uphill steps over an energy (seed 001).
//!
//! Start from n random cards in random cells. Each step either swaps a random
//! unused card in for a random puzzle card (probability `swap_in`), or swaps a
//! random puzzle card's cell with another cell, empty or not. A step that does
//! not raise the energy is kept (unless screened out, see below); a worse one
//! is kept with probability `uphill`, else undone. The best puzzle seen is the result; a solvable
//! puzzle always beats an unsolvable one, and a budget that ends before any
//! solvable puzzle was met (a few cards, a few steps) is extended until one is.
//!
//! The search is seeded: the same seed and parameters give the same puzzle
//! and trace on any machine (the generator is `Xoshiro256PlusPlus`, a fixed
//! algorithm).
//!
//! With the exact halfway ratio at 16 cards a full score costs tens of
//! milliseconds to seconds, so boaf's defaults ([`SearchParams::for_cards`])
//! add two things to the paper's rule: a step that is not kept anyway is
//! first judged on the ratio's numerator ([`SearchParams::screen`]), and
//! each descent starts scored by the estimate ([`SearchParams::warmup`]).
//! Every energy the search keeps is exact.

use crate::agents::difficulty::add_difficulty;
use crate::engine::analysis::{AnalysisOptions, Depth, Progress, ProgressHook};
use crate::engine::card::Card;
use crate::engine::estimate::{EstimateOptions, estimate_halfway};
use crate::engine::feature::{Feature, FeatureSet};
use crate::engine::features::{Features, HalfwayParts, features_for};
use crate::engine::halfway::WalkLists;
use crate::engine::limits::{Limits, SearchError};
use crate::engine::state::{Grid, MAX_CELLS, State};
use crate::generator::energy::Energy;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;
use thiserror::Error;

/// Why a puzzle search did not finish.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum GenError {
    /// Bad parameters (n, grid or probabilities).
    #[error("{0}")]
    Invalid(String),
    /// No solvable puzzle was met in this many steps.
    #[error("no solvable puzzle met in {steps} steps")]
    NoSolvable {
        /// Steps taken.
        steps: usize,
    },
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

/// boaf's step budget for n cards: the paper's up to 12 cards, where an
/// exact step costs milliseconds, and 1000 above (the paper's 50 was set by
/// a slow energy; `boaf bench search` measured the trade: a batch of four
/// 16-card puzzles in about a minute on 2 cores, see the README).
pub fn default_iterations(n: usize) -> usize {
    match n {
        0..=12 => paper_iterations(n),
        _ => 1000,
    }
}

/// The most steps a search may be asked for (its trace is kept in memory
/// and stored with the puzzle).
pub const MAX_ITERATIONS: usize = 10_000_000;

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
    /// How the search knows the halfway ratio and midgame tension.
    #[serde(default, rename = "halfway")]
    pub halfway_mode: HalfwayMode,
    /// Walks per estimate (see [`crate::engine::estimate`]).
    #[serde(default = "default_samples")]
    pub samples: usize,
    /// With [`HalfwayMode::Confirm`]: how many of the best distinct puzzles
    /// by estimate are analysed exactly at the end.
    #[serde(default = "default_confirm")]
    pub confirm: usize,
    /// With [`HalfwayMode::Exact`], for an energy that rises with the
    /// halfway ratio: a step is first judged with its ratio's numerator
    /// over this many times the current puzzle's denominator. If even that
    /// makes it worse, it is undone without counting its states (the
    /// costliest part). 0 counts every step.
    #[serde(default)]
    pub screen: f64,
    /// Fresh random starts after the first: the steps are shared out among
    /// restarts + 1 descents, and the best puzzle of all is the result.
    #[serde(default)]
    pub restarts: usize,
    /// With [`HalfwayMode::Exact`]: each descent starts scored by the
    /// halfway estimate, which is cheap on the random puzzles it starts
    /// from, until the current puzzle's estimated ratio falls below this
    /// (or a quarter of the descent's steps are taken); then every step is
    /// exact. The trace holds estimates until then, and only exact puzzles
    /// can be the best. 0: exact from the start.
    #[serde(default)]
    pub warmup: f64,
    /// Whether each finished puzzle also gets the difficulty features (the
    /// agents play it; about a second at most on the 16-card puzzles
    /// measured). They are computed at every step anyway when the energy
    /// reads them.
    #[serde(default)]
    pub difficulty: bool,
}

fn default_samples() -> usize {
    EstimateOptions::default().samples
}

fn default_confirm() -> usize {
    3
}

/// The default [`SearchParams::screen`].
pub const DEFAULT_SCREEN: f64 = 4.0;

/// The default [`SearchParams::warmup`] from 15 cards, where an exact step
/// on a random puzzle costs more than an estimate (`boaf bench estimate`,
/// 2026-11-25: medians 0.09 s and 0.51 s at 15 and 16 cards, against 0.02
/// s; at 14 cards 0.016 s against 0.011 s).
pub const DEFAULT_WARMUP: f64 = 1e-3;

/// How the search gets the halfway ratio and the midgame tension.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HalfwayMode {
    /// The exact analysis at every step.
    #[default]
    Exact,
    /// The sampling estimate at every step; the result is scored by estimate.
    Estimate,
    /// The estimate at every step, then the exact analysis of the few best
    /// puzzles, the best of which by exact energy is the result.
    Confirm,
}

impl HalfwayMode {
    /// Every mode, in the order the front ends list them.
    pub const ALL: [HalfwayMode; 3] = [
        HalfwayMode::Exact,
        HalfwayMode::Estimate,
        HalfwayMode::Confirm,
    ];

    /// The mode's name, as the command line and the stores spell it.
    pub fn name(self) -> &'static str {
        match self {
            HalfwayMode::Exact => "exact",
            HalfwayMode::Estimate => "estimate",
            HalfwayMode::Confirm => "confirm",
        }
    }

    /// The default for n cards: exact. The fast exact counts take
    /// milliseconds up to 12 cards and, with screened steps, a few tens of
    /// milliseconds a step at 16 for the puzzles the search meets.
    pub fn for_cards(_n: usize) -> HalfwayMode {
        HalfwayMode::Exact
    }
}

impl std::fmt::Display for HalfwayMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for HalfwayMode {
    type Err = String;
    fn from_str(s: &str) -> Result<HalfwayMode, String> {
        HalfwayMode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("'{s}' is not a halfway mode (exact, estimate or confirm)"))
    }
}

impl SearchParams {
    /// The paper's settings for n cards on a 4×4 grid (with the exact
    /// halfway ratio at every step, which the paper computed too).
    pub fn paper(n: usize) -> SearchParams {
        SearchParams {
            iterations: paper_iterations(n),
            swap_in: 0.3,
            uphill: 0.005,
            rows: 4,
            cols: 4,
            halfway_mode: HalfwayMode::for_cards(n),
            samples: default_samples(),
            confirm: default_confirm(),
            // The paper's rule: every step scored in full.
            screen: 0.0,
            restarts: 0,
            warmup: 0.0,
            difficulty: false,
        }
    }

    /// boaf's defaults for n cards: the exact halfway ratio at every step,
    /// steps screened, and more steps than the paper above 12 cards (see
    /// [`default_iterations`]).
    pub fn for_cards(n: usize) -> SearchParams {
        SearchParams {
            iterations: default_iterations(n),
            screen: DEFAULT_SCREEN,
            warmup: if n >= 15 { DEFAULT_WARMUP } else { 0.0 },
            difficulty: true,
            ..SearchParams::paper(n)
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
        if self.iterations > MAX_ITERATIONS {
            return Err(format!(
                "at most {MAX_ITERATIONS} steps a puzzle, not {}",
                self.iterations
            ));
        }
        for (name, p) in [("swap-in", self.swap_in), ("uphill", self.uphill)] {
            if !(0.0..=1.0).contains(&p) {
                return Err(format!("the {name} probability must be in 0..1, not {p}"));
            }
        }
        if self.restarts > 0 && self.restarts >= self.iterations {
            return Err(format!(
                "{} restarts need more steps than that, not {}",
                self.restarts, self.iterations
            ));
        }
        if !(0.0..1.0).contains(&self.warmup) {
            return Err(format!(
                "the warm-up ratio must be in 0..1, not {}",
                self.warmup
            ));
        }
        if !(self.screen == 0.0 || self.screen >= 1.0) || !self.screen.is_finite() {
            return Err(format!(
                "the screen must be 0 (off) or at least 1, not {}",
                self.screen
            ));
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

/// Layers of an exact analysis finished so far (forward and backward passes
/// both count; see [`crate::engine::analysis::Progress`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Layers {
    /// Layers finished.
    pub done: usize,
    /// Layers in all.
    pub of: usize,
}

/// What the making of a puzzle is doing: the hill descent, then the exact
/// analyses that settle it. At 16 cards the analyses take seconds each, so
/// the front ends say which one runs rather than sit at the last step.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The hill descent: `step` steps of `of` done (more than `of` while no
    /// solvable puzzle has been met: the budget is then extended).
    Descent {
        /// Steps done.
        step: usize,
        /// Steps in the budget.
        of: usize,
    },
    /// The exact analysis of the `k`-th (from 1) of the `of` best puzzles by
    /// estimate ([`HalfwayMode::Confirm`]).
    Confirm {
        /// Which analysis, from 1.
        k: usize,
        /// Analyses in all.
        of: usize,
        /// Its layers so far, once it has finished one.
        layers: Option<Layers>,
    },
    /// The exact features of the best puzzle, when the search did not
    /// compute them all.
    Features {
        /// The analysis's layers so far, once it has finished one.
        layers: Option<Layers>,
    },
}

impl Phase {
    /// How far along the phase is, as (done, of), for a progress bar: the
    /// steps of the descent, the layers of an analysis.
    pub fn done_of(&self) -> (usize, usize) {
        match *self {
            Phase::Descent { step, of } => (step.min(of), of),
            Phase::Confirm {
                layers: Some(l), ..
            }
            | Phase::Features { layers: Some(l) } => (l.done.min(l.of), l.of),
            Phase::Confirm { layers: None, .. } | Phase::Features { layers: None } => (0, 1),
        }
    }

    /// Whether `other` is the same stage (the descent, or the same
    /// analysis), however far along either is.
    pub fn same_stage(&self, other: &Phase) -> bool {
        match (self, other) {
            (Phase::Descent { .. }, Phase::Descent { .. }) => true,
            (Phase::Confirm { k: a, .. }, Phase::Confirm { k: b, .. }) => a == b,
            (Phase::Features { .. }, Phase::Features { .. }) => true,
            _ => false,
        }
    }

    /// The same phase with these layers done.
    pub fn with_layers(self, layers: Layers) -> Phase {
        match self {
            Phase::Confirm { k, of, .. } => Phase::Confirm {
                k,
                of,
                layers: Some(layers),
            },
            Phase::Features { .. } => Phase::Features {
                layers: Some(layers),
            },
            descent => descent,
        }
    }
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let layers = match *self {
            Phase::Descent { step, of } if step <= of => {
                return write!(f, "descent step {step} of {of}");
            }
            Phase::Descent { step, of } => {
                return write!(
                    f,
                    "descent step {step} (past {of}: no solvable puzzle met yet)"
                );
            }
            Phase::Confirm { k, of, layers } => {
                write!(f, "exact analysis {k} of {of}")?;
                layers
            }
            Phase::Features { layers } => {
                f.write_str("exact features")?;
                layers
            }
        };
        match layers {
            Some(l) => write!(f, ", step {} of {}", l.done, l.of),
            None => Ok(()),
        }
    }
}

/// A report on a search: what it is doing, and the current and best energy
/// (those of the descent, once it is over).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct StepReport {
    /// What it is doing.
    pub phase: Phase,
    /// The current puzzle's energy.
    pub current: f64,
    /// The best energy so far.
    pub best: f64,
}

/// Hears the layers of a search's long exact analyses as they finish (from
/// the thread running the search; the analysis needs a hook it can keep).
pub type LayerHook = Arc<dyn Fn(StepReport) + Send + Sync>;

/// Scores puzzles by one energy, computing only the features it reads and
/// remembering every puzzle it has scored (the search often comes back).
pub struct Scorer<'a> {
    energy: &'a Energy,
    /// What the energy reads, which is all that is computed.
    reads: FeatureSet,
    /// How the halfway features are known when the energy reads them.
    mode: HalfwayMode,
    /// [`SearchParams::screen`] where it applies, else 0.
    screen: f64,
    estimate: EstimateOptions,
    opts: AnalysisOptions,
    memo: HashMap<[u8; MAX_CELLS], Known>,
    /// The halfway walk back's lists, kept from step to step.
    walk_lists: WalkLists,
}

/// What the scorer knows of a puzzle it has met.
enum Known {
    /// Its score.
    Scored(Score),
    /// Every feature but the halfway ratio, and that ratio's numerator: a
    /// step screened out before its states were counted.
    Numerator(Box<Features>, u64),
}

/// How a step was judged against the current puzzle.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Judged {
    /// Scored in full.
    Scored(Score),
    /// Worse than the current puzzle even with its halfway ratio's
    /// denominator taken as `screen` times the current one's.
    Screened,
}

impl<'a> Scorer<'a> {
    /// A scorer for `energy` under these limits (the analysis runs on one
    /// thread); `mode` and `samples` say how the halfway features are known.
    pub fn new(
        energy: &'a Energy,
        limits: Limits,
        mode: HalfwayMode,
        samples: usize,
    ) -> Scorer<'a> {
        let reads = energy.reads();
        Scorer {
            energy,
            reads,
            mode,
            screen: 0.0,
            estimate: EstimateOptions {
                samples,
                tension: reads.contains(Feature::MidgameTension),
                ..EstimateOptions::default()
            },
            opts: AnalysisOptions {
                depth: Depth::Features,
                threads: 1,
                limits,
                progress: None,
            },
            memo: HashMap::new(),
            walk_lists: WalkLists::default(),
        }
    }

    /// The same scorer, screening steps by `screen` (see
    /// [`SearchParams::screen`]) when its mode and energy allow.
    pub fn screening(self, screen: f64) -> Scorer<'a> {
        let applies = self.mode == HalfwayMode::Exact
            && self.reads.reads_halfway()
            && self.energy.rises_with(Feature::HalfwayRatio);
        Scorer {
            screen: if applies { screen } else { 0.0 },
            ..self
        }
    }

    /// Whether the energy reads the halfway ratio or the midgame tension.
    pub fn reads_halfway(&self) -> bool {
        self.reads.reads_halfway()
    }

    /// The features the energy needs of a puzzle (the halfway ones estimated
    /// unless the mode is exact or `exact` is set).
    pub fn features(&self, puzzle: &State, exact: bool) -> Result<Features, SearchError> {
        self.features_told(puzzle, exact, None)
    }

    /// [`Scorer::features`], telling `progress` about each layer of a full analysis.
    fn features_told(
        &self,
        puzzle: &State,
        exact: bool,
        progress: Option<ProgressHook>,
    ) -> Result<Features, SearchError> {
        let estimating = self.reads.reads_halfway() && !exact && self.mode != HalfwayMode::Exact;
        self.features_how(puzzle, estimating, progress)
    }

    /// The features the energy needs, the halfway ones estimated if
    /// `estimating`, else exact.
    fn features_how(
        &self,
        puzzle: &State,
        estimating: bool,
        progress: Option<ProgressHook>,
    ) -> Result<Features, SearchError> {
        if self.reads.reads_halfway() && !estimating {
            let opts = AnalysisOptions {
                progress,
                ..self.opts.clone()
            };
            let mut f = features_for(puzzle, self.reads, &opts)?;
            self.play(&mut f, puzzle)?;
            return Ok(f);
        }
        // The halfway features, if read, are estimated below.
        let cheap = self.reads.difference(FeatureSet::HALFWAY_DEPTH);
        let mut f = features_for(puzzle, cheap, &self.opts)?;
        self.play(&mut f, puzzle)?;
        if estimating && f.solvable {
            // An inconclusive estimate (no walk met a solvable state) is a
            // small stand-in; the exact confirmation at the end settles the
            // leaders. An exact analysis here would cost seconds a step.
            let e = estimate_halfway(puzzle, &self.estimate, &self.opts.limits)?;
            f.halfway_ratio = Some(e.ratio);
            f.midgame_tension = if self.reads.contains(Feature::MidgameTension) {
                e.tension
            } else {
                None
            };
        }
        Ok(f)
    }

    /// Adds the difficulty features the energy reads (the agents play the
    /// puzzle); `f.solvable` must be known.
    fn play(&self, f: &mut Features, puzzle: &State) -> Result<(), SearchError> {
        if !self.reads.plays().is_empty() {
            add_difficulty(f, puzzle, self.reads.plays(), &self.opts.limits)?;
        }
        Ok(())
    }

    /// The exact features the energy needs of a puzzle, and its exact energy;
    /// `progress` hears about each layer of the analysis.
    pub fn exact(
        &self,
        puzzle: &State,
        progress: Option<ProgressHook>,
    ) -> Result<(Features, f64), SearchError> {
        let f = self.features_told(puzzle, true, progress)?;
        let e = self.energy.eval(&f);
        Ok((f, e))
    }

    /// A puzzle's score with its halfway features estimated (not
    /// remembered), and the estimated halfway ratio.
    pub fn estimated(
        &self,
        cells: &[u8; MAX_CELLS],
        grid: Grid,
    ) -> Result<(Score, Option<f64>), SearchError> {
        let f = self.features_how(&to_state(cells, grid), self.reads.reads_halfway(), None)?;
        let score = Score {
            energy: self.energy.eval(&f),
            solvable: f.solvable,
            fresh: true,
            halfway_states: None,
        };
        Ok((score, f.halfway_ratio))
    }

    /// The energy of a puzzle, whether it is solvable, and whether it was
    /// computed now (not remembered).
    pub fn score(&mut self, cells: &[u8; MAX_CELLS], grid: Grid) -> Result<Score, SearchError> {
        match self.judge(cells, grid, None)? {
            Judged::Scored(score) => Ok(score),
            Judged::Screened => unreachable!("nothing to screen against"),
        }
    }

    /// Judges a step to `cells` against `bar`, the current puzzle's score
    /// (`None`: the step is kept whatever its energy, so it is scored in
    /// full). With screening on, a step that is worse than `bar` even with
    /// `screen` times its halfway states comes back [`Judged::Screened`].
    pub fn judge(
        &mut self,
        cells: &[u8; MAX_CELLS],
        grid: Grid,
        bar: Option<Score>,
    ) -> Result<Judged, SearchError> {
        let known = self.memo.get(cells);
        if let Some(Known::Scored(score)) = known {
            return Ok(Judged::Scored(Score {
                fresh: false,
                ..*score
            }));
        }
        if !(self.reads.reads_halfway() && self.mode == HalfwayMode::Exact) {
            let f = self.features(&to_state(cells, grid), false)?;
            return Ok(Judged::Scored(self.remember(cells, &f, None)));
        }
        // Exact halfway features, only those the energy reads; screened
        // against the bar when screening is on.
        let bar = bar
            .filter(|_| self.screen > 0.0)
            .and_then(|b| Some((b, b.halfway_states?)));
        if let (Some(Known::Numerator(f, solvable)), Some(bar)) = (known, bar)
            && self.beaten(f, *solvable, bar)
        {
            return Ok(Judged::Screened);
        }
        let state = to_state(cells, grid);
        let parts = HalfwayParts::new(&state, self.reads, &self.opts, &mut self.walk_lists)?;
        // The features but the halfway ratio, with what the agents found
        // (they play once a step).
        let mut partial = parts.features_with(None);
        self.play(&mut partial, &state)?;
        if !parts.solvable() {
            // The penalty, whatever the ratio.
            return Ok(Judged::Scored(self.remember(cells, &partial, None)));
        }
        let solvable = parts.halfway_solvable();
        if let Some(bar) = bar {
            let f = partial.clone();
            if self.beaten(&f, solvable, bar) {
                self.memo
                    .insert(*cells, Known::Numerator(Box::new(f), solvable));
                return Ok(Judged::Screened);
            }
        }
        let (mut f, states) = parts.finish_counted(&self.opts)?;
        f.playout_win_rate = partial.playout_win_rate;
        f.greedy_wins = partial.greedy_wins;
        f.mcts_budget = partial.mcts_budget;
        Ok(Judged::Scored(self.remember(cells, &f, Some(states))))
    }

    /// Whether a puzzle with these features (but the halfway ratio) and
    /// `solvable` states at the halfway depth is worse than `bar` even with
    /// `screen` times as many states there as the current puzzle.
    fn beaten(&self, f: &Features, solvable: u64, (bar, states): (Score, u64)) -> bool {
        let lowest = solvable as f64 / (self.screen * states as f64);
        let f = Features {
            halfway_ratio: Some(lowest),
            ..f.clone()
        };
        let score = Score {
            energy: self.energy.eval(&f),
            solvable: f.solvable,
            fresh: true,
            halfway_states: None,
        };
        score.key() > bar.key()
    }

    /// Scores features just computed and remembers the score.
    fn remember(&mut self, cells: &[u8; MAX_CELLS], f: &Features, states: Option<u64>) -> Score {
        let score = Score {
            energy: self.energy.eval(f),
            solvable: f.solvable,
            fresh: true,
            halfway_states: states,
        };
        self.memo.insert(*cells, Known::Scored(score));
        score
    }
}

/// A puzzle's score.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Score {
    /// Its energy.
    pub energy: f64,
    /// Whether it is solvable.
    pub solvable: bool,
    /// Whether it was computed now rather than remembered.
    pub fresh: bool,
    /// Distinct states at the halfway depth, when the exact search counted
    /// them (the bar its next steps are screened against).
    pub halfway_states: Option<u64>,
}

impl Score {
    /// Whether this beats `other` as the best puzzle: any solvable puzzle
    /// beats an unsolvable one, then the lower energy wins.
    fn beats(&self, other: &Score) -> bool {
        self.key() < other.key()
    }

    /// The order of scores: solvable before unsolvable, then lower energy.
    fn key(&self) -> (bool, f64) {
        (!self.solvable, self.energy)
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
/// about every step, and about the start of each exact analysis of the
/// confirmation; cancelling through `limits` stops it with
/// [`SearchError::Cancelled`].
pub fn hill_descent(
    n: usize,
    energy: &Energy,
    params: &SearchParams,
    seed: u64,
    limits: Limits,
    report: impl FnMut(StepReport),
) -> Result<Found, GenError> {
    hill_descent_told(n, energy, params, seed, limits, report, None)
}

/// [`hill_descent`], with `layers` told about each layer of the
/// confirmation's exact analyses.
pub fn hill_descent_told(
    n: usize,
    energy: &Energy,
    params: &SearchParams,
    seed: u64,
    limits: Limits,
    mut report: impl FnMut(StepReport),
    layers: Option<LayerHook>,
) -> Result<Found, GenError> {
    let grid = params.check(n).map_err(GenError::Invalid)?;
    let cells_n = grid.cells();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let cancel = limits.cancel.clone();
    let mut scorer =
        Scorer::new(energy, limits, params.halfway_mode, params.samples).screening(params.screen);
    let confirming = params.halfway_mode == HalfwayMode::Confirm && scorer.reads_halfway();
    // The best few distinct puzzles by estimate, for the exact confirmation.
    let mut leaders: Vec<(f64, [u8; MAX_CELLS])> = Vec::new();
    let keep = params.confirm.max(1);
    let mut note = |score: Score, cells: &[u8; MAX_CELLS]| {
        if confirming && score.solvable && !leaders.iter().any(|l| l.1 == *cells) {
            leaders.push((score.energy, *cells));
            // Stable: among equal energies the earlier puzzle stays ahead.
            leaders.sort_by(|a, b| a.0.total_cmp(&b.0));
            leaders.truncate(keep);
        }
    };

    // Steps of each descent when the budget is shared among restarts.
    let leg = (params.iterations / params.restarts.saturating_add(1)).max(1);
    let warms =
        params.warmup > 0.0 && params.halfway_mode == HalfwayMode::Exact && scorer.reads_halfway();
    // A descent scored by estimate until this step, or until its estimated
    // ratio falls below the warm-up's (see `SearchParams::warmup`).
    let warm_until = |from: usize| warms.then_some(from + leg / 4).filter(|&u| u > from);
    let mut warm = warm_until(0);

    // A random start; `deck[n..]` are the unused cards.
    let (mut cells, mut deck) = random_cells(n, cells_n, &mut rng);
    let mut estimate = None;
    let start = if warm.is_some() {
        let (score, ratio) = scorer.estimated(&cells, grid)?;
        estimate = ratio;
        score
    } else {
        scorer.score(&cells, grid)?
    };
    note(start, &cells);
    let mut current = start.energy;
    let mut current_score = start;
    let mut evaluations = 1;
    let mut screened = 0;
    // Whether `best` was scored exactly (not during a warm-up).
    let mut best_exact = warm.is_none();
    let (mut best, mut best_score) = (cells, start);
    let mut trace = Vec::with_capacity(params.iterations.min(1 << 16) + 1);
    trace.push(current);
    // A budget that ends before any solvable puzzle was met (a few cards,
    // few steps) is extended until one is; past this many steps the search
    // gives up.
    let most = params
        .iterations
        .saturating_add(params.iterations.max(100).saturating_mul(100));
    let mut iteration = 0;
    loop {
        iteration += 1;
        if iteration > params.iterations && (best_score.solvable || iteration > most) {
            break;
        }
        cancel.check()?;
        if let Some(until) = warm
            && (iteration > until || estimate.is_some_and(|r| r < params.warmup))
        {
            // The warm-up is over: the current puzzle's exact score.
            warm = None;
            current_score = scorer.score(&cells, grid)?;
            current = current_score.energy;
            evaluations += current_score.fresh as usize;
            if !best_exact || current_score.beats(&best_score) {
                (best, best_score, best_exact) = (cells, current_score, true);
            }
        }
        let restart = params.restarts > 0
            && iteration > 1
            && (iteration - 1) % leg == 0
            && (iteration - 1) / leg <= params.restarts;
        // The uphill coin first: a step it keeps needs its exact energy,
        // any other only whether it is worse (see `SearchParams::screen`).
        let keep_anyway = restart || uphill_coin(params.uphill, &mut rng);
        let before = cells;
        let mut swapped_in = None;
        if restart {
            // A fresh start takes this step, with a warm-up of its own.
            (cells, deck) = random_cells(n, cells_n, &mut rng);
            warm = warm_until(iteration);
        } else if n < 52 && rng.random_bool(params.swap_in) {
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
        let mut step_estimate = None;
        let judged = if warm.is_some() {
            let (score, ratio) = scorer.estimated(&cells, grid)?;
            step_estimate = ratio;
            Judged::Scored(score)
        } else {
            let bar = (!keep_anyway).then_some(current_score);
            scorer.judge(&cells, grid, bar)?
        };
        let score = match judged {
            Judged::Scored(score) => Some(score),
            Judged::Screened => {
                screened += 1;
                None
            }
        };
        if let Some(score) = score.filter(|s| s.fresh) {
            evaluations += 1;
            note(score, &cells);
        }
        // Compared as the best is: solvable first, then energy. (E4 can
        // score a solvable puzzle above the unsolvable penalty.)
        if let Some(score) = score.filter(|s| accepts(s.key(), current_score.key(), keep_anyway)) {
            current = score.energy;
            current_score = score;
            estimate = step_estimate;
            if let Some((u, out)) = swapped_in {
                deck[u] = out;
            }
            if warm.is_none() && score.beats(&best_score) {
                best = cells;
                best_score = score;
            }
        } else {
            cells = before;
        }
        trace.push(current);
        report(StepReport {
            phase: Phase::Descent {
                step: iteration,
                of: params.iterations,
            },
            current,
            best: best_score.energy,
        });
    }
    if !best_score.solvable {
        return Err(GenError::NoSolvable {
            steps: iteration - 1,
        });
    }
    let mut best_energy = best_score.energy;
    let mut features = None;
    if confirming {
        // The exact energy of each leader; the least wins (the earlier on ties).
        let mut exact_best: Option<(f64, [u8; MAX_CELLS], Features)> = None;
        for (i, (_, cells)) in leaders.iter().enumerate() {
            let told = StepReport {
                phase: Phase::Confirm {
                    k: i + 1,
                    of: leaders.len(),
                    layers: None,
                },
                current,
                best: best_score.energy,
            };
            report(told);
            let progress = layers.clone().map(|hook| layer_progress(hook, told));
            let (f, e) = scorer.exact(&to_state(cells, grid), progress)?;
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
        best: to_state(&best, grid),
        energy: best_energy,
        trace,
        evaluations,
        screened,
        features,
    })
}

/// An analysis hook that tells `hook` each finished layer as `told` with
/// its layers filled in.
pub fn layer_progress(hook: LayerHook, told: StepReport) -> ProgressHook {
    Arc::new(move |p: Progress| {
        hook(StepReport {
            phase: told.phase.with_layers(Layers {
                done: p.done,
                of: p.of,
            }),
            ..told
        });
    })
}

/// A random puzzle: n distinct cards in n distinct cells of the grid (the
/// search's starting point, and the benchmarks' test puzzles).
pub fn random_puzzle(n: usize, grid: Grid, rng: &mut impl rand::Rng) -> State {
    let (cells, _) = random_cells(n, grid.cells(), rng);
    to_state(&cells, grid)
}

/// n random cards in random cells, and the deck with the unused cards after the first n.
fn random_cells(n: usize, cells_n: usize, rng: &mut impl rand::Rng) -> ([u8; MAX_CELLS], Vec<u8>) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::halfway::halfway;
    use crate::generator::energy::builtin;

    /// Solvable ÷ distinct states at the halfway depth, and the latter.
    fn exact_ratio(state: &State) -> (f64, u64) {
        let h = halfway(state, false, &Limits::default()).unwrap();
        (h.ratio(), h.halfway_states())
    }

    #[test]
    fn a_screened_step_is_worse_even_with_the_screens_share_of_states() {
        let e5 = builtin().get("E5").unwrap().clone();
        let screen = 2.0;
        let mut scorer =
            Scorer::new(&e5, Limits::default(), HalfwayMode::Exact, 1).screening(screen);
        let grid = Grid::new(4, 4).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let (mut screened, mut scored) = (0, 0);
        while screened < 10 || scored < 10 {
            let (bar_cells, _) = random_cells(12, 16, &mut rng);
            let bar = scorer.score(&bar_cells, grid).unwrap();
            if !bar.solvable {
                continue;
            }
            let (bar_ratio, bar_states) = exact_ratio(&to_state(&bar_cells, grid));
            assert_eq!(bar.energy, bar_ratio);
            assert_eq!(bar.halfway_states, Some(bar_states));
            let (cells, _) = random_cells(12, 16, &mut rng);
            let state = to_state(&cells, grid);
            match scorer.judge(&cells, grid, Some(bar)).unwrap() {
                Judged::Screened => {
                    // Its numerator over `screen` times the bar's states
                    // already beats the bar's ratio.
                    let (ratio, states) = exact_ratio(&state);
                    let solvable = (ratio * states as f64).round();
                    assert!(solvable / (screen * bar_states as f64) > bar.energy);
                    screened += 1;
                }
                Judged::Scored(score) => {
                    let exact =
                        e5.eval(&features_for(&state, FeatureSet::ALL, &scorer.opts).unwrap());
                    assert_eq!(score.energy, exact);
                    scored += 1;
                }
            }
        }
    }

    #[test]
    fn a_screened_search_keeps_exact_energies() {
        let e5 = builtin().get("E5").unwrap().clone();
        let params = SearchParams {
            iterations: 150,
            ..SearchParams::for_cards(12)
        };
        assert_eq!(params.screen, DEFAULT_SCREEN);
        let found = hill_descent(12, &e5, &params, 7, Limits::default(), |_| {}).unwrap();
        assert!(found.screened > 0, "some steps were screened");
        assert_eq!(found.energy, exact_ratio(&found.best).0);
        assert_eq!(found.trace.len(), 151);
        let least = found.trace.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(found.energy, least, "the best is the least energy met");
    }

    #[test]
    fn a_warm_up_hands_over_to_exact_scores() {
        let e5 = builtin().get("E5").unwrap().clone();
        for warmup in [DEFAULT_WARMUP, 0.999] {
            let params = SearchParams {
                iterations: 80,
                warmup,
                ..SearchParams::for_cards(13)
            };
            let mut scorer = Scorer::new(&e5, Limits::default(), HalfwayMode::Exact, 1);
            let found = hill_descent(13, &e5, &params, 2, Limits::default(), |_| {}).unwrap();
            // The best is scored exactly, whatever the warm-up scored by
            // estimate before it (a quarter of the steps at 0.999).
            assert_eq!(found.energy, exact_ratio(&found.best).0, "warm-up {warmup}");
            let cells: Vec<Option<Card>> = (0..16).map(|c| found.best.top(c)).collect();
            let mut codes = [EMPTY; MAX_CELLS];
            for (i, c) in cells.iter().enumerate() {
                codes[i] = c.map_or(EMPTY, |c| c.code());
            }
            let again = scorer.score(&codes, found.best.grid()).unwrap();
            assert_eq!(again.energy, found.energy);
            let last = *found.trace.last().unwrap();
            assert!(found.energy <= last, "the best is no worse than the last");
        }
    }

    #[test]
    fn restarts_share_the_steps() {
        let e5 = builtin().get("E5").unwrap().clone();
        let params = SearchParams {
            iterations: 90,
            restarts: 2,
            uphill: 0.0,
            ..SearchParams::for_cards(10)
        };
        let found = hill_descent(10, &e5, &params, 5, Limits::default(), |_| {}).unwrap();
        let t = &found.trace;
        assert_eq!(t.len(), 91);
        // With no uphill steps each descent never rises; only a fresh start
        // (steps 31 and 61) can, and after a descent that made progress one does.
        for leg in [&t[..31], &t[31..61], &t[61..]] {
            assert!(leg.windows(2).all(|w| w[1] <= w[0]), "{leg:?}");
        }
        assert!(t[31] > t[30] || t[61] > t[60], "{t:?}");
        assert_eq!(found.energy, exact_ratio(&found.best).0);
        let least = t.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(found.energy, least);
    }
}
