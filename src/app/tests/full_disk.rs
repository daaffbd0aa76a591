//! The app on a full disk (its `ratings` or `assets` folder a small tmpfs
//! filled to the last byte): a save that fails shows the file and the OS's
//! reason, keeps what the person entered, and saves it once space is freed;
//! a game in progress that could not be kept is written once there is room.
//! Needs root (see `src/core/tests/common/tmpfs.rs`).

mod common;
#[path = "../../core/tests/common/tmpfs.rs"]
mod tmpfs;

use boaf_app::{BoafApp, Tab, cell_label};
use boaf_core::engine::analysis::AnalysisOptions;
use boaf_core::engine::deal::deal;
use boaf_core::engine::feature::FeatureSet;
use boaf_core::engine::features::features_for;
use boaf_core::folder::Folder;
use boaf_core::study::in_progress::read_in_progress;
use boaf_core::study::ratings::read_ratings;
use common::*;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use std::time::Duration;
use tmpfs::{Tmpfs, names};

/// What the OS says when the disk is full.
const FULL: &str = "No space left on device (os error 28)";

/// The Rate form as it shows: the rating, the notes and the rater.
fn form(h: &Harness<'_, BoafApp>) -> (Option<f64>, Option<String>, Option<String>) {
    let value = |role| h.get_by_role(role).accesskit_node().value();
    (
        h.get_by_role(egui::Role::Slider)
            .accesskit_node()
            .numeric_value(),
        value(egui::Role::MultilineTextInput),
        value(egui::Role::TextInput),
    )
}

/// Types `text` into the only input of `role`.
fn type_into(h: &mut Harness<'_, BoafApp>, role: egui::Role, text: &str) {
    h.get_by_role(role).click();
    h.run();
    h.get_by_role(role).type_text(text);
    h.run();
}

