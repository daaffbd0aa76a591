//! The Analyze panel: the current puzzle's solvable and unsolvable states at
//! every depth on a log scale (seed 001's Figure 2), every feature, and the
//! energy trace of the search that made it. The analysis runs in a thread of
//! its own and can be cancelled.

use super::BoafApp;
use boaf_core::engine::analysis::{Analysis, AnalysisOptions, Depth, analyze};
use boaf_core::engine::features::Features;
use boaf_core::engine::limits::{ANALYSIS_CAP, Cancel, Limits};
use boaf_core::engine::state::State;
use boaf_core::format;
use boaf_core::generator::energy::DEFAULT_PENALTY;
use crossbeam_channel::{Receiver, TryRecvError, bounded};
use eframe::egui;
use egui_plot::{Bar, BarChart, Legend, Line, Plot};

/// An analysis under way.
struct Running {
    puzzle: String,
    result: Receiver<Result<Analysis, String>>,
    cancel: Cancel,
}

/// The Analyze panel's state.
#[derive(Default)]
pub(super) struct AnalyzePanel {
    running: Option<Running>,
    /// The puzzle and its analysis (or why there is none).
    done: Option<(String, Result<Analysis, String>)>,
}

impl AnalyzePanel {
    /// Forgets the analysis (a new candidate was opened).
    pub(super) fn clear(&mut self) {
        if let Some(r) = self.running.take() {
            r.cancel.cancel();
        }
        self.done = None;
    }

    /// Picks up a finished analysis without waiting.
    pub(super) fn poll(&mut self) {
        let Some(r) = &self.running else { return };
        let result = match r.result.try_recv() {
            Ok(res) => res,
            Err(TryRecvError::Empty) => return,
            Err(TryRecvError::Disconnected) => Err("the analysis stopped".into()),
        };
        let r = self.running.take().expect("checked above");
        self.done = Some((r.puzzle, result));
    }

    fn start(&mut self, puzzle: String, state: State, ctx: &egui::Context) {
        self.clear();
        let cancel = Cancel::new();
        let (tx, rx) = bounded(1);
        let opts = AnalysisOptions {
            depth: Depth::Last,
            threads: 1,
            limits: Limits::with_cap(ANALYSIS_CAP).cancelled_by(&cancel),
            progress: None,
        };
        let ctx = ctx.clone();
        std::thread::spawn(move || {
            let res = analyze(&state, &opts).map_err(|e| e.to_string());
            let _ = tx.send(res);
            ctx.request_repaint();
        });
        self.running = Some(Running {
            puzzle,
            result: rx,
            cancel,
        });
    }
}

impl BoafApp {
    pub(super) fn analyze_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Analyze");
        let Some((number, c)) = self.open_candidate(ui) else {
            return;
        };
        ui.label(format!(
            "Candidate #{number} · {} · made by {} in {} steps ({:.1} s)",
            c.puzzle,
            c.energy_id,
            c.trace.len(),
            c.seconds
        ));
        let a = &mut self.analyze;
        let have = a.done.as_ref().is_some_and(|(p, _)| *p == c.puzzle);
        let running = a.running.as_ref().is_some_and(|r| r.puzzle == c.puzzle);
        if !have && !running {
            // Cheap for small puzzles, seconds to minutes for 16 cards: off the UI thread.
            match c.state() {
                Ok(state) => a.start(c.puzzle.clone(), state, ui.ctx()),
                Err(e) => a.done = Some((c.puzzle.clone(), Err(e.to_string()))),
            }
        }
        ui.columns(2, |cols| {
            let ui = &mut cols[0];
            ui.strong("Solvable vs unsolvable states by depth (log scale)");
            match &a.done {
                Some((p, Ok(analysis))) if *p == c.puzzle => depth_chart(ui, analysis),
                Some((p, Err(e))) if *p == c.puzzle => {
                    ui.colored_label(ui.visuals().error_fg_color, format!("No analysis: {e}"));
                }
                _ => {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label("Analysing every reachable state…");
                        if ui.button("Cancel").clicked()
                            && let Some(r) = &a.running
                        {
                            r.cancel.cancel();
                        }
                    });
                }
            }
            let ui = &mut cols[1];
            ui.strong("Features");
            feature_grid(ui, &c.features);
        });
        ui.separator();
        ui.strong("Energy trace of the search (energy after each step)");
        // The penalty of the energy that made it (the default, for an energy
        // no longer known by its id).
        let penalty = self
            .energies
            .book()
            .energies()
            .iter()
            .find(|e| e.id() == c.energy_id)
            .map_or(DEFAULT_PENALTY, |e| e.penalty);
        trace_plot(ui, &c.trace, penalty);
    }
}

