//! What the app's test files share: a working folder, a harness over the
//! real app with a clock the test moves, and steppers that never hang.

#![allow(dead_code)] // Each test file uses its own part.

#[path = "../../../core/tests/common/temp.rs"]
pub mod temp;

use boaf_app::{BoafApp, Clock, system_clock};
use boaf_core::engine::features::Features;
use boaf_core::engine::state::State;
use boaf_core::folder::Folder;
use boaf_core::generator::descent::SearchParams;
use boaf_core::generator::pipeline::Candidate;
use boaf_core::generator::store::PuzzleStore;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
pub use temp::TempDir;

/// A working folder for one test, removed when the test ends.
pub fn temp_root(name: &str) -> TempDir {
    TempDir::new(&format!("app-{name}"))
}

/// A clock that moves only when the test says so.
#[derive(Clone, Default)]
pub struct TestClock(Arc<AtomicU64>);

impl TestClock {
    /// Moves the clock on.
    pub fn advance(&self, by: Duration) {
        self.0.fetch_add(by.as_millis() as u64, Ordering::SeqCst);
    }

    /// The clock as the app reads it.
    pub fn clock(&self) -> Clock {
        let ms = self.0.clone();
        Arc::new(move || Duration::from_millis(ms.load(Ordering::SeqCst)))
    }
}

/// The app over a folder, in a window of `size`, timed by `clock`.
pub fn harness_with(root: &TempDir, size: egui::Vec2, clock: Clock) -> Harness<'static, BoafApp> {
    let app = BoafApp::with_clock(Folder::new(root.path()), clock);
    Harness::builder()
        .with_size(size)
        // Spinners repaint while work runs; settling takes a few frames more.
        // On a loaded machine frames are slow, so the Study panel's refresh
        // (every 2 s of real time) can land inside a `run`, and its answers
        // keep it going: a loaded CI run needed 120 frames (2026-12-02).
        .with_max_steps(1000)
        .build_ui_state(|ui, app: &mut BoafApp| app.show(ui), app)
}

/// The app over a folder in a tall window, on the system clock.
pub fn harness(root: &TempDir) -> Harness<'static, BoafApp> {
    harness_with(root, egui::vec2(1280.0, 1400.0), system_clock())
}

