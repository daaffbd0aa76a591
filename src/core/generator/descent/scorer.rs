//! The scorer: a puzzle's energy, computing only the features the energy
//! reads (the halfway ones exact, estimated, or screened on their numerator
//! first), remembering every puzzle it has met.

use super::params::HalfwayMode;
use crate::agents::difficulty::add_difficulty;
use crate::engine::analysis::{AnalysisOptions, Depth, ProgressHook, ratio};
use crate::engine::card::Card;
use crate::engine::estimate::{EstimateOptions, estimate_halfway};
use crate::engine::feature::{Feature, FeatureSet};
use crate::engine::features::{Features, HalfwayStart, Walked, features_for};
use crate::engine::halfway::WalkLists;
use crate::engine::limits::{Limits, SearchError};
use crate::engine::state::{Grid, MAX_CELLS, State};
use crate::generator::energy::Energy;
use std::collections::HashMap;

/// Scores puzzles by one energy, computing only the features it reads and
/// remembering every puzzle it has scored (the search often comes back).
pub struct Scorer<'a> {
    energy: &'a Energy,
    /// What the energy reads, which is all that is computed.
    reads: FeatureSet,
    /// How the halfway features are known when the energy reads them.
    mode: HalfwayMode,
    /// [`super::SearchParams::screen`] where it applies, else 0.
    screen: f64,
    estimate: EstimateOptions,
    /// The analysis settings of every exact score (one thread, the limits).
    pub(super) opts: AnalysisOptions,
    memo: HashMap<[u8; MAX_CELLS], Known>,
    /// The halfway walk back's lists, kept from step to step.
    walk_lists: WalkLists,
}

/// What the scorer knows of a puzzle it has met.
enum Known {
    /// Its score.
    Scored(Score),
    /// Every feature but the halfway ratio, and a lower bound on that
    /// ratio's numerator (the numerator itself when the walk back went to
    /// the end): a step screened out before its states were counted.
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
                depth: Depth::Features(FeatureSet::ALL),
                threads: 1,
                limits,
                progress: None,
            },
            memo: HashMap::new(),
            walk_lists: WalkLists::default(),
        }
    }

    /// The same scorer, screening steps by `screen` (see
    /// [`super::SearchParams::screen`]) when its mode and energy allow.
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
        let estimating = self.reads.reads_halfway() && !exact && self.mode != HalfwayMode::Exact;
        self.needed_features(puzzle, estimating, None)
    }

    /// The features the energy needs, the halfway ones estimated if
    /// `estimating`, else exact (`progress` hears about each layer of the
    /// full analysis).
    fn needed_features(
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
        let f = self.needed_features(puzzle, false, progress)?;
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
        let f = self.needed_features(&to_state(cells, grid), self.reads.reads_halfway(), None)?;
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
        let start = HalfwayStart::new(&state, self.reads, &self.opts)?;
        // The features but the halfway ones, with what the agents found
        // (they play once a step).
        let mut partial = start.features();
        self.play(&mut partial, &state)?;
        if !start.solvable() {
            // The penalty, whatever the ratio.
            return Ok(Judged::Scored(self.remember(cells, &partial, None)));
        }
        let mut lists = std::mem::take(&mut self.walk_lists);
        let walked = match bar {
            // The energy rises with the halfway ratio, so a step beaten on
            // the solvable states found so far is beaten on all of them:
            // the walk stops there.
            Some(bar) => start.walk_until(&self.opts, &mut lists, |found| {
                self.beaten(&partial, found, bar)
            }),
            None => start
                .walk(&self.opts, &mut lists)
                .map(|parts| Walked::Whole(Box::new(parts))),
        };
        self.walk_lists = lists;
        let parts = match walked? {
            Walked::Whole(parts) => *parts,
            Walked::AtLeast(at_least) => {
                self.memo
                    .insert(*cells, Known::Numerator(Box::new(partial), at_least));
                return Ok(Judged::Screened);
            }
        };
        let solvable = parts.halfway_solvable();
        if let Some(bar) = bar {
            let f = with_plays(parts.features_with(None), &partial);
            // Beaten even with `screen` times the current states, or with
            // as many as the groupings, which no count exceeds: a step the
            // count would only show worse is not counted.
            if self.beaten(&f, solvable, bar)
                || self.worse(&f, ratio(solvable, parts.halfway_states_at_most()), bar.0)
            {
                self.memo
                    .insert(*cells, Known::Numerator(Box::new(f), solvable));
                return Ok(Judged::Screened);
            }
        }
        let (f, states) = parts.finish_counted(&self.opts)?;
        let f = with_plays(f, &partial);
        Ok(Judged::Scored(self.remember(cells, &f, Some(states))))
    }

    /// Whether a puzzle with these features (but the halfway ratio) and
    /// `solvable` states at the halfway depth is worse than `bar` even with
    /// `screen` times as many states there as the current puzzle.
    fn beaten(&self, f: &Features, solvable: u64, (bar, states): (Score, u64)) -> bool {
        self.worse(f, solvable as f64 / (self.screen * states as f64), bar)
    }

    /// Whether a puzzle with these features and `halfway_ratio` is worse
    /// than `bar`.
    fn worse(&self, f: &Features, halfway_ratio: f64, bar: Score) -> bool {
        let f = Features {
            halfway_ratio: Some(halfway_ratio),
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
    pub(super) fn beats(&self, other: &Score) -> bool {
        self.key() < other.key()
    }

    /// The order of scores: solvable before unsolvable, then lower energy.
    pub(super) fn key(&self) -> (bool, f64) {
        (!self.solvable, self.energy)
    }
}

/// `f` with the difficulty features the agents found in `played`.
fn with_plays(f: Features, played: &Features) -> Features {
    Features {
        playout_win_rate: played.playout_win_rate,
        greedy_wins: played.greedy_wins,
        mcts_budget: played.mcts_budget,
        ..f
    }
}

/// Empty cell in the search's cell array.
pub(super) const EMPTY: u8 = u8::MAX;

/// The puzzle the search's cell array holds.
pub(super) fn to_state(cells: &[u8; MAX_CELLS], grid: Grid) -> State {
    let tops: Vec<Option<Card>> = cells[..grid.cells()]
        .iter()
        .map(|&c| if c == EMPTY { None } else { Card::from_code(c) })
        .collect();
    State::new(grid, &tops).expect("the search keeps distinct cards in the grid")
}
