//! The rater's page in a real browser: headless Chromium driven through
//! chromedriver (WebDriver, by fantoccini), against the server in process.
//! A rater joins through a `?pid=` link, passes the practice puzzle, wins an
//! 8-card puzzle by clicking (with an undo and a redo), rates it with notes
//! that need escaping, and submits; the row in the database is checked, and
//! a reload resumes at the next puzzle with its move, and a refused
//! submission shows the server's message. In the same browser,
//! board.js's legal moves are compared with the engine's on random states,
//! and a 16-card puzzle's first render and fit are measured at phone and
//! desktop size (`BOAF_SCREENSHOTS=1` writes the README's screenshots).
//!
//! Without chromium and chromedriver the test says so and passes; with
//! `BOAF_BROWSER_TESTS=1` (as `tests/run` sets) it fails instead.

use boaf_core::engine::card::Card;
use boaf_core::engine::deal::{deal, deal_on};
use boaf_core::engine::limits::Limits as SearchLimits;
use boaf_core::engine::notation::{parse_state, to_compact};
use boaf_core::engine::solver::{Verdict, solve};
use boaf_core::engine::state::{Grid, Move, State};
use boaf_core::generator::energy::builtin;
use boaf_core::generator::pipeline::{Candidate, entered_candidate};
use boaf_core::study::play_log::{PlayEvent, PlayLog};
use boaf_server::answers::NewStudy;
use boaf_server::http::{Limits, Server, serve};
use boaf_server::store::Store;
use chrome::{click, run, screenshot_dir, text, wait_for};
use fantoccini::{Client, Locator};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use std::path::Path;

#[path = "common/chrome.rs"]
mod chrome;

/// Notes a rater might type that HTML, CSV and JSON must all keep as typed.
const NOTES: &str = "<script>alert(1)</script> =1+1, a \"quoted\" word";

/// The external participant id the link carries.
const PID: &str = "PROLIFIC-5f3a";

/// The first solvable 8-card puzzle of a deal's cards on a 2×4 grid, from
/// deal `from` on.
fn eight_card_puzzle(from: i32) -> (i32, State) {
    let grid = Grid::new(2, 4).unwrap();
    (from..)
        .map(|number| (number, deal_on(number, grid)))
        .find(|(_, s)| matches!(solve(s), Ok(Verdict::Solvable(_))))
        .unwrap()
}

/// A candidate of a puzzle, as the app's "enter a puzzle" makes one.
fn candidate(state: &State) -> Candidate {
    let energy = builtin().get("E5").unwrap().clone();
    entered_candidate(state, &energy, false, SearchLimits::default()).unwrap()
}

/// The store: `pilot` with two 8-card puzzles, two per rater and a
/// completion code; `deck16` with one 16-card puzzle.
fn make_store(db: &Path) -> Store {
    let mut store = Store::open(db).unwrap();
    let (number, first) = eight_card_puzzle(0);
    let (_, second) = eight_card_puzzle(number + 1);
    let pilot = NewStudy {
        name: "pilot".into(),
        intro: "Play each puzzle & rate <b>how much</b> you enjoyed it.".into(),
        per_rater: 2,
        completion_code: Some("C0DE42".into()),
    };
    store
        .create_study(&pilot, &[candidate(&first), candidate(&second)])
        .unwrap();
    let sixteen = (0..)
        .map(deal)
        .find(|d| matches!(solve(d), Ok(Verdict::Solvable(_))))
        .unwrap();
    let deck16 = NewStudy {
        name: "deck16".into(),
        intro: "Sixteen cards.".into(),
        per_rater: 1,
        completion_code: None,
    };
    store.create_study(&deck16, &[candidate(&sixteen)]).unwrap();
    store
}

/// Waits for a screen of the page (`intro`, `play`, `rate`, `done`).
async fn wait_screen(c: &Client, screen: &str) {
    wait_for(
        c,
        "return document.body.dataset.screen ?? null",
        json!(screen),
    )
    .await;
}

/// Plays a move by clicking its two cells.
async fn play(c: &Client, m: Move) {
    chrome::click_cell(c, m.from).await;
    chrome::click_cell(c, m.to).await;
}

