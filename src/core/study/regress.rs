//! The regression of ratings on puzzle features (seed 001, Tables 1–4).
//!
//! Ordinary least squares with linfa-linear on z-scored features (sample
//! standard deviation), with an intercept. Standard errors come from
//! σ²·(Z'Z)⁻¹ with σ² = RSS ÷ (n − k − 1) (the inverse, and the eigenvalues
//! of the collinearity test, from nalgebra); t and two-sided p from
//! Student's t (statrs). Fits that cannot be trusted say why instead of
//! showing NaN: too few ratings, a constant feature, collinear features.

use crate::engine::feature::Feature;
use crate::format;
use crate::study::ratings::{RatingsTable, ValueProblem};
use linfa::Dataset;
use linfa::traits::Fit as _;
use linfa_linear::LinearRegression;
use nalgebra::DMatrix;
use ndarray::{Array1, Array2};
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};
use thiserror::Error;

/// The features of seed 001's Table 4, the regression's default choice.
pub const DEFAULT_FEATURES: [Feature; 5] = [
    Feature::Depth1Ratio,
    Feature::HalfwayRatio,
    Feature::DominantSuitRatio,
    Feature::RankClusters,
    Feature::AvgFlockability,
];

/// Above this condition number of the features' correlation matrix the fit
/// is refused: X'X is singular to working precision.
pub const SINGULAR_CONDITION: f64 = 1e10;
/// Above this the fit is shown with a warning: the features are nearly
/// collinear and the coefficients unstable (a correlation near 0.999).
pub const BAD_CONDITION: f64 = 1e3;

/// Why there is no fit.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum RegressError {
    /// No feature was chosen.
    #[error("choose at least one feature")]
    NoFeatures,
    /// Fewer ratings than coefficients.
    #[error(
        "{} cannot fit {coefs} coefficients (the intercept and {}): rate more puzzles or choose fewer features",
        format::plural(*rows, "usable rating"),
        format::plural(*features, "feature")
    )]
    TooFewRows {
        /// Ratings with every chosen feature.
        rows: usize,
        /// Coefficients to fit.
        coefs: usize,
        /// Features chosen.
        features: usize,
    },
    /// A feature has the same value in every rating.
    #[error("'{0}' has the same value in every rating, so it cannot be normalized or fitted")]
    Constant(String),
    /// X'X is singular.
    #[error(
        "the features are collinear (X'X is singular, condition number {condition:.3e}): {hint}"
    )]
    Collinear {
        /// The condition number of the correlation matrix.
        condition: f64,
        /// Which features look responsible.
        hint: String,
    },
    /// A feature name is not a column of the ratings file.
    #[error("the ratings have no column '{0}'")]
    UnknownFeature(String),
    /// linfa could not solve it.
    #[error("the least-squares solver failed: {0}")]
    Solver(String),
}

/// One fitted coefficient.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Coef {
    /// The feature (or `intercept`).
    pub name: String,
    /// The coefficient on the z-scored feature.
    pub estimate: f64,
    /// Its standard error (`None` when there are no residual degrees of freedom).
    pub std_error: Option<f64>,
    /// estimate ÷ std_error.
    pub t: Option<f64>,
    /// Two-sided p-value of t with n − k − 1 degrees of freedom.
    pub p: Option<f64>,
}

impl Coef {
    /// A coefficient with its t and two-sided p (from `t_dist`, when there
    /// is one) worked out from its estimate and standard error.
    pub(crate) fn new(
        name: &str,
        estimate: f64,
        std_error: Option<f64>,
        t_dist: Option<&StudentsT>,
    ) -> Coef {
        let t = std_error.filter(|&se| se > 0.0).map(|se| estimate / se);
        let p = t
            .zip(t_dist)
            // The survival function keeps tiny p-values that 1 − cdf rounds to 0.
            .map(|(t, d)| 2.0 * d.sf(t.abs()))
            .filter(|p| p.is_finite());
        Coef {
            name: name.to_string(),
            estimate,
            std_error,
            t,
            p,
        }
    }
}

