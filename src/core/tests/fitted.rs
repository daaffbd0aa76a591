//! Energies fitted from ratings: the rated range of each feature is written
//! with the energy, read back, and used to flag the candidates the energy
//! extrapolates to.

use boaf_core::engine::analysis::AnalysisOptions;
use boaf_core::engine::feature::Feature;
use boaf_core::engine::features::{Features, features};
use boaf_core::engine::notation::parse_state;
use boaf_core::generator::energy::{EnergyBook, RangeExcursion, RatedRange};
use boaf_core::study::regress::fit;

fn feats(s: &str) -> Features {
    features(&parse_state(s, None).unwrap(), &AnalysisOptions::default())
        .unwrap()
        .0
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Eight ratings on two features, rank clusters 2–5 and the halfway ratio 0.1–0.6.
fn sample_fit() -> boaf_core::study::regress::Fit {
    let x = vec![
        vec![0.1, 2.0],
        vec![0.25, 3.0],
        vec![0.6, 5.0],
        vec![0.4, 2.0],
        vec![0.35, 4.0],
        vec![0.2, 5.0],
        vec![0.55, 3.0],
        vec![0.3, 4.0],
    ];
    let y = vec![3.0, 4.5, 9.0, 5.0, 6.5, 6.0, 7.5, 5.5];
    fit(&names(&["halfway_ratio", "rank_clusters"]), &x, &y).unwrap()
}

#[test]
fn the_fit_records_the_rated_range_of_each_feature() {
    let f = sample_fit();
    assert_eq!(f.ranges, vec![(0.1, 0.6), (2.0, 5.0)]);
}

#[test]
fn a_fitted_energy_keeps_its_rated_range_through_its_toml() {
    let f = sample_fit();
    let toml = f.to_energy_toml("fitted", "from eight ratings");
    assert!(
        toml.contains("range = { halfway_ratio = [0.1, 0.6], rank_clusters = [2.0, 5.0] }"),
        "{toml}"
    );
    let book = EnergyBook::parse(&toml, "fitted.toml").unwrap();
    let e = book.get("fitted").unwrap();
    let want = [
        RatedRange {
            feature: Feature::HalfwayRatio,
            min: 0.1,
            max: 0.6,
        },
        RatedRange {
            feature: Feature::RankClusters,
            min: 2.0,
            max: 5.0,
        },
    ];
    assert_eq!(e.rated_range(), want);
    assert_eq!(
        e.range_text().as_deref(),
        Some("rated halfway_ratio 0.1–0.6, rank_clusters 2–5")
    );
    // The range decides no value: the id is the definition's alone, as
    // without the range line.
    let bare: String = toml
        .lines()
        .filter(|l| !l.starts_with("range"))
        .map(|l| format!("{l}\n"))
        .collect();
    let without = EnergyBook::parse(&bare, "bare.toml").unwrap();
    let plain = without.get("fitted").unwrap();
    assert!(plain.rated_range().is_empty());
    assert_eq!(plain.id(), e.id());
    assert_eq!(plain.definition(), e.definition());
    // And it is still minus the predicted rating.
    let value = |feature: Feature| match feature {
        Feature::HalfwayRatio => Some(0.3),
        Feature::RankClusters => Some(4.0),
        _ => None,
    };
    assert!((e.eval_with(true, value) + f.predict(&[0.3, 4.0])).abs() < 1e-9);
}

#[test]
fn a_range_in_any_order_reads_in_the_order_the_energy_reads_its_features() {
    let book = EnergyBook::parse(
        "[[energy]]\nname = \"X\"\nvalue = \"n\"\nrange = { rank_clusters = [2, 5], n = [4, 9] }\n",
        "x.toml",
    )
    .unwrap();
    let r = book.get("X").unwrap().rated_range();
    let got: Vec<(&str, f64, f64)> = r
        .iter()
        .map(|r| (r.feature.column(), r.min, r.max))
        .collect();
    assert_eq!(got, [("n", 4.0, 9.0), ("rank_clusters", 2.0, 5.0)]);
}

fn err(text: &str) -> boaf_core::generator::energy::EnergyError {
    EnergyBook::parse(text, "my.toml").unwrap_err()
}

#[test]
fn a_bad_range_is_placed_at_its_line_and_column() {
    let head = "[[energy]]\nname = \"X\"\nvalue = \"n\"\n";
    // An unknown feature: at its key.
    let e = err(&format!(
        "{head}range = {{ n = [2, 5], rank_clusterz = [1, 2] }}\n"
    ));
    assert_eq!(
        (e.file.as_str(), e.line, e.column),
        ("my.toml", 4, 23),
        "{e}"
    );
    assert!(e.message.contains("unknown feature 'rank_clusterz'"), "{e}");
    // A min above its max: at the pair.
    let e = err(&format!("{head}range = {{ n = [9, 4] }}\n"));
    assert_eq!((e.line, e.column), (4, 15), "{e}");
    assert!(e.message.contains("min 9 above its max 4"), "{e}");
    // Not a pair, or not finite: at the value.
    let e = err(&format!("{head}range = {{ n = [4] }}\n"));
    assert_eq!((e.line, e.column), (4, 15), "{e}");
    assert!(e.message.contains("[min, max]"), "{e}");
    let e = err(&format!("\n{head}range = {{ n = [4, inf] }}\n"));
    assert_eq!((e.line, e.column), (5, 15), "{e}");
    // Not numbers at all: the TOML reader's error, still on the right line.
    let e = err(&format!("{head}range = {{ n = [\"a\", 4] }}\n"));
    assert_eq!(e.line, 4, "{e}");
    // min == max is a range of one value, and fine.
    assert!(EnergyBook::parse(&format!("{head}range = {{ n = [4, 4] }}\n"), "ok").is_ok());
}

/// An energy reading rank clusters and the halfway ratio, with this range.
fn ranged(range: &str) -> boaf_core::generator::energy::Energy {
    let text = format!(
        "[[energy]]\nname = \"fitted\"\nvalue = \"2 * rank_clusters - halfway_ratio\"\nrange = {{ {range} }}\n"
    );
    EnergyBook::parse(&text, "fitted.toml")
        .unwrap()
        .get("fitted")
        .unwrap()
        .clone()
}

#[test]
fn outside_range_lists_the_features_that_leave_the_rated_range() {
    // Six ranks two apart: six rank clusters.
    let six = feats("AS 3S 5S 7S / 9S JS -- -- / -- -- -- -- / -- -- -- --");
    assert_eq!(six.rank_clusters, 6);
    // Just inside, at the top of the range.
    assert!(
        ranged("rank_clusters = [2, 6]")
            .outside_range(&six)
            .is_empty()
    );
    assert!(
        ranged("rank_clusters = [6, 6]")
            .extrapolation_note(&six)
            .is_none()
    );
    // Just outside.
    let out = ranged("rank_clusters = [2, 5]").outside_range(&six);
    assert_eq!(
        out,
        [RangeExcursion {
            feature: Feature::RankClusters,
            value: 6.0,
            min: 2.0,
            max: 5.0,
        }]
    );
    assert_eq!(out[0].to_string(), "rank_clusters 6 outside the rated 2–5");
    // A real-valued feature, a hair either side of the candidate's value.
    let f = feats("-- -- KH -- / 2S -- JD QC / -- -- TS JS / -- -- 3C --");
    let h = f.halfway_ratio.unwrap();
    let at = |lo: f64, hi: f64| format!("halfway_ratio = [{lo:?}, {hi:?}]");
    assert!(ranged(&at(h, h)).outside_range(&f).is_empty());
    let above = h + 1e-9;
    let out = ranged(&at(above, 1.0)).outside_range(&f);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].value, out[0].min), (h, above));
    let below = h - 1e-9;
    assert_eq!(ranged(&at(0.0, below)).outside_range(&f).len(), 1);
    // Two features out: both named, in one note.
    let note = ranged(&format!("rank_clusters = [3, 5], {}", at(0.0, below)))
        .extrapolation_note(&f)
        .unwrap();
    assert!(
        note.starts_with("extrapolated: rank_clusters 2 outside the rated 3–5; halfway_ratio "),
        "{note}"
    );
}

#[test]
fn no_range_no_warning_and_no_guess_about_what_is_missing() {
    let six = feats("AS 3S 5S 7S / 9S JS -- -- / -- -- -- -- / -- -- -- --");
    // An energy with no rated range never warns.
    let plain =
        EnergyBook::parse("[[energy]]\nname = \"p\"\nvalue = \"rank_clusters\"\n", "p").unwrap();
    assert!(plain.get("p").unwrap().outside_range(&six).is_empty());
    // An unsolvable puzzle scores the penalty: nothing is extrapolated.
    let dead = feats("AS -- / -- 7D");
    assert!(!dead.solvable);
    assert!(ranged("n = [5, 9]").outside_range(&dead).is_empty());
    // A feature the puzzle does not have (no depth-3 ratio with 2 cards).
    let two = feats("AS 2S");
    assert_eq!(two.depth3_ratio, None);
    assert!(
        ranged("depth3_ratio = [0.5, 0.9]")
            .outside_range(&two)
            .is_empty()
    );
    assert_eq!(ranged("n = [3, 9]").outside_range(&two).len(), 1);
}
