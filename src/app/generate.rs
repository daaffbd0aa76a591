//! The Generate panel: the search settings, Start and Stop, a progress line
//! per worker, and the candidate queue. Candidates are stored under
//! `puzzles/` the moment they arrive, so stopping or crashing loses nothing
//! that arrived.

use super::energies::EnergiesPanel;
use super::{BoafApp, Paths, Tab};
use crate::features::Features;
use crate::generator::{Candidate, Generator, Job, Message};
use crate::search::{HalfwayMode, SearchParams, paper_iterations};
use crate::store::{PuzzleStore, read_store};
use crossbeam_channel::TryRecvError;
use eframe::egui;
use std::sync::Arc;
use std::time::Instant;

/// What a poll of the generator tells the app.
pub(super) enum Event {
    /// A new candidate, already stored.
    Arrived(Box<Candidate>),
    /// Something to say.
    Note(String),
    /// Something that went wrong.
    Error(String),
}

/// A worker's latest progress.
#[derive(Clone, Copy)]
struct WorkerLine {
    index: usize,
    iteration: usize,
    of: usize,
    best: f64,
}

/// A generation under way.
struct Run {
    generator: Generator,
    store: PuzzleStore,
    workers: Vec<Option<WorkerLine>>,
    count: usize,
    made: usize,
    duplicates: usize,
    started: Instant,
}

/// The Generate panel's settings and its run.
pub(super) struct GeneratePanel {
    n: usize,
    energy: String,
    workers: usize,
    seed: u64,
    count: usize,
    iterations: usize,
    swap_in: f64,
    uphill: f64,
    halfway: HalfwayMode,
    run: Option<Run>,
    /// `arrival`, `energy` or a feature name.
    sort: String,
    descending: bool,
}

/// Main features shown as queue columns: (feature, heading).
const COLUMNS: [(&str, &str); 6] = [
    ("halfway_ratio", "halfway"),
    ("depth1_ratio", "depth 1"),
    ("dominant_suit_ratio", "dom. suit"),
    ("rank_clusters", "clusters"),
    ("avg_flockability", "flock."),
    ("midgame_tension", "tension"),
];

impl GeneratePanel {
    pub(super) fn new(energies: &EnergiesPanel) -> GeneratePanel {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut panel = GeneratePanel {
            n: 8,
            energy: "E5".into(),
            workers,
            seed: 1,
            count: 10,
            iterations: paper_iterations(8),
            swap_in: 0.3,
            uphill: 0.005,
            halfway: HalfwayMode::for_cards(8),
            run: None,
            sort: "arrival".into(),
            descending: false,
        };
        panel.energies_changed(energies);
        panel
    }

    pub(super) fn set(&mut self, n: usize, count: usize, seed: u64, workers: usize) {
        self.n = n.clamp(4, 16);
        self.iterations = paper_iterations(self.n);
        self.halfway = HalfwayMode::for_cards(self.n);
        self.count = count.max(1);
        self.seed = seed;
        self.workers = workers.max(1);
    }

    /// Keeps the chosen energy valid after the energies changed.
    pub(super) fn energies_changed(&mut self, energies: &EnergiesPanel) {
        let book = energies.book();
        if book.get(&self.energy).is_none() {
            self.energy = book
                .get("E5")
                .or(book.energies().first())
                .map_or_else(String::new, |e| e.name.clone());
        }
    }

    /// Chooses the energy by name (after "Use as energy").
    pub(super) fn choose_energy(&mut self, name: &str) {
        self.energy = name.to_string();
    }

    pub(super) fn is_running(&self) -> bool {
        self.run.is_some()
    }

