//! The Study panel, driven through the real app with kittest: the server it
//! starts takes real HTTP requests on 127.0.0.1 (join, next, a rating with
//! a play log the server replays) and the panel's live counts show the
//! rating; its QR code decodes to the link it shows; Stop stops; a study
//! made from the filtered queue has exactly the puzzles shown; closing it
//! is shown and the server refuses a join; Export writes its ratings; the
//! Regression panel fits a study read straight from the database, and
//! ratings by several raters with the mixed model (by one, least squares).

mod common;

use boaf_app::{BoafApp, Tab};
use boaf_core::engine::notation::parse_state;
use boaf_core::engine::solver::{Verdict, solve};
use boaf_core::engine::state::Grid;
use boaf_core::folder::Folder;
use boaf_core::generator::pipeline::Candidate;
use boaf_core::study::ratings::read_ratings;
use boaf_server::answers::NewStudy;
use boaf_server::store::Store;
use common::*;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a reply from the server may take before a test fails.
const WAIT: Duration = Duration::from_secs(30);

/// An HTTP answer: the status, the headers and the body.
struct Reply {
    status: u16,
    head: String,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// One HTTP/1.1 request on a new connection, with bounded waits.
fn http(addr: SocketAddr, method: &str, path: &str, cookie: Option<&str>, body: &str) -> Reply {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    let cookie = cookie.map_or(String::new(), |c| format!("Cookie: {c}\r\n"));
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{cookie}\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    Reply {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

/// The text of the first widget whose label contains `text`.
fn text_of(h: &Harness<'_, BoafApp>, text: &str) -> Option<String> {
    let node = h.query_by_label_contains(text)?;
    let node = node.accesskit_node();
    node.label().or(node.value())
}

/// Types `text` into the text field labelled `label`, replacing what it held.
fn type_into(h: &mut Harness<'_, BoafApp>, label: &str, text: &str) {
    h.get_by_role_and_label(egui::Role::TextInput, label)
        .click();
    h.run();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run();
    h.get_by_role_and_label(egui::Role::TextInput, label)
        .type_text(text);
    h.run();
}

/// Starts the server from the panel on any free port of 127.0.0.1, and
/// returns the raters' link of `study` it shows and its address.
fn start_server(h: &mut Harness<'_, BoafApp>, study: &str) -> (String, SocketAddr) {
    type_into(h, "Port", "0");
    h.get_by_label("Start").click();
    h.run();
    let tail = format!("/s/{study}");
    wait_for_label_contains(h, &tail);
    let link = text_of(h, &tail).unwrap();
    let host = link
        .strip_prefix("http://")
        .and_then(|l| l.strip_suffix(&tail))
        .unwrap();
    let addr: SocketAddr = host.parse().unwrap();
    assert!(addr.ip().is_loopback(), "{link}");
    assert_ne!(addr.port(), 0, "the port bound, not the 0 asked");
    (link, addr)
}

/// The QR code the panel painted, decoded: its black modules drawn again
/// on white, one pixel a point, and read by rqrr.
fn painted_qr(h: &Harness<'_, BoafApp>) -> String {
    let dark: Vec<egui::Rect> = painted_shapes(h)
        .into_iter()
        .filter_map(|s| match s {
            egui::Shape::Rect(r) if r.fill == egui::Color32::BLACK => Some(r.rect),
            _ => None,
        })
        .collect();
    assert!(dark.len() > 100, "a QR code's modules: {}", dark.len());
    let bounds = dark.iter().fold(dark[0], |b, r| b.union(*r));
    let margin = 20.0;
    let (w, hgt) = (
        (bounds.width() + 2.0 * margin) as usize,
        (bounds.height() + 2.0 * margin) as usize,
    );
    let mut image = rqrr::PreparedImage::prepare_from_greyscale(w, hgt, |x, y| {
        let at = egui::pos2(
            bounds.min.x - margin + x as f32 + 0.5,
            bounds.min.y - margin + y as f32 + 0.5,
        );
        if dark.iter().any(|r| r.contains(at)) {
            0
        } else {
            255
        }
    });
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1, "one QR code painted");
    grids[0].decode().expect("the QR code decodes").1
}

/// A play log the server accepts for the handed puzzle: its solution when
/// it has one (with one move undone and played again), else no move.
fn play_log(handed: &Value) -> Value {
    let grid = Grid::new(
        handed["rows"].as_u64().unwrap() as usize,
        handed["cols"].as_u64().unwrap() as usize,
    )
    .unwrap();
    let deal = parse_state(handed["puzzle"].as_str().unwrap(), Some(grid)).unwrap();
    let mv =
        |m: &boaf_core::engine::state::Move| json!({"kind": "move", "from": m.from, "to": m.to});
    let (events, solved) = match solve(&deal).unwrap() {
        Verdict::Solvable(path) => {
            let mut events = vec![mv(&path[0]), json!({"kind": "undo"})];
            events.extend(path.iter().map(mv));
            (events, true)
        }
        _ => (vec![], false),
    };
    json!({ "events": events, "active_ms": 2_000.0, "wall_ms": 3_000.0, "solved": solved })
}

/// The folder's candidates stored as `boaf study create` would take them,
/// in a study of `name`.
fn study_of(root: &TempDir, name: &str, puzzles: &[Candidate]) {
    let new = NewStudy {
        name: name.into(),
        intro: "Rate each puzzle.".into(),
        per_rater: 2,
        completion_code: None,
    };
    let mut store = Store::open(&Folder::new(root.path()).studies_db()).unwrap();
    store.create_study(&new, puzzles).unwrap();
}

/// Two or more distinct 6-card candidates, stored in the folder.
fn six_cards(root: &TempDir) -> Vec<Candidate> {
    let six: Vec<Candidate> = (1..4).filter_map(|s| made(root, 6, "E5", s)).collect();
    assert!(six.len() >= 2, "distinct candidates: {}", six.len());
    six
}

#[test]
fn the_panel_serves_a_study_counts_a_real_rating_live_and_stop_stops() {
    let root = temp_root("study-serve");
    let six = six_cards(&root);
    study_of(&root, "pilot", &six);
    let mut h = harness(&root);
    h.state_mut().set_tab(Tab::Study);
    h.run();
    wait_for_label_contains(&mut h, "0 ratings from 0 raters");
    let (link, addr) = start_server(&mut h, "pilot");
    assert!(
        h.query_by_label_contains("Admin secret").is_some(),
        "the admin secret is shown"
    );
    assert_eq!(painted_qr(&h), link, "the QR code is of the link shown");

    // A rater joins, gets a puzzle, and rates it with a play log.
    let joined = http(
        addr,
        "POST",
        "/api/s/pilot/join",
        None,
        r#"{"nickname":"Ada"}"#,
    );
    assert_eq!(joined.status, 201, "{}", joined.body);
    let cookie = joined
        .head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(": ")?;
            name.eq_ignore_ascii_case("set-cookie").then_some(value)
        })
        .and_then(|c| c.split(';').next())
        .expect("a rater cookie")
        .to_string();
    let next = http(addr, "GET", "/api/s/pilot/next", Some(&cookie), "");
    assert_eq!(next.status, 200, "{}", next.body);
    let handed = next.json();
    assert_eq!(handed["status"], "puzzle");
    let rating = json!({
        "submission": "s1", "puzzle": handed["id"], "log": play_log(&handed),
        "rating": 7, "notes": "nice",
    });
    let stored = http(
        addr,
        "POST",
        "/api/s/pilot/ratings",
        Some(&cookie),
        &rating.to_string(),
    );
    assert_eq!(stored.status, 201, "{}", stored.body);

