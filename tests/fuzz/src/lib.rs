//! The bodies of boaf's fuzz targets: one plain function a parser of what a
//! person types or a file holds, run by libFuzzer (`fuzz_targets/*.rs`) and
//! by the plain tests that replay the corpora and regressions
//! (`tests/replay.rs`). Each feeds the bytes to the real parser and, where it
//! is cheap, checks an invariant of the answer (a state prints and reads
//! back to itself, a ratings table writes and reads back to itself), so the
//! fuzzer finds wrong answers as well as panics.

use boaf_core::State;
use boaf_core::engine::deal::deal;
use boaf_core::engine::notation::{
    parse_card, parse_grid, parse_move, parse_puzzle, parse_state, puzzle_id, to_compact,
    to_compact_dots, to_grid,
};
use boaf_core::engine::state::Grid;
use boaf_core::generator::energy::{Chain, Energy, EnergyBook, holds, parse_condition};
use boaf_core::generator::store::{dedup_key, parse_store_bytes};
use boaf_core::study::play_log::{MAX_MS, replay_handed};
use boaf_core::study::ratings::{escape_note, parse_ratings, unescape_note};
use boaf_server::answers::{JoinBody, SkipBody, Submission, cookie_token};
use boaf_server::limits::{
    MAX_NAME, MAX_NICKNAME, check_nickname, check_notes, check_pid, check_study_name,
};

/// The most one allocation may ask for while a target runs. libFuzzer's own
/// `-malloc_limit_mb` needs a sanitizer's malloc hooks, which a build with
/// no sanitizer lacks, so the cap is kept here: an input of at most 64 KiB
/// that makes a parser ask for more is a bug, and aborting makes libFuzzer
/// keep it as a crash.
pub const ALLOCATION_CAP: usize = 256 << 20;

/// The system allocator, aborting on any allocation over [`ALLOCATION_CAP`].
struct Capped;

// SAFETY: every call is passed on unchanged to the system allocator.
unsafe impl std::alloc::GlobalAlloc for Capped {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        over_cap(layout.size());
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        over_cap(layout.size());
        // SAFETY: as above.
        unsafe { std::alloc::System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: as above.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new: usize) -> *mut u8 {
        over_cap(new);
        // SAFETY: as above.
        unsafe { std::alloc::System.realloc(ptr, layout, new) }
    }
}

/// Aborts (no message: printing would allocate) on a size over the cap.
fn over_cap(size: usize) {
    if size > ALLOCATION_CAP {
        std::process::abort();
    }
}

#[global_allocator]
static CAPPED: Capped = Capped;

/// A target's body: one input, which it must take without a panic.
pub type Body = fn(&[u8]);

/// Every target by name, with its body: what `tests/replay.rs` runs each
/// corpus and regression folder through.
pub const TARGETS: [(&str, Body); 10] = [
    ("state", state),
    ("moves", moves),
    ("energy", energy),
    ("expr", expr),
    ("fitted_range", fitted_range),
    ("ratings", ratings),
    ("store", store),
    ("condition", condition),
    ("server_body", server_body),
    ("link_ids", link_ids),
];

/// The bytes as text, or `None`: every text parser takes a `&str` (the
/// command line and the app hand over text, never raw bytes).
fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// A state that parsed reads back from each form boaf prints: compact
/// (with `--` and with `..`), grid, its link id, and with `10` for `T`.
fn state_round_trips(s: &State) {
    let grid = Some(s.grid());
    let compact = to_compact(s);
    assert_eq!(parse_state(&compact, grid).as_ref(), Ok(s), "{compact}");
    let dots = to_compact_dots(s);
    assert_eq!(parse_state(&dots, grid).as_ref(), Ok(s), "{dots}");
    let tens = compact.replace('T', "10");
    assert_eq!(parse_state(&tens, grid).as_ref(), Ok(s), "{tens}");
    let lines = to_grid(s);
    assert_eq!(parse_state(&lines, None).as_ref(), Ok(s), "{lines}");
    let id = puzzle_id(s);
    assert_eq!(parse_puzzle(&id).as_ref(), Ok(s), "{id}");
}

