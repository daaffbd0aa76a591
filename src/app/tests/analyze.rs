//! egui_kittest drives the Analyze panel over a stored candidate: its depth
//! table shows counts with thousands separators, marks the halfway depth,
//! and the energy trace notes the steps left as gaps.

mod common;

use boaf_app::{BoafApp, Tab};
use boaf_core::Grid;
use boaf_core::engine::analysis::AnalysisOptions;
use boaf_core::engine::deal::deal;
use boaf_core::engine::deal::deal_on;
use boaf_core::engine::feature::FeatureSet;
use boaf_core::engine::features::{Features, features, features_for};
use boaf_core::engine::state::State;
use boaf_core::format;
use common::*;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

/// A stored candidate of `state` with this trace, in a fresh working folder,
/// and the app over that folder with the candidate open in the Analyze panel.
fn analyze_candidate(
    root: &TempDir,
    state: &State,
    features: Features,
    trace: Vec<f64>,
) -> Harness<'static, BoafApp> {
    store(root, &candidate(state, features, trace));
    let mut h = harness(root);
    // Open it from the queue (its Play button is below the Play tab), then
    // look at it in the Analyze panel.
    h.get_all_by_label("Play")
        .max_by(|a, b| a.rect().min.y.total_cmp(&b.rect().min.y))
        .expect("the tab and the queue's button")
        .click();
    h.run();
    h.get_by_label("Analyze").click();
    h.step();
    assert_eq!(h.state().tab(), Tab::Analyze);
    h
}

