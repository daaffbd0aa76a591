//! egui_kittest drives the real app, with no display: generation, play to
//! solved by clicking cells, rating, and the regression panel.

mod common;
#[path = "../../core/tests/common/ols.rs"]
mod ols;

use boaf_app::{BoafApp, Tab, cell_label};
use boaf_core::engine::solver::{Verdict, solve};
use boaf_core::folder::Folder;
use boaf_core::study::ratings::read_ratings;
use common::*;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The demonstration ratings shipped at the top of the repository.
fn example_ratings() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ratings/example.csv")
}

#[test]
fn a_generation_streams_a_candidate_into_the_queue_and_the_store() {
    let root = temp_root("generate");
    let mut h = harness(&root);
    generate_one(&mut h);
    let c = h.state().candidates()[0].clone();
    assert_eq!(c.n, 6);
    assert!(c.features.solvable);
    // Stored as it arrived, and shown in the queue.
    let stored = std::fs::read_to_string(root.join("puzzles/n6-E5.jsonl")).unwrap();
    assert_eq!(stored.lines().count(), 1);
    assert!(stored.contains(&c.puzzle));
    assert!(
        h.query_by_label("▶ playing").is_some(),
        "the first candidate is opened"
    );
    // A new app over the same folder finds it again.
    let again = BoafApp::new(Folder::new(root.path()));
    assert_eq!(again.candidates().len(), 1);
    assert_eq!(again.candidates()[0].puzzle, c.puzzle);
}

#[test]
fn play_to_solved_by_clicking_cells_then_rate_and_read_the_row_back() {
    let root = temp_root("play");
    let mut h = harness(&root);
    generate_one(&mut h);
    h.get_by_label("Play").click();
    h.run();
    assert_eq!(h.state().tab(), Tab::Play);
    let c = h.state().current().unwrap().clone();
    let deal = c.state().unwrap();
    let Ok(Verdict::Solvable(path)) = solve(&deal) else {
        panic!("the candidate is solvable");
    };
    // The first move by drag and drop, from the stack's card onto its target.
    let mut state = deal.clone();
    let first = path[0];
    let from = h
        .get_by_label(&cell_label(&state, first.from as usize))
        .rect()
        .center();
    let to = h
        .get_by_label(&cell_label(&state, first.to as usize))
        .rect()
        .center();
    h.hover_at(from);
    h.step();
    h.drag_at(from);
    h.step();
    for t in [0.1, 0.4, 0.7, 1.0] {
        h.hover_at(from + (to - from) * t);
        h.step();
    }
    h.drop_at(to);
    h.run();
    state = state.apply(first).unwrap();
    assert!(
        h.query_by_label(&cell_label(&deal, first.to as usize))
            .is_none(),
        "the target's top is covered by the dropped stack"
    );
    assert!(
        h.query_by_label(&cell_label(&state, first.from as usize))
            .is_some()
    );
    // The other moves: click the stack, then its target, by their accessible names.
    for mv in &path[1..] {
        h.get_by_label(&cell_label(&state, mv.from as usize))
            .click();
        h.run();
        h.get_by_label(&cell_label(&state, mv.to as usize)).click();
        h.run();
        state = state.apply(*mv).unwrap();
    }
    assert!(state.is_solved());
    assert!(
        h.query_by_label_contains("Solved!").is_some(),
        "solved is celebrated"
    );
    // Rate it 8 with a note that looks like a formula.
    h.get_by_label("Rate it").click();
    h.run();
    assert_eq!(h.state().tab(), Tab::Rate);
    h.get_by_role(egui::Role::Slider).set_value_accesskit(8.0);
    h.run();
    let notes = h.get_by_role(egui::Role::MultilineTextInput);
    notes.click();
    h.run();
    h.get_by_role(egui::Role::MultilineTextInput)
        .type_text("=1+1 tidy");
    h.run();
    h.get_by_label("Save rating").click();
    h.run();
    let table = read_ratings(&root.join("ratings/ratings.csv")).unwrap();
    assert_eq!(table.rows.len(), 1, "{:?}", h.state().status_text());
    assert!(table.skipped.is_empty());
    assert_eq!(table.text(0, "puzzle"), Some(c.puzzle.as_str()));
    assert_eq!(table.number(0, "rating"), Some(8.0));
    assert_eq!(table.text(0, "solved"), Some("true"));
    assert_eq!(table.number(0, "moves"), Some(path.len() as f64));
    assert_eq!(table.number(0, "undos"), Some(0.0));
    assert_eq!(table.text(0, "energy_id"), Some(c.energy_id.as_str()));
    assert_eq!(table.number(0, "halfway_ratio"), c.features.halfway_ratio);
    // The grade by the default rule (empty when the candidate has none).
    let grade = c.grade().map_or("", |g| g.name());
    assert_eq!(table.text(0, "grade"), Some(grade));
    // Stored safe from spreadsheets, read back as typed.
    assert_eq!(table.text(0, "notes"), Some("'=1+1 tidy"));
    assert_eq!(table.notes(0).as_deref(), Some("=1+1 tidy"));
}

