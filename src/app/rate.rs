//! The Rate panel: the puzzle and the play record it will save, a rating
//! from 0 to 10, notes and the rater's name, saved as one synced row of
//! `ratings/ratings.csv`; Skip moves on.

use super::BoafApp;
use super::board::{Highlight, board_ui};
use boaf_core::durable::write_atomically;
use boaf_core::folder::Folder;
use boaf_core::format::plural;
use boaf_core::generator::pipeline::utc_now;
use boaf_core::study::ratings::{PlayRecord, Rating, RatingsStore};
use eframe::egui;

/// The Rate panel's fields.
pub(super) struct RatePanel {
    rating: u8,
    notes: String,
    rater: String,
    /// Rows saved in this session.
    saved: usize,
}

impl RatePanel {
    pub(super) fn new(folder: &Folder) -> RatePanel {
        let rater = std::fs::read_to_string(folder.rater())
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        RatePanel {
            rating: 5,
            notes: String::new(),
            rater,
            saved: 0,
        }
    }

    /// Clears the rating and notes for a new candidate (the rater stays).
    pub(super) fn reset(&mut self) {
        self.rating = 5;
        self.notes.clear();
    }
}

impl BoafApp {
    pub(super) fn rate_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Rate");
        let Some((number, c)) = self.open_candidate(ui) else {
            return;
        };
        let record = self.play.record();
        ui.label(format!(
            "Candidate #{number} · {} cards · {}",
            c.n, c.energy_id
        ));
        ui.horizontal_top(|ui| {
            if let Ok(deal) = c.state() {
                let light = Highlight {
                    selected: None,
                    targets: &[],
                    hint: None,
                };
                // The deal, to recall which puzzle this was; not played here.
                ui.add_enabled_ui(false, |ui| {
                    board_ui(ui, &deal, &light, egui::vec2(300.0, 300.0))
                });
            }
            ui.vertical(|ui| {
                ui.strong("The play record saved with the rating");
                record_grid(ui, &record, self.play.replay_solved());
            });
        });
        ui.separator();
        let r = &mut self.rate;
        egui::Grid::new("rate-form")
            .num_columns(2)
            .spacing([12.0, 8.0])
            .show(ui, |ui| {
                ui.label("Rating");
                ui.add(egui::Slider::new(&mut r.rating, 0..=10).text("0 = poor, 10 = excellent"));
                ui.end_row();
                ui.label("Notes");
                ui.add(
                    egui::TextEdit::multiline(&mut r.notes)
                        .hint_text("What made it good or bad?")
                        .desired_rows(4)
                        .desired_width(480.0),
                );
                ui.end_row();
                ui.label("Rater");
                ui.add(egui::TextEdit::singleline(&mut r.rater).hint_text("your name"));
                ui.end_row();
            });
        let mut save = false;
        let mut skip = false;
        ui.horizontal(|ui| {
            save = ui.button("Save rating").clicked();
            skip = ui.button("Skip").clicked();
        });
        ui.weak(format!(
            "Ratings go to {}, one row each, with every feature.",
            self.folder.show(&self.folder.ratings())
        ));
        if save {
            let rating = Rating {
                puzzle: c.puzzle.clone(),
                grid: format!("{}x{}", c.rows, c.cols),
                energy_id: c.energy_id.clone(),
                features: c.features.clone(),
                rating: f64::from(self.rate.rating),
                notes: self.rate.notes.clone(),
                play: record,
                rater: self.rate.rater.trim().to_string(),
                timestamp: utc_now(),
            };
            match save_rating(&self.folder, &rating) {
                Ok(note) => {
                    self.rate.saved += 1;
                    self.generate.mark_rated(&rating.puzzle);
                    // Rated: its game in progress is done with.
                    let dropped = self.play.rated(&rating.puzzle);
                    // Remembered for next time; losing it is harmless.
                    let _ = write_atomically(&self.folder.rater(), rating.rater.as_bytes());
                    match dropped {
                        Some(e) => self.say_error(format!("{note} {e}")),
                        None => self.say(note),
                    }
                    self.regress.ratings_changed();
                    self.open_next();
                    if self.current.is_some() {
                        self.tab = super::Tab::Play;
                    }
                }
                Err(e) => self.say_error(e),
            }
        } else if skip {
            self.open_next();
            if self.current.is_some() {
                self.tab = super::Tab::Play;
            }
        }
    }
}

/// The play record, a line each, as the rating will save it.
fn record_grid(ui: &mut egui::Ui, record: &PlayRecord, replay_solved: bool) {
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    // Says what happened, not only whether: a solve after the solution was
    // shown rates differently from one without it.
    let solved = record.outcome(replay_solved);
    egui::Grid::new("play-record")
        .num_columns(2)
        .spacing([12.0, 4.0])
        .show(ui, |ui| {
            let rows = [
                ("Solved", solved.to_string()),
                ("Moves", plural(record.moves as usize, "move")),
                ("Undos", plural(record.undos as usize, "undo")),
                ("Restarts", plural(record.restarts as usize, "restart")),
                ("Hints", plural(record.hints as usize, "hint")),
                ("Solution shown", yes_no(record.solution_shown).to_string()),
                ("Active time", format!("{:.0} s", record.seconds)),
            ];
            for (name, value) in rows {
                ui.weak(name);
                ui.label(value);
                ui.end_row();
            }
        });
}

/// Appends a rating to the ratings file; says what happened.
fn save_rating(folder: &Folder, rating: &Rating) -> Result<String, String> {
    let path = folder.ratings();
    let (mut store, repair) = RatingsStore::open(&path).map_err(|e| e.to_string())?;
    store.append(rating).map_err(|e| e.to_string())?;
    let mut note = format!("Saved rating {} to {}.", rating.rating, folder.show(&path));
    if let Some(b) = store.backup() {
        note.push_str(&format!(
            " The file gained this version's columns; the old one is kept as {}.",
            folder.show(b)
        ));
    }
    if let Some(r) = repair {
        note.push_str(&format!(
            " A torn last row ({} bytes) was moved to {}.",
            r.bytes,
            folder.show(&r.saved_to)
        ));
    }
    Ok(note)
}
