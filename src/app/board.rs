//! Drawing the board as real cards, and turning clicks and drags on it into
//! moves. Each cell is an accessible button named by [`cell_label`], which is
//! how the tests (and screen readers) find it.

use boaf_core::engine::state::{Move, State};
use eframe::egui::{self, Color32, CornerRadius, FontId, Rect, Sense, Stroke, StrokeKind, Vec2};

const CARD: Vec2 = Vec2::new(76.0, 106.0);
const GAP: f32 = 14.0;

/// The accessible name of a cell: `card KH` for a stack topped by the king
/// of hearts, `empty cell 3` (1-based, row by row) for an empty cell.
pub fn cell_label(state: &State, cell: usize) -> String {
    match state.top(cell) {
        Some(card) => format!("card {card}"),
        None => format!("empty cell {}", cell + 1),
    }
}

/// What the person did to the board this frame.
pub(super) enum BoardInput {
    /// Clicked (or started dragging) the stack in a cell.
    Picked(usize),
    /// Dropped or clicked onto a cell after picking `from`.
    Move(Move),
    /// Clicked somewhere that is no move: clear the selection.
    Cancel,
}

/// How to light up the board.
pub(super) struct Highlight<'a> {
    /// The picked stack.
    pub selected: Option<usize>,
    /// Where it may go.
    pub targets: &'a [usize],
    /// A hinted move.
    pub hint: Option<Move>,
}

fn suit_color(red: bool) -> Color32 {
    if red {
        Color32::from_rgb(0xc6, 0x28, 0x28)
    } else {
        Color32::from_rgb(0x1b, 0x1b, 0x1b)
    }
}

/// Draws a card face (or an empty cell) at `rect`.
fn paint_cell(
    painter: &egui::Painter,
    rect: Rect,
    state: &State,
    cell: usize,
    border: Option<Color32>,
) {
    let radius = CornerRadius::same(8);
    match state.top(cell) {
        Some(card) => {
            painter.rect(
                rect,
                radius,
                Color32::from_rgb(0xfb, 0xfa, 0xf5),
                Stroke::new(1.0, Color32::from_gray(120)),
                StrokeKind::Inside,
            );
            let color = suit_color(card.is_red());
            let corner = format!("{}{}", rank_text(card.rank_char()), card.suit_symbol());
            painter.text(
                rect.left_top() + Vec2::new(7.0, 5.0),
                egui::Align2::LEFT_TOP,
                &corner,
                FontId::proportional(17.0),
                color,
            );
            painter.text(
                rect.center() + Vec2::new(0.0, -2.0),
                egui::Align2::CENTER_CENTER,
                card.suit_symbol(),
                FontId::proportional(40.0),
                color,
            );
            let size = state.size(cell);
            if size > 1 {
                // The stack's size: how many birds are flocked under this top.
                let badge = Rect::from_center_size(
                    rect.right_bottom() + Vec2::new(-16.0, -14.0),
                    Vec2::new(24.0, 20.0),
                );
                painter.rect_filled(
                    badge,
                    CornerRadius::same(10),
                    Color32::from_rgb(0x2e, 0x5c, 0x8a),
                );
                painter.text(
                    badge.center(),
                    egui::Align2::CENTER_CENTER,
                    size.to_string(),
                    FontId::proportional(13.0),
                    Color32::WHITE,
                );
            }
        }
        None => {
            painter.rect(
                rect,
                radius,
                Color32::from_rgba_unmultiplied(0, 0, 0, 20),
                Stroke::new(1.0, Color32::from_gray(90)),
                StrokeKind::Inside,
            );
        }
    }
    if let Some(c) = border {
        painter.rect_stroke(
            rect.expand(3.0),
            CornerRadius::same(10),
            Stroke::new(3.0, c),
            StrokeKind::Outside,
        );
    }
}

fn rank_text(rank: char) -> String {
    // 10 reads better than T on a card face.
    if rank == 'T' {
        "10".into()
    } else {
        rank.to_string()
    }
}

