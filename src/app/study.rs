//! The Study panel: the rating studies in the working folder's database
//! (open or closed, puzzles, raters, ratings), a new study made from the
//! Generate queue's candidates as filtered, open, close and export; and
//! the server `boaf serve` runs, started and stopped in-process, with the
//! raters' link, a QR code of it for phones, the admin secret, and live
//! counts per puzzle and per rater.
//!
//! Every store call and the server's start and stop run on the panel's
//! worker thread (an [`Answerer`]), one at a time in the order asked; the
//! UI thread only queues requests and drains answers.

use super::BoafApp;
use super::task::{Answerer, Poll};
use boaf_core::folder::Folder;
use boaf_core::format::plural;
use boaf_core::generator::pipeline::Candidate;
use boaf_server::answers::{Counts, NewStudy, Study};
use boaf_server::export;
use boaf_server::http::{Limits, Running, Server, start};
use boaf_server::store::Store;
use eframe::egui;
use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

/// How often the list and the counts are read while the panel is shown.
const REFRESH: Duration = Duration::from_secs(2);

/// The QR code's light border, in modules (the standard's quiet zone).
const QUIET: usize = 4;

/// What the panel asks its worker.
enum Ask {
    /// The studies, and the counts of the one named.
    Refresh(Option<String>),
    /// A new study of these candidates.
    Create(NewStudy, Vec<Candidate>),
    /// Opens or closes a study.
    SetOpen(String, bool),
    /// Writes a study's ratings beside the database.
    Export(String),
    /// Starts the server on this address.
    Start(SocketAddr),
    /// Stops it.
    Stop(Running),
}

/// What came of a request.
enum Event {
    /// A list or counts, nothing more.
    Nothing,
    /// Done, as this line says.
    Note(String),
    /// Refused or failed, as this line says.
    Error(String),
    /// The server listens; its admin secret, and the host raters reach it
    /// by (`None`: on every address, and the LAN address was not found).
    Started(Running, String, Option<IpAddr>),
    /// The server stopped (or failed to stop cleanly).
    Stopped(Result<(), String>),
}

/// The worker's answer: the studies as they are now, the counts asked for,
/// and what came of the request.
struct Reply {
    studies: Result<Vec<Study>, String>,
    counts: Option<(String, Counts)>,
    event: Event,
}

/// The worker's side: the folder and its study database, opened once.
struct Worker {
    folder: Folder,
    store: Option<Store>,
}

impl Worker {
    fn store(&mut self) -> Result<&mut Store, String> {
        if self.store.is_none() {
            let path = self.folder.studies_db();
            let store = Store::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            self.store = Some(store);
        }
        Ok(self.store.as_mut().expect("opened above"))
    }

    /// Does what was asked, then reads the studies.
    fn answer(&mut self, ask: Ask) -> Reply {
        let mut counts = None;
        let event = match ask {
            Ask::Refresh(name) => match (name, self.store()) {
                (Some(name), Ok(store)) => match store.counts(&name) {
                    Ok(c) => {
                        counts = Some((name, c));
                        Event::Nothing
                    }
                    Err(e) => Event::Error(e.to_string()),
                },
                _ => Event::Nothing,
            },
            Ask::Create(new, puzzles) => self.act(|s| {
                let made = s.create_study(&new, &puzzles)?;
                Ok(format!("created {}", line(&made)))
            }),
            Ask::SetOpen(name, open) => self.act(|s| Ok(line(&s.set_open(&name, open)?))),
            Ask::Export(name) => {
                let path = export::default_path(&self.folder, &name);
                self.act(|s| {
                    let n = export::export(s, &name, &path)?;
                    Ok(format!(
                        "{} of {name} written to {}",
                        plural(n, "rating"),
                        path.display()
                    ))
                })
            }
            Ask::Start(addr) => self.start(addr),
            Ask::Stop(running) => Event::Stopped(running.stop().map_err(|e| e.to_string())),
        };
        let studies = self
            .store()
            .and_then(|s| s.studies().map_err(|e| e.to_string()));
        Reply {
            studies,
            counts,
            event,
        }
    }

    /// Runs a store action, its line or its error as the event.
    fn act(
        &mut self,
        f: impl FnOnce(&mut Store) -> Result<String, Box<dyn std::error::Error>>,
    ) -> Event {
        match self.store().map(|s| f(s).map_err(|e| e.to_string())) {
            Ok(Ok(note)) => Event::Note(note),
            Ok(Err(e)) | Err(e) => Event::Error(e),
        }
    }

