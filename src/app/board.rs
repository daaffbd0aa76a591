//! Drawing the board as real cards, and turning clicks and drags on it into
//! moves. Each cell is an accessible button named by [`cell_label`], which is
//! how the tests (and screen readers) find it.

use boaf_core::engine::state::{Grid, Move, State};
use eframe::egui::{self, Color32, CornerRadius, FontId, Rect, Sense, Stroke, StrokeKind, Vec2};

/// A card's size at scale 1: the size the board is drawn at when it fits.
const CARD: Vec2 = Vec2::new(76.0, 106.0);
/// The space between cards at scale 1.
const GAP: f32 = 14.0;
/// The board shrinks to fit the window, but not below this scale (the
/// corners stay readable), and grows up to the larger one.
const MIN_SCALE: f32 = 0.45;
const MAX_SCALE: f32 = 1.6;

/// How far below the top of the Play and Watch panels the board starts, at
/// least: room for what each shows above it, the same in both, so that the
/// board keeps its size and place when one switches between them.
const BOARD_TOP: f32 = 200.0;

/// The colour of the hinted card, the start of the hint's arrow.
const HINT_FROM: Color32 = Color32::from_rgb(0xff, 0xc1, 0x07);
/// The colour of the hinted target, where the arrow points.
const HINT_TO: Color32 = Color32::from_rgb(0xff, 0x6d, 0x00);

/// The accessible name of a cell: `card K♥` for a stack topped by the king
/// of hearts, `empty cell 3` (1-based, row by row) for an empty cell. Cards
/// are named as the app shows them everywhere ([`Card::face`]).
///
/// [`Card::face`]: boaf_core::engine::card::Card::face
pub fn cell_label(state: &State, cell: usize) -> String {
    match state.top(cell) {
        Some(card) => format!("card {}", card.face()),
        None => format!("empty cell {}", cell + 1),
    }
}

/// A move as the app says it: `J♠ onto 10♥`.
pub(super) fn move_text(state: &State, mv: Move) -> String {
    let face = |cell: u8| state.top(cell as usize).map_or("?".into(), |c| c.face());
    format!("{} onto {}", face(mv.from), face(mv.to))
}

/// The scale at which a board of `rows`×`cols` fits in `space`.
pub(super) fn fit_scale(rows: usize, cols: usize, space: Vec2) -> f32 {
    let w = space.x / (cols as f32 * (CARD.x + GAP) + GAP);
    let h = space.y / (rows as f32 * (CARD.y + GAP) + GAP);
    w.min(h).clamp(MIN_SCALE, MAX_SCALE)
}

/// The space for the board in the Play and Watch panels, which both call it
/// right before drawing the board: the cursor moves down to [`BOARD_TOP`]
/// below the panel's top (unless what is above reaches further), and the
/// board may take the full width and the height left.
pub(super) fn board_space(ui: &mut egui::Ui) -> Vec2 {
    let short = ui.max_rect().top() + BOARD_TOP - ui.cursor().top();
    if short > 0.0 {
        ui.add_space(short);
    }
    Vec2::new(ui.available_width(), ui.available_height() - 8.0)
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
    /// A move to point at: the hinted move (Play), the agent's last move
    /// (Watch).
    pub hint: Option<Move>,
}

/// The ink of a red or a black suit on a card's face.
pub(super) fn suit_color(red: bool) -> Color32 {
    if red {
        Color32::from_rgb(0xc6, 0x28, 0x28)
    } else {
        Color32::from_rgb(0x1b, 0x1b, 0x1b)
    }
}

