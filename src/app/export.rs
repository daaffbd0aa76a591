//! The queue's "Export book…": the candidates ticked in the queue, or with
//! none ticked the ones its filter shows, go to a printable PDF puzzle book
//! under `books/`, made in a background task by `boaf-book` (the same
//! function as `boaf book`), which then says where it wrote it.

use super::BoafApp;
use super::task::{Poll, Task};
use boaf_book::{DEFAULT_TITLE, Options, Order, Paper, PerPage};
use boaf_core::durable::write_atomically;
use boaf_core::engine::limits::Limits;
use boaf_core::format::plural;
use boaf_core::generator::pipeline::Candidate;
use eframe::egui;
use std::collections::HashSet;

/// The book export: the candidates ticked for it, the running export
/// (its report is how many puzzles are solved), and what the last said.
#[derive(Default)]
pub(super) struct BookExport {
    /// The puzzles ticked (their compact notation).
    selected: HashSet<String>,
    task: Option<Task<Result<String, String>, usize>>,
    /// How many puzzles the running export has.
    exporting: usize,
    /// What the last export said, and whether it failed.
    said: Option<(String, bool)>,
}

impl BookExport {
    /// Whether the candidate is ticked for the book.
    pub(super) fn is_selected(&self, c: &Candidate) -> bool {
        self.selected.contains(&c.puzzle)
    }

    /// Ticks or unticks the candidate.
    pub(super) fn toggle(&mut self, c: &Candidate) {
        if !self.selected.remove(&c.puzzle) {
            self.selected.insert(c.puzzle.clone());
        }
    }
}

/// A row's tick box; true when it was clicked.
pub(super) fn tick(ui: &mut egui::Ui, selected: bool) -> bool {
    let mut on = selected;
    ui.checkbox(&mut on, "book")
        .on_hover_text("Put this candidate in the exported book (none ticked: every one shown)")
        .changed()
}

impl BoafApp {
    /// The "Export book…" button, the running export's progress and what
    /// the last one said; `shown` is the queue's rows in order.
    pub(super) fn export_ui(&mut self, ui: &mut egui::Ui, shown: &[usize]) {
        let export = &mut self.generate.queue.export;
        let finished = match export.task.as_mut().map(Task::poll) {
            Some(Poll::Done(Ok(text))) => Some((text, false)),
            Some(Poll::Done(Err(e))) => Some((format!("The book was not written: {e}"), true)),
            Some(Poll::Stopped) => Some(("The book export stopped.".to_string(), true)),
            Some(Poll::Pending) | None => None,
        };
        if let Some((text, error)) = finished {
            export.task = None;
            export.said = Some((text.clone(), error));
            if error {
                self.say_error(text);
            } else {
                self.say(text);
            }
        }
        let ticked: Vec<usize> = self
            .generate
            .queue
            .sorted(&self.queue)
            .into_iter()
            .filter(|&i| self.generate.queue.export.is_selected(&self.queue[i]))
            .collect();
        let chosen = if ticked.is_empty() { shown } else { &ticked };
        let export = &mut self.generate.queue.export;
        ui.horizontal(|ui| {
            let what = if ticked.is_empty() {
                format!("the {} shown", plural(chosen.len(), "candidate|candidates"))
            } else {
                format!(
                    "the {} ticked",
                    plural(chosen.len(), "candidate|candidates")
                )
            };
            let button = ui
                .add_enabled(
                    export.task.is_none() && !chosen.is_empty(),
                    egui::Button::new("Export book…"),
                )
                .on_hover_text(format!(
                    "A printable PDF puzzle book of {what}, easiest first, with the \
                     solutions at the back, written to books/ (as boaf book)"
                ));
            if button.clicked() {
                let list: Vec<Candidate> = chosen.iter().map(|&i| self.queue[i].clone()).collect();
                export.exporting = list.len();
                export.task = Some(start(ui.ctx(), &self.folder, list));
            }
            if let Some(task) = &export.task {
                ui.spinner();
                let done = task.progress().copied().unwrap_or(0);
                ui.label(format!(
                    "Exporting a book: {done} of {} solved",
                    export.exporting
                ));
            } else if let Some((text, error)) = &export.said {
                if *error {
                    ui.colored_label(ui.visuals().error_fg_color, text);
                } else {
                    ui.label(text);
                }
            }
        });
    }
}

/// Starts writing the book of `list` into the folder's `books/`.
fn start(
    ctx: &egui::Context,
    folder: &boaf_core::folder::Folder,
    list: Vec<Candidate>,
) -> Task<Result<String, String>, usize> {
    let folder = folder.clone();
    Task::spawn(ctx, move |cancel, progress| {
        // Closing the app drops the task, whose switch stops the solving.
        let limits = Limits::default().cancelled_by(&cancel);
        let date = boaf_book::today();
        let options = Options {
            title: DEFAULT_TITLE.into(),
            date: date.clone(),
            per_page: PerPage::default(),
            paper: Paper::default(),
        };
        let (count, pdf) = boaf_book::make(&list, Order::Grade, &options, &limits, |done| {
            progress.report(done)
        })
        .map_err(|e| e.to_string())?;
        let path = folder.book_file(&date);
        write_atomically(&path, &pdf).map_err(|e| e.to_string())?;
        Ok(format!(
            "Wrote a book of {} to {}",
            plural(count, "puzzle|puzzles"),
            folder.show(&path)
        ))
    })
}
