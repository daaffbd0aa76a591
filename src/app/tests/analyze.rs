//! egui_kittest drives the Analyze panel over a stored candidate: its depth
//! table shows counts with thousands separators, marks the halfway depth,
//! and the energy trace notes the steps left as gaps.

#[path = "../../core/tests/common/temp.rs"]
mod temp;

use boaf_app::{BoafApp, Tab};
use boaf_core::Grid;
use boaf_core::engine::analysis::AnalysisOptions;
use boaf_core::engine::deal::deal;
use boaf_core::engine::deal::deal_on;
use boaf_core::engine::features::{Features, Need, features, features_for};
use boaf_core::engine::notation::to_compact;
use boaf_core::engine::state::State;
use boaf_core::folder::Folder;
use boaf_core::format;
use boaf_core::generator::pipeline::Candidate;
use boaf_core::generator::search::SearchParams;
use boaf_core::generator::store::PuzzleStore;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use std::time::{Duration, Instant};
use temp::TempDir;

/// Steps the app (it never blocks) until a widget with this label shows, or
/// fails after 60 s.
fn wait_for_label(h: &mut Harness<'_, BoafApp>, label: &str) {
    let start = Instant::now();
    while h.query_by_label(label).is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "'{label}' never showed; status: {:?}",
            h.state().status_text()
        );
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Steps the app until a widget whose label contains `part` shows, or
/// fails after 60 s.
fn wait_for_label_containing(h: &mut Harness<'_, BoafApp>, part: &str) {
    let start = Instant::now();
    while h.query_by_label_contains(part).is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no label with '{part}' showed"
        );
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A stored candidate of `state` with this trace, in a fresh working folder,
/// and the app over that folder with the candidate open in the Analyze panel.
fn analyze_candidate(
    root: &TempDir,
    state: &State,
    features: Features,
    trace: Vec<f64>,
) -> Harness<'static, BoafApp> {
    let grid = state.grid();
    let n = features.n;
    let candidate = Candidate {
        puzzle: to_compact(state),
        n,
        rows: grid.rows(),
        cols: grid.cols(),
        energy_name: "test".into(),
        energy_id: "test-0".into(),
        energy: 0.5,
        search_energy: 0.5,
        features,
        seed: 1,
        index: 0,
        params: SearchParams::paper(n),
        evaluations: trace.len(),
        trace,
        seconds: 0.1,
        created: "2025-01-01T00:00:00Z".into(),
    };
    let folder = Folder::new(root.path());
    let (mut store, _) = PuzzleStore::open(&folder.store_file(n, "test")).unwrap();
    assert!(store.add(&candidate).unwrap());

    let app = BoafApp::new(Folder::new(root.path()));
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 1400.0))
        .with_max_steps(100)
        .build_ui_state(|ui, app: &mut BoafApp| app.show(ui), app);
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
    fn walk(shape: &egui::Shape, out: &mut Vec<(String, egui::Pos2)>) {
        match shape {
            egui::Shape::Text(t) => out.push((t.galley.text().to_owned(), t.pos)),
            egui::Shape::Vec(shapes) => shapes.iter().for_each(|s| walk(s, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for clipped in &h.output().shapes {
        walk(&clipped.shape, &mut out);
    }
    out
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
    let features = features_for(&state, Need::Cards, &AnalysisOptions::default()).unwrap();
    let mut h = analyze_candidate(&root, &state, features, vec![0.5, 0.25]);
    wait_for_label_containing(&mut h, "Counting states: depth ");
    let shown = h.get_by_label_contains("Counting states: depth ");
    let text = format!("{:?}", shown.accesskit_node());
    assert!(text.contains(" of 15 · "), "{text}");
    h.get_by_label("Cancel").click();
    wait_for_label(&mut h, "No analysis: cancelled");
}
