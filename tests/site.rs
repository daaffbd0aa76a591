//! `boaf site` run as a user would: bad input gets a clear error and leaves
//! no folder; a site built from a store of graded 8-card puzzles is served
//! from a tiny static file server and played in headless Chromium (the
//! harness of the rater's page's test): a puzzle opened from its link and
//! solved by clicking, the statistics counting the win, the daily page
//! showing the schedule's puzzle for a date set in the link, a bad id's
//! message, and board.js's id parser against the engine's ids.
//! `BOAF_SCREENSHOTS=1` writes the README's picture (assets/site-play.png).

#[path = "../src/server/tests/common/chrome.rs"]
mod chrome;
#[path = "../src/core/tests/common/temp.rs"]
mod temp;

use boaf_core::agents::grade::{Grade, grade};
use boaf_core::engine::card::Card;
use boaf_core::engine::deal::deal_on;
use boaf_core::engine::limits::Limits;
use boaf_core::engine::notation::{parse_state, puzzle_id};
use boaf_core::engine::solver::{Verdict, solve};
use boaf_core::engine::state::{Grid, Move, State};
use boaf_core::generator::energy::builtin;
use boaf_core::generator::pipeline::{Candidate, entered_candidate};
use chrome::{click, run, text, wait_for};
use fantoccini::Client;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use temp::TempDir;

fn boaf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_boaf"))
        .args(args)
        .output()
        .unwrap()
}

/// The first `count` solvable 8-card puzzles of deals on a 2×4 grid, with
/// the agents' difficulty features, so each has a grade.
fn puzzles(count: usize) -> Vec<Candidate> {
    let grid = Grid::new(2, 4).unwrap();
    let energy = builtin().get("E5").unwrap().clone();
    (0..)
        .map(|number| deal_on(number, grid))
        .filter(|s| matches!(solve(s), Ok(Verdict::Solvable(_))))
        .take(count)
        .map(|s| entered_candidate(&s, &energy, true, Limits::default()).unwrap())
        .collect()
}

/// A store file of candidates.
fn write_store(path: &Path, cands: &[Candidate]) {
    let lines: String = cands
        .iter()
        .map(|c| serde_json::to_string(c).unwrap() + "\n")
        .collect();
    std::fs::write(path, lines).unwrap();
}

fn state_of(c: &Candidate) -> State {
    parse_state(&c.puzzle, Some(Grid::new(c.rows, c.cols).unwrap())).unwrap()
}