    // The panel's counts follow, per study, per puzzle and per rater.
    wait_for_label_contains(&mut h, "1 rating from 1 rater, 0 skipped");
    assert!(h.query_by_label("Ada").is_some(), "the rater's nickname");
    assert!(h.query_by_label("r1").is_some(), "the rater's id");

    // Stop stops: the panel offers Start again, and a connection is refused.
    h.get_by_label("Stop").click();
    h.run();
    wait_for_label(&mut h, "Start");
    assert!(h.query_by_label_contains("/s/pilot").is_none(), "no link");
    assert!(
        TcpStream::connect_timeout(&addr, Duration::from_secs(5)).is_err(),
        "a new connection is refused"
    );
}

#[test]
fn a_study_from_the_filtered_queue_has_those_puzzles_and_closing_it_refuses_joins() {
    let root = temp_root("study-create");
    let six = six_cards(&root);
    made(&root, 8, "E5", 1).expect("an 8-card candidate");
    let mut h = harness(&root);
    h.run();
    filter(&mut h, 0, "6 cards");
    h.state_mut().set_tab(Tab::Study);
    h.run();
    assert!(
        h.query_by_label_contains(&format!(
            "the {} candidates the Generate queue shows",
            six.len()
        ))
        .is_some(),
        "the panel says which candidates it takes"
    );
    type_into(&mut h, "Name", "six");
    h.get_by_label("Create study").click();
    h.run();
    wait_for_label_contains(&mut h, "created six");
    let store = Store::open(&Folder::new(root.path()).studies_db()).unwrap();
    let puzzles: BTreeSet<String> = store
        .counts("six")
        .unwrap()
        .puzzles
        .into_iter()
        .map(|p| p.puzzle)
        .collect();
    let want: BTreeSet<String> = six.iter().map(|c| c.puzzle.clone()).collect();
    assert_eq!(puzzles, want, "exactly the 6-card candidates shown");

    // Closed: the row says so, and the server refuses a join.
    let (_, addr) = start_server(&mut h, "six");
    h.get_by_label("Close").click();
    h.run();
    wait_for_label(&mut h, "closed");
    let refused = http(addr, "POST", "/api/s/six/join", None, "{}");
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(refused.body.contains("closed"), "{}", refused.body);

    // Export writes its ratings (none yet) as a ratings CSV.
    h.get_by_label("Export").click();
    h.run();
    wait_for_label_contains(&mut h, "0 ratings of six written");
    let csv = std::fs::read_to_string(root.join("ratings/study-six.csv")).unwrap();
    assert!(csv.starts_with("puzzle,"), "{csv}");
    h.get_by_label("Stop").click();
    h.run();
}

