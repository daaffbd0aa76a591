//! Canonical forms of puzzles, for dropping isomorphic duplicates.
//!
//! These change nothing about the game: permuting rows, permuting columns,
//! transposing a square grid (moves need a shared row or column), permuting
//! suits, and reversing ranks (A↔K, 2↔Q, …: adjacency is kept, and A and K
//! stay apart). Two puzzles are isomorphic iff their canonical forms are equal.
//!
//! The form is the least encoding over the whole group. Writing the puzzle as
//! a list of lines along its longer side (columns, for a 4×4 grid), each line
//! a vector of cells along the shorter side, a choice of suit relabelling, rank
//! direction, transposition and order of the short side leaves only the order
//! of the lines, and sorting the lines gives its least encoding. That is at
//! most 24 × 2 × 2 × 24 sorts of at most 16 lines.

use crate::engine::card::Card;
use crate::engine::state::{MAX_CELLS, State};

/// All permutations of `0..k`, in lexicographic order.
fn permutations(k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut p: Vec<usize> = (0..k).collect();
    loop {
        out.push(p.clone());
        // Next permutation, or done.
        let Some(i) = (1..k).rev().find(|&i| p[i - 1] < p[i]) else {
            return out;
        };
        let j = (i..k)
            .rev()
            .find(|&j| p[j] > p[i - 1])
            .expect("p[i] qualifies");
        p.swap(i - 1, j);
        p[i..].reverse();
    }
}

/// Cell codes: 0 for empty, else 1 + rank·4 + suit (after relabelling).
type Code = u8;

/// The canonical form of a puzzle's cards (stack sizes are ignored): an
/// isomorphic puzzle on the same grid, the same for every isomorphic puzzle.
pub fn canonical(state: &State) -> State {
    let grid = state.grid();
    let (rows, cols) = (grid.rows(), grid.cols());
    // The short side indexes within a line; the long side lists the lines.
    let short = rows.min(cols);
    let long = rows.max(cols);
    let orientations: &[bool] = if rows == cols {
        &[false, true]
    } else {
        &[false]
    };
    let short_perms = permutations(short);
    let suit_perms = permutations(4);
    // `at(t, line, k)`: the cell at place k of line `line` under transposition t.
    let at = |t: bool, line: usize, k: usize| -> usize {
        // Lines run along the long side: for rows ≤ cols a line is a column.
        let (r, c) = if rows <= cols { (k, line) } else { (line, k) };
        let (r, c) = if t { (c, r) } else { (r, c) };
        r * cols + c
    };
    let mut best: Option<Vec<[Code; 4]>> = None;
    let mut lines: Vec<[Code; 4]> = vec![[0; 4]; long];
    for sigma in &suit_perms {
        for reverse in [false, true] {
            let code = |c: Card| {
                let rank = if reverse { 12 - c.rank() } else { c.rank() };
                1 + rank * 4 + sigma[c.suit() as usize] as u8
            };
            for &t in orientations {
                for perm in &short_perms {
                    for (line, v) in lines.iter_mut().enumerate() {
                        for (k, &from) in perm.iter().enumerate() {
                            v[k] = state.top(at(t, line, from)).map_or(0, code);
                        }
                    }
                    lines.sort_unstable();
                    if best.as_ref().is_none_or(|b| lines < *b) {
                        best = Some(lines.clone());
                    }
                }
            }
        }
    }
    let best = best.expect("at least one arrangement");
    let mut tops: [Option<Card>; MAX_CELLS] = [None; MAX_CELLS];
    for (line, v) in best.iter().enumerate() {
        for (k, &c) in v[..short].iter().enumerate() {
            tops[at(false, line, k)] = (c > 0).then(|| Card::new((c - 1) / 4, (c - 1) % 4));
        }
    }
    State::new(grid, &tops[..grid.cells()]).expect("a rearrangement of a valid puzzle")
}

/// Whether two puzzles (on the same grid shape) are the same up to symmetry.
pub fn isomorphic(a: &State, b: &State) -> bool {
    a.grid() == b.grid() && canonical(a) == canonical(b)
}

/// The canonical form in compact notation: the key that puzzle stores deduplicate by.
pub fn canonical_key(state: &State) -> String {
    crate::engine::notation::to_compact(&canonical(state))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_all_there() {
        assert_eq!(permutations(0).len(), 1);
        assert_eq!(permutations(3).len(), 6);
        let p4 = permutations(4);
        assert_eq!(p4.len(), 24);
        let mut sorted = p4.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, p4);
    }
}
