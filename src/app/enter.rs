//! Puzzles in and out: "Copy id" puts a candidate's id (its layout in
//! research notation, see [`puzzle_id`]) on the clipboard, and "Open a
//! puzzle" reads a state, a deal number or a pasted id (the core's
//! [`parse_puzzle`]), computes its features off the UI thread, and adds it
//! to the queue and its store as an entered candidate.
//!
//! An entered candidate is valued by the energy chosen in the Generate
//! panel (evaluated on its exact features) and stored with that energy's
//! candidates, so it is played, rated and analysed like a generated one;
//! its `source` says it was entered.

use super::BoafApp;
use super::task::{Poll, Task};
use boaf_core::engine::limits::Limits;
use boaf_core::engine::notation::{parse_puzzle, puzzle_id};
use boaf_core::engine::state::State;
use boaf_core::generator::pipeline::{Candidate, entered_candidate};
use boaf_core::generator::store::PuzzleStore;
use eframe::egui;

/// A "Copy id" button that puts the candidate's id on the clipboard.
pub(super) fn copy_id_button(ui: &mut egui::Ui, c: &Candidate) {
    // A stored puzzle that no longer parses still has its notation to copy.
    let id = c
        .state()
        .map_or_else(|_| c.puzzle.clone(), |s| puzzle_id(&s));
    if ui
        .small_button("Copy id")
        .on_hover_text(format!("Copy {id}"))
        .clicked()
    {
        ui.ctx().copy_text(id);
    }
}

/// The "Open a puzzle" field, its error, and the features being computed.
#[derive(Default)]
pub(super) struct EnterPanel {
    /// What the designer typed or pasted.
    text: String,
    /// Why the text is not a puzzle, with its line and column.
    error: Option<String>,
    /// The features of an entered puzzle, being computed.
    task: Option<Task<Result<Candidate, String>>>,
}

impl BoafApp {
    /// The "Open a puzzle" row of the Generate panel.
    pub(super) fn enter_ui(&mut self, ui: &mut egui::Ui) {
        let busy = self.enter.task.is_some();
        ui.horizontal(|ui| {
            let l = ui.label("Open a puzzle");
            let field = ui
                .add_enabled(
                    !busy,
                    egui::TextEdit::singleline(&mut self.enter.text)
                        .hint_text("a state (TH5H… or 10H5H…), a deal number, or an id")
                        .font(egui::TextStyle::Monospace)
                        .desired_width(380.0),
                )
                .labelled_by(l.id);
            let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            let clicked = ui.add_enabled(!busy, egui::Button::new("Open")).clicked();
            if busy {
                ui.spinner();
                ui.label("computing its features…");
            }
            if (entered || clicked) && !busy {
                self.start_entry(ui.ctx());
            }
        });
        if let Some(e) = &self.enter.error {
            ui.colored_label(
                ui.visuals().error_fg_color,
                egui::RichText::new(e).monospace(),
            );
        }
    }

    /// Reads the field: a puzzle in the queue already is opened, a new
    /// one's features are computed in a task.
    fn start_entry(&mut self, ctx: &egui::Context) {
        let text = self.enter.text.clone();
        let state = match parse_puzzle(&text) {
            Ok(state) => state,
            Err(e) => {
                self.enter.error = Some(e.pointed(&text, ""));
                return;
            }
        };
        self.enter.error = None;
        self.enter_puzzle(state, ctx);
    }

    /// Whether an entered puzzle's features are being computed.
    pub(super) fn is_entering(&self) -> bool {
        self.enter.task.is_some()
    }

    /// Enters a puzzle (read from the field, or made in the editor): one in
    /// the queue already is opened, a new one's features are computed in a
    /// task, and [`BoafApp::poll_entry`] queues it.
    pub(super) fn enter_puzzle(&mut self, state: State, ctx: &egui::Context) {
        // A puzzle in the queue already is opened, not computed again.
        if let Some(i) = self
            .queue
            .iter()
            .position(|q| q.state().ok() == Some(state.clone()))
        {
            self.open(i);
            self.say(format!(
                "{} is candidate #{} already",
                puzzle_id(&state),
                i + 1
            ));
            return;
        }
        let Some(energy) = self.energies.book().get(self.generate.energy()).cloned() else {
            self.enter.error = Some(format!("no energy named '{}'", self.generate.energy()));
            return;
        };
        let difficulty = self.generate.difficulty();
        self.enter.task = Some(Task::spawn(ctx, move |cancel, _| {
            entered_candidate(
                &state,
                &energy,
                difficulty,
                Limits::default().cancelled_by(&cancel),
            )
            .map_err(|e| e.to_string())
        }));
    }

    /// Takes an entered candidate whose features are done: stored (unless
    /// one isomorphic to it is already), queued and opened.
    pub(super) fn poll_entry(&mut self) {
        let Some(task) = &mut self.enter.task else {
            return;
        };
        let c = match task.poll() {
            Poll::Pending => return,
            Poll::Done(Ok(c)) => c,
            Poll::Done(Err(e)) => {
                self.enter.task = None;
                self.enter.error = Some(format!("cannot compute its features: {e}"));
                return;
            }
            Poll::Stopped => {
                self.enter.task = None;
                self.enter.error = Some("the feature computation stopped".into());
                return;
            }
        };
        self.enter.task = None;
        let file = self.folder.store_file(c.n, &c.energy_name);
        let stored = PuzzleStore::open(&file).and_then(|(mut store, _)| store.add(&c));
        match stored {
            Ok(true) => self.say(format!(
                "Entered {} into {}",
                c.puzzle,
                self.folder.show(&file)
            )),
            Ok(false) => self.say(format!(
                "Entered {} (one like it is stored already in {})",
                c.puzzle,
                self.folder.show(&file)
            )),
            Err(e) => self.say_error(format!("{}: {e}", self.folder.show(&file))),
        }
        self.queue.push(c);
        self.open(self.queue.len() - 1);
    }
}