    /// The queue's display order: indices into `queue`.
    pub(super) fn order(&self, queue: &[Candidate]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..queue.len()).collect();
        let key = |c: &Candidate| match self.sort.as_str() {
            "arrival" => None,
            "energy" => Some(c.energy),
            f => c.features.value(f),
        };
        if self.sort != "arrival" {
            // Missing values go last either way.
            order.sort_by(|&a, &b| match (key(&queue[a]), key(&queue[b])) {
                (Some(x), Some(y)) if self.descending => y.total_cmp(&x),
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            });
        } else if self.descending {
            order.reverse();
        }
        order
    }

    fn start(
        &mut self,
        paths: &Paths,
        energies: &EnergiesPanel,
        ctx: &egui::Context,
    ) -> Result<String, String> {
        let energy = energies
            .book()
            .get(&self.energy)
            .ok_or_else(|| format!("no energy named '{}'", self.energy))?
            .clone();
        let file = paths
            .puzzles()
            .join(format!("n{}-{}.jsonl", self.n, energy.name));
        let (store, skipped) =
            PuzzleStore::open(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let params = SearchParams {
            iterations: self.iterations,
            swap_in: self.swap_in,
            uphill: self.uphill,
            halfway: self.halfway,
            ..SearchParams::paper(self.n)
        };
        let job = Job {
            n: self.n,
            energy,
            seed: self.seed,
            params,
            indices: 0..self.count,
            memory_cap: 6 << 30,
        };
        let ctx = ctx.clone();
        let generator = Generator::start(
            job,
            self.workers,
            Some(Arc::new(move || ctx.request_repaint())),
        );
        self.run = Some(Run {
            generator,
            store,
            workers: vec![None; self.workers.max(1)],
            count: self.count,
            made: 0,
            duplicates: 0,
            started: Instant::now(),
        });
        let note = format!(
            "Generating {} puzzles of {} cards with seed {} into {}{}",
            self.count,
            self.n,
            self.seed,
            paths.show(&file),
            if skipped.is_empty() {
                String::new()
            } else {
                format!(" ({} bad lines skipped)", skipped.len())
            }
        );
        // The next run gets new puzzles unless the seed is set again.
        self.seed = self.seed.wrapping_add(1);
        Ok(note)
    }

    /// Drains the generator's channel without waiting.
    pub(super) fn poll(&mut self, _paths: &Paths) -> Vec<Event> {
        let mut events = Vec::new();
        let Some(run) = &mut self.run else {
            return events;
        };
        let mut finished = None;
        // A bounded drain keeps a frame short even when messages pile up.
        for _ in 0..4096 {
            match run.generator.messages().try_recv() {
                Ok(Message::Progress {
                    worker,
                    index,
                    iteration,
                    of,
                    best,
                    ..
                }) => {
                    if let Some(line) = run.workers.get_mut(worker) {
                        *line = Some(WorkerLine {
                            index,
                            iteration,
                            of,
                            best,
                        });
                    }
                }
                Ok(Message::Candidate(c)) => match run.store.add(&c) {
                    Ok(true) => {
                        run.made += 1;
                        events.push(Event::Arrived(c));
                    }
                    Ok(false) => run.duplicates += 1,
                    Err(e) => events.push(Event::Error(format!(
                        "could not store a candidate in {}: {e}",
                        run.store.path().display()
                    ))),
                },
                Ok(Message::Error { index, message }) => {
                    events.push(Event::Error(format!("puzzle {index} failed: {message}")));
                }
                Ok(Message::Finished { cancelled, .. }) => {
                    finished = Some(cancelled);
                    break;
                }
                Err(TryRecvError::Empty) => break,
                // The workers are gone: finished, even if their last word was lost.
                Err(TryRecvError::Disconnected) => {
                    finished = Some(run.generator.is_cancelled());
                    break;
                }
            }
        }
        if let Some(cancelled) = finished {
            let run = self.run.take().expect("checked above");
            let what = if cancelled { "Stopped" } else { "Finished" };
            let dups = match run.duplicates {
                0 => String::new(),
                d => format!(", {d} duplicates dropped"),
            };
            events.push(Event::Note(format!(
                "{what}: {} of {} candidates in {:.1} s{dups}.",
                run.made,
                run.count,
                run.started.elapsed().as_secs_f64()
            )));
        }
        events
    }
}

/// Loads every candidate stored under `puzzles/`, oldest file first, with a
/// note per file that had bad lines.
pub(super) fn load_queue(paths: &Paths) -> (Vec<Candidate>, Vec<String>) {
    let mut files: Vec<_> = std::fs::read_dir(paths.puzzles())
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect()
        })
        .unwrap_or_default();
    files.sort_by_key(|p| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .ok()
            .zip(Some(p.clone()))
    });
    let (mut all, mut notes) = (Vec::new(), Vec::new());
    for f in files {
        match read_store(&f) {
            Ok((cands, skipped)) => {
                if let Some(s) = skipped.first() {
                    notes.push(format!("{}: {s}", paths.show(&f)));
                }
                all.extend(cands);
            }
            Err(e) => notes.push(format!("{}: {e}", paths.show(&f))),
        }
    }
    (all, notes)
}

pub(super) fn format_value(v: Option<f64>) -> String {
    match v {
        Some(v) if v.fract() == 0.0 && v.abs() < 1e6 => format!("{v}"),
        Some(v) if v != 0.0 && v.abs() < 0.001 => format!("{v:.2e}"),
        Some(v) => format!("{v:.4}"),
        None => "—".into(),
    }
}

