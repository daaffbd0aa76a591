//! The full per-depth table of the state space (Figure 2) without its
//! layers: the distinct states at every depth by sets of pairs, the
//! solvable ones by one walk back from one stack, and each depth's tension
//! from its solvable boards and the next depth's.

use super::level::WalkLists;
use super::merges::Merges;
use super::walk::{Finished, StateSet, Visit};
use crate::engine::analysis::DepthCount;
use crate::engine::limits::{Limits, SearchError};

/// The visitor that lists the solvable boards of every depth down to the
/// deepest counted and reads each depth's tension from the next's.
struct EveryDepth<F> {
    /// The deepest depth counted.
    deepest: usize,
    /// The solvable boards one move deeper than the depth being visited.
    below: Option<StateSet<u128>>,
    /// Tension by depth, filled deepest first.
    tension: Vec<Option<f64>>,
    /// Told each depth's solvable states as it is finished.
    done: F,
}

impl<F: FnMut(usize)> Visit for EveryDepth<F> {
    fn lists(&self, depth: usize) -> bool {
        depth <= self.deepest + 1
    }

    fn counts(&self, _: usize) -> bool {
        true
    }

    fn depth(&mut self, merges: &Merges, at: Finished, limits: &Limits) -> Result<(), SearchError> {
        (self.done)(at.boards.expect("every depth is counted"));
        let (depth, Some(keys)) = (at.depth, at.keys) else {
            return Ok(());
        };
        if depth <= self.deepest {
            // The last depth (one stack) has no moves and no `below`.
            self.tension[depth] = match &self.below {
                Some(below) => merges.tension_of(&keys, below, limits)?,
                None => None,
            };
        }
        // Depth 0 has no depth above it to need its boards.
        self.below = (depth > 0).then(|| keys.into_iter().collect());
        Ok(())
    }

    fn held(&self) -> Option<&StateSet<u128>> {
        self.below.as_ref()
    }
}

impl Merges {
    /// Distinct states, solvable states and tension at every depth from 0 to
    /// `deepest` (at most the last, one stack), exactly as
    /// [`crate::engine::analysis::analyze`] has them, tension to the bit;
    /// `done` hears each depth of the walk back (deepest first), then the
    /// count. Also returns the most bytes held at once (an estimate). On
    /// `threads` threads from two, the count runs beside the walk back,
    /// whose every depth the threads share.
    pub fn depth_table(
        &self,
        deepest: usize,
        threads: usize,
        limits: &Limits,
        mut done: impl FnMut(usize),
    ) -> Result<(Vec<DepthCount>, usize), SearchError> {
        let last = self.n.saturating_sub(1);
        let deepest = deepest.min(last);
        let mut visit = EveryDepth {
            deepest,
            below: None,
            tension: vec![None; deepest + 1],
            done: &mut done,
        };
        let walk = || self.walk(threads, 0, &mut WalkLists::default(), limits, &mut visit);
        let count = || self.count_states_on(deepest, threads, limits);
        let (states, walked) = crate::parallel::beside(threads, count, walk);
        let ((solvable, walked), states) = (walked?, states?);
        let tension = visit.tension;
        done(states.last().copied().unwrap_or(0) as usize);
        let rows = (0..=deepest)
            .map(|depth| DepthCount {
                depth,
                states: states[depth],
                solvable: solvable[depth].expect("every depth is counted"),
                tension: tension[depth],
            })
            .collect();
        Ok((rows, Self::bytes_for(self.n) + walked))
    }
}
