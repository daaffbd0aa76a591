//! The knobs of a puzzle search ([`SearchParams`]), their defaults (seed
//! 001's, and boaf's own where measured), the halfway mode, and why a search
//! fails ([`GenError`]).

use crate::engine::estimate::EstimateOptions;
use crate::engine::limits::SearchError;
use crate::engine::state::Grid;
use serde::{Deserialize, Serialize};
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
/// exact step costs milliseconds, and 2500 above (the paper's 50 was set by
/// a slow energy). Issue 27 asked for 2500 once it cost what 1000 did at
/// its start: `boaf bench search -n 16` (2026-11-28, side by side) took
/// 12.6 and 14.7 s a puzzle at 2500 steps on seeds 11 and 12, against 16.1
/// and 17.0 s for 1000 steps at 20be7b9; 1500 steps reach the same puzzles
/// on seed 11, but a median E5 17% higher on seed 12 (see the README).
pub fn default_iterations(n: usize) -> usize {
    match n {
        0..=12 => paper_iterations(n),
        _ => 2500,
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
    /// costliest part). So is a step worse even with as many states as
    /// its groupings, which no count exceeds (this changes no result). 0
    /// counts every step.
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
    DEFAULT_CONFIRM
}

/// The energy a search minimizes unless told otherwise, by name: E5, the
/// halfway ratio alone, seed 001's final energy.
pub const DEFAULT_ENERGY: &str = "E5";

/// The default [`SearchParams::swap_in`]: seed 001's probability that a
/// step swaps an unused card in.
pub const DEFAULT_SWAP_IN: f64 = 0.3;

/// The default [`SearchParams::uphill`]: seed 001's probability of keeping
/// a step that raises the energy.
pub const DEFAULT_UPHILL: f64 = 0.005;

// What each search setting does and what raising it costs, in one place for
// the app's tooltips and `boaf generate --help`.

/// What [`SearchParams::iterations`] does and what raising it costs.
pub const STEPS_HELP: &str = "Steps per puzzle: each step changes the puzzle once and scores \
    it. More steps usually reach a lower energy; the time grows in proportion.";

/// What [`SearchParams::swap_in`] does and what raising it costs.
pub const SWAP_IN_HELP: &str = "Probability that a step swaps an unused card in (else it swaps \
    two cells). Raising it tries more sets of cards but refines a layout less; a step costs \
    the same either way.";

/// What [`SearchParams::uphill`] does and what raising it costs.
pub const UPHILL_HELP: &str = "Probability of keeping a step that raises the energy, so the \
    search can climb out of a local minimum. Raising it wanders more and settles less: the \
    best puzzle seen is still kept, but fewer steps improve on it.";

/// What [`SearchParams::halfway_mode`] does and what each choice costs.
pub const HALFWAY_HELP: &str = "How the search knows the halfway ratio: exact (the exact counts \
    at every step: right, and the dearest step, more so with more cards), estimate (sampling: \
    cheap, but noisy) or confirm (sampling, then the exact counts of the --confirm best). Only \
    an energy that reads the halfway ratio or midgame tension pays for it.";

/// What [`SearchParams::difficulty`] does and what it costs.
pub const DIFFICULTY_HELP: &str = "Agents play each finished puzzle for playout_win_rate, \
    greedy_wins and mcts_budget: about a second at most per puzzle, as measured. An energy \
    that reads them gets them at every step anyway.";

/// The default [`SearchParams::confirm`]: boaf's count of the best puzzles
/// by estimate analysed exactly at the end.
pub const DEFAULT_CONFIRM: usize = 3;

/// The default [`SearchParams::screen`]: 2, not 4, since `boaf bench
/// search -n 16` (seed 11, 2026-11-25) measured it faster at no loss: over
/// 8 puzzles of 1000 steps, 13.6 against 16.5 CPU seconds a puzzle, and a
/// geometric mean exact E5 of 1.6e-6 against 1.9e-6. Of the counted steps
/// of four puzzles, the 5 kept ones out of about 240 above twice the
/// current numerator were the price.
pub const DEFAULT_SCREEN: f64 = 2.0;

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
            swap_in: DEFAULT_SWAP_IN,
            uphill: DEFAULT_UPHILL,
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