    /// Starts the server on a store of its own, with a new admin secret
    /// (as `boaf serve` does).
    fn start(&mut self, addr: SocketAddr) -> Event {
        let path = self.folder.studies_db();
        let started = Store::open(&path)
            .map_err(|e| format!("{}: {e}", path.display()))
            .and_then(|mut store| {
                let secret = store.new_admin_secret().map_err(|e| e.to_string())?;
                let server = Server::new(store, Limits::default(), None);
                let running = start(addr, server).map_err(|e| format!("serving on {addr}: {e}"))?;
                Ok((running, secret))
            });
        match started {
            Ok((running, secret)) => {
                let ip = running.addr().ip();
                let host = if ip.is_unspecified() {
                    lan_ip()
                } else {
                    Some(ip)
                };
                Event::Started(running, secret, host)
            }
            Err(e) => Event::Error(e),
        }
    }
}

/// One study as a line (as `boaf study list` shows it).
fn line(s: &Study) -> String {
    format!(
        "{}: {}, {}, {} per rater, {}, {}",
        s.name,
        if s.open { "open" } else { "closed" },
        plural(s.puzzles as usize, "puzzle"),
        s.per_rater,
        plural(s.raters as usize, "rater"),
        plural(s.ratings as usize, "rating"),
    )
}

/// This machine's address on its LAN, if the routing table names one.
/// Connecting a UDP socket sends nothing: it only picks the route out.
fn lan_ip() -> Option<IpAddr> {
    let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).ok()?;
    socket.connect((Ipv4Addr::new(192, 0, 2, 1), 9)).ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

/// A striped grid under a row of bold headers; `rows` adds the rows.
fn table(ui: &mut egui::Ui, id: &str, headers: &[&str], rows: impl FnOnce(&mut egui::Ui)) {
    egui::Grid::new(id).striped(true).show(ui, |ui| {
        for h in headers {
            ui.strong(*h);
        }
        ui.end_row();
        rows(ui);
    });
}

/// The server as the panel holds it.
struct Serving {
    running: Running,
    secret: String,
    /// The host in links; `None` when the LAN address was not found.
    host: Option<IpAddr>,
}

impl Serving {
    /// The raters' link of a study (with `0.0.0.0` when the LAN address is unknown).
    fn link(&self, study: &str) -> String {
        let bound = self.running.addr();
        let at = SocketAddr::new(self.host.unwrap_or(bound.ip()), bound.port());
        format!("http://{at}/s/{study}")
    }
}

/// A QR code's modules, row by row, dark or light.
struct QrModules {
    /// Modules on a side.
    width: usize,
    /// Whether each module is dark, row by row.
    dark: Vec<bool>,
}

impl QrModules {
    /// The QR code of `text`, if it fits one.
    fn of(text: &str) -> Option<QrModules> {
        let code = qrcode::QrCode::new(text.as_bytes()).ok()?;
        let dark = code
            .to_colors()
            .into_iter()
            .map(|c| c == qrcode::Color::Dark)
            .collect();
        Some(QrModules {
            width: code.width(),
            dark,
        })
    }

    /// Paints the code, its quiet zone included, `module` points a module,
    /// black on white.
    fn paint(&self, ui: &mut egui::Ui, module: f32) -> egui::Response {
        let side = (self.width + 2 * QUIET) as f32 * module;
        let (rect, response) = ui.allocate_exact_size(egui::vec2(side, side), egui::Sense::hover());
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 0.0, egui::Color32::WHITE);
        for (i, _) in self.dark.iter().enumerate().filter(|(_, d)| **d) {
            let (x, y) = (i % self.width + QUIET, i / self.width + QUIET);
            let min = rect.min + egui::vec2(x as f32, y as f32) * module;
            let cell = egui::Rect::from_min_size(min, egui::vec2(module, module));
            painter.rect_filled(cell, 0.0, egui::Color32::BLACK);
        }
        response
    }
}

