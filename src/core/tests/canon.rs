//! The canonical form against the symmetry group applied by brute force.

mod common;

use boaf_core::Card;
use boaf_core::engine::canon::canonical;
use boaf_core::engine::state::{Grid, State};
use proptest::prelude::*;

/// One symmetry: row and column orders, transposition, suit relabelling, rank reversal.
#[derive(Clone, Debug)]
struct Sym {
    rows: Vec<usize>,
    cols: Vec<usize>,
    transpose: bool,
    suits: [u8; 4],
    reverse: bool,
}

fn perms(k: usize) -> Vec<Vec<usize>> {
    if k == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in perms(k - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, k - 1);
            out.push(q);
        }
    }
    out
}

/// Applies a symmetry: the card at (r, c) goes to (rows[r], cols[c]), transposed after.
fn apply(s: &State, g: &Sym) -> State {
    let grid = s.grid();
    let (r, c) = (grid.rows(), grid.cols());
    let mut tops = vec![None; r * c];
    for i in 0..r {
        for j in 0..c {
            let (mut ni, mut nj) = (g.rows[i], g.cols[j]);
            if g.transpose {
                (ni, nj) = (nj, ni);
            }
            tops[ni * c + nj] = s.top(i * c + j).map(|card| {
                let rank = if g.reverse {
                    12 - card.rank()
                } else {
                    card.rank()
                };
                Card::new(rank, g.suits[card.suit() as usize])
            });
        }
    }
    State::new(grid, &tops).unwrap()
}

/// Every symmetry of a grid shape.
fn group(grid: Grid) -> Vec<Sym> {
    let mut out = Vec::new();
    let square = grid.rows() == grid.cols();
    for rows in perms(grid.rows()) {
        for cols in perms(grid.cols()) {
            for transpose in [false, true] {
                if transpose && !square {
                    continue;
                }
                for suits in perms(4) {
                    for reverse in [false, true] {
                        out.push(Sym {
                            rows: rows.clone(),
                            cols: cols.clone(),
                            transpose,
                            suits: [
                                suits[0] as u8,
                                suits[1] as u8,
                                suits[2] as u8,
                                suits[3] as u8,
                            ],
                            reverse,
                        });
                    }
                }
            }
        }
    }
    out
}

fn brute_isomorphic(a: &State, b: &State) -> bool {
    a.grid() == b.grid() && group(a.grid()).iter().any(|g| apply(a, g) == *b)
}

fn arb_sym(grid: Grid) -> impl Strategy<Value = Sym> {
    let square = grid.rows() == grid.cols();
    (
        Just((0..grid.rows()).collect::<Vec<_>>()).prop_shuffle(),
        Just((0..grid.cols()).collect::<Vec<_>>()).prop_shuffle(),
        any::<bool>(),
        Just(vec![0u8, 1, 2, 3]).prop_shuffle(),
        any::<bool>(),
    )
        .prop_map(move |(rows, cols, t, suits, reverse)| Sym {
            rows,
            cols,
            transpose: t && square,
            suits: [suits[0], suits[1], suits[2], suits[3]],
            reverse,
        })
}

/// A random puzzle (one-card stacks) with a random symmetry of its grid.
fn puzzle_and_sym() -> impl Strategy<Value = (State, Sym)> {
    common::arb_state(16).prop_flat_map(|s| {
        let g = arb_sym(s.grid());
        (Just(s), g)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn invariant_under_every_symmetry((s, g) in puzzle_and_sym()) {
        prop_assert_eq!(canonical(&apply(&s, &g)), canonical(&s));
    }

    #[test]
    fn canonical_form_is_isomorphic_and_idempotent(s in common::arb_state(9)) {
        let c = canonical(&s);
        prop_assert_eq!(canonical(&c), c.clone());
        prop_assert!(brute_isomorphic(&s, &c));
    }

    #[test]
    fn equal_forms_only_for_isomorphic_puzzles(
        (s, g) in puzzle_and_sym(),
        a in 0usize..16,
        b in 0usize..16,
        card in 0u8..52,
    ) {
        // A near copy: the symmetric image with two cells swapped, or a card
        // changed. Usually it is not isomorphic; sometimes it is.
        let t = apply(&s, &g);
        let cells = t.grid().cells();
        let mut tops: Vec<Option<Card>> = t.tops().to_vec();
        let (a, b) = (a % cells, b % cells);
        tops.swap(a, b);
        let new = Card::from_code(card);
        if !tops.contains(&new) && tops[a].is_some() {
            tops[a] = new;
        }
        let u = State::new(t.grid(), &tops).unwrap();
        prop_assert_eq!(canonical(&s) == canonical(&u), brute_isomorphic(&s, &u));
    }
}

#[test]
fn paper_puzzle_and_a_mirror_image() {
    let s = boaf_core::engine::notation::parse_state(
        "-- -- KH -- / 2S -- JD QC / -- -- TS JS / -- -- 3C --",
        None,
    )
    .unwrap();
    // Columns reversed, hearts↔spades, ranks reversed: KH→AS, 2S→QH, …
    let m = boaf_core::engine::notation::parse_state(
        "-- AS -- -- / 2C 3D -- QH / 3H 4H -- -- / -- JC -- --",
        None,
    )
    .unwrap();
    assert_eq!(canonical(&s), canonical(&m));
    assert!(brute_isomorphic(&s, &m));
    // Moving one card to another row breaks the symmetry.
    let other = boaf_core::engine::notation::parse_state(
        "-- AS -- -- / 2C 3D -- QH / 3H -- 4H -- / -- JC -- --",
        None,
    )
    .unwrap();
    assert_ne!(canonical(&s), canonical(&other));
}