/// Joins from the intro and passes the practice puzzle (its 3 moves).
async fn join_and_practise(c: &Client, nickname: &str) {
    wait_screen(c, "intro").await;
    c.find(Locator::Id("nickname"))
        .await
        .unwrap()
        .send_keys(nickname)
        .await
        .unwrap();
    click(c, "#start").await;
    wait_screen(c, "play").await;
    assert_eq!(text(c, "#title").await, "Practice");
    for (from, to) in [(0, 1), (2, 3), (1, 3)] {
        play(c, Move { from, to }).await;
    }
    assert_eq!(text(c, "#to-rate").await, "Start the study");
    click(c, "#to-rate").await;
    wait_for(
        c,
        "return document.getElementById('title').textContent.startsWith('Puzzle')",
        json!(true),
    )
    .await;
}

/// The puzzle the rater's cookie is on, as /next answers it in the browser.
async fn handed(c: &Client, study: &str) -> Value {
    let script = format!("return fetch('/api/s/{study}/next').then(r => r.json())");
    run(c, &script, vec![]).await
}

/// The state and a solution of a handed-out puzzle.
fn solved(handed: &Value) -> (State, Vec<Move>) {
    let grid = Grid::new(
        handed["rows"].as_u64().unwrap() as usize,
        handed["cols"].as_u64().unwrap() as usize,
    )
    .unwrap();
    let state = parse_state(handed["puzzle"].as_str().unwrap(), Some(grid)).unwrap();
    let Ok(Verdict::Solvable(path)) = solve(&state) else {
        panic!("a study puzzle is solvable");
    };
    (state, path)
}

/// Random states on grids of every shape (some cells empty, some stacks
/// taller), with the engine's legal moves of each as `[from, to]` pairs.
fn random_states(count: usize) -> Vec<(Value, Value)> {
    let mut rng = StdRng::seed_from_u64(25);
    (0..count)
        .map(|_| {
            let rows = rng.random_range(1..=4usize);
            let cols = rng.random_range(1..=4usize);
            let grid = Grid::new(rows, cols).unwrap();
            let mut deck: Vec<u8> = (0..52).collect();
            let cells: Vec<Option<Card>> = (0..grid.cells())
                .map(|_| {
                    (rng.random_range(0..4) != 0).then(|| {
                        let k = rng.random_range(0..deck.len());
                        Card::from_code(deck.swap_remove(k)).unwrap()
                    })
                })
                .collect();
            let state = State::new(grid, &cells).unwrap();
            let moves: Vec<[u8; 2]> = state.legal_moves().iter().map(|m| [m.from, m.to]).collect();
            (
                json!({"compact": to_compact(&state), "rows": rows, "cols": cols}),
                json!(moves),
            )
        })
        .collect()
}

/// Sets the viewport (not the window) to `width`×`height` CSS pixels.
async fn viewport(c: &Client, width: i64, height: i64) {
    let (mut w, mut h) = (width, height);
    for _ in 0..3 {
        c.set_window_size(w as u32, h as u32).await.unwrap();
        let inner = run(c, "return [innerWidth, innerHeight]", vec![]).await;
        let (iw, ih) = (inner[0].as_i64().unwrap(), inner[1].as_i64().unwrap());
        if (iw, ih) == (width, height) {
            return;
        }
        (w, h) = (w + width - iw, h + height - ih);
    }
    panic!("the viewport did not become {width}x{height}");
}

