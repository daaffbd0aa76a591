//! The Energies panel: every energy with its id and definition, and an editor
//! for the energy files with parse errors by line and column. A file that
//! does not parse changes nothing: the app keeps its last good energies.

use super::{BoafApp, Paths};
use crate::energy::{EnergyBook, builtin};
use eframe::egui;
use std::path::PathBuf;

/// One editable energy file.
struct EnergyFile {
    path: PathBuf,
    /// The text in the editor (maybe unsaved).
    text: String,
    /// The text on disk when last loaded or saved.
    saved: String,
    /// The last text of this file that parsed: used while `saved` does not.
    good: String,
}

/// The energies in use and the editor's state.
pub(super) struct EnergiesPanel {
    /// The energies in use: built-in, then each file that parsed.
    book: EnergyBook,
    files: Vec<EnergyFile>,
    editing: usize,
    /// The last parse error, as `file:line:column: message`.
    error: Option<String>,
    /// The problems met when loading, one per file that failed.
    load_errors: Vec<String>,
}

impl EnergiesPanel {
    /// Loads the built-in energies and every energy file that exists.
    pub(super) fn load(paths: &Paths) -> EnergiesPanel {
        let files: Vec<EnergyFile> = paths
            .energy_files()
            .into_iter()
            .map(|path| {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                EnergyFile {
                    path,
                    saved: text.clone(),
                    good: String::new(),
                    text,
                }
            })
            .collect();
        let mut panel = EnergiesPanel {
            book: builtin(),
            files,
            editing: 0,
            error: None,
            load_errors: Vec::new(),
        };
        panel.rebuild(paths);
        panel
    }

    /// Rebuilds the book from the saved texts; a file with an error counts
    /// with its last good text, so the app keeps its last good energies.
    fn rebuild(&mut self, paths: &Paths) {
        let mut book = builtin();
        self.load_errors.clear();
        for f in &mut self.files {
            let name = paths.show(&f.path);
            let mut trial = book.clone();
            match trial.add(&f.saved, &name) {
                Ok(()) => {
                    f.good = f.saved.clone();
                    book = trial;
                }
                Err(e) => {
                    self.load_errors.push(e.to_string());
                    // The last good text parsed before, so this cannot fail.
                    let _ = book.add(&f.good, &name);
                }
            }
        }
        self.book = book;
    }

    /// The energies in use.
    pub(super) fn book(&self) -> &EnergyBook {
        &self.book
    }

    /// Checks the editor's text; `Ok` with the book it would give.
    fn check(&self, paths: &Paths) -> Result<EnergyBook, String> {
        let mut book = builtin();
        for (i, f) in self.files.iter().enumerate() {
            let text = if i == self.editing { &f.text } else { &f.saved };
            book.add(text, &paths.show(&f.path))
                .map_err(|e| e.to_string())?;
        }
        Ok(book)
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
    pub(super) fn append_fitted(&mut self, paths: &Paths, toml: &str) -> Result<(), String> {
        let path = paths.fitted_energies();
        let Some(i) = self.files.iter().position(|f| f.path == path) else {
            return Err("no fitted-energies file is configured".into());
        };
        if self.files[i].text != self.files[i].saved {
            return Err(format!(
                "{} has unsaved edits in the Energies panel: save or reload it first",
                paths.show(&path)
            ));
        }
        let mut text = self.files[i].saved.clone();
        if text.trim().is_empty() {
            text = "# Energies fitted from ratings by the Regression panel (\"Use as energy\").\n"
                .to_string();
        }
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push('\n');
        text.push_str(toml);
        // Parse before writing: a bad fit must not spoil the file.
        let mut book = self.book.clone();
        book.add(&text, &paths.show(&path))
            .map_err(|e| e.to_string())?;
        write_file(&path, &text)?;
        self.files[i].saved = text.clone();
        self.files[i].text = text;
        self.rebuild(paths);
        Ok(())
    }
}

fn write_file(path: &std::path::Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    // Write a sibling and rename it, so a crash never leaves half a file.
    let tmp = path.with_extension("toml.tmp");
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| format!("{}: {e}", path.display()))
}

impl BoafApp {
    pub(super) fn energies_ui(&mut self, ui: &mut egui::Ui) {
        let paths = self.paths.clone();
        ui.heading("Energies");
        ui.label(
            "Lower is better. An energy is a value made of feature terms plus bonuses; \
             an unsolvable puzzle scores the penalty. Edit a file, check it, and save: \
             the generator uses the new definitions at its next start.",
        );
        for e in &self.energies.load_errors {
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
                    let mut definition = e.value_text();
                    for b in e.bonus_texts() {
                        definition.push_str(&format!("\n{b}"));
                    }
                    definition.push_str(&format!("\nunsolvable {}", e.penalty));
                    ui.monospace(definition);
                    ui.label(&e.about);
                    ui.end_row();
                }
            });
        ui.separator();
        let panel = &mut self.energies;
        ui.horizontal(|ui| {
            ui.label("File:");
            for (i, f) in panel.files.iter().enumerate() {
                let dirty = if f.text != f.saved { " *" } else { "" };
                let name = format!("{}{dirty}", paths.show(&f.path));
                ui.selectable_value(&mut panel.editing, i, name);
            }
        });
        let mut action = None;
        ui.horizontal(|ui| {
            if ui.button("Check").clicked() {
                action = Some("check");
            }
            if ui.button("Save and use").clicked() {
                action = Some("save");
            }
            if ui.button("Reload from disk").clicked() {
                action = Some("reload");
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
            Some("check") => match panel.check(&paths) {
                Ok(book) => {
                    panel.error = None;
                    let n = book.energies().len();
                    self.say(format!("The energies parse: {n} in all."));
                }
                Err(e) => panel.error = Some(e),
            },
            Some("save") => match panel.check(&paths) {
                Ok(_) => {
                    let f = &mut panel.files[panel.editing];
                    match write_file(&f.path, &f.text) {
                        Ok(()) => {
                            f.saved = f.text.clone();
                            panel.error = None;
                            panel.rebuild(&paths);
                            self.generate.energies_changed(&self.energies);
                            self.say("Energies saved; the next generation uses them.");
                        }
                        Err(e) => panel.error = Some(e),
                    }
                }
                // Keep the last good energies; show where the text is wrong.
                Err(e) => panel.error = Some(e),
            },
            Some("reload") => {
                for f in &mut panel.files {
                    f.saved = std::fs::read_to_string(&f.path).unwrap_or_default();
                    f.text = f.saved.clone();
                }
                panel.error = None;
                panel.rebuild(&paths);
                self.generate.energies_changed(&self.energies);
                self.say("Energies reloaded from disk.");
            }
            _ => {}
        }
    }
}