#[test]
fn the_regression_panel_fits_a_study_straight_from_the_database() {
    use boaf_core::study::mixed::{self, Model};
    use boaf_core::study::play_log::PlayLog;
    use boaf_core::study::ratings::read_ratings;
    use boaf_core::study::regress::{DEFAULT_FEATURES, table_data};
    use boaf_server::answers::{Next, Submission};
    use rand::SeedableRng;

    let root = temp_root("regress-study");
    // Distinct 6-card candidates, each rated by two raters (ratings apart
    // by rater and by puzzle), through the store as the server stores them.
    let puzzles: Vec<Candidate> = (1..12).filter_map(|s| made(&root, 6, "E5", s)).collect();
    assert!(puzzles.len() >= 6, "distinct candidates: {}", puzzles.len());
    let folder = Folder::new(root.path());
    let mut store = Store::open(&folder.studies_db()).unwrap();
    let new = NewStudy {
        name: "pilot".into(),
        intro: "Rate.".into(),
        per_rater: puzzles.len() as u32,
        completion_code: None,
    };
    store.create_study(&new, &puzzles).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for (k, name) in ["Ann", "Bo"].into_iter().enumerate() {
        let (rater, _) = store.join("pilot", name, None).unwrap();
        let mut i = 0;
        while let Next::Puzzle(handed) = store.next("pilot", &rater, &mut rng).unwrap() {
            let c = puzzles.iter().find(|c| c.puzzle == handed.puzzle).unwrap();
            let Ok(Verdict::Solvable(path)) = solve(&c.state().unwrap()) else {
                panic!("a stored candidate is solvable");
            };
            let halfway = c.features.halfway_ratio.unwrap_or(0.0);
            let sub = Submission {
                id: format!("{name}-{}", handed.id),
                puzzle: handed.id,
                log: PlayLog::of_moves(&path, 4_000.0, 5_000.0, true),
                rating: (20.0 * halfway + 3.0 * k as f64 + (i % 3) as f64).min(10.0),
                notes: String::new(),
            };
            store.submit("pilot", &rater, &sub).unwrap();
            i += 1;
        }
    }
    // What the study's export gives, fitted in the test.
    let csv = root.join("pilot.csv");
    boaf_server::export::export(&store, "pilot", &csv).unwrap();
    drop(store);
    let table = read_ratings(&csv).unwrap();
    let names: Vec<String> = DEFAULT_FEATURES.map(|f| f.column().to_string()).to_vec();
    let data = table_data(&table, &names).unwrap();
    let (raters, ids) = (data.texts(&table, "rater"), data.texts(&table, "puzzle"));
    let Ok(Model::Mixed(expected)) = mixed::choose(&names, &data.x, &data.y, &raters, &ids) else {
        panic!("two raters get the mixed model");
    };
    assert_eq!((expected.raters, expected.n), (2, 2 * puzzles.len()));

    // The panel: the study chosen from the list of the database's studies
    // (read in the background).
    let mut h = harness(&root);
    h.state_mut().set_tab(Tab::Regress);
    let start = std::time::Instant::now();
    while h
        .query_by_role_and_label(egui::Role::ComboBox, "or a study:")
        .is_none()
    {
        assert!(start.elapsed() < WAIT, "the list of studies never came");
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.get_by_role_and_label(egui::Role::ComboBox, "or a study:")
        .click();
    h.run();
    // Another writer holds the database (the read waits on its lock): the
    // UI goes on and says it is reading, then shows the table.
    let mut writer = Store::open(&folder.studies_db()).unwrap();
    writer.begin_batch().unwrap();
    h.get_by_role_and_label(egui::Role::Button, "pilot").click();
    let clicked = std::time::Instant::now();
    h.run();
    assert!(
        clicked.elapsed() < std::time::Duration::from_secs(2),
        "the UI waited"
    );
    assert!(h.query_by_label("study pilot: reading…").is_some());
    assert!(h.state().mixed_fit().is_none());
    writer.commit_batch().unwrap();
    drop(writer);
    step_until(&mut h, WAIT, |app| app.mixed_fit().is_some());
    assert!(h.query_by_label("study pilot: reading…").is_none());
    let (shown, _) = h.state().mixed_fit().unwrap();
    assert_eq!(shown, &expected);
    assert!(
        h.query_by_label_contains(&format!("{} ratings by 2 raters", expected.n))
            .is_some()
    );
}

// Several raters: the Regression panel over ratings that say who rated what.

/// The lme4 fixture's simulated ratings (30 raters × 40 puzzles, known rater
/// and puzzle effects) as a ratings file, its two features named as boaf's
/// and every deal of 8 cards; with `one_rater`, all by one rater.
fn crossed_ratings(root: &TempDir, one_rater: bool) -> PathBuf {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/lme4/crossed.csv");
    let text = std::fs::read_to_string(fixture).unwrap();
    let mut out = String::from("rater,puzzle,halfway_ratio,rank_clusters,rating,n\n");
    for line in text.lines().skip(1) {
        let (rater, rest) = line.split_once(',').unwrap();
        let rater = if one_rater { "r01" } else { rater };
        out.push_str(&format!("{rater},{rest},8\n"));
    }
    let path = Folder::new(root.path()).ratings();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, out).unwrap();
    path
}