/// The names in a folder, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn bad_input_gets_a_clear_error_naming_the_cause_and_leaves_no_site() {
    let dir = TempDir::new("site-bad-input");
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let store = dir.join("store.jsonl");
    write_store(&store, &puzzles(4));
    let out = dir.join("site");
    let (empty, store, out) = (
        empty.to_str().unwrap(),
        store.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let week = "Mon=Easy,Tue=Easy,Wed=Easy,Thu=Easy,Fri=Easy,Sat=Easy,Sun=Hardest";
    let cases: [(Vec<&str>, &str); 5] = [
        (vec![empty], "empty.jsonl holds no puzzle"),
        (vec![store, "--where", "n > 100"], "no puzzle of the 4 in"),
        (
            vec![store, "--schedule", week],
            "bad --schedule: unknown grade \"Hardest\"",
        ),
        (
            vec![store, "--from", "2026-12-01", "--days", "7"],
            "the range 2026-12-01 to 2026-12-07 is 7 days, but only 4 of the 4 puzzles have a grade",
        ),
        (
            vec![store, "--from", "2026-12-01", "--to", "2026-11-30"],
            "--to 2026-11-30 is before --from 2026-12-01",
        ),
    ];
    for (args, cause) in cases {
        let mut all = vec!["site"];
        all.extend(&args);
        all.extend(["-o", out]);
        let o = boaf(&all);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(err.contains(cause), "{args:?}: {err}");
        assert_eq!(
            names(dir.path()),
            ["empty.jsonl", "store.jsonl"],
            "{args:?}"
        );
    }
    // A grade that runs out names the day and the grade.
    let grades: Vec<Grade> = puzzles(4)
        .iter()
        .map(|c| grade(&c.features).unwrap())
        .collect();
    let scarce = Grade::ALL
        .into_iter()
        .find(|g| !grades.contains(g))
        .unwrap();
    let week = format!("Mon={scarce},Tue=Easy,Wed=Easy,Thu=Easy,Fri=Easy,Sat=Easy,Sun=Easy");
    let o = boaf(&[
        "site",
        store,
        "--from",
        "2026-11-30",
        "--days",
        "1",
        "--schedule",
        &week,
        "-o",
        out,
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("2026-11-30 (Monday) needs a") && err.contains(&format!("{scarce} puzzle")),
        "{err}"
    );
    assert!(!Path::new(out).exists());
    // Another folder is never overwritten.
    std::fs::create_dir(out).unwrap();
    std::fs::write(Path::new(out).join("notes.txt"), "mine").unwrap();
    let o = boaf(&[
        "site",
        store,
        "--days",
        "1",
        "--schedule",
        &week.replace(&format!("Mon={scarce}"), "Mon=Easy"),
        "-o",
        out,
    ]);
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("holds notes.txt, which is not a file of a site")
    );
    assert_eq!(names(Path::new(out)), ["notes.txt"]);
    // A site boaf wrote is replaced, but not once something else is kept in
    // it (a CNAME, a .git, the store itself): that would be deleted with it.
    std::fs::remove_file(Path::new(out).join("notes.txt")).unwrap();
    let again = |extra: &str| {
        let mut all = vec!["site", store, "--days", "1", "--schedule"];
        let easy = week.replace(&format!("Mon={scarce}"), "Mon=Easy");
        all.push(&easy);
        all.extend(["-o", out]);
        let o = boaf(&all);
        (
            o.status.success(),
            format!("{extra}: {}", String::from_utf8_lossy(&o.stderr)),
        )
    };
    let (ok, err) = again("into an empty folder");
    assert!(ok, "{err}");
    let (ok, err) = again("over its own site");
    assert!(ok, "{err}");
    std::fs::write(Path::new(out).join("CNAME"), "puzzles.example").unwrap();
    let (ok, err) = again("over a site with a CNAME");
    assert!(!ok && err.contains("holds CNAME"), "{err}");
    assert!(Path::new(out).join("CNAME").is_file());
    assert!(Path::new(out).join("play.html").is_file());
}

