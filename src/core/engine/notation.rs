//! Research notation: cards (`TH`, or `10H` on input), states (the row-major cell string
//! `TH5HKSTC…` with `--` for an empty cell, or a grid of lines as printed in
//! seed 001), moves (`JS-JC`), and puzzle ids ([`puzzle_id`], read back
//! with deal numbers by [`parse_puzzle`]). Bad input gets a [`ParseError`]
//! that says what is wrong and where (1-based line and column).

use crate::engine::card::{Card, rank_from_char, suit_from_char};
use crate::engine::deal::deal;
use crate::engine::state::{Grid, MAX_CELLS, State};
use std::fmt;
use thiserror::Error;

/// What is wrong with a piece of notation.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// Nothing but white space.
    #[error("the input is empty")]
    Empty,
    /// A compact state of the wrong length.
    #[error(
        "a {grid} state needs {expected} characters (2 per cell, 3 for a 10 like 10H), found {found}"
    )]
    WrongLength {
        /// The grid the state is read for.
        grid: Grid,
        /// Characters needed (one more for each `10` read).
        expected: usize,
        /// Characters found.
        found: usize,
    },
    /// A character that is not a rank.
    #[error("unknown rank '{0}' (ranks are A23456789TJQK, and 10 for T)")]
    UnknownRank(char),
    /// A character that is not a suit.
    #[error("unknown suit '{0}' (suits are CDHS)")]
    UnknownSuit(char),
    /// A grid token that is not two characters.
    #[error("'{0}' is not a card (like TH or 10H) or an empty cell (-- or ..)")]
    BadToken(String),
    /// The same card twice.
    #[error("{card} appears twice (first at line {first_line}, column {first_column})")]
    DuplicateCard {
        /// The card.
        card: Card,
        /// Where it first appeared.
        first_line: usize,
        /// Where it first appeared.
        first_column: usize,
    },
    /// A grid with more cells than the game allows.
    #[error("a {rows}x{cols} grid has {} cells, more than the 16 allowed", rows * cols)]
    TooManyCells {
        /// Rows found.
        rows: usize,
        /// Columns found.
        cols: usize,
    },
    /// More cards than cells.
    #[error("{cards} cards do not fit in the {cells} cells of the grid")]
    TooManyCards {
        /// Cards given.
        cards: usize,
        /// Cells in the grid.
        cells: usize,
    },
    /// Grid rows of different lengths.
    #[error("row {row} has {found} cells but row 1 has {expected}")]
    RaggedRow {
        /// The row (1-based).
        row: usize,
        /// Cells in the first row.
        expected: usize,
        /// Cells in this row.
        found: usize,
    },
    /// A grid of another shape than the one asked for.
    #[error("the grid is {found} but {expected} was asked for")]
    GridMismatch {
        /// The grid asked for.
        expected: Grid,
        /// The grid found.
        found: Grid,
    },
    /// A move without its two cards.
    #[error("a move is two cards joined by '-', like JS-JC")]
    BadMove,
    /// A grid size that is not `RxC`.
    #[error("a grid is written RxC with 1 to 16 cells, like 4x4")]
    BadGrid,
    /// Only empty cells.
    #[error("the state has no cards")]
    NoCards,
    /// A number that is not a 32-bit deal number.
    #[error("deal numbers are whole numbers from {} to {}", i32::MIN, i32::MAX)]
    BadDeal,
}

/// A notation error and where it is.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
    /// What is wrong.
    pub kind: ParseErrorKind,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.kind
        )
    }
}

impl ParseError {
    /// The error, then the offending line of `text` with a caret under the
    /// error's column, both lines after `indent`.
    pub fn pointed(&self, text: &str, indent: &str) -> String {
        let line = text.lines().nth(self.line.saturating_sub(1)).unwrap_or("");
        let caret = " ".repeat(self.column.saturating_sub(1));
        format!("{self}\n{indent}{line}\n{indent}{caret}^")
    }
}

fn err(line: usize, column: usize, kind: ParseErrorKind) -> ParseError {
    ParseError { line, column, kind }
}

/// A token of the input with its position.
struct Token<'a> {
    text: &'a str,
    line: usize,
    column: usize,
}

