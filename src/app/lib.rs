//! boaf-app: the desktop app (eframe/egui) where seed 001's design loop
//! happens in one window: generate, play, watch an agent play, rate,
//! analyze, regress and edit energies; and serve rating studies to many
//! raters. One panel a file.
//!
//! A front end only, over `boaf-core`: generation runs in a batch session's
//! worker threads, analyses, solves and agents in threads of their own
//! (one helper, `task`, starts those); the UI thread drains their channels
//! without blocking and is woken by `request_repaint`. Every file it reads
//! or writes is named by the core's [`Folder`].

#![warn(missing_docs)]

mod analyze;
mod axis;
mod board;
mod editor;
mod energies;
mod enter;
mod export;
mod generate;
mod play;
mod queue;
mod rate;
mod regress;
mod regress_mixed;
mod study;
mod task;
mod watch;

use boaf_core::folder::Folder;
use boaf_core::generator::pipeline::Candidate;
use eframe::egui;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use board::cell_label;

/// The panels, one shown at a time.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tab {
    /// Start and watch generation; the candidate queue.
    Generate,
    /// Play the current candidate.
    Play,
    /// Watch an agent play it.
    Watch,
    /// Rate it.
    Rate,
    /// Its state space, features and search trace.
    Analyze,
    /// The regression of ratings on features.
    Regress,
    /// View and edit energies.
    Energies,
    /// Rating studies: make, open, close, export, and serve them.
    Study,
}

impl Tab {
    const ALL: [Tab; 8] = [
        Tab::Generate,
        Tab::Play,
        Tab::Watch,
        Tab::Rate,
        Tab::Analyze,
        Tab::Regress,
        Tab::Energies,
        Tab::Study,
    ];

    fn title(self) -> &'static str {
        match self {
            Tab::Generate => "Generate",
            Tab::Play => "Play",
            Tab::Watch => "Watch",
            Tab::Rate => "Rate",
            Tab::Analyze => "Analyze",
            Tab::Regress => "Regression",
            Tab::Energies => "Energies",
            Tab::Study => "Study",
        }
    }
}

/// Where the app reads the time for the play clock: a monotonic time since
/// some fixed start. The system's clock in the app; a test's own in tests.
pub type Clock = Arc<dyn Fn() -> Duration + Send + Sync>;

/// The system's monotonic clock.
pub fn system_clock() -> Clock {
    let start = Instant::now();
    Arc::new(move || start.elapsed())
}

/// A line in the status bar.
#[derive(Clone, Debug)]
struct Status {
    text: String,
    error: bool,
}

/// The whole app.
pub struct BoafApp {
    folder: Folder,
    tab: Tab,
    status: Option<Status>,
    energies: energies::EnergiesPanel,
    generate: generate::GeneratePanel,
    /// "Open a puzzle": the field and the entered puzzle's features.
    enter: enter::EnterPanel,
    /// "Make one by hand": the layout editor and its check.
    editor: editor::EditorPanel,
    /// Every candidate known: loaded from `puzzles/` and arrived since.
    queue: Vec<Candidate>,
    /// The index in `queue` of the candidate being played and rated.
    current: Option<usize>,
    play: play::PlayPanel,
    rate: rate::RatePanel,
    analyze: analyze::AnalyzePanel,
    watch: watch::WatchPanel,
    regress: regress::RegressPanel,
    /// Rating studies and their server.
    study: study::StudyPanel,
}

impl BoafApp {
    /// The app over the files of a working folder: it loads the energies,
    /// the stored candidates, the rater's name and the ratings.
    pub fn new(folder: Folder) -> BoafApp {
        BoafApp::with_clock(folder, system_clock())
    }

    /// As [`BoafApp::new`], with the play clock read from `clock`.
    pub fn with_clock(folder: Folder, clock: Clock) -> BoafApp {
        let energies = energies::EnergiesPanel::load(&folder);
        let (queue, notes) = folder.read_stores();
        let mut app = BoafApp {
            tab: Tab::Generate,
            status: None,
            generate: generate::GeneratePanel::new(&energies, &queue, &folder),
            enter: enter::EnterPanel::default(),
            editor: editor::EditorPanel::default(),
            energies,
            current: None,
            play: play::PlayPanel::new(clock),
            rate: rate::RatePanel::new(&folder),
            analyze: analyze::AnalyzePanel::default(),
            watch: watch::WatchPanel::default(),
            regress: regress::RegressPanel::new(&folder),
            study: study::StudyPanel::new(&folder),
            queue,
            folder,
        };
        app.generate.set_rated(generate::rated_puzzles(&app.folder));
        let kept = app
            .play
            .load(app.folder.in_progress(), |p| app.folder.show(p));
        if let Some(first) = kept.into_iter().chain(notes).next() {
            app.say_error(first);
        }
        app
    }

