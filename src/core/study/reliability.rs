//! How far a multi-rater study's ratings can be trusted, and how many more
//! it would take: the split-half reliability of the puzzle means, the ICC of
//! the puzzle means, the R² ceiling they allow, and a power estimate per
//! coefficient.

use statrs::distribution::{ContinuousCDF, Normal};
use std::collections::BTreeMap;

/// The split-half reliability of the puzzle means.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SplitHalf {
    /// Pearson's r between the two halves' puzzle means.
    pub r: f64,
    /// r corrected to the full number of ratings (Spearman–Brown): 2r ÷ (1 + r).
    pub reliability: f64,
    /// Puzzles with at least two ratings, the ones correlated.
    pub puzzles: usize,
}

/// The split-half reliability of the puzzle means. The halves are made the
/// same way every time, so that the figure is reproducible: each puzzle's
/// ratings are sorted by rater id (ties in row order), and the 1st, 3rd,
/// 5th… go to half A, the 2nd, 4th… to half B. Puzzles rated fewer than
/// twice are left out. `None` with fewer than three such puzzles, or when a
/// half's means do not vary.
pub fn split_half(raters: &[String], puzzles: &[String], y: &[f64]) -> Option<SplitHalf> {
    let mut by_puzzle: BTreeMap<&str, Vec<(&str, f64)>> = BTreeMap::new();
    for ((r, p), &v) in raters.iter().zip(puzzles).zip(y) {
        by_puzzle.entry(p).or_default().push((r, v));
    }
    let mut halves = Vec::new();
    for ratings in by_puzzle.values_mut() {
        if ratings.len() < 2 {
            continue;
        }
        // A stable sort keeps the row order among one rater's ratings.
        ratings.sort_by(|a, b| a.0.cmp(b.0));
        let half = |parity: usize| {
            let v: Vec<f64> = ratings
                .iter()
                .skip(parity)
                .step_by(2)
                .map(|r| r.1)
                .collect();
            v.iter().sum::<f64>() / v.len() as f64
        };
        halves.push((half(0), half(1)));
    }
    let (a, b): (Vec<f64>, Vec<f64>) = halves.into_iter().unzip();
    let r = pearson(&a, &b).filter(|_| a.len() >= 3)?;
    Some(SplitHalf {
        r,
        reliability: 2.0 * r / (1.0 + r),
        puzzles: a.len(),
    })
}

/// Pearson's correlation (`None` if either side does not vary).
fn pearson(a: &[f64], b: &[f64]) -> Option<f64> {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma).powi(2);
        sbb += (y - mb).powi(2);
    }
    (saa > 0.0 && sbb > 0.0).then(|| sab / (saa * sbb).sqrt())
}

/// The ICC of the puzzle means from the variance components: the share of
/// a puzzle mean's variance that is the puzzle's own,
/// σ²puzzle ÷ (σ²puzzle + (σ²rater + σ²residual) ÷ k), with k the harmonic
/// mean of the ratings per puzzle. This is ICC(1,k) of McGraw & Wong: each
/// puzzle is rated by its own set of raters, so a rater's leniency is error
/// in that puzzle's mean. `None` when every component is 0.
pub fn icc_of_means(puzzle: f64, rater: f64, residual: f64, per_puzzle: f64) -> Option<f64> {
    let total = puzzle + (rater + residual) / per_puzzle;
    (total > 0.0 && per_puzzle > 0.0).then(|| puzzle / total)
}

/// The harmonic mean of the number of ratings per puzzle: the k at which
/// equal-sized puzzles would give the same error in their means.
pub fn harmonic_ratings_per_puzzle(puzzles: &[String]) -> f64 {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for p in puzzles {
        *counts.entry(p).or_default() += 1;
    }
    let inverse: f64 = counts.values().map(|&c| 1.0 / c as f64).sum();
    if inverse > 0.0 {
        counts.len() as f64 / inverse
    } else {
        0.0
    }
}

/// Each puzzle's mean feature values and mean rating, in puzzle-id order:
/// the data on which the features' R² is set beside the reliability.
pub fn puzzle_means(puzzles: &[String], x: &[Vec<f64>], y: &[f64]) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut sums: BTreeMap<&str, (Vec<f64>, f64, usize)> = BTreeMap::new();
    for ((p, row), &v) in puzzles.iter().zip(x).zip(y) {
        let e = sums
            .entry(p)
            .or_insert_with(|| (vec![0.0; row.len()], 0.0, 0));
        for (s, r) in e.0.iter_mut().zip(row) {
            *s += r;
        }
        e.1 += v;
        e.2 += 1;
    }
    sums.into_values()
        .map(|(xs, ys, c)| (xs.iter().map(|s| s / c as f64).collect(), ys / c as f64))
        .unzip()
}

/// The power the estimate below aims for.
pub const POWER: f64 = 0.8;
/// The two-sided significance level it aims for.
pub const ALPHA: f64 = 0.05;

/// About how many ratings in all would make a coefficient significant
/// (two-sided α = 0.05) with 80% power if its estimate stayed the same:
/// standard errors shrink as 1 ÷ √n, so n·((z₀.₉₇₅ + z₀.₈) ÷ |t|)², with
/// z₀.₉₇₅ + z₀.₈ = 1.960 + 0.842. More of the same study is assumed: raters
/// and puzzles in the same proportion, since a puzzle feature's standard
/// error stops shrinking once its puzzles are well rated. `None` for t = 0
/// or not finite.
pub fn ratings_for_power(n: usize, t: f64) -> Option<f64> {
    let z = Normal::standard();
    let needed = z.inverse_cdf(1.0 - ALPHA / 2.0) + z.inverse_cdf(POWER);
    (t.is_finite() && t != 0.0).then(|| n as f64 * (needed / t.abs()).powi(2))
}

/// How many ratings beyond `n` [`ratings_for_power`] asks for (0 when the
/// coefficient already has the power).
pub fn more_ratings(n: usize, t: f64) -> Option<usize> {
    ratings_for_power(n, t).map(|total| (total.ceil() as usize).saturating_sub(n))
}
