//! The Analyze panel: the current puzzle's solvable and unsolvable states at
//! every depth on a log scale (seed 001's Figure 2), every feature, and the
//! energy trace of the search that made it. The analysis runs in a thread of
//! its own, reports its progress, and can be cancelled.

use super::BoafApp;
use super::axis::AxisFormat;
use super::task::{Poll, Task};
use boaf_core::agents::difficulty::{
    BEYOND_LADDER, GRADE_GAMES, GRADE_WINS, LADDER, PLAYOUTS, add_difficulty,
};
use boaf_core::engine::analysis::{
    Analysis, AnalysisOptions, Depth, DepthCount, Progress, ProgressHook, analyze,
};
use boaf_core::engine::feature::{Feature, FeatureSet};
use boaf_core::engine::features::Features;
use boaf_core::engine::limits::{ANALYSIS_CAP, Limits};
use boaf_core::engine::state::State;
use boaf_core::format;
use boaf_core::generator::energy::DEFAULT_PENALTY;
use boaf_core::generator::pipeline::{Candidate, Source};
use eframe::egui;
use egui_plot::{
    AxisHints, Bar, BarChart, Corner, GridInput, GridMark, HoverPosition, Legend, Line, LineStyle,
    Plot, PlotPoint, Points, Text, VLine,
};
use std::ops::Range;
use std::sync::Arc;

const SOLVABLE: egui::Color32 = egui::Color32::from_rgb(0x2e, 0xa0, 0x43);
const UNSOLVABLE: egui::Color32 = egui::Color32::from_rgb(0xc6, 0x28, 0x28);
const HALFWAY: egui::Color32 = egui::Color32::from_rgb(0x6a, 0x4c, 0x93);
const ENERGY: egui::Color32 = egui::Color32::from_rgb(0x1f, 0x77, 0xb4);
const BEST: egui::Color32 = egui::Color32::from_rgb(0xff, 0x7f, 0x0e);

/// An analysis under way, reporting once a layer.
struct Running {
    puzzle: String,
    task: Task<Result<Analysis, String>, Progress>,
}

/// Agents playing a puzzle for its difficulty features.
struct Playing {
    puzzle: String,
    task: Task<Result<Features, String>>,
}

/// The Analyze panel's state.
#[derive(Default)]
pub(super) struct AnalyzePanel {
    running: Option<Running>,
    /// The puzzle and its analysis (or why there is none).
    done: Option<(String, Result<Analysis, String>)>,
    playing: Option<Playing>,
    /// Why the agents could not play, for the puzzle they tried.
    play_error: Option<(String, String)>,
}

impl AnalyzePanel {
    /// Forgets the analysis (a new candidate was opened).
    pub(super) fn clear(&mut self) {
        // Dropping the analysis under way cancels it.
        self.running = None;
        self.done = None;
    }

    /// Picks up progress and a finished analysis without waiting.
    pub(super) fn poll(&mut self) {
        let Some(r) = &mut self.running else { return };
        let result = match r.task.poll() {
            Poll::Done(res) => res,
            Poll::Pending => return,
            Poll::Stopped => Err("the analysis stopped".into()),
        };
        let r = self.running.take().expect("checked above");
        self.done = Some((r.puzzle, result));
    }

    /// The difficulty features the agents found, once they have: the
    /// puzzle and its features with them. Never waits.
    pub(super) fn poll_difficulty(&mut self) -> Option<(String, Features)> {
        let p = self.playing.as_mut()?;
        let result = match p.task.poll() {
            Poll::Done(res) => res,
            Poll::Pending => return None,
            Poll::Stopped => Err("the agents stopped".into()),
        };
        let p = self.playing.take().expect("checked above");
        match result {
            Ok(f) => Some((p.puzzle, f)),
            Err(e) => {
                self.play_error = Some((p.puzzle, e));
                None
            }
        }
    }

    /// Lets the agents play `state` for its difficulty features, in a
    /// thread of its own (about a second at most on the 16-card puzzles
    /// measured; more on a puzzle no MCTS budget wins).
    fn play_for_difficulty(
        &mut self,
        puzzle: String,
        state: State,
        mut features: Features,
        ctx: &egui::Context,
    ) {
        // Stopped when no longer wanted (the agents sent to another puzzle).
        let task = Task::spawn(ctx, move |cancel, _| {
            let limits = Limits::default().cancelled_by(&cancel);
            add_difficulty(&mut features, &state, FeatureSet::DIFFICULTY, &limits)
                .map(|()| features)
                .map_err(|e| e.to_string())
        });
        self.play_error = None;
        self.playing = Some(Playing { puzzle, task });
    }