/// The features the crossed ratings have (both among the default ones).
const CROSSED_FEATURES: [&str; 2] = ["halfway_ratio", "rank_clusters"];

/// The Regression panel over the crossed ratings, with the table and the
/// rows a fit uses, read in the test.
fn crossed_panel(
    name: &str,
    one_rater: bool,
) -> (
    TempDir,
    Harness<'static, BoafApp>,
    boaf_core::study::ratings::RatingsTable,
    boaf_core::study::regress::FitData,
) {
    let root = temp_root(name);
    let path = crossed_ratings(&root, one_rater);
    let mut h = harness(&root);
    h.get_by_label("Regression").click();
    // The fit is made in the background behind a spinner: wait for it by
    // its result, not by a number of frames (a loaded machine needs more).
    step_until(&mut h, Duration::from_secs(60), |app| {
        app.fit().is_some() || app.mixed_fit().is_some()
    });
    let table = read_ratings(&path).unwrap();
    let names: Vec<String> = CROSSED_FEATURES.map(String::from).to_vec();
    let data = boaf_core::study::regress::table_data(&table, &names).unwrap();
    (root, h, table, data)
}

/// Whether a label `value` sits in the row of a label `row` (the same height
/// on screen): a value shown beside what it belongs to.
fn shown_in_row(h: &Harness<'_, BoafApp>, row: &str, value: &str) -> bool {
    let rows: Vec<f32> = h
        .query_all_by_label(row)
        .map(|n| n.rect().center().y)
        .collect();
    h.query_all_by_label(value)
        .any(|v| rows.iter().any(|y| (v.rect().center().y - y).abs() < 2.0))
}

