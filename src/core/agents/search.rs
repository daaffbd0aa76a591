//! Seed 000's heuristic best-first search (its Table 1), and plain
//! depth-first search to compare with.
//!
//! **How a node is counted.** A node is *expanded* when it is taken from the
//! frontier and its children are generated; the start counts, and the goal
//! (taken, seen to be one stack) does not. A child whose board was seen
//! before is not added again (solvability depends only on the board), so an
//! unsolvable deal costs every reachable board whatever the order.

use super::{Position, Weights, moves_of};
use crate::engine::board::Layout;
use crate::engine::limits::{Limits, SearchError};
use crate::engine::state::{Move, State};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};

/// What a search found and what it cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Searched {
    /// A solution from the start, when there is one.
    pub solution: Option<Vec<Move>>,
    /// Nodes expanded (see the module's note).
    pub expanded: u64,
}

/// The order in which the frontier is taken.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Order {
    /// Highest heuristic value first; ties in the order they were added.
    BestFirst(Weights),
    /// Depth-first: the last added first, children in (from, to) order.
    DepthFirst,
}

/// A frontier entry: the priority and the order of arrival.
struct Entry {
    value: f64,
    arrival: u64,
    node: usize,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // The heap is a max-heap: higher value first, then earlier arrival.
        self.value
            .total_cmp(&other.value)
            .then(other.arrival.cmp(&self.arrival))
    }
}

/// Searches from `start` in `order` until a solution or the end of the
/// space, within `limits` (memory and cancel).
pub fn search(start: &State, order: Order, limits: &Limits) -> Result<Searched, SearchError> {
    let (lay, pos) = Position::new(start);
    search_from(&lay, pos, order, limits, u64::MAX)
}

/// [`search`] from a position, giving up (no solution) once `budget` nodes
/// are expanded.
pub fn search_from(
    lay: &Layout,
    pos: Position,
    order: Order,
    limits: &Limits,
    budget: u64,
) -> Result<Searched, SearchError> {
    // Every node added: its position, parent and the move from it.
    let mut nodes: Vec<(Position, usize, Option<Move>)> = vec![(pos, usize::MAX, None)];
    let mut seen: HashSet<u128> = HashSet::new();
    seen.insert(pos.board.pack());
    let mut heap = BinaryHeap::new();
    let mut stack = Vec::new();
    let value = |p: &Position| match order {
        Order::BestFirst(w) => w.value(lay, p),
        Order::DepthFirst => 0.0,
    };
    let mut arrival = 0u64;
    match order {
        Order::BestFirst(_) => heap.push(Entry {
            value: value(&pos),
            arrival,
            node: 0,
        }),
        Order::DepthFirst => stack.push(0),
    }
    let mut expanded = 0u64;
    loop {
        let next = match order {
            Order::BestFirst(_) => heap.pop().map(|e| e.node),
            Order::DepthFirst => stack.pop(),
        };
        let Some(i) = next.filter(|&i| expanded < budget || nodes[i].0.is_won()) else {
            return Ok(Searched {
                solution: None,
                expanded,
            });
        };
        let pos = nodes[i].0;
        if pos.is_won() {
            let mut path = Vec::new();
            let mut at = i;
            while let Some(mv) = nodes[at].2 {
                path.push(mv);
                at = nodes[at].1;
            }
            path.reverse();
            return Ok(Searched {
                solution: Some(path),
                expanded,
            });
        }
        expanded += 1;
        if expanded.is_multiple_of(4096) {
            limits.check(nodes.len() * 48 + seen.capacity() * 24)?;
        }
        let moves = moves_of(lay, &pos);
        // Depth-first takes the last pushed first, so push in reverse.
        let ordered: Vec<Move> = match order {
            Order::BestFirst(_) => moves.as_slice().to_vec(),
            Order::DepthFirst => moves.as_slice().iter().rev().copied().collect(),
        };
        for mv in ordered {
            let child = pos.apply(mv);
            if !seen.insert(child.board.pack()) {
                continue;
            }
            nodes.push((child, i, Some(mv)));
            let node = nodes.len() - 1;
            arrival += 1;
            match order {
                Order::BestFirst(_) => heap.push(Entry {
                    value: value(&child),
                    arrival,
                    node,
                }),
                Order::DepthFirst => stack.push(node),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal::deal;
    use crate::engine::solver::solve;

    /// Ten-card puzzles: the first ten cells of deals, the rest empty. Their
    /// spaces are small, and some are unsolvable.
    fn small_puzzles() -> Vec<State> {
        (0..40)
            .map(|d| {
                let mut cells: Vec<_> = deal(d).tops().to_vec();
                cells[10..].fill(None);
                State::new(deal(d).grid(), &cells).unwrap()
            })
            .collect()
    }

    #[test]
    fn best_first_solves_exactly_when_the_solver_says_solvable() {
        let (mut solvable, mut unsolvable) = (0, 0);
        for (d, start) in small_puzzles().iter().enumerate() {
            let truth = solve(start).unwrap().is_solvable();
            for order in [Order::BestFirst(Weights::default()), Order::DepthFirst] {
                let s = search(start, order, &Limits::default()).unwrap();
                assert_eq!(s.solution.is_some(), truth, "puzzle {d}, {order:?}");
                if let Some(path) = s.solution {
                    assert!(start.replay(&path).unwrap().is_solved());
                    assert_eq!(path.len(), 9);
                }
            }
            if truth {
                solvable += 1;
            } else {
                unsolvable += 1;
            }
        }
        assert!(
            solvable >= 5 && unsolvable >= 5,
            "{solvable} and {unsolvable}"
        );
        // And on a full deal.
        let s = search(
            &deal(0),
            Order::BestFirst(Weights::default()),
            &Limits::default(),
        );
        assert!(
            deal(0)
                .replay(&s.unwrap().solution.unwrap())
                .unwrap()
                .is_solved()
        );
    }

    #[test]
    fn an_unsolvable_puzzle_costs_every_board_in_either_order() {
        let mut checked = 0;
        for start in small_puzzles() {
            if solve(&start).unwrap().is_solvable() {
                continue;
            }
            let a = search(
                &start,
                Order::BestFirst(Weights::default()),
                &Limits::default(),
            )
            .unwrap();
            let b = search(&start, Order::DepthFirst, &Limits::default()).unwrap();
            assert_eq!((a.solution, b.solution), (None, None));
            // Independently: the full analysis counts the distinct boards
            // at every depth, and every one is expanded.
            let analysis = crate::engine::analysis::analyze(
                &start,
                &crate::engine::analysis::AnalysisOptions::default(),
            )
            .unwrap();
            let boards: u64 = analysis.depths.iter().map(|d| d.states).sum();
            assert_eq!(a.expanded, boards);
            assert_eq!(b.expanded, boards);
            checked += 1;
        }
        assert!(checked >= 5);
    }
}
