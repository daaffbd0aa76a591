//! The multi-rater statistics: the mixed model against lme4's fixture, OLS
//! unchanged with one rater, and reliability and power by hand.

use boaf_core::study::mixed::{self, Model};
use boaf_core::study::regress;
use boaf_core::study::reliability;
use std::path::Path;

/// A fixture's ratings: rater, puzzle, raw features, rating.
struct Study {
    raters: Vec<String>,
    puzzles: Vec<String>,
    x: Vec<Vec<f64>>,
    y: Vec<f64>,
}

fn fixture(name: &str) -> Study {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lme4");
    let mut reader = csv::Reader::from_path(path.join(format!("{name}.csv"))).unwrap();
    let mut s = Study {
        raters: vec![],
        puzzles: vec![],
        x: vec![],
        y: vec![],
    };
    for row in reader.records() {
        let row = row.unwrap();
        let num = |i: usize| row[i].parse::<f64>().unwrap();
        s.raters.push(row[0].to_string());
        s.puzzles.push(row[1].to_string());
        s.x.push(vec![num(2), num(3)]);
        s.y.push(num(4));
    }
    s
}

/// lme4's value of a quantity (`estimate`, `std_error`, `variance`, `reml`).
fn lmer(name: &str, quantity: &str, what: &str) -> f64 {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lme4");
    let mut reader = csv::Reader::from_path(path.join(format!("{name}-lmer.csv"))).unwrap();
    reader
        .records()
        .map(Result::unwrap)
        .find(|r| &r[0] == quantity && &r[1] == what)
        .unwrap_or_else(|| panic!("{name}: no {quantity} {what}"))[2]
        .parse()
        .unwrap()
}

/// Fits a fixture and asserts it agrees with lme4 to 1e-4, absolute, on the
/// estimates, standard errors and variance components (each is of order 1),
/// and on the REML criterion to 1e-6 relative. Returns the largest absolute
/// difference of each kind, which the test prints.
fn agrees_with_lme4(name: &str) -> [f64; 4] {
    let s = fixture(name);
    let names = vec!["f1".to_string(), "f2".to_string()];
    let fit = mixed::fit(&names, &s.x, &s.y, &s.raters, &s.puzzles).unwrap();
    let mut worst = [0.0f64; 4];
    let lme4_names = ["(Intercept)", "z1", "z2"];
    for (c, lname) in std::iter::once(&fit.intercept)
        .chain(&fit.coefs)
        .zip(lme4_names)
    {
        let d = (c.estimate - lmer(name, "estimate", lname)).abs();
        assert!(d < 1e-4, "{name} {lname}: estimate off by {d}");
        worst[0] = worst[0].max(d);
        let d = (c.std_error.unwrap() - lmer(name, "std_error", lname)).abs();
        assert!(d < 1e-4, "{name} {lname}: standard error off by {d}");
        worst[1] = worst[1].max(d);
    }
    let c = fit.components;
    for (ours, group) in [
        (c.rater, "rater"),
        (c.puzzle, "puzzle"),
        (c.residual, "Residual"),
    ] {
        let d = (ours - lmer(name, "variance", group)).abs();
        assert!(d < 1e-4, "{name} {group}: variance off by {d}");
        worst[2] = worst[2].max(d);
    }
    let reml = lmer(name, "reml", "criterion");
    let d = (fit.reml - reml).abs();
    assert!(d < 1e-6 * reml.abs(), "{name}: REML criterion off by {d}");
    worst[3] = d;
    assert_eq!(
        (fit.n, fit.raters),
        (
            s.y.len(),
            s.raters[s.raters.len() - 1][1..].parse().unwrap()
        )
    );
    eprintln!(
        "{name}: largest |difference| from lme4: estimates {:.1e}, standard errors {:.1e}, variances {:.1e}, REML criterion {:.1e}",
        worst[0], worst[1], worst[2], worst[3]
    );
    worst
}

#[test]
fn crossed_raters_and_puzzles_agree_with_lme4() {
    agrees_with_lme4("crossed");
}

#[test]
fn a_rater_variance_at_zero_agrees_with_lme4() {
    // lme4's rater variance is exactly 0 here: a boundary fit.
    assert_eq!(lmer("boundary", "variance", "rater"), 0.0);
    agrees_with_lme4("boundary");
}

#[test]
fn one_rater_is_todays_ols_exactly() {
    let s = fixture("crossed");
    let names = vec!["f1".to_string(), "f2".to_string()];
    let one = vec!["me".to_string(); s.y.len()];
    let ols = regress::fit(&names, &s.x, &s.y).unwrap();
    assert_eq!(
        mixed::choose(&names, &s.x, &s.y, &one, &s.puzzles).unwrap(),
        Model::Ols(ols.clone())
    );
    // Unnamed raters (an old file's empty column) are one rater too.
    let unnamed = vec![String::new(); s.y.len()];
    assert_eq!(
        mixed::choose(&names, &s.x, &s.y, &unnamed, &s.puzzles).unwrap(),
        Model::Ols(ols)
    );
    assert!(matches!(
        mixed::choose(&names, &s.x, &s.y, &s.raters, &s.puzzles).unwrap(),
        Model::Mixed(_)
    ));
}