/// Steps the app (it never blocks) until `done` holds, or fails after `limit`.
pub fn step_until(h: &mut Harness<'_, BoafApp>, limit: Duration, done: impl Fn(&BoafApp) -> bool) {
    let start = Instant::now();
    while !done(h.state()) {
        assert!(
            start.elapsed() < limit,
            "timed out; status: {:?}",
            h.state().status_text()
        );
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    h.run();
}

/// How long a wait for work in threads (a solve, an analysis, a replay in
/// real time) may take before the test fails.
const WAIT: Duration = Duration::from_secs(60);

/// Steps the app (it never blocks) until a widget with this label shows.
pub fn wait_for_label(h: &mut Harness<'_, BoafApp>, label: &str) {
    let start = Instant::now();
    while h.query_by_label(label).is_none() {
        assert!(
            start.elapsed() < WAIT,
            "'{label}' never showed; status: {:?}",
            h.state().status_text()
        );
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Steps the app until a widget whose label contains `text` shows.
pub fn wait_for_label_contains(h: &mut Harness<'_, BoafApp>, text: &str) {
    let start = Instant::now();
    while h.query_by_label_contains(text).is_none() {
        assert!(
            start.elapsed() < WAIT,
            "no label with '{text}' showed; status: {:?}",
            h.state().status_text()
        );
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Generates one 6-card puzzle through the Generate panel's Start button.
pub fn generate_one(h: &mut Harness<'_, BoafApp>) {
    h.state_mut().set_generation(6, 1, 11, 1);
    h.run();
    h.get_by_label("Start").click();
    h.run_steps(2);
    // A 6-card puzzle can be found before the second frame when the test
    // thread waits on a busy machine: a candidate in hand counts too.
    assert!(
        h.state().is_generating() || !h.state().candidates().is_empty(),
        "Start began a generation"
    );
    step_until(h, Duration::from_secs(60), |app| {
        !app.candidates().is_empty() && !app.is_generating()
    });
}

/// A candidate of `state` with these features and trace, made by an energy
/// named `test`, as the generator would store it.
pub fn candidate(state: &State, features: Features, trace: Vec<f64>) -> Candidate {
    Candidate {
        evaluations: trace.len(),
        trace,
        ..Candidate::for_tests(state, features)
    }
}

/// Adds a candidate to its store in the folder, where the app loads it from.
pub fn store(root: &TempDir, c: &Candidate) {
    let folder = Folder::new(root.path());
    let (mut store, _) = PuzzleStore::open(&folder.store_file(c.n, &c.energy_name)).unwrap();
    assert!(store.add(c).unwrap(), "a new candidate");
}

/// Every shape painted in the last frame, in paint order, with nested lists
/// flattened.
pub fn painted_shapes(h: &Harness<'_, BoafApp>) -> Vec<egui::Shape> {
    fn walk(shape: &egui::Shape, out: &mut Vec<egui::Shape>) {
        match shape {
            egui::Shape::Vec(shapes) => shapes.iter().for_each(|s| walk(s, out)),
            s => out.push(s.clone()),
        }
    }
    let mut out = Vec::new();
    for clipped in &h.output().shapes {
        walk(&clipped.shape, &mut out);
    }
    out
}

/// One candidate of `n` cards made under a built-in energy in 40 steps, as
/// `boaf generate` would, stored in the folder unless a copy is there already.
pub fn made(root: &TempDir, n: usize, energy: &str, seed: u64) -> Option<Candidate> {
    made_with(root, n, energy, seed, false)
}

/// As [`made`], with the agents' difficulty features when `difficulty` (so
/// that the candidate has a grade).
pub fn made_with(
    root: &TempDir,
    n: usize,
    energy: &str,
    seed: u64,
    difficulty: bool,
) -> Option<Candidate> {
    let job = boaf_core::generator::pipeline::Job {
        n,
        energy: boaf_core::generator::energy::builtin()
            .get(energy)
            .unwrap()
            .clone(),
        seed,
        params: SearchParams {
            iterations: 40,
            difficulty,
            ..SearchParams::paper(n)
        },
        indices: 0..1,
        memory_cap: 1 << 30,
    };
    let c = boaf_core::generator::pipeline::make_candidate(&job, 0, Default::default(), |_| {})
        .unwrap();
    let folder = Folder::new(root.path());
    let (mut store, _) = PuzzleStore::open(&folder.store_file(n, energy)).unwrap();
    store.add(&c).unwrap().then_some(c)
}

/// Chooses `option` in the Generate queue's `k`-th filter (cards, energy, rating).
pub fn filter(h: &mut Harness<'_, BoafApp>, k: usize, option: &str) {
    h.get_all_by_role_and_label(egui::Role::ComboBox, "Show")
        .nth(k)
        .unwrap()
        .click();
    h.run();
    // The popup's options are buttons; the rows' names are labels.
    h.get_by_role_and_label(egui::Role::Button, option).click();
    h.run();
}

/// Whether a label containing `text` shows after resting the pointer on the
/// first widget labelled `label` (of this role, if given): its tooltip.
pub fn tooltip_of_has(
    h: &mut Harness<'_, BoafApp>,
    role: Option<egui::Role>,
    label: &str,
    text: &str,
) -> bool {
    match role {
        Some(role) => h
            .get_all_by_role_and_label(role, label)
            .next()
            .unwrap()
            .hover(),
        None => h.get_all_by_label(label).next().unwrap().hover(),
    }
    // Tooltips wait for the pointer to rest; a step is a quarter second.
    for _ in 0..4 {
        h.step();
    }
    let shown = h.query_by_label_contains(text).is_some();
    h.hover_at(egui::pos2(1.0, 1.0));
    h.run();
    shown
}