/// Draws the board and reads the person's clicks and drags.
pub(super) fn board_ui(ui: &mut egui::Ui, state: &State, light: &Highlight) -> Option<BoardInput> {
    let grid = state.grid();
    let size = Vec2::new(
        grid.cols() as f32 * (CARD.x + GAP) + GAP,
        grid.rows() as f32 * (CARD.y + GAP) + GAP,
    );
    let (area, _) = ui.allocate_exact_size(size, Sense::hover());
    let felt = Color32::from_rgb(0x2f, 0x6b, 0x3f);
    ui.painter().rect_filled(area, CornerRadius::same(10), felt);
    let rect_of = |cell: usize| {
        let (r, c) = (grid.row(cell) as f32, grid.col(cell) as f32);
        Rect::from_min_size(
            area.min + Vec2::new(GAP + c * (CARD.x + GAP), GAP + r * (CARD.y + GAP)),
            CARD,
        )
    };
    let mut input = None;
    let mut dragging = None;
    for cell in 0..grid.cells() {
        let rect = rect_of(cell);
        let id = egui::Id::unique(("boaf-cell", cell));
        let sense = if state.top(cell).is_some() {
            Sense::click_and_drag()
        } else {
            Sense::click()
        };
        let response = ui.interact(rect, id, sense);
        let label = cell_label(state, cell);
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
        let target = light.targets.contains(&cell);
        let hinted = light
            .hint
            .is_some_and(|m| m.from as usize == cell || m.to as usize == cell);
        let border = if light.selected == Some(cell) {
            Some(Color32::from_rgb(0x3d, 0x8b, 0xff))
        } else if target {
            Some(Color32::from_rgb(0x6f, 0xdc, 0x6f))
        } else if hinted {
            Some(Color32::from_rgb(0xff, 0xc1, 0x07))
        } else if response.hovered() && state.top(cell).is_some() {
            Some(Color32::from_white_alpha(90))
        } else {
            None
        };
        let last_pos = egui::Id::unique("boaf-drag-pos");
        if response.dragged() {
            dragging = Some(cell);
            // Kept for the drop: the pointer may be gone by the release frame.
            if let Some(p) = ui.ctx().pointer_interact_pos() {
                ui.data_mut(|d| d.insert_temp(last_pos, p));
            }
        }
        if response.drag_started() {
            input = Some(BoardInput::Picked(cell));
        }
        if response.drag_stopped() {
            // Dropped: onto the cell under the pointer, if it is a target.
            let at = ui
                .ctx()
                .pointer_interact_pos()
                .or_else(|| ui.data(|d| d.get_temp::<egui::Pos2>(last_pos)));
            let onto = at.and_then(|p| (0..grid.cells()).find(|&c| rect_of(c).contains(p)));
            input = Some(match onto {
                Some(to) if to != cell && state.is_legal(mv(cell, to)) => {
                    BoardInput::Move(mv(cell, to))
                }
                _ => BoardInput::Cancel,
            });
        }
        if response.clicked() {
            input = Some(match light.selected {
                Some(from) if target => BoardInput::Move(mv(from, cell)),
                Some(from) if from == cell => BoardInput::Cancel,
                _ if state.top(cell).is_some() => BoardInput::Picked(cell),
                _ => BoardInput::Cancel,
            });
        }
        let shown_border = if dragging == Some(cell) { None } else { border };
        if dragging != Some(cell) {
            paint_cell(ui.painter(), rect, state, cell, shown_border);
        } else {
            // The stack is in the hand: leave its place faint.
            paint_cell(
                ui.painter(),
                rect,
                state,
                cell,
                Some(Color32::from_white_alpha(60)),
            );
        }
    }
    if let (Some(cell), Some(p)) = (dragging, ui.ctx().pointer_interact_pos()) {
        // The dragged card follows the pointer, drawn above the board.
        let layer = egui::LayerId::new(egui::Order::Tooltip, egui::Id::unique("boaf-drag"));
        let painter = ui.ctx().layer_painter(layer);
        let rect = Rect::from_center_size(p, CARD);
        paint_cell(
            &painter,
            rect,
            state,
            cell,
            Some(Color32::from_rgb(0x3d, 0x8b, 0xff)),
        );
    }
    input
}

fn mv(from: usize, to: usize) -> Move {
    Move {
        from: from as u8,
        to: to as u8,
    }
}