#[test]
fn a_rating_that_meets_a_full_disk_stays_in_the_form_and_saves_once_space_is_freed() {
    let root = temp_root("full-disk-rate");
    let Some(disk) = Tmpfs::mount(&root.join("ratings"), "256k", "full-disk rating") else {
        return;
    };
    for k in [1, 2] {
        let d = deal(k);
        let f = features_for(&d, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
        store(&root, &candidate(&d, f, Vec::new()));
    }
    let ratings = Folder::new(root.path()).ratings();
    let mut h = harness(&root);
    h.state_mut().play_candidate(0);
    h.state_mut().set_tab(Tab::Rate);
    h.run();
    // The first rating saves while there is room.
    h.get_by_label("Save rating").click();
    h.run();
    assert_eq!(read_ratings(&ratings).unwrap().rows.len(), 1);
    let second = h.state().current().unwrap().puzzle.clone();
    h.state_mut().set_tab(Tab::Rate);
    h.run();
    let filler = disk.fill();
    let before = std::fs::read(&ratings).unwrap();
    // Notes longer than the room left in the file's last page (tmpfs gives
    // 4 KiB pages): the disk takes part of the row, then says it is full.
    let room = 4096 - before.len() % 4096;
    let notes = "too long for the disk ".repeat(room / 22 + 10);
    h.get_by_role(egui::Role::Slider).set_value_accesskit(8.0);
    h.run();
    type_into(&mut h, egui::Role::MultilineTextInput, &notes);
    type_into(&mut h, egui::Role::TextInput, "ada");
    let entered = (Some(8.0), Some(notes.clone()), Some("ada".to_string()));
    assert_eq!(form(&h), entered);
    h.get_by_label("Save rating").click();
    h.run();
    // The error names the file and the cause, and shows in the status bar.
    let said = format!("{}: {FULL}", ratings.display());
    assert_eq!(h.state().status_text(), Some(said.as_str()));
    assert!(h.query_by_label(&said).is_some(), "the error is shown");
    // Nothing was lost or half written: the file is as it was, the same
    // puzzle is open in the Rate panel, and the form holds what was entered.
    assert_eq!(std::fs::read(&ratings).unwrap(), before);
    assert_eq!(h.state().tab(), Tab::Rate);
    assert_eq!(h.state().current().unwrap().puzzle, second);
    assert_eq!(form(&h), entered);
    // Space freed: the same press saves it, as one whole row.
    disk.free(&filler);
    h.get_by_label("Save rating").click();
    h.run();
    let table = read_ratings(&ratings).unwrap();
    assert!(table.skipped.is_empty(), "{:?}", table.skipped);
    assert_eq!(table.rows.len(), 2, "{:?}", h.state().status_text());
    assert_eq!(table.text(1, "puzzle"), Some(second.as_str()));
    assert_eq!(table.number(1, "rating"), Some(8.0));
    assert_eq!(table.notes(1), Some(notes));
    assert_eq!(table.text(1, "rater"), Some("ada"));
    // Saved, the app moved on (no candidate is left), and the error is gone.
    assert_eq!(
        h.state().status_text(),
        Some("No more candidates: generate some more.")
    );
    assert!(h.query_by_label(&said).is_none());
}

#[test]
fn an_energy_edit_that_meets_a_full_disk_stays_in_the_editor_and_saves_once_space_is_freed() {
    let root = temp_root("full-disk-energies");
    let Some(disk) = Tmpfs::mount(&root.join("assets"), "256k", "full-disk energy save") else {
        return;
    };
    let file = root.join("assets/energies.toml");
    let old = "[[energy]]\nname = \"mine\"\nvalue = \"2 * n\"\n";
    std::fs::write(&file, old).unwrap();
    let mut h = harness(&root);
    h.get_by_label("Energies").click();
    h.run();
    let filler = disk.fill();
    let added = "\n[[energy]]\nname = \"more\"\nvalue = \"3 * n\"\n";
    type_into(&mut h, egui::Role::MultilineTextInput, added);
    let edited = format!("{old}{added}");
    let editor = |h: &Harness<'_, BoafApp>| {
        h.get_by_role(egui::Role::MultilineTextInput)
            .accesskit_node()
            .value()
    };
    assert_eq!(editor(&h).as_deref(), Some(edited.as_str()));
    h.get_by_label("Save and use").click();
    h.run();
    let said = format!("{}: {FULL}", file.display());
    assert!(h.query_by_label(&said).is_some(), "the error is shown");
    // The file and the folder are as they were; the edit is still in the
    // editor, marked unsaved.
    assert_eq!(std::fs::read_to_string(&file).unwrap(), old);
    assert_eq!(names(&root.join("assets")), ["energies.toml", "filler"]);
    assert_eq!(editor(&h).as_deref(), Some(edited.as_str()));
    assert!(h.query_by_label("assets/energies.toml *").is_some());
    disk.free(&filler);
    h.get_by_label("Save and use").click();
    h.run();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), edited);
    assert!(h.query_by_label(&said).is_none(), "the error is gone");
    assert!(h.query_by_label_contains("more-").is_some(), "in use");
}

#[test]
fn a_game_in_progress_not_kept_on_a_full_disk_is_kept_once_space_is_freed() {
    let root = temp_root("full-disk-in-progress");
    let Some(disk) = Tmpfs::mount(&root.join("ratings"), "256k", "full-disk game in progress")
    else {
        return;
    };
    let d = deal(1);
    let f = features_for(&d, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
    store(&root, &candidate(&d, f, Vec::new()));
    let time = TestClock::default();
    let mut h = harness_with(&root, egui::vec2(1280.0, 1400.0), time.clock());
    h.state_mut().play_candidate(0);
    h.state_mut().set_tab(Tab::Play);
    h.run();
    let filler = disk.fill();
    let mv = d.legal_moves()[0];
    for cell in [mv.from, mv.to] {
        h.get_by_label(&cell_label(&d, cell as usize)).click();
        h.run();
    }
    let file = Folder::new(root.path()).in_progress();
    let said = format!(
        "The games in progress were not kept: {}: {FULL}",
        file.display()
    );
    assert_eq!(h.state().status_text(), Some(said.as_str()));
    assert!(!file.exists());
    assert_eq!(names(&root.join("ratings")), ["filler"]);
    // Space freed, and a moment later (no move needed) the game is kept.
    disk.free(&filler);
    time.advance(Duration::from_secs(3));
    h.run();
    let games = read_in_progress(&file).unwrap();
    assert_eq!(games.len(), 1, "{:?}", h.state().status_text());
    let puzzle = &h.state().current().unwrap().puzzle;
    assert_eq!(games[puzzle].game.played, [(mv, true)]);
}
