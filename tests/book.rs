//! `boaf book`, read back as a reader would with poppler's tools
//! (pdftotext, pdfinfo, pdftoppm): every puzzle's number, grade and id is
//! in the text, every solution parsed back from the text wins, the pages
//! hold the right puzzles at 1, 2, 4 and 6 a page, a page is drawn, and bad
//! input leaves no book behind.
//!
//! The poppler tests need poppler-utils, which `tests/run` installs; it
//! also sets `BOAF_PDF_TESTS=1`, which makes their absence a failure rather
//! than a skip.

#[path = "../src/core/tests/common/temp.rs"]
mod temp;
#[path = "common/tools.rs"]
mod tools;

use boaf_core::agents::grade::grade;
use boaf_core::engine::deal::{deal, deal_on};
use boaf_core::engine::limits::Limits;
use boaf_core::engine::notation::{parse_card, parse_puzzle, puzzle_id};
use boaf_core::engine::solver::solve;
use boaf_core::generator::energy::builtin;
use boaf_core::generator::pipeline::{Candidate, entered_candidate};
use boaf_core::{Card, Grid, State};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use temp::TempDir;
use tools::have;

fn boaf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_boaf"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Whether poppler's tools are here; under `tests/run` they must be.
fn poppler() -> bool {
    if ["pdftotext", "pdfinfo", "pdftoppm"].iter().all(|t| have(t)) {
        return true;
    }
    assert!(
        std::env::var("BOAF_PDF_TESTS").as_deref() != Ok("1"),
        "poppler-utils (pdftotext, pdfinfo, pdftoppm) is missing, and BOAF_PDF_TESTS=1"
    );
    eprintln!("skipped: poppler-utils is not installed (tests/run installs it)");
    false
}

/// The first `keep` cards of a state, the other cells emptied.
fn first_cards(state: &State, keep: usize) -> State {
    let mut left = keep;
    let cells: Vec<Option<Card>> = state
        .tops()
        .iter()
        .map(|c| {
            let kept = c.filter(|_| left > 0);
            left = left.saturating_sub(usize::from(kept.is_some()));
            kept
        })
        .collect();
    State::new(state.grid(), &cells).unwrap()
}

/// A store of `count` small solvable puzzles (6 to 9 cards, the first on a
/// 3×4 grid) with their difficulty features, so that they have grades.
fn store(dir: &TempDir, count: usize) -> (PathBuf, Vec<Candidate>) {
    let energy = builtin().get("E5").unwrap().clone();
    let mut list = Vec::new();
    for d in 0.. {
        if list.len() == count {
            break;
        }
        // The first puzzle is on a 3×4 grid.
        let full = if list.is_empty() {
            deal_on(d, Grid::new(3, 4).unwrap())
        } else {
            deal(d)
        };
        let state = first_cards(&full, 6 + (d as usize % 4));
        if !solve(&state).unwrap().is_solvable() {
            continue;
        }
        list.push(entered_candidate(&state, &energy, true, Limits::default()).unwrap());
    }
    let path = dir.join("puzzles.jsonl");
    let lines: Vec<String> = list
        .iter()
        .map(|c| serde_json::to_string(c).unwrap())
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    (path, list)
}

/// Writes a book with these extra arguments; panics if it fails.
fn book(store: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec!["book", store.to_str().unwrap(), "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let run = boaf(&args);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(text(&run.stdout).contains("wrote"), "{}", text(&run.stdout));
}

/// The PDF's text, page by page (pdftotext's form feeds).
fn pages(pdf: &Path) -> Vec<String> {
    let out = Command::new("pdftotext")
        .arg(pdf)
        .arg("-")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut pages: Vec<String> = text(&out.stdout).split('\u{c}').map(String::from).collect();
    // The text ends with a form feed.
    if pages.last().is_some_and(|p| p.trim().is_empty()) {
        pages.pop();
    }
    pages
}

/// pdfinfo's page count.
fn page_count(pdf: &Path) -> usize {
    let out = Command::new("pdfinfo").arg(pdf).output().unwrap();
    let info = text(&out.stdout);
    info.lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .unwrap_or_else(|| panic!("no page count in {info}"))
        .trim()
        .parse()
        .unwrap()
}

/// The puzzles a page shows: number → (grade, id), from each
/// `Puzzle N · Grade` and the `id …` lines, which come in the same order.
fn puzzles_on(page: &str) -> BTreeMap<usize, (String, String)> {
    let lines: Vec<&str> = page.lines().map(str::trim).collect();
    let heads = lines.iter().filter_map(|l| {
        let (n, g) = l.strip_prefix("Puzzle ")?.split_once(" · ")?;
        Some((n.parse::<usize>().unwrap(), g.to_string()))
    });
    let ids: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix("id ")).collect();
    let found: BTreeMap<usize, (String, String)> = heads
        .zip(&ids)
        .map(|((n, g), id)| (n, (g, id.to_string())))
        .collect();
    assert_eq!(found.len(), ids.len(), "{page}");
    found
}

