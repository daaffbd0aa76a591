//! boaf-book: a printable puzzle book as a vector PDF, for `boaf book` and
//! the app's "Export book…" (one owner for both).
//!
//! [`prepare`] numbers the puzzles, grades them and solves each one;
//! [`layout`] places the title page, the puzzle pages and the solution pages
//! (pure: positions, texts and which board after which move); [`pdf`] draws
//! that layout with krilla, the font (DejaVu Sans, `assets/fonts/`) subset
//! into the file. No file I/O here: [`render`] returns the PDF's bytes.

#![warn(missing_docs)]

pub mod layout;
pub mod pdf;
mod suits;

use boaf_core::agents::grade::{Grade, grade};
use boaf_core::engine::limits::{Limits, SearchError};
use boaf_core::engine::notation::{ParseError, puzzle_id};
use boaf_core::engine::solver::{Solver, Verdict};
use boaf_core::generator::pipeline::Candidate;
use boaf_core::{Move, State};
use thiserror::Error;

pub use layout::{Paper, PerPage};

/// Why a book could not be made.
#[derive(Debug, Error)]
pub enum BookError {
    /// No puzzle to put in it.
    #[error("a book needs at least one puzzle")]
    Empty,
    /// A stored puzzle does not read.
    #[error("puzzle {number} ({puzzle}): {error}")]
    BadPuzzle {
        /// Its number in the book.
        number: usize,
        /// Its stored notation.
        puzzle: String,
        /// Why it does not read.
        error: ParseError,
    },
    /// A puzzle has no solution to print.
    #[error("puzzle {number} ({id}) is unsolvable: a book prints only winnable deals")]
    Unsolvable {
        /// Its number in the book.
        number: usize,
        /// Its id.
        id: String,
    },
    /// The solver stopped (out of memory budget, or cancelled).
    #[error("puzzle {number}: {error}")]
    Search {
        /// Its number in the book.
        number: usize,
        /// What stopped the solver.
        error: SearchError,
    },
    /// krilla could not write the document.
    #[error("the PDF could not be written: {0}")]
    Pdf(String),
}

/// The order of the puzzles in a book.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// Easiest first (ungraded puzzles last), otherwise as given.
    #[default]
    Grade,
    /// As given.
    Given,
}

/// One puzzle of the book: its number, board, id, grade and solution.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its number in the book, from 1.
    pub number: usize,
    /// The puzzle.
    pub state: State,
    /// Its shareable id ([`puzzle_id`]).
    pub id: String,
    /// Its grade, if its difficulty features were computed.
    pub grade: Option<Grade>,
    /// A solution: moves from the puzzle to one stack.
    pub solution: Vec<Move>,
}

/// How the book looks.
#[derive(Clone, Debug)]
pub struct Options {
    /// The title on the title page.
    pub title: String,
    /// The date on the title page, as `YYYY-MM-DD`.
    pub date: String,
    /// Puzzles a page.
    pub per_page: PerPage,
    /// The paper size.
    pub paper: Paper,
}

/// The book's default title.
pub const DEFAULT_TITLE: &str = "Birds of a Feather puzzles";

/// The grade's name, or "Ungraded".
pub fn grade_name(grade: Option<Grade>) -> &'static str {
    grade.map_or("Ungraded", Grade::name)
}