    fn start(&mut self, puzzle: String, state: State, ctx: &egui::Context) {
        self.clear();
        let task = Task::spawn(ctx, move |cancel, progress| {
            let hook: ProgressHook = Arc::new(move |p: Progress| progress.report(p));
            let opts = AnalysisOptions {
                depth: Depth::Last,
                // The layers on every core: the same table, sooner.
                threads: boaf_core::parallel::cores(),
                limits: Limits::with_cap(ANALYSIS_CAP).cancelled_by(&cancel),
                progress: Some(hook),
            };
            analyze(&state, &opts).map_err(|e| e.to_string())
        });
        self.running = Some(Running { puzzle, task });
    }
}

impl BoafApp {
    pub(super) fn analyze_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Analyze");
        let Some((number, c)) = self.open_candidate(ui) else {
            return;
        };
        ui.horizontal(|ui| {
            ui.label(match c.source {
                Source::Generated => format!(
                    "Candidate #{number} · {} · made by {} in {} steps ({:.1} s)",
                    c.puzzle,
                    c.energy_id,
                    format::count(c.trace.len() as u64),
                    c.seconds
                ),
                Source::Entered => format!(
                    "Candidate #{number} · {} · entered, valued by {}",
                    c.puzzle, c.energy_id
                ),
            });
            super::enter::copy_id_button(ui, &c);
        });
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
                _ => progress_ui(ui, a.running.as_ref()),
            }
            let ui = &mut cols[1];
            ui.strong("Features");
            feature_grid(ui, &c.features);
            difficulty_ui(ui, a, &c);
        });
        ui.separator();
        ui.strong("Energy trace of the search (energy after each step, log scale)");
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

/// Under the features: a button that lets the agents play the puzzle when
/// its difficulty features are missing (a candidate made without them).
fn difficulty_ui(ui: &mut egui::Ui, a: &mut AnalyzePanel, c: &Candidate) {
    let f = &c.features;
    // An unsolvable puzzle has no MCTS budget even when it was asked for.
    let all = f.greedy_wins.is_some()
        && f.playout_win_rate.is_some()
        && (f.mcts_budget.is_some() || !f.solvable);
    if all {
        ui.weak(format!(
            "Difficulty: {} random playouts, seed 000's greedy agent, and the smallest MCTS \
             budget of {:?} that wins {} of {} games ({} if none does).",
            format::count(PLAYOUTS as u64),
            LADDER,
            GRADE_WINS,
            GRADE_GAMES,
            BEYOND_LADDER
        ));
        return;
    }
    if a.playing.as_ref().is_some_and(|p| p.puzzle == c.puzzle) {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("The agents are playing it…");
        });
        return;
    }
    if let Some((p, e)) = &a.play_error
        && *p == c.puzzle
    {
        ui.colored_label(
            ui.visuals().error_fg_color,
            format!("The agents could not play: {e}"),
        );
    }
    let clicked = ui
        .button("Let the agents play it")
        .on_hover_text(
            "Computes playout_win_rate, greedy_wins and mcts_budget (about a second at most on 16-card puzzles measured); \
             they are kept with the candidate and saved with its rating",
        )
        .clicked();
    if clicked && let Ok(state) = c.state() {
        a.play_for_difficulty(c.puzzle.clone(), state, c.features.clone(), ui.ctx());
    }
}

/// The spinner, the progress of the analysis under way, and its Cancel button.
fn progress_ui(ui: &mut egui::Ui, running: Option<&Running>) {
    let latest = running.and_then(|r| r.task.progress().copied());
    ui.horizontal(|ui| {
        ui.spinner();
        ui.label(match &latest {
            Some(p) => progress_text(p).0,
            None => "Analysing every reachable state…".into(),
        });
        if ui.button("Cancel").clicked()
            && let Some(r) = running
        {
            r.task.cancel();
        }
    });
    if let Some(p) = &latest {
        ui.add(egui::ProgressBar::new(progress_text(p).1).show_percentage());
    }
}