/// The Study panel's state.
pub(super) struct StudyPanel {
    folder: Folder,
    worker: Option<Answerer<Ask, Reply>>,
    /// Requests waiting for the worker, in order.
    asks: VecDeque<Ask>,
    studies: Vec<Study>,
    /// The study whose link and counts are shown.
    selected: Option<String>,
    counts: Option<(String, Counts)>,
    refreshed: Option<Instant>,
    name: String,
    intro: String,
    per_rater: u32,
    completion_code: String,
    port: String,
    lan: bool,
    serving: Option<Serving>,
    /// "starting" or "stopping" while the worker does it.
    busy: Option<&'static str>,
    /// The QR code drawn, and the link it is of.
    qr: Option<(String, QrModules)>,
}

impl StudyPanel {
    /// The panel over the working folder's study database (read when shown).
    pub(super) fn new(folder: &Folder) -> StudyPanel {
        StudyPanel {
            folder: folder.clone(),
            worker: None,
            asks: VecDeque::new(),
            studies: Vec::new(),
            selected: None,
            counts: None,
            refreshed: None,
            name: String::new(),
            intro: "Play each puzzle, then rate how much you enjoyed it, from 0 to 10.".into(),
            per_rater: 8,
            completion_code: String::new(),
            port: "8080".into(),
            lan: false,
            serving: None,
            busy: None,
            qr: None,
        }
    }

    /// Queues a request for the worker.
    fn ask(&mut self, ask: Ask) {
        self.asks.push_back(ask);
    }

    /// Takes the worker's answer and hands it the next request; never
    /// waits. What came of a request, as a status line (`true`: an error).
    pub(super) fn poll(&mut self) -> Option<(String, bool)> {
        let worker = self.worker.as_mut()?;
        let mut said = None;
        match worker.poll() {
            Poll::Done(reply) => said = self.take(reply),
            Poll::Stopped => {
                self.worker = None;
                self.busy = None;
                return Some((
                    "the study worker stopped; showing the panel starts another".into(),
                    true,
                ));
            }
            Poll::Pending => {}
        }
        let worker = self.worker.as_mut()?;
        if !worker.is_waiting()
            && let Some(next) = self.asks.pop_front()
        {
            worker.ask(next);
        }
        said
    }

    /// Keeps an answer.
    fn take(&mut self, reply: Reply) -> Option<(String, bool)> {
        let mut said = None;
        match reply.studies {
            Ok(studies) => self.studies = studies,
            Err(e) => said = Some((e, true)),
        }
        if self
            .selected
            .as_ref()
            .is_none_or(|s| !self.studies.iter().any(|t| t.name == *s))
        {
            self.selected = self.studies.first().map(|s| s.name.clone());
            // The counts of the study now shown, without waiting for the next turn.
            self.refreshed = None;
        }
        if let Some(c) = reply.counts {
            self.counts = Some(c);
        }
        match reply.event {
            Event::Nothing => {}
            Event::Note(n) => said = Some((n, false)),
            Event::Error(e) => said = Some((e, true)),
            Event::Started(running, secret, host) => {
                said = Some((format!("serving on http://{}", running.addr()), false));
                self.serving = Some(Serving {
                    running,
                    secret,
                    host,
                });
            }
            Event::Stopped(Ok(())) => said = Some(("the server stopped".into(), false)),
            Event::Stopped(Err(e)) => said = Some((format!("the server stopped: {e}"), true)),
        }
        // Requests are answered in order: with no start or stop queued, none is under way.
        if !self
            .asks
            .iter()
            .any(|a| matches!(a, Ask::Start(_) | Ask::Stop(_)))
        {
            self.busy = None;
        }
        said
    }

    /// Whether a refresh is queued or under way.
    fn refreshing(&self) -> bool {
        self.asks.iter().any(|a| matches!(a, Ask::Refresh(_)))
    }

    /// The address the server is to bind, or why the port does not read.
    fn address(&self) -> Result<SocketAddr, String> {
        let port: u16 =
            self.port.trim().parse().map_err(|_| {
                format!("the port is a number from 0 to 65535, not {:?}", self.port)
            })?;
        let ip = if self.lan {
            Ipv4Addr::UNSPECIFIED
        } else {
            Ipv4Addr::LOCALHOST
        };
        Ok(SocketAddr::new(ip.into(), port))
    }

