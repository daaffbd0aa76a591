//! "Make one by hand": a layout editor in the Generate panel. The designer
//! chooses a grid, clicks a cell and chooses its card (or no card) from a
//! picker of the deck. The editor refuses a card that is on the grid
//! already, and says where; it lists the cells still empty; and once every
//! cell is chosen it checks, in a task, whether the layout is solvable and
//! its halfway ratio. "Add to queue" enters it as "Open a puzzle" does.

use super::BoafApp;
use super::board::{cell_label, felt, paint_cell, suit_color};
use super::task::{Poll, Reporter, Task};
use boaf_core::engine::card::Card;
use boaf_core::engine::halfway::{Told, halfway_told};
use boaf_core::engine::limits::{Cancel, Limits};
use boaf_core::engine::solver::Solver;
use boaf_core::engine::state::{Grid, MAX_CELLS, State};
use boaf_core::format;
use eframe::egui::{self, Color32, Sense, Vec2};

/// The editor's board is drawn no larger than this.
const BOARD_SPACE: Vec2 = Vec2::new(640.0, 300.0);

/// What the designer chose for a cell.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Choice {
    /// Nothing yet: the cell is still empty.
    Unset,
    /// No card: the puzzle leaves the cell empty.
    NoCard,
    /// A card.
    Card(Card),
}

/// A complete layout's solvability and halfway ratio.
#[derive(Clone, Debug, PartialEq)]
struct Check {
    solvable: bool,
    halfway: f64,
}

/// A check running in the background, telling the halfway ratio's steps.
type Checking = Task<Result<Check, String>, Told>;

/// The editor: the layout being made, the chosen cell, the last refusal,
/// and the check of the complete layout.
pub(super) struct EditorPanel {
    grid: Grid,
    /// Each cell's choice, row by row.
    cells: Vec<Choice>,
    /// The cell the picker fills.
    selected: Option<usize>,
    /// Why the last choice was refused.
    refusal: Option<String>,
    /// The check running, and the layout it is for.
    checking: Option<(State, Checking)>,
    /// The last check's answer, and the layout it is for: shown only while
    /// the layout is still that one.
    answer: Option<(State, Result<Check, String>)>,
}

impl Default for EditorPanel {
    fn default() -> EditorPanel {
        EditorPanel {
            grid: Grid::SQUARE4,
            cells: vec![Choice::Unset; Grid::SQUARE4.cells()],
            selected: Some(0),
            refusal: None,
            checking: None,
            answer: None,
        }
    }
}

/// "row 1, column 3" for a cell (1-based).
fn place(grid: Grid, cell: usize) -> String {
    format!("row {}, column {}", grid.row(cell) + 1, grid.col(cell) + 1)
}

/// Solvability and the halfway ratio of `state`, stopped by `cancel`; each
/// step of the ratio goes to `steps` as it ends (a large puzzle's takes
/// seconds).
fn check(state: &State, cancel: &Cancel, steps: &Reporter<Told>) -> Result<Check, String> {
    let limits = Limits::default().cancelled_by(cancel);
    let solvable = Solver::new(limits.clone())
        .solve(state)
        .map_err(|e| e.to_string())?
        .is_solvable();
    // On every core: the same ratio, sooner for a large state space.
    let threads = boaf_core::parallel::cores();
    let tell = |told: Told| steps.report(told);
    let halfway = halfway_told(state, false, threads, &limits, Some(&tell))
        .map_err(|e| e.to_string())?
        .ratio();
    Ok(Check { solvable, halfway })
}

impl EditorPanel {
    /// The layout as a state, the unchosen cells empty. Never fails: a card
    /// is never placed twice.
    fn shown(&self) -> Option<State> {
        let tops: Vec<Option<Card>> = self
            .cells
            .iter()
            .map(|c| match c {
                Choice::Card(card) => Some(*card),
                _ => None,
            })
            .collect();
        State::new(self.grid, &tops).ok()
    }

    /// The layout as a puzzle, once every cell is chosen and it has at least
    /// two cards.
    fn complete(&self) -> Option<State> {
        let cards = self
            .cells
            .iter()
            .filter(|c| matches!(c, Choice::Card(_)))
            .count();
        (cards >= 2 && !self.cells.contains(&Choice::Unset))
            .then(|| self.shown())
            .flatten()
    }