#[test]
fn the_regression_panel_matches_the_normal_equations_on_the_example_ratings() {
    let root = temp_root("regress");
    std::fs::create_dir_all(root.join("ratings")).unwrap();
    let example = example_ratings();
    std::fs::copy(&example, root.join("ratings/example.csv")).unwrap();
    let mut h = harness(&root);
    h.get_by_label("Regression").click();
    h.run();
    let fit = h
        .state()
        .fit()
        .expect("a fit of the example ratings")
        .clone();
    let features = [
        "depth1_ratio",
        "halfway_ratio",
        "dominant_suit_ratio",
        "rank_clusters",
        "avg_flockability",
    ];
    let (x, y) = ols::csv_columns(&example, &features, "rating");
    let (beta, se) = ols::normal_equations_zscored(&x, &y);
    assert_eq!(fit.n, y.len());
    assert!((fit.intercept.estimate - beta[0]).abs() < 1e-6);
    assert!((fit.intercept.std_error.unwrap() - se[0]).abs() < 1e-6);
    for (j, c) in fit.coefs.iter().enumerate() {
        assert_eq!(c.name, features[j]);
        assert!(
            (c.estimate - beta[j + 1]).abs() < 1e-6,
            "{}: {} vs {}",
            c.name,
            c.estimate,
            beta[j + 1]
        );
        assert!((c.std_error.unwrap() - se[j + 1]).abs() < 1e-6);
    }
    // The table on screen shows them.
    let shown = format!("{:.4}", fit.coefs[1].estimate);
    assert!(
        h.query_by_label(&shown).is_some(),
        "{shown} is in the table"
    );
    // "Use as energy": an energy that is minus the predicted rating (a
    // second click adds nothing: see the test of duplicates below).
    h.get_by_label("Use as energy").click();
    h.run();
    let text = std::fs::read_to_string(root.join("assets/fitted-energies.toml")).unwrap();
    let book = boaf_core::generator::energy::EnergyBook::parse(&text, "fitted").unwrap();
    let names: Vec<&str> = book.energies().iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["fitted"]);
    let table = read_ratings(&example).unwrap();
    for row in 0..3 {
        let value = |f: &str| table.number(row, f);
        let raw: Vec<f64> = features.iter().map(|f| value(f).unwrap()).collect();
        let energy = book.energies()[0].eval_with(true, |f| value(f.column()));
        assert!((energy + fit.predict(&raw)).abs() < 1e-6, "row {row}");
    }
    // Unticking all but one feature refits.
    for f in &features[1..] {
        h.get_by_role_and_label(egui::Role::CheckBox, f).click();
        h.run();
    }
    let one = h.state().fit().unwrap();
    assert_eq!(one.coefs.len(), 1);
    assert_eq!(one.coefs[0].name, "depth1_ratio");
}

