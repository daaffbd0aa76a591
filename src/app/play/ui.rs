//! The Play panel's layout: its buttons, the play record's line, the
//! message line and the board, each frame.

use super::{Action, Hint, LineClick, PlayPanel, SHORTCUTS};
use crate::BoafApp;
use crate::board::{BoardInput, Highlight, board_space, board_ui};
use boaf_core::format::{self, plural};
use eframe::egui;
use std::time::Duration;

/// The "Shortcuts" label, with its list in a tooltip above it: below, the
/// list would cover the record and the message line ("Rate it").
fn shortcuts_label(ui: &mut egui::Ui) {
    let label = ui.weak("⌨ Shortcuts");
    let mut tip = egui::Tooltip::for_enabled(&label);
    tip.popup = tip
        .popup
        .align(egui::RectAlign::TOP_START)
        .align_alternatives(&[egui::RectAlign::LEFT_START]);
    tip.show(|ui| ui.label(SHORTCUTS));
}

impl BoafApp {
    pub(crate) fn play_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Play");
        let Some((number, c)) = self.open_candidate(ui) else {
            return;
        };
        ui.horizontal(|ui| {
            ui.label(format!(
                "Candidate #{number} · {} cards · {} · energy {}",
                c.n,
                c.energy_id,
                format::number(Some(c.energy)),
            ));
            crate::enter::copy_id_button(ui, &c);
        });
        ui.weak(
            "Click a stack, then one of its lit targets (same row or column, same suit or \
             same or adjacent rank), or drag it there. Leave one stack to win.",
        );
        let p = &mut self.play;
        if p.session.is_none() {
            return;
        }
        if p.session.as_ref().is_some_and(|s| s.clock.is_running()) {
            // The time shown goes up while the player thinks.
            ui.ctx().request_repaint_after(Duration::from_secs(1));
        }
        let replaying = p.replaying();
        let mut clicked = PlayPanel::shortcut(ui);
        ui.horizontal(|ui| {
            let mut button = |ui: &mut egui::Ui, action, text: &str, keys: &str| {
                let b = ui.add_enabled(p.allowed(action), egui::Button::new(text));
                if b.on_hover_text(keys).clicked() {
                    clicked = Some(action);
                }
            };
            button(ui, Action::Undo, "Undo", "Ctrl+Z");
            button(ui, Action::Redo, "Redo", "Ctrl+Y or Ctrl+Shift+Z");
            button(ui, Action::Restart, "Restart", "R");
            button(ui, Action::Hint, "Hint", "H: the next move of a solution");
            button(
                ui,
                Action::ShowSolution,
                "Show solution",
                "Replays a solution; it is recorded with the rating. From a position \
                 that can no longer be solved, it asks before it goes back to the deal.",
            );
            if replaying {
                button(ui, Action::StopReplay, "Stop replay", "");
            }
            button(
                ui,
                Action::Discard,
                "Discard game",
                "Drops this game unrated: the deal again, with no moves, hints or time. \
                 Otherwise a game is kept until it is rated.",
            );
            let before = p.warn_unsolvable;
            ui.checkbox(
                &mut p.warn_unsolvable,
                "Tell me when it can no longer be solved",
            );
            if p.warn_unsolvable && !before {
                clicked = Some(Action::CheckNow);
            }
            shortcuts_label(ui);
        });
        if let Some(action) = clicked.filter(|&a| p.allowed(a)) {
            p.act(action);
        }
        let Some(game) = p.game() else { return };
        let record = p.record();
        ui.horizontal(|ui| {
            ui.label(format!(
                "{} · {} · {} · {} · {} left · {:.0} s",
                plural(record.moves as usize, "move"),
                plural(record.undos as usize, "undo"),
                plural(record.restarts as usize, "restart"),
                plural(record.hints as usize, "hint"),
                plural(game.state().stack_count(), "stack"),
                record.seconds
            ));
            if p.session.as_ref().is_some_and(|s| s.solution_shown) {
                ui.weak("(solution shown)");
            }
        });
        let line = p.message_line(ui);
        match line {
            Some(LineClick::Act(action)) if p.allowed(action) => p.act(action),
            Some(LineClick::KeepPlaying) => p.hint = None,
            _ => {}
        }
        let Some(game) = p.game() else { return };
        // Again after the action: Show solution this frame stops play at once.
        let replaying = p.replaying();
        let targets = p.selected.map(|s| game.targets(s)).unwrap_or_default();
        let light = Highlight {
            selected: p.selected,
            targets: &targets,
            hint: match &p.hint {
                Some(Hint::Move(m, _)) => Some(*m),
                _ => None,
            },
        };
        let state = game.state().clone();
        // As large as the space below allows (the panel does not scroll),
        // where the Watch panel draws it too.
        let space = board_space(ui);
        let input = if replaying || game.is_solved() {
            // A finished or replaying board is shown, not played.
            ui.add_enabled_ui(false, |ui| board_ui(ui, &state, &light, space));
            None
        } else {
            board_ui(ui, &state, &light, space)
        };
        match input {
            Some(BoardInput::Picked(cell)) => {
                p.selected = Some(cell);
                p.hint = None;
            }
            Some(BoardInput::Move(mv)) => p.apply(mv),
            Some(BoardInput::Cancel) => p.selected = None,
            None => {}
        }
        if line == Some(LineClick::RateIt) {
            self.tab = crate::Tab::Rate;
        }
    }
}
