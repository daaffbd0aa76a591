//! What every long search obeys: a memory cap and a cancel switch, the caps
//! boaf uses by default, and the error a search stops with when it meets one.
//!
//! The solver, the analysis, the estimator, the shallow counts and the hill
//! descent all take a [`Limits`] and ask it, every few thousand states,
//! whether to go on; nothing else in the engine looks at a flag or a cap.

use crate::format::size::size_text;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use thiserror::Error;

const GIB: usize = 1 << 30;

/// The memory cap of one solve: a hint, a deal check, a solution to replay.
pub const SOLVE_CAP: usize = 2 * GIB;
/// The memory cap of one full analysis (`boaf analyze`, the Analyze panel).
pub const ANALYSIS_CAP: usize = 4 * GIB;
/// The memory cap of each generator worker's analyses.
pub const WORKER_CAP: usize = 6 * GIB;
/// The memory cap of each exact analysis in a benchmark: room for the largest
/// 16-card state spaces (deals 6 and 9 peak above 5 GB).
pub const BENCH_CAP: usize = 8 * GIB;

/// Why a search stopped before it had an answer.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SearchError {
    /// The cancel switch was thrown.
    #[error("cancelled")]
    Cancelled,
    /// The tables would have grown past the memory cap.
    #[error("the search needs more than the memory cap of {}", size_text(*cap))]
    MemoryCap {
        /// The cap, in bytes.
        cap: usize,
    },
}

/// A switch that stops long work from another thread. Clones share one
/// switch, so the thread that started the work keeps a clone to throw it.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A switch that has not been thrown.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Throws the switch: every search holding a clone stops at its next look.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the switch was thrown.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// `Err(Cancelled)` once the switch was thrown.
    pub fn check(&self) -> Result<(), SearchError> {
        if self.is_cancelled() {
            Err(SearchError::Cancelled)
        } else {
            Ok(())
        }
    }
}

/// The limits of one search (or of a worker's many).
#[derive(Clone, Debug)]
pub struct Limits {
    /// Memory the tables may use, in bytes.
    pub memory_cap: usize,
    /// Thrown from outside to stop the search.
    pub cancel: Cancel,
}

impl Default for Limits {
    /// The cap of one solve, and a switch nobody else holds.
    fn default() -> Self {
        Limits::with_cap(SOLVE_CAP)
    }
}

impl Limits {
    /// These limits with a fresh cancel switch.
    pub fn with_cap(memory_cap: usize) -> Limits {
        Limits {
            memory_cap,
            cancel: Cancel::new(),
        }
    }

    /// The same cap, stopped by `cancel`.
    pub fn cancelled_by(self, cancel: &Cancel) -> Limits {
        Limits {
            cancel: cancel.clone(),
            ..self
        }
    }

    /// Whether the search should stop because it was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// `Err(Cancelled)` once cancelled.
    pub fn check_cancel(&self) -> Result<(), SearchError> {
        self.cancel.check()
    }

    /// `Err(MemoryCap)` when holding `bytes` would pass the cap.
    pub fn check_memory(&self, bytes: usize) -> Result<(), SearchError> {
        if bytes > self.memory_cap {
            Err(SearchError::MemoryCap {
                cap: self.memory_cap,
            })
        } else {
            Ok(())
        }
    }

    /// Both checks: cancelled first, then the cap.
    pub fn check(&self, bytes: usize) -> Result<(), SearchError> {
        self.check_cancel()?;
        self.check_memory(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_one_switch() {
        let limits = Limits::with_cap(100);
        let other = limits.clone();
        assert_eq!(limits.check(100), Ok(()));
        assert_eq!(limits.check(101), Err(SearchError::MemoryCap { cap: 100 }));
        other.cancel.cancel();
        assert!(limits.is_cancelled());
        // Cancelled wins over the cap.
        assert_eq!(limits.check(101), Err(SearchError::Cancelled));
        // A fresh default is not cancelled by it.
        assert!(!Limits::default().is_cancelled());
        let outside = Cancel::new();
        let bound = Limits::default().cancelled_by(&outside);
        assert_eq!(bound.memory_cap, SOLVE_CAP);
        outside.cancel();
        assert_eq!(bound.check_cancel(), Err(SearchError::Cancelled));
    }

    #[test]
    fn the_memory_cap_reads_as_a_size() {
        assert_eq!(
            SearchError::MemoryCap { cap: 6 << 30 }.to_string(),
            "the search needs more than the memory cap of 6 GiB"
        );
    }
}