#[test]
fn a_bad_energy_edit_shows_line_and_column_and_keeps_the_last_good_energies() {
    let root = temp_root("energies");
    std::fs::create_dir_all(root.join("assets")).unwrap();
    std::fs::write(
        root.join("assets/energies.toml"),
        "[[energy]]\nname = \"mine\"\nvalue = \"2 * n\"\n",
    )
    .unwrap();
    let mut h = harness(&root);
    h.get_by_label("Energies").click();
    h.run();
    assert!(
        h.query_by_label_contains("mine-").is_some(),
        "the user energy is listed"
    );
    let editor = h.get_by_role(egui::Role::MultilineTextInput);
    editor.click();
    h.run();
    h.get_by_role(egui::Role::MultilineTextInput)
        .type_text("\n[[energy]]\nname = \"bad\"\nvalue = \"2 * nope\"\n");
    h.run();
    h.get_by_label("Save and use").click();
    h.run();
    let err = h.get_by_label_contains("assets/energies.toml:");
    let text = format!("{:?}", err.accesskit_node());
    assert!(
        text.contains("assets/energies.toml:7:"),
        "the error names line 7: {text}"
    );
    // Nothing was written, and the energies in use are the old ones.
    let on_disk = std::fs::read_to_string(root.join("assets/energies.toml")).unwrap();
    assert!(!on_disk.contains("bad"));
    assert!(h.query_by_label_contains("mine-").is_some());
}

#[test]
fn hint_undo_redo_and_the_solution_replay() {
    let root = temp_root("assist");
    let mut h = harness(&root);
    generate_one(&mut h);
    h.get_by_label("Play").click();
    h.run();
    let deal = h.state().current().unwrap().state().unwrap();
    let Ok(Verdict::Solvable(path)) = solve(&deal) else {
        panic!("the candidate is solvable");
    };
    // The hint names the first move of a solution from here (found in a
    // thread of its own, so the test steps until it is shown).
    h.get_by_label("Hint").click();
    let name = format!(
        "Hint: move {} onto {}",
        deal.top(path[0].from as usize).unwrap().face(),
        deal.top(path[0].to as usize).unwrap().face()
    );
    wait_for_label_contains(&mut h, &name);
    // A move, undone and redone.
    let mv = path[0];
    h.get_by_label(&cell_label(&deal, mv.from as usize)).click();
    h.run();
    h.get_by_label(&cell_label(&deal, mv.to as usize)).click();
    h.run();
    let after = deal.apply(mv).unwrap();
    let stacks = |s: &boaf_core::State| format!("{} stacks left", s.stack_count());
    assert!(h.query_by_label_contains(&stacks(&after)).is_some());
    h.get_by_label("Undo").click();
    h.run();
    assert!(h.query_by_label_contains("1 move · 1 undo ·").is_some());
    assert!(
        h.query_by_label(&cell_label(&deal, mv.to as usize))
            .is_some()
    );
    h.get_by_label("Redo").click();
    h.run();
    assert!(h.query_by_label_contains("2 moves · 1 undo ·").is_some());
    // With the notice on, a move into a dead end is called out.
    h.get_by_label("Undo").click();
    h.run();
    h.get_by_role_and_label(
        egui::Role::CheckBox,
        "Tell me when it can no longer be solved",
    )
    .click();
    h.run();
    let dead = deal
        .legal_moves()
        .into_iter()
        .find(|&m| matches!(solve(&deal.apply(m).unwrap()), Ok(Verdict::Unsolvable(_))))
        .expect("this puzzle has a losing first move");
    // Its answer comes from a thread: wait until it says solvable, then
    // look (a fixed wait would pass while the solve is merely slow).
    step_until(&mut h, Duration::from_secs(30), |app| {
        app.position_solvable() == Some(true)
    });
    assert!(h.query_by_label_contains("no longer solvable").is_none());
    h.get_by_label(&cell_label(&deal, dead.from as usize))
        .click();
    h.run();
    h.get_by_label(&cell_label(&deal, dead.to as usize)).click();
    wait_for_label(&mut h, "This position is no longer solvable.");
    // The replay plays a solution out, a move at a time, and is not counted:
    // from the deal, since this position has none, which it asks first
    // (at once: the notice already knows; no hint is counted for it).
    h.get_by_label("Show solution").click();
    h.run();
    assert!(
        h.query_by_label_contains("No solution from this position.")
            .is_some()
    );
    h.get_by_label("Back to the deal and show it").click();
    wait_for_label(&mut h, "Solved by the solution replay.");
    assert!(
        h.query_by_label_contains("3 moves · 2 undos · 0 restarts · 1 hint ·")
            .is_some()
    );
}

