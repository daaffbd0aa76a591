//! The candidate queue under the Generate panel: its sort, its filter (by
//! cards, energy, and rated, unrated or in progress, saying how many rows it
//! hides), the rated and in-progress marks, and the rows that open a
//! candidate.
//!
//! Values of different energies are on different scales, so sorting by
//! energy value with more than one energy shown sorts within each energy
//! (the energies by name, then each one's values); the value column's
//! header names the energy when the rows shown share one, and says so when
//! they do not.

use super::play::PlayPanel;
use super::{BoafApp, Tab};
use boaf_core::engine::feature::Feature;
use boaf_core::format;
use boaf_core::generator::pipeline::{Candidate, SortKey, Source};
use eframe::egui;
use std::collections::{BTreeSet, HashSet};

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

/// What the grade column means.
const GRADE_HELP: &str = "The difficulty grade: the weakest agent that solves the puzzle \
    (greedy or random play: Easy; MCTS on a small, large or larger budget: Medium, Hard, \
    Expert), capped by its moves; — when unsolvable or its difficulty features were not \
    computed";

/// Which candidates the filter keeps, by their rating.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
enum Which {
    /// Rated or not.
    #[default]
    All,
    /// Not rated.
    Unrated,
    /// Rated.
    Rated,
    /// Played and not rated yet.
    InProgress,
}

impl Which {
    const ALL: [Which; 4] = [Which::All, Which::Unrated, Which::Rated, Which::InProgress];

    fn name(self) -> &'static str {
        match self {
            Which::All => "rated or not",
            Which::Unrated => "unrated only",
            Which::Rated => "rated only",
            Which::InProgress => "in progress only",
        }
    }
}

/// The queue's filter: `None` keeps every card count or energy.
#[derive(Clone, Debug, Default, PartialEq)]
struct Filter {
    cards: Option<usize>,
    energy: Option<String>,
    which: Which,
}

/// How the queue is shown: its sort, its filter, and the puzzles rated.
#[derive(Default)]
pub(super) struct QueueView {
    /// The sort key (`None`: by arrival).
    sort: Option<SortKey>,
    descending: bool,
    filter: Filter,
    /// The puzzles rated (their compact notation), marked in the queue.
    rated: HashSet<String>,
    /// "Export book…": the candidates ticked for a book, and its export.
    pub(super) export: super::export::BookExport,
}

impl QueueView {
    /// Sets the puzzles rated (at startup and after each saved rating).
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

    /// Whether the filter keeps this candidate (the next one opened after a
    /// rating or a Skip follows it too).
    pub(super) fn shown(&self, c: &Candidate, play: &PlayPanel) -> bool {
        let f = &self.filter;
        f.cards.is_none_or(|n| c.n == n)
            && f.energy.as_ref().is_none_or(|e| *e == c.energy_name)
            && match f.which {
                Which::All => true,
                Which::Unrated => !self.is_rated(c),
                Which::Rated => self.is_rated(c),
                Which::InProgress => !self.is_rated(c) && play.in_progress(&c.puzzle),
            }
    }

    /// Every candidate, in the queue's sort order (the filter aside). By
    /// energy value, candidates of different energies are sorted within
    /// their energy, by its name: their values are not comparable.
    pub(super) fn sorted(&self, queue: &[Candidate]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..queue.len()).collect();
        if let Some(key) = self.sort {
            order.sort_by(|&a, &b| {
                let (a, b) = (&queue[a], &queue[b]);
                let within = if key == SortKey::Energy {
                    a.energy_name.cmp(&b.energy_name)
                } else {
                    std::cmp::Ordering::Equal
                };
                within.then_with(|| Candidate::compare_by(a, b, key, self.descending))
            });
        } else if self.descending {
            order.reverse();
        }
        order
    }

    /// The sort, the filter and the count of rows it hides.
    fn controls(&mut self, ui: &mut egui::Ui, queue: &[Candidate], hidden: usize) {
        ui.horizontal(|ui| {
            let l = ui.label("sorted by");
            egui::ComboBox::from_id_salt("sort")
                .selected_text(self.sort.map_or("arrival".to_string(), |k| k.to_string()))
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.sort, None, "arrival");
                    ui.selectable_value(&mut self.sort, Some(SortKey::Energy), "energy")
                        .on_hover_text(
                            "By energy value, within each energy when several are shown",
                        );
                    ui.selectable_value(&mut self.sort, Some(SortKey::Grade), "grade")
                        .on_hover_text("By grade, Easy first; ungraded last");
                    for f in Feature::ALL {
                        ui.selectable_value(&mut self.sort, Some(SortKey::Feature(f)), f.column())
                            .on_hover_text(f.explain());
                    }
                })
                .response
                .labelled_by(l.id);
            ui.checkbox(&mut self.descending, "descending");
            ui.separator();
            let l = ui.label("Show");
            let cards: BTreeSet<usize> = queue.iter().map(|c| c.n).collect();
            let f = &mut self.filter;
            egui::ComboBox::from_id_salt("filter-cards")
                .selected_text(f.cards.map_or("all cards".into(), |n| format!("{n} cards")))
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut f.cards, None, "all cards");
                    for n in cards {
                        ui.selectable_value(&mut f.cards, Some(n), format!("{n} cards"));
                    }
                })
                .response
                .labelled_by(l.id);
            let energies: BTreeSet<&str> = queue.iter().map(|c| c.energy_name.as_str()).collect();
            egui::ComboBox::from_id_salt("filter-energy")
                .selected_text(f.energy.as_deref().unwrap_or("all energies"))
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut f.energy, None, "all energies");
                    for e in energies {
                        ui.selectable_value(&mut f.energy, Some(e.to_string()), e);
                    }
                })
                .response
                .labelled_by(l.id);
            egui::ComboBox::from_id_salt("filter-which")
                .selected_text(f.which.name())
                .show_ui(ui, |ui| {
                    for w in Which::ALL {
                        ui.selectable_value(&mut f.which, w, w.name());
                    }
                })
                .response
                .labelled_by(l.id)
                .on_hover_text(
                    "Which candidates the queue shows; Skip and Save open the next one it shows",
                );
            if *f != Filter::default() {
                ui.label(format!("hides {hidden} of {}", queue.len()));
            }
        });
    }
}

