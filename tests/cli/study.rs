//! `boaf study`, `boaf serve`, `boaf regress --study` and `boaf bench
//! serve`: rating studies from the command line.

use super::*;

/// A study made from a generated store: its database, and the store.
fn study_folder(dir: &TempDir) -> (String, String) {
    let store = dir.join("n6.jsonl");
    let s = store.to_str().unwrap();
    let out = boaf(&small_batch(s), "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::write(dir.join("intro.txt"), "Play, then rate <b>each</b>.").unwrap();
    let db = dir.join("ratings/studies.sqlite");
    (s.to_string(), db.to_str().unwrap().to_string())
}

#[test]
fn study_create_list_close_and_export() {
    use boaf_core::engine::solver::{Verdict, solve};
    use boaf_core::study::play_log::PlayLog;
    use boaf_server::answers::{Next, Submission};
    use boaf_server::store::Store;

    let dir = TempDir::new("cli-study");
    let (store, db) = study_folder(&dir);
    let intro = dir.join("intro.txt");
    let intro = intro.to_str().unwrap();
    let create = |name: &str, filter: &str| {
        boaf(
            &[
                "study",
                "create",
                name,
                "--from",
                &store,
                "--where",
                filter,
                "--per-rater",
                "2",
                "--intro",
                intro,
                "--db",
                &db,
            ],
            "",
        )
    };
    let out = create("pilot", "n == 6");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));
    let puzzles = boaf_core::generator::store::read_store(Path::new(&store))
        .unwrap()
        .0;
    assert!(
        text(&out.stdout).contains(&format!(
            "pilot  open    {} puzzles, 2 per rater",
            puzzles.len()
        )),
        "{}",
        text(&out.stdout)
    );
    // A filter nothing passes, a bad filter, a name taken, a bad name.
    let out = create("empty", "n > 6");
    assert!(
        !out.status.success() && text(&out.stderr).contains("no puzzle of"),
        "{}",
        text(&out.stderr)
    );
    let out = create("bad", "n >> 6");
    assert!(
        text(&out.stderr).contains("bad --where: column"),
        "{}",
        text(&out.stderr)
    );
    let out = create("pilot", "n == 6");
    assert!(text(&out.stderr).contains("a study named \"pilot\" exists already"));
    let out = create("a b", "n == 6");
    assert!(
        text(&out.stderr).contains("a study name is"),
        "{}",
        text(&out.stderr)
    );

    // Two ratings through the store, as the server stores them.
    let mut s = Store::open(Path::new(&db)).unwrap();
    let (rater, _) = s.join("pilot", "Ann", Some("P7")).unwrap();
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(3);
    let mut expected_moves = Vec::new();
    for i in 0..2 {
        let Next::Puzzle(h) = s.next("pilot", &rater, &mut rng).unwrap() else {
            panic!("a puzzle")
        };
        let c = puzzles.iter().find(|c| c.puzzle == h.puzzle).unwrap();
        let Ok(Verdict::Solvable(path)) = solve(&c.state().unwrap()) else {
            panic!("solvable")
        };
        let log = PlayLog::of_moves(&path, 3_000.0, 4_000.0, true);
        let sub = Submission {
            id: format!("s{i}"),
            puzzle: h.id,
            log,
            rating: 4.0 + i as f64,
            notes: "=1+1, \"<script>\"".into(),
        };
        s.submit("pilot", &rater, &sub).unwrap();
        expected_moves.push(path.len());
    }
    drop(s);

    let out = boaf(&["study", "close", "pilot", "--db", &db], "");
    assert!(
        text(&out.stdout).contains("pilot  closed"),
        "{}",
        text(&out.stdout)
    );
    let out = boaf(&["study", "list", "--db", &db], "");
    assert!(
        text(&out.stdout).contains("pilot  closed")
            && text(&out.stdout).contains("1 raters  2 ratings"),
        "{}",
        text(&out.stdout)
    );
    let csv = dir.join("pilot.csv");
    let out = boaf(
        &[
            "study",
            "export",
            "pilot",
            "--db",
            &db,
            "-o",
            csv.to_str().unwrap(),
        ],
        "",
    );
    assert!(
        text(&out.stdout).contains("2 ratings written to"),
        "{}",
        text(&out.stderr)
    );
    let table = boaf_core::study::ratings::read_ratings(&csv).unwrap();
    assert_eq!(table.headers, boaf_core::study::ratings::header());
    for (row, moves) in expected_moves.iter().enumerate() {
        assert_eq!(table.text(row, "rater"), Some("P7"));
        assert_eq!(table.number(row, "moves"), Some(*moves as f64));
        assert_eq!(table.text(row, "seconds"), Some("3.0"));
        assert_eq!(table.number(row, "rating"), Some(4.0 + row as f64));
        assert_eq!(table.notes(row).unwrap(), "=1+1, \"<script>\"");
        assert!(table.number(row, "avg_flockability").is_some());
        // The grade column: the puzzle's grade by the default rule.
        let c = puzzles
            .iter()
            .find(|c| table.text(row, "puzzle") == Some(c.puzzle.as_str()))
            .unwrap();
        assert!(c.grade().is_some(), "generate computes the difficulty");
        assert_eq!(table.text(row, "grade"), c.grade().map(|g| g.name()));
    }
    // The study's rows are play records that `boaf grades` checks.
    let out = boaf(&["grades", "--study", "pilot", "--db", &db], "");
    assert!(
        text(&out.stdout).contains("study pilot: 2 play records of 2 rows (0 without a play)")
            && text(&out.stdout).contains("raters: P7 2"),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        std::fs::read_to_string(&csv)
            .unwrap()
            .contains("\"'=1+1, \"\"<script>\"\"\"")
    );
    let out = boaf(&["study", "export", "nosuch", "--db", &db], "");
    assert!(text(&out.stderr).contains("no study named \"nosuch\""));
}