/// A card as the book writes it, `10♥`.
fn card(face: &str) -> Card {
    let research: String = face
        .chars()
        .map(|c| match c {
            '♣' => 'C',
            '♦' => 'D',
            '♥' => 'H',
            '♠' => 'S',
            c => c,
        })
        .collect();
    parse_card(&research).unwrap_or_else(|e| panic!("{face:?}: {e}"))
}

/// Each solution's moves as printed: number → [(moving, target)], read
/// from `Solution to puzzle N` and the `k. X onto Y` after it.
fn solutions(pages: &[String]) -> BTreeMap<usize, Vec<(Card, Card)>> {
    let all = pages.join("\n");
    let mut found = BTreeMap::new();
    for part in all.split("Solution to puzzle ").skip(1) {
        let number: usize = part.split(" · ").next().unwrap().trim().parse().unwrap();
        let words: Vec<&str> = part.split_whitespace().collect();
        let mut moves = Vec::new();
        for (k, w) in words.iter().enumerate() {
            if *w == "onto" {
                // The move's number says none was lost in the text.
                assert_eq!(words[k - 2], format!("{}.", moves.len() + 1), "{part}");
                moves.push((card(words[k - 1]), card(words[k + 1])));
            }
        }
        found.insert(number, moves);
    }
    found
}

/// A book of a store of `count` puzzles, with these arguments, in a
/// fresh folder: the folder, the book and the puzzles; `None` (skipped)
/// without poppler.
fn book_of(name: &str, count: usize, extra: &[&str]) -> Option<(TempDir, PathBuf, Vec<Candidate>)> {
    if !poppler() {
        return None;
    }
    let dir = TempDir::new(name);
    let (path, list) = store(&dir, count);
    let pdf = dir.join("book.pdf");
    book(&path, &pdf, extra);
    Some((dir, pdf, list))
}

#[test]
fn the_text_holds_every_puzzle_and_every_solution_wins() {
    let Some((_dir, pdf, list)) = book_of("book-text", 7, &["--title", "Test book"]) else {
        return;
    };
    let pages = pages(&pdf);
    assert!(pages[0].contains("Test book") && pages[0].contains("7 puzzles"));
    assert!(pages[0].contains("How to play"), "{}", pages[0]);
    let shown: BTreeMap<usize, (String, String)> =
        pages.iter().flat_map(|p| puzzles_on(p)).collect();
    assert_eq!(
        shown.keys().copied().collect::<Vec<_>>(),
        (1..=7).collect::<Vec<_>>()
    );
    // Every stored puzzle, once, with its own grade; easiest first.
    let mut ids: Vec<&str> = shown.values().map(|(_, id)| id.as_str()).collect();
    ids.sort();
    let mut expected: Vec<String> = list
        .iter()
        .map(|c| puzzle_id(&c.state().unwrap()))
        .collect();
    expected.sort();
    assert_eq!(ids, expected);
    let mut last = 0;
    for (g, id) in shown.values() {
        let c = list
            .iter()
            .find(|c| puzzle_id(&c.state().unwrap()) == *id)
            .unwrap();
        let want = grade(&c.features).map_or("Ungraded", |g| g.name());
        assert_eq!(g, want, "{id}");
        let place = ["Easy", "Medium", "Hard", "Expert", "Ungraded"]
            .iter()
            .position(|n| n == g);
        assert!(place.unwrap() >= last, "not easiest first: {shown:?}");
        last = place.unwrap();
    }
    // One grid is not 4×4: its id keeps its rows.
    assert!(ids.iter().any(|id| id.contains('/')), "{ids:?}");
    let solved = solutions(&pages);
    assert_eq!(solved.len(), 7);
    for (number, moves) in &solved {
        let mut state = parse_puzzle(&shown[number].1).unwrap();
        assert_eq!(moves.len(), state.card_count() - 1);
        for &(moving, target) in moves {
            let mv = state.move_between(moving, target).unwrap();
            state = state.apply(mv).unwrap();
        }
        assert!(state.is_solved(), "puzzle {number}");
    }
}

