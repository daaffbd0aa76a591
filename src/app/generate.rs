//! The Generate panel: the search settings, Start and Stop, a progress line
//! per worker (what it is doing: "descent step 37 of 50", "exact analysis 2
//! of 3"), and the candidate queue, with the rated ones and the games in
//! progress marked. Generation is a core batch session in arrival order:
//! candidates are stored under `puzzles/` the moment they arrive, so
//! stopping or crashing loses nothing that arrived.
//!
//! The seed offered is the next unused one for the chosen cards and energy:
//! one past the highest batch seed in their store. It is derived from the
//! stores rather than kept in a file of its own because the stores are what
//! a repeated seed would collide with, so the two cannot disagree: a store
//! written by `boaf generate` or copied in brings its seeds along, a deleted
//! one frees them, and nothing more is written that could go stale. The
//! stores are read once at startup (the queue), then followed as
//! candidates arrive, so choosing cards or an energy reads no file.

use super::energies::EnergiesPanel;
use super::{BoafApp, Tab};
use boaf_core::engine::feature::Feature;
use boaf_core::engine::limits::WORKER_CAP;
use boaf_core::folder::Folder;
use boaf_core::format;
use boaf_core::generator::batch::{Batch, Event, Order};
use boaf_core::generator::descent::{
    DEFAULT_ENERGY, DIFFICULTY_HELP, HALFWAY_HELP, HalfwayMode, MAX_ITERATIONS, STEPS_HELP,
    SWAP_IN_HELP, SearchParams, UPHILL_HELP, default_iterations,
};
use boaf_core::generator::pipeline::{Candidate, Job, SortKey, Source};
use boaf_core::generator::store::PuzzleStore;
use boaf_core::study::ratings::read_ratings;
use eframe::egui;
use std::collections::{HashMap, HashSet};
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
    /// Whether each finished candidate gets the agents' difficulty features.
    difficulty: bool,
    /// The generation under way.
    batch: Option<Batch>,
    /// The sort key (`None`: by arrival).
    sort: Option<SortKey>,
    descending: bool,
    /// One past the highest batch seed stored, by cards and energy name.
    next_seeds: HashMap<(usize, String), u64>,
    /// The puzzles rated (their compact notation), marked in the queue.
    rated: HashSet<String>,
    /// Whether the queue, and the next candidate opened, leave out rated ones.
    only_unrated: bool,
}

/// Main features shown as queue columns, headed by their labels.
const COLUMNS: [Feature; 7] = [
    Feature::HalfwayRatio,
    Feature::Depth1Ratio,
    Feature::DominantSuitRatio,
    Feature::RankClusters,
    Feature::AvgFlockability,
    Feature::MidgameTension,
    Feature::MctsBudget,
];

