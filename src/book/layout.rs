//! The book's layout, pure: the paper, the pages in order, where each
//! puzzle and each solution goes, the solutions' text and which boards they
//! show. Lengths are PDF points (1/72 inch), from the page's top left.

use crate::{Entry, Options, grade_name};
use boaf_core::agents::grade::Grade;
use boaf_core::{Move, State};
use std::fmt;
use std::str::FromStr;

/// The page margin on every side.
pub const MARGIN: f32 = 42.0;
/// The space a page's heading takes at its top.
pub const HEADING: f32 = 30.0;
/// A solution's board is shown after every this many moves, and after the last.
pub const DIAGRAM_EVERY: usize = 3;
/// Moves on one line of a solution.
pub const MOVES_A_LINE: usize = 6;
/// The cell of a solution's small board, at most.
pub const DIAGRAM_CELL: f32 = 20.0;
/// The space between two small boards.
pub const DIAGRAM_GAP: f32 = 14.0;
/// Text lines of a solution: the heading, then each line of moves.
pub const SOLUTION_LINE: f32 = 13.0;
/// The space between two solutions.
pub const SOLUTION_GAP: f32 = 16.0;
/// The caption under a small board.
pub const CAPTION: f32 = 11.0;

/// The paper size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Paper {
    /// ISO A4, 210 × 297 mm.
    #[default]
    A4,
    /// US Letter, 8.5 × 11 in.
    Letter,
}

impl Paper {
    /// Width and height in points.
    pub fn size(self) -> (f32, f32) {
        match self {
            Paper::A4 => (595.28, 841.89),
            Paper::Letter => (612.0, 792.0),
        }
    }
}

impl FromStr for Paper {
    type Err = String;

    /// `a4` or `letter`, in any case.
    fn from_str(s: &str) -> Result<Paper, String> {
        match s.to_ascii_lowercase().as_str() {
            "a4" => Ok(Paper::A4),
            "letter" => Ok(Paper::Letter),
            _ => Err(format!("unknown paper {s:?}: use a4 or letter")),
        }
    }
}

impl fmt::Display for Paper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Paper::A4 => "a4",
            Paper::Letter => "letter",
        })
    }
}

/// Puzzles a page: 1, 2, 4 or 6.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerPage(usize);

impl PerPage {
    /// The counts a page can hold.
    pub const ALLOWED: [usize; 4] = [1, 2, 4, 6];

    /// `n` puzzles a page, if a page can hold that many.
    pub fn new(n: usize) -> Option<PerPage> {
        Self::ALLOWED.contains(&n).then_some(PerPage(n))
    }

    /// How many.
    pub fn get(self) -> usize {
        self.0
    }

    /// Columns and rows of the page's slots.
    fn slots(self) -> (usize, usize) {
        match self.0 {
            1 => (1, 1),
            2 => (1, 2),
            4 => (2, 2),
            _ => (2, 3),
        }
    }
}

impl Default for PerPage {
    /// Four a page.
    fn default() -> PerPage {
        PerPage(4)
    }
}

impl FromStr for PerPage {
    type Err = String;

    /// 1, 2, 4 or 6.
    fn from_str(s: &str) -> Result<PerPage, String> {
        s.trim()
            .parse()
            .ok()
            .and_then(PerPage::new)
            .ok_or_else(|| format!("{s:?} puzzles a page: use 1, 2, 4 or 6"))
    }
}

/// A rectangle on the page.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: f32,
    /// Top edge.
    pub y: f32,
    /// Width.
    pub w: f32,
    /// Height.
    pub h: f32,
}

/// One page of the book.
#[derive(Clone, Debug, PartialEq)]
pub enum Page {
    /// The title page: title, count, date, grades and the rules.
    Title,
    /// Puzzles: each entry's index and its slot.
    Puzzles(Vec<(usize, Rect)>),
    /// Solutions: each entry's index and the top of its block.
    Solutions(Vec<(usize, f32)>),
}

/// The whole book: the page size and its pages in order.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Page width and height.
    pub size: (f32, f32),
    /// The pages.
    pub pages: Vec<Page>,
}

impl Layout {
    /// The number of the first solutions page, from 1.
    pub fn solutions_from(&self) -> usize {
        self.pages
            .iter()
            .position(|p| matches!(p, Page::Solutions(_)))
            .map_or(self.pages.len(), |i| i + 1)
    }
}