    /// The studies, one row each, with Open/Close and Export.
    fn list_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Studies");
        ui.weak(self.folder.show(&self.folder.studies_db()));
        if self.studies.is_empty() {
            ui.label("No studies yet: make one from the queue below.");
            return;
        }
        let mut asks = Vec::new();
        let headers = [
            "study",
            "state",
            "puzzles",
            "per rater",
            "raters",
            "ratings",
            "",
        ];
        table(ui, "studies", &headers, |ui| {
            for s in &self.studies {
                let chosen = self.selected.as_deref() == Some(s.name.as_str());
                if ui.selectable_label(chosen, &s.name).clicked() {
                    self.selected = Some(s.name.clone());
                    self.refreshed = None;
                }
                ui.label(if s.open { "open" } else { "closed" });
                for n in [s.puzzles, s.per_rater, s.raters, s.ratings] {
                    ui.label(n.to_string());
                }
                ui.horizontal(|ui| {
                    let (verb, open) = if s.open {
                        ("Close", false)
                    } else {
                        ("Open", true)
                    };
                    if ui.button(verb).clicked() {
                        asks.push(Ask::SetOpen(s.name.clone(), open));
                    }
                    if ui
                        .button("Export")
                        .on_hover_text("Write its ratings as a ratings CSV beside the database")
                        .clicked()
                    {
                        asks.push(Ask::Export(s.name.clone()));
                    }
                });
                ui.end_row();
            }
        });
        self.asks.extend(asks);
    }

    /// The form that makes a study of the queue's candidates shown.
    fn create_ui(&mut self, ui: &mut egui::Ui, shown: &[Candidate]) -> bool {
        ui.heading("New study");
        ui.label(format!(
            "Its puzzles: the {} the Generate queue shows (set its filter there).",
            plural(shown.len(), "candidate")
        ));
        egui::Grid::new("new-study").show(ui, |ui| {
            let l = ui.label("Name");
            ui.add(
                egui::TextEdit::singleline(&mut self.name).hint_text("letters, digits, - and _"),
            )
            .labelled_by(l.id);
            ui.end_row();
            let l = ui.label("Intro");
            ui.add(egui::TextEdit::multiline(&mut self.intro).desired_rows(3))
                .labelled_by(l.id);
            ui.end_row();
            let l = ui.label("Puzzles per rater");
            ui.add(egui::DragValue::new(&mut self.per_rater).range(1..=1000))
                .labelled_by(l.id);
            ui.end_row();
            let l = ui.label("Completion code");
            ui.add(egui::TextEdit::singleline(&mut self.completion_code).hint_text("optional"))
                .labelled_by(l.id);
            ui.end_row();
        });
        ui.add_enabled(!shown.is_empty(), egui::Button::new("Create study"))
            .clicked()
    }

    /// Start or Stop, the port and the LAN switch; the link, its QR code
    /// and the admin secret while serving.
    fn server_ui(&mut self, ui: &mut egui::Ui) -> Option<(String, bool)> {
        ui.heading("Server");
        let mut said = None;
        ui.horizontal(|ui| {
            let idle = self.serving.is_none() && self.busy.is_none();
            let l = ui.label("Port");
            ui.add_enabled(
                idle,
                egui::TextEdit::singleline(&mut self.port).desired_width(60.0),
            )
            .labelled_by(l.id)
            .on_hover_text("0: any free port");
            ui.add_enabled(
                idle,
                egui::Checkbox::new(&mut self.lan, "On the LAN (0.0.0.0)"),
            )
            .on_hover_text(
                "Phones on this network can reach it; 127.0.0.1 (this machine only) when off",
            );
            if let Some(doing) = self.busy {
                ui.spinner();
                ui.label(doing);
            } else if self.serving.is_some() {
                if ui.button("Stop").clicked() {
                    let serving = self.serving.take().expect("serving");
                    self.busy = Some("stopping");
                    self.ask(Ask::Stop(serving.running));
                }
            } else if ui.button("Start").clicked() {
                match self.address() {
                    Ok(addr) => {
                        self.busy = Some("starting");
                        self.ask(Ask::Start(addr));
                    }
                    Err(e) => said = Some((e, true)),
                }
            }
        });
        let Some(serving) = &self.serving else {
            ui.label(
                "Not serving. Start serves every study in the database, as `boaf serve` does.",
            );
            return said;
        };
        ui.label(format!("Serving on {}", serving.running.addr()));
        if serving.running.addr().ip().is_unspecified() && serving.host.is_none() {
            ui.label(
                "This machine's LAN address was not found: in the link, replace 0.0.0.0 with it.",
            );
        }
        ui.horizontal(|ui| {
            ui.label("Admin secret (shown once; only its hash is kept):");
            ui.monospace(&serving.secret);
        });
        let Some(study) = self.selected.clone() else {
            ui.label("Create a study to have a raters' link.");
            return said;
        };
        let link = serving.link(&study);
        ui.horizontal(|ui| {
            ui.label(format!("Raters' link for {study}:"));
            ui.hyperlink_to(&link, &link);
            if ui.button("Copy").clicked() {
                ui.ctx().copy_text(link.clone());
                said = Some((format!("copied {link}"), false));
            }
        });
        if self.qr.as_ref().is_none_or(|(of, _)| *of != link) {
            self.qr = QrModules::of(&link).map(|q| (link.clone(), q));
        }
        if let Some((_, qr)) = &self.qr {
            qr.paint(ui, 5.0)
                .on_hover_text(format!("QR code of {link}: phones open it with the camera"));
        }
        said
    }

    /// The counts of the selected study, per puzzle and per rater.
    fn counts_ui(&self, ui: &mut egui::Ui) {
        let Some((name, counts)) = &self.counts else {
            return;
        };
        if self.selected.as_ref() != Some(name) {
            return;
        }
        ui.heading(format!("Counts of {name}"));
        let rated: u32 = counts.puzzles.iter().map(|p| p.rated).sum();
        let skipped: u32 = counts.puzzles.iter().map(|p| p.skipped).sum();
        ui.label(format!(
            "{} from {}, {skipped} skipped",
            plural(rated as usize, "rating"),
            plural(counts.raters.len(), "rater")
        ));
        ui.columns(2, |cols| {
            table(
                &mut cols[0],
                "per-puzzle",
                &["puzzle", "rated", "skipped", "playing"],
                |ui| {
                    for p in &counts.puzzles {
                        ui.label(format!("#{}", p.id)).on_hover_text(&p.puzzle);
                        for n in [p.rated, p.skipped, p.open] {
                            ui.label(n.to_string());
                        }
                        ui.end_row();
                    }
                },
            );
            table(
                &mut cols[1],
                "per-rater",
                &["rater", "nickname", "rated", "skipped"],
                |ui| {
                    for r in &counts.raters {
                        ui.label(&r.rater);
                        ui.label(&r.nickname);
                        ui.label(r.rated.to_string());
                        ui.label(r.skipped.to_string());
                        ui.end_row();
                    }
                },
            );
        });
    }
}