#[test]
fn serve_prints_the_link_and_the_secret_answers_and_stops_on_sigint() {
    use std::io::{BufRead, BufReader, Read};
    use std::time::{Duration, Instant};

    let dir = TempDir::new("cli-serve");
    let (store, db) = study_folder(&dir);
    let intro = dir.join("intro.txt");
    let out = boaf(
        &[
            "study",
            "create",
            "pilot",
            "--from",
            &store,
            "--per-rater",
            "99",
            "--intro",
            intro.to_str().unwrap(),
            "--db",
            &db,
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("fewer than --per-rater 99"),
        "{}",
        text(&out.stderr)
    );
    let out = boaf(&["serve", "--per-rater", "0", "--db", &db], "");
    assert!(
        text(&out.stderr).contains("--per-rater is a number of requests above 0"),
        "{}",
        text(&out.stderr)
    );
    let out = boaf(
        &[
            "serve",
            "--trusted-proxy",
            "10.0.0.0/8,10.0.0.0/33",
            "--db",
            &db,
        ],
        "",
    );
    assert!(
        text(&out.stderr).contains(
            "--trusted-proxy: \"10.0.0.0/33\" is not an address nor a network (10.0.0.0/8, 192.168.1.5, ::1)"
        ),
        "{}",
        text(&out.stderr)
    );
    let help = text(&boaf(&["serve", "--help"], "").stdout);
    assert!(
        help.contains("--trusted-proxy") && help.contains("X-Forwarded-For"),
        "{help}"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_boaf"))
        .args([
            "serve",
            "--port",
            "0",
            "--per-address",
            "500",
            "--trusted-proxy",
        ])
        .args(["--db", &db])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let (mut link, mut secret) = (None, None);
    while secret.is_none() {
        let line = lines
            .next()
            .expect("boaf serve printed its secret")
            .unwrap();
        if let Some(l) = line.strip_prefix("raters' link for pilot: ") {
            link = Some(l.to_string());
        }
        if let Some(s) = line.strip_prefix("admin secret (shown once; only its hash is kept): ") {
            secret = Some(s.to_string());
        }
        seen.push(line);
    }
    let link = link.unwrap_or_else(|| panic!("no link in {seen:?}"));
    assert!(
        link.starts_with("http://127.0.0.1:") && link.ends_with("/s/pilot"),
        "{link}"
    );
    assert_eq!(secret.unwrap().len(), 64);
    // It answers on that address.
    let host = link
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    // One request (its first line and headers) on a connection of its own: the reply.
    let ask = |head: &str| {
        let mut conn = std::net::TcpStream::connect(&host).unwrap();
        conn.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        write!(conn, "{head}\r\nHost: {host}\r\nConnection: close\r\n\r\n").unwrap();
        let mut reply = String::new();
        conn.read_to_string(&mut reply).unwrap();
        reply
    };
    let reply = ask("GET /api/s/pilot HTTP/1.1");
    assert!(
        reply.starts_with("HTTP/1.1 200") && reply.contains("rate <b>each</b>"),
        "{reply}"
    );
    // Through the trusted proxy over HTTPS, the rater's cookie is Secure.
    let reply = ask(
        "POST /api/s/pilot/join HTTP/1.1\r\nX-Forwarded-For: 203.0.113.9\r\n\
         X-Forwarded-Proto: https\r\nContent-Length: 0",
    );
    assert!(
        reply.starts_with("HTTP/1.1 201") && reply.contains("; Secure\r\n"),
        "{reply}"
    );
    // A client holding a connection open, half a request sent, does not
    // keep a stop from finishing.
    let mut held = std::net::TcpStream::connect(&host).unwrap();
    write!(held, "GET /api/s/pilot HTTP/1.1\r\nHost: {host}\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(200));
    // SIGINT stops it cleanly, within a bounded wait.
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(8) {
            let _ = child.kill();
            panic!("boaf serve did not stop on SIGINT within its 3 s deadline");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.iter().any(|l| l == "boaf serve: stopped"), "{rest:?}");
    drop(held);
}

#[test]
fn regress_reads_a_study_from_the_database_as_its_export() {
    use boaf_core::engine::limits::Limits;
    use boaf_core::engine::solver::{Verdict, solve};
    use boaf_core::engine::state::Grid;
    use boaf_core::generator::descent::random_puzzle;
    use boaf_core::generator::pipeline::entered_candidate;
    use boaf_core::study::play_log::PlayLog;
    use boaf_server::answers::{NewStudy, Next, Submission};
    use boaf_server::store::Store;
    use rand::{RngExt, SeedableRng};

    let dir = TempDir::new("cli-regress-study");
    let db = dir.join("ratings/studies.sqlite");
    let db = db.to_str().unwrap();
    // Ten solvable 6-card puzzles, each rated by two raters.
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let energy = boaf_core::generator::energy::builtin()
        .get("E5")
        .unwrap()
        .clone();
    let grid = Grid::new(4, 4).unwrap();
    let mut puzzles = Vec::new();
    while puzzles.len() < 10 {
        let state = random_puzzle(6, grid, &mut rng);
        if let Ok(Verdict::Solvable(path)) = solve(&state) {
            let c = entered_candidate(&state, &energy, false, Limits::default()).unwrap();
            puzzles.push((c, path));
        }
    }
    let cands: Vec<_> = puzzles.iter().map(|p| p.0.clone()).collect();
    let mut s = Store::open(Path::new(db)).unwrap();
    let new = NewStudy {
        name: "pilot".into(),
        intro: "Rate.".into(),
        per_rater: 10,
        completion_code: None,
    };
    s.create_study(&new, &cands).unwrap();
    for (k, name) in ["Ann", "Bo"].iter().enumerate() {
        let (rater, _) = s.join("pilot", name, None).unwrap();
        while let Next::Puzzle(h) = s.next("pilot", &rater, &mut rng).unwrap() {
            let (c, path) = puzzles.iter().find(|p| p.0.puzzle == h.puzzle).unwrap();
            let log = PlayLog::of_moves(path, 3_000.0, 4_000.0, true);
            let halfway = c.features.halfway_ratio.unwrap_or(0.0);
            let rating = (10.0 * halfway + 2.0 * k as f64 + rng.random_range(0.0..3.0)).min(10.0);
            let sub = Submission {
                id: format!("{name}-{}", h.id),
                puzzle: h.id,
                log,
                rating,
                notes: String::new(),
            };
            s.submit("pilot", &rater, &sub).unwrap();
        }
    }
    drop(s);

    let csv = dir.join("pilot.csv");
    let csv = csv.to_str().unwrap();
    let out = boaf(&["study", "export", "pilot", "--db", db, "-o", csv], "");
    assert!(
        text(&out.stdout).contains("20 ratings written"),
        "{}",
        text(&out.stderr)
    );
    let features = ["--features", "halfway_ratio,avg_flockability"];
    let from_csv = boaf(&[&["regress", csv][..], &features].concat(), "");
    let from_db = boaf(
        &[&["regress", "--study", "pilot", "--db", db][..], &features].concat(),
        "",
    );
    assert!(from_db.status.success(), "{}", text(&from_db.stderr));
    let table = text(&from_db.stdout);
    assert!(
        table.starts_with("Model: ") && table.contains("halfway_ratio"),
        "{table}"
    );
    assert_eq!(table, text(&from_csv.stdout));
    assert_eq!(text(&from_db.stderr), text(&from_csv.stderr));

    // A file and a study at once, or neither, is refused; so is a study not there.
    let both = boaf(&["regress", csv, "--study", "pilot", "--db", db], "");
    assert!(
        text(&both.stderr).contains("cannot be used with"),
        "{}",
        text(&both.stderr)
    );
    let neither = boaf(&["regress"], "");
    assert!(!neither.status.success());
    let missing = boaf(&["regress", "--study", "nosuch", "--db", db], "");
    assert!(
        text(&missing.stderr).contains("no study named \"nosuch\""),
        "{}",
        text(&missing.stderr)
    );
}

/// The lines of `boaf bench serve`'s report that say what was lost.
fn bench_serve(args: &[&str]) -> String {
    let out = boaf(&[&["bench", "serve"][..], args].concat(), "");
    let report = text(&out.stdout);
    assert!(out.status.success(), "{report}\n{}", text(&out.stderr));
    report
}

#[test]
fn bench_serve_loses_and_duplicates_no_rating_under_load_or_kill_9() {
    let started = std::time::Instant::now();
    let small = [
        "--raters",
        "20",
        "--per-rater",
        "4",
        "--concurrency",
        "8",
        "--puzzles",
        "10",
        "--max-seconds",
        "20",
    ];
    let report = bench_serve(&small);
    assert!(
        report.contains("80 sent for, 80 acknowledged, 80 stored, 0 lost, 0 duplicated"),
        "{report}"
    );
    assert!(
        report.contains("database: integrity ok, 0 half-written rows"),
        "{report}"
    );
    let report = bench_serve(&[&small[..], &["--kill-runs", "2", "--seed", "3"]].concat());
    let runs: Vec<&str> = report.lines().filter(|l| l.starts_with("run ")).collect();
    assert_eq!(runs.len(), 2, "{report}");
    for run in runs {
        assert!(
            run.contains(
                " 0 lost, 0 duplicated, integrity ok, 0 half-written, restarted and serving"
            ),
            "{run}"
        );
    }
    assert!(
        report.contains("kill runs: 2,") && report.contains("all passed"),
        "{report}"
    );
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}
