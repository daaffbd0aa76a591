//! What the tests share. Here: an independent, deliberately plain reference
//! search over the public rules API (`State::legal_moves` / `State::apply`),
//! keyed by the notation string, which shares nothing with the solver or the
//! analysis, and random states for the property tests. In [`ols`]: a
//! reference regression; in [`temp`]: temporary folders that clean up.

#![allow(dead_code)]

pub mod ols;
pub mod temp;

use boaf_core::Card;
use boaf_core::engine::notation::to_compact;
use boaf_core::engine::state::{Grid, State};
use proptest::prelude::*;
use proptest::sample::subsequence;
use std::collections::{HashMap, HashSet};

/// Plain memoized DFS: can this state reach one stack?
pub fn naive_solvable(s: &State, memo: &mut HashMap<String, bool>) -> bool {
    if s.stack_count() <= 1 {
        return true;
    }
    let key = to_compact(s);
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let v = s
        .legal_moves()
        .iter()
        .any(|&m| naive_solvable(&s.apply(m).unwrap(), memo));
    memo.insert(key, v);
    v
}

/// Plain breadth-first layers: (distinct states, solvable states) for every
/// depth 0..k−1 of a k-stack state (empty layers included).
pub fn naive_layers(s: &State) -> Vec<(u64, u64)> {
    naive_layers_to(s, usize::MAX)
}

/// [`naive_layers`] for depths 0..=`deepest` only.
pub fn naive_layers_to(s: &State, deepest: usize) -> Vec<(u64, u64)> {
    let mut memo = HashMap::new();
    let mut layer: Vec<State> = vec![s.clone()];
    let mut out = Vec::new();
    for _depth in 0..s.stack_count().max(1).min(deepest.saturating_add(1)) {
        let solvable = layer
            .iter()
            .filter(|st| naive_solvable(st, &mut memo))
            .count();
        out.push((layer.len() as u64, solvable as u64));
        let mut seen = HashSet::new();
        let mut next = Vec::new();
        for st in &layer {
            for m in st.legal_moves() {
                let child = st.apply(m).unwrap();
                if seen.insert(to_compact(&child)) {
                    next.push(child);
                }
            }
        }
        layer = next;
    }
    out
}

/// Random states: a grid of up to 4×4 with up to `max_cards` distinct cards
/// in random cells. Cards come from a window of a few ranks so that they flock
/// often and many states are solvable, which gives the properties teeth.
pub fn arb_state(max_cards: usize) -> impl Strategy<Value = State> {
    (1..=4usize, 1..=4usize, 0u8..13, 3u8..=13)
        .prop_flat_map(move |(r, c, low, width)| {
            let cells = r * c;
            let pool: Vec<u8> = (0u8..52)
                .filter(|&code| (code / 4 + 13 - low) % 13 < width)
                .collect();
            let most = cells.min(max_cards).min(pool.len());
            // Mostly well-filled grids: at least half the cards that fit.
            ((most / 2).max(1)..=most).prop_flat_map(move |n| {
                (
                    Just((r, c)),
                    subsequence(pool.clone(), n).prop_shuffle(),
                    subsequence((0..cells).collect::<Vec<_>>(), n),
                )
            })
        })
        .prop_map(|((r, c), cards, cells)| {
            let grid = Grid::new(r, c).unwrap();
            let mut tops = vec![None; grid.cells()];
            for (card, cell) in cards.into_iter().zip(cells) {
                tops[cell] = Card::from_code(card);
            }
            State::new(grid, &tops).unwrap()
        })
}
