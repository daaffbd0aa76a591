//! The Play and Rate panels, driven through the real app with kittest and a
//! clock the test moves: the saved play record is exactly what the person
//! did, the board holds still and fits the window, and the shortcuts work.

mod common;

use boaf_app::{BoafApp, Tab, cell_label};
use boaf_core::engine::analysis::AnalysisOptions;
use boaf_core::engine::feature::FeatureSet;
use boaf_core::engine::features::features_for;
use boaf_core::engine::notation::parse_state;
use boaf_core::engine::solver::{Verdict, solve};
use boaf_core::engine::state::{Move, State};
use boaf_core::study::ratings::read_ratings;
use common::*;
use eframe::egui::{self, Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::time::Duration;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// Plays a move by clicking its stack, then its target.
fn click_move(h: &mut Harness<'_, BoafApp>, state: &State, mv: Move) {
    h.get_by_label(&cell_label(state, mv.from as usize)).click();
    h.run();
    h.get_by_label(&cell_label(state, mv.to as usize)).click();
    h.run();
}

/// The open candidate's deal and a solution of it.
fn deal_and_path(h: &Harness<'_, BoafApp>) -> (State, Vec<Move>) {
    let deal = h.state().current().unwrap().state().unwrap();
    let Ok(Verdict::Solvable(path)) = solve(&deal) else {
        panic!("the candidate is solvable");
    };
    (deal, path)
}

fn press(h: &mut Harness<'_, BoafApp>, modifiers: Modifiers, key: Key) {
    h.key_press_modifiers(modifiers, key);
    h.run();
}

fn stats(h: &Harness<'_, BoafApp>, text: &str) -> bool {
    h.query_by_label_contains(text).is_some()
}

/// A generated puzzle open in the Play panel, in its own folder, timed by
/// a clock the test moves.
fn playing(name: &str) -> (TempDir, TestClock, Harness<'static, BoafApp>) {
    let root = temp_root(name);
    let time = TestClock::default();
    let mut h = harness_with(&root, egui::vec2(1280.0, 1400.0), time.clock());
    generate_one(&mut h);
    h.get_by_label("Play").click();
    h.run();
    (root, time, h)
}

#[test]
fn the_saved_row_is_exactly_what_the_player_did() {
    let (root, time, mut h) = playing("record");
    let (deal, path) = deal_and_path(&h);
    assert!(path.len() >= 2, "a puzzle of a few moves");
    // 4 s of play, then a move, undone and redone by keyboard, twice.
    time.advance(secs(4));
    click_move(&mut h, &deal, path[0]);
    press(&mut h, Modifiers::COMMAND, Key::Z);
    assert!(stats(&h, "1 move · 1 undo · 0 restarts"));
    press(&mut h, Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::Z);
    press(&mut h, Modifiers::COMMAND, Key::Z);
    press(&mut h, Modifiers::COMMAND, Key::Y);
    assert!(stats(&h, "3 moves · 2 undos · 0 restarts · 0 hints"));
    // A hint by keyboard, named as the app shows cards, with the card that moves first.
    let after = deal.apply(path[0]).unwrap();
    let Ok(Verdict::Solvable(rest)) = solve(&after) else {
        panic!("the first move of a solution leaves it solvable");
    };
    press(&mut h, Modifiers::NONE, Key::H);
    let hint = format!(
        "Hint: move {} onto {}",
        after.top(rest[0].from as usize).unwrap().face(),
        after.top(rest[0].to as usize).unwrap().face()
    );
    wait_for_label_contains(&mut h, &hint);
    // Asked again on the same position: still one hint.
    press(&mut h, Modifiers::NONE, Key::H);
    assert!(stats(&h, "3 moves · 2 undos · 0 restarts · 1 hint"));
    // Time on another tab, or with the window out of focus, is not play.
    h.get_by_label("Generate").click();
    h.run();
    time.advance(secs(100));
    h.get_by_label("Play").click();
    h.run();
    h.input_mut().focused = false;
    h.run();
    time.advance(secs(50));
    h.input_mut().focused = true;
    h.run();
    time.advance(secs(3));
    // The solution, replayed: watching it is neither play nor the player's moves.
    h.get_by_label("Show solution").click();
    h.step();
    time.advance(secs(20));
    wait_for_label_contains(&mut h, "Solved by the solution replay.");
    time.advance(secs(20));
    assert!(stats(
        &h,
        "3 moves · 2 undos · 0 restarts · 1 hint · 1 stack left · 7 s"
    ));
    h.get_by_label("Rate").click();
    h.run();
    assert!(stats(
        &h,
        "not solved by you: the solution replay solved it"
    ));
    h.get_by_label("Play").click();
    h.run();
    // A restart is one restart, not undos of the replay's moves; then the
    // player solves it.
    press(&mut h, Modifiers::NONE, Key::R);
    assert!(stats(&h, "3 moves · 2 undos · 1 restart · 1 hint"));
    let mut state = deal.clone();
    for (i, &mv) in path.iter().enumerate() {
        if i + 1 == path.len() {
            time.advance(secs(5));
        }
        click_move(&mut h, &state, mv);
        state = state.apply(mv).unwrap();
    }
    assert!(stats(&h, "★ Solved! ★"));
    // The clock stopped at the solve, and stays stopped through an undo
    // and redo after it.
    time.advance(secs(30));
    h.run();
    press(&mut h, Modifiers::COMMAND, Key::Z);
    time.advance(secs(10));
    press(&mut h, Modifiers::COMMAND, Key::Y);
    let moves = 4 + path.len();
    assert!(stats(
        &h,
        &format!("{moves} moves · 3 undos · 1 restart · 1 hint · 1 stack left · 12 s")
    ));
    h.get_by_label("Rate it").click();
    h.run();
    assert_eq!(h.state().tab(), Tab::Rate);
    assert!(stats(&h, "solved by you after the solution was shown"));
    h.get_by_label("Save rating").click();
    h.run();
    let table = read_ratings(&root.join("ratings/ratings.csv")).unwrap();
    assert_eq!(table.rows.len(), 1, "{:?}", h.state().status_text());
    let text = |c: &str| table.text(0, c).unwrap().to_string();
    assert_eq!(text("solved"), "true");
    assert_eq!(text("moves"), moves.to_string());
    assert_eq!(text("undos"), "3");
    assert_eq!(text("restarts"), "1");
    assert_eq!(text("hints"), "1");
    assert_eq!(text("solution_shown"), "true");
    assert_eq!(table.number(0, "seconds"), Some(12.0));
    // The queue marks it rated at once.
    h.state_mut().set_tab(Tab::Generate);
    h.run();
    assert!(stats(&h, "✔ rated"));
}

#[test]
fn a_puzzle_left_to_the_replay_is_saved_as_not_solved() {
    let (root, time, mut h) = playing("replay-only");
    time.advance(secs(2));
    h.get_by_label("Show solution").click();
    wait_for_label_contains(&mut h, "Solved by the solution replay.");
    h.get_by_label("Rate").click();
    h.run();
    h.get_by_label("Save rating").click();
    h.run();
    let table = read_ratings(&root.join("ratings/ratings.csv")).unwrap();
    let text = |c: &str| table.text(0, c).unwrap().to_string();
    assert_eq!(
        [
            text("solved"),
            text("moves"),
            text("undos"),
            text("restarts")
        ],
        ["false", "0", "0", "0"]
    );
    assert_eq!(text("solution_shown"), "true");
    assert_eq!(table.number(0, "seconds"), Some(2.0));
}

/// A folder whose store holds one 16-card candidate (deal 1).
fn folder_with_a_16_card_candidate(root: &TempDir) -> State {
    let deal = parse_state("TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S", None).unwrap();
    // The card features are enough: the board is all this test looks at.
    let f = features_for(&deal, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
    store(root, &candidate(&deal, f, Vec::new()));
    deal
}

/// Opens the 16-card candidate in the Play panel.
fn play_it(h: &mut Harness<'_, BoafApp>) {
    assert_eq!(
        h.state().candidates().len(),
        1,
        "the 16-card candidate is loaded"
    );
    h.state_mut().play_candidate(0);
    h.state_mut().set_tab(Tab::Play);
    h.run();
}

/// The fewest moves from `deal` to a position with no solution, found
/// breadth first.
fn shortest_loss(deal: &State) -> Vec<Move> {
    let mut layer = vec![(deal.clone(), Vec::new())];
    loop {
        let mut next = Vec::new();
        for (state, path) in layer {
            for mv in state.legal_moves() {
                let to = state.apply(mv).unwrap();
                let mut p: Vec<Move> = path.clone();
                p.push(mv);
                if matches!(solve(&to), Ok(Verdict::Unsolvable(_))) {
                    return p;
                }
                next.push((to, p));
            }
        }
        assert!(!next.is_empty(), "every position is solvable");
        layer = next;
    }
}

#[test]
fn show_solution_from_a_lost_position_asks_before_it_goes_back_to_the_deal() {
    let root = temp_root("lost");
    let deal = folder_with_a_16_card_candidate(&root);
    let mut h = harness_with(
        &root,
        egui::vec2(1280.0, 1400.0),
        TestClock::default().clock(),
    );
    play_it(&mut h);
    let losing = shortest_loss(&deal);
    let mut lost = deal.clone();
    for &mv in &losing {
        click_move(&mut h, &lost, mv);
        lost = lost.apply(mv).unwrap();
    }
    h.get_by_label("Show solution").click();
    wait_for_label_contains(&mut h, "No solution from this position.");
    // Nothing went back yet: the position and the counts are the player's,
    // and being told it is lost counts as a hint.
    assert_eq!(h.state().position(), Some(&lost));
    assert!(stats(
        &h,
        &format!("{} moves · 0 undos · 0 restarts · 1 hint", losing.len())
    ));
    assert!(!stats(&h, "(solution shown)"));
    // Declined: the question goes, the position stays.
    h.get_by_label("Keep playing").click();
    h.run();
    assert!(!stats(&h, "No solution from this position."));
    assert_eq!(h.state().position(), Some(&lost));
    // A hint now says what is known already, and is not counted again.
    press(&mut h, Modifiers::NONE, Key::H);
    assert!(stats(&h, "Hint: no solution from here."));
    assert!(stats(
        &h,
        &format!("{} moves · 0 undos · 0 restarts · 1 hint", losing.len())
    ));
    // Asked again, it asks at once (no second hint); accepted, it goes back
    // to the deal (not the player's restart) and replays a solution.
    h.get_by_label("Show solution").click();
    h.run();
    assert!(stats(&h, "No solution from this position."));
    h.get_by_label("Back to the deal and show it").click();
    wait_for_label_contains(&mut h, "Solved by the solution replay.");
    assert!(stats(
        &h,
        &format!(
            "{} moves · 0 undos · 0 restarts · 1 hint · 1 stack left",
            losing.len()
        )
    ));
    assert!(stats(&h, "(solution shown)"));
    h.get_by_label("Rate").click();
    h.run();
    assert!(stats(
        &h,
        "not solved by you: the solution replay solved it"
    ));
}

#[test]
fn show_solution_on_a_puzzle_with_no_solution_says_so_and_offers_nothing() {
    let root = temp_root("no-solution");
    // Deal 10 has no solution (its solvable feature says so).
    let deal = boaf_core::engine::deal::deal(10);
    let f = features_for(&deal, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
    assert!(!f.solvable);
    store(&root, &candidate(&deal, f, Vec::new()));
    let mut h = harness_with(
        &root,
        egui::vec2(1280.0, 1400.0),
        TestClock::default().clock(),
    );
    play_it(&mut h);
    h.get_by_label("Show solution").click();
    h.run();
    assert!(stats(
        &h,
        "This puzzle has no solution, not even from the deal."
    ));
    assert!(h.query_by_label("Back to the deal and show it").is_none());
    assert!(stats(&h, "0 moves · 0 undos · 0 restarts · 0 hints"));
    assert!(!stats(&h, "(solution shown)"));
}

#[test]
fn the_board_fits_the_window_and_holds_still_when_a_hint_shows() {
    let root = temp_root("still");
    let deal = folder_with_a_16_card_candidate(&root);
    let cells = |h: &Harness<'_, BoafApp>| -> Vec<egui::Rect> {
        (0..16)
            .map(|c| h.get_by_label(&cell_label(&deal, c)).rect())
            .collect()
    };
    // At 800×600 the whole 4×4 board shows, bottom row included.
    let mut small = harness_with(
        &root,
        egui::vec2(800.0, 600.0),
        TestClock::default().clock(),
    );
    play_it(&mut small);
    let rects = cells(&small);
    for r in &rects {
        assert!(
            r.bottom() <= 600.0 && r.right() <= 800.0,
            "{r:?} is cut off"
        );
    }
    // In a larger window the cards are larger.
    let mut large = harness_with(
        &root,
        egui::vec2(1280.0, 1000.0),
        TestClock::default().clock(),
    );
    play_it(&mut large);
    let before = cells(&large);
    assert!(before[0].width() > rects[0].width() * 1.2);
    // A hint, then the notice: neither moves a card.
    large.get_by_label("Hint").click();
    wait_for_label_contains(&mut large, "Hint: move");
    assert_eq!(cells(&large), before);
    large
        .get_by_role_and_label(
            egui::Role::CheckBox,
            "Tell me when it can no longer be solved",
        )
        .click();
    step_until(&mut large, secs(30), |app| {
        app.position_solvable().is_some()
    });
    assert_eq!(cells(&large), before);
}

#[test]
fn with_only_unrated_on_save_moves_on_to_the_next_unrated_candidate() {
    let root = temp_root("only-unrated");
    let mut h = harness(&root);
    h.state_mut().set_generation(6, 3, 11, 1);
    h.run();
    h.get_by_label("Start").click();
    h.run_steps(2);
    step_until(&mut h, secs(60), |app| {
        app.candidates().len() == 3 && !app.is_generating()
    });
    h.get_all_by_role_and_label(egui::Role::ComboBox, "Show")
        .nth(2)
        .unwrap()
        .click();
    h.run();
    h.get_by_label("unrated only").click();
    h.run();
    let puzzle = |h: &Harness<'_, BoafApp>| h.state().current().unwrap().puzzle.clone();
    let a = puzzle(&h);
    // Skip the first, rate the second: the third comes next, not the
    // skipped first (the first unrated one in the queue).
    h.state_mut().set_tab(Tab::Rate);
    h.run();
    h.get_by_label("Skip").click();
    h.run();
    let b = puzzle(&h);
    assert_ne!(a, b);
    h.state_mut().set_tab(Tab::Rate);
    h.run();
    h.get_by_label("Save rating").click();
    h.run();
    let c = puzzle(&h);
    assert!(c != a && c != b, "after rating {b}, {c} was opened");
}

/// A folder whose store holds two 16-card candidates (deals 1 and 2), in
/// that order; deal 1 is returned.
fn folder_with_two_candidates(root: &TempDir) -> State {
    let first = folder_with_a_16_card_candidate(root);
    let second = boaf_core::engine::deal::deal(1);
    let f = features_for(&second, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
    store(root, &candidate(&second, f, Vec::new()));
    first
}

/// Opens candidate `i` in the Play panel.
fn open(h: &mut Harness<'_, BoafApp>, i: usize) {
    h.state_mut().play_candidate(i);
    h.state_mut().set_tab(Tab::Play);
    h.run();
}

/// On candidate #1: 4 s, a move, 3 s, a hint. Returns the board after the move.
fn a_move_and_a_hint(h: &mut Harness<'_, BoafApp>, time: &TestClock) -> State {
    open(h, 0);
    let (deal, path) = deal_and_path(h);
    time.advance(secs(4));
    click_move(h, &deal, path[0]);
    time.advance(secs(3));
    press(h, Modifiers::NONE, Key::H);
    wait_for_label_contains(h, "Hint: move");
    assert!(stats(
        h,
        "1 move · 0 undos · 0 restarts · 1 hint · 15 stacks left · 7 s"
    ));
    deal.apply(path[0]).unwrap()
}

/// The games in progress kept in the folder, by puzzle.
fn kept(root: &TempDir) -> boaf_core::study::in_progress::InProgress {
    boaf_core::study::in_progress::read_in_progress(&root.join("ratings/in-progress.json")).unwrap()
}

#[test]
fn going_back_to_a_candidate_resumes_its_game_exactly() {
    let root = temp_root("resume");
    let deal = folder_with_two_candidates(&root);
    let time = TestClock::default();
    let mut h = harness_with(&root, egui::vec2(1280.0, 1400.0), time.clock());
    let board = a_move_and_a_hint(&mut h, &time);
    // Another candidate, played a while: none of it is #1's.
    open(&mut h, 1);
    assert!(stats(&h, "0 moves · 0 undos · 0 restarts · 0 hints"));
    time.advance(secs(50));
    h.run();
    h.state_mut().set_tab(Tab::Generate);
    h.run();
    assert!(stats(&h, "in progress"), "the queue marks #1 in progress");
    // Back on #1: the same board, counts and time; the time away not counted.
    open(&mut h, 0);
    assert_eq!(h.state().position(), Some(&board));
    assert!(stats(
        &h,
        "1 move · 0 undos · 0 restarts · 1 hint · 15 stacks left · 7 s"
    ));
    // The same history: the move undoes to the deal and redoes.
    press(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(h.state().position(), Some(&deal));
    press(&mut h, Modifiers::COMMAND, Key::Y);
    assert_eq!(h.state().position(), Some(&board));
    time.advance(secs(2));
    h.run();
    assert!(stats(
        &h,
        "2 moves · 1 undo · 0 restarts · 1 hint · 15 stacks left · 9 s"
    ));
}

#[test]
fn a_game_in_progress_survives_a_restart_of_the_app_until_it_is_rated() {
    let root = temp_root("restart");
    folder_with_a_16_card_candidate(&root);
    let time = TestClock::default();
    let mut h = harness_with(&root, egui::vec2(1280.0, 1400.0), time.clock());
    let board = a_move_and_a_hint(&mut h, &time);
    let puzzle = h.state().current().unwrap().puzzle.clone();
    assert!(kept(&root).contains_key(&puzzle), "kept as it is played");
    // The app goes away without a word (as in a crash); a new one on the
    // folder, with a clock of its own, finds the game as it was.
    drop(h);
    let time = TestClock::default();
    time.advance(secs(1000));
    let mut h = harness_with(&root, egui::vec2(1280.0, 1400.0), time.clock());
    h.run();
    assert!(stats(&h, "in progress"), "the queue marks it in progress");
    open(&mut h, 0);
    assert_eq!(h.state().position(), Some(&board));
    assert!(stats(
        &h,
        "1 move · 0 undos · 0 restarts · 1 hint · 15 stacks left · 7 s"
    ));
    // Rated: its record is the game's, and the game is done with.
    time.advance(secs(1));
    h.state_mut().set_tab(Tab::Rate);
    h.run();
    h.get_by_label("Save rating").click();
    h.run();
    let table = read_ratings(&root.join("ratings/ratings.csv")).unwrap();
    assert_eq!(table.rows.len(), 1, "{:?}", h.state().status_text());
    assert_eq!(table.text(0, "moves"), Some("1"));
    assert_eq!(table.text(0, "hints"), Some("1"));
    assert_eq!(table.number(0, "seconds"), Some(8.0));
    assert!(kept(&root).is_empty(), "a rated game is not kept");
    open(&mut h, 0);
    assert!(stats(&h, "0 moves · 0 undos · 0 restarts · 0 hints"));
}

#[test]
fn two_windows_on_one_folder_keep_each_others_games_in_progress() {
    let root = temp_root("two-windows");
    folder_with_two_candidates(&root);
    let time = TestClock::default();
    let mut a = harness_with(&root, egui::vec2(1280.0, 1400.0), time.clock());
    let mut b = harness_with(&root, egui::vec2(1280.0, 1400.0), time.clock());
    b.run();
    // Each window plays its own candidate; B read the folder before A kept anything.
    a_move_and_a_hint(&mut a, &time);
    let first = a.state().current().unwrap().puzzle.clone();
    open(&mut b, 1);
    let (deal, path) = deal_and_path(&b);
    click_move(&mut b, &deal, path[0]);
    let second = b.state().current().unwrap().puzzle.clone();
    assert_ne!(first, second);
    let games = kept(&root);
    assert_eq!(games.keys().collect::<Vec<_>>().len(), 2, "{games:?}");
    assert!(games.contains_key(&first) && games.contains_key(&second));
    // A rates its game: gone from the file, and B's stays.
    a.state_mut().set_tab(Tab::Rate);
    a.run();
    a.get_by_label("Save rating").click();
    a.run();
    assert_eq!(kept(&root).keys().collect::<Vec<_>>(), [&second]);
    // B plays on: A's rated game does not come back, and B's move is kept.
    let before = kept(&root)[&second].clone();
    time.advance(secs(2));
    click_move(&mut b, &deal.apply(path[0]).unwrap(), path[1]);
    let games = kept(&root);
    assert_eq!(games.keys().collect::<Vec<_>>(), [&second]);
    assert_ne!(games[&second], before);
}

#[test]
fn a_games_in_progress_file_that_does_not_read_is_set_aside() {
    let root = temp_root("torn-in-progress");
    folder_with_a_16_card_candidate(&root);
    let file = root.join("ratings/in-progress.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "{ torn").unwrap();
    let time = TestClock::default();
    let mut h = harness_with(&root, egui::vec2(1280.0, 1400.0), time.clock());
    h.run();
    let status = h.state().status_text().unwrap_or_default().to_string();
    assert!(status.contains("ratings/in-progress.json.bad"), "{status}");
    assert_eq!(
        std::fs::read_to_string(root.join("ratings/in-progress.json.bad")).unwrap(),
        "{ torn"
    );
    // The app goes on, and keeps new games in a new file.
    a_move_and_a_hint(&mut h, &time);
    assert_eq!(kept(&root).len(), 1);
}

#[test]
fn a_game_discarded_is_gone_and_leaving_one_keeps_it() {
    let root = temp_root("discard");
    let deal = folder_with_two_candidates(&root);
    let time = TestClock::default();
    let mut h = harness_with(&root, egui::vec2(1280.0, 1400.0), time.clock());
    a_move_and_a_hint(&mut h, &time);
    // Skip leaves it unrated: kept, not discarded.
    h.state_mut().set_tab(Tab::Rate);
    h.run();
    h.get_by_label("Skip").click();
    h.run();
    assert_eq!(kept(&root).len(), 1);
    open(&mut h, 0);
    assert!(stats(&h, "1 move · 0 undos · 0 restarts · 1 hint"));
    // Only the person's Discard drops it.
    h.get_by_label("Discard game").click();
    h.run();
    assert_eq!(h.state().position(), Some(&deal));
    assert!(stats(&h, "0 moves · 0 undos · 0 restarts · 0 hints"));
    assert!(kept(&root).is_empty());
    h.state_mut().set_tab(Tab::Generate);
    h.run();
    assert!(!stats(&h, "in progress"));
}

#[test]
fn the_shortcuts_tooltip_leaves_the_record_and_the_rate_line_in_view() {
    let (_root, _time, mut h) = playing("shortcuts");
    let (deal, path) = deal_and_path(&h);
    let mut state = deal.clone();
    for &mv in &path {
        click_move(&mut h, &state, mv);
        state = state.apply(mv).unwrap();
    }
    // Solved: the message line offers "Rate it".
    let lines: Vec<egui::Rect> = [
        h.get_by_label_contains("★ Solved! ★").rect(),
        h.get_by_label("Rate it").rect(),
        h.get_by_label_contains(" stack left · ").rect(),
    ]
    .into();
    h.get_by_label("⌨ Shortcuts").hover();
    // Tooltips wait for the pointer to rest; a step is a quarter second.
    for _ in 0..4 {
        h.step();
    }
    // The tooltip's text, with its frame around it.
    let tip = h
        .get_by_label_contains("Keyboard shortcuts:")
        .rect()
        .expand(6.0);
    for line in lines {
        assert!(!tip.intersects(line), "the tooltip {tip:?} covers {line:?}");
    }
}