impl BoafApp {
    pub(super) fn generate_ui(&mut self, ui: &mut egui::Ui) {
        let running = self.generate.is_running();
        let g = &mut self.generate;
        ui.heading("Generate");
        ui.add_enabled_ui(!running, |ui| {
            egui::Grid::new("generate-settings")
                .num_columns(4)
                .spacing([16.0, 6.0])
                .show(ui, |ui| {
                    let l = ui.label("Cards (n)");
                    let before = g.n;
                    ui.add(egui::Slider::new(&mut g.n, 4..=16))
                        .labelled_by(l.id);
                    if g.n != before {
                        // New n: the paper's budget and halfway mode for it.
                        g.iterations = paper_iterations(g.n);
                        g.halfway = HalfwayMode::for_cards(g.n);
                    }
                    let l = ui.label("Energy");
                    egui::ComboBox::from_id_salt("energy")
                        .selected_text(&g.energy)
                        .show_ui(ui, |ui| {
                            for e in self.energies.book().energies() {
                                ui.selectable_value(&mut g.energy, e.name.clone(), &e.name)
                                    .on_hover_text(format!("{}\n{}", e.about, e.value_text()));
                            }
                        })
                        .response
                        .labelled_by(l.id);
                    ui.end_row();
                    let l = ui.label("Puzzles");
                    ui.add(egui::DragValue::new(&mut g.count).range(1..=10_000))
                        .labelled_by(l.id);
                    let l = ui.label("Workers");
                    ui.add(egui::DragValue::new(&mut g.workers).range(1..=64))
                        .labelled_by(l.id);
                    ui.end_row();
                    let l = ui.label("Seed");
                    ui.add(egui::DragValue::new(&mut g.seed)).labelled_by(l.id);
                    let l = ui.label("Steps per puzzle");
                    ui.add(
                        egui::DragValue::new(&mut g.iterations)
                            .range(1..=crate::search::MAX_ITERATIONS),
                    )
                    .labelled_by(l.id);
                    ui.end_row();
                    let l = ui.label("Swap-in probability");
                    ui.add(
                        egui::DragValue::new(&mut g.swap_in)
                            .range(0.0..=1.0)
                            .speed(0.01),
                    )
                    .labelled_by(l.id);
                    let l = ui.label("Uphill probability");
                    ui.add(
                        egui::DragValue::new(&mut g.uphill)
                            .range(0.0..=1.0)
                            .speed(0.001),
                    )
                    .labelled_by(l.id);
                    ui.end_row();
                    let l = ui.label("Halfway ratio");
                    egui::ComboBox::from_id_salt("halfway")
                        .selected_text(format!("{:?}", g.halfway).to_lowercase())
                        .show_ui(ui, |ui| {
                            ui.selectable_value(&mut g.halfway, HalfwayMode::Exact, "exact");
                            ui.selectable_value(&mut g.halfway, HalfwayMode::Estimate, "estimate");
                            ui.selectable_value(&mut g.halfway, HalfwayMode::Confirm, "confirm");
                        })
                        .response
                        .labelled_by(l.id);
                    ui.end_row();
                });
        });
        ui.horizontal(|ui| {
            if !running {
                if ui.button("Start").clicked() {
                    let ctx = ui.ctx().clone();
                    match self.generate.start(&self.paths, &self.energies, &ctx) {
                        Ok(note) => self.say(note),
                        Err(e) => self.say_error(e),
                    }
                }
            } else if ui.button("Stop").clicked()
                && let Some(run) = &self.generate.run
            {
                run.generator.cancel();
                self.say("Stopping…");
            }
        });
        if let Some(run) = &self.generate.run {
            ui.label(format!(
                "{} of {} candidates, {:.0} s",
                run.made,
                run.count,
                run.started.elapsed().as_secs_f64()
            ));
            for (w, line) in run.workers.iter().enumerate() {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.monospace(match line {
                        Some(l) => format!(
                            "worker {}: puzzle {:>3}, step {:>6} of {:>6}, best energy {}",
                            w + 1,
                            l.index + 1,
                            l.iteration,
                            l.of,
                            format_value(Some(l.best))
                        ),
                        None => format!("worker {}: starting", w + 1),
                    });
                });
            }
        }
        ui.separator();
        self.queue_ui(ui);
    }

    fn queue_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.strong(format!("Candidates ({})", self.queue.len()));
            let l = ui.label("sorted by");
            let g = &mut self.generate;
            egui::ComboBox::from_id_salt("sort")
                .selected_text(&g.sort)
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut g.sort, "arrival".into(), "arrival");
                    ui.selectable_value(&mut g.sort, "energy".into(), "energy");
                    for f in Features::NAMES {
                        ui.selectable_value(&mut g.sort, f.to_string(), f);
                    }
                })
                .response
                .labelled_by(l.id);
            ui.checkbox(&mut g.descending, "descending");
        });
        let order = self.generate.order(&self.queue);
        let mut open = None;
        egui::Grid::new("queue")
            .striped(true)
            .num_columns(5 + COLUMNS.len())
            .show(ui, |ui| {
                ui.strong("");
                ui.strong("#");
                ui.strong("n");
                ui.strong("energy");
                ui.strong("value");
                for (_, heading) in COLUMNS {
                    ui.strong(heading);
                }
                ui.end_row();
                for &i in &order {
                    let c = &self.queue[i];
                    let label = if self.current == Some(i) {
                        "▶ playing"
                    } else {
                        "Play"
                    };
                    if ui.button(label).on_hover_text(&c.puzzle).clicked() {
                        open = Some(i);
                    }
                    ui.monospace(format!("#{}", i + 1));
                    ui.label(c.n.to_string());
                    ui.label(&c.energy_name).on_hover_text(&c.energy_id);
                    ui.label(format_value(Some(c.energy)));
                    for (f, _) in COLUMNS {
                        ui.label(format_value(c.features.value(f)));
                    }
                    ui.end_row();
                }
            });
        if let Some(i) = open {
            self.open(i);
            self.tab = Tab::Play;
        }
    }
}