/// Makes distinct n-card candidates under E5 from batch seeds `seeds` (a
/// short search each) and stores them in the folder's store for n and E5,
/// as a generation would; returns those stored, in order.
fn store_candidates(
    root: &TempDir,
    n: usize,
    seeds: std::ops::Range<u64>,
) -> Vec<boaf_core::generator::pipeline::Candidate> {
    seeds.filter_map(|seed| made(root, n, "E5", seed)).collect()
}

#[test]
fn the_seed_shown_is_the_one_in_use_and_the_next_unused_one_survives_a_restart() {
    let root = temp_root("seed");
    // A store with batch seed 41 for 8 cards: a new app offers 42 for them.
    let stored = store_candidates(&root, 8, 41..42);
    assert_eq!(stored.len(), 1);
    let app = BoafApp::new(Folder::new(root.path()));
    assert_eq!(app.generation_seed(), 42, "one past the highest stored");
    drop(app);

    let mut h = harness(&root);
    // During a run the seed shown is the run's, and each worker says what
    // it is doing. Sixteen cards: the run cannot end before it is stopped.
    h.state_mut().set_generation(16, 1, 5, 1);
    h.run();
    h.get_by_label("Start").click();
    wait_for_label_contains(&mut h, "descent step");
    assert!(h.state().is_generating());
    assert_eq!(h.state().generation_seed(), 5);
    assert!(h.query_by_label_contains("Seed 5 (running)").is_some());
    h.get_by_label("Stop").click();
    step_until(&mut h, Duration::from_secs(60), |app| !app.is_generating());
    // Stopped before it made anything: the seed is still free, and kept.
    assert_eq!(h.state().generation_seed(), 5);

    // A run that stores its puzzle moves the seed on past it.
    generate_one(&mut h);
    assert_eq!(h.state().generation_seed(), 12);

    // After a restart the panel is back at 6 cards (its settings are kept)
    // with the next unused seed for them, and at 8 cards the one for 8.
    let mut h = harness(&root);
    assert_eq!(h.state().generation_seed(), 12);
    h.get_by_role(egui::Role::Slider).set_value_accesskit(8.0);
    h.run();
    assert_eq!(h.state().generation_seed(), 42);
    h.get_by_role(egui::Role::Slider).set_value_accesskit(6.0);
    h.run();
    assert_eq!(h.state().generation_seed(), 12);

    // The same seed again: every candidate is a duplicate, and the status
    // says so and which seed to use instead.
    h.state_mut().set_generation(6, 1, 11, 1);
    h.run();
    h.get_by_label("Start").click();
    h.run_steps(2);
    step_until(&mut h, Duration::from_secs(60), |app| !app.is_generating());
    let status = h.state().status_text().unwrap_or_default().to_string();
    assert!(
        status.ends_with(
            "1 duplicate dropped; 0 failed. The candidate was already in the store \
             (seed 11 was used before): choose another seed — the next unused one is 12."
        ),
        "{status}"
    );
    assert_eq!(h.state().generation_seed(), 12);
}

