//! The Play panel: the board, undo/redo/restart, a hint, an optional
//! "no longer solvable" notice, a solution replay, and the clock and counts
//! that go into the rating.

use super::BoafApp;
use super::board::{BoardInput, Highlight, board_ui};
use boaf_core::engine::game::Game;
use boaf_core::engine::limits::{Cancel, Limits, SearchError};
use boaf_core::engine::solver::{Solver, Verdict};
use boaf_core::engine::state::{Move, State};
use boaf_core::format;
use crossbeam_channel::{Receiver, TryRecvError, bounded};
use eframe::egui;
use std::time::{Duration, Instant};

/// Time between the moves of a solution replay.
const REPLAY_STEP: Duration = Duration::from_millis(700);

/// What a background solve is for.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Purpose {
    /// The next move of a solution, shown as a hint.
    Hint,
    /// Whether the position can still be solved, for the notice.
    Notice,
    /// A solution to replay; `from_deal` once the position was unsolvable.
    Solution { from_deal: bool },
}

/// A solve running in its own thread: the UI thread never searches.
struct Solving {
    purpose: Purpose,
    /// The position solved; an answer for another position is dropped.
    state: State,
    result: Receiver<Result<Verdict, SearchError>>,
    cancel: Cancel,
}

impl Drop for Solving {
    /// A solve no longer wanted stops.
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// A solution being replayed.
struct Replay {
    moves: Vec<Move>,
    next: usize,
    last: Instant,
}

/// What the hint button found.
#[derive(Clone, Debug, PartialEq)]
enum Hint {
    Move(Move, String),
    NoSolution,
    /// The solver gave up (its memory cap).
    Failed(String),
}

/// The Play panel's state: one game of the current candidate.
#[derive(Default)]
pub(super) struct PlayPanel {
    game: Option<Game>,
    selected: Option<usize>,
    started: Option<Instant>,
    /// Seconds on the clock when the puzzle was solved (the clock stops).
    stopped: Option<f64>,
    hint: Option<Hint>,
    /// Off by default: knowing it would spoil the play.
    warn_unsolvable: bool,
    /// Whether the position is solvable, when the notice is on.
    solvable_now: Option<bool>,
    replay: Option<Replay>,
    /// The solution was shown, so a solve after it is not the player's.
    solution_seen: bool,
    /// Solved by the player, without the solution shown first.
    solved_by_player: bool,
    /// Solves under way.
    solving: Vec<Solving>,
    /// To wake the UI when a solve is done.
    ctx: Option<egui::Context>,
}

/// A button of the Play panel.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Action {
    Undo,
    Redo,
    Restart,
    Hint,
    ShowSolution,
    StopReplay,
    /// The notice was switched on: check the position now.
    CheckNow,
}

/// What a rating records about the play.
pub(super) struct PlayRecord {
    pub solved: bool,
    pub moves: u32,
    pub undos: u32,
    pub restarts: u32,
    pub hints: u32,
    pub solution_shown: bool,
    pub seconds: f64,
}

impl PlayPanel {
    /// A fresh game of a deal.
    pub(super) fn start(&mut self, state: State) {
        *self = PlayPanel {
            game: Some(Game::new(state)),
            warn_unsolvable: self.warn_unsolvable,
            ctx: self.ctx.clone(),
            ..PlayPanel::default()
        };
    }

    fn seconds(&self) -> f64 {
        self.stopped
            .or_else(|| self.started.map(|t| t.elapsed().as_secs_f64()))
            .unwrap_or(0.0)
    }

    /// Whether the position can still be solved, once the notice's solve has
    /// answered (`None` before that, and while the notice is off).
    pub(super) fn solvable_now(&self) -> Option<bool> {
        self.solvable_now.filter(|_| self.warn_unsolvable)
    }

    /// The counts for a rating.
    pub(super) fn record(&self) -> PlayRecord {
        PlayRecord {
            solved: self.solved_by_player,
            moves: self.game.as_ref().map_or(0, Game::moves),
            undos: self.game.as_ref().map_or(0, Game::undos),
            restarts: 0,
            hints: 0,
            solution_shown: self.solution_seen,
            seconds: self.seconds(),
        }
    }

    /// Starts a solve of `state` in a thread; it replaces one for the same purpose.
    fn spawn(&mut self, purpose: Purpose, state: State) {
        let (tx, rx) = bounded(1);
        let ctx = self.ctx.clone();
        let position = state.clone();
        let cancel = Cancel::new();
        let limits = Limits::default().cancelled_by(&cancel);
        std::thread::spawn(move || {
            // The receiver may be gone (the position changed): nothing to do then.
            let _ = tx.send(Solver::new(limits).solve(&position));
            if let Some(ctx) = ctx {
                ctx.request_repaint();
            }
        });
        self.solving.retain(|s| s.purpose != purpose);
        self.solving.push(Solving {
            purpose,
            state,
            result: rx,
            cancel,
        });
    }

