//! The Play panel: the board, undo/redo/restart, a hint, an optional
//! "no longer solvable" notice, a solution replay, keyboard shortcuts, and
//! the play record (the player's own counts and active time) that goes into
//! the rating.

mod ui;

use super::Clock;
use super::board::move_text;
use super::task::{Poll, Task};
use boaf_core::engine::game::Game;
use boaf_core::engine::limits::{Limits, SearchError};
use boaf_core::engine::solver::{Solver, Verdict};
use boaf_core::engine::state::{Move, State};
use boaf_core::format::plural;
use boaf_core::study::in_progress::{
    InProgress, Session, keep_in_progress, read_in_progress, set_aside,
};
use boaf_core::study::ratings::PlayRecord;
use eframe::egui::{self, Key, KeyboardShortcut, Modifiers};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The height of the message line above the board: reserved even when
/// empty, so a message never moves the board between two clicks.
const MESSAGE_LINE: f32 = 30.0;

/// The keyboard shortcuts, as listed in their tooltip.
pub(super) const SHORTCUTS: &str = "Keyboard shortcuts:\n\
    Ctrl+Z  undo\n\
    Ctrl+Y or Ctrl+Shift+Z  redo\n\
    R  restart\n\
    H  hint";

/// Time between the moves of a solution replay.
const REPLAY_STEP: Duration = Duration::from_millis(700);

/// How long after a failed write (a full disk) the games in progress are
/// written again.
pub(super) const KEEP_RETRY: Duration = Duration::from_secs(2);

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

/// A solve running in its own thread: the UI thread never searches. A
/// solve no longer wanted (dropped) stops.
struct Solving {
    purpose: Purpose,
    /// The position solved; an answer for another position is dropped.
    state: State,
    task: Task<Result<Verdict, SearchError>>,
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
    /// The first move of a solution, and how the app says it.
    Move(Move, String),
    NoSolution,
    /// Show solution found none from this position: it asks before it goes
    /// back to the deal, which would lose the player's position.
    FromDeal,
    /// Show solution on a puzzle with no solution at all (one entered or
    /// made by hand): there is nothing to show, from the deal either.
    NoneAtAll,
    /// The solver gave up (its memory cap).
    Failed(String),
}

/// The Play panel's state: the play of the current candidate, and the
/// games in progress of the others.
pub(super) struct PlayPanel {
    /// The play on the board; its clock runs only while the board is played
    /// (see [`PlayPanel::set_shown`]).
    session: Option<Session>,
    /// The puzzle played (compact notation), the key of its game in progress.
    puzzle: Option<String>,
    /// The games in progress of the candidates not open, as kept in `file`.
    waiting: InProgress,
    /// The games in progress as `file` held them when this window last read
    /// or kept it: what another window changed since is told by it.
    synced: InProgress,
    /// Where the games in progress are kept (`None`: not kept, in tests of the panel alone).
    file: Option<PathBuf>,
    /// The play changed in a way worth keeping: written at the next tick.
    changed: bool,
    /// When the last write of the games in progress failed (a full disk):
    /// tried again [`KEEP_RETRY`] after, not at every frame.
    failed_at: Option<Duration>,
    selected: Option<usize>,
    /// Where the time comes from (the system's clock, or a test's).
    now: Clock,
    hint: Option<Hint>,
    /// Off by default: knowing it would spoil the play.
    warn_unsolvable: bool,
    /// Whether the position is solvable, when the notice is on or a hint
    /// or Show solution found out.
    solvable_now: Option<bool>,
    /// Whether the deal itself has a solution, as its candidate's features say.
    deal_solvable: Option<bool>,
    replay: Option<Replay>,
    /// Solves under way.
    solving: Vec<Solving>,
    /// To wake the UI when a solve is done.
    ctx: Option<egui::Context>,
}

/// What was clicked in the line above the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum LineClick {
    RateIt,
    Act(Action),
    /// Declines [`Hint::FromDeal`]: the question goes, the position stays.
    KeepPlaying,
}

