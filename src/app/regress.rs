//! The Regression panel: ratings on z-scored features (seed 001, Tables
//! 1–4), the coefficient chart, rating against a feature with the fitted
//! line, and "Use as energy". With several raters the table is the mixed
//! model's ([`super::regress_mixed`]). The ratings are the user's file, the
//! demonstration data, or a study read from the study database.

use super::BoafApp;
use super::regress_mixed::{Mixing, feature_list, model_line, table_grid};
use super::task::{Poll, Task};
use boaf_core::engine::feature::Feature;
use boaf_core::folder::Folder;
use boaf_core::format;
use boaf_core::generator::energy::EnergyBook;
use boaf_core::study::mixed::{self, Judgement, MixedFit};
use boaf_core::study::ratings::{RatingsTable, read_ratings};
use boaf_core::study::regress::{DEFAULT_FEATURES, Fit, FitData, RegressError, fit, table_data};
use boaf_server::export;
use boaf_server::store::Store;
use eframe::egui;
use egui_plot::{Bar, BarChart, GridMark, Line, Plot, Points};
use std::sync::Arc;

/// What the panel says while a study is read.
const READING: &str = "reading…";

/// Where the ratings fitted come from.
#[derive(Clone, Debug, PartialEq)]
enum Source {
    /// The user's own ratings file.
    Own,
    /// The demonstration ratings.
    Example,
    /// A study's ratings, read straight from the study database.
    Study(String),
}

/// The Regression panel's state.
pub(super) struct RegressPanel {
    /// Which ratings are fitted.
    source: Source,
    /// The studies in the study database, read with the ratings.
    studies: Vec<String>,
    /// Where the ratings were read (a file, or "study NAME") and what they
    /// held. Shared, so a frame can hold it while the panel changes.
    table: Option<(String, Result<Arc<RatingsTable>, String>)>,
    chosen: Vec<String>,
    /// The fit for `chosen`, with the rows it used and why others were left out.
    fit: Option<(Fitted, FitData)>,
    scatter: String,
    energy_name: String,
    /// The ratings changed since they were read.
    stale: bool,
    /// The study database's read under way (it may wait on another
    /// writer's lock for seconds): off the UI thread.
    reading: Option<Task<StudyRead>>,
}

/// What a read of the study database gives: the studies there are, and a
/// study's ratings when one was asked for.
type StudyRead = (Vec<String>, Option<Result<RatingsTable, String>>);

