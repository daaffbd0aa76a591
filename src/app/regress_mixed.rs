//! The Regression panel with several raters: the mixed model fitted in the
//! background, its table with power, the variance components and how
//! reliable the puzzle means are. Every figure's tooltip is the core's
//! definition ([`mixed::FIGURES`]), the wording `boaf regress` prints. It
//! also holds the table helpers the least-squares part uses.

use super::task::{Poll, Task};
use boaf_core::format;
use boaf_core::study::mixed::{self, Judgement, MixedFit};
use boaf_core::study::regress::{Fit, FitData, RegressError};
use boaf_core::study::reliability::{self, Figure};
use eframe::egui;

/// A mixed fit with its judgement, or why there is none.
pub(super) type Mixed = Result<(MixedFit, Judgement), RegressError>;

/// The mixed model of one choice of features: fitting, or fitted.
pub(super) enum Mixing {
    /// Fitting in the background (REML and the null model for the ICC).
    Fitting(Task<Mixed>),
    /// The fit, or why there is none (boxed: it is large beside a task).
    Done(Box<Mixed>),
}

impl Mixing {
    /// Starts fitting `names` on the rows of `data`, grouped by `raters`
    /// and `puzzles`, off the UI thread.
    pub(super) fn start(
        ctx: &egui::Context,
        names: &[String],
        data: &FitData,
        raters: Vec<String>,
        puzzles: Vec<String>,
    ) -> Mixing {
        let (names, x, y) = (names.to_vec(), data.x.clone(), data.y.clone());
        Mixing::Fitting(Task::spawn(ctx, move |_, _| {
            let fit = mixed::fit(&names, &x, &y, &raters, &puzzles)?;
            Ok((fit, mixed::judge(&names, &x, &y, &raters, &puzzles)))
        }))
    }

    /// The fit once it has come (taking it from the task if it just did).
    pub(super) fn done(&mut self) -> Option<&Mixed> {
        if let Mixing::Fitting(task) = self {
            match task.poll() {
                Poll::Pending => return None,
                Poll::Done(m) => *self = Mixing::Done(Box::new(m)),
                Poll::Stopped => {
                    let stopped = RegressError::Solver("the mixed model's fit stopped".into());
                    *self = Mixing::Done(Box::new(Err(stopped)))
                }
            }
        }
        match self {
            Mixing::Done(m) => Some(m),
            Mixing::Fitting(_) => None,
        }
    }

    /// The fit shown, if it has come and worked.
    pub(super) fn fit(&self) -> Option<(&MixedFit, &Judgement)> {
        match self {
            Mixing::Done(done) => done.as_ref().as_ref().ok().map(|(m, j)| (m, j)),
            Mixing::Fitting(_) => None,
        }
    }

    /// Shows the model line and, once fitted, the table, the variance
    /// components and the reliability; gives the fixed effects (for the
    /// chart, the scatter plot and "Use as energy") with what they are.
    pub(super) fn ui(&mut self, ui: &mut egui::Ui) -> Option<(Fit, String)> {
        model_line(ui, mixed::SEVERAL_RATERS_MODEL);
        let Some(done) = self.done() else {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Fitting the mixed model…");
            });
            return None;
        };
        let (m, judged) = match done {
            Ok(d) => d,
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, format!("No fit: {e}"));
                return None;
            }
        };
        for w in &m.warnings {
            ui.colored_label(ui.visuals().warn_fg_color, format!("⚠ {w}"));
        }
        table(ui, m);
        ui.columns(2, |cols| {
            components(&mut cols[0], m);
            reliability_ui(&mut cols[1], judged);
        });
        let fixed = m.fixed_effects();
        let about = format!(
            "Minus the rating predicted by the mixed model's fixed effects from {} by {} on {}",
            format::plural(m.n, "rating"),
            format::plural(m.raters, "rater"),
            feature_list(&fixed)
        );
        Some((fixed, about))
    }
}

/// The line saying which model was fitted and why.
pub(super) fn model_line(ui: &mut egui::Ui, model: &str) {
    ui.label(format!("Model: {model}."));
}

/// A heading that says what its column is.
fn heading(ui: &mut egui::Ui, f: Figure) {
    ui.strong(f.label).on_hover_text(f.help);
}

/// A number that says what it is.
fn number(ui: &mut egui::Ui, text: String, f: Figure) {
    ui.monospace(text).on_hover_text(f.help);
}

/// The coefficients with estimate, SE, t, p and the ratings power wants,
/// then the fit's summary.
fn table(ui: &mut egui::Ui, m: &MixedFit) {
    table_grid("mixed-table", 6).show(ui, |ui| {
        ui.strong("Feature");
        for f in [
            mixed::ESTIMATE,
            mixed::STD_ERROR,
            mixed::T,
            mixed::P,
            reliability::MORE_RATINGS,
        ] {
            heading(ui, f);
        }
        ui.end_row();
        let rows = std::iter::once(&m.intercept).chain(&m.coefs);
        for (c, more) in rows.zip(&m.more_ratings) {
            ui.label(&c.name);
            number(ui, format::fixed(Some(c.estimate), 4), mixed::ESTIMATE);
            number(ui, format::fixed(c.std_error, 4), mixed::STD_ERROR);
            number(ui, format::fixed(c.t, 3), mixed::T);
            number(ui, format::p_value(c.p), mixed::P);
            let more = more.map_or(format::MISSING.to_string(), |k| k.to_string());
            number(ui, more, reliability::MORE_RATINGS);
            ui.end_row();
        }
    });
    ui.label(m.summary());
}

/// The variance components, each with its share of the total.
fn components(ui: &mut egui::Ui, m: &MixedFit) {
    ui.strong("Variance components");
    table_grid("mixed-components", 3).show(ui, |ui| {
        for (f, variance, share) in m.components.shares() {
            heading(ui, f);
            number(ui, format!("{variance:.4}"), f);
            number(ui, format!("{:.0}%", 100.0 * share), mixed::SHARE);
            ui.end_row();
        }
    });
}

/// How reliable the puzzle means are, and the R² they allow beside the
/// features' R².
fn reliability_ui(ui: &mut egui::Ui, judged: &Judgement) {
    ui.strong("Reliability of the puzzle means");
    let split = judged.split_half.as_ref();
    table_grid("mixed-reliability", 2).show(ui, |ui| {
        for (f, v) in [
            (reliability::SPLIT_HALF_R, split.map(|s| s.r)),
            (reliability::SPEARMAN_BROWN, split.map(|s| s.reliability)),
            (reliability::ICC, judged.icc),
            (reliability::R2_CEILING, judged.r2_ceiling),
            (reliability::FEATURES_R2, judged.features_r2),
        ] {
            heading(ui, f);
            number(ui, format::fixed(v, 3), f);
            ui.end_row();
        }
    });
    if let Some(s) = split {
        ui.weak(format!(
            "Split over the {} puzzles rated at least twice.",
            s.puzzles
        ));
    }
}

/// The features of a fit, comma-separated (for an energy's description).
pub(super) fn feature_list(fit: &Fit) -> String {
    let names: Vec<&str> = fit.coefs.iter().map(|c| c.name.as_str()).collect();
    names.join(", ")
}

/// A striped grid of `columns` columns, spaced as the panel's tables are.
pub(super) fn table_grid(id: &str, columns: usize) -> egui::Grid {
    egui::Grid::new(id)
        .striped(true)
        .num_columns(columns)
        .spacing([24.0, 4.0])
}
