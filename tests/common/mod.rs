//! An independent, deliberately plain reference: exhaustive search over the
//! public rules API (`State::legal_moves` / `State::apply`), keyed by the
//! notation string. It shares nothing with the solver or the analysis.

#![allow(dead_code)]

use boaf::Card;
use boaf::notation::to_compact;
use boaf::state::{Grid, State};
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

/// Columns of a CSV file by header name, for rows where all of them parse:
/// (feature rows, target values). Read with the csv crate only.
pub fn csv_columns(
    path: &std::path::Path,
    features: &[&str],
    target: &str,
) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let headers = r.headers().unwrap().clone();
    let at = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let cols: Vec<usize> = features.iter().map(|f| at(f)).collect();
    let t = at(target);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for rec in r.records() {
        let rec = rec.unwrap();
        let row: Option<Vec<f64>> = cols.iter().map(|&c| rec[c].parse().ok()).collect();
        if let (Some(row), Ok(v)) = (row, rec[t].parse::<f64>()) {
            x.push(row);
            y.push(v);
        }
    }
    (x, y)
}

/// The reference OLS: z-score each feature (sample sd), add a column of
/// ones, and solve the normal equations X'X b = X'y by Cholesky. Returns the
/// coefficients (intercept first) and their standard errors.
pub fn normal_equations_zscored(x: &[Vec<f64>], y: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let (n, k) = (y.len(), x[0].len());
    let mut design = vec![vec![1.0; k + 1]; n];
    for j in 0..k {
        let mean = x.iter().map(|r| r[j]).sum::<f64>() / n as f64;
        let sd = (x.iter().map(|r| (r[j] - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
        for i in 0..n {
            design[i][j + 1] = (x[i][j] - mean) / sd;
        }
    }
    let p = k + 1;
    let mut a = vec![vec![0.0; p]; p];
    let mut b = vec![0.0; p];
    for i in 0..n {
        for r in 0..p {
            b[r] += design[i][r] * y[i];
            for c in 0..p {
                a[r][c] += design[i][r] * design[i][c];
            }
        }
    }
    // Cholesky: a = L L'.
    let mut l = vec![vec![0.0; p]; p];
    for r in 0..p {
        for c in 0..=r {
            let s: f64 = (0..c).map(|m| l[r][m] * l[c][m]).sum();
            if r == c {
                l[r][c] = (a[r][r] - s).sqrt();
            } else {
                l[r][c] = (a[r][c] - s) / l[c][c];
            }
        }
    }
    let solve = |rhs: &[f64]| {
        let mut z = vec![0.0; p];
        for r in 0..p {
            z[r] = (rhs[r] - (0..r).map(|m| l[r][m] * z[m]).sum::<f64>()) / l[r][r];
        }
        let mut v = vec![0.0; p];
        for r in (0..p).rev() {
            v[r] = (z[r] - (r + 1..p).map(|m| l[m][r] * v[m]).sum::<f64>()) / l[r][r];
        }
        v
    };
    let beta = solve(&b);
    let rss: f64 = (0..n)
        .map(|i| (y[i] - (0..p).map(|r| design[i][r] * beta[r]).sum::<f64>()).powi(2))
        .sum();
    let sigma2 = rss / (n - p) as f64;
    let se = (0..p)
        .map(|r| {
            let mut e = vec![0.0; p];
            e[r] = 1.0;
            (sigma2 * solve(&e)[r]).sqrt()
        })
        .collect();
    (beta, se)
}