/// A progress report in words, and the fraction of the work done (0 to 1).
///
/// The analysis reports each layer twice: counting states forward (report
/// `d` for depth `d`, 1 to the last depth k − 1), then finding the solvable
/// ones backward (report `2(k − 1) + 1 − d` for depth `d`, k − 2 down to 0),
/// out of `2(k − 1) + 1`.
fn progress_text(p: &Progress) -> (String, f32) {
    let last = p.of.saturating_sub(1) / 2;
    let states = format::count(p.states as u64);
    let text = if p.done <= last {
        format!(
            "Counting states: depth {} of {last} · {states} states",
            p.done
        )
    } else {
        let depth = p.of.saturating_sub(p.done);
        format!("Finding the solvable states, working back: depth {depth} · {states} states")
    };
    let fraction = if p.of == 0 {
        0.0
    } else {
        (p.done as f32 / p.of as f32).clamp(0.0, 1.0)
    };
    (text, fraction)
}

/// One grid mark at every whole depth from 0 to `last` within the visible
/// `bounds`, so that every depth has its tick, grid line and label.
fn depth_marks(bounds: (f64, f64), last: usize) -> Vec<GridMark> {
    if !(bounds.0.is_finite() && bounds.1.is_finite()) {
        return Vec::new();
    }
    let lo = bounds.0.ceil().max(0.0);
    let hi = bounds.1.floor().min(last as f64);
    if lo > hi {
        return Vec::new();
    }
    (lo as usize..=hi as usize)
        .map(|d| GridMark {
            value: d as f64,
            step_size: 1.0,
        })
        .collect()
}

/// An axis label for a whole depth; none between depths.
fn depth_label(mark: GridMark, _range: &std::ops::RangeInclusive<f64>) -> String {
    if mark.value.fract() == 0.0 && mark.value >= 0.0 {
        format!("{}", mark.value as u64)
    } else {
        String::new()
    }
}

/// What one depth's counts are, for the chart's hover label.
fn depth_summary(d: &DepthCount) -> String {
    format!(
        "depth {}\n{} states\n{} solvable\n{} unsolvable",
        d.depth,
        format::count(d.states),
        format::count(d.solvable),
        format::count(d.states - d.solvable)
    )
}

/// log₁₀(1 + count): one state shows as a bar, none as no bar.
fn log_count(v: u64) -> f64 {
    (v as f64).ln_1p() / std::f64::consts::LN_10
}

/// Seed 001's Figure 2: log₁₀ of the solvable and unsolvable counts, with a
/// tick at every depth and the halfway depth marked.
fn depth_chart(ui: &mut egui::Ui, analysis: &Analysis) {
    let solvable: Vec<Bar> = analysis
        .depths
        .iter()
        .map(|d| {
            Bar::new(d.depth as f64 - 0.2, log_count(d.solvable))
                .width(0.4)
                .name(format!(
                    "depth {}: {} solvable",
                    d.depth,
                    format::count(d.solvable)
                ))
        })
        .collect();
    let unsolvable: Vec<Bar> = analysis
        .depths
        .iter()
        .map(|d| {
            let u = d.states - d.solvable;
            Bar::new(d.depth as f64 + 0.2, log_count(u))
                .width(0.4)
                .name(format!(
                    "depth {}: {} unsolvable",
                    d.depth,
                    format::count(u)
                ))
        })
        .collect();
    let last = analysis.depths.len().saturating_sub(1);
    // The core's halfway depth (⌊k/2⌋ for k stacks), the one the halfway ratio reads.
    let halfway = analysis.halfway_depth();
    let shows_halfway = halfway <= last;
    let top = analysis
        .depths
        .iter()
        .map(|d| log_count(d.states))
        .fold(0.0, f64::max);
    let depths = &analysis.depths;
    // The halfway label sits on the bars: the theme's strongest text on its
    // own background reads whatever is behind it.
    let halfway_text = egui::RichText::new(" halfway ")
        .color(ui.visuals().strong_text_color())
        .background_color(ui.visuals().extreme_bg_color);
    Plot::new("depth-chart")
        .height(260.0)
        .legend(Legend::default().position(Corner::LeftTop))
        .custom_x_axes(vec![
            AxisHints::new_x()
                .label("depth (moves made)")
                .formatter(depth_label)
                // A label at every depth, even 16 of them in half the window.
                .label_spacing(10.0..=14.0),
        ])
        .x_grid_spacer(move |input: GridInput| depth_marks(input.bounds, last))
        // Grid lines a depth apart are drawn clearly, not faded.
        .grid_spacing(8.0..=40.0)
        .y_axis_label("log₁₀(1 + states)")
        .allow_scroll(false)
        .include_y(0.0)
        .include_x(-0.5)
        .include_x(last as f64 + 0.5)
        .label_formatter(move |pos: &HoverPosition<'_>| {
            let x = match pos {
                HoverPosition::NearDataPoint { position, .. }
                | HoverPosition::Elsewhere { position } => position.x,
            };
            let d = depths.get(usize::try_from(x.round() as i64).ok()?)?;
            Some(depth_summary(d))
        })
        .show(ui, |plot| {
            // A bar's own label: its count, with separators.
            plot.bar_chart(
                BarChart::new("solvable", solvable)
                    .color(SOLVABLE)
                    .element_formatter(Box::new(bar_label)),
            );
            plot.bar_chart(
                BarChart::new("unsolvable", unsolvable)
                    .color(UNSOLVABLE)
                    .element_formatter(Box::new(bar_label)),
            );
            if shows_halfway {
                plot.vline(
                    VLine::new("halfway", halfway as f64)
                        .color(HALFWAY)
                        .style(LineStyle::dashed_loose()),
                );
                plot.text(
                    Text::new("", PlotPoint::new(halfway as f64 + 0.05, top), halfway_text)
                        .anchor(egui::Align2::LEFT_TOP),
                );
            }
        });
    if shows_halfway {
        ui.weak(format!(
            "The dashed line is the halfway depth, {halfway} (half the {} stacks, rounded down), where the halfway ratio is read.",
            analysis.stacks
        ));
    }
    egui::Grid::new("depth-table").striped(true).show(ui, |ui| {
        for h in ["depth", "states", "solvable", "unsolvable", "ratio"] {
            ui.strong(h);
        }
        ui.end_row();
        for d in &analysis.depths {
            if d.depth == halfway {
                ui.label(format!("{} (halfway)", d.depth));
            } else {
                ui.label(d.depth.to_string());
            }
            ui.label(format::count(d.states));
            ui.label(format::count(d.solvable));
            ui.label(format::count(d.states - d.solvable));
            ui.label(format::number(Some(d.ratio())));
            ui.end_row();
        }
    });
}