#[test]
fn several_raters_get_the_mixed_model_with_variance_reliability_and_power() {
    use boaf_core::format;
    use boaf_core::study::mixed::{self, Model};
    use boaf_core::study::reliability;
    let (root, mut h, table, data) = crossed_panel("regress-mixed", false);
    step_until(&mut h, Duration::from_secs(60), |app| {
        app.mixed_fit().is_some()
    });
    h.run();
    // What the core gives on the same rows.
    let names: Vec<String> = CROSSED_FEATURES.map(String::from).to_vec();
    let (raters, puzzles) = (data.texts(&table, "rater"), data.texts(&table, "puzzle"));
    let Ok(Model::Mixed(m)) = mixed::choose(&names, &data.x, &data.y, &raters, &puzzles) else {
        panic!("several raters get the mixed model");
    };
    let judged = mixed::judge(&names, &data.x, &data.y, &raters, &puzzles);
    let (shown, shown_judged) = h.state().mixed_fit().unwrap();
    assert_eq!((shown, shown_judged), (&m, &judged));
    assert_eq!((m.raters, m.puzzles, m.n), (30, 40, 450));
    assert!(h.state().fit().is_none(), "no least-squares fit");
    // Which model, and why.
    assert!(
        h.query_by_label(&format!("Model: {}.", mixed::SEVERAL_RATERS_MODEL))
            .is_some()
    );
    assert!(h.query_by_label_contains(mixed::ONE_RATER_MODEL).is_none());
    // The table: each coefficient's row, rounded as shown.
    for (c, more) in std::iter::once(&m.intercept)
        .chain(&m.coefs)
        .zip(&m.more_ratings)
    {
        for value in [
            format::fixed(Some(c.estimate), 4),
            format::fixed(c.std_error, 4),
            format::fixed(c.t, 3),
            format::p_value(c.p),
            more.unwrap().to_string(),
        ] {
            assert!(shown_in_row(&h, &c.name, &value), "{}: {value}", c.name);
        }
    }
    // rank_clusters (t ≈ −2.4) needs more ratings; the others have the power.
    assert!(m.more_ratings[2].unwrap() > 0);
    assert!(h.query_by_label(&m.summary()).is_some());
    // The variance components with their shares.
    for (f, variance, share) in m.components.shares() {
        assert!(
            shown_in_row(&h, f.label, &format!("{variance:.4}")),
            "{}",
            f.label
        );
        let share = format!("{:.0}%", 100.0 * share);
        assert!(shown_in_row(&h, f.label, &share), "{} {share}", f.label);
    }
    // The reliability of the puzzle means, the ICC and the R² ceiling
    // beside the features' R².
    let split = judged.split_half.as_ref().unwrap();
    for (f, v) in [
        (reliability::SPLIT_HALF_R, split.r),
        (reliability::SPEARMAN_BROWN, split.reliability),
        (reliability::ICC, judged.icc.unwrap()),
        (reliability::R2_CEILING, judged.r2_ceiling.unwrap()),
        (reliability::FEATURES_R2, judged.features_r2.unwrap()),
    ] {
        assert!(shown_in_row(&h, f.label, &format!("{v:.3}")), "{}", f.label);
    }
    // Every figure says what it is, in the core's words: the headings…
    for f in mixed::FIGURES
        .iter()
        .filter(|f| f.label != mixed::SHARE.label)
    {
        assert!(tooltip_of_has(&mut h, None, f.label, f.help), "{}", f.label);
    }
    // …and the numbers: p names its df rule, "More ratings" what it means.
    let p = format::p_value(m.coefs[1].p);
    assert!(tooltip_of_has(
        &mut h,
        None,
        &p,
        "puzzles − k − 1 degrees of freedom"
    ));
    let more = m.more_ratings[2].unwrap().to_string();
    assert!(tooltip_of_has(&mut h, None, &more, "80% power"));
    let share = format!("{:.0}%", 100.0 * m.components.shares()[0].2);
    assert!(tooltip_of_has(&mut h, None, &share, mixed::SHARE.help));
    // "Use as energy": the fixed effects, with the rated range and cards.
    h.get_by_label("Use as energy").click();
    h.run();
    let text = std::fs::read_to_string(root.join("assets/fitted-energies.toml")).unwrap();
    let book = boaf_core::generator::energy::EnergyBook::parse(&text, "fitted").unwrap();
    let energy = &book.energies()[0];
    let fixed = m.fixed_effects();
    for row in 0..3 {
        let value = |f: &str| table.number(row, f);
        let raw: Vec<f64> = CROSSED_FEATURES.iter().map(|f| value(f).unwrap()).collect();
        let e = energy.eval_with(true, |f| value(f.column()));
        assert!((e + fixed.predict(&raw)).abs() < 1e-6, "row {row}");
    }
    let (cards, range) = energy.rated_range().split_last().unwrap();
    assert_eq!(
        (cards.feature.column(), cards.min, cards.max),
        ("n", 8.0, 8.0)
    );
    for (r, (c, (lo, hi))) in range.iter().zip(fixed.coefs.iter().zip(&fixed.ranges)) {
        assert_eq!(
            (r.feature.column(), r.min, r.max),
            (c.name.as_str(), *lo, *hi)
        );
    }
    // Unticking a feature refits the mixed model on the other.
    h.get_by_role_and_label(egui::Role::CheckBox, "rank_clusters")
        .click();
    step_until(&mut h, Duration::from_secs(60), |app| {
        app.mixed_fit().is_some_and(|(m, _)| m.coefs.len() == 1)
    });
}

#[test]
fn one_rater_still_gets_the_least_squares_table() {
    use boaf_core::study::mixed;
    use boaf_core::study::regress::fit;
    let (_root, h, _, data) = crossed_panel("regress-one-rater", true);
    let names: Vec<String> = CROSSED_FEATURES.map(String::from).to_vec();
    let ols = fit(&names, &data.x, &data.y).unwrap();
    assert_eq!(h.state().fit(), Some(&ols));
    assert!(h.state().mixed_fit().is_none());
    assert!(
        h.query_by_label(&format!("Model: {}.", mixed::ONE_RATER_MODEL))
            .is_some()
    );
    let estimate = format!("{:.4}", ols.coefs[0].estimate);
    assert!(shown_in_row(&h, "halfway_ratio", &estimate));
    assert!(h.query_by_label(&ols.summary()).is_some());
    // None of the mixed model's figures.
    let more = boaf_core::study::reliability::MORE_RATINGS.label;
    assert!(h.query_by_label(more).is_none());
    assert!(h.query_by_label("Variance components").is_none());
}