/// Draws a card face (or an empty cell) at `rect`.
pub(super) fn paint_cell(
    painter: &egui::Painter,
    rect: Rect,
    state: &State,
    cell: usize,
    border: Option<Color32>,
) {
    // Everything on the face scales with the card.
    let k = rect.width() / CARD.x;
    let radius = CornerRadius::same((8.0 * k) as u8);
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
            painter.text(
                rect.left_top() + Vec2::new(7.0, 5.0) * k,
                egui::Align2::LEFT_TOP,
                card.face(),
                FontId::proportional(17.0 * k),
                color,
            );
            painter.text(
                rect.center() + Vec2::new(0.0, -2.0) * k,
                egui::Align2::CENTER_CENTER,
                card.suit_symbol(),
                FontId::proportional(40.0 * k),
                color,
            );
            let size = state.size(cell);
            if size > 1 {
                // The stack's size: how many birds are flocked under this top.
                let badge = Rect::from_center_size(
                    rect.right_bottom() + Vec2::new(-16.0, -14.0) * k,
                    Vec2::new(24.0, 20.0) * k,
                );
                painter.rect_filled(
                    badge,
                    CornerRadius::same((10.0 * k) as u8),
                    Color32::from_rgb(0x2e, 0x5c, 0x8a),
                );
                painter.text(
                    badge.center(),
                    egui::Align2::CENTER_CENTER,
                    size.to_string(),
                    FontId::proportional(13.0 * k),
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

/// Draws the felt of a `grid` board, as large as fits in `space` (within
/// the scale limits): its scale, and the place of each cell's card.
pub(super) fn felt(ui: &mut egui::Ui, grid: Grid, space: Vec2) -> (f32, Vec<Rect>) {
    let k = fit_scale(grid.rows(), grid.cols(), space);
    let (card, gap) = (CARD * k, GAP * k);
    let size = Vec2::new(
        grid.cols() as f32 * (card.x + gap) + gap,
        grid.rows() as f32 * (card.y + gap) + gap,
    );
    let (area, _) = ui.allocate_exact_size(size, Sense::hover());
    let felt = Color32::from_rgb(0x2f, 0x6b, 0x3f);
    ui.painter().rect_filled(area, CornerRadius::same(10), felt);
    let rects = (0..grid.cells())
        .map(|cell| {
            let (r, c) = (grid.row(cell) as f32, grid.col(cell) as f32);
            Rect::from_min_size(
                area.min + Vec2::new(gap + c * (card.x + gap), gap + r * (card.y + gap)),
                card,
            )
        })
        .collect();
    (k, rects)
}

/// Draws the board, as large as fits in `space` (within the scale limits),
/// and reads the person's clicks and drags.
pub(super) fn board_ui(
    ui: &mut egui::Ui,
    state: &State,
    light: &Highlight,
    space: Vec2,
) -> Option<BoardInput> {
    let grid = state.grid();
    let (k, rects) = felt(ui, grid, space);
    let card = CARD * k;
    let rect_of = |cell: usize| rects[cell];
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
        let border = if light.selected == Some(cell) {
            Some(Color32::from_rgb(0x3d, 0x8b, 0xff))
        } else if target {
            Some(Color32::from_rgb(0x6f, 0xdc, 0x6f))
        } else if light.hint.is_some_and(|m| m.from as usize == cell) {
            Some(HINT_FROM)
        } else if light.hint.is_some_and(|m| m.to as usize == cell) {
            Some(HINT_TO)
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
    if let Some(m) = light.hint {
        // The hint's arrow says which card moves: from its centre to the target's.
        let (from, to) = (rect_of(m.from as usize), rect_of(m.to as usize));
        let dir = (to.center() - from.center()).normalized();
        // From inside the moving card to the middle of the target.
        let start = from.center() + dir * card.y * 0.15;
        let end = to.center();
        // A head of fixed size (egui's own grows with the arrow's length).
        let head = 18.0 * k;
        let back = -dir * head;
        let side = egui::vec2(-dir.y, dir.x) * head * 0.6;
        let stroke = Stroke::new(5.0 * k, HINT_TO);
        // Painted after the cards, so above them.
        let painter = ui.painter();
        painter.line_segment([start, end], stroke);
        painter.line_segment([end, end + back + side], stroke);
        painter.line_segment([end, end + back - side], stroke);
    }
    if let (Some(cell), Some(p)) = (dragging, ui.ctx().pointer_interact_pos()) {
        // The dragged card follows the pointer, drawn above the board.
        let layer = egui::LayerId::new(egui::Order::Tooltip, egui::Id::unique("boaf-drag"));
        let painter = ui.ctx().layer_painter(layer);
        let rect = Rect::from_center_size(p, card);
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