/// Every text painted in the last frame, with where it was painted.
fn painted_texts(h: &Harness<'_, BoafApp>) -> Vec<(String, egui::Pos2)> {
    painted_shapes(h)
        .into_iter()
        .filter_map(|s| match s {
            egui::Shape::Text(t) => Some((t.galley.text().to_owned(), t.pos)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_analyze_panel_shows_counts_with_separators_and_the_halfway_depth() {
    let root = TempDir::new("app-analyze");
    // A 12-card deal: big enough for layers of thousands of states, small
    // enough to analyse in a moment.
    let grid = Grid::new(3, 4).unwrap();
    let state = deal_on(1, grid);
    let (features, analysis) = features(&state, &AnalysisOptions::default()).unwrap();
    let big = analysis
        .depths
        .iter()
        .max_by_key(|d| d.states)
        .expect("a depth");
    assert!(big.states >= 1000, "a layer of thousands: {}", big.states);
    let shown = format::count(big.states);
    assert!(shown.contains(','), "{shown}");
    // Two unsolvable steps (the default penalty) in the middle of the trace.
    let trace = vec![5.0, 3.0, 1000.0, 1000.0, 4.0, 1.0];
    let mut h = analyze_candidate(&root, &state, features, trace);
    wait_for_label(&mut h, &shown);
    h.run_steps(2);
    // Every count in the table has its separators.
    for d in &analysis.depths {
        for count in [d.states, d.solvable, d.states - d.solvable] {
            assert!(
                h.query_all_by_label(&format::count(count)).next().is_some(),
                "depth {}: {} is shown",
                d.depth,
                format::count(count)
            );
        }
    }
    // The halfway depth is the core's: half the 12 stacks, 6.
    assert_eq!(analysis.halfway_depth(), 6);
    assert!(h.query_by_label("6 (halfway)").is_some());
    assert!(
        h.query_by_label_contains("the halfway depth, 6 (half the 12 stacks")
            .is_some()
    );
    // On the chart: a label under every depth, in one row, and the halfway line's.
    let texts = painted_texts(&h);
    let last = analysis.depths.len() - 1;
    let axis_row = texts.iter().find(|(t, pos)| {
        t == "0"
            && (1..=last).all(|d| {
                texts
                    .iter()
                    .any(|(u, p)| *u == d.to_string() && p.y == pos.y && p.x > pos.x)
            })
    });
    assert!(
        axis_row.is_some(),
        "depths 0 to {last} are labelled along the axis: {texts:?}"
    );
    assert!(texts.iter().any(|(t, _)| t.trim() == "halfway"));
    // The trace's axis says it is a log scale, measured from the lowest energy (1).
    assert!(texts.iter().any(|(t, _)| t == "energy (log, from 1)"));
    assert!(
        h.query_by_label(
            "2 steps met unsolvable puzzles (the penalty): they are gaps in the line."
        )
        .is_some()
    );
}

#[test]
fn a_long_analysis_shows_its_progress_and_can_be_cancelled() {
    let root = TempDir::new("app-analyze-progress");
    // 16 cards: seconds to minutes of analysis, with millions of states in
    // the middle layers; the first layers are reported within moments.
    let state = deal(1);
    let features = features_for(&state, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
    let mut h = analyze_candidate(&root, &state, features, vec![0.5, 0.25]);
    wait_for_label_contains(&mut h, "Counting states: depth ");
    let shown = h.get_by_label_contains("Counting states: depth ");
    let text = format!("{:?}", shown.accesskit_node());
    assert!(text.contains(" of 15 · "), "{text}");
    h.get_by_label("Cancel").click();
    wait_for_label(&mut h, "No analysis: cancelled");
}

/// The WCAG contrast ratio of two colours (1 to 21).
fn contrast(a: egui::Color32, b: egui::Color32) -> f32 {
    let luminance = |c: egui::Color32| {
        let lin = |v: u8| {
            let v = v as f32 / 255.0;
            if v <= 0.04045 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(c.r()) + 0.7152 * lin(c.g()) + 0.0722 * lin(c.b())
    };
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// The colour of the painted text `text` and the colour behind it: its own
/// background, or else the last opaque rectangle painted under it.
fn text_and_ground(h: &Harness<'_, BoafApp>, text: &str) -> (egui::Color32, egui::Color32) {
    let shapes = painted_shapes(h);
    let at = shapes
        .iter()
        .position(|s| matches!(s, egui::Shape::Text(t) if t.galley.text().trim() == text))
        .unwrap_or_else(|| panic!("'{text}' is painted"));
    let egui::Shape::Text(t) = &shapes[at] else {
        unreachable!()
    };
    let format = &t.galley.job.sections[0].format;
    let color = t
        .override_text_color
        .unwrap_or(if format.color == egui::Color32::PLACEHOLDER {
            t.fallback_color
        } else {
            format.color
        });
    let middle = t.visual_bounding_rect().center();
    let ground = if format.background.a() == 255 {
        format.background
    } else {
        shapes[..at]
            .iter()
            .rev()
            .find_map(|s| match s {
                egui::Shape::Rect(r) if r.fill.a() == 255 && r.rect.contains(middle) => {
                    Some(r.fill)
                }
                _ => None,
            })
            .expect("something under the text")
    };
    (color, ground)
}

#[test]
fn the_halfway_label_reads_on_the_bars_in_both_themes() {
    let root = TempDir::new("app-analyze-halfway");
    let state = deal_on(1, Grid::new(3, 4).unwrap());
    let (features, analysis) = features(&state, &AnalysisOptions::default()).unwrap();
    let mut h = analyze_candidate(&root, &state, features, vec![2.0, 1.0]);
    wait_for_label(&mut h, &format::count(analysis.depths[1].states));
    for theme in [egui::Theme::Dark, egui::Theme::Light] {
        h.ctx.set_theme(theme);
        h.run_steps(3);
        let (color, ground) = text_and_ground(&h, "halfway");
        // WCAG's AA level for text.
        let ratio = contrast(color, ground);
        assert!(
            ratio >= 4.5,
            "{theme:?}: {color:?} on {ground:?} is {ratio:.1}:1"
        );
    }
}

#[test]
fn the_trace_axis_writes_every_energy_in_one_form() {
    let root = TempDir::new("app-analyze-axis");
    let state = deal_on(1, Grid::new(3, 4).unwrap());
    let (features, analysis) = features(&state, &AnalysisOptions::default()).unwrap();
    // Halfway ratios (E5) from 0.003 down to 1.03e-4: ticks on both sides
    // of 0.001, where "0.0011" stood next to "6.03e-4".
    let trace = vec![0.003, 0.001, 0.000103];
    let mut h = analyze_candidate(&root, &state, features, trace);
    wait_for_label(&mut h, &format::count(analysis.depths[1].states));
    h.run_steps(2);
    // The axis's labels: numbers beside the trace, which sits (220 points
    // high) right above its "step" label; the feature table has numbers too.
    let texts = painted_texts(&h);
    let step = texts
        .iter()
        .find(|(t, _)| t == "step")
        .expect("the x axis")
        .1;
    let labels: Vec<String> = texts
        .into_iter()
        .filter(|(t, p)| {
            p.y < step.y
                && p.y > step.y - 260.0
                && t.parse::<f64>().is_ok_and(|v| (1e-4..=3e-3).contains(&v))
        })
        .map(|(t, _)| t)
        .collect();
    assert!(labels.len() >= 3, "{labels:?}");
    assert!(
        labels
            .iter()
            .all(|l| l.contains("e-") && l.len() == labels[0].len()),
        "{labels:?}"
    );
}
