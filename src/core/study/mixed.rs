//! The regression when several people rated: a linear mixed model,
//! rating ~ features + (1 | rater) + (1 | puzzle), fitted by REML.
//!
//! Crossed random intercepts for rater and puzzle take out a lenient rater
//! and a puzzle's own appeal, so that the features' coefficients are not
//! judged as if every rating were independent. The fit is mixeff-rs's
//! (lme4's profiled-REML formulation, checked against lme4 to 1e-4 in
//! `tests/mixed.rs`) on the same z-scored features as the OLS fit
//! ([`regress`](crate::study::regress)). With one rater the model is today's
//! OLS, unchanged ([`choose`]).
//!
//! lme4 gives no p-values. Here t is read against Student's t with
//! puzzles − k − 1 degrees of freedom (k features): the features are
//! properties of the puzzle, the same for every rater, so they are estimated
//! from differences between puzzles, and that is the df the containment
//! (between–within) rule gives them. Satterthwaite's df come close to it for
//! puzzle-level effects; the normal approximation would overstate
//! significance with the 20–50 puzzles a study has.

use crate::study::regress::{self, BAD_CONDITION, Coef, Fit, RegressError};
use crate::study::reliability;
use mixeff_rs::formula::parse_formula;
use mixeff_rs::model::{DataFrame, FitOptions, LinearMixedModelBuilder, MixedModelFit as _};
use serde::Serialize;
use statrs::distribution::StudentsT;
use std::collections::BTreeSet;

/// The variances the model splits a rating into.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Components {
    /// Between raters: how much raters differ in leniency.
    pub rater: f64,
    /// Between puzzles, beyond what the features explain.
    pub puzzle: f64,
    /// Within: one rater's rating of one puzzle, around both.
    pub residual: f64,
}

/// A fitted mixed model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MixedFit {
    /// The intercept: the mean rating of a typical rater at the mean features.
    pub intercept: Coef,
    /// One coefficient per feature (on the z-scored feature), in the order chosen.
    pub coefs: Vec<Coef>,
    /// About how many more ratings each coefficient needs to be significant
    /// at 80% power, intercept first ([`reliability::more_ratings`]).
    pub more_ratings: Vec<Option<usize>>,
    /// Each feature's mean over the ratings used.
    pub means: Vec<f64>,
    /// Each feature's sample standard deviation.
    pub sds: Vec<f64>,
    /// Each feature's rated range.
    pub ranges: Vec<(f64, f64)>,
    /// Ratings used.
    pub n: usize,
    /// Distinct raters.
    pub raters: usize,
    /// Distinct puzzles.
    pub puzzles: usize,
    /// The variance components.
    pub components: Components,
    /// The REML criterion at the optimum (−2 × the restricted log-likelihood).
    pub reml: f64,
    /// The degrees of freedom t is read against (puzzles − k − 1).
    pub df: usize,
    /// Condition number of the features' correlation matrix.
    pub condition: f64,
    /// Things the reader should know before trusting the table.
    pub warnings: Vec<String>,
}

impl MixedFit {
    /// The line under the table: n, raters, puzzles, the REML criterion.
    pub fn summary(&self) -> String {
        format!(
            "n = {} ratings · {} raters · {} puzzles · REML criterion {:.3} · t on {} df · condition number {:.1}",
            self.n, self.raters, self.puzzles, self.reml, self.df, self.condition
        )
    }

    /// The fixed effects as an OLS-shaped [`Fit`] (no R²; σ the residual
    /// SD), for what takes one: the predicted rating and the fitted energy.
    pub fn fixed_effects(&self) -> Fit {
        Fit {
            intercept: self.intercept.clone(),
            coefs: self.coefs.clone(),
            means: self.means.clone(),
            sds: self.sds.clone(),
            ranges: self.ranges.clone(),
            n: self.n,
            r2: None,
            adj_r2: None,
            sigma: Some(self.components.residual.sqrt()),
            condition: self.condition,
            warnings: self.warnings.clone(),
        }
    }
}

/// The model a study's ratings get.
#[derive(Clone, Debug, PartialEq)]
pub enum Model {
    /// One rater: ordinary least squares, today's table.
    Ols(Fit),
    /// Several raters: the mixed model.
    Mixed(MixedFit),
}

/// Chooses the model by the number of distinct raters: with one (or none
/// named) it is [`regress::fit`]'s OLS, exactly; with more the mixed model.
pub fn choose(
    names: &[String],
    x: &[Vec<f64>],
    y: &[f64],
    raters: &[String],
    puzzles: &[String],
) -> Result<Model, RegressError> {
    if raters.iter().collect::<BTreeSet<_>>().len() <= 1 {
        return regress::fit(names, x, y).map(Model::Ols);
    }
    fit(names, x, y, raters, puzzles).map(Model::Mixed)
}