/// A fitted regression.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit {
    /// The intercept (the mean rating, since the features are centred).
    pub intercept: Coef,
    /// One coefficient per feature, in the order chosen.
    pub coefs: Vec<Coef>,
    /// Each feature's mean over the ratings used.
    pub means: Vec<f64>,
    /// Each feature's sample standard deviation.
    pub sds: Vec<f64>,
    /// Each feature's smallest and largest value over the ratings used: the
    /// rated range, outside which a prediction is an extrapolation.
    pub ranges: Vec<(f64, f64)>,
    /// Ratings used.
    pub n: usize,
    /// R² (`None` when every rating is the same).
    pub r2: Option<f64>,
    /// Adjusted R² (`None` without residual degrees of freedom).
    pub adj_r2: Option<f64>,
    /// Residual standard error σ.
    pub sigma: Option<f64>,
    /// Condition number of the features' correlation matrix.
    pub condition: f64,
    /// Things the reader should know before trusting the table.
    pub warnings: Vec<String>,
}

impl Fit {
    /// The predicted rating of a puzzle with these raw feature values.
    pub fn predict(&self, x: &[f64]) -> f64 {
        self.intercept.estimate
            + self
                .coefs
                .iter()
                .zip(x)
                .enumerate()
                .map(|(j, (c, v))| c.estimate * (v - self.means[j]) / self.sds[j])
                .sum::<f64>()
    }

    /// The line under the table: n, R², adjusted R², σ and the condition number.
    pub fn summary(&self) -> String {
        format!(
            "n = {} · R² = {} · adjusted R² = {} · residual σ = {} · condition number {}",
            self.n,
            format::fixed(self.r2, 4),
            format::fixed(self.adj_r2, 4),
            format::fixed(self.sigma, 3),
            format::fixed(Some(self.condition), 1)
        )
    }

    /// The fit as raw-unit weights: (constant, weight per feature), so that
    /// the prediction is constant + Σ weight·feature.
    pub fn raw_weights(&self) -> (f64, Vec<f64>) {
        let w: Vec<f64> = self
            .coefs
            .iter()
            .enumerate()
            .map(|(j, c)| c.estimate / self.sds[j])
            .collect();
        let c0 =
            self.intercept.estimate - w.iter().zip(&self.means).map(|(w, m)| w * m).sum::<f64>();
        (c0, w)
    }

    /// A user energy (TOML) that is minus the predicted rating, so that the
    /// generator looks for the puzzles the ratings reward, with the rated
    /// range of each feature so that a candidate outside it can be flagged.
    pub fn to_energy_toml(&self, name: &str, about: &str) -> String {
        self.to_energy_toml_over(name, about, None)
    }

    /// [`Fit::to_energy_toml`], with the card counts the ratings covered
    /// ([`FitData::cards`]) in the rated range too, so that a run at other
    /// cards is warned of before it starts (`n` is rarely a feature of the
    /// fit: ratings of one card count leave it constant).
    pub fn to_energy_toml_over(
        &self,
        name: &str,
        about: &str,
        cards: Option<(f64, f64)>,
    ) -> String {
        let (c0, w) = self.raw_weights();
        let mut value = format!("{}", -c0);
        for (c, w) in self.coefs.iter().zip(&w) {
            let (sign, mag) = if -w < 0.0 { ('-', *w) } else { ('+', -w) };
            value.push_str(&format!(" {sign} {mag} * {}", c.name));
        }
        let entry = FittedEnergy {
            name,
            about,
            value,
            range: RatedRanges(
                self.coefs
                    .iter()
                    .zip(&self.ranges)
                    .map(|(c, &(lo, hi))| (c.name.as_str(), [lo, hi]))
                    // The cards last, as the energy lists a feature it does not read.
                    .chain(
                        cards
                            .filter(|_| !self.coefs.iter().any(|c| c.name == "n"))
                            .map(|(lo, hi)| ("n", [lo, hi])),
                    )
                    .collect(),
            ),
        };
        // toml_edit rather than toml: only it writes the range as the inline
        // table the file has always had, one line that a reader can drop.
        let entry = toml_edit::ser::to_document(&entry)
            .expect("a fitted energy is strings and numbers, all of them TOML");
        let mut energies = toml_edit::ArrayOfTables::new();
        energies.push(entry.into_table());
        let mut file = toml_edit::DocumentMut::new();
        file.insert("energy", toml_edit::Item::ArrayOfTables(energies));
        file.to_string()
    }
}