impl BoafApp {
    /// The queue's candidates the filter shows, in its sort order.
    pub(super) fn shown_order(&self) -> Vec<usize> {
        let view = &self.generate.queue;
        view.sorted(&self.queue)
            .into_iter()
            .filter(|&i| view.shown(&self.queue[i], &self.play))
            .collect()
    }

    /// The queue: its controls, a warning for extrapolated candidates, and
    /// one row per candidate shown.
    pub(super) fn queue_ui(&mut self, ui: &mut egui::Ui) {
        let order = self.shown_order();
        let view = &self.generate.queue;
        let rated = self.queue.iter().filter(|c| view.is_rated(c)).count();
        ui.strong(format!("Candidates ({}, {rated} rated)", self.queue.len()));
        let hidden = self.queue.len() - order.len();
        self.generate.queue.controls(ui, &self.queue, hidden);
        self.export_ui(ui, &order);
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
        // The value column names its energy when the rows shown share one.
        let shown_energies: BTreeSet<&str> = order
            .iter()
            .map(|&i| self.queue[i].energy_name.as_str())
            .collect();
        let (value_header, value_help) = match shown_energies.iter().next() {
            Some(one) if shown_energies.len() == 1 => (
                format!("{one} value"),
                format!(
                    "The candidate's value of the energy {one}, from its exact features: lower is better"
                ),
            ),
            _ => (
                "energy value".to_string(),
                "The candidate's value of its own energy (named in the row), from its exact \
                 features: lower is better. Values of different energies are on different \
                 scales: sorted by energy, the rows are sorted within each energy, by name"
                    .to_string(),
            ),
        };
        let mut open = None;
        let mut ticked = None;
        let view = &self.generate.queue;
        egui::Grid::new("queue")
            .striped(true)
            .num_columns(7 + COLUMNS.len())
            .show(ui, |ui| {
                ui.strong("");
                ui.strong("");
                ui.strong("#")
                    .on_hover_text("The candidate's place in the queue");
                ui.strong("n").on_hover_text(Feature::N.explain());
                ui.strong("grade").on_hover_text(GRADE_HELP);
                ui.strong("energy name").on_hover_text(
                    "The name of the energy the search minimized (hover a name for its id)",
                );
                ui.strong(&value_header).on_hover_text(&value_help);
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
                        if super::export::tick(ui, view.export.is_selected(c)) {
                            ticked = Some(i);
                        }
                    });
                    if view.is_rated(c) {
                        ui.label("✔ rated");
                    } else if self.play.in_progress(&c.puzzle) {
                        ui.label("in progress")
                            .on_hover_text("Played and not rated yet: Play resumes it");
                    } else {
                        ui.label("");
                    }
                    ui.monospace(format!("#{}", i + 1));
                    ui.label(c.n.to_string());
                    ui.label(c.grade().map_or(format::MISSING, |g| g.name()))
                        .on_hover_text(GRADE_HELP);
                    // An entered puzzle says so, next to the energy that values it.
                    let energy = match c.source {
                        Source::Generated => c.energy_name.clone(),
                        Source::Entered => format!("{} · entered", c.energy_name),
                    };
                    ui.label(energy).on_hover_text(&c.energy_id);
                    ui.horizontal(|ui| {
                        ui.label(format::number(Some(c.energy)))
                            .on_hover_text(format!(
                                "{}'s value: {} (lower is better)",
                                c.energy_name,
                                format::number(Some(c.energy))
                            ));
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
        if let Some(i) = ticked {
            self.generate.queue.export.toggle(&self.queue[i]);
        }
        if let Some(i) = open {
            self.open(i);
            self.tab = Tab::Play;
        }
    }
}