#[test]
fn the_queue_marks_rated_candidates_and_can_leave_them_out() {
    let root = temp_root("rated");
    let stored = store_candidates(&root, 6, 1..12);
    assert!(stored.len() >= 3, "distinct candidates: {}", stored.len());
    let (a, b, c) = (&stored[0], &stored[1], &stored[2]);
    // The second one is rated (a ratings file read by column name).
    std::fs::create_dir_all(root.join("ratings")).unwrap();
    std::fs::write(
        root.join("ratings/ratings.csv"),
        format!("puzzle,rating\n{},7\n", b.puzzle),
    )
    .unwrap();
    let mut h = harness(&root);
    assert_eq!(h.state().candidates().len(), stored.len());
    assert_eq!(h.query_all_by_label("✔ rated").count(), 1);
    assert!(h.query_by_label("#2").is_some());
    // Unrated only: the rated one leaves the queue...
    h.get_all_by_role_and_label(egui::Role::ComboBox, "Show")
        .nth(2)
        .unwrap()
        .click();
    h.run();
    h.get_by_label("unrated only").click();
    h.run();
    assert_eq!(h.query_all_by_label("✔ rated").count(), 0);
    assert!(h.query_by_label("#2").is_none());
    assert!(h.query_by_label("#1").is_some() && h.query_by_label("#3").is_some());
    // ...and Skip goes past it: from the first candidate to the third.
    let plays: Vec<_> = h.query_all_by_label("Play").collect();
    // The rows' Play buttons come after the tab; the first row is #1.
    let first_row = plays.len() - (stored.len() - 1);
    plays[first_row].click();
    h.run();
    assert_eq!(h.state().current().unwrap().puzzle, a.puzzle);
    h.get_by_label("Rate").click();
    h.run();
    h.get_by_label("Skip").click();
    h.run();
    assert_eq!(h.state().current().unwrap().puzzle, c.puzzle);
}

// Issue 10, item 4: a regression you can read.

/// The Regression panel over the demonstration ratings.
fn regression_harness(root: &TempDir) -> Harness<'static, BoafApp> {
    std::fs::create_dir_all(root.join("ratings")).unwrap();
    std::fs::copy(example_ratings(), root.join("ratings/example.csv")).unwrap();
    let mut h = harness(root);
    h.get_by_label("Regression").click();
    h.run();
    h
}

#[test]
fn use_as_energy_twice_adds_one_energy_and_names_it_the_second_time() {
    let root = temp_root("regress-twice");
    let mut h = regression_harness(&root);
    let fit = h
        .state()
        .fit()
        .expect("a fit of the example ratings")
        .clone();
    h.get_by_label("Use as energy").click();
    h.run();
    let path = root.join("assets/fitted-energies.toml");
    let once = std::fs::read_to_string(&path).unwrap();
    h.get_by_label("Use as energy").click();
    h.run();
    // Nothing was added, and the status says which energy it already is.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), once);
    assert_eq!(
        h.state().status_text(),
        Some("This fit is already the energy 'fitted' (same definition); nothing was added.")
    );
    // The one energy carries the rated range of each feature, then the
    // cards its ratings covered (all of 8).
    let book = boaf_core::generator::energy::EnergyBook::parse(&once, "fitted").unwrap();
    assert_eq!(book.energies().len(), 1);
    let (cards, range) = book.energies()[0].rated_range().split_last().unwrap();
    assert_eq!(range.len(), fit.coefs.len());
    assert_eq!(
        (cards.feature.column(), cards.min, cards.max),
        ("n", 8.0, 8.0)
    );
    for ((r, c), (lo, hi)) in range.iter().zip(&fit.coefs).zip(&fit.ranges) {
        assert_eq!(
            (r.feature.column(), r.min, r.max),
            (c.name.as_str(), *lo, *hi)
        );
    }
    // The Energies panel lists it once, with its range.
    h.get_by_label("Energies").click();
    h.run();
    assert!(h.query_by_label_contains("fitted-2").is_none());
    assert!(h.query_by_label_contains("rated depth1_ratio ").is_some());
}