    /// The cell that holds `card`, if one does.
    fn cell_of(&self, card: Card) -> Option<usize> {
        self.cells.iter().position(|&c| c == Choice::Card(card))
    }

    /// Puts `choice` in the selected cell, or says why not; the next cell
    /// is selected after a card, for entering a layout card by card.
    fn choose(&mut self, choice: Choice) {
        let Some(cell) = self.selected else {
            self.refusal = Some("Click a cell first".into());
            return;
        };
        if let Choice::Card(card) = choice
            && let Some(at) = self.cell_of(card).filter(|&at| at != cell)
        {
            self.refusal = Some(format!(
                "{} is already in {}",
                card.face(),
                place(self.grid, at)
            ));
            return;
        }
        self.refusal = None;
        self.cells[cell] = choice;
        if choice != Choice::Unset {
            self.selected = Some((cell + 1) % self.cells.len());
        }
    }

    /// A new grid of `rows`×`cols`; the choices that still have a cell keep it.
    fn resize(&mut self, rows: usize, cols: usize) {
        let Ok(grid) = Grid::new(rows, cols) else {
            return;
        };
        let old = self.grid;
        self.cells = (0..grid.cells())
            .map(|cell| {
                let (r, c) = (grid.row(cell), grid.col(cell));
                if r < old.rows() && c < old.cols() {
                    self.cells[r * old.cols() + c]
                } else {
                    Choice::Unset
                }
            })
            .collect();
        self.grid = grid;
        self.selected = Some(0);
        self.refusal = None;
    }

    /// Starts over from a copy of `state`'s layout, its empty cells as no card.
    fn copy(&mut self, state: &State) {
        self.grid = state.grid();
        self.cells = state
            .tops()
            .iter()
            .map(|t| t.map_or(Choice::NoCard, Choice::Card))
            .collect();
        self.selected = Some(0);
        self.refusal = None;
    }

    /// Takes a finished check, and starts one for a complete layout that
    /// has none; a check for an older layout is dropped (which stops it).
    fn refresh(&mut self, ctx: &egui::Context) {
        if let Some((state, task)) = &mut self.checking {
            match task.poll() {
                Poll::Pending => {}
                Poll::Done(answer) => {
                    self.answer = Some((state.clone(), answer));
                    self.checking = None;
                }
                Poll::Stopped => {
                    self.answer = Some((state.clone(), Err("the check stopped".into())));
                    self.checking = None;
                }
            }
        }
        let Some(layout) = self.complete() else {
            self.checking = None;
            return;
        };
        let answered = self.answer.as_ref().is_some_and(|(s, _)| *s == layout);
        let asked = self.checking.as_ref().is_some_and(|(s, _)| *s == layout);
        if !answered && !asked {
            let state = layout.clone();
            let task = Task::spawn(ctx, move |cancel, steps| check(&state, &cancel, &steps));
            self.checking = Some((layout, task));
        }
    }

    /// The cells still empty, row by row: "row 1: columns 2, 3; row 2: column 1".
    fn still_empty(&self) -> Option<String> {
        let mut rows: Vec<String> = Vec::new();
        for r in 0..self.grid.rows() {
            let cols: Vec<String> = (0..self.grid.cols())
                .filter(|&c| self.cells[r * self.grid.cols() + c] == Choice::Unset)
                .map(|c| (c + 1).to_string())
                .collect();
            if !cols.is_empty() {
                let noun = if cols.len() == 1 { "column" } else { "columns" };
                rows.push(format!("row {}: {noun} {}", r + 1, cols.join(", ")));
            }
        }
        (!rows.is_empty()).then(|| rows.join("; "))
    }

