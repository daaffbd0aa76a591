//! Draws a [`Layout`] as a PDF with krilla: text in DejaVu Sans (subset
//! into the file, so `J♠ onto 10♥` is real text a reader can copy), boards
//! as a grid of cells, cards as the app draws them (rank, suit shape, red
//! or black), and empty cells dashed.

use crate::layout::{
    CAPTION, DIAGRAM_GAP, Layout, MARGIN, Page, RULES, Rect, SOLUTION_LINE, diagram_cell, diagrams,
    grade_counts, move_lines,
};
use crate::suits::suit_path;
use crate::{BookError, Entry, Options, grade_name};
use boaf_core::{Card, State};
use krilla::Document;
use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point};
use krilla::metadata::Metadata;
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::{Fill, FillRule, Stroke, StrokeDash};
use krilla::surface::Surface;
use krilla::text::{Font, TextDirection};
use skrifa::instance::{LocationRef, Size};
use skrifa::{FontRef, MetadataProvider};
use std::sync::Arc;

/// DejaVu Sans (Bitstream Vera licence, `assets/fonts/DejaVuSans-LICENSE.txt`).
static FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// The red of hearts and diamonds (the app's card red).
const RED: (u8, u8, u8) = (200, 24, 32);
/// Black text and black suits.
const BLACK: (u8, u8, u8) = (0, 0, 0);
/// Grid lines, empty cells and captions.
const GREY: (u8, u8, u8) = (140, 140, 140);

/// The font, for drawing and for measuring.
struct Type {
    font: Font,
    /// Advance of each character, in ems (DejaVu's own metrics).
    measure: Box<dyn Fn(char) -> f32>,
}

impl Type {
    fn new() -> Result<Type, BookError> {
        let data: Arc<dyn AsRef<[u8]> + Send + Sync> = Arc::new(FONT);
        let font = Font::new(data.into(), 0).ok_or_else(|| BookError::Pdf("bad font".into()))?;
        let face = FontRef::new(FONT).map_err(|e| BookError::Pdf(e.to_string()))?;
        let charmap = face.charmap();
        let metrics = face.glyph_metrics(Size::unscaled(), LocationRef::default());
        let em = font.units_per_em();
        let advances: Vec<(char, f32)> = (' '..='~')
            .chain("♠♥♦♣·−…".chars())
            .map(|c| {
                let w = charmap.map(c).and_then(|g| metrics.advance_width(g));
                (c, w.map_or(0.6, |w| w / em))
            })
            .collect();
        let measure = Box::new(move |c: char| {
            advances
                .iter()
                .find(|(d, _)| *d == c)
                .map_or(0.6, |&(_, w)| w)
        });
        Ok(Type { font, measure })
    }

    /// The width of `text` at `size`.
    fn width(&self, text: &str, size: f32) -> f32 {
        text.chars().map(|c| (self.measure)(c)).sum::<f32>() * size
    }
}

/// The pen: a page's surface and the font.
struct Pen<'a, 'b> {
    s: &'a mut Surface<'b>,
    t: &'a Type,
    /// The page's width.
    width: f32,
}

impl Pen<'_, '_> {
    /// `text` with its baseline's left end at (`x`, `y`).
    fn text(&mut self, x: f32, y: f32, size: f32, text: &str, color: (u8, u8, u8)) {
        self.s.set_stroke(None);
        self.s.set_fill(Some(fill(color)));
        self.s.draw_text(
            Point::from_xy(x, y),
            self.t.font.clone(),
            size,
            text,
            false,
            TextDirection::Auto,
        );
    }

    /// `text` centred on `x`.
    fn centred(&mut self, x: f32, y: f32, size: f32, text: &str, color: (u8, u8, u8)) {
        let w = self.t.width(text, size);
        self.text(x - w / 2.0, y, size, text, color);
    }

    /// A rectangle's outline.
    fn frame(&mut self, r: Rect, width: f32, color: (u8, u8, u8), dash: Option<f32>) {
        let mut b = PathBuilder::new();
        if let Some(rect) = krilla::geom::Rect::from_xywh(r.x, r.y, r.w, r.h) {
            b.push_rect(rect);
        }
        self.s.set_fill(None);
        self.s.set_stroke(Some(Stroke {
            paint: rgb::Color::new(color.0, color.1, color.2).into(),
            width,
            dash: dash.map(|d| StrokeDash {
                array: vec![d, d],
                offset: 0.0,
            }),
            ..Stroke::default()
        }));
        if let Some(path) = b.finish() {
            self.s.draw_path(&path);
        }
        self.s.set_stroke(None);
    }