/// Seed 001's Figure 2: log₁₀ of the solvable and unsolvable counts.
fn depth_chart(ui: &mut egui::Ui, analysis: &Analysis) {
    // log₁₀(1 + count): one state shows as a bar, none as no bar.
    let log = |v: u64| (v as f64).ln_1p() / std::f64::consts::LN_10;
    let solvable: Vec<Bar> = analysis
        .depths
        .iter()
        .map(|d| {
            Bar::new(d.depth as f64 - 0.2, log(d.solvable))
                .width(0.4)
                .name(format!("depth {}: {} solvable", d.depth, d.solvable))
        })
        .collect();
    let unsolvable: Vec<Bar> = analysis
        .depths
        .iter()
        .map(|d| {
            let u = d.states - d.solvable;
            Bar::new(d.depth as f64 + 0.2, log(u))
                .width(0.4)
                .name(format!("depth {}: {u} unsolvable", d.depth))
        })
        .collect();
    Plot::new("depth-chart")
        .height(260.0)
        .legend(Legend::default())
        .x_axis_label("depth (moves made)")
        .y_axis_label("log₁₀(1 + states)")
        .allow_scroll(false)
        .include_y(0.0)
        .show(ui, |plot| {
            plot.bar_chart(
                BarChart::new("solvable", solvable)
                    .color(egui::Color32::from_rgb(0x2e, 0xa0, 0x43)),
            );
            plot.bar_chart(
                BarChart::new("unsolvable", unsolvable)
                    .color(egui::Color32::from_rgb(0xc6, 0x28, 0x28)),
            );
        });
    egui::Grid::new("depth-table").striped(true).show(ui, |ui| {
        for h in ["depth", "states", "solvable", "unsolvable", "ratio"] {
            ui.strong(h);
        }
        ui.end_row();
        for d in &analysis.depths {
            ui.label(d.depth.to_string());
            ui.label(d.states.to_string());
            ui.label(d.solvable.to_string());
            ui.label((d.states - d.solvable).to_string());
            ui.label(format::number(Some(d.ratio())));
            ui.end_row();
        }
    });
}

fn feature_grid(ui: &mut egui::Ui, f: &Features) {
    egui::Grid::new("features").striped(true).show(ui, |ui| {
        for name in Features::NAMES {
            ui.label(name);
            ui.monospace(format::number(f.value(name)));
            ui.end_row();
        }
    });
}

fn trace_plot(ui: &mut egui::Ui, trace: &[f64], penalty: f64) {
    if trace.is_empty() {
        ui.weak("This candidate has no trace.");
        return;
    }
    // Unsolvable steps score the penalty (1000); leaving them in would flatten the rest.
    let finite: Vec<[f64; 2]> = trace
        .iter()
        .enumerate()
        .filter(|(_, e)| e.is_finite() && **e != penalty)
        .map(|(i, &e)| [i as f64, e])
        .collect();
    let unsolvable = trace.len() - finite.len();
    if unsolvable > 0 {
        ui.weak(format!(
            "{unsolvable} steps met unsolvable puzzles (penalty) and are not drawn."
        ));
    }
    Plot::new("trace")
        .height(220.0)
        .x_axis_label("step")
        .y_axis_label("energy")
        .allow_scroll(false)
        .show(ui, |plot| plot.line(Line::new("energy", finite)));
}
