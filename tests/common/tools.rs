//! The system tools some tests drive (Xvfb, xdotool, poppler's pdftotext…):
//! whether one is on the PATH.

use std::process::{Command, Stdio};

/// Whether `tool` is on the PATH.
pub fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