/// A bar's hover label: its name, which carries its count with separators
/// (instead of the plotted log value).
fn bar_label(bar: &Bar, _: &BarChart) -> String {
    bar.name.clone()
}

fn feature_grid(ui: &mut egui::Ui, f: &Features) {
    egui::Grid::new("features").striped(true).show(ui, |ui| {
        for feature in Feature::ALL {
            ui.label(feature.column()).on_hover_text(feature.explain());
            ui.monospace(f.show(feature));
            ui.end_row();
        }
    });
}

/// Whether a step of the trace is drawn: a step that met an unsolvable
/// puzzle scores the penalty (or nothing finite) and is left out, since the
/// penalty (1000) would flatten the rest.
fn drawn(energy: f64, penalty: f64) -> bool {
    energy.is_finite() && energy != penalty
}

/// The runs of consecutive drawn steps, as ranges of steps: the trace is
/// drawn as one line a run, with gaps where steps were left out.
fn drawn_runs(trace: &[f64], penalty: f64) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let mut start = None;
    for (i, &e) in trace.iter().enumerate() {
        match (drawn(e, penalty), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                runs.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        runs.push(s..trace.len());
    }
    runs
}

/// The best energy so far after each step (the running minimum of the drawn
/// steps); `None` before the first drawn step. A left-out step keeps the
/// best before it.
fn best_so_far(trace: &[f64], penalty: f64) -> Vec<Option<f64>> {
    let mut best: Option<f64> = None;
    trace
        .iter()
        .map(|&e| {
            if drawn(e, penalty) {
                best = Some(best.map_or(e, |b| b.min(e)));
            }
            best
        })
        .collect()
}

/// The trace's log scale: y = log₁₀(1 + (energy − lowest) / unit), with
/// `lowest` the lowest drawn energy. Energies can be zero or negative
/// (E1–E3, a fitted energy), so log₁₀(energy) is undefined; measuring from
/// the lowest keeps every drawn energy at y ≥ 0 with the best at 0, and the
/// log spreads out the end of the descent, where the energy moves by little,
/// instead of letting the first steps' large drops flatten it. The `unit`
/// (a power of ten about a thousandth of the trace's range) makes the scale
/// logarithmic whatever the energies' size: E5's halfway ratios of 0.001
/// would otherwise sit where log₁₀(1 + x) is still a straight line. Ticks
/// are labelled in energy.
#[derive(Copy, Clone, Debug, PartialEq)]
struct LogScale {
    lowest: f64,
    unit: f64,
}

