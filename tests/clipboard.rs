//! The app's copy and paste reach the system clipboard: the real `boaf`
//! window on a virtual X11 display (Xvfb), driven by `xdotool`, puts a
//! puzzle's id where `xclip` reads it ("Copy id"), and text that `xclip`
//! puts on the clipboard pastes into the Rate panel's notes and is saved.
//!
//! Where to click is read from the same app in egui_kittest, over a copy of
//! the same folder at the same window size, so the test follows the layout.
//!
//! It needs Xvfb, xclip and xdotool (and Mesa's GL), which `tests/run`
//! installs; `tests/run` also sets `BOAF_X11_TESTS=1`, which makes their
//! absence a failure rather than a skip.

#![cfg(feature = "app")]

#[path = "../src/core/tests/common/temp.rs"]
mod temp;
#[path = "common/tools.rs"]
mod tools;

use boaf_app::BoafApp;
use boaf_core::engine::notation::puzzle_id;
use boaf_core::folder::Folder;
use boaf_core::study::ratings::read_ratings;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use temp::TempDir;
use tools::have;

/// The app's window size (`boaf_app::run` opens it at this size).
const WINDOW: egui::Vec2 = egui::vec2(1200.0, 800.0);

/// A child process stopped when the test ends, pass or fail: asked first
/// (so that Xvfb removes its socket and lock), then killed.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let pid = self.0.id().to_string();
        // The shell's own kill: a bare machine may have no kill program.
        let _ = Command::new("sh")
            .args(["-c", &format!("kill -TERM {pid}")])
            .status();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(3) {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Polls `f` every 100 ms until it gives a value, or fails after `limit`.
fn wait_for<T>(what: &str, limit: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Starts Xvfb on the first free display number; returns it and the number.
fn virtual_display() -> (Killed, String) {
    let n = (90..200)
        .find(|n| {
            !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
                && !Path::new(&format!("/tmp/.X{n}-lock")).exists()
        })
        .expect("a free X display number");
    let display = format!(":{n}");
    let xvfb = Command::new("Xvfb")
        .args([&display, "-screen", "0", "1400x900x24", "-nolisten", "tcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("Xvfb starts");
    let socket = format!("/tmp/.X11-unix/X{n}");
    wait_for("Xvfb's socket", Duration::from_secs(60), || {
        Path::new(&socket).exists().then_some(())
    });
    (Killed(xvfb), display)
}

/// Runs a tool on the display; its standard output.
fn on(display: &str, tool: &str, args: &[&str]) -> String {
    let out = Command::new(tool)
        .args(args)
        .env("DISPLAY", display)
        .stderr(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{tool} runs: {e}"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The centre of the widget labelled `label` (the last one of that label,
/// lowest on the screen), in the window's pixels.
fn centre(h: &Harness<'_, BoafApp>, label: &str) -> egui::Pos2 {
    let all: Vec<_> = h.query_all_by_label(label).collect();
    let node = all
        .iter()
        .max_by(|a, b| a.rect().center().y.total_cmp(&b.rect().center().y))
        .unwrap_or_else(|| panic!("a widget labelled {label:?}"));
    node.rect().center()
}

/// Clicks at `at` in the real window (at 0,0 on a display with no window
/// manager, at scale 1), and gives it time to repaint.
fn click_at(display: &str, at: egui::Pos2) {
    let (x, y) = (at.x.round().to_string(), at.y.round().to_string());
    on(display, "xdotool", &["mousemove", &x, &y, "click", "1"]);
    std::thread::sleep(Duration::from_millis(400));
}

/// Clicks the widget labelled `label` in the harness and in the real window.
fn click_both(h: &mut Harness<'_, BoafApp>, display: &str, label: &str) {
    let at = centre(h, label);
    click_at(display, at);
    let all: Vec<_> = h.query_all_by_label(label).collect();
    let node = all
        .into_iter()
        .max_by(|a, b| a.rect().center().y.total_cmp(&b.rect().center().y))
        .unwrap();
    node.click();
    h.run();
}

#[test]
fn a_copied_id_reaches_the_x11_clipboard_and_pasted_text_reaches_the_notes() {
    let missing: Vec<_> = ["Xvfb", "xclip", "xdotool"]
        .into_iter()
        .filter(|t| !have(t))
        .collect();
    if !missing.is_empty() {
        assert!(
            std::env::var("BOAF_X11_TESTS").as_deref() != Ok("1"),
            "the X11 clipboard test needs {missing:?}: run tests/run, which installs them"
        );
        eprintln!("skipped: no {missing:?} (tests/run installs them and runs this test)");
        return;
    }
    // One 6-card puzzle in a working folder, made by the CLI; a copy of it
    // for the harness, so that nothing the harness does touches the app's.
    let dir = TempDir::new("clipboard");
    let mirror = TempDir::new("clipboard-mirror");
    let boaf = env!("CARGO_BIN_EXE_boaf");
    for root in [&dir, &mirror] {
        let made = Command::new(boaf)
            .args(["generate", "-n", "6", "--count", "1", "--seed", "1"])
            .current_dir(root.path())
            .output()
            .unwrap();
        assert!(made.status.success(), "{made:?}");
    }
    let (stored, bad) = Folder::new(dir.path()).read_stores();
    assert!(bad.is_empty() && stored.len() == 1, "{bad:?}");
    let id = puzzle_id(&stored[0].state().unwrap());

    let (_xvfb, display) = virtual_display();
    // The app's messages go to a file, to be shown if it never opens.
    let said = dir.join("app-stderr.txt");
    let mut app = Killed(
        Command::new(boaf)
            .current_dir(dir.path())
            .env("DISPLAY", &display)
            .env_remove("WAYLAND_DISPLAY")
            .env("WINIT_X11_SCALE_FACTOR", "1")
            .env("RUST_BACKTRACE", "1")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&said).unwrap())
            .spawn()
            .unwrap(),
    );
    // Generous bounds: on a loaded machine the app's first frame in software
    // GL took over 30 s once; each wait ends as soon as its thing is there.
    let window = wait_for("the app's window", Duration::from_secs(120), || {
        if let Ok(Some(status)) = app.0.try_wait() {
            let text = std::fs::read_to_string(&said).unwrap_or_default();
            panic!("the app ended ({status}) before its window opened:\n{text}");
        }
        let found = on(&display, "xdotool", &["search", "--name", "^boaf"]);
        found.lines().next().map(str::to_string)
    });
    std::thread::sleep(Duration::from_secs(1));

    let mut h = Harness::builder()
        .with_size(WINDOW)
        .with_max_steps(100)
        .build_ui_state(
            |ui, app: &mut BoafApp| app.show(ui),
            BoafApp::new(Folder::new(mirror.path())),
        );
    h.run();

    // Copy id, on the queue's row: the id is on the X11 clipboard. (Clicked
    // again if need be: a click before the window's first frame is lost.)
    let copied = wait_for("the copied id", Duration::from_secs(60), || {
        click_at(&display, centre(&h, "Copy id"));
        let text = on(&display, "xclip", &["-o", "-selection", "clipboard"]);
        (text == id).then_some(text)
    });
    assert_eq!(copied, id);

    // Text put on the X11 clipboard by another program pastes into the notes.
    click_both(&mut h, &display, "Play");
    click_both(&mut h, &display, "Rate");
    let notes = "pasted from X11: 10♥ onto 9♥";
    let mut xclip = Command::new("xclip")
        .args(["-i", "-selection", "clipboard"])
        .env("DISPLAY", &display)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    xclip
        .stdin
        .take()
        .unwrap()
        .write_all(notes.as_bytes())
        .unwrap();
    // xclip goes on serving the selection in the background; its first
    // process ends once it has read the text.
    xclip.wait().unwrap();
    let field = h
        .get_by_role(egui::Role::MultilineTextInput)
        .rect()
        .center();
    click_at(&display, field);
    // With no window manager, the keyboard goes where it is sent.
    on(&display, "xdotool", &["windowfocus", "--sync", &window]);
    on(&display, "xdotool", &["key", "ctrl+v"]);
    std::thread::sleep(Duration::from_millis(500));
    click_at(&display, centre(&h, "Save rating"));
    let ratings = Folder::new(dir.path()).ratings();
    let table = wait_for("the saved rating", Duration::from_secs(30), || {
        read_ratings(&ratings).ok().filter(|t| !t.rows.is_empty())
    });
    assert_eq!(table.rows.len(), 1);
    assert_eq!(table.text(0, "puzzle"), Some(stored[0].puzzle.as_str()));
    assert_eq!(table.text(0, "notes"), Some(notes));
}
