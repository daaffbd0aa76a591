//! The Generate panel: the search settings, Start and Stop, a progress line
//! per worker, and the candidate queue. Generation is a core batch session
//! in arrival order: candidates are stored under `puzzles/` the moment they
//! arrive, so stopping or crashing loses nothing that arrived.

use super::energies::EnergiesPanel;
use super::{BoafApp, Tab};
use boaf_core::engine::features::Features;
use boaf_core::engine::limits::WORKER_CAP;
use boaf_core::folder::Folder;
use boaf_core::format;
use boaf_core::generator::batch::{Batch, Event, Order};
use boaf_core::generator::pipeline::{Candidate, Job};
use boaf_core::generator::search::{HalfwayMode, MAX_ITERATIONS, SearchParams, paper_iterations};
use boaf_core::generator::store::PuzzleStore;
use eframe::egui;
use std::sync::Arc;

/// What a poll of the generation tells the app.
pub(super) enum Arrival {
    /// A new candidate, already stored.
    Candidate(Box<Candidate>),
    /// Something to say.
    Note(String),
    /// Something that went wrong.
    Error(String),
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
    halfway_mode: HalfwayMode,
    /// The generation under way.
    batch: Option<Batch>,
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
            halfway_mode: HalfwayMode::for_cards(8),
            batch: None,
            sort: "arrival".into(),
            descending: false,
        };
        panel.energies_changed(energies);
        panel
    }

    pub(super) fn set(&mut self, n: usize, count: usize, seed: u64, workers: usize) {
        self.n = n.clamp(4, 16);
        self.iterations = paper_iterations(self.n);
        self.halfway_mode = HalfwayMode::for_cards(self.n);
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
        self.batch.is_some()
    }

    /// The queue's display order: indices into `queue`.
    pub(super) fn order(&self, queue: &[Candidate]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..queue.len()).collect();
        if self.sort != "arrival" {
            order.sort_by(|&a, &b| {
                Candidate::compare_by(&queue[a], &queue[b], &self.sort, self.descending)
            });
        } else if self.descending {
            order.reverse();
        }
        order
    }

    fn start(
        &mut self,
        folder: &Folder,
        energies: &EnergiesPanel,
        ctx: &egui::Context,
    ) -> Result<String, String> {
        let energy = energies
            .book()
            .get(&self.energy)
            .ok_or_else(|| format!("no energy named '{}'", self.energy))?
            .clone();
        let file = folder.store_file(self.n, &energy.name);
        let (store, skipped) =
            PuzzleStore::open(&file).map_err(|e| format!("{}: {e}", folder.show(&file)))?;
        let params = SearchParams {
            iterations: self.iterations,
            swap_in: self.swap_in,
            uphill: self.uphill,
            halfway_mode: self.halfway_mode,
            ..SearchParams::paper(self.n)
        };
        let job = Job {
            n: self.n,
            energy,
            seed: self.seed,
            params,
            indices: 0..self.count,
            memory_cap: WORKER_CAP,
        };
        let ctx = ctx.clone();
        self.batch = Some(Batch::start(
            job,
            self.workers,
            Some(store),
            Order::Arrival,
            Some(Arc::new(move || ctx.request_repaint())),
        ));
        let note = format!(
            "Generating {} puzzles of {} cards with seed {} into {}{}",
            self.count,
            self.n,
            self.seed,
            folder.show(&file),
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

    /// Takes what the generation made since the last frame, without waiting.
    pub(super) fn poll(&mut self, folder: &Folder) -> Vec<Arrival> {
        let Some(batch) = &mut self.batch else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for e in batch.poll() {
            match e {
                Event::Candidate(c) => out.push(Arrival::Candidate(c)),
                Event::Unstored { message, .. } => out.push(Arrival::Error(message)),
                Event::Failed { index, message } => {
                    out.push(Arrival::Error(format!("puzzle {index} failed: {message}")));
                }
                Event::Finished(summary) => {
                    out.push(Arrival::Note(summary.text(|p| folder.show(p))));
                    self.batch = None;
                    break;
                }
                Event::Progress { .. } | Event::Duplicate { .. } => {}
            }
        }
        out
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
                        g.halfway_mode = HalfwayMode::for_cards(g.n);
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
                    ui.add(egui::DragValue::new(&mut g.iterations).range(1..=MAX_ITERATIONS))
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
                        .selected_text(g.halfway_mode.name())
                        .show_ui(ui, |ui| {
                            for mode in HalfwayMode::ALL {
                                ui.selectable_value(&mut g.halfway_mode, mode, mode.name());
                            }
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
                    match self.generate.start(&self.folder, &self.energies, &ctx) {
                        Ok(note) => self.say(note),
                        Err(e) => self.say_error(e),
                    }
                }
            } else if ui.button("Stop").clicked()
                && let Some(batch) = &self.generate.batch
            {
                batch.cancel();
                self.say("Stopping…");
            }
        });
        if let Some(batch) = &self.generate.batch {
            let so_far = batch.summary();
            ui.label(format!(
                "{} of {} candidates, {:.0} s",
                so_far.new, so_far.count, so_far.seconds
            ));
            for (w, line) in batch.workers().iter().enumerate() {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.monospace(match line {
                        Some(l) => format!(
                            "worker {}: puzzle {:>3}, step {:>6} of {:>6}, best energy {}",
                            w + 1,
                            l.index + 1,
                            l.iteration,
                            l.of,
                            format::number(Some(l.best))
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
                    ui.label(format::number(Some(c.energy)));
                    for (f, _) in COLUMNS {
                        ui.label(format::number(c.features.value(f)));
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