impl LogScale {
    /// The scale of a trace; `None` when no step is drawn.
    fn of(trace: &[f64], penalty: f64) -> Option<LogScale> {
        let drawn: Vec<f64> = trace
            .iter()
            .copied()
            .filter(|&e| drawn(e, penalty))
            .collect();
        let lowest = drawn.iter().copied().reduce(f64::min)?;
        let range = drawn.iter().copied().reduce(f64::max)? - lowest;
        let unit = if range > 0.0 {
            10f64.powi((range / 1000.0).log10().floor() as i32)
        } else {
            1.0
        };
        Some(LogScale { lowest, unit })
    }

    /// The plotted height of an energy.
    fn y(self, energy: f64) -> f64 {
        ((energy - self.lowest) / self.unit).ln_1p() / std::f64::consts::LN_10
    }

    /// The energy at a plotted height.
    fn energy(self, y: f64) -> f64 {
        self.lowest + self.unit * (y * std::f64::consts::LN_10).exp_m1()
    }
}

/// The heights above the lowest energy (in energy units) that get a tick on
/// the trace's axis, in order: 0 and 1, 2 and 5 times powers of ten up to the
/// top of `bounds` (plotted heights), each at least `min_gap` (plotted units)
/// from the others. Powers of ten are placed first, then the 5s, then the 2s,
/// so that where marks crowd the roundest ones stay.
fn height_marks(bounds: (f64, f64), min_gap: f64) -> Vec<f64> {
    let (lo, hi) = bounds;
    // NaN bounds or gap mark nothing.
    if hi.is_nan() || hi < 0.0 || min_gap.is_nan() || min_gap <= 0.0 {
        return Vec::new();
    }
    let top = hi.min(300.0); // 10^300 is as far as an f64 goes
    let k_top = (top * std::f64::consts::LN_10).exp_m1();
    let y = |k: f64| k.ln_1p() / std::f64::consts::LN_10;
    let mut kept = vec![0.0];
    if k_top > 0.0 {
        let e_hi = k_top.log10().floor() as i32;
        for m in [1.0, 5.0, 2.0] {
            for e in e_hi - 6..=e_hi {
                let k = m * 10f64.powi(e);
                if k <= k_top && kept.iter().all(|&o| (y(k) - y(o)).abs() >= min_gap) {
                    kept.push(k);
                }
            }
        }
    }
    kept.sort_by(f64::total_cmp);
    kept.retain(|&k| y(k) >= lo);
    kept
}

/// An energy for an axis label, rounded past the noise of the log and back.
fn energy_label(energy: f64) -> String {
    format::number(Some((energy * 1e9).round() / 1e9))
}

/// What one step of the trace was, for the hover label.
fn step_summary(step: usize, energy: f64, best: Option<f64>, penalty: f64) -> String {
    let head = format!("step {}", format::count(step as u64));
    if !drawn(energy, penalty) {
        return format!(
            "{head}\nunsolvable (penalty {})",
            format::number(Some(penalty))
        );
    }
    format!(
        "{head}\nenergy {}\nbest so far {}",
        format::number(Some(energy)),
        format::number(best)
    )
}

