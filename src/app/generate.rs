//! The Generate panel: the search settings, Start and Stop, a progress line
//! per worker (what it is doing: "descent step 37 of 50", "exact analysis 2
//! of 3"), and the candidate queue, with the rated ones and the games in
//! progress marked (the queue is in `queue.rs`). A worker with no puzzle
//! left says "done" and what it made; once a puzzle is done the run says
//! about how long is left. The settings are remembered in
//! `puzzles/generate.toml`, written when one changes and read at start.
//! Generation is a core batch session in arrival order:
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

use super::BoafApp;
use super::energies::EnergiesPanel;
use super::queue::QueueView;
use boaf_core::durable::write_atomically;
use boaf_core::engine::feature::Feature;
use boaf_core::engine::limits::WORKER_CAP;
use boaf_core::folder::Folder;
use boaf_core::format;
use boaf_core::generator::batch::{Batch, Event, Order};
use boaf_core::generator::descent::{
    DEFAULT_ENERGY, DIFFICULTY_HELP, HALFWAY_HELP, HalfwayMode, MAX_ITERATIONS, STEPS_HELP,
    SWAP_IN_HELP, SearchParams, UPHILL_HELP, default_iterations,
};
use boaf_core::generator::pipeline::{Candidate, Job};
use boaf_core::generator::store::PuzzleStore;
use boaf_core::study::ratings::read_ratings;
use eframe::egui;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

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
    /// What each worker of the run made, and each puzzle's time.
    tally: Tally,
    /// One past the highest batch seed stored, by cards and energy name.
    next_seeds: HashMap<(usize, String), u64>,
    /// The queue's sort, filter and rated marks.
    pub(super) queue: QueueView,
    /// The settings as last written to (or read from) their file.
    kept: Option<Settings>,
    /// Something to say about the settings file, at the first poll.
    settings_note: Option<String>,
}

/// The settings remembered across a restart (the seed is not: it follows
/// the stores). Missing fields take their defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
struct Settings {
    cards: usize,
    energy: String,
    puzzles: usize,
    steps: usize,
    swap_in: f64,
    uphill: f64,
    halfway: String,
    difficulty: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        let n = 8;
        let p = SearchParams::for_cards(n);
        Settings {
            cards: n,
            energy: DEFAULT_ENERGY.into(),
            puzzles: 10,
            steps: p.iterations,
            swap_in: p.swap_in,
            uphill: p.uphill,
            halfway: p.halfway_mode.name().into(),
            difficulty: true,
        }
    }
}

/// The settings kept in `file`: the defaults when it is missing, and with a
/// note when it cannot be read or parsed.
fn read_settings(file: &std::path::Path, show: &str) -> (Settings, Option<String>) {
    match std::fs::read_to_string(file) {
        Ok(text) => match toml::from_str(&text) {
            Ok(s) => (s, None),
            Err(e) => (
                Settings::default(),
                Some(format!(
                    "{show}: {}; the Generate settings are the defaults",
                    e.message()
                )),
            ),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Settings::default(), None),
        Err(e) => (
            Settings::default(),
            Some(format!(
                "{show}: {e}; the Generate settings are the defaults"
            )),
        ),
    }
}

/// A run's tally: which worker makes which puzzle, what each made, and how
/// long the puzzles done took.
#[derive(Default)]
struct Tally {
    /// Per worker: the puzzle it is on (`None`: none, or done with it) and what it made.
    workers: Vec<WorkerTally>,
    /// The worker and start of each puzzle begun, by index.
    begun: HashMap<usize, (usize, Instant)>,
    /// Puzzles done (made, dropped or failed).
    done: usize,
    /// Their seconds in all, from their first report to their end.
    seconds: f64,
    /// Whether the run is over (its lines stay until the next Start).
    over: bool,
}

/// What one worker made in a run.
#[derive(Clone, Default)]
struct WorkerTally {
    on: Option<usize>,
    new: usize,
    duplicates: usize,
    failed: usize,
    /// Made, but its store could not be written.
    unstored: usize,
}

/// How a puzzle ended.
enum End {
    New,
    Duplicate,
    Failed,
    Unstored,
}

impl Tally {
    fn new(workers: usize) -> Tally {
        Tally {
            workers: vec![WorkerTally::default(); workers],
            ..Tally::default()
        }
    }