/// Reads one cell token: a card (`TH`, or `10H` as players write it) or an
/// empty cell.
fn cell_token(t: &Token) -> Result<Option<Card>, ParseError> {
    let mut chars: Vec<char> = t.text.chars().collect();
    if chars.len() == 3 && chars[0] == '1' && chars[1] == '0' {
        chars = vec!['T', chars[2]];
    } else if chars.len() == 3 && chars[0] == '1' {
        // `1x…`: a 1 that does not start a 10.
        return Err(err(t.line, t.column, ParseErrorKind::UnknownRank('1')));
    }
    if chars.len() != 2 {
        return Err(err(
            t.line,
            t.column,
            ParseErrorKind::BadToken(t.text.to_string()),
        ));
    }
    if t.text == "--" || t.text == ".." {
        return Ok(None);
    }
    let rank = rank_from_char(chars[0])
        .ok_or_else(|| err(t.line, t.column, ParseErrorKind::UnknownRank(chars[0])))?;
    // The suit is the token's last character, after `1`, `0` for a 10.
    let suit_column = t.column + t.text.chars().count() - 1;
    let suit = suit_from_char(chars[1])
        .ok_or_else(|| err(t.line, suit_column, ParseErrorKind::UnknownSuit(chars[1])))?;
    Ok(Some(Card::new(rank, suit)))
}

/// Parses a card like `TH` (case-insensitive).
pub fn parse_card(text: &str) -> Result<Card, ParseError> {
    let t = text.trim();
    let column = 1 + text.chars().count() - text.trim_start().chars().count();
    if t.is_empty() {
        return Err(err(1, 1, ParseErrorKind::Empty));
    }
    match cell_token(&Token {
        text: t,
        line: 1,
        column,
    })? {
        Some(card) => Ok(card),
        None => Err(err(1, column, ParseErrorKind::BadToken(t.to_string()))),
    }
}

/// Parses a move like `JS-JC` into (moving top, target top). `->` and `→` are accepted too.
pub fn parse_move(text: &str) -> Result<(Card, Card), ParseError> {
    let t = text.trim();
    let offset = text.chars().count() - text.trim_start().chars().count();
    let (sep_at, sep_len) = ["->", "→", "-"]
        .iter()
        .find_map(|sep| t.find(sep).map(|i| (i, sep.len())))
        .ok_or_else(|| err(1, 1 + offset, ParseErrorKind::BadMove))?;
    let (a, b) = (&t[..sep_at], &t[sep_at + sep_len..]);
    if a.trim().is_empty() || b.trim().is_empty() {
        return Err(err(1, 1 + offset, ParseErrorKind::BadMove));
    }
    let shift = |e: ParseError, by: usize| ParseError {
        column: e.column + by,
        ..e
    };
    let moving = parse_card(a).map_err(|e| shift(e, offset))?;
    let b_col = offset + t[..sep_at + sep_len].chars().count();
    let target = parse_card(b).map_err(|e| shift(e, b_col))?;
    Ok((moving, target))
}

/// Parses a grid size written `RxC`, like `4x4` or `3x5`.
pub fn parse_grid(text: &str) -> Result<Grid, ParseError> {
    let bad = || err(1, 1, ParseErrorKind::BadGrid);
    let (r, c) = text.trim().split_once(['x', 'X', '×']).ok_or_else(bad)?;
    let r: usize = r.trim().parse().map_err(|_| bad())?;
    let c: usize = c.trim().parse().map_err(|_| bad())?;
    Grid::new(r, c).map_err(|_| bad())
}