/// A button (or shortcut) of the Play panel.
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
    /// Drops the game in progress unrated: the deal afresh, nothing counted.
    Discard,
    /// The answer to [`Hint::FromDeal`]: back to the deal, and replay a
    /// solution from there.
    SolutionFromDeal,
}

impl PlayPanel {
    /// A panel with no game, timed by `now`.
    pub(super) fn new(now: Clock) -> PlayPanel {
        PlayPanel {
            session: None,
            puzzle: None,
            waiting: InProgress::new(),
            synced: InProgress::new(),
            file: None,
            changed: false,
            failed_at: None,
            selected: None,
            now,
            hint: None,
            warn_unsolvable: false,
            solvable_now: None,
            deal_solvable: None,
            replay: None,
            solving: Vec::new(),
            ctx: None,
        }
    }

    /// Reads the games in progress kept in `file`, where they are kept from
    /// now on. A file that does not read is set aside (to `.bad`) so that it
    /// cannot stop the app; the note says so.
    pub(super) fn load(&mut self, file: PathBuf, show: impl Fn(&Path) -> String) -> Option<String> {
        let note = match read_in_progress(&file) {
            Ok(games) => {
                self.synced = games.clone();
                self.waiting = games;
                None
            }
            Err(e) => Some(match set_aside(&file) {
                Ok(bad) => format!(
                    "{e}. It was set aside as {}; games in progress start afresh.",
                    show(&bad)
                ),
                Err(moved) => format!("{e}. It could not be set aside: {moved}"),
            }),
        };
        self.file = Some(file);
        note
    }

    /// Opens a candidate's deal: its game in progress when it has one (the
    /// board, history, counts and time as they were), else a fresh game.
    /// The play on the board waits with the others. A note when a kept
    /// game did not fit the deal and a fresh one started. `solvable` is
    /// whether the deal has a solution (its candidate's feature).
    pub(super) fn open(&mut self, puzzle: &str, deal: State, solvable: bool) -> Option<String> {
        self.clear();
        self.deal_solvable = Some(solvable);
        let mut note = None;
        let resumed = self.waiting.remove(puzzle).and_then(|saved| {
            Session::resume(deal.clone(), &saved)
                .map_err(|(i, e)| {
                    self.changed = true;
                    note = Some(format!(
                        "The game in progress of {puzzle} did not fit its deal (move {}: {e}); \
                         a new game starts.",
                        i + 1
                    ));
                })
                .ok()
        });
        self.session = Some(resumed.unwrap_or_else(|| Session::new(deal)));
        self.puzzle = Some(puzzle.to_string());
        note
    }

    /// No game on the board: the play there waits with the games in
    /// progress when the player did anything (never dropped unrated), with
    /// its clock stopped; a replay or solve under way ends.
    pub(super) fn clear(&mut self) {
        self.set_clock(false);
        let now = (self.now)();
        if let (Some(s), Some(puzzle)) = (self.session.take(), self.puzzle.take())
            && s.in_progress()
        {
            self.waiting.insert(puzzle, s.save(now));
            self.changed = true;
        }
        *self = PlayPanel {
            warn_unsolvable: self.warn_unsolvable,
            ctx: self.ctx.clone(),
            waiting: std::mem::take(&mut self.waiting),
            synced: std::mem::take(&mut self.synced),
            file: self.file.take(),
            changed: self.changed,
            ..PlayPanel::new(self.now.clone())
        };
    }

    /// Drops the game of a puzzle just rated (opened again, it starts
    /// afresh) and writes the games in progress at once: a rated game must
    /// not come back. An error to show, if the write failed.
    pub(super) fn rated(&mut self, puzzle: &str) -> Option<String> {
        if self.puzzle.as_deref() == Some(puzzle) {
            self.session = None;
            self.puzzle = None;
        }
        self.waiting.remove(puzzle);
        self.changed = true;
        self.keep()
    }