fn ids(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn split_half_reliability_by_hand() {
    // Three puzzles. Sorted by rater id, the 1st and 3rd ratings go to half A,
    // the 2nd to half B:
    //   P: a 8, b 6, c 7   → A = (8 + 7)/2 = 7.5, B = 6
    //   Q: a 2, c 4 (b 3 comes after a in id order: a 2, b 3, c 4)
    //        → A = (2 + 4)/2 = 3, B = 3
    //   R: b 5, c 6        → A = 5, B = 6
    // A = (7.5, 3, 5), mean 5.1667; B = (6, 3, 6), mean 5.
    // dA = (2.3333, −2.1667, −0.1667), dB = (1, −2, 1).
    // Σ dA·dB = 2.3333 + 4.3333 − 0.1667 = 6.5
    // Σ dA² = 5.4444 + 4.6944 + 0.0278 = 10.1667; Σ dB² = 6.
    // r = 6.5 / √(10.1667 · 6) = 6.5 / √61 = 0.832240;
    // Spearman–Brown: 2r / (1 + r) = 1.664479 / 1.832240 = 0.908440.
    let raters = ids(&["c", "a", "b", "c", "b", "a", "b", "c"]);
    let puzzles = ids(&["P", "P", "P", "Q", "Q", "Q", "R", "R"]);
    let y = [7.0, 8.0, 6.0, 4.0, 3.0, 2.0, 5.0, 6.0];
    let s = reliability::split_half(&raters, &puzzles, &y).unwrap();
    let r = 6.5 / (61.0f64).sqrt();
    assert!((s.r - r).abs() < 1e-12, "{}", s.r);
    assert!((s.r - 0.832240).abs() < 1e-6);
    assert!((s.reliability - 2.0 * r / (1.0 + r)).abs() < 1e-12);
    assert!((s.reliability - 0.908440).abs() < 1e-6);
    assert_eq!(s.puzzles, 3);
    // A puzzle rated once is left out; two puzzles are too few to correlate.
    let few = reliability::split_half(&raters[..5], &puzzles[..5], &y[..5]);
    assert_eq!(few, None);
}

#[test]
fn icc_and_ratings_per_puzzle_by_hand() {
    // Puzzles rated 2, 3 and 6 times: the harmonic mean is 3 / (1/2 + 1/3 + 1/6) = 3.
    let puzzles = ids(&["P", "P", "Q", "Q", "Q", "R", "R", "R", "R", "R", "R"]);
    assert!((reliability::harmonic_ratings_per_puzzle(&puzzles) - 3.0).abs() < 1e-12);
    // σ²puzzle 1, σ²rater 0.5, σ²residual 2.5, k = 3: 1 / (1 + 3/3) = 0.5.
    assert_eq!(reliability::icc_of_means(1.0, 0.5, 2.5, 3.0), Some(0.5));
    assert_eq!(reliability::icc_of_means(0.0, 0.0, 0.0, 3.0), None);
    // Puzzle means in id order: P (1, 2) rating 4; Q (3, 4) rating 7.
    let (x, y) = reliability::puzzle_means(
        &ids(&["Q", "P", "P"]),
        &[vec![3.0, 4.0], vec![0.0, 2.0], vec![2.0, 2.0]],
        &[7.0, 3.0, 5.0],
    );
    assert_eq!(
        (x, y),
        (vec![vec![1.0, 2.0], vec![3.0, 4.0]], vec![4.0, 7.0])
    );
}

#[test]
fn ratings_for_power_worked_example() {
    // 100 ratings, t = 1.4: 100 · ((1.959964 + 0.841621) / 1.4)² = 400.45,
    // so 401 ratings in all, 301 more.
    let total = reliability::ratings_for_power(100, 1.4).unwrap();
    assert!((total - 400.4530).abs() < 1e-3, "{total}");
    assert_eq!(reliability::more_ratings(100, -1.4), Some(301));
    // Already powered: none more. t = 0 has no answer.
    assert_eq!(reliability::more_ratings(100, 5.0), Some(0));
    assert_eq!(reliability::more_ratings(100, 0.0), None);
}

#[test]
fn the_study_is_judged() {
    let s = fixture("crossed");
    let names = vec!["f1".to_string(), "f2".to_string()];
    let j = mixed::judge(&names, &s.x, &s.y, &s.raters, &s.puzzles);
    let split = j.split_half.clone().unwrap();
    assert_eq!(split.puzzles, 40);
    assert_eq!(j.r2_ceiling, Some(split.reliability));
    let icc = j.icc.unwrap();
    assert!(icc > 0.0 && icc < 1.0, "{icc}");
    let r2 = j.features_r2.unwrap();
    assert!(r2 > 0.0 && r2 < 1.0, "{r2}");
}