#[test]
fn pages_hold_1_2_4_or_6_puzzles_then_the_solutions() {
    if !poppler() {
        return;
    }
    let dir = TempDir::new("book-pages");
    let (path, _) = store(&dir, 7);
    for k in [1usize, 2, 4, 6] {
        let pdf = dir.join(format!("book-{k}.pdf"));
        let paper = if k == 2 { "letter" } else { "a4" };
        book(
            &path,
            &pdf,
            &["--per-page", &k.to_string(), "--paper", paper],
        );
        let pages = pages(&pdf);
        assert_eq!(page_count(&pdf), pages.len());
        let from: usize = pages[0]
            .split("Solutions from page ")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .unwrap()
            .parse()
            .unwrap();
        // Title, then ⌈7/k⌉ puzzle pages, each with the next k puzzles.
        assert_eq!(from, 2 + 7usize.div_ceil(k), "{k} a page");
        for (p, page) in pages[1..from - 1].iter().enumerate() {
            let numbers: Vec<usize> = puzzles_on(page).into_keys().collect();
            let first = p * k + 1;
            assert_eq!(
                numbers,
                (first..=(first + k - 1).min(7)).collect::<Vec<_>>()
            );
        }
        // Then only solutions, each puzzle's once, in order.
        let rest = &pages[from - 1..];
        assert!(rest.iter().all(|p| p.contains("Solution to puzzle")));
        assert_eq!(
            solutions(rest).into_keys().collect::<Vec<_>>(),
            (1..=7).collect::<Vec<_>>()
        );
    }
    // Letter paper is 8.5 × 11 in.
    let info = Command::new("pdfinfo")
        .arg(dir.join("book-2.pdf"))
        .output()
        .unwrap();
    assert!(
        text(&info.stdout).contains("612 x 792 pts"),
        "{}",
        text(&info.stdout)
    );
}

#[test]
fn a_puzzle_page_is_drawn_in_red_and_black() {
    let Some((dir, pdf, _)) = book_of("book-image", 2, &["--per-page", "1"]) else {
        return;
    };
    let root = dir.join("page");
    let out = Command::new("pdftoppm")
        .args(["-r", "40", "-f", "2", "-l", "2", "-singlefile"])
        .arg(&pdf)
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let ppm = std::fs::read(root.with_extension("ppm")).unwrap();
    // Binary PPM: "P6", width, height, 255, then RGB bytes.
    let header: Vec<&[u8]> = ppm.splitn(5, |b| b.is_ascii_whitespace()).collect();
    assert_eq!(header[0], b"P6");
    let pixels = header[4].chunks(3);
    let total = pixels.len();
    let dark = pixels
        .clone()
        .filter(|p| p.iter().all(|&v| v < 100))
        .count();
    let red = pixels
        .filter(|p| p[0] > 150 && p[1] < 90 && p[2] < 90)
        .count();
    assert!(dark * 200 > total, "only {dark} dark pixels of {total}");
    assert!(
        dark * 4 < total,
        "{dark} dark pixels of {total}: a page of ink"
    );
    // Both puzzles hold hearts or diamonds.
    assert!(red > 0, "no red pixel");
}

#[test]
fn bad_input_is_named_and_leaves_no_book() {
    let dir = TempDir::new("book-bad");
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let pdf = dir.join("book.pdf");
    let out = boaf(&["book", empty.to_str().unwrap(), "-o", pdf.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("holds no puzzle"),
        "{}",
        text(&out.stderr)
    );
    assert!(!pdf.exists());
    let (path, _) = store(&dir, 1);
    let out = boaf(&[
        "book",
        path.to_str().unwrap(),
        "--where",
        "n > 40",
        "-o",
        pdf.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("no puzzle of the 1") && err.contains("passes the filter"),
        "{err}"
    );
    let out = boaf(&[
        "book",
        path.to_str().unwrap(),
        "--per-page",
        "3",
        "-o",
        pdf.to_str().unwrap(),
    ]);
    assert!(
        text(&out.stderr).contains("use 1, 2, 4 or 6"),
        "{}",
        text(&out.stderr)
    );
    // Nothing was written, not even a temporary.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "{left:?}");
}