/// Reads the studies in the database and, when `study` names one, its
/// ratings as its export's rows (in a task's thread).
fn read_studies(db: &std::path::Path, study: Option<&str>) -> StudyRead {
    let store = db.exists().then(|| Store::open(db));
    let studies = match &store {
        Some(Ok(s)) => s
            .studies()
            .map(|v| v.into_iter().map(|s| s.name).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let table = study.map(|name| match store {
        Some(Ok(s)) => export::table(&s, name).map_err(|e| e.to_string()),
        Some(Err(e)) => Err(e.to_string()),
        None => Err("there is no study database yet".to_string()),
    });
    (studies, table)
}

/// The model fitted: chosen by the number of raters ([`mixed::choose`]).
enum Fitted {
    /// One rater: least squares, fitted at once (it is quick; boxed: it is
    /// large beside a task).
    Ols(Box<Result<Fit, RegressError>>),
    /// Several raters: the mixed model, fitted in the background.
    Mixed(Mixing),
}

impl RegressPanel {
    pub(super) fn new(folder: &Folder) -> RegressPanel {
        // The user's own ratings once there are any; the example before.
        let own = read_ratings(&folder.ratings()).is_ok_and(|t| t.rows.len() >= 2);
        RegressPanel {
            source: if own { Source::Own } else { Source::Example },
            studies: Vec::new(),
            table: None,
            chosen: DEFAULT_FEATURES.map(|f| f.column().to_string()).to_vec(),
            fit: None,
            scatter: Feature::HalfwayRatio.column().into(),
            energy_name: "fitted".into(),
            stale: true,
            reading: None,
        }
    }

    /// The fit shown, if any.
    pub(super) fn fit(&self) -> Option<&Fit> {
        match &self.fit {
            Some((Fitted::Ols(f), _)) => f.as_ref().as_ref().ok(),
            _ => None,
        }
    }

    /// The mixed fit shown and its judgement, once it has come.
    pub(super) fn mixed(&self) -> Option<(&MixedFit, &Judgement)> {
        match &self.fit {
            Some((Fitted::Mixed(m), _)) => m.fit(),
            _ => None,
        }
    }

    /// A rating was saved: read the file again when the panel is next shown.
    pub(super) fn ratings_changed(&mut self) {
        self.stale = true;
    }

    /// Reads the ratings again: a file at once, a study (and the list of
    /// studies) in the background.
    fn reload(&mut self, folder: &Folder, ctx: &egui::Context) {
        let db = folder.studies_db();
        let study = match &self.source {
            Source::Study(name) => Some(name.clone()),
            Source::Own | Source::Example => None,
        };
        let asked = study.clone();
        self.reading = Some(Task::spawn(ctx, move |_, _| {
            read_studies(&db, asked.as_deref())
        }));
        self.stale = false;
        match study {
            Some(name) => {
                self.table = Some((format!("study {name}"), Err(READING.into())));
                self.fit = None;
            }
            None => {
                let path = if self.source == Source::Example {
                    folder.example_ratings()
                } else {
                    folder.ratings()
                };
                let table = read_ratings(&path).map_err(|e| e.to_string());
                self.show_table(folder.show(&path), table, ctx);
            }
        }
    }

    /// Takes the study database's read once it has come.
    fn take_read(&mut self, ctx: &egui::Context) {
        let Some(task) = &mut self.reading else {
            return;
        };
        let (studies, table) = match task.poll() {
            Poll::Pending => return,
            Poll::Done(read) => read,
            Poll::Stopped => (Vec::new(), Some(Err("the read failed".to_string()))),
        };
        self.reading = None;
        self.studies = studies;
        if let (Some(table), Source::Study(name)) = (table, &self.source) {
            let shown = format!("study {name}");
            self.show_table(shown, table, ctx);
        }
    }

    /// Shows a table read and fits it.
    fn show_table(
        &mut self,
        shown: String,
        table: Result<RatingsTable, String>,
        ctx: &egui::Context,
    ) {
        let table = table.map(Arc::new);
        if let Ok(t) = &table {
            // Only features the file has can be ticked (or unticked).
            self.chosen.retain(|f| t.column(f).is_some());
        }
        self.table = Some((shown, table));
        self.refit(ctx);
    }

    /// Fits the chosen features: least squares at once for one rater, the
    /// mixed model in the background for several (a new choice drops the
    /// fit under way).
    fn refit(&mut self, ctx: &egui::Context) {
        self.fit = match &self.table {
            Some((_, Ok(table))) => Some(match table_data(table, &self.chosen) {
                Ok(d) => {
                    let raters = d.texts(table, "rater");
                    let fitted = if mixed::several_raters(&raters) {
                        let puzzles = d.texts(table, "puzzle");
                        Fitted::Mixed(Mixing::start(ctx, &self.chosen, &d, raters, puzzles))
                    } else {
                        Fitted::Ols(Box::new(fit(&self.chosen, &d.x, &d.y)))
                    };
                    (fitted, d)
                }
                Err(e) => (Fitted::Ols(Box::new(Err(e))), FitData::default()),
            }),
            _ => None,
        };
    }
}

impl BoafApp {
    pub(super) fn regress_ui(&mut self, ui: &mut egui::Ui) {
        let folder = self.folder.clone();
        let r = &mut self.regress;
        if r.stale {
            r.reload(&folder, ui.ctx());
        }
        r.take_read(ui.ctx());
        ui.heading("Regression of ratings on features");
        ui.horizontal(|ui| {
            ui.label("Ratings:");
            let before = r.source.clone();
            ui.radio_value(&mut r.source, Source::Own, folder.show(&folder.ratings()));
            ui.radio_value(
                &mut r.source,
                Source::Example,
                format!(
                    "{} (demonstration data)",
                    folder.show(&folder.example_ratings())
                ),
            );
            if !r.studies.is_empty() {
                let l = ui.label("or a study:");
                let shown = match &r.source {
                    Source::Study(name) => name.clone(),
                    _ => "choose…".to_string(),
                };
                egui::ComboBox::from_id_salt("regress-study")
                    .selected_text(shown)
                    .show_ui(ui, |ui| {
                        for name in &r.studies {
                            ui.selectable_value(&mut r.source, Source::Study(name.clone()), name);
                        }
                    })
                    .response
                    .on_hover_text(
                        "A study's ratings, read from the study database: the rows \
                         its export writes, one rater id per rater",
                    )
                    .labelled_by(l.id);
            }
            if r.source != before || ui.button("Reload").clicked() {
                r.reload(&folder, ui.ctx());
            }
        });
        let table = match &r.table {
            Some((_, Ok(t))) => t.clone(),
            Some((shown, Err(_))) if r.reading.is_some() => {
                ui.label(format!("{shown}: {READING}"));
                return;
            }
            Some((shown, Err(e))) => {
                ui.colored_label(ui.visuals().error_fg_color, format!("{shown}: {e}"));
                if r.source == Source::Own {
                    ui.label("Rate some puzzles first, or look at the demonstration ratings.");
                }
                return;
            }
            None => return,
        };
        let raters: std::collections::BTreeSet<&str> = (0..table.rows.len())
            .map(|i| match table.text(i, "rater").map(str::trim) {
                Some(r) if !r.is_empty() => r,
                _ => "(no name)",
            })
            .collect();
        ui.label(format!(
            "{} by {}: {}.",
            format::plural(table.rows.len(), "rating"),
            format::plural(raters.len(), "rater"),
            raters.into_iter().collect::<Vec<_>>().join(", ")
        ));
        if r.source == Source::Example {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                "Demonstration data: real generated puzzles rated by a synthetic rater (a formula plus noise), not by people.",
            );
        }
        ui.horizontal_wrapped(|ui| {
            ui.label("Features:");
            let mut changed = false;
            for feature in Feature::ALL
                .into_iter()
                .filter(|f| table.column(f.column()).is_some())
            {
                let f = feature.column();
                let mut on = r.chosen.iter().any(|c| c == f);
                if ui
                    .checkbox(&mut on, f)
                    .on_hover_text(feature.explain())
                    .changed()
                {
                    changed = true;
                    if on {
                        r.chosen.push(f.to_string());
                    } else {
                        r.chosen.retain(|c| c != f);
                    }
                }
            }
            if changed {
                // Keep the table in the features' usual order.
                r.chosen.sort_by_key(|c| Feature::from_column(c));
                r.refit(ui.ctx());
            }
        });
        let Some((result, data)) = &mut r.fit else {
            return;
        };
        problems_ui(ui, &table, data);
        // The fit's table, then the coefficients the chart, the scatter
        // plot and "Use as energy" work on (the mixed model's fixed effects).
        let (fitted, about) = match result {
            Fitted::Ols(result) => {
                model_line(ui, mixed::ONE_RATER_MODEL);
                let fitted = match result.as_ref() {
                    Ok(f) => f.clone(),
                    Err(e) => {
                        ui.colored_label(ui.visuals().error_fg_color, format!("No fit: {e}"));
                        return;
                    }
                };
                for w in &fitted.warnings {
                    ui.colored_label(ui.visuals().warn_fg_color, format!("⚠ {w}"));
                }
                coef_table(ui, &fitted);
                let about = format!(
                    "Minus the rating predicted from {} on {} (R² {})",
                    format::plural(fitted.n, "rating"),
                    feature_list(&fitted),
                    format::fixed(fitted.r2, 3)
                );
                (fitted, about)
            }
            Fitted::Mixed(mixing) => match mixing.ui(ui) {
                Some(shown) => shown,
                None => return,
            },
        };
        ui.columns(2, |cols| {
            let ui = &mut cols[0];
            coef_chart(ui, &fitted);
            let ui = &mut cols[1];
            scatter_ui(ui, &table, &fitted, &mut r.scatter);
        });
        ui.separator();
        // Worked out before the click, so the panel says what "Use as
        // energy" will do: a new name each time, so refitting never clashes
        // with the last fit, and no copy of a fit already in use.
        let name = self.energies.free_name(&r.energy_name);
        let toml = fitted.to_energy_toml_over(&name, &about, data.cards);
        let same = same_energy(self.energies.book(), &toml);
        let mut use_it = false;
        ui.horizontal(|ui| {
            let l = ui.label("New energy named");
            ui.text_edit_singleline(&mut r.energy_name)
                .labelled_by(l.id);
            use_it = ui
                .button("Use as energy")
                .on_hover_text(
                    "An energy whose value is minus the predicted rating (so the generator \
                     looks for the best-rated puzzles), written to the fitted-energies file",
                )
                .clicked();
        });
        if let Some(note) = naming_note(&r.energy_name, &name, same.as_deref()) {
            ui.label(note);
        }
        if use_it {
            // The same fit again would only add a copy under a new name.
            if let Some(same) = same {
                self.say(format!(
                    "This fit is already the energy '{same}' (same definition); nothing was added."
                ));
                return;
            }
            match self.energies.append_fitted(&folder, &toml) {
                Ok(()) => {
                    self.generate.energies_changed(&self.energies);
                    self.generate.choose_energy(&name);
                    self.say(format!(
                        "Energy '{name}' written to {}; it is chosen in the Generate panel.",
                        folder.show(&folder.fitted_energies())
                    ));
                }
                Err(e) => self.say_error(format!("could not add the energy: {e}")),
            }
        }
    }
}

/// The rows skipped as unreadable, the rows the fit left out and why, and
/// each value that is not a number with its line and column (the lists
/// folded away when long).
fn problems_ui(ui: &mut egui::Ui, table: &RatingsTable, data: &FitData) {
    const SHOWN_OPEN: usize = 3;
    let warn = ui.visuals().warn_fg_color;
    let list = |ui: &mut egui::Ui, id: &str, title: String, lines: Vec<String>| {
        if lines.len() <= SHOWN_OPEN {
            for l in lines {
                ui.colored_label(warn, l);
            }
        } else {
            egui::CollapsingHeader::new(egui::RichText::new(title).color(warn))
                .id_salt(id)
                .show(ui, |ui| {
                    for l in lines {
                        ui.colored_label(warn, l);
                    }
                });
        }
    };
    list(
        ui,
        "ratings-skipped-rows",
        format!("{} rows of the file skipped", table.skipped.len()),
        table.skipped.iter().map(ToString::to_string).collect(),
    );
    if let Some(summary) = data.left_out_summary() {
        ui.colored_label(warn, format!("{summary}."));
    }
    list(
        ui,
        "ratings-value-problems",
        format!("{} values that are not numbers", data.problems.len()),
        data.problems.iter().map(ToString::to_string).collect(),
    );
}

/// What "Use as energy" will do when it is not simply to add `wanted`: that
/// the fit is already the energy `same`, or that `wanted` is taken and the
/// fit will be `name`.
fn naming_note(wanted: &str, name: &str, same: Option<&str>) -> Option<String> {
    match same {
        Some(same) => Some(format!(
            "This fit is already the energy '{same}': using it adds nothing."
        )),
        None if name != wanted.trim() => Some(format!(
            "An energy named '{}' exists: this fit will be added as '{name}'.",
            wanted.trim()
        )),
        None => None,
    }
}

/// The name of the energy in use whose definition is that of the energy in
/// `toml`, if any (a text that does not parse matches none; adding it fails
/// with its error).
fn same_energy(book: &EnergyBook, toml: &str) -> Option<String> {
    let parsed = EnergyBook::parse(toml, "fit").ok()?;
    let new = parsed.energies().first()?;
    book.same_definition(new).map(|e| e.name.clone())
}

/// Where coefficient `i` of `k` sits on the chart's y axis: the first at the
/// top, so that the chart reads in the table's order.
fn coef_row(k: usize, i: usize) -> f64 {
    (k - 1 - i) as f64
}

/// The y-axis label at `y`: the feature whose bar sits there, nothing
/// between bars or past the ends.
fn coef_axis_label(names: &[String], y: f64) -> String {
    let row = y.round();
    if (y - row).abs() > 1e-6 || row < 0.0 || row >= names.len() as f64 {
        return String::new();
    }
    names[names.len() - 1 - row as usize].clone()
}

/// Half the width of a 95% interval: 1.96 standard errors.
const Z95: f64 = 1.96;

/// The coefficients as horizontal bars, each named on the y axis, with a
/// ±1.96·SE error bar. The intercept is left out: it is the mean rating, on
/// another scale than the per-standard-deviation effects (the table has it).
fn coef_chart(ui: &mut egui::Ui, fit: &Fit) {
    ui.strong("Coefficients (per standard deviation of the feature), ±1.96 SE");
    ui.weak("The intercept (the mean rating) is in the table: it is on another scale.");
    let k = fit.coefs.len();
    let names: Vec<String> = fit.coefs.iter().map(|c| c.name.clone()).collect();
    let bars: Vec<Bar> = fit
        .coefs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            Bar::new(coef_row(k, i), c.estimate)
                .name(&c.name)
                .width(0.6)
        })
        .collect();
    // Wide enough for the longest name, so that none is cut or dropped.
    let font = egui::TextStyle::Body.resolve(ui.style());
    let widest = names
        .iter()
        .map(|n| {
            ui.painter()
                .layout_no_wrap(n.clone(), font.clone(), egui::Color32::WHITE)
                .size()
                .x
        })
        .fold(0.0f32, f32::max);
    let whisker = ui.visuals().strong_text_color();
    // Each row tall enough for its label: egui_plot fades tick labels closer
    // than 30 points apart and drops those closer than 20.
    let height = (60.0 + 36.0 * k as f32).max(200.0);
    Plot::new("coef-chart")
        .height(height)
        .allow_scroll(false)
        .include_x(0.0)
        .y_axis_min_width(widest + 12.0)
        .y_grid_spacer(move |_| {
            (0..k)
                .map(|i| GridMark {
                    value: i as f64,
                    step_size: 1.0,
                })
                .collect()
        })
        .y_axis_formatter(move |mark, _| coef_axis_label(&names, mark.value))
        .show(ui, |plot| {
            plot.bar_chart(BarChart::new("coefficient", bars).horizontal());
            for (i, c) in fit.coefs.iter().enumerate() {
                let Some(se) = c.std_error else { continue };
                let (y, lo, hi) = (coef_row(k, i), c.estimate - Z95 * se, c.estimate + Z95 * se);
                let cap = 0.15;
                let segments = [
                    [[lo, y], [hi, y]],
                    [[lo, y - cap], [lo, y + cap]],
                    [[hi, y - cap], [hi, y + cap]],
                ];
                for (j, seg) in segments.into_iter().enumerate() {
                    plot.line(
                        Line::new(format!("±1.96 SE {}", c.name), seg.to_vec())
                            .id(("coef-error", i, j))
                            .color(whisker)
                            .width(1.5)
                            .allow_hover(false),
                    );
                }
            }
        });
}

