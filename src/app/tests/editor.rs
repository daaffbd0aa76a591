//! "Make one by hand": the layout editor refuses a card placed twice, says
//! which cells are still empty, checks a complete layout in the background
//! (never showing an older layout's answer), and adds it to the queue as an
//! entered candidate.

mod common;

use boaf_app::{BoafApp, Tab};
use boaf_core::engine::analysis::AnalysisOptions;
use boaf_core::engine::card::Card;
use boaf_core::engine::deal::{deal, deal_on};
use boaf_core::engine::feature::FeatureSet;
use boaf_core::engine::features::features_for;
use boaf_core::engine::halfway::halfway;
use boaf_core::engine::limits::Limits;
use boaf_core::engine::notation::puzzle_id;
use boaf_core::engine::solver::Solver;
use boaf_core::engine::state::{Grid, State};
use boaf_core::format;
use boaf_core::generator::pipeline::Source;
use common::*;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::time::Duration;

/// Opens the editor in the Generate panel.
fn open_editor(h: &mut Harness<'_, BoafApp>) {
    h.state_mut().set_tab(Tab::Generate);
    h.run();
    h.get_by_label("Make one by hand").click();
    h.run();
}

/// The labels the editor shows for `state`'s check, computed here with the
/// core's solver and halfway ratio.
fn expected_check(state: &State) -> (&'static str, String) {
    let limits = Limits::default();
    let solvable = Solver::new(limits.clone())
        .solve(state)
        .unwrap()
        .is_solvable();
    let ratio = halfway(state, false, &limits).unwrap().ratio();
    (
        if solvable { "Solvable" } else { "Unsolvable" },
        format!("halfway ratio {}", format::number(Some(ratio))),
    )
}

/// Fills the editor's grid with `state`'s cards, cell by cell from the first.
fn fill(h: &mut Harness<'_, BoafApp>, state: &State) {
    h.get_by_label("empty cell 1").click();
    h.run();
    for card in state.tops() {
        // The picker moves on to the next cell after each card.
        h.get_by_label(&card.expect("a full deal").face()).click();
        h.run();
    }
}

#[test]
fn a_card_placed_twice_is_refused_with_where_it_is() {
    let root = temp_root("editor-duplicate");
    let mut h = harness(&root);
    open_editor(&mut h);
    h.get_by_label("empty cell 3").click();
    h.run();
    h.get_by_label("10♥").click();
    h.run();
    assert!(h.query_by_label("card 10♥").is_some(), "placed in cell 3");
    // The next cell is chosen: the same card again is refused there.
    h.get_by_label("10♥").click();
    h.run();
    assert!(
        h.query_by_label("10♥ is already in row 1, column 3")
            .is_some(),
        "the refusal names the card and its place"
    );
    assert_eq!(h.query_all_by_label("card 10♥").count(), 1);
    assert!(
        h.query_by_label("empty cell 4").is_some(),
        "cell 4 kept empty"
    );
    assert!(
        h.query_by_label(
            "Still empty: row 1: columns 1, 2, 4; row 2: columns 1, 2, 3, 4; \
             row 3: columns 1, 2, 3, 4; row 4: columns 1, 2, 3, 4"
        )
        .is_some(),
        "the cells still empty are listed"
    );
    // Another card is taken, and the refusal goes.
    h.get_by_label("J♠").click();
    h.run();
    assert!(h.query_by_label("card J♠").is_some());
    assert!(h.query_by_label_contains("is already in").is_none());
}

#[test]
fn a_complete_layout_is_checked_in_the_background_and_added_to_the_queue() {
    let root = temp_root("editor-check");
    let mut h = harness(&root);
    open_editor(&mut h);
    let grid = Grid::new(3, 3).unwrap();
    h.get_by_label("Rows").set_value_accesskit(3.0);
    h.run();
    h.get_by_label("Columns").set_value_accesskit(3.0);
    h.run();
    let first = deal_on(0, grid);
    fill(&mut h, &first);
    let (first_solvable, first_ratio) = expected_check(&first);
    wait_for_label(&mut h, &first_ratio);
    assert!(
        h.query_by_label(first_solvable).is_some(),
        "{first_solvable}"
    );

    // A new card in the last cell: the first layout's answer is not shown
    // for it, and its own comes.
    let mut tops = first.tops().to_vec();
    let new = (0..52)
        .rev()
        .filter_map(Card::from_code)
        .find(|c| !tops.contains(&Some(*c)))
        .unwrap();
    tops[8] = Some(new);
    let second = State::new(grid, &tops).unwrap();
    h.get_by_label(&format!("card {}", first.top(8).unwrap().face()))
        .click();
    h.run();
    h.get_by_label(&new.face()).click();
    h.step();
    assert!(
        h.query_by_label(&first_ratio).is_none()
            && h.query_by_label(first_solvable).is_none()
            && h.query_by_label_contains("checking whether").is_some(),
        "no answer for the earlier layout"
    );
    let (solvable, ratio) = expected_check(&second);
    wait_for_label(&mut h, &ratio);
    assert!(h.query_by_label(solvable).is_some(), "{solvable}");

    h.get_by_label("Add to queue").click();
    step_until(&mut h, Duration::from_secs(120), |app| {
        !app.candidates().is_empty()
    });
    let c = h
        .state()
        .candidates()
        .iter()
        .find(|c| c.state().is_ok_and(|s| puzzle_id(&s) == puzzle_id(&second)))
        .expect("the entered candidate has the layout's id")
        .clone();
    assert_eq!(c.source, Source::Entered);
    assert_eq!((c.rows, c.cols, c.n), (3, 3, 9));
    assert_eq!(h.state().current().map(|c| &c.puzzle), Some(&c.puzzle));
    h.state_mut().set_tab(Tab::Play);
    h.run();
    assert_eq!(h.state().position(), Some(&second), "it opens in Play");
    assert!(h.query_by_label(&format!("card {}", new.face())).is_some());
}

#[test]
fn edit_a_copy_starts_from_the_open_candidate() {
    let root = temp_root("editor-copy");
    let state = deal(0);
    let features = features_for(&state, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
    store(&root, &candidate(&state, features, vec![0.5]));
    let mut h = harness(&root);
    h.state_mut().play_candidate(0);
    open_editor(&mut h);
    h.get_by_label("Edit a copy").click();
    // The check's spinner keeps the app repainting.
    h.run_steps(3);
    for cell in 0..16 {
        let face = state.top(cell).unwrap().face();
        assert!(
            h.query_by_label(&format!("card {face}")).is_some(),
            "{face}"
        );
    }
    assert!(h.query_by_label_contains("Still empty").is_none());
    let (solvable, ratio) = expected_check(&state);
    wait_for_label(&mut h, &ratio);
    assert!(h.query_by_label(solvable).is_some(), "{solvable}");
}