    /// Whether a puzzle has a game in progress: played and not rated.
    pub(super) fn in_progress(&self, puzzle: &str) -> bool {
        self.waiting.contains_key(puzzle)
            || (self.puzzle.as_deref() == Some(puzzle)
                && self.session.as_ref().is_some_and(Session::in_progress))
    }

    /// Writes the games in progress (the waiting ones and the one on the
    /// board) when the play changed since the last write. An error to show,
    /// if the write failed.
    pub(super) fn keep(&mut self) -> Option<String> {
        let now = (self.now)();
        if self.failed_at.is_some_and(|t| now < t + KEEP_RETRY)
            || !std::mem::take(&mut self.changed)
        {
            return None;
        }
        let file = self.file.as_ref()?;
        let mut games = self.waiting.clone();
        if let (Some(s), Some(puzzle)) = (&self.session, &self.puzzle)
            && s.in_progress()
        {
            games.insert(puzzle.clone(), s.save(now));
        }
        // Merged with what another window on this folder kept meanwhile.
        let failed = match keep_in_progress(file, &games, &self.synced) {
            Ok(kept) => {
                // Its games join ours; the one on the board stays as played.
                let board = self.puzzle.as_deref().filter(|p| games.contains_key(*p));
                self.waiting = kept
                    .iter()
                    .filter(|(p, _)| Some(p.as_str()) != board)
                    .map(|(p, g)| (p.clone(), g.clone()))
                    .collect();
                self.synced = kept;
                None
            }
            Err(e) => Some(e),
        };
        // Still to keep: once space is freed, the next try writes it.
        self.changed = failed.is_some();
        self.failed_at = failed.as_ref().map(|_| now);
        failed.map(|e| format!("The games in progress were not kept: {e}"))
    }

    /// The position on the board, if a game is open.
    pub(super) fn position(&self) -> Option<&State> {
        self.game().map(Game::state)
    }

    fn game(&self) -> Option<&Game> {
        self.session.as_ref().map(|s| &s.game)
    }

    fn game_mut(&mut self) -> Option<&mut Game> {
        self.session.as_mut().map(|s| &mut s.game)
    }

    /// Starts or stops the clock of the play on the board.
    fn set_clock(&mut self, active: bool) {
        let now = (self.now)();
        if let Some(s) = &mut self.session {
            s.clock.set_active(active, now);
        }
    }

    /// Whether a solution is being found or replayed (the board is not played then).
    fn replaying(&self) -> bool {
        self.replay.is_some()
            || self
                .solving
                .iter()
                .any(|s| matches!(s.purpose, Purpose::Solution { .. }))
    }

    /// Says whether the Play panel is on screen in a focused window: the
    /// clock runs only then, and only while the puzzle is open and unsolved
    /// and no solution is being replayed. It stops for good at the player's
    /// solve: what they do after is not the time the puzzle took.
    pub(super) fn set_shown(&mut self, shown: bool) {
        let open = self
            .game()
            .is_some_and(|g| !g.is_solved() && !g.solved_by_player());
        let active = shown && open && !self.replaying();
        self.set_clock(active);
    }

    /// Whether the position can still be solved, once the notice's solve has
    /// answered (`None` before that, and while the notice is off).
    pub(super) fn solvable_now(&self) -> Option<bool> {
        self.solvable_now.filter(|_| self.warn_unsolvable)
    }

    /// Whether the solution replay, not the player, solved it on the board
    /// (shown with the record, not saved).
    pub(super) fn replay_solved(&self) -> bool {
        self.game()
            .is_some_and(|g| g.ever_solved() && !g.solved_by_player())
    }

    /// The record a rating saves.
    pub(super) fn record(&self) -> PlayRecord {
        self.session
            .as_ref()
            .map_or_else(PlayRecord::default, |s| s.record((self.now)()))
    }

