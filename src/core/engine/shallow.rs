//! The first few depths of a puzzle's state space, breadth first: the
//! distinct and the solvable states after 1, 2 or 3 moves. The depth-d
//! ratios read them; at these depths listing the states costs less than the
//! analysis or the halfway count.

use crate::engine::board::{Layout, MoveList};
use crate::engine::limits::{Limits, SearchError};
use crate::engine::solver::{Solver, classify};
use crate::engine::state::State;
use std::collections::HashSet;

/// Distinct and solvable states at each depth 0..=`depth`: breadth-first
/// layers, each state settled by one solver that keeps what it learns. Exact,
/// and much cheaper than [`crate::engine::analysis::analyze`] when the depth is small and the puzzle
/// large (the analysis settles a layer through every layer below it).
pub fn shallow_counts(
    state: &State,
    depth: usize,
    limits: &Limits,
) -> Result<Vec<(u64, u64)>, SearchError> {
    let (lay, root) = Layout::new(state);
    let mut solver = Solver::new(limits.clone());
    let mut layer = vec![root];
    let mut out = Vec::with_capacity(depth + 1);
    let mut list = MoveList::default();
    for d in 0..=depth.min(root.stacks().saturating_sub(1) as usize) {
        let mut solvable = 0;
        for b in &layer {
            if classify(&lay, b).is_none() && solver.is_solvable(&lay, *b)? {
                solvable += 1;
            }
        }
        out.push((layer.len() as u64, solvable));
        if d == depth {
            break;
        }
        let mut seen = HashSet::new();
        let mut next = Vec::new();
        for b in &layer {
            b.moves(&lay, &mut list);
            for &mv in list.as_slice() {
                let child = b.apply(mv);
                if seen.insert(child.pack()) {
                    next.push(child);
                }
            }
        }
        limits.check_cancel()?;
        layer = next;
    }
    Ok(out)
}