fn trace_plot(ui: &mut egui::Ui, trace: &[f64], penalty: f64) {
    let Some(scale) = LogScale::of(trace, penalty) else {
        ui.weak(if trace.is_empty() {
            "This candidate has no trace."
        } else {
            "Every step of this search met an unsolvable puzzle."
        });
        return;
    };
    let runs = drawn_runs(trace, penalty);
    let best = best_so_far(trace, penalty);
    let left_out = trace.len() - runs.iter().map(|r| r.len()).sum::<usize>();
    if left_out > 0 {
        ui.weak(format!(
            "{} unsolvable puzzles (the penalty): they are gaps in the line.",
            if left_out == 1 {
                "1 step met".to_string()
            } else {
                format!("{} steps met", format::count(left_out as u64))
            }
        ));
    }
    let point = |i: usize, e: f64| [i as f64, scale.y(e)];
    Plot::new("trace")
        .height(220.0)
        .legend(Legend::default())
        .x_axis_label("step")
        // Short, so that it fits along the plot's height.
        .y_axis_label(format!("energy (log, from {})", energy_label(scale.lowest)))
        .y_grid_spacer(|input: GridInput| {
            // Marks 32 points apart at least (the grid's base step is 8 points).
            let gap = 4.0 * input.base_step_size;
            height_marks(input.bounds, gap)
                .into_iter()
                .map(|k| GridMark {
                    value: k.ln_1p() / std::f64::consts::LN_10,
                    step_size: gap,
                })
                .collect()
        })
        // One form for every label, chosen from the energies in view.
        .y_axis_formatter(move |mark, range| {
            let highest = scale.energy(*range.end());
            AxisFormat::of(scale.lowest, highest, scale.unit).write(scale.energy(mark.value))
        })
        .allow_scroll(false)
        .include_y(0.0)
        .label_formatter(|pos: &HoverPosition<'_>| {
            let x = match pos {
                HoverPosition::NearDataPoint { position, .. }
                | HoverPosition::Elsewhere { position } => position.x,
            };
            let step = usize::try_from(x.round() as i64).ok()?;
            Some(step_summary(step, *trace.get(step)?, best[step], penalty))
        })
        .show(ui, |plot| {
            for r in runs {
                let points: Vec<[f64; 2]> = r.clone().map(|i| point(i, trace[i])).collect();
                // One line a run, all under one name and colour.
                if points.len() == 1 {
                    plot.points(
                        Points::new("energy", points)
                            .id(("energy", r.start))
                            .color(ENERGY)
                            .radius(2.0),
                    );
                } else {
                    plot.line(
                        Line::new("energy", points)
                            .id(("energy", r.start))
                            .color(ENERGY),
                    );
                }
            }
            let best: Vec<[f64; 2]> = best
                .iter()
                .enumerate()
                .filter_map(|(i, b)| Some(point(i, (*b)?)))
                .collect();
            plot.line(Line::new("best so far", best).color(BEST));
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: f64 = 1000.0;

    #[test]
    fn left_out_steps_split_the_trace_into_runs() {
        let trace = [5.0, 3.0, P, P, 4.0, 1.0];
        assert_eq!(drawn_runs(&trace, P), [0..2, 4..6]);
        // Non-finite steps are left out too; a lone step is a run of one.
        let trace = [P, 2.0, f64::NAN, 7.0, 6.0, f64::INFINITY, 8.0];
        assert_eq!(drawn_runs(&trace, P), [1..2, 3..5, 6..7]);
        assert_eq!(drawn_runs(&[P, P], P), Vec::<Range<usize>>::new());
        assert_eq!(drawn_runs(&[], P), Vec::<Range<usize>>::new());
        // Another energy's penalty: 1000 is an energy like any other there.
        assert_eq!(drawn_runs(&[1000.0, 50.0], 50.0), vec![0..1]);
    }

    #[test]
    fn the_best_so_far_is_the_running_minimum_of_the_drawn_steps() {
        let trace = [5.0, 3.0, P, P, 4.0, 1.0];
        let best: Vec<Option<f64>> = [5.0, 3.0, 3.0, 3.0, 3.0, 1.0].map(Some).to_vec();
        assert_eq!(best_so_far(&trace, P), best);
        assert_eq!(
            best_so_far(&[P, f64::NAN, -2.0, 0.5, -7.5], P),
            [None, None, Some(-2.0), Some(-2.0), Some(-7.5)]
        );
    }

    #[test]
    fn the_log_scale_measures_from_the_lowest_drawn_energy() {
        let s = LogScale::of(&[-10.0, P, -20.0, 79.0, f64::NEG_INFINITY], P).unwrap();
        // A range of 99: the unit is the power of ten below 0.099.
        assert_eq!(
            s,
            LogScale {
                lowest: -20.0,
                unit: 0.01
            }
        );
        assert_eq!(s.y(-20.0), 0.0);
        assert!((s.y(-19.91) - 1.0).abs() < 1e-9, "9 units above: log10(10)");
        assert!(
            (s.y(-19.01) - 2.0).abs() < 1e-9,
            "99 units above: log10(100)"
        );
        // E5's small energies get the same spread as large ones.
        let small = LogScale::of(&[0.3, 0.0015, 0.02], P).unwrap();
        assert_eq!(small.unit, 1e-4);
        assert!(small.y(0.0025) > 1.0 && small.y(0.3) < 3.5);
        for e in [-20.0, -19.5, -11.0, 0.0, 79.0, 5000.0] {
            assert!((s.energy(s.y(e)) - e).abs() < 1e-9, "{e} round trips");
        }
        assert_eq!(LogScale::of(&[P, f64::NAN], P), None);
        assert_eq!(LogScale::of(&[], P), None);
    }

    #[test]
    fn height_marks_follow_one_two_five_and_thin_out_where_crowded() {
        // Up to 999 above the lowest, marks a quarter of a decade apart at least.
        assert_eq!(
            height_marks((0.0, 3.0), 0.25),
            [0.0, 1.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0]
        );
        // A tighter gap keeps 2 too (and 1 rather than 0.5); a wider one
        // keeps a mark a decade.
        assert_eq!(
            height_marks((0.0, 2.0), 0.15),
            [0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
        );
        assert_eq!(height_marks((0.0, 3.0), 0.9), [0.0, 10.0, 100.0]);
        // Only marks in view.
        assert_eq!(height_marks((1.5, 3.0), 0.25), [50.0, 100.0, 200.0, 500.0]);
        assert_eq!(height_marks((-1.0, -0.5), 0.25), Vec::<f64>::new());
        assert_eq!(height_marks((0.0, 3.0), 0.0), Vec::<f64>::new());
    }

    #[test]
    fn axis_energies_are_rounded_past_the_log_noise() {
        let s = LogScale {
            lowest: -20.0,
            unit: 1.0,
        };
        let y = 6.0f64.ln_1p() / std::f64::consts::LN_10;
        assert_eq!(energy_label(s.energy(y)), "-14");
        assert_eq!(energy_label(0.1123), "0.1123");
    }

    #[test]
    fn every_depth_has_a_mark_and_a_whole_label() {
        let marks = depth_marks((-0.7, 15.6), 15);
        let values: Vec<f64> = marks.iter().map(|m| m.value).collect();
        assert_eq!(values, (0..=15).map(f64::from).collect::<Vec<_>>());
        assert!(marks.iter().all(|m| m.step_size == 1.0));
        // Only depths that exist, only those in view.
        let values: Vec<f64> = depth_marks((2.2, 40.0), 5)
            .iter()
            .map(|m| m.value)
            .collect();
        assert_eq!(values, [3.0, 4.0, 5.0]);
        assert!(depth_marks((3.2, 3.8), 15).is_empty());
        assert!(depth_marks((f64::NAN, 3.0), 15).is_empty());
        let mark = |value| GridMark {
            value,
            step_size: 1.0,
        };
        assert_eq!(depth_label(mark(7.0), &(0.0..=15.0)), "7");
        assert_eq!(depth_label(mark(7.5), &(0.0..=15.0)), "");
    }

    #[test]
    fn progress_reads_as_depths_and_separated_counts() {
        // 16 stacks: depths 0 to 15, 31 reports in all.
        let forward = Progress {
            done: 7,
            of: 31,
            states: 1_234_567,
        };
        let (text, fraction) = progress_text(&forward);
        assert_eq!(text, "Counting states: depth 7 of 15 · 1,234,567 states");
        assert_eq!(fraction, 7.0 / 31.0);
        // Backward, the report for depth 3 is 31 − 3 = 28.
        let backward = Progress {
            done: 28,
            of: 31,
            states: 11_754_991,
        };
        let (text, fraction) = progress_text(&backward);
        assert_eq!(
            text,
            "Finding the solvable states, working back: depth 3 · 11,754,991 states"
        );
        assert_eq!(fraction, 28.0 / 31.0);
        let (_, fraction) = progress_text(&Progress {
            done: 0,
            of: 0,
            states: 0,
        });
        assert_eq!(fraction, 0.0);
    }

    #[test]
    fn a_depth_and_a_step_read_with_separators() {
        let d = DepthCount {
            depth: 8,
            states: 11_754_991,
            solvable: 1_234,
            tension: None,
        };
        assert_eq!(
            depth_summary(&d),
            "depth 8\n11,754,991 states\n1,234 solvable\n11,753,757 unsolvable"
        );
        assert_eq!(
            step_summary(1_500, -12.5, Some(-15.0), P),
            "step 1,500\nenergy -12.5000\nbest so far -15"
        );
        assert_eq!(
            step_summary(3, P, Some(-15.0), P),
            "step 3\nunsolvable (penalty 1000)"
        );
    }
}