/// A fitted energy as the energies file holds it: one `[[energy]]` table.
#[derive(Serialize)]
struct FittedEnergy<'a> {
    name: &'a str,
    about: &'a str,
    value: String,
    range: RatedRanges<'a>,
}

/// Each feature's rated range, `feature = [min, max]`, in the fit's order.
struct RatedRanges<'a>(Vec<(&'a str, [f64; 2])>);

impl Serialize for RatedRanges<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(name, range)| (name, range)))
    }
}

/// The ratings usable for a fit, and why the others were left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FitData {
    /// One row of raw feature values per rating.
    pub x: Vec<Vec<f64>>,
    /// The ratings.
    pub y: Vec<f64>,
    /// The table row each of `y` comes from, to find its rater and puzzle.
    pub rows: Vec<usize>,
    /// Rows left out, for either reason below.
    pub left_out: usize,
    /// Rows left out only because the rating or a chosen feature is empty
    /// (a deal that never got halfway has no halfway ratio).
    pub missing: usize,
    /// Rows left out because a value does not read as a number.
    pub unreadable: usize,
    /// Each value that does not read, in file order.
    pub problems: Vec<ValueProblem>,
    /// The card counts (`n`) of the rows used, smallest and largest, when
    /// the table has them: a fit says nothing of other card counts.
    pub cards: Option<(f64, f64)>,
}

impl FitData {
    /// One line saying how many rows were left out and why (`None` when
    /// every row was used).
    pub fn left_out_summary(&self) -> Option<String> {
        let rows = |k: usize| {
            if k == 1 {
                "1 row".to_string()
            } else {
                format!("{k} rows")
            }
        };
        let mut why = Vec::new();
        if self.missing > 0 {
            why.push(format!(
                "{} with no value for the rating or a chosen feature",
                rows(self.missing)
            ));
        }
        if self.unreadable > 0 {
            why.push(format!(
                "{} with a value that is not a number",
                rows(self.unreadable)
            ));
        }
        (self.left_out > 0).then(|| format!("{} left out: {}", rows(self.left_out), why.join(", ")))
    }
}

/// The rows of a ratings table that have a rating and every chosen feature.
/// A row with an empty cell is left out as missing; one with a value that
/// does not read is left out and each such value listed with its place.
pub fn table_data(table: &RatingsTable, features: &[String]) -> Result<FitData, RegressError> {
    for f in features {
        if table.column(f).is_none() {
            return Err(RegressError::UnknownFeature(f.clone()));
        }
    }
    let mut data = FitData::default();
    for row in 0..table.rows.len() {
        let mut values = Vec::with_capacity(features.len());
        let (mut missing, mut bad) = (false, false);
        let mut rating = None;
        // The rating first, then the features: the order the problems are listed in.
        for (j, name) in std::iter::once("rating")
            .chain(features.iter().map(String::as_str))
            .enumerate()
        {
            match table.checked_number(row, name) {
                Ok(Some(v)) if j == 0 => rating = Some(v),
                Ok(Some(v)) => values.push(v),
                Ok(None) => missing = true,
                Err(p) => {
                    bad = true;
                    data.problems.push(p);
                }
            }
        }
        match rating {
            Some(r) if !missing && !bad => {
                data.x.push(values);
                data.y.push(r);
                if let Some(n) = table.number(row, "n") {
                    let (lo, hi) = data.cards.unwrap_or((n, n));
                    data.cards = Some((lo.min(n), hi.max(n)));
                }
                data.rows.push(row);
            }
            _ => {
                data.left_out += 1;
                if bad {
                    data.unreadable += 1;
                } else {
                    data.missing += 1;
                }
            }
        }
    }
    Ok(data)
}

