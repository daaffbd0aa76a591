//! The desktop app (eframe/egui): generate, play, rate, analyze, regress and
//! edit energies in one window — seed 001's design loop.
//!
//! A front end only: searches run in the generator's worker threads and the
//! analysis in a thread of its own; the UI thread drains their channels
//! without blocking and is woken by `request_repaint`. The app lives in the
//! library so that the tests can drive it with egui_kittest.

mod analyze;
mod board;
mod energies;
mod generate;
mod play;
mod rate;
mod regress;

use crate::generator::Candidate;
use crate::notation::parse_state;
use crate::state::{Grid, State};
use eframe::egui;
use std::path::{Path, PathBuf};

pub use board::cell_label;

/// Where the app reads and writes, all under one folder (the working folder
/// when run normally, a temporary one in tests).
#[derive(Clone, Debug)]
pub struct Paths {
    root: PathBuf,
}

impl Paths {
    /// Paths under `root`.
    pub fn new(root: impl Into<PathBuf>) -> Paths {
        Paths { root: root.into() }
    }

    /// The folder of puzzle stores.
    pub fn puzzles(&self) -> PathBuf {
        self.root.join("puzzles")
    }

    /// The ratings file the app appends to.
    pub fn ratings(&self) -> PathBuf {
        self.root.join("ratings/ratings.csv")
    }

    /// The shipped demonstration ratings.
    pub fn example_ratings(&self) -> PathBuf {
        self.root.join("ratings/example.csv")
    }

    /// The file that remembers the rater's name.
    pub fn rater(&self) -> PathBuf {
        self.root.join("ratings/rater.txt")
    }

    /// The editable energy files, in load order (later ones override):
    /// `assets/energies.toml`, the fitted energies, then your own files in
    /// `energies/*.toml` by name.
    pub fn energy_files(&self) -> Vec<PathBuf> {
        let mut files = vec![
            self.root.join("assets/energies.toml"),
            self.root.join(FITTED_ENERGIES),
        ];
        files.extend(user_energy_files(&self.root.join(USER_ENERGIES)));
        files
    }

    /// The file "Use as energy" writes to.
    pub fn fitted_energies(&self) -> PathBuf {
        self.root.join(FITTED_ENERGIES)
    }

    /// A path shown relative to the root, as the user knows it.
    pub fn show(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}

/// Energies fitted from ratings, relative to the working folder.
pub const FITTED_ENERGIES: &str = "assets/fitted-energies.toml";

/// The folder of the user's own energy files, relative to the working folder.
pub const USER_ENERGIES: &str = "energies";

/// The `*.toml` files of a folder, sorted by name (none if it does not exist).
pub fn user_energy_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The panels, one shown at a time.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tab {
    /// Start and watch generation; the candidate queue.
    Generate,
    /// Play the current candidate.
    Play,
    /// Rate it.
    Rate,
    /// Its state space, features and search trace.
    Analyze,
    /// The regression of ratings on features.
    Regress,
    /// View and edit energies.
    Energies,
}

impl Tab {
    const ALL: [Tab; 6] = [
        Tab::Generate,
        Tab::Play,
        Tab::Rate,
        Tab::Analyze,
        Tab::Regress,
        Tab::Energies,
    ];

    fn title(self) -> &'static str {
        match self {
            Tab::Generate => "Generate",
            Tab::Play => "Play",
            Tab::Rate => "Rate",
            Tab::Analyze => "Analyze",
            Tab::Regress => "Regression",
            Tab::Energies => "Energies",
        }
    }
}

/// A line in the status bar.
#[derive(Clone, Debug)]
struct Status {
    text: String,
    error: bool,
}

/// The whole app.
pub struct BoafApp {
    paths: Paths,
    tab: Tab,
    status: Option<Status>,
    energies: energies::EnergiesPanel,
    generate: generate::GeneratePanel,
    /// Every candidate known: loaded from `puzzles/` and arrived since.
    queue: Vec<Candidate>,
    /// The index in `queue` of the candidate being played and rated.
    current: Option<usize>,
    play: play::PlayPanel,
    rate: rate::RatePanel,
    analyze: analyze::AnalyzePanel,
    regress: regress::RegressPanel,
}

impl BoafApp {
    /// The app over the files under `paths`: it loads the energies, the
    /// stored candidates, the rater's name and the ratings.
    pub fn new(paths: Paths) -> BoafApp {
        let energies = energies::EnergiesPanel::load(&paths);
        let (queue, notes) = generate::load_queue(&paths);
        let mut app = BoafApp {
            tab: Tab::Generate,
            status: None,
            generate: generate::GeneratePanel::new(&energies),
            energies,
            current: None,
            play: play::PlayPanel::default(),
            rate: rate::RatePanel::new(&paths),
            analyze: analyze::AnalyzePanel::default(),
            regress: regress::RegressPanel::new(&paths),
            queue,
            paths,
        };
        if let Some(first) = notes.into_iter().next() {
            app.say_error(first);
        }
        app
    }

    /// The panel shown.
    pub fn tab(&self) -> Tab {
        self.tab
    }

    /// Shows a panel.
    pub fn set_tab(&mut self, tab: Tab) {
        self.tab = tab;
    }