/// The table of seed 001's Tables 1–4, with t and p and the fit's summary.
fn coef_table(ui: &mut egui::Ui, fit: &Fit) {
    table_grid("coef-table", 5).show(ui, |ui| {
        for h in ["Feature", "Coefficient", "Std. Error", "t", "p"] {
            ui.strong(h);
        }
        ui.end_row();
        for c in std::iter::once(&fit.intercept).chain(&fit.coefs) {
            ui.label(&c.name);
            ui.monospace(format::fixed(Some(c.estimate), 4));
            ui.monospace(format::fixed(c.std_error, 4));
            ui.monospace(format::fixed(c.t, 3));
            ui.monospace(format::p_value(c.p));
            ui.end_row();
        }
    });
    ui.label(fit.summary());
}

/// Rating against one feature, with the fitted line (the other features at
/// their means).
fn scatter_ui(ui: &mut egui::Ui, table: &RatingsTable, fit: &Fit, feature: &mut String) {
    ui.horizontal(|ui| {
        let l = ui.strong("Rating against");
        egui::ComboBox::from_id_salt("scatter-feature")
            .selected_text(feature.as_str())
            .show_ui(ui, |ui| {
                for f in Feature::ALL
                    .into_iter()
                    .filter(|f| table.column(f.column()).is_some())
                {
                    ui.selectable_value(feature, f.column().to_string(), f.column())
                        .on_hover_text(f.explain());
                }
            })
            .response
            .labelled_by(l.id);
    });
    let points: Vec<[f64; 2]> = (0..table.rows.len())
        .filter_map(|i| Some([table.number(i, feature)?, table.number(i, "rating")?]))
        .collect();
    let line = fit
        .coefs
        .iter()
        .position(|c| c.name == *feature)
        .and_then(|j| {
            let (lo, hi) = points
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                    (lo.min(p[0]), hi.max(p[0]))
                });
            (lo < hi).then(|| {
                let at = |x: f64| {
                    fit.intercept.estimate + fit.coefs[j].estimate * (x - fit.means[j]) / fit.sds[j]
                };
                vec![[lo, at(lo)], [hi, at(hi)]]
            })
        });
    Plot::new("scatter")
        .height(240.0)
        .allow_scroll(false)
        .x_axis_label(feature.as_str())
        .y_axis_label("rating")
        .include_y(0.0)
        .include_y(10.0)
        .show(ui, |plot| {
            plot.points(Points::new("ratings", points).radius(3.0));
            if let Some(l) = line {
                plot.line(Line::new("fit", l));
            }
        });
    if !fit.coefs.iter().any(|c| c.name == *feature) {
        ui.weak("This feature is not in the fit, so there is no fitted line.");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bar_is_named_on_the_y_axis_top_down() {
        let names: Vec<String> = ["depth1_ratio", "halfway_ratio", "rank_clusters"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let k = names.len();
        // Each bar's row carries its own name: the first feature at the top.
        for (i, name) in names.iter().enumerate() {
            assert_eq!(coef_axis_label(&names, coef_row(k, i)), *name);
        }
        assert_eq!(coef_row(k, 0), 2.0);
        assert_eq!(coef_axis_label(&names, 2.0), "depth1_ratio");
        assert_eq!(coef_axis_label(&names, 0.0), "rank_clusters");
        // Between bars and past the ends: no label.
        for y in [0.5, -1.0, 3.0, 1.25] {
            assert_eq!(coef_axis_label(&names, y), "", "at {y}");
        }
    }
}