/// Fits ratings `y` on the features `x` (one row of raw values per rating).
pub fn fit(names: &[String], x: &[Vec<f64>], y: &[f64]) -> Result<Fit, RegressError> {
    let k = names.len();
    let n = y.len().min(x.len());
    if k == 0 {
        return Err(RegressError::NoFeatures);
    }
    if n < k + 1 || n < 2 {
        return Err(RegressError::TooFewRows {
            rows: n,
            coefs: k + 1,
            features: k,
        });
    }
    let Standardized {
        means,
        sds,
        ranges,
        z,
        corr,
        condition,
    } = standardize(names, x, n)?;
    let targets = Array1::from_vec(y[..n].to_vec());
    let model = LinearRegression::new()
        .fit(&Dataset::new(z.clone(), targets.clone()))
        .map_err(|e| RegressError::Solver(e.to_string()))?;
    let beta: Vec<f64> = model.params().to_vec();
    let intercept = model.intercept();
    let fitted = z.dot(model.params()) + intercept;
    let rss: f64 = (&targets - &fitted).mapv(|r| r * r).sum();
    let mean_y = targets.sum() / n as f64;
    let tss: f64 = targets.mapv(|v| (v - mean_y).powi(2)).sum();
    let df = n - k - 1;
    let mut warnings = Vec::new();
    if df == 0 {
        warnings.push(format!(
            "{} for {} coefficients: the fit is exact, so there are no standard errors; rate more puzzles",
            format::plural(n, "rating"),
            k + 1
        ));
    } else if df < 5 {
        warnings.push(format!(
            "only {df} residual degrees of freedom: the standard errors are very rough"
        ));
    }
    if condition > BAD_CONDITION {
        warnings.push(format!(
            "the features are nearly collinear (condition number {condition:.0}): {}; the coefficients are unstable",
            collinear_hint(names, &corr)
        ));
    }
    let sigma2 = (df > 0).then(|| rss / df as f64);
    // (Z1'Z1)⁻¹ for Z with a column of ones: Z is centred, so the intercept
    // is orthogonal to the features and its variance is σ²/n.
    let inv = invert(&corr.mapv(|v| v * (n - 1) as f64));
    let t_dist = (df > 0)
        .then(|| StudentsT::new(0.0, 1.0, df as f64).ok())
        .flatten();
    let coef = |name: &str, estimate: f64, var_factor: Option<f64>| {
        let std_error = sigma2
            .zip(var_factor)
            .map(|(s2, v)| (s2 * v).sqrt())
            .filter(|se| se.is_finite());
        Coef::new(name, estimate, std_error, t_dist.as_ref())
    };
    if tss <= 0.0 {
        warnings.push("every rating is the same, so there is nothing to explain (no R²)".into());
    }
    let r2 = (tss > 0.0).then(|| 1.0 - rss / tss);
    Ok(Fit {
        intercept: coef("intercept", intercept, Some(1.0 / n as f64)),
        coefs: names
            .iter()
            .enumerate()
            .map(|(j, name)| coef(name, beta[j], inv.as_ref().map(|m| m[(j, j)])))
            .collect(),
        means,
        sds,
        ranges,
        n,
        r2,
        adj_r2: r2
            .filter(|_| df > 0)
            .map(|r2| 1.0 - (1.0 - r2) * (n - 1) as f64 / df as f64),
        sigma: sigma2.map(f64::sqrt),
        condition,
        warnings,
    })
}

/// Raw feature values z-scored, with what the fit reports about them.
pub(crate) struct Standardized {
    /// Each feature's mean.
    pub means: Vec<f64>,
    /// Each feature's sample standard deviation.
    pub sds: Vec<f64>,
    /// Each feature's rated range.
    pub ranges: Vec<(f64, f64)>,
    /// The z-scored features, one row per rating.
    pub z: Array2<f64>,
    /// The features' correlation matrix.
    pub corr: Array2<f64>,
    /// Its condition number.
    pub condition: f64,
}