    /// The board: each cell a button named as on the Play board (an unset
    /// cell is an empty one, a cell left empty says "no card").
    fn board_ui(&mut self, ui: &mut egui::Ui) {
        let Some(state) = self.shown() else { return };
        let grid = self.grid;
        let (k, rects) = felt(ui, grid, BOARD_SPACE);
        for (cell, &rect) in rects.iter().enumerate() {
            let response = ui.interact(
                rect,
                egui::Id::unique(("boaf-editor-cell", cell)),
                Sense::click(),
            );
            let label = match self.cells[cell] {
                Choice::NoCard => format!("no card in cell {}", cell + 1),
                _ => cell_label(&state, cell),
            };
            response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
            let response = response.on_hover_text(place(grid, cell));
            if response.clicked() {
                self.selected = Some(cell);
                self.refusal = None;
            }
            let border = if self.selected == Some(cell) {
                Some(Color32::from_rgb(0x3d, 0x8b, 0xff))
            } else if response.hovered() {
                Some(Color32::from_white_alpha(90))
            } else {
                None
            };
            paint_cell(ui.painter(), rect, &state, cell, border);
            let mark = match self.cells[cell] {
                Choice::Unset => "?",
                Choice::NoCard => "no card",
                Choice::Card(_) => continue,
            };
            ui.painter().text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                mark,
                egui::FontId::proportional(16.0 * k.max(0.8)),
                Color32::from_gray(200),
            );
        }
    }

    /// The deck by suit and rank, each card a button that puts it in the
    /// selected cell; a card on the grid already is shaded.
    fn picker_ui(&mut self, ui: &mut egui::Ui) {
        let mut chosen = None;
        egui::Grid::new("editor-picker")
            .spacing([3.0, 3.0])
            .show(ui, |ui| {
                for suit in 0..4 {
                    for rank in 0..13 {
                        let card = Card::new(rank, suit);
                        let at = self.cell_of(card);
                        let fill = if at.is_some() {
                            Color32::from_gray(150)
                        } else {
                            Color32::from_rgb(0xfb, 0xfa, 0xf5)
                        };
                        let text = egui::RichText::new(card.face())
                            .color(suit_color(card.is_red()))
                            .strong();
                        let button = ui.add(
                            egui::Button::new(text)
                                .fill(fill)
                                .min_size(Vec2::new(38.0, 0.0)),
                        );
                        let button = match at {
                            Some(at) => button.on_hover_text(format!(
                                "{} is in {}",
                                card.face(),
                                place(self.grid, at)
                            )),
                            None => button,
                        };
                        if button.clicked() {
                            chosen = Some(Choice::Card(card));
                        }
                    }
                    ui.end_row();
                }
            });
        ui.horizontal(|ui| {
            if ui
                .button("No card")
                .on_hover_text("The puzzle leaves this cell empty")
                .clicked()
            {
                chosen = Some(Choice::NoCard);
            }
            if ui
                .button("Clear cell")
                .on_hover_text("Take back this cell's choice")
                .clicked()
            {
                chosen = Some(Choice::Unset);
            }
        });
        if let Some(choice) = chosen {
            self.choose(choice);
            // The board above was drawn before the choice.
            ui.ctx().request_repaint();
        }
    }

    /// What the editor says about the layout: a refusal, the cells still
    /// empty, and the check of a complete layout.
    fn verdict_ui(&mut self, ui: &mut egui::Ui) {
        if let Some(r) = &self.refusal {
            ui.colored_label(ui.visuals().error_fg_color, r);
        }
        if let Some(empty) = self.still_empty() {
            ui.label(format!("Still empty: {empty}"));
            return;
        }
        let Some(layout) = self.complete() else {
            ui.label("A puzzle needs at least 2 cards.");
            return;
        };
        match &self.answer {
            Some((state, answer)) if *state == layout => match answer {
                Ok(c) => {
                    ui.horizontal(|ui| {
                        ui.strong(if c.solvable { "Solvable" } else { "Unsolvable" });
                        ui.label(format!("halfway ratio {}", format::number(Some(c.halfway))));
                    });
                }
                Err(e) => {
                    ui.colored_label(ui.visuals().error_fg_color, format!("cannot check: {e}"));
                }
            },
            _ => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("checking whether it is solvable, and its halfway ratio…");
                });
                let step = self.checking.as_ref().and_then(|(_, task)| task.progress());
                if let Some(told) = step {
                    ui.weak(told.to_string());
                }
            }
        }
    }
}