/// Fits rating ~ features + (1 | rater) + (1 | puzzle) by REML, one row of
/// raw feature values, one rater id and one puzzle id per rating. No
/// features fits the intercept alone (the null model the ICC comes from).
pub fn fit(
    names: &[String],
    x: &[Vec<f64>],
    y: &[f64],
    raters: &[String],
    puzzles: &[String],
) -> Result<MixedFit, RegressError> {
    let k = names.len();
    let n = y.len().min(x.len()).min(raters.len()).min(puzzles.len());
    if n < k + 3 {
        return Err(RegressError::TooFewRows {
            rows: n,
            coefs: k + 1,
            features: k,
        });
    }
    let (means, sds, ranges, condition, mut warnings, z) = if k == 0 {
        (vec![], vec![], vec![], 1.0, vec![], vec![])
    } else {
        let s = regress::standardize(names, x, n)?;
        let mut warnings = Vec::new();
        if s.condition > BAD_CONDITION {
            warnings.push(format!(
                "the features are nearly collinear (condition number {:.0}): {}; the coefficients are unstable",
                s.condition,
                regress::collinear_hint(names, &s.corr)
            ));
        }
        let z: Vec<Vec<f64>> = (0..k).map(|j| s.z.column(j).to_vec()).collect();
        (s.means, s.sds, s.ranges, s.condition, warnings, z)
    };
    fn solver(e: impl std::fmt::Display) -> RegressError {
        RegressError::Solver(e.to_string())
    }
    let mut frame = DataFrame::new();
    frame
        .add_numeric("rating", y[..n].to_vec())
        .map_err(solver)?;
    // Columns z0, z1…: a feature's name need not be a formula identifier.
    let mut formula = "rating ~ 1".to_string();
    for (j, col) in z.into_iter().enumerate() {
        frame.add_numeric(&format!("z{j}"), col).map_err(solver)?;
        formula.push_str(&format!(" + z{j}"));
    }
    formula.push_str(" + (1 | rater) + (1 | puzzle)");
    frame
        .add_categorical("rater", raters[..n].to_vec())
        .map_err(solver)?;
    frame
        .add_categorical("puzzle", puzzles[..n].to_vec())
        .map_err(solver)?;
    let model = LinearMixedModelBuilder::new(parse_formula(&formula).map_err(solver)?, &frame)
        .fit(FitOptions::reml())
        .map_err(solver)?;
    let count = |ids: &[String]| ids[..n].iter().collect::<BTreeSet<_>>().len();
    let (n_raters, n_puzzles) = (count(raters), count(puzzles));
    let variance = |group: &str| {
        let sds = model.std_devs();
        model
            .fnames()
            .iter()
            .position(|g| g == group)
            .map_or(0.0, |i| sds[i][0].powi(2))
    };
    let components = Components {
        rater: variance("rater"),
        puzzle: variance("puzzle"),
        residual: model.sigma().powi(2),
    };
    let df = n_puzzles.saturating_sub(k + 1);
    if df < 5 {
        warnings.push(format!(
            "{} puzzles for {} coefficients leave {df} degrees of freedom: the p-values are very rough; rate more puzzles",
            n_puzzles,
            k + 1
        ));
    }
    let t_dist = (df > 0)
        .then(|| StudentsT::new(0.0, 1.0, df as f64).ok())
        .flatten();
    let (beta, se) = (model.coef(), model.stderror());
    let coef = |name: &str, i: usize| {
        let std_error = Some(se[i]).filter(|s| s.is_finite());
        Coef::new(name, beta[i], std_error, t_dist.as_ref())
    };
    let intercept = coef("intercept", 0);
    let coefs: Vec<Coef> = names
        .iter()
        .enumerate()
        .map(|(j, name)| coef(name, j + 1))
        .collect();
    let more_ratings = std::iter::once(&intercept)
        .chain(&coefs)
        .map(|c| c.t.and_then(|t| reliability::more_ratings(n, t)))
        .collect();
    Ok(MixedFit {
        intercept,
        coefs,
        more_ratings,
        means,
        sds,
        ranges,
        n,
        raters: n_raters,
        puzzles: n_puzzles,
        components,
        reml: model.objective(),
        df,
        condition,
        warnings,
    })
}

/// What the table shows beside a mixed fit: how reliable the puzzle means
/// are, and what R² the features reach on them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Judgement {
    /// The split-half reliability of the puzzle means (Spearman–Brown).
    pub split_half: Option<reliability::SplitHalf>,
    /// The ICC of the puzzle means, from the null model's components.
    pub icc: Option<f64>,
    /// The null model's components (rating ~ 1 + (1 | rater) + (1 | puzzle)).
    pub null_components: Option<Components>,
    /// The R² the puzzle means allow: their reliability (classical test
    /// theory: the share of their variance that is not noise).
    pub r2_ceiling: Option<f64>,
    /// The features' R² on the puzzle means (OLS of each puzzle's mean
    /// rating on its features), to set beside the ceiling.
    pub features_r2: Option<f64>,
}

/// Judges a study's ratings: the split-half reliability, the ICC of the
/// puzzle means from the null model, the R² ceiling and the features' R².
pub fn judge(
    names: &[String],
    x: &[Vec<f64>],
    y: &[f64],
    raters: &[String],
    puzzles: &[String],
) -> Judgement {
    let split_half = reliability::split_half(raters, puzzles, y);
    let null = fit(&[], x, y, raters, puzzles).ok();
    let per_puzzle = reliability::harmonic_ratings_per_puzzle(puzzles);
    let icc = null.as_ref().and_then(|m| {
        let c = m.components;
        reliability::icc_of_means(c.puzzle, c.rater, c.residual, per_puzzle)
    });
    let (px, py) = reliability::puzzle_means(puzzles, x, y);
    Judgement {
        r2_ceiling: split_half.as_ref().map(|s| s.reliability),
        split_half,
        icc,
        null_components: null.map(|m| m.components),
        features_r2: regress::fit(names, &px, &py).ok().and_then(|f| f.r2),
    }
}