    /// The candidates known, in arrival order.
    pub fn candidates(&self) -> &[Candidate] {
        &self.queue
    }

    /// The candidate being played, if any.
    pub fn current(&self) -> Option<&Candidate> {
        self.current.and_then(|i| self.queue.get(i))
    }

    /// Whether a generation is running.
    pub fn is_generating(&self) -> bool {
        self.generate.is_running()
    }

    /// Sets the Generate panel's cards, puzzle count, seed and workers (the
    /// other settings follow the paper's for n).
    pub fn set_generation(&mut self, n: usize, count: usize, seed: u64, workers: usize) {
        self.generate.set(n, count, seed, workers);
    }

    /// The status bar's text.
    pub fn status_text(&self) -> Option<&str> {
        self.status.as_ref().map(|s| s.text.as_str())
    }

    /// The regression shown, if one was fitted.
    pub fn fit(&self) -> Option<&crate::regress::Fit> {
        self.regress.fit()
    }

    /// The open candidate and its number in the queue, or a line saying
    /// there is none (for the panels that work on it).
    fn open_candidate(&self, ui: &mut egui::Ui) -> Option<(usize, Candidate)> {
        let found = self
            .current
            .and_then(|i| Some((i + 1, self.queue.get(i)?.clone())));
        if found.is_none() {
            ui.label(
                "No candidate is open. Generate some, or pick one in the Generate panel's queue.",
            );
        }
        found
    }

    fn say(&mut self, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            error: false,
        });
    }

    fn say_error(&mut self, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            error: true,
        });
    }

    /// Makes candidate `i` the one played, rated and analysed.
    fn open(&mut self, i: usize) {
        let Some(c) = self.queue.get(i) else { return };
        match candidate_state(c) {
            Ok(state) => {
                self.current = Some(i);
                self.play.start(state.clone());
                self.rate.reset();
                self.analyze.clear();
            }
            Err(e) => self.say_error(format!("cannot open puzzle {}: {e}", c.puzzle)),
        }
    }

    /// Opens the next candidate after the current one (for Skip and after a save).
    fn open_next(&mut self) {
        let order = self.generate.order(&self.queue);
        let next = match self
            .current
            .and_then(|c| order.iter().position(|&i| i == c))
        {
            Some(p) => order.get(p + 1).copied(),
            None => order.first().copied(),
        };
        match next {
            Some(i) => self.open(i),
            None => {
                self.current = None;
                self.play = play::PlayPanel::default();
                self.say("No more candidates: generate some more.");
                self.tab = Tab::Generate;
            }
        }
    }

    /// Draws the app into `ui` and handles its input; called once a frame.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        self.poll(ui.ctx());
        egui::Panel::top("boaf-tabs").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.heading("boaf");
                ui.separator();
                for tab in Tab::ALL {
                    ui.selectable_value(&mut self.tab, tab, tab.title());
                }
            });
        });
        egui::Panel::bottom("boaf-status").show(ui, |ui| self.status_bar(ui));
        egui::CentralPanel::default().show(ui, |ui| {
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| match self.tab {
                    Tab::Generate => self.generate_ui(ui),
                    Tab::Play => self.play_ui(ui),
                    Tab::Rate => self.rate_ui(ui),
                    Tab::Analyze => self.analyze_ui(ui),
                    Tab::Regress => self.regress_ui(ui),
                    Tab::Energies => self.energies_ui(ui),
                });
        });
    }

    /// Drains the background channels; never waits.
    fn poll(&mut self, ctx: &egui::Context) {
        let events = self.generate.poll(&self.paths);
        for e in events {
            match e {
                generate::Event::Arrived(c) => {
                    self.queue.push(*c);
                    if self.current.is_none() {
                        self.open(self.queue.len() - 1);
                    }
                }
                generate::Event::Note(text) => self.say(text),
                generate::Event::Error(text) => self.say_error(text),
            }
        }
        self.analyze.poll();
        self.play.tick(ctx);
    }

    fn status_bar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            match &self.status {
                Some(s) if s.error => {
                    ui.colored_label(ui.visuals().error_fg_color, &s.text);
                }
                Some(s) => {
                    ui.label(&s.text);
                }
                None => {
                    ui.weak("Generate candidates, play one, rate it, and read the regression.");
                }
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                ui.weak(format!("{} candidates", self.queue.len()));
            });
        });
    }
}

/// The state of a stored candidate, on its own grid.
pub fn candidate_state(c: &Candidate) -> Result<State, String> {
    let grid = Grid::new(c.rows, c.cols).map_err(|e| e.to_string())?;
    parse_state(&c.puzzle, Some(grid)).map_err(|e| e.to_string())
}

impl eframe::App for BoafApp {
    /// Runs even while the window is minimised: candidates keep being
    /// drained and stored, so the workers never wait on a full channel.
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.poll(ctx);
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }
}

/// Opens the app's window over the working folder. Fails when there is no
/// display to open it on.
pub fn run() -> Result<(), String> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("boaf — Birds of a Feather puzzle workbench")
            .with_inner_size([1200.0, 800.0]),
        ..Default::default()
    };
    eframe::run_native(
        "boaf",
        options,
        Box::new(|_cc| Ok(Box::new(BoafApp::new(Paths::new("."))))),
    )
    .map_err(|e| e.to_string())
}
