//! The browser tests' harness: headless Chromium through chromedriver
//! (WebDriver, by fantoccini), shared by the rater's page's test
//! (src/server/tests/browser.rs) and the puzzle site's (tests/site.rs).
//!
//! Without chromium and chromedriver a test says so and passes; with
//! `BOAF_BROWSER_TESTS=1` (as `tests/run` sets) it fails instead.
#![allow(dead_code)]

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A Chromium session (1280×800) and its chromedriver, or `None` (the test
/// is skipped) when the tools are missing and not required.
pub async fn session() -> Option<(Driver, Client)> {
    let required = std::env::var_os("BOAF_BROWSER_TESTS").is_some_and(|v| v == "1");
    let (Some(chromium), Some(chromedriver)) = (on_path("chromium"), on_path("chromedriver"))
    else {
        assert!(
            !required,
            "BOAF_BROWSER_TESTS=1 but chromium or chromedriver is not on PATH \
             (Debian: apt-get install chromium chromium-driver)"
        );
        eprintln!(
            "skipped: the browser test needs chromium and chromedriver on PATH \
             (Debian: apt-get install chromium chromium-driver; tests/run installs them)"
        );
        return None;
    };
    let (driver, driver_url) = start_driver(&chromedriver);
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1280,800",
                     "--lang=en-US"],
        }),
    );
    let c = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&driver_url)
        .await
        .expect("a chromium session through chromedriver");
    Some((driver, c))
}

/// The path of a program on PATH, if it is there.
pub fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|dir| Path::new(dir).join(name))
        .find(|p| p.is_file())
}

/// chromedriver, stopped when dropped.
pub struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts chromedriver on a free loopback port; its address once it listens.
pub fn start_driver(path: &Path) -> (Driver, String) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(path)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver(child);
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let started = Instant::now();
    while TcpStream::connect(addr).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "chromedriver did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (driver, format!("http://{addr}"))
}

/// Runs a script in the page and returns its value (a promise is awaited).
pub async fn run(c: &Client, script: &str, args: Vec<Value>) -> Value {
    c.execute(script, args)
        .await
        .unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// Waits until a script's value is `want`.
pub async fn wait_for(c: &Client, script: &str, want: Value) {
    let started = Instant::now();
    loop {
        let got = run(c, script, vec![]).await;
        if got == want {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{script} is {got}, not {want}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The text of the element `css`.
pub async fn text(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

pub async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"));
}

pub async fn click_cell(c: &Client, cell: u8) {
    click(c, &format!("#board [data-cell=\"{cell}\"]")).await;
}

/// Where the screenshots go: the README's, or a scratch folder.
pub fn screenshot_dir(scratch: &Path, assets: PathBuf) -> PathBuf {
    if std::env::var_os("BOAF_SCREENSHOTS").is_some_and(|v| v == "1") {
        assets
    } else {
        scratch.to_path_buf()
    }
}
