//! The Energies panel: every energy with its id and definition, and an editor
//! for the energy files with parse errors by line and column.
//!
//! The energies in use follow the core's one loading policy (as on the
//! command line): the built-in ones, then each file that parses; a file with
//! an error adds nothing and its error is shown. The editor never saves a
//! file that does not parse, so a bad file can only come from outside.

use super::BoafApp;
use boaf_core::durable::write_atomically;
use boaf_core::folder::Folder;
use boaf_core::generator::energy::{EnergyBook, EnergyError, load};
use eframe::egui;
use std::path::PathBuf;

/// One editable energy file.
struct EnergyFile {
    path: PathBuf,
    /// The text in the editor (maybe unsaved).
    text: String,
    /// The text on disk when last loaded or saved.
    saved: String,
}

/// A button of the editor.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Action {
    /// Parse the edited text and say how it went.
    Check,
    /// Parse it, and write it only if it parses.
    Save,
    /// Read every file from disk again.
    Reload,
}

/// The energies in use and the editor's state.
pub(super) struct EnergiesPanel {
    /// The energies in use: built-in, then each file that parsed.
    book: EnergyBook,
    files: Vec<EnergyFile>,
    editing: usize,
    /// The last parse error, as `file:line:column: message`.
    error: Option<String>,
    /// The files that added nothing, with why.
    problems: Vec<EnergyError>,
}

impl EnergiesPanel {
    /// Loads the built-in energies and every energy file of the folder.
    pub(super) fn load(folder: &Folder) -> EnergiesPanel {
        let files: Vec<EnergyFile> = folder
            .energy_files()
            .into_iter()
            .map(|path| {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                EnergyFile {
                    path,
                    saved: text.clone(),
                    text,
                }
            })
            .collect();
        let mut panel = EnergiesPanel {
            book: EnergyBook::default(),
            files,
            editing: 0,
            error: None,
            problems: Vec::new(),
        };
        panel.rebuild(folder);
        panel
    }

    /// The energies from the files' saved texts (`edited`: the editor's text
    /// for the file being edited), by the core's loading policy.
    fn energies(&self, folder: &Folder, edited: bool) -> (EnergyBook, Vec<EnergyError>) {
        let texts: Vec<(String, &str)> = self
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let text = if edited && i == self.editing {
                    &f.text
                } else {
                    &f.saved
                };
                (folder.show(&f.path), text.as_str())
            })
            .collect();
        load(texts.iter().map(|(name, text)| (name.as_str(), *text)))
    }

    /// Rebuilds the energies in use from the saved texts.
    fn rebuild(&mut self, folder: &Folder) {
        (self.book, self.problems) = self.energies(folder, false);
    }

    /// The energies in use.
    pub(super) fn book(&self) -> &EnergyBook {
        &self.book
    }

    /// Checks the editor's text: `Ok` with the book it would give.
    fn check(&self, folder: &Folder) -> Result<EnergyBook, String> {
        let (book, problems) = self.energies(folder, true);
        match problems.into_iter().next() {
            None => Ok(book),
            Some(e) => Err(e.to_string()),
        }
    }

    /// A name like `wanted` that no energy has yet: `wanted`, `wanted-2`, …
    pub(super) fn free_name(&self, wanted: &str) -> String {
        let wanted = if wanted.trim().is_empty() {
            "fitted"
        } else {
            wanted.trim()
        };
        (1..)
            .map(|i| match i {
                1 => wanted.to_string(),
                i => format!("{wanted}-{i}"),
            })
            .find(|n| self.book.get(n).is_none())
            .expect("some suffix is free")
    }

    /// Adds a fitted energy to the fitted-energies file, saving it.
    pub(super) fn append_fitted(&mut self, folder: &Folder, toml: &str) -> Result<(), String> {
        let path = folder.fitted_energies();
        let Some(i) = self.files.iter().position(|f| f.path == path) else {
            return Err("no fitted-energies file is configured".into());
        };
        if self.files[i].text != self.files[i].saved {
            return Err(format!(
                "{} has unsaved edits in the Energies panel: save or reload it first",
                folder.show(&path)
            ));
        }
        let mut text = self.files[i].saved.clone();
        if text.trim().is_empty() {
            text = "# Energies fitted from ratings by the Regression panel (\"Use as energy\").\n\
                    # Each value is minus the predicted rating, so the best-rated puzzles score\n\
                    # lowest; the format is that of assets/energies.toml.\n"
                .to_string();
        }
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push('\n');
        text.push_str(toml);
        // Parse before writing: a bad fit must not spoil the file.
        let mut book = self.book.clone();
        book.add(&text, &folder.show(&path))
            .map_err(|e| e.to_string())?;
        write_atomically(&path, text.as_bytes()).map_err(|e| e.to_string())?;
        self.files[i].saved = text.clone();
        self.files[i].text = text;
        self.rebuild(folder);
        Ok(())
    }
}