    /// A page's heading: the book's title on the left, the page on the right.
    fn heading(&mut self, left: &str, page: usize) {
        let width = self.width;
        self.text(MARGIN, MARGIN + 12.0, 11.0, left, GREY);
        let right = format!("page {page}");
        let w = self.t.width(&right, 11.0);
        self.text(width - MARGIN - w, MARGIN + 12.0, 11.0, &right, GREY);
    }

    /// A board with its top-left corner at (`x`, `y`) and square cells of
    /// side `cell`.
    fn board(&mut self, state: &State, x: f32, y: f32, cell: f32) {
        let g = state.grid();
        for i in 0..g.cells() {
            let r = Rect {
                x: x + g.col(i) as f32 * cell,
                y: y + g.row(i) as f32 * cell,
                w: cell,
                h: cell,
            };
            self.frame(r, 0.4, GREY, None);
            let inset = cell * 0.07;
            let face = Rect {
                x: r.x + inset,
                y: r.y + inset,
                w: cell - 2.0 * inset,
                h: cell - 2.0 * inset,
            };
            // Small boards (the solutions') leave empty cells plain: dashes
            // there would be noise.
            let small = cell < 30.0;
            match state.top(i) {
                Some(card) => self.card(card, (!small).then(|| state.size(i)), face),
                None if !small => self.frame(face, 0.5, GREY, Some(cell * 0.06)),
                None => {}
            }
        }
    }

    /// A card: its rank at the top left, its suit's shape below right, in
    /// red or black, framed; a stack of more than one card says how many
    /// when `size` is given.
    fn card(&mut self, card: Card, size: Option<usize>, r: Rect) {
        let color = if card.is_red() { RED } else { BLACK };
        self.frame(r, (r.w * 0.02).max(0.5), BLACK, None);
        let font = r.w * 0.4;
        self.text(
            r.x + r.w * 0.08,
            r.y + font * 0.95,
            font,
            &card.rank_text(),
            color,
        );
        let shape = r.w * 0.48;
        if let Some(path) = suit_path(
            card.suit(),
            r.x + r.w - shape - r.w * 0.08,
            r.y + r.h - shape - r.h * 0.08,
            shape,
        ) {
            self.s.set_stroke(None);
            self.s.set_fill(Some(fill(color)));
            self.s.draw_path(&path);
        }
        if let Some(size) = size.filter(|&s| s > 1) {
            self.text(
                r.x + r.w * 0.08,
                r.y + r.h * 0.9,
                font * 0.55,
                &format!("×{size}"),
                GREY,
            );
        }
    }
}

/// A solid fill of one colour.
fn fill(color: (u8, u8, u8)) -> Fill {
    Fill {
        paint: rgb::Color::new(color.0, color.1, color.2).into(),
        opacity: NormalizedF32::ONE,
        rule: FillRule::NonZero,
    }
}

/// The PDF of a laid-out book.
pub fn draw(layout: &Layout, entries: &[Entry], options: &Options) -> Result<Vec<u8>, BookError> {
    let t = Type::new()?;
    let (w, h) = layout.size;
    let mut doc = Document::new();
    doc.set_metadata(
        Metadata::new()
            .title(options.title.clone())
            .creator("boaf book".to_string()),
    );
    for (n, page) in layout.pages.iter().enumerate() {
        let settings =
            PageSettings::from_wh(w, h).ok_or_else(|| BookError::Pdf("bad page size".into()))?;
        let mut p = doc.start_page_with(settings);
        let mut surface = p.surface();
        let mut pen = Pen {
            s: &mut surface,
            t: &t,
            width: w,
        };
        match page {
            Page::Title => title_page(&mut pen, layout, entries, options),
            Page::Puzzles(slots) => {
                pen.heading(&options.title, n + 1);
                for &(i, r) in slots {
                    puzzle(&mut pen, &entries[i], r);
                }
            }
            Page::Solutions(blocks) => {
                pen.heading(&format!("{} · solutions", options.title), n + 1);
                for &(i, y) in blocks {
                    solution(&mut pen, &entries[i], y);
                }
            }
        }
        surface.finish();
        p.finish();
    }
    doc.finish().map_err(|e| BookError::Pdf(format!("{e:?}")))
}

