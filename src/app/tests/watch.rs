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
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{self, NodeT, Queryable};
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

/// The rects of the board's cells, by their accessible names, in order.
fn cell_rects(h: &Harness<'_, BoafApp>) -> Vec<(String, egui::Rect)> {
    let mut cells: Vec<(String, egui::Rect)> = h
        .query_all(kittest::by().role(egui::accesskit::Role::Button))
        .filter_map(|n| {
            let label = n.accesskit_node().label()?;
            (label.starts_with("card ") || label.starts_with("empty cell "))
                .then(|| (label, n.rect()))
        })
        .collect();
    cells.sort_by(|a, b| a.0.cmp(&b.0));
    cells
}

#[test]
fn the_board_has_the_size_and_place_it_has_in_play() {
    let root = temp_root("watch-board");
    let mut h = open_deal_5(&root, Tab::Play);
    h.run();
    let play = cell_rects(&h);
    assert_eq!(play.len(), 16, "{play:?}");
    h.get_by_label("Watch").click();
    h.run();
    assert_eq!(cell_rects(&h), play);
}

/// Every line segment of the hint's colour painted in the last frame.
fn painted_segments(h: &Harness<'_, BoafApp>) -> Vec<[egui::Pos2; 2]> {
    painted_shapes(h)
        .into_iter()
        .filter_map(|s| match s {
            // The hint's orange (board.rs's HINT_TO), not separators and such.
            egui::Shape::LineSegment { points, stroke }
                if stroke.color == egui::Color32::from_rgb(0xff, 0x6d, 0x00) =>
            {
                Some(points)
            }
            _ => None,
        })
        .collect()
}

/// The text of the label that contains `text`.
fn label_with(h: &Harness<'_, BoafApp>, text: &str) -> String {
    h.get_by_label_contains(text)
        .accesskit_node()
        .value()
        .unwrap_or_default()
}

#[test]
fn the_agents_last_move_is_marked_with_an_arrow() {
    let root = temp_root("watch-mark");
    let mut h = open_deal_5(&root, Tab::Watch);
    h.run();
    assert!(painted_segments(&h).is_empty(), "no move, no arrow");
    h.get_by_label("Step").click();
    wait_for_label_contains(&mut h, "1 move made");
    h.run();
    // "Last move: J♠ onto 10♥ (…)": the J♠ now tops the stack it made.
    let last = label_with(&h, "Last move: ");
    let moved = last["Last move: ".len()..].split(" onto ").next().unwrap();
    let to = h.get_by_label(&format!("card {moved}")).rect();
    // The arrow's shaft (its longest segment) runs from the cell it left,
    // now empty, to the middle of the stack it made.
    let shaft = painted_segments(&h)
        .into_iter()
        .max_by(|a, b| (a[1] - a[0]).length().total_cmp(&(b[1] - b[0]).length()))
        .expect("an arrow");
    assert!(
        (shaft[1] - to.center()).length() < 1.0,
        "{shaft:?} ends at {to:?}"
    );
    let from = cell_rects(&h)
        .into_iter()
        .find(|(_, r)| r.contains(shaft[0]))
        .expect("the arrow starts in a cell");
    assert!(from.0.starts_with("empty cell "), "{from:?}");
}

/// Types `seed` into the Seed field.
fn type_seed(h: &mut Harness<'_, BoafApp>, seed: &str) {
    h.get_by_role(egui::accesskit::Role::TextInput).click();
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(2);
    h.get_by_role(egui::accesskit::Role::TextInput)
        .type_text(seed);
    h.run_steps(2);
}

/// The agent's first `n` moves from the start (fewer if the game ends).
fn first_moves(h: &mut Harness<'_, BoafApp>, n: usize) -> Vec<String> {
    h.get_by_label("Start over").click();
    h.run();
    let mut moves = Vec::new();
    for i in 1..=n {
        if h.query_by_label_contains("Stuck after").is_some() {
            break;
        }
        h.get_by_label("Step").click();
        let made = if i == 1 {
            "1 move".into()
        } else {
            format!("{i} moves")
        };
        let start = std::time::Instant::now();
        while h.query_by_label_contains(&made).is_none() {
            assert!(start.elapsed() < Duration::from_secs(60), "no {made}");
            h.step();
            std::thread::sleep(Duration::from_millis(10));
        }
        h.run();
        let last = label_with(h, "Last move: ");
        // Without the time it took.
        moves.push(last.split(" (").next().unwrap().to_string());
    }
    moves
}

#[test]
fn the_same_seed_replays_the_same_game_and_is_shown() {
    let root = temp_root("watch-seed");
    let mut h = open_deal_5(&root, Tab::Watch);
    h.run();
    choose_agent(&mut h, "Random (seed 004's monkey)");
    type_seed(&mut h, "4242");
    assert!(h.query_by_label_contains("seed 4242").is_some());
    let first = first_moves(&mut h, 6);
    assert!(first.len() >= 3, "{first:?}");
    assert!(h.query_by_label_contains("seed 4242").is_some());
    // Another seed plays another game; the first seed again, the first game.
    type_seed(&mut h, "7");
    assert!(h.query_by_label_contains("seed 7").is_some());
    let other = first_moves(&mut h, 6);
    assert_ne!(other, first);
    type_seed(&mut h, "4242");
    assert_eq!(first_moves(&mut h, 6), first);
    // New seed shows the seed it drew.
    h.get_by_label("New seed").click();
    h.run();
    let status = label_with(&h, " · seed ");
    let shown = status.rsplit("seed ").next().unwrap();
    assert_ne!(shown, "4242");
    let field = h.get_by_role(egui::accesskit::Role::TextInput);
    assert_eq!(field.accesskit_node().value().as_deref(), Some(shown));
}

#[test]
fn a_move_without_estimates_says_why() {
    let root = temp_root("watch-why");
    let mut h = open_deal_5(&root, Tab::Watch);
    h.run();
    choose_agent(&mut h, "Random (seed 004's monkey)");
    h.get_by_label("Step").click();
    wait_for_label_contains(&mut h, "1 move made");
    h.run();
    assert!(
        h.query_by_label("No estimates: this agent does not estimate moves.")
            .is_some()
    );
    // MCTS keeps the winning line it finds and plays it out to the end.
    choose_agent(&mut h, "MCTS (keeps a winning line)");
    h.get_by_label("Play on").click();
    h.run();
    wait_for_label_contains(&mut h, "Won in 15 moves");
    assert!(
        h.query_by_label("No estimates: the agent played on the winning line it had found.")
            .is_some()
            || h.query_by_label("No estimates: the agent saw a win within two moves.")
                .is_some()
    );
}

/// Chooses the agent titled `title` in the Agent box.
fn choose_agent(h: &mut Harness<'_, BoafApp>, title: &str) {
    h.get_by_role_and_label(egui::accesskit::Role::ComboBox, "Agent")
        .click();
    h.run();
    h.get_by_label(title).click();
    h.run();
}