    /// Makes candidate `i` (in arrival order) the one played, rated and analysed.
    pub fn play_candidate(&mut self, i: usize) {
        self.open(i);
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

    /// The Generate panel's seed: the running batch's, else the one Start
    /// will use (the next unused one unless it was set).
    pub fn generation_seed(&self) -> u64 {
        self.generate.seed()
    }

    /// Whether the open position can still be solved, as the Play panel's
    /// notice knows it: `None` until its solve has answered, or with the
    /// notice off.
    pub fn position_solvable(&self) -> Option<bool> {
        self.play.solvable_now()
    }

    /// The position on the Play panel's board, if a game is open.
    pub fn position(&self) -> Option<&boaf_core::State> {
        self.play.position()
    }

    /// The status bar's text.
    pub fn status_text(&self) -> Option<&str> {
        self.status.as_ref().map(|s| s.text.as_str())
    }

    /// The regression shown, if one was fitted.
    pub fn fit(&self) -> Option<&boaf_core::study::regress::Fit> {
        self.regress.fit()
    }

    /// The mixed model shown (several raters) and its judgement, once fitted.
    pub fn mixed_fit(
        &self,
    ) -> Option<(
        &boaf_core::study::mixed::MixedFit,
        &boaf_core::study::mixed::Judgement,
    )> {
        self.regress.mixed()
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
        match c.state() {
            Ok(state) => {
                self.current = Some(i);
                let (puzzle, solvable) = (c.puzzle.clone(), c.features.solvable);
                if let Some(note) = self.play.open(&puzzle, state, solvable) {
                    self.say_error(note);
                }
                self.rate.reset();
                self.analyze.clear();
                self.watch.clear();
            }
            Err(e) => self.say_error(format!("cannot open puzzle {}: {e}", c.puzzle)),
        }
    }

    /// Opens the next candidate after the current one (for Skip and after a save).
    /// The next one is found in the whole sorted queue, so that a current
    /// candidate the filter now hides (just rated) still has its place.
    fn open_next(&mut self) {
        let order = self.generate.queue.sorted(&self.queue);
        let from = self
            .current
            .and_then(|c| order.iter().position(|&i| i == c))
            .map_or(0, |p| p + 1);
        let next = order[from.min(order.len())..]
            .iter()
            .copied()
            .find(|&i| self.generate.queue.shown(&self.queue[i], &self.play));
        match next {
            Some(i) => self.open(i),
            None => {
                self.current = None;
                self.play.clear();
                self.watch.clear();
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
            if self.tab == Tab::Play {
                // Not in a scroll area: the board fits the panel, and its size
                // must not change with a scroll offset.
                self.play_ui(ui);
                return;
            }
            if self.tab == Tab::Watch {
                // As Play: the board in the same place and size.
                self.watch_ui(ui);
                return;
            }
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| match self.tab {
                    Tab::Generate => self.generate_ui(ui),
                    // Drawn above, outside the scroll area.
                    Tab::Play | Tab::Watch => {}
                    Tab::Rate => self.rate_ui(ui),
                    Tab::Analyze => self.analyze_ui(ui),
                    Tab::Regress => self.regress_ui(ui),
                    Tab::Energies => self.energies_ui(ui),
                    Tab::Study => self.study_ui(ui),
                });
        });
    }

    /// Drains the background channels; never waits.
    fn poll(&mut self, ctx: &egui::Context) {
        let dragging = ctx.input(|i| i.pointer.any_down());
        for e in self.generate.poll(&self.folder, dragging) {
            match e {
                generate::Arrival::Candidate(c) => {
                    self.queue.push(*c);
                    if self.current.is_none() {
                        self.open(self.queue.len() - 1);
                    }
                }
                generate::Arrival::Note(text) => self.say(text),
                generate::Arrival::Error(text) => self.say_error(text),
            }
        }
        self.poll_entry();
        self.analyze.poll();
        if let Some((puzzle, f)) = self.analyze.poll_difficulty() {
            // Kept with every copy of the candidate, so its rating saves them.
            for c in self.queue.iter_mut().filter(|c| c.puzzle == puzzle) {
                c.features.playout_win_rate = f.playout_win_rate;
                c.features.greedy_wins = f.greedy_wins;
                c.features.mcts_budget = f.mcts_budget;
            }
        }
        self.watch.poll(ctx);
        let said = self.study.poll();
        self.tell(said);
        self.play.tick(ctx);
        if let Some(e) = self.play.keep() {
            self.say_error(e);
            // Tried again then even if nobody touches the app meanwhile.
            ctx.request_repaint_after(play::KEEP_RETRY);
        }
        // Active play only: the Play panel open in a focused window.
        let focused = ctx.input(|i| i.focused);
        self.play.set_shown(self.tab == Tab::Play && focused);
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
                ui.weak(boaf_core::format::plural(self.queue.len(), "candidate"));
            });
        });
    }
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
        Box::new(|_cc| Ok(Box::new(BoafApp::new(Folder::new("."))))),
    )
    .map_err(|e| e.to_string())
}