/// States in both notations (research `TH`, card `10H`), grids of lines or
/// `/`, link ids and deal numbers: `parse_puzzle`, and `parse_state` on a
/// 3×5 grid (`--grid 3x5`).
pub fn state(data: &[u8]) {
    let Some(t) = text(data) else { return };
    for parsed in [parse_puzzle(t), parse_state(t, Grid::new(3, 5).ok())] {
        match parsed {
            Ok(s) => state_round_trips(&s),
            Err(e) => {
                // The CLI shows the line with a caret under the column.
                assert!(e.line >= 1 && e.column >= 1, "{e:?}");
                let _ = e.pointed(t, "  ");
            }
        }
    }
}

/// Moves (`JS-JC`, `10S->JC`, `JS→JC`), single cards and grid sizes
/// (`3x5`): each that parses reads back from its printed form.
pub fn moves(data: &[u8]) {
    let Some(t) = text(data) else { return };
    if let Ok((a, b)) = parse_move(t) {
        for printed in [format!("{a}-{b}"), format!("{a}->{b}")] {
            assert_eq!(parse_move(&printed), Ok((a, b)), "{printed}");
        }
    }
    if let Ok(c) = parse_card(t) {
        assert_eq!(parse_card(&c.to_string()), Ok(c));
        assert_eq!(parse_card(&c.to_string().replace('T', "10")), Ok(c));
    }
    if let Ok(g) = parse_grid(t) {
        assert_eq!(parse_grid(&format!("{}x{}", g.rows(), g.cols())), Ok(g));
    }
}

/// A TOML string holding `text`, quoted and escaped as TOML writes it.
fn toml_string(text: &str) -> String {
    toml_edit::Value::from(text).to_string().trim().to_string()
}

/// An energy's TOML from its canonical texts alone (no rated range).
fn energy_toml(e: &Energy) -> String {
    let mut doc = format!(
        "[[energy]]\nname = {}\nvalue = {}\npenalty = {:?}\n",
        toml_string(&e.name),
        toml_string(&e.value_text()),
        e.penalty
    );
    for b in &e.bonuses {
        let when: Vec<String> = b.when.iter().map(Chain::to_string).collect();
        doc += &format!(
            "[[energy.bonus]]\nwhen = {}\nadd = {:?}\n",
            toml_string(&when.join(" and ")),
            b.add
        );
    }
    doc
}

/// Everything the app and the CLI show of an energy, and its value on
/// made-up features; its canonical texts read back to the same id.
fn energy_checks(e: &Energy) {
    let _ = (e.definition(), e.explain(), e.range_text(), e.reads());
    for v in [0.0, 0.5, 3.0, -1.0] {
        let _ = e.eval_with(true, |_| Some(v));
        let _ = e.outside_range_with(true, |_| Some(v));
    }
    let _ = e.eval_with(true, |_| None);
    let _ = e.eval_with(false, |_| None);
    let again = energy_toml(e);
    let book =
        EnergyBook::parse(&again, "again.toml").unwrap_or_else(|err| panic!("{err}\nin\n{again}"));
    assert_eq!(book.energies()[0].id(), e.id(), "{again}");
}

/// Energy files (TOML with the expression language inside).
pub fn energy(data: &[u8]) {
    let Some(t) = text(data) else { return };
    match EnergyBook::parse(t, "fuzz.toml") {
        Ok(book) => {
            for e in book.energies() {
                energy_checks(e);
                assert!(book.get(&e.name).is_some(), "{}", e.name);
            }
        }
        Err(e) => assert!(e.line >= 1 && e.column >= 1, "{e}"),
    }
}