/// Parses a state, in either form:
/// - compact: the row-major cell string, two characters a cell (`--` or `..` when empty);
///   its grid is `grid`, or 4×4 when `None`;
/// - grid: one line per row (or rows split by `/`), cells split by spaces; the
///   shape gives the grid, which must match `grid` when one is given.
///
/// Every card starts as a one-card stack.
pub fn parse_state(text: &str, grid: Option<Grid>) -> Result<State, ParseError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(err(1, 1, ParseErrorKind::Empty));
    }
    let is_grid_form = trimmed.contains(char::is_whitespace) || trimmed.contains('/');
    let (found_grid, tokens) = if is_grid_form {
        grid_tokens(text)?
    } else {
        let grid = grid.unwrap_or(Grid::SQUARE4);
        let (line, start_col) = start_of(text, trimmed);
        let tokens = compact_tokens(trimmed, line, start_col);
        let found = trimmed.chars().count();
        // A 10 takes one character more than the other ranks.
        let tens = tokens.iter().filter(|t| t.text.starts_with("10")).count();
        if tokens.len() != grid.cells() || found != 2 * grid.cells() + tens {
            return Err(err(
                line,
                start_col,
                ParseErrorKind::WrongLength {
                    grid,
                    expected: 2 * grid.cells() + tens,
                    found,
                },
            ));
        }
        (grid, tokens)
    };
    if let Some(want) = grid
        && want != found_grid
    {
        return Err(err(
            tokens[0].line,
            tokens[0].column,
            ParseErrorKind::GridMismatch {
                expected: want,
                found: found_grid,
            },
        ));
    }
    let mut cells = Vec::with_capacity(tokens.len());
    let mut first_seen: [Option<(usize, usize)>; 52] = [None; 52];
    for t in &tokens {
        let card = cell_token(t)?;
        if let Some(card) = card {
            if let Some((first_line, first_column)) = first_seen[card.code() as usize] {
                return Err(err(
                    t.line,
                    t.column,
                    ParseErrorKind::DuplicateCard {
                        card,
                        first_line,
                        first_column,
                    },
                ));
            }
            first_seen[card.code() as usize] = Some((t.line, t.column));
        }
        cells.push(card);
    }
    if cells.iter().all(Option::is_none) {
        return Err(err(
            tokens[0].line,
            tokens[0].column,
            ParseErrorKind::NoCards,
        ));
    }
    Ok(State::new(found_grid, &cells).expect("cells checked above"))
}

/// The line and column (from 1) where `trimmed`, the text without its
/// surrounding white space, starts in `text`.
fn start_of(text: &str, trimmed: &str) -> (usize, usize) {
    let before = &text[..text.find(trimmed).unwrap_or(0)];
    let line = 1 + before.matches('\n').count();
    let column = 1 + before.rsplit('\n').next().map_or(0, |s| s.chars().count());
    (line, column)
}

/// Splits the compact form into cell tokens: two characters each, three
/// for a card written with `10`.
fn compact_tokens(text: &str, line: usize, start_col: usize) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut column = start_col;
    let mut rest = text;
    while !rest.is_empty() {
        let width = if rest.starts_with("10") { 3 } else { 2 };
        let end = rest
            .char_indices()
            .nth(width)
            .map_or(rest.len(), |(i, _)| i);
        tokens.push(Token {
            text: &rest[..end],
            line,
            column,
        });
        column += width;
        rest = &rest[end..];
    }
    tokens
}

/// Splits the grid form into tokens and finds its shape.
fn grid_tokens(text: &str) -> Result<(Grid, Vec<Token<'_>>), ParseError> {
    let mut rows: Vec<Vec<Token>> = Vec::new();
    for (li, line) in text.lines().enumerate() {
        let mut row = Vec::new();
        let mut col = 1;
        let mut rest = line;
        while !rest.is_empty() {
            let c = rest.chars().next().unwrap();
            if c == '/' {
                rows.push(std::mem::take(&mut row));
                rest = &rest[1..];
                col += 1;
            } else if c.is_whitespace() {
                rest = &rest[c.len_utf8()..];
                col += 1;
            } else {
                let end = rest
                    .find(|ch: char| ch.is_whitespace() || ch == '/')
                    .unwrap_or(rest.len());
                let word = &rest[..end];
                // A row written without spaces (as in a link's id) is
                // compact: no single cell is longer than `10H`.
                if word.chars().count() > 3 {
                    row.extend(compact_tokens(word, li + 1, col));
                } else {
                    row.push(Token {
                        text: word,
                        line: li + 1,
                        column: col,
                    });
                }
                col += word.chars().count();
                rest = &rest[end..];
            }
        }
        rows.push(row);
    }
    // Blank lines (and a trailing '/') separate nothing.
    let rows: Vec<Vec<Token>> = rows.into_iter().filter(|r| !r.is_empty()).collect();
    let Some(first_row) = rows.first() else {
        // Only separators, like "/".
        return Err(err(1, 1, ParseErrorKind::NoCards));
    };
    let cols = first_row.len();
    for (i, row) in rows.iter().enumerate().skip(1) {
        if row.len() != cols {
            return Err(err(
                row[0].line,
                row[0].column,
                ParseErrorKind::RaggedRow {
                    row: i + 1,
                    expected: cols,
                    found: row.len(),
                },
            ));
        }
    }
    let n_rows = rows.len();
    let first = (rows[0][0].line, rows[0][0].column);
    if n_rows * cols > MAX_CELLS {
        let cards = rows
            .iter()
            .flatten()
            .filter(|t| t.text != "--" && t.text != "..")
            .count();
        let kind = if cards > MAX_CELLS {
            ParseErrorKind::TooManyCards {
                cards,
                cells: MAX_CELLS,
            }
        } else {
            ParseErrorKind::TooManyCells { rows: n_rows, cols }
        };
        return Err(err(first.0, first.1, kind));
    }
    let grid = Grid::new(n_rows, cols).expect("size checked");
    Ok((grid, rows.into_iter().flatten().collect()))
}