/// Every piece of text painted in `rect`.
fn texts_in(h: &Harness<'_, BoafApp>, rect: egui::Rect) -> Vec<String> {
    fn walk(shape: &egui::Shape, rect: egui::Rect, out: &mut Vec<String>) {
        match shape {
            egui::Shape::Vec(v) => v.iter().for_each(|s| walk(s, rect, out)),
            egui::Shape::Text(t) if rect.contains(t.visual_bounding_rect().center()) => {
                out.push(t.galley.text().to_string())
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for c in &h.output().shapes {
        walk(&c.shape, rect, &mut out);
    }
    out
}

#[test]
fn the_coefficient_chart_names_every_feature() {
    let root = temp_root("regress-chart");
    let mut h = regression_harness(&root);
    // Tick every feature the ratings have but the two that are the same in
    // every example rating (8 cards, all solvable): thirteen bars, the
    // agents' three included.
    let names: Vec<String> = boaf_core::engine::feature::Feature::ALL
        .map(|f| f.column())
        .iter()
        .filter(|f| !["n", "solvable"].contains(f))
        .filter(|f| h.query_by_role_and_label(egui::Role::CheckBox, f).is_some())
        .map(|f| f.to_string())
        .collect();
    for f in &names {
        let tick = h.get_by_role_and_label(egui::Role::CheckBox, f);
        if tick.accesskit_node().toggled() != Some(egui::accesskit::Toggled::True) {
            tick.click();
            h.run();
        }
    }
    let fit = h.state().fit().expect("a fit with every feature").clone();
    assert_eq!(fit.coefs.len(), 13);
    // The chart sits under its heading, in the left column; the table and
    // the tick boxes (which also name the features) are above it, the
    // scatter plot to its right.
    let heading = h
        .get_by_label_contains("Coefficients (per standard deviation")
        .rect();
    let chart = egui::Rect::from_min_max(
        egui::pos2(0.0, heading.max.y),
        egui::pos2(640.0, heading.max.y + 60.0 + 36.0 * fit.coefs.len() as f32),
    );
    let shown = texts_in(&h, chart);
    for c in &fit.coefs {
        assert!(
            shown.contains(&c.name),
            "'{}' is not labelled on the chart: {shown:?}",
            c.name
        );
    }
}

#[test]
fn the_queue_warns_when_a_candidate_leaves_its_fitted_energys_rated_range() {
    let root = temp_root("extrapolated");
    let mut h = harness(&root);
    generate_one(&mut h);
    let made = h.state().candidates()[0].clone();
    // A fitted energy rated only on rank_clusters 100–200, and a copy of the
    // candidate stored as made by it: its features lie outside.
    let text = "[[energy]]\nname = \"ranged\"\nvalue = \"n - rank_clusters\"\n\
                range = { rank_clusters = [100, 200] }\n";
    std::fs::create_dir_all(root.join("energies")).unwrap();
    std::fs::write(root.join("energies/ranged.toml"), text).unwrap();
    let energy = boaf_core::generator::energy::EnergyBook::parse(text, "ranged.toml").unwrap();
    let mut c = made.clone();
    c.energy_name = "ranged".into();
    c.energy_id = energy.energies()[0].id();
    store(&root, &c);
    let mut h = harness(&root);
    h.run();
    assert_eq!(h.state().candidates().len(), 2);
    assert!(
        h.query_by_label_contains("1 candidate lies outside the rated range of its fitted energy")
            .is_some()
    );
    assert_eq!(h.query_all_by_label("⚠").count(), 1);
}

// Issue 24, point 3: every number explains itself.

#[test]
fn every_queue_and_regression_column_label_has_its_features_tooltip() {
    use boaf_core::engine::feature::Feature;
    let root = temp_root("feature-tooltips");
    store_candidates(&root, 6, 0..1);
    let mut h = harness(&root);
    h.run();
    // The queue: each feature column's heading explains it from the core.
    for f in Feature::ALL {
        if h.query_all_by_label(f.label()).next().is_some() && f != Feature::N {
            assert!(
                tooltip_of_has(&mut h, None, f.label(), f.definition()),
                "queue column {}",
                f.label()
            );
        }
    }
    assert!(tooltip_of_has(&mut h, None, "n", Feature::N.definition()));
    assert!(tooltip_of_has(&mut h, None, "E5 value", "lower is better"));
    // The Regression panel: each feature's checkbox.
    let mut h = regression_harness(&root);
    let mut checked = 0;
    for f in Feature::ALL {
        let checkbox = Some(egui::Role::CheckBox);
        if h.query_by_role_and_label(egui::Role::CheckBox, f.column())
            .is_some()
        {
            assert!(
                tooltip_of_has(&mut h, checkbox, f.column(), f.definition()),
                "checkbox {}",
                f.column()
            );
            checked += 1;
        }
    }
    assert!(checked >= 5, "{checked} feature checkboxes");
}

#[test]
fn every_search_setting_says_what_it_does_and_what_raising_it_costs() {
    use boaf_core::generator::descent::{
        DIFFICULTY_HELP, HALFWAY_HELP, STEPS_HELP, SWAP_IN_HELP, UPHILL_HELP,
    };
    let root = temp_root("setting-tooltips");
    let mut h = harness(&root);
    h.run();
    for (label, help) in [
        ("Steps per puzzle", STEPS_HELP),
        ("Swap-in probability", SWAP_IN_HELP),
        ("Uphill probability", UPHILL_HELP),
        ("Halfway ratio", HALFWAY_HELP),
        ("Difficulty features", DIFFICULTY_HELP),
    ] {
        assert!(tooltip_of_has(&mut h, None, label, help), "{label}");
    }
    // Only while hovered, and only the hovered setting's.
    assert!(h.query_by_label_contains(UPHILL_HELP).is_none());
    assert!(!tooltip_of_has(
        &mut h,
        None,
        "Swap-in probability",
        UPHILL_HELP
    ));
}

#[test]
fn an_energys_tooltip_shows_its_bonuses() {
    let root = temp_root("energy-tooltip");
    let mut h = harness(&root);
    h.run();
    h.get_by_label("Energy").click();
    h.run();
    // E2's value is 0: all it rewards is in its bonuses.
    assert!(tooltip_of_has(
        &mut h,
        None,
        "E2",
        "-10 if rank_clusters > 1.0"
    ));
}

#[test]
fn a_fitted_energy_reads_rounded_says_what_it_is_and_a_second_fit_is_named_first() {
    let root = temp_root("fitted-shown");
    let mut h = regression_harness(&root);
    h.get_by_label("Use as energy").click();
    h.run();
    assert!(
        h.query_by_label_contains("This fit is already the energy 'fitted'")
            .is_some()
    );
    // Another fit under the same name: the panel says the name it will get
    // before the click.
    h.get_by_role_and_label(egui::Role::CheckBox, "rank_clusters")
        .click();
    h.run();
    assert!(
        h.query_by_label("An energy named 'fitted' exists: this fit will be added as 'fitted-2'.")
            .is_some()
    );
    // The Energies panel: four figures, and what the value is.
    h.get_by_label("Energies").click();
    h.run();
    let book = boaf_core::generator::energy::EnergyBook::parse(
        &std::fs::read_to_string(root.join("assets/fitted-energies.toml")).unwrap(),
        "fitted",
    )
    .unwrap();
    let fitted = &book.energies()[0];
    assert!(h.query_by_label_contains(&fitted.shown()[0]).is_some());
    assert!(h.query_by_label_contains(&fitted.value_text()).is_none());
    assert!(
        h.query_by_label_contains("minus the predicted rating: the best-rated")
            .is_some()
    );
}

// Issue 25, point 6: statistics that know who rated what.
