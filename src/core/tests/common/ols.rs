//! The reference regression the tests check boaf's against: the normal
//! equations solved by Cholesky, on columns read with the csv crate alone.

#![allow(dead_code)]

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