impl BoafApp {
    /// The "Make one by hand" section of the Generate panel.
    pub(super) fn editor_ui(&mut self, ui: &mut egui::Ui) {
        egui::CollapsingHeader::new("Make one by hand")
            .id_salt("editor")
            .show(ui, |ui| self.editor_body(ui));
    }

    fn editor_body(&mut self, ui: &mut egui::Ui) {
        self.editor.refresh(ui.ctx());
        let current = self
            .current
            .and_then(|i| Some((i, self.queue.get(i)?.state())));
        let e = &mut self.editor;
        ui.horizontal(|ui| {
            let (mut rows, mut cols) = (e.grid.rows(), e.grid.cols());
            let l = ui.label("Rows");
            ui.add(egui::DragValue::new(&mut rows).range(1..=MAX_CELLS / cols))
                .labelled_by(l.id)
                .on_hover_text("At most 16 cells in all");
            let l = ui.label("Columns");
            ui.add(egui::DragValue::new(&mut cols).range(1..=MAX_CELLS / rows))
                .labelled_by(l.id)
                .on_hover_text("At most 16 cells in all");
            if (rows, cols) != (e.grid.rows(), e.grid.cols()) {
                e.resize(rows, cols);
            }
            if ui
                .button("Start over")
                .on_hover_text("Every cell empty again")
                .clicked()
            {
                let grid = e.grid;
                *e = EditorPanel {
                    grid,
                    cells: vec![Choice::Unset; grid.cells()],
                    ..EditorPanel::default()
                };
            }
            let copy = ui.add_enabled(current.is_some(), egui::Button::new("Edit a copy"));
            if let Some((i, state)) = current {
                let copy = copy.on_hover_text(format!("Start from #{}'s layout", i + 1));
                if copy.clicked() {
                    match state {
                        Ok(state) => e.copy(&state),
                        Err(err) => e.refusal = Some(format!("cannot copy #{}: {err}", i + 1)),
                    }
                }
            }
            if ui
                .add_enabled(
                    e.cells.contains(&Choice::Unset),
                    egui::Button::new("No card in the rest"),
                )
                .on_hover_text("Leave every cell still empty without a card")
                .clicked()
            {
                for cell in e.cells.iter_mut().filter(|c| **c == Choice::Unset) {
                    *cell = Choice::NoCard;
                }
            }
        });
        e.board_ui(ui);
        e.picker_ui(ui);
        e.verdict_ui(ui);
        let layout = e.complete();
        let entering = self.is_entering();
        let add = ui
            .add_enabled(
                layout.is_some() && !entering,
                egui::Button::new("Add to queue"),
            )
            .on_hover_text("Enter this layout as a candidate, as \"Open a puzzle\" does");
        if add.clicked()
            && let Some(state) = layout
        {
            self.enter_puzzle(state, ui.ctx());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use boaf_core::engine::deal::deal;
    use boaf_core::engine::halfway::Step;
    use std::time::{Duration, Instant};

    #[test]
    fn a_check_tells_each_step_of_the_halfway_ratio_as_it_ends() {
        let ctx = egui::Context::default();
        let state = deal(1);
        let mut task = Task::spawn(&ctx, move |cancel, steps| check(&state, &cancel, &steps));
        let start = Instant::now();
        let answer = loop {
            match task.poll() {
                Poll::Pending if start.elapsed() < Duration::from_secs(60) => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                other => break other,
            }
        };
        // Deal 1: 37 461 of its 3 216 593 states at depth 8 are solvable
        // (the perft tests).
        let expected = Check {
            solvable: true,
            halfway: 37_461.0 / 3_216_593.0,
        };
        assert_eq!(answer, Poll::Done(Ok(expected)));
        // The last step told: all nine ended (the walk's eight depths and
        // the count), the last of them the count or the walk's last depth.
        let last = *task.progress().expect("the steps were told");
        assert_eq!((last.done, last.of), (9, 9));
        let last_steps = [
            Step::Counted { states: 3_216_593 },
            Step::Walked {
                depth: 8,
                solvable: Some(37_461),
            },
        ];
        assert!(last_steps.contains(&last.step), "{last:?}");
    }
}
