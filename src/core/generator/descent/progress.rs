//! What a search says of itself as it goes: its [`Phase`], the one progress
//! record ([`StepReport`]) the descent, the pipeline's workers and the
//! batch all pass on, and the hook that hears the layers of its long exact
//! analyses.

use crate::engine::analysis::{Progress, ProgressHook};
use std::sync::Arc;

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
    /// estimate ([`super::HalfwayMode::Confirm`]).
    Confirm {
        /// Which analysis, from 1.
        k: usize,
        /// Analyses in all.
        of: usize,
        /// Its layers so far, once it has finished one.
        layers: Option<Progress>,
    },
    /// The exact features of the best puzzle, when the search did not
    /// compute them all.
    Features {
        /// The analysis's layers so far, once it has finished one.
        layers: Option<Progress>,
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
    pub fn with_layers(self, layers: Progress) -> Phase {
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

/// A worker's latest report: the puzzle it is making, and where the making is.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct WorkerProgress {
    /// The puzzle's index in the batch.
    pub index: usize,
    /// What the worker is doing on it (its phase's
    /// [`Display`](std::fmt::Display) says so in words: "descent step 37 of
    /// 50", "exact analysis 2 of 3"), and the current and best energy.
    pub report: StepReport,
}

/// An analysis hook that tells `hook` each finished layer as `told` with
/// its layers filled in.
pub fn layer_progress(hook: LayerHook, told: StepReport) -> ProgressHook {
    Arc::new(move |p: Progress| {
        hook(StepReport {
            phase: told.phase.with_layers(p),
            ..told
        });
    })
}