impl BoafApp {
    /// Puts the panel's line, if any, in the status bar (`true`: an error).
    pub(super) fn tell(&mut self, said: Option<(String, bool)>) {
        match said {
            Some((text, true)) => self.say_error(text),
            Some((text, false)) => self.say(text),
            None => {}
        }
    }

    /// The Study panel; reads the studies and counts every [`REFRESH`]
    /// while shown.
    pub(super) fn study_ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        let panel = &mut self.study;
        if panel.worker.is_none() {
            let mut worker = Worker {
                folder: panel.folder.clone(),
                store: None,
            };
            panel.worker = Some(Answerer::spawn(&ctx, move |ask| worker.answer(ask)));
        }
        if panel.refreshed.is_none_or(|t| t.elapsed() >= REFRESH) && !panel.refreshing() {
            panel.refreshed = Some(Instant::now());
            panel.ask(Ask::Refresh(panel.selected.clone()));
        }
        ctx.request_repaint_after(REFRESH);
        panel.list_ui(ui);
        ui.separator();
        let shown: Vec<Candidate> = self
            .shown_order()
            .into_iter()
            .map(|i| self.queue[i].clone())
            .collect();
        let panel = &mut self.study;
        if panel.create_ui(ui, &shown) {
            let new = NewStudy {
                name: panel.name.trim().to_string(),
                intro: panel.intro.clone(),
                per_rater: panel.per_rater,
                completion_code: Some(panel.completion_code.trim().to_string())
                    .filter(|c| !c.is_empty()),
            };
            panel.selected = Some(new.name.clone());
            panel.refreshed = None;
            panel.ask(Ask::Create(new, shown));
        }
        ui.separator();
        let said = panel.server_ui(ui);
        self.tell(said);
        ui.separator();
        self.study.counts_ui(ui);
    }
}