/// Z-scores the first `n` rows of `x`, refusing a constant feature and
/// singular collinearity: the one preparation the OLS and mixed fits share.
pub(crate) fn standardize(
    names: &[String],
    x: &[Vec<f64>],
    n: usize,
) -> Result<Standardized, RegressError> {
    let k = names.len();
    let mut means = vec![0.0; k];
    let mut sds = vec![0.0; k];
    let mut ranges = vec![(0.0, 0.0); k];
    for j in 0..k {
        ranges[j] = x[..n]
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
                (lo.min(r[j]), hi.max(r[j]))
            });
        let m = x[..n].iter().map(|r| r[j]).sum::<f64>() / n as f64;
        let var = x[..n].iter().map(|r| (r[j] - m).powi(2)).sum::<f64>() / (n - 1) as f64;
        means[j] = m;
        sds[j] = var.sqrt();
        if sds[j] <= 1e-12 * m.abs().max(1.0) {
            return Err(RegressError::Constant(names[j].clone()));
        }
    }
    let z = Array2::from_shape_fn((n, k), |(i, j)| (x[i][j] - means[j]) / sds[j]);
    // The correlation matrix: its condition number is the collinearity test.
    let corr = z.t().dot(&z) / (n - 1) as f64;
    let eig = symmetric_eigenvalues(&corr);
    let (lo, hi) = eig.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &e| {
        (lo.min(e), hi.max(e))
    });
    let condition = if lo > 0.0 { hi / lo } else { f64::INFINITY };
    if condition > SINGULAR_CONDITION {
        return Err(RegressError::Collinear {
            condition,
            hint: collinear_hint(names, &corr),
        });
    }
    Ok(Standardized {
        means,
        sds,
        ranges,
        z,
        corr,
        condition,
    })
}

/// The most correlated pair of features, to say which ones are collinear.
pub(crate) fn collinear_hint(names: &[String], corr: &Array2<f64>) -> String {
    let k = names.len();
    let mut best = None;
    for a in 0..k {
        for b in a + 1..k {
            let r = corr[[a, b]];
            if best.is_none_or(|(_, _, br): (usize, usize, f64)| r.abs() > br.abs()) {
                best = Some((a, b, r));
            }
        }
    }
    match best {
        Some((a, b, r)) => format!(
            "'{}' and '{}' have correlation {r:.4}; drop one of them",
            names[a], names[b]
        ),
        None => "a feature is a combination of the others".into(),
    }
}

/// An ndarray matrix as nalgebra's, for the linear algebra linfa does not give.
fn to_nalgebra(m: &Array2<f64>) -> DMatrix<f64> {
    DMatrix::from_fn(m.nrows(), m.ncols(), |i, j| m[[i, j]])
}

/// The inverse of a square matrix (LU with partial pivoting); `None` if it
/// is singular.
fn invert(m: &Array2<f64>) -> Option<DMatrix<f64>> {
    to_nalgebra(m).try_inverse()
}