/// The title page: the title, how many puzzles and when, the grades, the
/// rules box and where the solutions start.
fn title_page(pen: &mut Pen, layout: &Layout, entries: &[Entry], options: &Options) {
    let (w, _) = layout.size;
    let mid = w / 2.0;
    // A long title shrinks to fit the page.
    let size = 30_f32.min((w - 2.0 * MARGIN) / pen.t.width(&options.title, 1.0));
    pen.centred(mid, 200.0, size, &options.title, BLACK);
    let count = format!(
        "{} puzzle{} · {}",
        entries.len(),
        if entries.len() == 1 { "" } else { "s" },
        options.date
    );
    pen.centred(mid, 240.0, 14.0, &count, BLACK);
    let grades = grade_counts(entries)
        .iter()
        .map(|(g, n)| format!("{g} {n}"))
        .collect::<Vec<_>>()
        .join(" · ");
    pen.centred(mid, 268.0, 12.0, &format!("Grades: {grades}"), BLACK);
    // The rules box.
    let top = 320.0;
    let line = 17.0;
    let r = Rect {
        x: MARGIN + 10.0,
        y: top,
        w: w - 2.0 * MARGIN - 20.0,
        h: line * (RULES.len() as f32 + 1.0) + 16.0,
    };
    pen.frame(r, 1.0, BLACK, None);
    pen.text(r.x + 14.0, top + 22.0, 12.0, "How to play", BLACK);
    for (k, rule) in RULES.iter().enumerate() {
        pen.text(
            r.x + 14.0,
            top + 22.0 + line * (k + 1) as f32,
            10.0,
            rule,
            BLACK,
        );
    }
    let back = format!("Solutions from page {}", layout.solutions_from());
    pen.centred(mid, r.y + r.h + 30.0, 11.0, &back, GREY);
}

/// A puzzle in its slot: number and grade, id, then the board.
fn puzzle(pen: &mut Pen, e: &Entry, r: Rect) {
    let pad = 8.0;
    let head = format!("Puzzle {} · {}", e.number, grade_name(e.grade));
    pen.text(r.x + pad, r.y + 16.0, 13.0, &head, BLACK);
    let id = format!("id {}", e.id);
    let id_size = 7.5_f32.min((r.w - 2.0 * pad) / pen.t.width(&id, 1.0));
    pen.text(r.x + pad, r.y + 29.0, id_size, &id, GREY);
    let g = e.state.grid();
    let top = r.y + 38.0;
    let cell = ((r.w - 2.0 * pad) / g.cols() as f32)
        .min((r.h - 38.0 - pad) / g.rows() as f32)
        .min(110.0);
    let left = r.x + (r.w - cell * g.cols() as f32) / 2.0;
    pen.board(&e.state, left, top, cell);
}

/// A solution block from `y` down: heading, moves, then the small boards.
fn solution(pen: &mut Pen, e: &Entry, y: f32) {
    let head = format!("Solution to puzzle {} · {}", e.number, grade_name(e.grade));
    pen.text(MARGIN, y + 10.0, 11.0, &head, BLACK);
    let lines = move_lines(&e.state, &e.solution);
    for (k, l) in lines.iter().enumerate() {
        pen.text(
            MARGIN + 8.0,
            y + 10.0 + SOLUTION_LINE * (k + 1) as f32,
            9.0,
            l,
            BLACK,
        );
    }
    let g = e.state.grid();
    let top = y + SOLUTION_LINE * (1 + lines.len()) as f32 + 6.0;
    let cell = diagram_cell(e, pen.width);
    let step = cell * g.cols() as f32 + DIAGRAM_GAP;
    for (k, (made, state)) in diagrams(&e.state, &e.solution).iter().enumerate() {
        let x = MARGIN + 8.0 + step * k as f32;
        pen.board(state, x, top, cell);
        let caption = if state.is_solved() {
            format!("after {made}: won")
        } else {
            format!("after {made}")
        };
        let bottom = top + cell * g.rows() as f32 + CAPTION - 2.0;
        pen.text(x, bottom, 7.0, &caption, GREY);
    }
}