/// The book's puzzles from candidates, in `order`, numbered and solved
/// within `limits` (a thrown switch stops the solving); `progress` hears
/// after each puzzle how many are done.
pub fn prepare(
    candidates: &[Candidate],
    order: Order,
    limits: &Limits,
    mut progress: impl FnMut(usize),
) -> Result<Vec<Entry>, BookError> {
    if candidates.is_empty() {
        return Err(BookError::Empty);
    }
    let mut chosen: Vec<(Option<Grade>, &Candidate)> =
        candidates.iter().map(|c| (grade(&c.features), c)).collect();
    if order == Order::Grade {
        // Stable: equal grades keep the given order; ungraded go last.
        chosen.sort_by_key(|(g, _)| g.map_or(Grade::ALL.len(), Grade::index));
    }
    let mut solver = Solver::new(limits.clone());
    let mut entries = Vec::with_capacity(chosen.len());
    for (i, (grade, c)) in chosen.into_iter().enumerate() {
        let number = i + 1;
        // The solver looks at the switch every few thousand boards; most
        // puzzles take fewer, so it is also looked at before each.
        limits
            .check_cancel()
            .map_err(|error| BookError::Search { number, error })?;
        let state = c.state().map_err(|error| BookError::BadPuzzle {
            number,
            puzzle: c.puzzle.clone(),
            error,
        })?;
        let id = puzzle_id(&state);
        solver.clear();
        let solution = match solver.solve(&state) {
            Ok(Verdict::Solvable(path)) => path,
            Ok(Verdict::Unsolvable(_)) => return Err(BookError::Unsolvable { number, id }),
            Err(error) => return Err(BookError::Search { number, error }),
        };
        entries.push(Entry {
            number,
            state,
            id,
            grade,
            solution,
        });
        progress(number);
    }
    Ok(entries)
}

/// The book's PDF: the title page, the puzzles, then the solutions.
pub fn render(entries: &[Entry], options: &Options) -> Result<Vec<u8>, BookError> {
    if entries.is_empty() {
        return Err(BookError::Empty);
    }
    let layout = layout::layout(entries, options);
    pdf::draw(&layout, entries, options)
}

/// Prepares, renders and returns the book of `candidates`: how many
/// puzzles it holds and its bytes. The command line and the app both make
/// their books here; `progress` hears how many puzzles are solved, and
/// `limits` bound the solving (the app's switch stops it when the app
/// closes mid-export).
pub fn make(
    candidates: &[Candidate],
    order: Order,
    options: &Options,
    limits: &Limits,
    progress: impl FnMut(usize),
) -> Result<(usize, Vec<u8>), BookError> {
    let entries = prepare(candidates, order, limits, progress)?;
    Ok((entries.len(), render(&entries, options)?))
}

/// Today's date (UTC), `YYYY-MM-DD`.
pub fn today() -> String {
    let now = boaf_core::generator::pipeline::utc_now();
    now.get(..10).unwrap_or(&now).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use boaf_core::engine::deal::deal;
    use boaf_core::engine::limits::Cancel;
    use boaf_core::engine::notation::parse_state;
    use boaf_core::generator::energy::builtin;
    use boaf_core::generator::pipeline::entered_candidate;

    #[test]
    fn a_thrown_switch_stops_the_solving_and_an_open_one_solves_every_puzzle() {
        let e5 = builtin().get("E5").unwrap().clone();
        let deals: Vec<Candidate> = [
            deal(1),
            parse_state("9D3H2HKC6S4DJC7SAC3C9SQC4H7DADKH", None).unwrap(),
        ]
        .iter()
        .map(|s| entered_candidate(s, &e5, false, Limits::default()).unwrap())
        .collect();
        let mut told = Vec::new();
        let entries = prepare(&deals, Order::Given, &Limits::default(), |n| told.push(n)).unwrap();
        assert_eq!(told, vec![1, 2]);
        // Each solution replays to one stack.
        for e in &entries {
            let mut state = e.state.clone();
            for &mv in &e.solution {
                state = state.apply(mv).expect("a legal move");
            }
            assert_eq!(state.stack_count(), 1, "puzzle {}", e.number);
        }
        let cancel = Cancel::new();
        cancel.cancel();
        let stopped = prepare(
            &deals,
            Order::Given,
            &Limits::default().cancelled_by(&cancel),
            |_| {},
        );
        assert!(matches!(
            stopped,
            Err(BookError::Search {
                number: 1,
                error: SearchError::Cancelled
            })
        ));
    }
}