/// Lays the book out: the title page, `per_page` puzzles a page in a grid
/// of slots, then the solutions packed onto pages top to bottom.
pub fn layout(entries: &[Entry], options: &Options) -> Layout {
    let size = options.paper.size();
    let (w, h) = size;
    let mut pages = vec![Page::Title];
    let (cols, rows) = options.per_page.slots();
    let slot_w = (w - 2.0 * MARGIN) / cols as f32;
    let slot_h = (h - 2.0 * MARGIN - HEADING) / rows as f32;
    for (p, chunk) in entries.chunks(options.per_page.get()).enumerate() {
        let first = p * options.per_page.get();
        let slots = (0..chunk.len())
            .map(|k| {
                let rect = Rect {
                    x: MARGIN + (k % cols) as f32 * slot_w,
                    y: MARGIN + HEADING + (k / cols) as f32 * slot_h,
                    w: slot_w,
                    h: slot_h,
                };
                (first + k, rect)
            })
            .collect();
        pages.push(Page::Puzzles(slots));
    }
    let bottom = h - MARGIN;
    let mut blocks = Vec::new();
    let mut y = MARGIN + HEADING;
    for (i, e) in entries.iter().enumerate() {
        let height = solution_height(e, w);
        if !blocks.is_empty() && y + height > bottom {
            pages.push(Page::Solutions(std::mem::take(&mut blocks)));
            y = MARGIN + HEADING;
        }
        blocks.push((i, y));
        y += height + SOLUTION_GAP;
    }
    pages.push(Page::Solutions(blocks));
    Layout { size, pages }
}

/// The height of a puzzle's solution block: its heading, its lines of
/// moves, and a row of small boards with their captions.
pub fn solution_height(e: &Entry, page_width: f32) -> f32 {
    let lines = move_lines(&e.state, &e.solution).len();
    let rows = e.state.grid().rows() as f32;
    SOLUTION_LINE * (1 + lines) as f32 + 6.0 + rows * diagram_cell(e, page_width) + CAPTION
}

/// The cell of a solution's small boards: [`DIAGRAM_CELL`], or less when
/// its boards in a row would be wider than the page (wide grids).
pub fn diagram_cell(e: &Entry, page_width: f32) -> f32 {
    let count = e.solution.len().div_ceil(DIAGRAM_EVERY).max(1) as f32;
    let room = page_width - 2.0 * MARGIN - 8.0 - count * DIAGRAM_GAP;
    let cols = e.state.grid().cols() as f32;
    DIAGRAM_CELL.min(room / (count * cols))
}

/// A move as a player reads it, `J♠ onto 10♥`, named by the two tops.
pub fn move_text(state: &State, mv: Move) -> String {
    let face = |cell: u8| state.top(cell as usize).map_or("?".into(), |c| c.face());
    format!("{} onto {}", face(mv.from), face(mv.to))
}

/// The solution's moves, numbered (`1. J♠ onto 10♥`), [`MOVES_A_LINE`] a line.
pub fn move_lines(state: &State, solution: &[Move]) -> Vec<String> {
    let mut s = state.clone();
    let mut texts = Vec::with_capacity(solution.len());
    for (i, &mv) in solution.iter().enumerate() {
        texts.push(format!("{}. {}", i + 1, move_text(&s, mv)));
        s = s.apply(mv).unwrap_or(s);
    }
    texts
        .chunks(MOVES_A_LINE)
        .map(|line| line.join("   "))
        .collect()
}

/// The boards a solution shows: after every [`DIAGRAM_EVERY`] moves and
/// after the last, each with the number of moves made.
pub fn diagrams(state: &State, solution: &[Move]) -> Vec<(usize, State)> {
    let mut s = state.clone();
    let mut shown = Vec::new();
    for (i, &mv) in solution.iter().enumerate() {
        s = s.apply(mv).unwrap_or(s);
        let made = i + 1;
        if made % DIAGRAM_EVERY == 0 || made == solution.len() {
            shown.push((made, s.clone()));
        }
    }
    shown
}