impl BoafApp {
    pub(super) fn energies_ui(&mut self, ui: &mut egui::Ui) {
        let folder = self.folder.clone();
        ui.heading("Energies");
        ui.label(
            "Lower is better. An energy is a value made of feature terms plus bonuses; \
             an unsolvable puzzle scores the penalty. Edit a file, check it, and save: \
             the generator uses the new definitions at its next start.",
        );
        for e in &self.energies.problems {
            ui.colored_label(ui.visuals().error_fg_color, format!("not loaded: {e}"));
        }
        egui::Grid::new("energies-list")
            .striped(true)
            .num_columns(3)
            .show(ui, |ui| {
                ui.strong("id");
                ui.strong("definition");
                ui.strong("about");
                ui.end_row();
                for e in self.energies.book.energies() {
                    ui.monospace(e.id());
                    // Rounded for reading; the file keeps the exact numbers.
                    ui.monospace(e.shown().join("\n"))
                        .on_hover_text("Coefficients to four figures; the file has them exact.");
                    ui.add(egui::Label::new(&e.about).wrap());
                    ui.end_row();
                }
            });
        ui.separator();
        let panel = &mut self.energies;
        ui.horizontal(|ui| {
            ui.label("File:");
            for (i, f) in panel.files.iter().enumerate() {
                let dirty = if f.text != f.saved { " *" } else { "" };
                let name = format!("{}{dirty}", folder.show(&f.path));
                ui.selectable_value(&mut panel.editing, i, name);
            }
        });
        let mut action = None;
        ui.horizontal(|ui| {
            if ui.button("Check").clicked() {
                action = Some(Action::Check);
            }
            if ui.button("Save and use").clicked() {
                action = Some(Action::Save);
            }
            if ui.button("Reload from disk").clicked() {
                action = Some(Action::Reload);
            }
        });
        if let Some(err) = &panel.error {
            ui.colored_label(ui.visuals().error_fg_color, err);
        }
        if let Some(f) = panel.files.get_mut(panel.editing) {
            ui.add(
                egui::TextEdit::multiline(&mut f.text)
                    .hint_text("energy definitions (TOML)")
                    .code_editor()
                    .desired_rows(24)
                    .desired_width(f32::INFINITY),
            );
        }
        match action {
            Some(Action::Check) => match panel.check(&folder) {
                Ok(book) => {
                    panel.error = None;
                    let n = book.energies().len();
                    self.say(format!("The energies parse: {n} in all."));
                }
                Err(e) => panel.error = Some(e),
            },
            Some(Action::Save) => match panel.check(&folder) {
                Ok(_) => {
                    let f = &mut panel.files[panel.editing];
                    match write_atomically(&f.path, f.text.as_bytes()) {
                        Ok(()) => {
                            f.saved = f.text.clone();
                            panel.error = None;
                            panel.rebuild(&folder);
                            self.generate.energies_changed(&self.energies);
                            self.say("Energies saved; the next generation uses them.");
                        }
                        Err(e) => panel.error = Some(e.to_string()),
                    }
                }
                // Nothing is written; the error says where the text is wrong.
                Err(e) => panel.error = Some(e),
            },
            Some(Action::Reload) => {
                for f in &mut panel.files {
                    f.saved = std::fs::read_to_string(&f.path).unwrap_or_default();
                    f.text = f.saved.clone();
                }
                panel.error = None;
                panel.rebuild(&folder);
                self.generate.energies_changed(&self.energies);
                self.say("Energies reloaded from disk.");
            }
            None => {}
        }
    }
}