/// The compact row-major notation, `--` for an empty cell.
pub fn to_compact(state: &State) -> String {
    state
        .tops()
        .iter()
        .map(|c| c.map_or("--".to_string(), |c| c.to_string()))
        .collect()
}

/// The compact notation with `..` for an empty cell, safe as a command-line argument.
pub fn to_compact_dots(state: &State) -> String {
    to_compact(state).replace("--", "..")
}

/// The grid form: one line per row, cells split by spaces, as printed in seed 001.
/// A one-cell grid ends with `/`: alone, `KH` would read as a compact 4×4 state.
pub fn to_grid(state: &State) -> String {
    let g = state.grid();
    if g.cells() == 1 {
        return puzzle_id(state);
    }
    (0..g.rows())
        .map(|r| {
            (0..g.cols())
                .map(|c| {
                    state
                        .top(r * g.cols() + c)
                        .map_or("--".to_string(), |c| c.to_string())
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A puzzle's id, safe in a link (letters, digits, `-` and `/`): the
/// compact notation on a 4×4 grid, and on any other each row compact with
/// rows split by `/`, whose shape gives the grid back. [`parse_puzzle`]
/// reads either, and the grid form with spaces too.
pub fn puzzle_id(state: &State) -> String {
    let compact = to_compact(state);
    let grid = state.grid();
    if grid == Grid::SQUARE4 {
        return compact;
    }
    // Every cell is two characters in the compact form (`T` for ten).
    let chars: Vec<char> = compact.chars().collect();
    let rows: Vec<String> = chars
        .chunks(2 * grid.cols())
        .map(|row| row.iter().collect())
        .collect();
    // One row alone would read as a 4×4 compact state: a trailing `/`
    // marks the grid form.
    let end = if rows.len() == 1 { "/" } else { "" };
    rows.join("/") + end
}

/// Reads a puzzle as a designer enters it: a 4×4 deal number (like `617`
/// or `-1`), a state in either form and either ten (`T` or `10`), or an id
/// from [`puzzle_id`]. Compact states are 4×4.
pub fn parse_puzzle(text: &str) -> Result<State, ParseError> {
    let trimmed = text.trim();
    let digits = trimmed.strip_prefix('-').unwrap_or(trimmed);
    // No state is all digits (every card has a suit letter).
    if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
        let (line, column) = start_of(text, trimmed);
        return trimmed
            .parse::<i32>()
            .map(deal)
            .map_err(|_| err(line, column, ParseErrorKind::BadDeal));
    }
    parse_state(text, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `state` fuzz target (tests/fuzz/regressions/state/one-cell):
    /// the grid form of a 1×1 state was `KH`, which reads as a short 4×4 state.
    #[test]
    fn a_one_cell_grid_prints_a_grid_form_that_reads_back() {
        let s = parse_puzzle("KH/").unwrap();
        assert_eq!(s.grid(), Grid::new(1, 1).unwrap());
        assert_eq!(to_grid(&s), "KH/");
        assert_eq!(parse_state(&to_grid(&s), None), Ok(s));
    }

    #[test]
    fn compact_round_trip() {
        let s = parse_state("TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S", None).unwrap();
        assert_eq!(s.stack_count(), 16);
        assert_eq!(to_compact(&s), "TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S");
        assert_eq!(s.top(0).unwrap().to_string(), "TH");
        assert_eq!(s.top(15).unwrap().to_string(), "3S");
    }

    #[test]
    fn grid_forms_agree() {
        let lines = "-- -- KH --\n2S -- JD QC\n-- -- TS JS\n-- -- 3C --";
        let slashes = "-- -- KH -- / 2S -- JD QC / -- -- TS JS / -- -- 3C --";
        let compact = "....KH..2S..JDQC....TSJS....3C..";
        let a = parse_state(lines, None).unwrap();
        assert_eq!(a, parse_state(slashes, None).unwrap());
        assert_eq!(a, parse_state(compact, None).unwrap());
        assert_eq!(a.stack_count(), 7);
        assert_eq!(to_grid(&a), lines);
    }

    #[test]
    fn errors_say_where() {
        let e = parse_state("TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3", None).unwrap_err();
        assert!(matches!(
            e.kind,
            ParseErrorKind::WrongLength {
                expected: 32,
                found: 31,
                ..
            }
        ));
        let e = parse_state("TH5HKSTC6SACTS6C6HQD4SJDJS3C5DXS", None).unwrap_err();
        assert_eq!(
            (e.line, e.column, e.kind.clone()),
            (1, 31, ParseErrorKind::UnknownRank('X'))
        );
        let e = parse_state("TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3X", None).unwrap_err();
        assert_eq!(
            (e.line, e.column, e.kind.clone()),
            (1, 32, ParseErrorKind::UnknownSuit('X'))
        );
        let e = parse_state(
            "THTH..............................",
            Some(Grid::new(1, 2).unwrap()),
        )
        .unwrap_err();
        assert!(matches!(
            e.kind,
            ParseErrorKind::WrongLength { expected: 4, .. }
        ));
        let e = parse_state("TH 5H\n5H TC", None).unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        assert!(matches!(
            e.kind,
            ParseErrorKind::DuplicateCard {
                first_line: 1,
                first_column: 4,
                ..
            }
        ));
        let e = parse_state("TH 5H\nKS", None).unwrap_err();
        assert_eq!(
            e.kind,
            ParseErrorKind::RaggedRow {
                row: 2,
                expected: 2,
                found: 1
            }
        );
        let e = parse_state("TH 5H THX", None).unwrap_err();
        assert_eq!(
            (e.column, e.kind),
            (7, ParseErrorKind::BadToken("THX".into()))
        );
        let five_rows = "AC AD AH AS\n2C 2D 2H 2S\n3C 3D 3H 3S\n4C 4D 4H 4S\n5C 5D 5H 5S";
        let e = parse_state(five_rows, None).unwrap_err();
        assert_eq!(
            e.kind,
            ParseErrorKind::TooManyCards {
                cards: 20,
                cells: 16
            }
        );
        let e = parse_state(
            "AC -- -- --\n-- -- -- --\n-- -- -- --\n-- -- -- --\n-- -- -- --",
            None,
        )
        .unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::TooManyCells { rows: 5, cols: 4 });
        assert_eq!(
            parse_state("  \n ", None).unwrap_err().kind,
            ParseErrorKind::Empty
        );
    }

    #[test]
    fn ten_reads_as_t_everywhere() {
        let t = parse_state("TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S", None).unwrap();
        let tens = "10H5HKS10C6SAC10S6C6HQD4SJDJS3C5D3S";
        assert_eq!(parse_state(tens, None).unwrap(), t);
        let grid = "10H 5H KS 10c\n6S AC 10S 6C\n6H QD 4S JD\nJS 3C 5D 3S";
        assert_eq!(parse_state(grid, None).unwrap(), t);
        assert_eq!(parse_card("10h").unwrap(), parse_card("TH").unwrap());
        assert_eq!(
            parse_move("JS-10H").unwrap(),
            (parse_card("JS").unwrap(), parse_card("TH").unwrap())
        );
        assert_eq!(parse_move("10S→10C").unwrap().1.to_string(), "TC");
        // Errors still say where: the suit of a 10 is its third character.
        let e = parse_state("10X5HKS10C6SAC10S6C6HQD4SJDJS3C5D3S", None).unwrap_err();
        assert_eq!((e.column, e.kind), (3, ParseErrorKind::UnknownSuit('X')));
        let e = parse_state("5H 11H", None).unwrap_err();
        assert_eq!((e.column, e.kind), (4, ParseErrorKind::UnknownRank('1')));
        // One character short, with a 10 in it.
        let e = parse_state("10H5HKS10C6SAC10S6C6HQD4SJDJS3C5D3", None).unwrap_err();
        assert!(matches!(
            e.kind,
            ParseErrorKind::WrongLength {
                expected: 35,
                found: 34,
                ..
            }
        ));
    }

    #[test]
    fn moves_parse() {
        let (a, b) = parse_move("JS-JC").unwrap();
        assert_eq!((a.to_string(), b.to_string()), ("JS".into(), "JC".into()));
        assert_eq!(parse_move("js->jc").unwrap(), (a, b));
        assert_eq!(parse_move("JS→JC").unwrap(), (a, b));
        assert_eq!(
            parse_move("JSJC").unwrap_err().kind,
            ParseErrorKind::BadMove
        );
        let e = parse_move("JS-JX").unwrap_err();
        assert_eq!((e.column, e.kind), (5, ParseErrorKind::UnknownSuit('X')));
        assert_eq!(parse_grid("3x5").unwrap(), Grid::new(3, 5).unwrap());
        assert!(parse_grid("5x5").is_err());
    }

    #[test]
    fn puzzles_are_read_from_deal_numbers_states_and_ids() {
        let zero = "TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S";
        let by_number = parse_puzzle(" 0 ").unwrap();
        assert_eq!(to_compact(&by_number), zero);
        assert_eq!(
            parse_puzzle("10H5HKS10C6SAC10S6C6HQD4SJDJS3C5D3S"),
            Ok(by_number.clone())
        );
        assert_eq!(puzzle_id(&by_number), zero);
        assert_eq!(parse_puzzle(zero), Ok(by_number));
        assert_eq!(parse_puzzle("-1"), Ok(deal(-1)));
        assert_eq!(parse_puzzle("2147483647"), Ok(deal(i32::MAX)));
        // A 3x2 puzzle's id names its grid by its shape.
        let small = parse_state("-- AS / 2S -- / TH 10D", None).unwrap();
        let id = puzzle_id(&small);
        assert_eq!(id, "--AS/2S--/THTD");
        assert_eq!(parse_puzzle(&id), Ok(small.clone()));
        // The spaced grid form of earlier ids still reads.
        assert_eq!(parse_puzzle("-- AS / 2S -- / TH TD"), Ok(small));
        let row = parse_state("AS 10D 2S", None).unwrap();
        assert_eq!(puzzle_id(&row), "ASTD2S/");
        assert_eq!(parse_puzzle(&puzzle_id(&row)), Ok(row));
        // A compact row says where a bad card is.
        let e = parse_puzzle("--AS/2S-X").unwrap_err();
        assert_eq!((e.line, e.column), (1, 8));
    }

    #[test]
    fn bad_puzzles_say_where() {
        let e = parse_puzzle("  2147483648").unwrap_err();
        assert_eq!((e.line, e.column, e.kind), (1, 3, ParseErrorKind::BadDeal));
        let e = parse_puzzle("TH5HKSTC6SACTS6C6HQD4SJDJS3C5DXS").unwrap_err();
        assert_eq!((e.line, e.column), (1, 31));
        assert_eq!(e.kind, ParseErrorKind::UnknownRank('X'));
        assert_eq!(parse_puzzle("  ").unwrap_err().kind, ParseErrorKind::Empty);
        assert!(parse_puzzle("-").is_err());
        // The caret stands under the error's column.
        let e = parse_puzzle("AS XS").unwrap_err();
        assert_eq!(e.column, 4);
        assert_eq!(e.pointed("AS XS", "  "), format!("{e}\n  AS XS\n     ^"));
    }
}