/// The expression language: the bytes as an energy's value, and as a
/// bonus's condition, in an otherwise good file.
pub fn expr(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let quoted = toml_string(t);
    for doc in [
        format!("[[energy]]\nname = \"X\"\nvalue = {quoted}\n"),
        format!("[[energy]]\nname = \"X\"\nbonus = [{{ when = {quoted}, add = -5 }}]\n"),
    ] {
        match EnergyBook::parse(&doc, "fuzz.toml") {
            Ok(book) => energy_checks(&book.energies()[0]),
            // The file is good but for the expression, on line 3.
            Err(e) => assert_eq!(e.line, 3, "{e}\nin\n{doc}"),
        }
    }
}

/// A fitted energy's rated range: the bytes as the inside of its inline
/// table, as `boaf regress --energy` writes it.
pub fn fitted_range(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let head = "[[energy]]\nname = \"fitted\"\nvalue = \"2.5 - 0.5 * halfway_ratio + 0.25 * rank_clusters\"\n";
    let doc = format!("{head}range = {{ {t} }}\n");
    let Ok(book) = EnergyBook::parse(&doc, "fitted.toml") else {
        return;
    };
    let e = &book.energies()[0];
    for r in e.rated_range() {
        assert!(
            r.min.is_finite() && r.max.is_finite() && r.min <= r.max,
            "{r:?}"
        );
    }
    // The range decides no value: the id is the definition's.
    let bare = EnergyBook::parse(head, "bare.toml").expect("the head parses");
    assert_eq!(e.id(), bare.energies()[0].id());
    assert_eq!(e.range_text().is_some(), !e.rated_range().is_empty());
    energy_checks(e);
}

/// The ratings CSV: a table that reads writes back (as the CSV writer
/// quotes it) and reads again to the same header and rows; every cell reads
/// as a number or says why not; every note round-trips its escape.
pub fn ratings(data: &[u8]) {
    let Ok(table) = parse_ratings(data, "fuzz.csv") else {
        return;
    };
    assert_eq!(table.rows.len(), table.lines.len());
    assert!(table.torn_at.is_none_or(|at| at <= data.len()));
    assert!(
        table.lines.windows(2).all(|w| w[0] < w[1]),
        "{:?}",
        table.lines
    );
    for (row, cells) in table.rows.iter().enumerate() {
        assert_eq!(cells.len(), table.headers.len());
        for name in &table.headers {
            let _ = table.checked_number(row, name);
        }
        if let Some(notes) = table.text(row, "notes") {
            assert_eq!(unescape_note(&escape_note(notes)), notes);
        }
    }
    // A header the reader trims reads back only as itself if trimmed and
    // unique; the writer gives rows with exactly the header's length.
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    w.write_record(&table.headers).expect("CSV into memory");
    for r in &table.rows {
        w.write_record(r).expect("CSV into memory");
    }
    let bytes = w.into_inner().expect("CSV into memory");
    let again = parse_ratings(&bytes, "again.csv").expect("a written table reads");
    assert_eq!(again.headers, table.headers);
    // One empty field alone is a blank line to the reader.
    let blank = |r: &Vec<String>| r.len() == 1 && r[0].is_empty();
    let rows: Vec<&Vec<String>> = table.rows.iter().filter(|r| !blank(r)).collect();
    assert_eq!(again.rows.iter().collect::<Vec<_>>(), rows);
    assert!(again.skipped.is_empty(), "{:?}", again.skipped);
}

/// The puzzle store (JSON Lines): every candidate read gives its state and
/// dedup key without a panic, and writes and reads back to itself.
pub fn store(data: &[u8]) {
    let (cands, skipped) = parse_store_bytes(data);
    let lines = data.split(|&b| b == b'\n').count();
    assert!(cands.len() + skipped.len() <= lines);
    for s in &skipped {
        assert!(s.line >= 1 && s.line <= lines, "{s:?}");
        let _ = s.to_string();
    }
    for c in &cands {
        let _ = (c.state(), dedup_key(c), c.grade());
        let line = serde_json::to_string(c).expect("a candidate serializes");
        let (back, bad) = parse_store_bytes(format!("{line}\n").as_bytes());
        assert!(bad.is_empty(), "{bad:?} in {line}");
        assert_eq!(
            serde_json::to_string(&back[0]).expect("a candidate serializes"),
            line
        );
    }
}

