//! The statistics boaf's experiments report: a win rate's Wilson interval
//! and the paired test for two agents' difference (the agents' reports), and
//! Spearman's rank correlation (how well an estimate ranks puzzles).

use statrs::distribution::{Binomial, ContinuousCDF, DiscreteCDF, Normal};

/// The Wilson score interval for `wins` of `games` at confidence `level`
/// (0.95 for 95 %); (0, 1) when no games were played.
pub fn wilson(wins: u64, games: u64, level: f64) -> (f64, f64) {
    if games == 0 {
        return (0.0, 1.0);
    }
    let z = z_for(level);
    let (n, p) = (games as f64, wins as f64 / games as f64);
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The two-sided normal quantile for a confidence level.
fn z_for(level: f64) -> f64 {
    let normal = Normal::standard();
    normal.inverse_cdf(0.5 + level / 2.0)
}

/// McNemar's exact test for two agents that played the same games (same
/// deals, same seeds): `only_a` games won by the first alone, `only_b` by
/// the second alone. The two-sided p-value: twice the smaller binomial tail
/// of the discordant games at ½, at most 1; 1 when none are discordant.
pub fn mcnemar_exact(only_a: u64, only_b: u64) -> f64 {
    let n = only_a + only_b;
    if n == 0 {
        return 1.0;
    }
    let Ok(binomial) = Binomial::new(0.5, n) else {
        return 1.0;
    };
    (2.0 * binomial.cdf(only_a.min(only_b))).min(1.0)
}

/// Spearman's rank correlation of two samples (ties get their mean rank).
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    fn ranks(v: &[f64]) -> Vec<f64> {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
        let mut r = vec![0.0; v.len()];
        let mut i = 0;
        while i < idx.len() {
            let mut j = i;
            while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
                j += 1;
            }
            let mean = (i + j) as f64 / 2.0 + 1.0;
            for &k in &idx[i..=j] {
                r[k] = mean;
            }
            i = j + 1;
        }
        r
    }
    let (rx, ry) = (ranks(x), ranks(y));
    let n = x.len() as f64;
    let mean = (n + 1.0) / 2.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        sxy += (a - mean) * (b - mean);
        sxx += (a - mean) * (a - mean);
        syy += (b - mean) * (b - mean);
    }
    sxy / (sxx * syy).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_a_hand_computation() {
        // 94 of 100 at 95 %: [0.87523, 0.97221], as published Wilson
        // calculators give it (centre 0.923723, half-width 0.048491).
        let (lo, hi) = wilson(94, 100, 0.95);
        assert!((lo - 0.875232).abs() < 1e-5, "{lo}");
        assert!((hi - 0.972214).abs() < 1e-5, "{hi}");
        // All won: the upper end is 1, the lower end n / (n + z²).
        let (lo, hi) = wilson(50, 50, 0.95);
        assert_eq!(hi, 1.0);
        assert!((lo - 50.0 / (50.0 + 1.959964_f64.powi(2))).abs() < 1e-6);
        assert_eq!(wilson(0, 0, 0.95), (0.0, 1.0));
    }

    #[test]
    fn mcnemar_matches_the_binomial_tails() {
        // 2 against 8 discordant games: 2 · P(X ≤ 2), X ~ Bin(10, ½)
        // = 2 · (1 + 10 + 45) / 1024 = 0.109375.
        assert!((mcnemar_exact(2, 8) - 0.109375).abs() < 1e-12);
        assert!((mcnemar_exact(8, 2) - 0.109375).abs() < 1e-12);
        // 0 against 6: 2 / 64.
        assert!((mcnemar_exact(0, 6) - 2.0 / 64.0).abs() < 1e-12);
        assert_eq!(mcnemar_exact(5, 5), 1.0);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
    }

    #[test]
    fn spearman_by_hand() {
        assert_eq!(
            spearman(&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 30.0, 40.0]),
            1.0
        );
        assert_eq!(spearman(&[1.0, 2.0, 3.0, 4.0], &[4.0, 3.0, 2.0, 1.0]), -1.0);
        // Ranks (1, 2, 3, 4) against (1, 3, 2, 4): 1 − 6·2 / (4·15) = 0.8.
        assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]) - 0.8).abs() < 1e-12);
        // Ties take mean ranks: y ranks (1.5, 1.5, 3).
        let r = spearman(&[1.0, 2.0, 3.0], &[5.0, 5.0, 9.0]);
        assert!((r - 0.866_025_403_784_438_6).abs() < 1e-12, "{r}");
    }
}
