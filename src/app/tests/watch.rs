//! egui_kittest drives the Watch panel (an agent plays the open puzzle off
//! the UI thread, and the player's game is untouched) and the Analyze
//! panel's button that lets the agents play a candidate for its difficulty.

mod common;

use boaf_app::{BoafApp, Tab};
use boaf_core::agents::difficulty::add_difficulty;
use boaf_core::engine::analysis::AnalysisOptions;
use boaf_core::engine::deal::deal;
use boaf_core::engine::feature::FeatureSet;
use boaf_core::engine::features::features_for;
use boaf_core::engine::limits::Limits;
use boaf_core::engine::notation::parse_state;
use boaf_core::engine::state::State;
use common::*;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::time::Duration;

/// A folder holding `state` as a candidate without difficulty features,
/// and the app over it with the candidate open on `tab`.
fn open(root: &TempDir, state: &State, tab: Tab) -> Harness<'static, BoafApp> {
    let f = features_for(state, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
    assert_eq!(f.greedy_wins, None);
    store(root, &candidate(state, f, Vec::new()));
    let mut h = harness(root);
    h.state_mut().play_candidate(0);
    h.state_mut().set_tab(tab);
    // Not `run`: a spinner may keep repainting.
    h.step();
    h
}

fn open_deal_5(root: &TempDir, tab: Tab) -> Harness<'static, BoafApp> {
    open(root, &deal(5), tab)
}

#[test]
fn an_agent_plays_the_open_puzzle_in_its_own_game() {
    let root = temp_root("watch");
    let mut h = open_deal_5(&root, Tab::Watch);
    h.get_by_label("Watch").click();
    h.run();
    // One move at a time: the board moves on by one stack.
    h.get_by_label("Step").click();
    wait_for_label_contains(&mut h, "1 move made");
    h.get_by_label_contains("15 stacks left");
    // MCTS at 300 iterations shows what it thought of each legal move, or
    // says why it did not need to.
    assert!(
        h.query_by_label_contains("Last move:").is_some(),
        "the last move is named"
    );
    // Then on by itself, fast, to the end: deal 5 is solvable and MCTS at
    // 300 iterations wins it.
    h.get_by_label("Play on").click();
    h.run();
    wait_for_label_contains(&mut h, "Won in 15 moves");
    // The player's own game did not move.
    h.get_by_label("Play").click();
    h.run();
    h.get_by_label_contains("0 moves");
    h.get_by_label_contains("16 stacks left");
}

#[test]
fn a_stopped_agent_leaves_its_game_and_a_new_agent_starts_over() {
    let root = temp_root("watch-stop");
    let mut h = open_deal_5(&root, Tab::Watch);
    h.get_by_label("Step").click();
    wait_for_label_contains(&mut h, "1 move made");
    h.get_by_label("Stop").click();
    h.run();
    wait_for_label_contains(&mut h, "Stopped after 1 move");
    // Start over goes back to the deal.
    h.get_by_label("Start over").click();
    h.run();
    h.get_by_label_contains("0 moves made");
    h.get_by_label_contains("16 stacks left");
}

#[test]
fn the_agents_play_a_candidate_for_its_difficulty_when_asked() {
    let root = temp_root("difficulty");
    // Seed 001's seven-card puzzle: its analysis, which the panel starts
    // too, takes no time.
    let d = parse_state(
        "-- -- KH -- / 2S -- JD QC / -- -- TS JS / -- -- 3C --",
        None,
    )
    .unwrap();
    let mut h = open(&root, &d, Tab::Analyze);
    h.get_by_label("Let the agents play it").click();
    h.step();
    step_until(&mut h, Duration::from_secs(60), |app| {
        app.current()
            .is_some_and(|c| c.features.greedy_wins.is_some())
    });
    // The same figures as the core computes on its own.
    let mut want = features_for(&d, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
    add_difficulty(&mut want, &d, FeatureSet::DIFFICULTY, &Limits::default()).unwrap();
    let got = &h.state().current().unwrap().features;
    assert_eq!(got.playout_win_rate, want.playout_win_rate);
    assert_eq!(got.greedy_wins, want.greedy_wins);
    assert_eq!(got.mcts_budget, want.mcts_budget);
    assert!(h.query_by_label("Let the agents play it").is_none());
}