/// The condition language of `--where` (the CLI's `parse_where` is this
/// parser and a caret): what parses prints and parses to itself, and an
/// error's offset is inside the text.
pub fn condition(data: &[u8]) {
    let Some(t) = text(data) else { return };
    match parse_condition(t) {
        Ok(chains) => {
            let printed: Vec<String> = chains.iter().map(Chain::to_string).collect();
            let printed = printed.join(" and ");
            let again = parse_condition(&printed)
                .unwrap_or_else(|e| panic!("{printed:?} does not read back: {e:?}"));
            let again: Vec<String> = again.iter().map(Chain::to_string).collect();
            assert_eq!(again.join(" and "), printed);
            for v in [0.0, 1.0, 7.5] {
                let _ = holds(&chains, |_| Some(v));
            }
            let _ = holds(&chains, |_| None);
        }
        Err((at, _)) => assert!(at <= t.len(), "offset {at} past {}", t.len()),
    }
}

/// The study server's request bodies and its cookie: a join (its nickname
/// checked as the store checks it), a skip, the token in a `Cookie` header,
/// and a submission (JSON), checked and its play log replayed as the store
/// does before it keeps a rating (the HTTP layer and SQLite aside): on a
/// deal picked by the puzzle id, handed out a minute ago.
pub fn server_body(data: &[u8]) {
    if let Ok(join) = serde_json::from_slice::<JoinBody>(data) {
        let _ = check_nickname(&join.nickname);
    }
    let _ = serde_json::from_slice::<SkipBody>(data);
    if let Some(t) = text(data)
        && let Some(token) = cookie_token(t, "s1")
    {
        // The value of the study's own pair, whole: it ends at a `;`.
        assert!(!token.contains(';'), "{token}");
        assert!(t.contains(&format!("boaf_s1={token}")), "{t}");
    }
    let Ok(s) = serde_json::from_slice::<Submission>(data) else {
        return;
    };
    if check_notes(&s.notes).is_err() || !(0.0..=10.0).contains(&s.rating) {
        return;
    }
    let deal = deal(s.puzzle.rem_euclid(10_000) as i32);
    if let Ok(record) = replay_handed(deal, &s.log, 60_000.0) {
        assert!(record.moves as usize <= s.log.events.len());
        assert!(record.seconds.is_finite() && record.seconds * 1000.0 <= MAX_MS + 1.0);
        let _ = serde_json::to_string(&record).expect("a record serializes");
    }
}

/// The ids in links and what a rater or designer names: a puzzle id
/// (`/p/ID`), a study name (`/s/NAME`), a participant id (`?pid=`), a
/// nickname and notes. A puzzle id read gives back an id safe in a link.
pub fn link_ids(data: &[u8]) {
    let Some(t) = text(data) else { return };
    if let Ok(s) = parse_puzzle(t) {
        let id = puzzle_id(&s);
        assert!(
            id.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '/'),
            "{id}"
        );
        assert_eq!(parse_puzzle(&id), Ok(s));
    }
    let plain = |x: &str| {
        !x.is_empty()
            && x.len() <= MAX_NAME
            && x.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    assert_eq!(check_study_name(t).is_ok(), plain(t));
    assert_eq!(check_pid(t).is_ok(), plain(t));
    if let Ok(nick) = check_nickname(t) {
        assert!(nick.chars().count() <= MAX_NICKNAME && !nick.chars().any(char::is_control));
    }
    let _ = check_notes(t);
}