    /// A worker reported on a puzzle: the first report starts its clock.
    fn began(&mut self, worker: usize, index: usize) {
        if let std::collections::hash_map::Entry::Vacant(e) = self.begun.entry(index) {
            e.insert((worker, Instant::now()));
            if let Some(w) = self.workers.get_mut(worker) {
                w.on = Some(index);
            }
        }
    }

    /// A puzzle ended: its worker is free until its next report.
    fn ended(&mut self, index: usize, end: End) {
        let Some(&(worker, start)) = self.begun.get(&index) else {
            // Ended before its first report (a quick failure): taken all
            // the same, so the other workers can be seen to be done. Which
            // worker took it is not known, nor how long it took.
            self.begun.insert(index, (usize::MAX, Instant::now()));
            return;
        };
        self.done += 1;
        self.seconds += start.elapsed().as_secs_f64();
        if let Some(w) = self.workers.get_mut(worker) {
            match end {
                End::New => w.new += 1,
                End::Duplicate => w.duplicates += 1,
                End::Failed => w.failed += 1,
                End::Unstored => w.unstored += 1,
            }
            if w.on == Some(index) {
                w.on = None;
            }
        }
    }

    /// Seconds left, from the mean time a puzzle took: the puzzles not
    /// begun and the rest of those under way, shared by the workers.
    /// `None` before the first puzzle is done.
    fn seconds_left(&self, count: usize) -> Option<f64> {
        if self.done == 0 {
            return None;
        }
        let per = self.seconds / self.done as f64;
        let waiting = count.saturating_sub(self.begun.len());
        let under_way: Vec<f64> = self
            .workers
            .iter()
            .filter_map(|w| w.on)
            .filter_map(|i| self.begun.get(&i))
            .map(|(_, start)| (per - start.elapsed().as_secs_f64()).max(0.0))
            .collect();
        let work = waiting as f64 * per + under_way.iter().sum::<f64>();
        let sharing = self.workers.len().min(waiting + under_way.len()).max(1);
        // No worker can finish its own puzzle sooner than it takes.
        let longest = under_way.iter().copied().fold(0.0, f64::max);
        Some((work / sharing as f64).max(longest))
    }

    /// A worker's line when it has no puzzle left: "done" and what it made.
    /// `None` while it works, and between two puzzles while some are not
    /// begun (workers take the next puzzle from one counter, so a worker
    /// with none on is done only once every puzzle is taken).
    fn done_line(&self, worker: usize, count: usize) -> Option<String> {
        let w = self.workers.get(worker)?;
        let idle = w.on.is_none() && self.begun.len() >= count;
        if !(idle || self.over) {
            return None;
        }
        // Over with a puzzle still on: the run was stopped under it.
        let how = if w.on.is_some() { "stopped" } else { "done" };
        let mut made = Vec::new();
        if w.new > 0 {
            made.push(format::plural(w.new, "new candidate"));
        }
        if w.duplicates > 0 {
            made.push(format::plural(w.duplicates, "duplicate"));
        }
        if w.failed > 0 {
            made.push(format!("{} failed", w.failed));
        }
        if w.unstored > 0 {
            made.push(format!("{} not stored", w.unstored));
        }
        if made.is_empty() {
            made.push("nothing made".into());
        }
        Some(format!("worker {}: {how}, {}", worker + 1, made.join(", ")))
    }
}