#[test]
fn a_site_shows_only_winnable_deals() {
    let dir = TempDir::new("site-winnable");
    let grid = Grid::new(2, 4).unwrap();
    let energy = builtin().get("E5").unwrap().clone();
    let lost: Vec<Candidate> = (0..)
        .map(|number| deal_on(number, grid))
        .filter(|s| matches!(solve(s), Ok(Verdict::Unsolvable(_))))
        .take(2)
        .map(|s| entered_candidate(&s, &energy, true, Limits::default()).unwrap())
        .collect();
    let mut mixed = puzzles(3);
    mixed.extend(lost.iter().cloned());
    let (store, only_lost) = (dir.join("mixed.jsonl"), dir.join("lost.jsonl"));
    write_store(&store, &mixed);
    write_store(&only_lost, &lost);
    let out = dir.join("site");
    // Every day asks for the first puzzle's grade, so the one day is met.
    let g = grade(&mixed[0].features).unwrap();
    let week = format!("Mon={g},Tue={g},Wed={g},Thu={g},Fri={g},Sat={g},Sun={g}");
    let o = boaf(&[
        "site",
        store.to_str().unwrap(),
        "--days",
        "1",
        "--schedule",
        &week,
        "-o",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("2 unsolvable puzzles left out"), "{err}");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    for c in &lost {
        assert!(!index.contains(&puzzle_id(&state_of(c))), "{index}");
    }
    for c in &mixed[..3] {
        assert!(index.contains(&puzzle_id(&state_of(c))), "{index}");
    }
    let o = boaf(&[
        "site",
        only_lost.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("every chosen puzzle is unsolvable"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Serves a folder's files on 127.0.0.1 (one thread, one request a
/// connection); the address's URL.
fn serve_folder(root: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let path = line.split(' ').nth(1).unwrap_or("/").to_string();
            // The head's other lines.
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {}
            let path = path
                .split(['?', '#'])
                .next()
                .unwrap()
                .trim_start_matches('/');
            let path = if path.is_empty() { "index.html" } else { path };
            let kind = match path.rsplit('.').next() {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript; charset=utf-8",
                Some("css") => "text/css; charset=utf-8",
                _ => "application/octet-stream",
            };
            let reply = match std::fs::read(root.join(path)) {
                Ok(body) if !path.contains("..") => {
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    [head.into_bytes(), body].concat()
                }
                _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_vec(),
            };
            let _ = stream.write_all(&reply);
        }
    });
    base
}

/// The faces on the board, row-major (`null` for an empty cell).
async fn faces(c: &Client) -> Value {
    run(
        c,
        "return [...document.querySelectorAll('#board [data-cell]')]\
         .map(b => b.querySelector('.corner')?.textContent ?? null)",
        vec![],
    )
    .await
}

fn engine_faces(s: &State) -> Value {
    json!(
        s.tops()
            .iter()
            .map(|c| c.map(Card::face))
            .collect::<Vec<_>>()
    )
}

/// Waits until the page has drawn its puzzle or its message.
async fn ready(c: &Client, want: &str) {
    wait_for(c, "return document.body.dataset.ready ?? null", json!(want)).await;
}

/// Solves a puzzle on the page by clicking the engine's solution, with an
/// undo and a redo after the first move.
async fn solve_by_clicking(c: &Client, s: &State) {
    let Ok(Verdict::Solvable(path)) = solve(s) else {
        panic!("a site puzzle is solvable");
    };
    let play = |m: Move| async move {
        chrome::click_cell(c, m.from).await;
        chrome::click_cell(c, m.to).await;
    };
    play(path[0]).await;
    click(c, "#undo").await;
    click(c, "#redo").await;
    for &m in &path[1..] {
        play(m).await;
    }
}

/// Random states on grids of every shape, some cells empty, as id and faces.
fn random_ids(count: usize) -> Vec<(String, Value)> {
    let mut rng = StdRng::seed_from_u64(26);
    (0..count)
        .map(|_| {
            let grid = Grid::new(rng.random_range(1..=4), rng.random_range(1..=4)).unwrap();
            let mut deck: Vec<u8> = (0..52).collect();
            let mut cells: Vec<Option<Card>> = (0..grid.cells())
                .map(|_| {
                    (rng.random_range(0..4) != 0).then(|| {
                        let k = rng.random_range(0..deck.len());
                        Card::from_code(deck.swap_remove(k)).unwrap()
                    })
                })
                .collect();
            if cells.iter().all(Option::is_none) {
                cells[0] = Card::from_code(0);
            }
            let s = State::new(grid, &cells).unwrap();
            let want = json!({"rows": grid.rows(), "cols": grid.cols(), "faces": engine_faces(&s)});
            (puzzle_id(&s), want)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_solves_a_linked_puzzle_and_the_daily_one_in_a_real_browser() {
    let dir = TempDir::new("site-browser");
    let cands = puzzles(12);
    let store = dir.join("store.jsonl");
    write_store(&store, &cands);
    // Every day the grade most puzzles have, so the store covers the range.
    let grades: Vec<Grade> = cands.iter().map(|c| grade(&c.features).unwrap()).collect();
    let common = *Grade::ALL
        .iter()
        .max_by_key(|g| grades.iter().filter(|x| x == g).count())
        .unwrap();
    let week = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        .map(|d| format!("{d}={common}"))
        .join(",");
    let out = dir.join("site");
    let o = boaf(&[
        "site",
        store.to_str().unwrap(),
        "--from",
        "2026-12-01",
        "--days",
        "4",
        "--schedule",
        &week,
        "--title",
        "Test <puzzles>",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        names(&out),
        [
            "board.js",
            "daily.html",
            "file-check.js",
            "index.html",
            "play.html",
            "play.js",
            "puzzles.js",
            "site.css",
            "study.css"
        ]
    );
    let data = std::fs::read_to_string(out.join("puzzles.js")).unwrap();
    let json_text = data
        .split_once("export const SITE = ")
        .unwrap()
        .1
        .trim_end();
    let site: Value = serde_json::from_str(json_text.trim_end_matches(';')).unwrap();
    assert_eq!(site["puzzles"].as_array().unwrap().len(), 12);
    assert_eq!(site["daily"].as_array().unwrap().len(), 4);
    // The play page and its assets, without the data (the 200 KB).
    let page_bytes: u64 = [
        "play.html",
        "play.js",
        "board.js",
        "study.css",
        "site.css",
        "file-check.js",
    ]
    .iter()
    .map(|f| std::fs::metadata(out.join(f)).unwrap().len())
    .sum();
    let data_bytes = data.len();
    eprintln!("the play page and its assets: {page_bytes} bytes; puzzles.js {data_bytes} bytes");
    assert!(page_bytes < 200 * 1024);

    let Some((_driver, c)) = chrome::session().await else {
        return;
    };
    let base = serve_folder(out.clone());

    // The index lists every puzzle under its grade, and links the daily page.
    c.goto(&format!("{base}/index.html")).await.unwrap();
    assert_eq!(text(&c, "h1").await, "Test <puzzles>");
    let links = run(
        &c,
        "return document.querySelectorAll('a[href^=\"play.html#\"]').length",
        vec![],
    )
    .await;
    assert_eq!(links, json!(12));
    let in_common =
        format!("return document.querySelectorAll('[data-grade=\"{common}\"] li').length");
    let count = grades.iter().filter(|&&g| g == common).count();
    assert_eq!(run(&c, &in_common, vec![]).await, json!(count));

    // A puzzle from its link: drawn, solved by clicks, the solve and the statistics shown.
    let first = state_of(&cands[0]);
    c.goto(&format!("{base}/play.html#{}", puzzle_id(&first)))
        .await
        .unwrap();
    ready(&c, "play").await;
    assert_eq!(faces(&c).await, engine_faces(&first));
    assert_eq!(text(&c, "#title").await, "Puzzle 1");
    assert_eq!(text(&c, "#grade").await, grades[0].name());
    let drawn = run(
        &c,
        "return performance.getEntriesByName('board-drawn')[0].startTime",
        vec![],
    )
    .await;
    eprintln!("first render: the board drawn {drawn} ms after the navigation started");
    let shots = chrome::screenshot_dir(
        dir.path(),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets"),
    );
    let Ok(Verdict::Solvable(path)) = solve(&first) else {
        unreachable!()
    };
    chrome::click_cell(&c, path[0].from).await;
    chrome::click_cell(&c, path[0].to).await;
    chrome::click_cell(&c, path[1].from).await;
    std::fs::write(shots.join("site-play.png"), c.screenshot().await.unwrap()).unwrap();
    click(&c, "#restart").await;
    solve_by_clicking(&c, &first).await;
    let status = text(&c, "#status").await;
    // The picture's move, then 7 moves and the redo (a redo is a move, as
    // on the desktop); the restart does not make it another play.
    assert!(status.starts_with("Solved in 9 moves, 0:"), "{status}");
    assert_eq!(text(&c, "#stat-played").await, "1");
    assert_eq!(text(&c, "#stat-won").await, "1");
    assert_ne!(text(&c, "#stat-best-time").await, "\u{2013}");
    // The copy button copies the link, or selects it to copy by hand.
    click(&c, "#copy").await;
    let link = run(&c, "return document.getElementById('link').value", vec![]).await;
    assert_eq!(
        link,
        json!(format!("{base}/play.html#{}", puzzle_id(&first)))
    );

    // The daily page on a date set in the link: the schedule's puzzle of that day.
    let day = &site["daily"][2];
    assert_eq!(day["date"], "2026-12-03");
    c.goto(&format!("{base}/daily.html?date=2026-12-03"))
        .await
        .unwrap();
    ready(&c, "play").await;
    assert_eq!(text(&c, "#title").await, "Daily puzzle, 2026-12-03");
    assert_eq!(text(&c, "#grade").await, common.name());
    let scheduled = cands
        .iter()
        .map(state_of)
        .find(|s| puzzle_id(s) == day["id"].as_str().unwrap())
        .unwrap();
    assert_eq!(faces(&c).await, engine_faces(&scheduled));
    solve_by_clicking(&c, &scheduled).await;
    assert_eq!(text(&c, "#stat-won").await, "2");
    assert_eq!(text(&c, "#stat-streak").await, "1");
    // The next day's win makes a streak of two; a day with no puzzle says so.
    c.goto(&format!("{base}/daily.html?date=2026-12-04"))
        .await
        .unwrap();
    ready(&c, "play").await;
    let next = parse_state(site["daily"][3]["id"].as_str().unwrap(), None).unwrap();
    solve_by_clicking(&c, &next).await;
    assert_eq!(text(&c, "#stat-streak").await, "2");
    assert_eq!(text(&c, "#stat-best-streak").await, "2");
    c.goto(&format!("{base}/daily.html?date=2027-01-01"))
        .await
        .unwrap();
    ready(&c, "bad").await;
    assert_eq!(
        text(&c, "#bad-message").await,
        "There is no daily puzzle for 2027-01-01 (this site has them from 2026-12-01 to 2026-12-04)."
    );

    // A bad id, and no id: a message, not a blank page.
    c.goto(&format!(
        "{base}/play.html#4S6S6C9H4DTH8C9S7D5H5C7H7C5STC8X"
    ))
    .await
    .unwrap();
    ready(&c, "bad").await;
    assert_eq!(
        text(&c, "#bad-message").await,
        "This link's puzzle id is not valid: '8X' is not a card (like TH or 10H) or an empty cell (--)."
    );
    assert_eq!(
        run(&c, "return document.getElementById('game').hidden", vec![]).await,
        json!(true)
    );
    c.goto(&format!("{base}/play.html")).await.unwrap();
    ready(&c, "bad").await;
    assert!(text(&c, "#bad-message").await.contains("has no puzzle id"));
    // A site kept in a folder named `p`: the page's own path is no id (it
    // was read as the id "play.html" once), and a linked id still plays.
    let kept = out.join("p");
    std::os::unix::fs::symlink(&out, &kept).unwrap();
    c.goto(&format!("{base}/p/play.html")).await.unwrap();
    ready(&c, "bad").await;
    assert!(
        text(&c, "#bad-message").await.contains("has no puzzle id"),
        "{}",
        text(&c, "#bad-message").await
    );
    c.goto(&format!("{base}/p/play.html#{}", puzzle_id(&first)))
        .await
        .unwrap();
    ready(&c, "play").await;
    std::fs::remove_file(&kept).unwrap();
    // Not percent-encoding: decoding it throws, which once left a blank page.
    for broken in ["%ZZ", "%E0%A4"] {
        c.goto(&format!("{base}/play.html?{broken}#{broken}"))
            .await
            .unwrap();
        ready(&c, "bad").await;
        assert_eq!(
            text(&c, "#bad-message").await,
            "This link's puzzle id is not valid: it has a % not followed by a character's code."
        );
    }

    // Opened from a file, the module scripts never run: the page says how
    // to open it rather than stay blank.
    c.goto(&format!(
        "file://{}/play.html#{}",
        out.display(),
        puzzle_id(&first)
    ))
    .await
    .unwrap();
    ready(&c, "bad").await;
    assert!(
        text(&c, "#bad-message")
            .await
            .starts_with("This page was opened from a file"),
        "{}",
        text(&c, "#bad-message").await
    );
    c.goto(&format!("{base}/play.html")).await.unwrap();
    ready(&c, "bad").await;

    // board.js reads every id the engine writes, on grids of every shape.
    let (ids, want): (Vec<String>, Vec<Value>) = random_ids(300).into_iter().unzip();
    let page = run(
        &c,
        "return import('./board.js').then(b => arguments[0].map(id => { \
         const s = b.parsePuzzle(id); \
         return {rows: s.rows, cols: s.cols, faces: s.tops.map(t => t && b.face(t))}; }))",
        vec![json!(ids)],
    )
    .await;
    for (k, (p, w)) in page.as_array().unwrap().iter().zip(&want).enumerate() {
        assert_eq!(p, w, "id {}", ids[k]);
    }
    c.close().await.unwrap();
}
