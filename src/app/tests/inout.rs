//! Puzzles in and out: "Copy id" puts a candidate's id on the clipboard,
//! and "Open a puzzle" reads a deal number, a state or an id into the queue.

mod common;

use boaf_app::{BoafApp, Tab};
use boaf_core::engine::analysis::AnalysisOptions;
use boaf_core::engine::deal::deal;
use boaf_core::engine::feature::FeatureSet;
use boaf_core::engine::features::features_for;
use boaf_core::generator::pipeline::Source;
use common::*;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::time::Duration;

/// Deal 0 in compact notation.
const DEAL_0: &str = "TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S";

/// The text the app put on the clipboard within a few frames, if any.
fn copied(h: &mut Harness<'_, BoafApp>) -> Option<String> {
    for _ in 0..5 {
        h.step();
        for command in &h.output().platform_output.commands {
            if let egui::OutputCommand::CopyText(text) = command {
                return Some(text.clone());
            }
        }
    }
    None
}

#[test]
fn copy_id_puts_the_layout_on_the_clipboard_from_the_queue_play_and_analyze() {
    let root = temp_root("copy-id");
    let state = deal(0);
    let features = features_for(&state, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
    store(&root, &candidate(&state, features, vec![0.5]));
    let mut h = harness(&root);
    h.get_by_label("Copy id").click();
    assert_eq!(copied(&mut h).as_deref(), Some(DEAL_0), "from the queue");
    h.state_mut().play_candidate(0);
    for tab in [Tab::Play, Tab::Analyze] {
        h.state_mut().set_tab(tab);
        h.run_steps(2);
        h.get_by_label("Copy id").click();
        assert_eq!(copied(&mut h).as_deref(), Some(DEAL_0), "from {tab:?}");
    }
}

/// Types `text` into the "Open a puzzle" field and presses Open.
fn open_puzzle(h: &mut Harness<'_, BoafApp>, text: &str) {
    h.state_mut().set_tab(Tab::Generate);
    h.run_steps(2);
    let field = h.get_by_role(egui::Role::TextInput);
    field.click();
    h.run_steps(2);
    // Select what an earlier entry left, so the new text replaces it.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(2);
    h.get_by_role(egui::Role::TextInput).type_text(text);
    h.run_steps(2);
    h.get_by_label("Open").click();
    h.run_steps(2);
}

#[test]
fn a_deal_number_and_its_state_with_tens_open_the_same_entered_puzzle() {
    let root = temp_root("open-deal");
    let mut h = harness(&root);
    open_puzzle(&mut h, "0");
    step_until(&mut h, Duration::from_secs(300), |app| {
        !app.candidates().is_empty()
    });
    let c = h
        .state()
        .current()
        .expect("the entered puzzle is open")
        .clone();
    assert_eq!(c.puzzle, DEAL_0);
    assert_eq!(c.source, Source::Entered);
    assert_eq!(c.features.n, 16);
    assert!(c.trace.is_empty(), "no search made it");
    h.state_mut().set_tab(Tab::Generate);
    h.run();
    assert!(
        h.query_by_label_contains("· entered").is_some(),
        "the queue marks it"
    );
    // Stored with its kind, so a new app finds it again.
    let again = BoafApp::new(boaf_core::folder::Folder::new(root.path()));
    assert_eq!(again.candidates().len(), 1);
    assert_eq!(again.candidates()[0].source, Source::Entered);
    // The same deal written with 10 for the tens is the same puzzle.
    h.state_mut().set_tab(Tab::Play);
    open_puzzle(&mut h, "10H5HKS10C6SAC10S6C6HQD4SJDJS3C5D3S");
    h.run();
    assert_eq!(
        h.state().candidates().len(),
        1,
        "{:?}",
        h.state().status_text()
    );
    assert_eq!(h.state().current().unwrap().puzzle, DEAL_0);
    assert!(
        h.state()
            .status_text()
            .is_some_and(|s| s.contains("is candidate #1 already")),
        "{:?}",
        h.state().status_text()
    );
}

#[test]
fn a_bad_state_shows_where_it_is_wrong() {
    let root = temp_root("open-bad");
    let mut h = harness(&root);
    open_puzzle(&mut h, "TH5HKSTC6SACTS6C6HQD4SJDJS3C5DXS");
    assert!(
        h.query_by_label_contains("line 1, column 31: unknown rank 'X'")
            .is_some(),
        "the error is shown with its place"
    );
    assert!(h.state().candidates().is_empty());
    assert!(
        !root.join("puzzles").exists()
            || std::fs::read_dir(root.join("puzzles"))
                .unwrap()
                .next()
                .is_none()
    );
}