/// "about 40 s left", "about 2 min left", "about 1.5 h left".
fn about_left(seconds: f64) -> String {
    if seconds < 60.0 {
        format!("about {:.0} s left", seconds.ceil().max(1.0))
    } else if seconds < 5400.0 {
        format!("about {:.0} min left", (seconds / 60.0).round())
    } else {
        format!("about {:.1} h left", seconds / 3600.0)
    }
}

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
    /// noted, so that the seed offered is unused, and the settings kept in
    /// the folder (the defaults when there are none).
    pub(super) fn new(
        energies: &EnergiesPanel,
        stored: &[Candidate],
        folder: &Folder,
    ) -> GeneratePanel {
        let workers = boaf_core::parallel::cores();
        let file = folder.generate_settings();
        let (kept, settings_note) = read_settings(&file, &folder.show(&file));
        let mut panel = GeneratePanel {
            n: 8,
            energy: String::new(),
            workers,
            seed: 1,
            count: 10,
            iterations: 0,
            swap_in: 0.0,
            uphill: 0.0,
            halfway_mode: HalfwayMode::for_cards(8),
            difficulty: true,
            batch: None,
            tally: Tally::default(),
            next_seeds: HashMap::new(),
            queue: QueueView::default(),
            kept: None,
            settings_note,
        };
        panel.apply(&kept);
        for c in stored {
            panel.note_seed(c.n, c.energy_name.clone(), c.seed);
        }
        panel.energies_changed(energies);
        // Kept as read, so that nothing is written until a setting changes
        // (an energy missing for now is not forgotten in the file).
        panel.kept = Some(panel.settings());
        panel.seed = panel.next_seed();
        panel
    }

    /// Takes these settings, each within its range (a hand-edited file may
    /// hold anything).
    fn apply(&mut self, s: &Settings) {
        self.n = s.cards.clamp(4, 16);
        self.energy = s.energy.clone();
        self.count = s.puzzles.clamp(1, 10_000);
        self.iterations = s.steps.clamp(1, MAX_ITERATIONS);
        self.swap_in = s.swap_in.clamp(0.0, 1.0);
        self.uphill = s.uphill.clamp(0.0, 1.0);
        self.halfway_mode = HalfwayMode::ALL
            .into_iter()
            .find(|m| m.name() == s.halfway)
            .unwrap_or(HalfwayMode::for_cards(self.n));
        self.difficulty = s.difficulty;
    }

    /// The settings remembered across a restart, as they are now.
    fn settings(&self) -> Settings {
        Settings {
            cards: self.n,
            energy: self.energy.clone(),
            puzzles: self.count,
            steps: self.iterations,
            swap_in: self.swap_in,
            uphill: self.uphill,
            halfway: self.halfway_mode.name().into(),
            difficulty: self.difficulty,
        }
    }

    /// Writes the settings when they changed since last written (a look
    /// each frame, a write only on a change, and none while a slider is
    /// dragged: a synced write each frame would stutter it); the error when
    /// that fails.
    fn keep_settings(&mut self, folder: &Folder, dragging: bool) -> Option<String> {
        let now = self.settings();
        if dragging || self.kept.as_ref() == Some(&now) {
            return None;
        }
        self.kept = Some(now.clone());
        let file = folder.generate_settings();
        let text = toml::to_string(&now).ok()?;
        write_atomically(&file, text.as_bytes())
            .err()
            .map(|e| format!("the Generate settings were not kept: {e}"))
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
    /// saved rating), for the queue's marks and its filter.
    pub(super) fn set_rated(&mut self, rated: HashSet<String>) {
        self.queue.set_rated(rated);
    }

    /// Notes one more rated puzzle (after a save; no need to read the file again).
    pub(super) fn mark_rated(&mut self, puzzle: &str) {
        self.queue.mark_rated(puzzle);
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
        // No more workers than puzzles: a worker with none would only wait.
        let workers = self.workers.clamp(1, self.count.max(1));
        self.tally = Tally::new(workers);
        self.batch = Some(Batch::start(
            job,
            workers,
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

    /// Takes what the generation made since the last frame, without waiting;
    /// keeps changed settings unless a pointer is `dragging` a value.
    pub(super) fn poll(&mut self, folder: &Folder, dragging: bool) -> Vec<Arrival> {
        let mut out = Vec::new();
        if let Some(note) = self.settings_note.take() {
            out.push(Arrival::Error(note));
        }
        if let Some(e) = self.keep_settings(folder, dragging) {
            out.push(Arrival::Error(e));
        }
        let Some(batch) = &mut self.batch else {
            return out;
        };
        let mut stored = Vec::new();
        let mut finished = None;
        let tally = &mut self.tally;
        for e in batch.poll() {
            match e {
                Event::Progress { worker, progress } => tally.began(worker, progress.index),
                Event::Candidate(c) => {
                    tally.ended(c.index, End::New);
                    stored.push((c.n, c.energy_name.clone(), c.seed));
                    out.push(Arrival::Candidate(c));
                }
                Event::Duplicate { index } => tally.ended(index, End::Duplicate),
                Event::Unstored { candidate, message } => {
                    tally.ended(candidate.index, End::Unstored);
                    out.push(Arrival::Error(message));
                }
                Event::Failed { index, message } => {
                    tally.ended(index, End::Failed);
                    out.push(Arrival::Error(format!("puzzle {index} failed: {message}")));
                }
                Event::Finished(summary) => {
                    out.push(Arrival::Note(summary.text(|p| folder.show(p))));
                    finished = Some(summary);
                    break;
                }
            }
        }
        for (n, energy, seed) in stored {
            self.note_seed(n, energy, seed);
        }
        if let Some(summary) = finished {
            self.batch = None;
            self.tally.over = true;
            // On to the next unused seed, and past the run's own even when
            // it stored nothing new (all duplicates); a run stopped before
            // it made anything keeps its seed.
            if !summary.cancelled || summary.new + summary.duplicates > 0 {
                self.seed = self.next_seed().max(summary.seed.saturating_add(1));
            }
        }
        out
    }

    /// The warning for a fitted energy whose ratings covered other card
    /// counts than the chosen one: every value of the run would be an
    /// extrapolation (`None` when the cards lie within, or no range is kept).
    fn extrapolation_warning(&self, energies: &EnergiesPanel) -> Option<String> {
        let energy = energies.book().get(&self.energy)?;
        let n = self.n as f64;
        let out = energy.outside_range_with(true, |f| (f == Feature::N).then_some(n));
        let r = out.first()?;
        let rated = if r.min == r.max {
            format!("{}", r.min)
        } else {
            format!("{}–{}", r.min, r.max)
        };
        Some(format!(
            "⚠ '{}' was fitted on ratings of {rated} cards: at {} cards its value \
             (minus the predicted rating) is an extrapolation.",
            energy.name, self.n
        ))
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
        // Before Start: a fitted energy used outside the cards it was fitted on.
        if let Some(warning) = self.generate.extrapolation_warning(&self.energies) {
            ui.colored_label(ui.visuals().warn_fg_color, warning);
        }
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
            let tally = &self.generate.tally;
            let left = tally
                .seconds_left(so_far.count)
                .map_or_else(String::new, |s| format!(", {}", about_left(s)));
            ui.label(format!(
                "Seed {} (running): {} of {} candidates, {:.0} s{left}",
                so_far.seed, so_far.new, so_far.count, so_far.seconds
            ));
            for (w, line) in batch.workers().iter().enumerate() {
                ui.horizontal(|ui| {
                    // A worker with no puzzle left says so, without a spinner.
                    if let Some(done) = tally.done_line(w, so_far.count) {
                        ui.monospace(done);
                        return;
                    }
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
        } else {
            // The last run's workers, all done, until the next Start.
            let tally = &self.generate.tally;
            for w in 0..tally.workers.len() {
                if let Some(done) = tally.done_line(w, 0) {
                    ui.monospace(done);
                }
            }
        }
        ui.separator();
        self.enter_ui(ui);
        self.editor_ui(ui);
        ui.separator();
        self.queue_ui(ui);
    }
}

#[cfg(test)]
mod tests {
    use super::{End, Tally};

    #[test]
    fn a_worker_is_done_only_once_every_puzzle_is_taken() {
        // Two workers, three puzzles: worker 1 ends puzzle 0 while puzzle 2
        // is not begun, so it is about to take it, not done.
        let mut t = Tally::new(2);
        t.began(0, 0);
        t.began(1, 1);
        t.ended(0, End::New);
        assert_eq!(t.done_line(0, 3), None);
        // It takes the last one; worker 2 ends its own and is done while
        // worker 1 still works.
        t.began(0, 2);
        t.ended(1, End::Duplicate);
        assert_eq!(t.done_line(0, 3), None);
        assert_eq!(
            t.done_line(1, 3).as_deref(),
            Some("worker 2: done, 1 duplicate")
        );
        t.ended(2, End::New);
        assert_eq!(
            t.done_line(0, 3).as_deref(),
            Some("worker 1: done, 2 new candidates")
        );
    }

    #[test]
    fn a_puzzle_that_ends_before_its_first_report_is_taken_all_the_same() {
        // Puzzle 1 fails before any report, and puzzle 2's store cannot be
        // written: worker 1 is done once both are over, and says so.
        let mut t = Tally::new(2);
        t.began(0, 0);
        t.ended(1, End::Failed);
        t.ended(0, End::New);
        assert_eq!(t.done_line(0, 3), None, "puzzle 2 is not taken yet");
        t.began(0, 2);
        t.ended(2, End::Unstored);
        assert_eq!(
            t.done_line(0, 3).as_deref(),
            Some("worker 1: done, 1 new candidate, 1 not stored")
        );
        assert_eq!(
            t.done_line(1, 3).as_deref(),
            Some("worker 2: done, nothing made")
        );
    }
}