/// Whether the page fits the viewport: no scrolling either way.
async fn fits(c: &Client) -> Value {
    let script = "const d = document.documentElement; \
        return [d.scrollWidth <= innerWidth && d.scrollHeight <= innerHeight, \
        d.scrollWidth, d.scrollHeight, innerWidth, innerHeight]";
    run(c, script, vec![]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rater_plays_rates_and_resumes_in_a_real_browser() {
    let Some((_driver, c)) = chrome::session().await else {
        return;
    };

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ratings/studies.sqlite");
    let store = make_store(&db);
    let server = Server::new(store, Limits::with_rates(1000.0, 1000.0), Some(3));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(serve(listener, server, async {
        let _ = stopped.await;
    }));

    // The link, with an external participant id.
    c.goto(&format!("{base}/s/pilot?pid={PID}")).await.unwrap();
    wait_screen(&c, "intro").await;
    // The intro is shown as text, as the designer wrote it.
    assert_eq!(
        text(&c, "#study-intro").await,
        "Play each puzzle & rate <b>how much</b> you enjoyed it."
    );
    join_and_practise(&c, "Ada").await;
    assert_eq!(text(&c, "#title").await, "Puzzle 1 of 2");

    // The board shows the handed-out puzzle's cards as the app does (`10♥`).
    let first = handed(&c, "pilot").await;
    let faces = run(
        &c,
        "return [...document.querySelectorAll('#board [data-cell]')]\
         .map(b => b.querySelector('.corner')?.textContent ?? null)",
        vec![],
    )
    .await;
    assert_eq!(faces, first["cards"]);
    let (_, path) = solved(&first);
    assert_eq!(path.len(), 7, "an 8-card puzzle");

    // The win by clicks, with one undo and one redo after the first move.
    play(&c, path[0]).await;
    click(&c, "#undo").await;
    click(&c, "#redo").await;
    for &m in &path[1..] {
        play(&c, m).await;
    }
    wait_screen(&c, "rate").await;
    assert_eq!(text(&c, "#rate-solved").await, "You solved it.");
    click(&c, "#rating button[value=\"7\"]").await;
    c.find(Locator::Id("notes"))
        .await
        .unwrap()
        .send_keys(NOTES)
        .await
        .unwrap();
    click(&c, "#submit").await;
    wait_for(
        &c,
        "return document.getElementById('title').textContent",
        json!("Puzzle 2 of 2"),
    )
    .await;

    // The row: the play record the server replayed, and the notes as typed.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let row: (
        f64,
        String,
        bool,
        u32,
        u32,
        u32,
        u32,
        bool,
        f64,
        String,
        i64,
    ) = conn
        .query_row(
            "SELECT rating, notes, solved, moves, undos, restarts, hints, \
             solution_shown, seconds, log, puzzle FROM ratings",
            [],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                    r.get(9)?,
                    r.get(10)?,
                ))
            },
        )
        .unwrap();
    let (rating, notes, solved_, moves, undos, restarts, hints, shown, seconds, log, puzzle) = row;
    assert_eq!((rating, notes.as_str()), (7.0, NOTES));
    assert_eq!(puzzle, first["id"].as_i64().unwrap());
    // 7 moves, and the redo counts as a move, as on the desktop.
    assert_eq!(
        (solved_, moves, undos, restarts, hints, shown),
        (true, 8, 1, 0, 0, false)
    );
    let log: PlayLog = serde_json::from_str(&log).unwrap();
    let mv = |m: Move| PlayEvent::Move {
        from: m.from,
        to: m.to,
    };
    let mut events = vec![mv(path[0]), PlayEvent::Undo, PlayEvent::Redo];
    events.extend(path[1..].iter().map(|&m| mv(m)));
    assert_eq!(log.events, events);
    assert!(log.solved);
    assert!(log.wall_ms > 0.0 && log.active_ms <= log.wall_ms, "{log:?}");
    assert_eq!(seconds, log.active_ms / 1000.0);
    let (nickname, pid): (String, Option<String>) = conn
        .query_row("SELECT nickname, pid FROM raters", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((nickname.as_str(), pid.as_deref()), ("Ada", Some(PID)));

    // A move on the next puzzle, then a reload: the same puzzle, its move kept.
    let second = handed(&c, "pilot").await;
    assert_ne!(second["id"], first["id"]);
    let (_, path2) = solved(&second);
    play(&c, path2[0]).await;
    c.refresh().await.unwrap();
    wait_screen(&c, "play").await;
    assert_eq!(text(&c, "#title").await, "Puzzle 2 of 2");
    let cells = run(
        &c,
        "return [...document.querySelectorAll('#board [data-cell]')]\
         .map(b => b.classList.contains('empty'))",
        vec![],
    )
    .await;
    assert_eq!(
        cells[path2[0].from as usize],
        json!(true),
        "the move resumed"
    );
    assert_eq!(
        run(
            &c,
            "return !document.getElementById('undo').disabled",
            vec![]
        )
        .await,
        json!(true)
    );
    // A refused submission (the designer closed the study meanwhile) shows
    // the server's message; once open again, a skip ends with the code.
    click(&c, "#to-rate").await;
    wait_screen(&c, "rate").await;
    click(&c, "#rating button[value=\"5\"]").await;
    Store::open(&db).unwrap().set_open("pilot", false).unwrap();
    click(&c, "#submit").await;
    wait_for(
        &c,
        "return document.getElementById('error').hidden ? null : \
         document.getElementById('error').textContent",
        json!("the study \"pilot\" is closed"),
    )
    .await;
    Store::open(&db).unwrap().set_open("pilot", true).unwrap();
    click(&c, "#skip").await;
    wait_screen(&c, "done").await;
    assert_eq!(text(&c, "#code").await, "C0DE42");

    // board.js's rules are the engine's, on a few hundred random states.
    let (states, engine): (Vec<Value>, Vec<Value>) = random_states(400).into_iter().unzip();
    let page = run(
        &c,
        "return import('/assets/web/board.js').then(b => arguments[0].map(s => \
         b.legalMoves(b.parseState(s.compact, s.rows, s.cols))))",
        vec![json!(states)],
    )
    .await;
    let page = page.as_array().unwrap();
    assert_eq!(page.len(), engine.len());
    for (k, (p, e)) in page.iter().zip(&engine).enumerate() {
        assert_eq!(p, e, "state {k}: {}", states[k]);
    }
    assert!(engine.iter().filter(|m| m != &&json!([])).count() > 200);

    // A 16-card puzzle: its first render (a returning rater's reload, from
    // the navigation's start to the board drawn), and the fit at both sizes.
    c.goto(&format!("{base}/s/deck16")).await.unwrap();
    join_and_practise(&c, "").await;
    let sixteen = handed(&c, "deck16").await;
    let (_, path16) = solved(&sixteen);
    let shots = screenshot_dir(
        dir.path(),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets"),
    );
    for (name, width, height) in [("desktop", 1280, 800), ("phone", 375, 667)] {
        viewport(&c, width, height).await;
        c.refresh().await.unwrap();
        wait_screen(&c, "play").await;
        let ms = run(
            &c,
            "return performance.getEntriesByName('board-drawn')[0].startTime",
            vec![],
        )
        .await;
        let ms = ms.as_f64().unwrap();
        eprintln!("{name}: the 16-card board drawn {ms:.0} ms after the navigation started");
        assert!(ms < 3000.0, "first render {ms} ms");
        let fit = fits(&c).await;
        assert_eq!(
            fit[0],
            json!(true),
            "{name}: the play screen scrolls: {fit}"
        );
        if name == "desktop" {
            // Two moves made and a stack picked: the picture shows targets.
            play(&c, path16[0]).await;
            play(&c, path16[1]).await;
        }
        chrome::click_cell(&c, path16[2].from).await;
        let png = c.screenshot().await.unwrap();
        std::fs::write(shots.join(format!("study-{name}.png")), png).unwrap();
        click(&c, "#to-rate").await;
        wait_screen(&c, "rate").await;
        let fit = fits(&c).await;
        assert_eq!(
            fit[0],
            json!(true),
            "{name}: the rating screen scrolls: {fit}"
        );
        click(&c, "#back").await;
        wait_screen(&c, "play").await;
    }
    // Its only puzzle skipped: done, and told why there is no code.
    click(&c, "#to-rate").await;
    wait_screen(&c, "rate").await;
    click(&c, "#skip").await;
    wait_screen(&c, "done").await;
    let shown = run(
        &c,
        "return ['saved-line', 'no-rating', 'code-line']\
         .map(id => !document.getElementById(id).hidden)",
        vec![],
    )
    .await;
    assert_eq!(shown, json!([false, true, false]));
    assert!(
        text(&c, "#no-rating")
            .await
            .starts_with("You skipped every puzzle"),
    );

    c.close().await.unwrap();
    let _ = stop.send(());
    serving.await.unwrap().unwrap();
}