    /// Starts a solve of `state` in a thread; it replaces one for the same purpose.
    fn spawn(&mut self, purpose: Purpose, state: State) {
        // Before the first frame there is no UI to wake: a context of its own.
        let ctx = self.ctx.clone().unwrap_or_default();
        let position = state.clone();
        let task = Task::spawn(&ctx, move |cancel, _| {
            Solver::new(Limits::default().cancelled_by(&cancel)).solve(&position)
        });
        self.solving.retain(|s| s.purpose != purpose);
        self.solving.push(Solving {
            purpose,
            state,
            task,
        });
    }

    /// Whether a solve for this purpose is under way.
    fn is_solving(&self, purpose: Purpose) -> bool {
        self.solving.iter().any(|s| s.purpose == purpose)
    }

    /// Takes the answers of finished solves, without waiting.
    fn take_answers(&mut self) {
        let mut done = Vec::new();
        self.solving.retain_mut(|s| match s.task.poll() {
            Poll::Done(answer) => {
                done.push((s.purpose, s.state.clone(), answer));
                false
            }
            Poll::Pending => true,
            // The solving thread died: answer as if it had failed.
            Poll::Stopped => {
                done.push((s.purpose, s.state.clone(), Err(SearchError::Cancelled)));
                false
            }
        });
        for (purpose, state, answer) in done {
            let Some(game) = self.game_mut() else { return };
            if *game.state() != state {
                if matches!(purpose, Purpose::Solution { .. }) {
                    game.set_counting(true);
                }
                continue;
            }
            match purpose {
                Purpose::Hint => {
                    let hint = match answer {
                        Ok(Verdict::Solvable(path)) if !path.is_empty() => {
                            Hint::Move(path[0], move_text(&state, path[0]))
                        }
                        Ok(_) => {
                            // Known lost now: Show solution asks at once.
                            self.solvable_now = Some(false);
                            Hint::NoSolution
                        }
                        Err(e) => Hint::Failed(e.to_string()),
                    };
                    // A hint the player saw; a failed search told them nothing.
                    if !matches!(hint, Hint::Failed(_))
                        && let Some(s) = &mut self.session
                    {
                        s.hints += 1;
                        self.changed = true;
                    }
                    self.hint = Some(hint);
                }
                Purpose::Notice => {
                    self.solvable_now = answer.ok().map(|v| v.is_solvable());
                }
                Purpose::Solution { from_deal } => match answer {
                    Ok(Verdict::Solvable(moves)) if !moves.is_empty() => {
                        // Shown from now on: recorded with the rating.
                        if let Some(s) = &mut self.session {
                            s.solution_shown = true;
                        }
                        self.changed = true;
                        self.replay = Some(Replay {
                            moves,
                            next: 0,
                            // The first move comes one step after the answer.
                            last: Instant::now(),
                        });
                    }
                    Ok(Verdict::Unsolvable(_)) if !from_deal => {
                        // Not from here. Going back to the deal would lose
                        // the position, so the player is asked first; being
                        // told the position is lost is what a hint tells.
                        game.set_counting(true);
                        if let Some(s) = &mut self.session {
                            s.hints += 1;
                        }
                        self.changed = true;
                        self.solvable_now = Some(false);
                        self.hint = Some(Hint::FromDeal);
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
        if let Some(g) = self.game_mut() {
            g.set_counting(true);
        }
        self.after_change();
    }

    /// Plays a move and updates what depends on the position.
    fn apply(&mut self, mv: Move) {
        let Some(game) = self.game_mut() else { return };
        if game.play(mv).is_ok() {
            self.after_change();
        }
    }

    fn after_change(&mut self) {
        // A move, undo, redo or restart: worth keeping.
        self.changed = self.changed || self.session.is_some();
        let Some(game) = self.game() else { return };
        let (solved, state) = (game.is_solved(), game.state().clone());
        self.selected = None;
        self.hint = None;
        if solved {
            // The clock stops at the solving move, not at the next frame.
            self.set_clock(false);
        }
        // A new position: answers about the old one no longer apply.
        self.solving.retain(|s| s.purpose != Purpose::Hint);
        self.solvable_now = None;
        if self.warn_unsolvable {
            self.spawn(Purpose::Notice, state);
        }
    }

    fn show_solution(&mut self, from_deal: bool) {
        // Known lost (by the notice, or by an earlier ask): ask again at once,
        // with no search and no hint counted twice.
        if self.deal_solvable == Some(false) {
            self.hint = Some(Hint::NoneAtAll);
            return;
        }
        if !from_deal && self.solvable_now == Some(false) {
            self.hint = Some(Hint::FromDeal);
            return;
        }
        let Some(game) = self.game_mut() else { return };
        // The replay (and any restart for it) is not the player's play.
        game.set_counting(false);
        if from_deal {
            game.restart();
        }
        let state = game.state().clone();
        self.changed = true;
        self.selected = None;
        self.hint = None;
        self.spawn(Purpose::Solution { from_deal }, state);
        // Watching the replay is not play.
        self.set_clock(false);
    }

    /// Carries out a button or shortcut.
    fn act(&mut self, action: Action) {
        match action {
            Action::Undo => {
                if let Some(g) = self.game_mut() {
                    g.undo();
                }
                self.after_change();
            }
            Action::Redo => {
                if let Some(g) = self.game_mut() {
                    g.redo();
                }
                self.after_change();
            }
            Action::Restart => {
                if let Some(g) = self.game_mut() {
                    g.restart();
                }
                self.after_change();
            }
            Action::Hint => {
                if self.solvable_now == Some(false) {
                    // Already told (by a hint, the notice or Show solution):
                    // said again, not counted again.
                    self.hint = Some(Hint::NoSolution);
                } else if let Some(state) = self.game().map(|g| g.state().clone()) {
                    self.hint = None;
                    self.spawn(Purpose::Hint, state);
                }
            }
            Action::ShowSolution => self.show_solution(false),
            Action::SolutionFromDeal => self.show_solution(true),
            Action::StopReplay => {
                self.solving
                    .retain(|s| !matches!(s.purpose, Purpose::Solution { .. }));
                self.end_replay();
            }
            Action::CheckNow => self.after_change(),
            Action::Discard => {
                if let Some(s) = &mut self.session {
                    *s = Session::new(s.game.start().clone());
                }
                self.solving.clear();
                self.after_change();
            }
        }
    }

    /// Whether an action can be taken now (a shortcut for a greyed-out
    /// button does nothing).
    fn allowed(&self, action: Action) -> bool {
        let Some(game) = self.game() else {
            return false;
        };
        let replaying = self.replaying();
        match action {
            Action::Undo => !replaying && game.can_undo(),
            Action::Redo => !replaying && game.can_redo(),
            // At the deal a restart would change nothing (and clear the hint).
            Action::Restart => !replaying && game.can_undo(),
            // One hint per position: asking again would count it twice.
            Action::Hint => {
                !replaying
                    && !game.is_solved()
                    && self.hint.is_none()
                    && !self.is_solving(Purpose::Hint)
            }
            Action::ShowSolution => {
                !replaying && !game.is_solved() && self.hint != Some(Hint::FromDeal)
            }
            Action::SolutionFromDeal => !replaying && self.hint == Some(Hint::FromDeal),
            Action::StopReplay => replaying,
            Action::CheckNow => true,
            Action::Discard => {
                !replaying && self.session.as_ref().is_some_and(Session::in_progress)
            }
        }
    }

    /// The shortcut pressed this frame, if any (none while a text field has
    /// the keyboard; a focused button or checkbox does not take them).
    fn shortcut(ui: &egui::Ui) -> Option<Action> {
        if ui.ctx().text_edit_focused() {
            return None;
        }
        let ctrl = |key| KeyboardShortcut::new(Modifiers::COMMAND, key);
        let ctrl_shift = KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::Z);
        ui.input_mut(|i| {
            // The more specific Ctrl+Shift+Z first: Ctrl+Z would match it too.
            if i.consume_shortcut(&ctrl_shift) || i.consume_shortcut(&ctrl(Key::Y)) {
                Some(Action::Redo)
            } else if i.consume_shortcut(&ctrl(Key::Z)) {
                Some(Action::Undo)
            } else if i.consume_key(Modifiers::NONE, Key::R) {
                Some(Action::Restart)
            } else if i.consume_key(Modifiers::NONE, Key::H) {
                Some(Action::Hint)
            } else {
                None
            }
        })
    }

    /// The line above the board: what is going on, or what was found. It is
    /// always [`MESSAGE_LINE`] high, so the board below never moves.
    fn message_line(&self, ui: &mut egui::Ui) -> Option<LineClick> {
        let (rect, _) = ui.allocate_exact_size(
            egui::vec2(ui.available_width(), MESSAGE_LINE),
            egui::Sense::hover(),
        );
        let layout = egui::Layout::left_to_right(egui::Align::Center);
        // A child that takes no space of its own: the line is already allocated.
        let mut line = ui.new_child(egui::UiBuilder::new().max_rect(rect).layout(layout));
        self.message(&mut line)
    }

    /// The message itself, and what was clicked in it.
    fn message(&self, ui: &mut egui::Ui) -> Option<LineClick> {
        let game = self.game()?;
        let record = self.record();
        if let Some(r) = &self.replay {
            ui.spinner();
            ui.label(format!(
                "Showing the solution: move {} of {}",
                r.next.min(r.moves.len()),
                r.moves.len()
            ));
        } else if self.replaying() {
            ui.spinner();
            ui.label("Finding a solution…");
        } else if game.is_solved() {
            let text = if record.solved {
                let after = if record.solution_shown {
                    " after the solution was shown"
                } else {
                    ""
                };
                format!(
                    "★ Solved! ★  {}, {}, {:.0} s{after}. Rate it in the Rate panel.",
                    plural(record.moves as usize, "move"),
                    plural(record.undos as usize, "undo"),
                    record.seconds
                )
            } else {
                "Solved by the solution replay.".to_string()
            };
            ui.label(
                egui::RichText::new(text)
                    .size(20.0)
                    .strong()
                    .color(egui::Color32::from_rgb(0x2e, 0xa0, 0x43)),
            );
            return ui.button("Rate it").clicked().then_some(LineClick::RateIt);
        } else if self.warn_unsolvable
            && self.solvable_now == Some(false)
            // The question says it too, and has the buttons.
            && self.hint != Some(Hint::FromDeal)
        {
            ui.colored_label(
                ui.visuals().error_fg_color,
                "This position is no longer solvable.",
            );
        } else if self.is_solving(Purpose::Hint) {
            ui.spinner();
            ui.label("Looking for a hint…");
        } else {
            match &self.hint {
                Some(Hint::Move(_, name)) => {
                    ui.colored_label(
                        egui::Color32::from_rgb(0xe0, 0x8a, 0x00),
                        format!("Hint: move {name} (the arrow on the board)"),
                    );
                }
                Some(Hint::NoSolution) => {
                    ui.colored_label(
                        ui.visuals().warn_fg_color,
                        "Hint: no solution from here. Undo some moves.",
                    );
                }
                Some(Hint::FromDeal) => {
                    ui.colored_label(
                        ui.visuals().warn_fg_color,
                        "No solution from this position. The solution starts from the deal: \
                         this position is left.",
                    );
                    if ui.button("Back to the deal and show it").clicked() {
                        return Some(LineClick::Act(Action::SolutionFromDeal));
                    }
                    if ui.button("Keep playing").clicked() {
                        return Some(LineClick::KeepPlaying);
                    }
                }
                Some(Hint::NoneAtAll) => {
                    ui.colored_label(
                        ui.visuals().warn_fg_color,
                        "This puzzle has no solution, not even from the deal.",
                    );
                }
                Some(Hint::Failed(e)) => {
                    ui.colored_label(ui.visuals().error_fg_color, format!("No hint: {e}"));
                }
                None => {}
            }
        }
        None
    }
}