    /// Whether a solve for this purpose is under way.
    fn is_solving(&self, purpose: Purpose) -> bool {
        self.solving.iter().any(|s| s.purpose == purpose)
    }

    /// Takes the answers of finished solves, without waiting.
    fn take_answers(&mut self) {
        let mut done = Vec::new();
        self.solving.retain(|s| match s.result.try_recv() {
            Ok(answer) => {
                done.push((s.purpose, s.state.clone(), answer));
                false
            }
            Err(TryRecvError::Empty) => true,
            // The solving thread died: answer as if it had failed.
            Err(TryRecvError::Disconnected) => {
                done.push((s.purpose, s.state.clone(), Err(SearchError::Cancelled)));
                false
            }
        });
        for (purpose, state, answer) in done {
            let Some(game) = &mut self.game else { return };
            if *game.state() != state {
                if matches!(purpose, Purpose::Solution { .. }) {
                    game.set_counting(true);
                }
                continue;
            }
            match purpose {
                Purpose::Hint => {
                    self.hint = Some(match answer {
                        Ok(Verdict::Solvable(path)) if !path.is_empty() => {
                            Hint::Move(path[0], state.move_name(path[0]))
                        }
                        Ok(_) => Hint::NoSolution,
                        Err(e) => Hint::Failed(e.to_string()),
                    });
                }
                Purpose::Notice => {
                    self.solvable_now = answer.ok().map(|v| v.is_solvable());
                }
                Purpose::Solution { from_deal } => match answer {
                    Ok(Verdict::Solvable(moves)) if !moves.is_empty() => {
                        self.replay = Some(Replay {
                            moves,
                            next: 0,
                            // The first move comes one step after the answer.
                            last: Instant::now(),
                        });
                    }
                    Ok(Verdict::Unsolvable(_)) if !from_deal => {
                        // Not from here: from the deal, then.
                        game.restart();
                        let deal = game.state().clone();
                        self.after_change();
                        self.spawn(Purpose::Solution { from_deal: true }, deal);
                    }
                    other => {
                        game.set_counting(true);
                        self.hint = Some(match other {
                            Err(e) => Hint::Failed(e.to_string()),
                            _ => Hint::NoSolution,
                        });
                    }
                },
            }
        }
    }

    /// Takes finished solves and advances a solution replay; asks for a
    /// repaint when the next step is due.
    pub(super) fn tick(&mut self, ctx: &egui::Context) {
        if self.ctx.is_none() {
            self.ctx = Some(ctx.clone());
        }
        self.take_answers();
        let Some(r) = &mut self.replay else { return };
        if r.last.elapsed() >= REPLAY_STEP {
            let mv = r.moves.get(r.next).copied();
            r.next += 1;
            r.last = Instant::now();
            let done = r.next >= r.moves.len();
            if let Some(mv) = mv {
                self.apply(mv);
            }
            if done {
                self.end_replay();
                return;
            }
        }
        ctx.request_repaint_after(REPLAY_STEP);
    }

    /// Ends a solution replay; the player's moves count again.
    fn end_replay(&mut self) {
        self.replay = None;
        if let Some(g) = &mut self.game {
            g.set_counting(true);
        }
        self.after_change();
    }

    /// Plays a move and updates what depends on the position.
    fn apply(&mut self, mv: Move) {
        let Some(game) = &mut self.game else { return };
        if game.play(mv).is_ok() {
            self.after_change();
        }
    }

    fn after_change(&mut self) {
        let Some(game) = &self.game else { return };
        self.selected = None;
        self.hint = None;
        if !game.is_solved()
            && let Some(secs) = self.stopped.take()
        {
            // Undone after solving: the clock runs on from where it stopped.
            self.started = Some(Instant::now() - Duration::from_secs_f64(secs));
        }
        if game.is_solved() && self.stopped.is_none() {
            self.stopped = Some(self.seconds());
            self.solved_by_player |= !self.solution_seen;
        }
        // A new position: answers about the old one no longer apply.
        self.solving.retain(|s| s.purpose != Purpose::Hint);
        self.solvable_now = None;
        if self.warn_unsolvable {
            let state = game.state().clone();
            self.spawn(Purpose::Notice, state);
        }
    }

    fn show_solution(&mut self) {
        let Some(game) = &mut self.game else { return };
        // The replay (and any restart for it) is not the player's play.
        game.set_counting(false);
        let state = game.state().clone();
        self.solution_seen = true;
        self.selected = None;
        self.hint = None;
        self.spawn(Purpose::Solution { from_deal: false }, state);
    }
}