/// The puzzles rated in the folder's ratings file (none when it is missing
/// or cannot be read: the marks are a convenience).
pub(super) fn rated_puzzles(folder: &Folder) -> HashSet<String> {
    read_ratings(&folder.ratings())
        .map(|table| {
            (0..table.rows.len())
                .filter_map(|row| table.text(row, "puzzle").map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

impl GeneratePanel {
    /// The panel, with the seeds of the candidates already stored (`stored`)
    /// noted, so that the seed offered is unused.
    pub(super) fn new(energies: &EnergiesPanel, stored: &[Candidate]) -> GeneratePanel {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        let n = 8;
        // The core's defaults, as `boaf generate` has them.
        let defaults = SearchParams::for_cards(n);
        let mut panel = GeneratePanel {
            n,
            energy: DEFAULT_ENERGY.into(),
            workers,
            seed: 1,
            count: 10,
            iterations: defaults.iterations,
            swap_in: defaults.swap_in,
            uphill: defaults.uphill,
            halfway_mode: defaults.halfway_mode,
            difficulty: true,
            batch: None,
            sort: None,
            descending: false,
            next_seeds: HashMap::new(),
            rated: HashSet::new(),
            only_unrated: false,
        };
        for c in stored {
            panel.note_seed(c.n, c.energy_name.clone(), c.seed);
        }
        panel.energies_changed(energies);
        panel.seed = panel.next_seed();
        panel
    }

    /// Notes that a batch seed has puzzles of n cards under an energy stored.
    fn note_seed(&mut self, n: usize, energy: String, seed: u64) {
        let next = seed.saturating_add(1);
        let known = self.next_seeds.entry((n, energy)).or_insert(next);
        *known = (*known).max(next);
    }

    /// The next unused seed for the chosen cards and energy.
    fn next_seed(&self) -> u64 {
        self.next_seeds
            .get(&(self.n, self.energy.clone()))
            .copied()
            .unwrap_or(1)
    }

    /// The seed shown: the run's while one runs, else the one Start will use.
    pub(super) fn seed(&self) -> u64 {
        self.seed
    }

    /// Sets the puzzles rated (the app calls it at startup and after each
    /// saved rating), for the queue's marks and its "Only unrated" filter.
    pub(super) fn set_rated(&mut self, rated: HashSet<String>) {
        self.rated = rated;
    }

    /// Notes one more rated puzzle (after a save; no need to read the file again).
    pub(super) fn mark_rated(&mut self, puzzle: &str) {
        self.rated.insert(puzzle.to_string());
    }

    /// Whether this puzzle was rated.
    fn is_rated(&self, c: &Candidate) -> bool {
        self.rated.contains(&c.puzzle)
    }

    pub(super) fn set(&mut self, n: usize, count: usize, seed: u64, workers: usize) {
        self.n = n.clamp(4, 16);
        self.iterations = default_iterations(self.n);
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
                .get(DEFAULT_ENERGY)
                .or(book.energies().first())
                .map_or_else(String::new, |e| e.name.clone());
            if !self.is_running() {
                self.seed = self.next_seed();
            }
        }
    }

    /// Chooses the energy by name (after "Use as energy").
    pub(super) fn choose_energy(&mut self, name: &str) {
        self.energy = name.to_string();
        if !self.is_running() {
            self.seed = self.next_seed();
        }
    }

    /// The energy chosen by name (entered puzzles are valued by it too).
    pub(super) fn energy(&self) -> &str {
        &self.energy
    }

    /// Whether candidates get the agents' difficulty features.
    pub(super) fn difficulty(&self) -> bool {
        self.difficulty
    }

    pub(super) fn is_running(&self) -> bool {
        self.batch.is_some()
    }

    /// The queue's display order: indices into `queue`, without the rated
    /// candidates when "Only unrated" is on (the next one opened after a
    /// rating follows it too).
    pub(super) fn order(&self, queue: &[Candidate]) -> Vec<usize> {
        let mut order = self.sorted(queue);
        order.retain(|&i| self.shown(&queue[i]));
        order
    }

    /// Whether the queue shows this candidate ("Only unrated" hides the rated).
    pub(super) fn shown(&self, c: &Candidate) -> bool {
        !(self.only_unrated && self.is_rated(c))
    }

    /// Every candidate, in the queue's sort order (the filter aside).
    pub(super) fn sorted(&self, queue: &[Candidate]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..queue.len()).collect();
        if let Some(key) = self.sort {
            order.sort_by(|&a, &b| {
                Candidate::compare_by(&queue[a], &queue[b], key, self.descending)
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
            difficulty: self.difficulty,
            ..SearchParams::for_cards(self.n)
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
            "Generating {} of {} cards with seed {} into {}{}",
            format::plural(self.count, "puzzle"),
            self.n,
            self.seed,
            folder.show(&file),
            if skipped.is_empty() {
                String::new()
            } else {
                format!(" ({} bad lines skipped)", skipped.len())
            }
        );
        // The seed stays as it is while the run uses it; it moves on when
        // the run is over.
        Ok(note)
    }

    /// Takes what the generation made since the last frame, without waiting.
    pub(super) fn poll(&mut self, folder: &Folder) -> Vec<Arrival> {
        let Some(batch) = &mut self.batch else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut stored = Vec::new();
        let mut finished = None;
        for e in batch.poll() {
            match e {
                Event::Candidate(c) => {
                    stored.push((c.n, c.energy_name.clone(), c.seed));
                    out.push(Arrival::Candidate(c));
                }
                Event::Unstored { message, .. } => out.push(Arrival::Error(message)),
                Event::Failed { index, message } => {
                    out.push(Arrival::Error(format!("puzzle {index} failed: {message}")));
                }
                Event::Finished(summary) => {
                    out.push(Arrival::Note(summary.text(|p| folder.show(p))));
                    finished = Some(summary);
                    break;
                }
                Event::Progress { .. } | Event::Duplicate { .. } => {}
            }
        }
        for (n, energy, seed) in stored {
            self.note_seed(n, energy, seed);
        }
        if let Some(summary) = finished {
            self.batch = None;
            // On to the next unused seed, and past the run's own even when
            // it stored nothing new (all duplicates); a run stopped before
            // it made anything keeps its seed.
            if !summary.cancelled || summary.new + summary.duplicates > 0 {
                self.seed = self.next_seed().max(summary.seed.saturating_add(1));
            }
        }
        out
    }
}

/// A search setting's label, which says what the setting does when hovered.
fn setting(ui: &mut egui::Ui, label: &str, help: &str) -> egui::Response {
    ui.label(label).on_hover_text(help)
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
                        // New n: the default budget and halfway mode for it,
                        // and the next seed unused in its store.
                        g.iterations = default_iterations(g.n);
                        g.halfway_mode = HalfwayMode::for_cards(g.n);
                        g.seed = g.next_seed();
                    }
                    let l = ui.label("Energy");
                    let energy_before = g.energy.clone();
                    egui::ComboBox::from_id_salt("energy")
                        .selected_text(&g.energy)
                        .show_ui(ui, |ui| {
                            for e in self.energies.book().energies() {
                                ui.selectable_value(&mut g.energy, e.name.clone(), &e.name)
                                    .on_hover_text(e.explain());
                            }
                        })
                        .response
                        .labelled_by(l.id);
                    if g.energy != energy_before {
                        g.seed = g.next_seed();
                    }
                    ui.end_row();
                    let l = ui.label("Puzzles");
                    ui.add(egui::DragValue::new(&mut g.count).range(1..=10_000))
                        .labelled_by(l.id);
                    let l = ui.label("Workers");
                    ui.add(egui::DragValue::new(&mut g.workers).range(1..=64))
                        .labelled_by(l.id);
                    ui.end_row();
                    let l = ui.label("Seed");
                    ui.add(egui::DragValue::new(&mut g.seed))
                        .labelled_by(l.id)
                        .on_hover_text(
                            "The batch seed: the next unused one for these cards and this energy \
                             (one past the highest in their store). A seed used before makes \
                             the same puzzles again.",
                        );
                    let l = setting(ui, "Steps per puzzle", STEPS_HELP);
                    ui.add(egui::DragValue::new(&mut g.iterations).range(1..=MAX_ITERATIONS))
                        .labelled_by(l.id)
                        .on_hover_text(STEPS_HELP);
                    ui.end_row();
                    let l = setting(ui, "Swap-in probability", SWAP_IN_HELP);
                    ui.add(
                        egui::DragValue::new(&mut g.swap_in)
                            .range(0.0..=1.0)
                            .speed(0.01),
                    )
                    .labelled_by(l.id)
                    .on_hover_text(SWAP_IN_HELP);
                    let l = setting(ui, "Uphill probability", UPHILL_HELP);
                    ui.add(
                        egui::DragValue::new(&mut g.uphill)
                            .range(0.0..=1.0)
                            .speed(0.001),
                    )
                    .labelled_by(l.id)
                    .on_hover_text(UPHILL_HELP);
                    ui.end_row();
                    let l = setting(ui, "Halfway ratio", HALFWAY_HELP);
                    egui::ComboBox::from_id_salt("halfway")
                        .selected_text(g.halfway_mode.name())
                        .show_ui(ui, |ui| {
                            for mode in HalfwayMode::ALL {
                                ui.selectable_value(&mut g.halfway_mode, mode, mode.name());
                            }
                        })
                        .response
                        .labelled_by(l.id)
                        .on_hover_text(HALFWAY_HELP);
                    ui.end_row();
                    ui.label("");
                    ui.checkbox(&mut g.difficulty, "Difficulty features")
                        .on_hover_text(DIFFICULTY_HELP);
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
                "Seed {} (running): {} of {} candidates, {:.0} s",
                so_far.seed, so_far.new, so_far.count, so_far.seconds
            ));
            for (w, line) in batch.workers().iter().enumerate() {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.monospace(match line {
                        Some(l) => format!(
                            "worker {}: puzzle {:>3}, {}, best energy {}",
                            w + 1,
                            l.index + 1,
                            l.report.phase,
                            format::number(Some(l.report.best))
                        ),
                        None => format!("worker {}: starting", w + 1),
                    });
                });
            }
        }
        ui.separator();
        self.enter_ui(ui);
        self.editor_ui(ui);
        ui.separator();
        self.queue_ui(ui);
    }

    fn queue_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let rated = self
                .queue
                .iter()
                .filter(|c| self.generate.is_rated(c))
                .count();
            ui.strong(format!("Candidates ({}, {rated} rated)", self.queue.len()));
            let l = ui.label("sorted by");
            let g = &mut self.generate;
            egui::ComboBox::from_id_salt("sort")
                .selected_text(g.sort.map_or("arrival".to_string(), |k| k.to_string()))
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut g.sort, None, "arrival");
                    ui.selectable_value(&mut g.sort, Some(SortKey::Energy), "energy");
                    for f in Feature::ALL {
                        ui.selectable_value(&mut g.sort, Some(SortKey::Feature(f)), f.column())
                            .on_hover_text(f.explain());
                    }
                })
                .response
                .labelled_by(l.id);
            ui.checkbox(&mut g.descending, "descending");
            ui.checkbox(&mut g.only_unrated, "Only unrated")
                .on_hover_text("Leave out the rated candidates here and when opening the next one");
        });
        let order = self.generate.order(&self.queue);
        // Candidates of a fitted energy outside the ratings it was fitted on.
        let ranged = self.energies.book().ranged_by_id();
        let extrapolated: Vec<Option<String>> = self
            .queue
            .iter()
            .map(|c| {
                ranged
                    .get(&c.energy_id)
                    .and_then(|e| e.extrapolation_note(&c.features))
            })
            .collect();
        let outside = order.iter().filter(|&&i| extrapolated[i].is_some()).count();
        if outside > 0 {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "⚠ {} outside the rated range of {} fitted energy: {} predicted \
                     rating is an extrapolation there (hover the ⚠ for which feature).",
                    format::plural(outside, "candidate lies|candidates lie"),
                    if outside == 1 { "its" } else { "their" },
                    if outside == 1 { "its" } else { "their" },
                ),
            );
        }
        let mut open = None;
        egui::Grid::new("queue")
            .striped(true)
            .num_columns(6 + COLUMNS.len())
            .show(ui, |ui| {
                ui.strong("");
                ui.strong("");
                ui.strong("#")
                    .on_hover_text("The candidate's place in the queue");
                ui.strong("n").on_hover_text(Feature::N.explain());
                ui.strong("energy")
                    .on_hover_text("The energy the search minimized (hover a name for its id)");
                ui.strong("value").on_hover_text(
                    "The candidate's energy, from its exact features: lower is better",
                );
                for f in COLUMNS {
                    ui.strong(f.label()).on_hover_text(f.explain());
                }
                ui.end_row();
                for &i in &order {
                    let c = &self.queue[i];
                    let label = if self.current == Some(i) {
                        "▶ playing"
                    } else {
                        "Play"
                    };
                    ui.horizontal(|ui| {
                        if ui.button(label).on_hover_text(&c.puzzle).clicked() {
                            open = Some(i);
                        }
                        super::enter::copy_id_button(ui, c);
                    });
                    if self.generate.is_rated(c) {
                        ui.label("✔ rated");
                    } else if self.play.in_progress(&c.puzzle) {
                        ui.label("in progress")
                            .on_hover_text("Played and not rated yet: Play resumes it");
                    } else {
                        ui.label("");
                    }
                    ui.monospace(format!("#{}", i + 1));
                    ui.label(c.n.to_string());
                    // An entered puzzle says so, next to the energy that values it.
                    let energy = match c.source {
                        Source::Generated => c.energy_name.clone(),
                        Source::Entered => format!("{} · entered", c.energy_name),
                    };
                    ui.label(energy).on_hover_text(&c.energy_id);
                    ui.horizontal(|ui| {
                        ui.label(format::number(Some(c.energy)));
                        if let Some(note) = &extrapolated[i] {
                            ui.colored_label(ui.visuals().warn_fg_color, "⚠")
                                .on_hover_text(note);
                        }
                    });
                    for f in COLUMNS {
                        ui.label(c.features.show(f));
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