/// How many puzzles of each grade, easiest first, then the ungraded.
pub fn grade_counts(entries: &[Entry]) -> Vec<(&'static str, usize)> {
    let mut counts: Vec<(&'static str, usize)> = Grade::ALL
        .iter()
        .map(|&g| {
            (
                g.name(),
                entries.iter().filter(|e| e.grade == Some(g)).count(),
            )
        })
        .collect();
    let ungraded = entries.iter().filter(|e| e.grade.is_none()).count();
    if ungraded > 0 {
        counts.push((grade_name(None), ungraded));
    }
    counts
}

/// The rules, a line each, for the rules box.
pub const RULES: [&str; 5] = [
    "Move a whole stack onto another stack in the same row or column (at any distance).",
    "The two top cards must share a suit, or have the same or adjacent rank",
    "(ace low, king high; ace and king are not adjacent). The moved stack's top stays on top.",
    "Win by gathering every card into one stack: n cards take n − 1 moves.",
    "Solutions are at the back, with the board after every few moves.",
];

#[cfg(test)]
mod tests {
    use super::*;
    use boaf_core::engine::notation::{parse_puzzle, puzzle_id};
    use boaf_core::engine::solver::{Verdict, solve};

    fn entry(number: usize, text: &str) -> Entry {
        let state = parse_puzzle(text).unwrap();
        let Ok(Verdict::Solvable(solution)) = solve(&state) else {
            panic!("unsolvable");
        };
        Entry {
            number,
            id: puzzle_id(&state),
            state,
            grade: None,
            solution,
        }
    }

    fn options(per_page: usize) -> Options {
        Options {
            title: "t".into(),
            date: "2026-01-01".into(),
            per_page: PerPage::new(per_page).unwrap(),
            paper: Paper::A4,
        }
    }

    #[test]
    fn puzzles_fill_pages_in_order_and_solutions_follow() {
        let entries: Vec<Entry> = (0..7).map(|i| entry(i + 1, &i.to_string())).collect();
        for k in PerPage::ALLOWED {
            let l = layout(&entries, &options(k));
            let puzzle_pages = l
                .pages
                .iter()
                .filter(|p| matches!(p, Page::Puzzles(_)))
                .count();
            assert_eq!(puzzle_pages, 7usize.div_ceil(k), "{k} a page");
            assert_eq!(l.pages[0], Page::Title);
            let placed: Vec<usize> = l
                .pages
                .iter()
                .filter_map(|p| match p {
                    Page::Solutions(b) => Some(b.iter().map(|&(i, _)| i)),
                    _ => None,
                })
                .flatten()
                .collect();
            assert_eq!(placed, (0..7).collect::<Vec<_>>());
            assert_eq!(l.solutions_from(), 2 + puzzle_pages);
        }
    }

    #[test]
    fn moves_read_as_players_write_them() {
        // Deal 0's solution in the README, named by its tops.
        let state = parse_puzzle("0").unwrap();
        let mut s = state.clone();
        let mut solution = Vec::new();
        for name in "3C-AC JD-QD 6C-3C JS-3S 4S-KS JS-TC 6S-6C TH-6H TH-JD 4S-5D TH-5H \
                     JS-TH 4S-TS 4S-6S JS-4S"
            .split_whitespace()
        {
            let (a, b) = boaf_core::engine::notation::parse_move(name).unwrap();
            let mv = s.move_between(a, b).unwrap();
            s = s.apply(mv).unwrap();
            solution.push(mv);
        }
        let lines = move_lines(&state, &solution);
        assert_eq!(
            lines,
            [
                "1. 3♣ onto A♣   2. J♦ onto Q♦   3. 6♣ onto 3♣   4. J♠ onto 3♠   \
                 5. 4♠ onto K♠   6. J♠ onto 10♣",
                "7. 6♠ onto 6♣   8. 10♥ onto 6♥   9. 10♥ onto J♦   10. 4♠ onto 5♦   \
                 11. 10♥ onto 5♥   12. J♠ onto 10♥",
                "13. 4♠ onto 10♠   14. 4♠ onto 6♠   15. J♠ onto 4♠",
            ]
        );
        // After 3, 6, 9, 12 and 15 moves, the last won.
        let shown = diagrams(&state, &solution);
        let made: Vec<usize> = shown.iter().map(|(m, _)| *m).collect();
        assert_eq!(made, [3, 6, 9, 12, 15]);
        assert_eq!(shown[0].1, state.replay(&solution[..3]).unwrap());
        assert!(shown[4].1.is_solved());
    }
}