/// The eigenvalues of a symmetric matrix.
fn symmetric_eigenvalues(m: &Array2<f64>) -> Vec<f64> {
    to_nalgebra(m)
        .symmetric_eigenvalues()
        .iter()
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn left_out_rows_are_counted_by_reason() {
        use crate::study::ratings::parse_ratings;
        let csv = "puzzle,rating,halfway_ratio\nA,1,0.5\nB,2,\nC,,0.1\nD,x,NaN\n";
        let table = parse_ratings(csv.as_bytes(), "r.csv").unwrap();
        let data = table_data(&table, &names(&["halfway_ratio"])).unwrap();
        assert_eq!((data.x, data.y), (vec![vec![0.5]], vec![1.0]));
        assert_eq!((data.left_out, data.missing, data.unreadable), (3, 2, 1));
        // Both bad values of D are listed; an empty cell is not a problem.
        let shown: Vec<String> = data.problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            shown,
            [
                "line 5, column rating: 'x' is not a number",
                "line 5, column halfway_ratio: 'NaN' is not a number"
            ]
        );
        let one = table_data(
            &parse_ratings(b"puzzle,rating\nA,\nB,2\n", "r").unwrap(),
            &[],
        )
        .unwrap();
        assert_eq!(
            one.left_out_summary().as_deref(),
            Some("1 row left out: 1 row with no value for the rating or a chosen feature")
        );
        assert_eq!(
            table_data(&table, &names(&["depth1_ratio"])),
            Err(RegressError::UnknownFeature("depth1_ratio".into()))
        );
    }

    #[test]
    fn eigenvalues_of_a_known_matrix() {
        // [[2,1],[1,2]] has eigenvalues 1 and 3.
        let m = Array2::from_shape_vec((2, 2), vec![2.0, 1.0, 1.0, 2.0]).unwrap();
        let mut e = symmetric_eigenvalues(&m);
        e.sort_by(f64::total_cmp);
        assert!(
            (e[0] - 1.0).abs() < 1e-12 && (e[1] - 3.0).abs() < 1e-12,
            "{e:?}"
        );
    }

    #[test]
    fn exact_line_is_recovered() {
        // y = 3 + 2x exactly: the slope on z-scored x is 2·sd(x).
        let x: Vec<Vec<f64>> = (0..6).map(|i| vec![i as f64]).collect();
        let y: Vec<f64> = (0..6).map(|i| 3.0 + 2.0 * i as f64).collect();
        let f = fit(&names(&["a"]), &x, &y).unwrap();
        let sd = (17.5f64 / 5.0).sqrt();
        assert!((f.coefs[0].estimate - 2.0 * sd).abs() < 1e-9);
        assert!((f.intercept.estimate - 8.0).abs() < 1e-9);
        assert!((f.r2.unwrap() - 1.0).abs() < 1e-12);
        let (c0, w) = f.raw_weights();
        assert!((c0 - 3.0).abs() < 1e-9 && (w[0] - 2.0).abs() < 1e-9);
        assert!((f.predict(&[10.0]) - 23.0).abs() < 1e-9);
    }

    #[test]
    fn refuses_what_it_cannot_fit() {
        let x: Vec<Vec<f64>> = (0..5)
            .map(|i| vec![i as f64, 2.0 * i as f64 + 1.0])
            .collect();
        let y = vec![1.0, 2.0, 2.0, 4.0, 5.0];
        assert!(matches!(
            fit(&names(&["a", "b"]), &x, &y),
            Err(RegressError::Collinear { .. })
        ));
        let c: Vec<Vec<f64>> = (0..5).map(|i| vec![i as f64, 7.0]).collect();
        assert_eq!(
            fit(&names(&["a", "c"]), &c, &y),
            Err(RegressError::Constant("c".into()))
        );
        assert!(matches!(
            fit(&names(&["a", "b"]), &x[..2], &y[..2]),
            Err(RegressError::TooFewRows {
                rows: 2,
                coefs: 3,
                ..
            })
        ));
        assert_eq!(fit(&[], &x, &y), Err(RegressError::NoFeatures));
        // Exactly as many ratings as coefficients: a fit, but no errors.
        let f = fit(&names(&["a"]), &x[..2], &y[..2]).unwrap();
        assert!(f.coefs[0].std_error.is_none() && f.adj_r2.is_none());
        assert!(!f.warnings.is_empty());
    }

    #[test]
    fn a_fitted_energy_reads_back_exactly() {
        let x: Vec<Vec<f64>> = (0..6)
            .map(|i| vec![i as f64 * 0.1, (i * i) as f64])
            .collect();
        let y: Vec<f64> = (0..6)
            .map(|i| 3.0 + 2.0 * i as f64 + (i % 2) as f64)
            .collect();
        let f = fit(&names(&["a", "c"]), &x, &y).unwrap();
        let text = f.to_energy_toml("fit \"1\"", "R² from a\\b");
        let file: toml::Table = toml::from_str(&text).unwrap();
        let e = file["energy"][0].as_table().unwrap();
        assert_eq!(e["name"].as_str(), Some("fit \"1\""));
        assert_eq!(e["about"].as_str(), Some("R² from a\\b"));
        let range = |name: &str| -> Vec<f64> {
            let r = e["range"][name].as_array().unwrap();
            r.iter().map(|v| v.as_float().unwrap()).collect()
        };
        assert_eq!(range("a"), [0.0, 0.5]);
        assert_eq!(range("c"), [0.0, 25.0]);
        // The range is one line, the last, as the file has always had it.
        assert!(
            text.ends_with("range = { a = [0.0, 0.5], c = [0.0, 25.0] }\n"),
            "{text}"
        );
    }
}