impl BoafApp {
    pub(super) fn play_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Play");
        let Some((number, c)) = self.open_candidate(ui) else {
            return;
        };
        ui.label(format!(
            "Candidate #{number} · {} cards · {} · energy {}",
            c.n,
            c.energy_id,
            format::number(Some(c.energy)),
        ));
        ui.weak(
            "Click a stack, then one of its lit targets (same row or column, same suit or \
             same or adjacent rank), or drag it there. Leave one stack to win.",
        );
        let p = &mut self.play;
        let Some(game) = &p.game else { return };
        // The clock runs from the first time the puzzle is shown.
        p.started.get_or_insert_with(Instant::now);
        if p.stopped.is_none() {
            ui.ctx().request_repaint_after(Duration::from_secs(1));
        }
        // A solution being found or replayed: the board is not played.
        let replaying = p.replay.is_some()
            || p.solving
                .iter()
                .any(|s| matches!(s.purpose, Purpose::Solution { .. }));
        let mut clicked = None;
        ui.horizontal(|ui| {
            ui.add_enabled_ui(!replaying, |ui| {
                if ui
                    .add_enabled(game.can_undo(), egui::Button::new("Undo"))
                    .clicked()
                {
                    clicked = Some(Action::Undo);
                }
                if ui
                    .add_enabled(game.can_redo(), egui::Button::new("Redo"))
                    .clicked()
                {
                    clicked = Some(Action::Redo);
                }
                if ui.button("Restart").clicked() {
                    clicked = Some(Action::Restart);
                }
                // Nothing to hint or show on a solved board.
                let open = !game.is_solved();
                if ui.add_enabled(open, egui::Button::new("Hint")).clicked() {
                    clicked = Some(Action::Hint);
                }
                if ui
                    .add_enabled(open, egui::Button::new("Show solution"))
                    .clicked()
                {
                    clicked = Some(Action::ShowSolution);
                }
            });
            if replaying && ui.button("Stop replay").clicked() {
                clicked = Some(Action::StopReplay);
            }
            let before = p.warn_unsolvable;
            ui.checkbox(
                &mut p.warn_unsolvable,
                "Tell me when it can no longer be solved",
            );
            if p.warn_unsolvable && !before {
                clicked = Some(Action::CheckNow);
            }
        });
        match clicked {
            Some(Action::Undo) => {
                if let Some(g) = &mut p.game {
                    g.undo();
                }
                p.after_change();
            }
            Some(Action::Redo) => {
                if let Some(g) = &mut p.game {
                    g.redo();
                }
                p.after_change();
            }
            Some(Action::Restart) => {
                if let Some(g) = &mut p.game {
                    g.restart();
                }
                p.after_change();
            }
            Some(Action::Hint) => {
                if let Some(state) = p.game.as_ref().map(|g| g.state().clone()) {
                    p.hint = None;
                    p.spawn(Purpose::Hint, state);
                }
            }
            Some(Action::ShowSolution) => p.show_solution(),
            Some(Action::StopReplay) => {
                p.solving
                    .retain(|s| !matches!(s.purpose, Purpose::Solution { .. }));
                p.end_replay();
            }
            Some(Action::CheckNow) => p.after_change(),
            None => {}
        }
        let Some(game) = &p.game else { return };
        ui.horizontal(|ui| {
            ui.label(format!(
                "Moves {} · undos {} · stacks left {} · time {:.0} s",
                game.moves(),
                game.undos(),
                game.state().stack_count(),
                p.seconds()
            ));
            if p.solution_seen {
                ui.weak("(solution shown)");
            }
        });
        if p.is_solving(Purpose::Hint) {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Looking for a hint…");
            });
        }
        match &p.hint {
            Some(Hint::Move(_, name)) => {
                ui.colored_label(
                    egui::Color32::from_rgb(0xe0, 0xa8, 0x00),
                    format!("Hint: {name}"),
                );
            }
            Some(Hint::NoSolution) => {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    "Hint: no solution from here. Undo some moves.",
                );
            }
            Some(Hint::Failed(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, format!("No hint: {e}"));
            }
            None => {}
        }
        if p.warn_unsolvable && p.solvable_now == Some(false) && !game.is_solved() {
            ui.colored_label(
                ui.visuals().error_fg_color,
                "This position is no longer solvable.",
            );
        }
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
        let solved = game.is_solved();
        let (moves, undos) = (game.moves(), game.undos());
        let input = if replaying || solved {
            // A finished or replaying board is shown, not played.
            ui.add_enabled_ui(false, |ui| board_ui(ui, &state, &light));
            None
        } else {
            board_ui(ui, &state, &light)
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
        if solved {
            ui.add_space(8.0);
            let text = if p.solved_by_player {
                format!(
                    "★ Solved! ★  {moves} moves, {undos} undos, {:.0} s. Rate it in the Rate panel.",
                    p.seconds()
                )
            } else {
                "Solved by the solution replay.".to_string()
            };
            ui.label(
                egui::RichText::new(text)
                    .size(22.0)
                    .strong()
                    .color(egui::Color32::from_rgb(0x2e, 0xa0, 0x43)),
            );
            if ui.button("Rate it").clicked() {
                self.tab = super::Tab::Rate;
            }
        }
    }
}
