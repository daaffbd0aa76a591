//! The ratings store under kills and torn writes, and the regression against
//! a reference solution of the normal equations.

mod common;

use boaf_core::engine::features::Features;
use boaf_core::study::ratings::{
    PlayRecord, Rating, RatingsStore, header, parse_ratings, ratings_csv, read_ratings,
};
use boaf_core::study::regress::fit;
use common::temp::TempDir;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use statrs::distribution::{ContinuousCDF, StudentsT};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn temp_dir(name: &str) -> TempDir {
    TempDir::new(&format!("ratings-{name}"))
}

fn features(k: usize) -> Features {
    Features {
        n: 8,
        solvable: true,
        suit_diversity: 1 + (k % 4) as u32,
        rank_diversity: 3,
        dominant_suit_ratio: 0.25 + (k % 3) as f64 / 8.0,
        rank_clusters: 1 + (k % 2) as u32,
        avg_flockability: 2.5,
        depth1_ratio: Some(0.5),
        depth2_ratio: Some(0.25),
        depth3_ratio: None,
        halfway_ratio: Some(k as f64 / 1000.0),
        midgame_tension: None,
        playout_win_rate: Some(k as f64 / 100.0),
        greedy_wins: Some(k.is_multiple_of(2)),
        mcts_budget: (!k.is_multiple_of(5)).then_some(10 * k as u32),
    }
}

/// Row `k` as the writer writes it: its notes are awkward on purpose
/// (a formula, a quote, a comma and a new line).
fn row(k: usize) -> Rating {
    Rating {
        puzzle: format!("AH2H3H4H5H6H7H8H{k:016}"),
        grid: "4x4".into(),
        energy_id: "E5-00000000".into(),
        features: features(k),
        rating: (k % 11) as f64,
        notes: format!("=row {k}, \"quoted\"\nsecond line"),
        play: PlayRecord {
            solved: k.is_multiple_of(2),
            moves: k as u32,
            undos: 1,
            restarts: 1,
            hints: 2,
            solution_shown: true,
            seconds: 12.5,
        },
        rater: "writer".into(),
        timestamp: "2026-11-22T00:00:00Z".into(),
    }
}

/// A child process killed when the guard goes, even if an assertion fails
/// first.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

const WRITER_ENV: &str = "BOAF_TEST_RATINGS_WRITER";
const WRITER_TEST: &str = "a_writer_killed_again_and_again_never_loses_or_damages_a_row";

/// Checks every row of the file: rows 0..m in order, each exactly as written.
fn check_rows(path: &Path) -> usize {
    let table = read_ratings(path).unwrap();
    assert_eq!(table.headers, header());
    // At most a torn last row is skipped, never anything else.
    assert!(table.skipped.len() <= 1, "{:?}", table.skipped);
    if let Some(s) = table.skipped.first() {
        assert!(
            table.torn_at.is_some(),
            "only a torn last row may be skipped: {s}"
        );
    }
    for i in 0..table.rows.len() {
        let want = row(i);
        assert_eq!(
            table.text(i, "puzzle"),
            Some(want.puzzle.as_str()),
            "row {i}"
        );
        assert_eq!(
            table.notes(i).as_deref(),
            Some(want.notes.as_str()),
            "row {i}"
        );
        assert_eq!(table.number(i, "rating"), Some(want.rating));
        assert_eq!(table.number(i, "moves"), Some(i as f64));
        assert_eq!(
            table.number(i, "halfway_ratio"),
            want.features.halfway_ratio
        );
        assert_eq!(table.text(i, "depth3_ratio"), Some(""));
        assert_eq!(table.text(i, "timestamp"), Some(want.timestamp.as_str()));
    }
    table.rows.len()
}

#[test]
fn a_writer_killed_again_and_again_never_loses_or_damages_a_row() {
    if let Some(path) = std::env::var_os(WRITER_ENV) {
        // The child: append numbered rows until killed, continuing the count.
        // Every other row is written in two halves with a pause between,
        // so that some kills tear a row and the next writer must repair it.
        let path = PathBuf::from(path);
        let (mut store, _) = RatingsStore::open(&path).unwrap();
        let mut k = read_ratings(&path).unwrap().rows.len();
        loop {
            if k.is_multiple_of(2) {
                store.append(&row(k)).unwrap();
            } else {
                let bytes = store.row_bytes(&row(k)).unwrap();
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                let half = bytes.len() / 2;
                f.write_all(&bytes[..half]).unwrap();
                f.sync_data().unwrap();
                std::thread::sleep(Duration::from_millis(5));
                f.write_all(&bytes[half..]).unwrap();
                f.sync_data().unwrap();
            }
            k += 1;
        }
    }
    let dir = temp_dir("kill");
    let path = dir.join("ratings.csv");
    let exe = std::env::current_exe().unwrap();
    let mut rng = StdRng::seed_from_u64(3);
    let size = || std::fs::metadata(&path).map_or(0, |m| m.len());
    let mut before = 0;
    for round in 0..25 {
        let start = size();
        let mut child = Killed(
            Command::new(&exe)
                .args([WRITER_TEST, "--exact", "--test-threads=1"])
                .env(WRITER_ENV, &path)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let child = &mut child.0;
        // Kill it only once it is writing (however slowly it started), at a
        // random moment after that. The wait's limit is only against a hang.
        let waiting = std::time::Instant::now();
        while size() <= start {
            assert!(
                child.try_wait().unwrap().is_none(),
                "round {round}: the writer exited before writing"
            );
            assert!(
                waiting.elapsed() < Duration::from_secs(120),
                "round {round}: no row"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(rng.random_range(0..40)));
        assert!(
            child.try_wait().unwrap().is_none(),
            "round {round}: the writer was still writing when killed"
        );
        child.kill().unwrap();
        child.wait().unwrap();
        let now = check_rows(&path);
        assert!(now >= before, "rows were lost: {before} then {now}");
        before = now;
    }
    // Some kills tore a row, and reopening moved each one aside.
    let torn = std::fs::read_to_string(dir.join("ratings.csv.torn")).unwrap_or_default();
    assert!(
        torn.lines().any(|l| l.starts_with("AH2H")),
        "no kill tore a row"
    );
    assert!(before > 25, "the writers wrote rows ({before})");
}

#[test]
fn a_torn_last_row_is_reported_then_moved_aside_before_the_next_append() {
    let dir = temp_dir("torn");
    let path = dir.join("ratings.csv");
    let (mut store, repair) = RatingsStore::open(&path).unwrap();
    assert!(repair.is_none());
    for k in 0..3 {
        store.append(&row(k)).unwrap();
    }
    // A kill in the middle of the notes: an open quote and no newline.
    let whole = std::fs::read(&path).unwrap();
    let mut torn = whole.clone();
    let fourth = "AH2H3H4H5H6H7H8H0000000000000003,4x4,8,E5-00000000,true,1,3,0.25,1,2.5,0.5,0.25,,0.003,,3,\"'=row 3, \"\"quo";
    torn.extend_from_slice(fourth.as_bytes());
    std::fs::write(&path, &torn).unwrap();
    let table = read_ratings(&path).unwrap();
    assert_eq!(table.rows.len(), 3);
    assert_eq!(table.skipped.len(), 1);
    assert_eq!(table.torn_at, Some(whole.len()));
    assert!(table.skipped[0].to_string().contains("torn"));
    // Reopening moves the torn bytes aside; the next row reads whole.
    let (mut store, repair) = RatingsStore::open(&path).unwrap();
    let repair = repair.expect("the torn row was repaired");
    assert_eq!(repair.bytes, fourth.len());
    assert_eq!(
        std::fs::read_to_string(&repair.saved_to).unwrap(),
        format!("{fourth}\n")
    );
    store.append(&row(3)).unwrap();
    assert_eq!(check_rows(&path), 4);
    // Cut just after a new line inside the notes: the quote is still open.
    let whole = std::fs::read(&path).unwrap();
    let mut torn = whole.clone();
    torn.extend_from_slice(
        b"AH2H,4x4,8,E5-00000000,true,1,3,0.25,1,2.5,0.5,0.25,,0.004,,4,\"'=row 4\n",
    );
    std::fs::write(&path, &torn).unwrap();
    assert_eq!(read_ratings(&path).unwrap().torn_at, Some(whole.len()));
    let (mut store, repair) = RatingsStore::open(&path).unwrap();
    assert!(repair.is_some());
    store.append(&row(4)).unwrap();
    assert_eq!(check_rows(&path), 5);
}

#[test]
fn an_older_file_gains_the_new_columns_and_keeps_every_value() {
    let dir = temp_dir("old");
    let path = dir.join("ratings.csv");
    let old = "puzzle,n,rating,halfway_ratio,notes,rater,extra\n\
               AHKS,2,7,0.5,fine,ann,x\n";
    std::fs::write(&path, old).unwrap();
    // Read as it is: by column name, missing columns are absent.
    let table = read_ratings(&path).unwrap();
    assert_eq!(table.number(0, "rating"), Some(7.0));
    assert_eq!(table.number(0, "midgame_tension"), None);
    // Opened for writing: rewritten with every column, the old file kept.
    let (mut store, _) = RatingsStore::open(&path).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("ratings.csv.bak")).unwrap(),
        old
    );
    store.append(&row(5)).unwrap();
    let table = read_ratings(&path).unwrap();
    let first = [
        "puzzle",
        "n",
        "rating",
        "halfway_ratio",
        "notes",
        "rater",
        "extra",
    ];
    assert_eq!(&table.headers[..7], first);
    for c in header() {
        assert!(table.column(&c).is_some(), "{c}");
    }
    assert_eq!(table.headers.last().map(String::as_str), Some("timestamp"));
    assert_eq!(table.rows.len(), 2);
    assert_eq!(table.text(0, "extra"), Some("x"));
    assert_eq!(table.text(0, "rater"), Some("ann"));
    assert_eq!(table.text(0, "seconds"), Some(""));
    assert_eq!(table.number(1, "halfway_ratio"), Some(0.005));
    assert_eq!(table.number(1, "seconds"), Some(12.5));
    assert_eq!(table.text(1, "extra"), Some(""));
    assert_eq!(table.notes(1), Some(row(5).notes));
    // A file that is not a ratings file is refused, not appended to.
    let other = dir.join("other.csv");
    std::fs::write(&other, "a,b\n1,2\n").unwrap();
    assert!(RatingsStore::open(&other).is_err());
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "a,b\n1,2\n");
}

#[test]
fn a_file_with_unreadable_rows_is_not_rewritten_and_backups_are_never_overwritten() {
    let dir = temp_dir("unread");
    let path = dir.join("ratings.csv");
    let old = "puzzle,rating,rater\nA,1,x\nB,2,x,EXTRA\nC,3,y\n";
    std::fs::write(&path, old).unwrap();
    let (mut store, _) = RatingsStore::open(&path).unwrap();
    assert!(
        store.backup().is_none(),
        "not rewritten: row B would be lost"
    );
    store.append(&row(0)).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(old), "every old byte is still there");
    let table = read_ratings(&path).unwrap();
    assert_eq!(table.rows.len(), 3);
    assert_eq!(table.text(2, "puzzle"), Some(row(0).puzzle.as_str()));
    // Rewritten twice (the row fixed, then a column dropped by hand): two backups.
    std::fs::write(&path, "puzzle,rating\nA,1\n").unwrap();
    let (store, _) = RatingsStore::open(&path).unwrap();
    assert_eq!(store.backup(), Some(dir.join("ratings.csv.bak").as_path()));
    std::fs::write(&path, "puzzle,rating\nZ,9\n").unwrap();
    let (store, _) = RatingsStore::open(&path).unwrap();
    assert_eq!(store.backup(), Some(dir.join("ratings.csv.bak2").as_path()));
    assert_eq!(
        std::fs::read_to_string(dir.join("ratings.csv.bak")).unwrap(),
        "puzzle,rating\nA,1\n"
    );
}

#[test]
fn a_header_cut_short_is_written_whole() {
    let dir = temp_dir("header");
    let path = dir.join("ratings.csv");
    for cut in [1, 30, 120] {
        let whole = header().join(",");
        std::fs::write(&path, &whole[..cut]).unwrap();
        let (mut store, _) = RatingsStore::open(&path).unwrap();
        store.append(&row(0)).unwrap();
        assert_eq!(check_rows(&path), 1, "cut at {cut}");
    }
    // A file that is something else is left alone.
    std::fs::write(&path, "name,score\n").unwrap();
    assert!(RatingsStore::open(&path).is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "name,score\n");
}

#[test]
fn a_file_edited_without_a_final_newline_keeps_its_rows() {
    let dir = temp_dir("newline");
    // Only the header, with no newline: the first row must not join it.
    let path = dir.join("header.csv");
    std::fs::write(&path, header().join(",")).unwrap();
    let (mut store, repair) = RatingsStore::open(&path).unwrap();
    assert!(repair.is_none());
    store.append(&row(0)).unwrap();
    store.append(&row(1)).unwrap();
    assert_eq!(check_rows(&path), 2);
    // A whole last row with no newline is kept, not moved aside.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.trim_end_matches('\n')).unwrap();
    let table = read_ratings(&path).unwrap();
    assert_eq!((table.rows.len(), table.torn_at), (2, None));
    let (mut store, repair) = RatingsStore::open(&path).unwrap();
    assert!(repair.is_none());
    store.append(&row(2)).unwrap();
    assert_eq!(check_rows(&path), 3);
}

#[test]
fn the_regression_matches_the_normal_equations_to_1e_6() {
    let mut rng = StdRng::seed_from_u64(9);
    for (n, k) in [(12, 1), (30, 3), (60, 5), (200, 8)] {
        let x: Vec<Vec<f64>> = (0..n)
            .map(|_| {
                (0..k)
                    .map(|j| rng.random_range(0.0..1.0) * (j + 1) as f64)
                    .collect()
            })
            .collect();
        let y: Vec<f64> = x
            .iter()
            .map(|r| {
                5.0 + r
                    .iter()
                    .enumerate()
                    .map(|(j, v)| (j as f64 - 1.5) * v)
                    .sum::<f64>()
                    + rng.random_range(-1.0..1.0)
            })
            .collect();
        let names: Vec<String> = (0..k).map(|j| format!("f{j}")).collect();
        let got = fit(&names, &x, &y).unwrap();
        let (beta, se) = common::ols::normal_equations_zscored(&x, &y);
        assert!((got.intercept.estimate - beta[0]).abs() < 1e-6);
        assert!((got.intercept.std_error.unwrap() - se[0]).abs() < 1e-6);
        for j in 0..k {
            assert!(
                (got.coefs[j].estimate - beta[j + 1]).abs() < 1e-6,
                "n={n} k={k} j={j}"
            );
            assert!((got.coefs[j].std_error.unwrap() - se[j + 1]).abs() < 1e-6);
            // t and p agree with their definitions.
            let t = beta[j + 1] / se[j + 1];
            assert!((got.coefs[j].t.unwrap() - t).abs() < 1e-6);
            // Two-sided, with n − k − 1 degrees of freedom.
            let dist = StudentsT::new(0.0, 1.0, (n - k - 1) as f64).unwrap();
            let p = 2.0 * (1.0 - dist.cdf(t.abs()));
            assert!((got.coefs[j].p.unwrap() - p).abs() < 1e-9);
        }
        // R² from the reference fit's residuals.
        let mean = y.iter().sum::<f64>() / n as f64;
        let tss: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
        let pred: Vec<f64> = x.iter().map(|r| got.predict(r)).collect();
        let rss: f64 = y.iter().zip(&pred).map(|(a, b)| (a - b).powi(2)).sum();
        assert!((got.r2.unwrap() - (1.0 - rss / tss)).abs() < 1e-9);
    }
}

/// A hand-edited ratings file: multi-line notes (one with a quoted quote),
/// a blank line, a row with too few fields, values that are not numbers, an
/// empty halfway ratio, booleans and a torn last row. `line N` comments are
/// the file's own line numbers.
const EDITED: &str = concat!(
    "puzzle,rating,depth1_ratio,halfway_ratio,solvable,notes\n", // 1
    "A,5,0.5,0.1,true,fine\n",                                   // 2
    "B,6,0.6,0.2,false,\"two\n",                                 // 3
    "lines\"\n",                                                 // 4
    "C,seven,0.7,0.3,true,x\n",                                  // 5
    "D,4,abc,,true,y\n",                                         // 6
    "\n",                                                        // 7
    "E,3,0.2\n",                                                 // 8
    "F,2,0.3,,true,\"a, b\"\n",                                  // 9
    "G,8,0.9,0.4,false,\"x \"\"q\"\"\n",                         // 10
    "still\"\n",                                                 // 11
    "H,1,0.1,0.5,true,z\n",                                      // 12
    "I,2,0.1",                                                   // 13
);

#[test]
fn every_problem_names_the_files_own_line_with_lf_or_crlf() {
    use boaf_core::study::ratings::{ValueProblem, parse_ratings};
    use boaf_core::study::regress::table_data;
    for (ending, text) in [
        ("LF", EDITED.to_string()),
        ("CRLF", EDITED.replace('\n', "\r\n")),
    ] {
        let table = parse_ratings(text.as_bytes(), "edited.csv").unwrap();
        let skipped: Vec<(u64, bool)> = table
            .skipped
            .iter()
            .map(|s| (s.line, s.message.contains("torn")))
            .collect();
        assert_eq!(skipped, [(8, false), (13, true)], "{ending}");
        assert_eq!(
            table.skipped[0].to_string(),
            "line 8: skipped: 3 fields where the header has 6"
        );
        assert_eq!(table.lines, [2, 3, 5, 6, 9, 10, 12], "{ending}");
        let puzzles: Vec<&str> = (0..table.rows.len())
            .map(|i| table.text(i, "puzzle").unwrap())
            .collect();
        assert_eq!(puzzles, ["A", "B", "C", "D", "F", "G", "H"], "{ending}");
        let features: Vec<String> = ["depth1_ratio", "halfway_ratio", "solvable"]
            .map(String::from)
            .to_vec();
        let data = table_data(&table, &features).unwrap();
        let problem = |line, column: &str, text: &str| ValueProblem {
            line,
            column: column.into(),
            text: text.into(),
        };
        assert_eq!(
            data.problems,
            [
                problem(5, "rating", "seven"),
                problem(6, "depth1_ratio", "abc")
            ],
            "{ending}"
        );
        assert_eq!(
            data.problems[0].to_string(),
            "line 5, column rating: 'seven' is not a number"
        );
        assert_eq!(
            data.problems[1].to_string(),
            "line 6, column depth1_ratio: 'abc' is not a number"
        );
        // A, B, G and H are used; F only lacks its halfway ratio.
        assert_eq!(data.y, [5.0, 6.0, 8.0, 1.0], "{ending}");
        assert_eq!(data.x[0], [0.5, 0.1, 1.0]);
        assert_eq!(data.x[1], [0.6, 0.2, 0.0]);
        assert_eq!(
            (data.left_out, data.missing, data.unreadable),
            (3, 1, 2),
            "{ending}"
        );
        assert_eq!(
            data.left_out_summary().as_deref(),
            Some(
                "3 rows left out: 1 row with no value for the rating or a chosen feature, \
                 2 rows with a value that is not a number"
            )
        );
    }
}

#[test]
fn a_file_that_is_not_a_ratings_file_says_so() {
    let dir = temp_dir("not-ratings");
    let cases: [(&str, &[u8], &str); 5] = [
        ("empty.csv", b"", "is not a ratings file: it is empty"),
        ("blank.csv", b"  \n\n", "is not a ratings file: it is empty"),
        (
            "garbage.csv",
            b"hello world\nfoo bar\n",
            "is not a ratings file: its header has no 'puzzle' and 'rating' columns \
             (first line: \"hello world\")",
        ),
        (
            "binary.csv",
            b"\xff\xfe\x00junk\n1,2\n",
            "is not a ratings file: its first line is not CSV text",
        ),
        (
            "no-rating.csv",
            b"puzzle,grid\nA,4x4\n",
            "is not a ratings file: its header has no 'rating' column (first line: \"puzzle,grid\")",
        ),
    ];
    for (name, bytes, want) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let err = read_ratings(&path).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{} {want}", path.display())),
            "{name}: {err}"
        );
    }
    // For the store an empty file is a new one: it gets the header.
    let path = dir.join("empty.csv");
    std::fs::write(&path, "").unwrap();
    let (mut store, _) = RatingsStore::open(&path).unwrap();
    store.append(&row(0)).unwrap();
    assert_eq!(check_rows(&path), 1);
    // But a file that is something else is left alone, and says why.
    let path = dir.join("garbage.csv");
    let err = RatingsStore::open(&path).unwrap_err().to_string();
    assert!(err.contains("is not a ratings file"), "{err}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"hello world\nfoo bar\n".to_vec()
    );
}

#[test]
fn a_missing_file_gives_the_os_error_once() {
    let dir = temp_dir("missing");
    let path = dir.join("missing.csv");
    let os = std::fs::read(&path).unwrap_err().to_string();
    let err = read_ratings(&path).unwrap_err();
    // The message and its source chain, as a chain printer shows them.
    let mut shown = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(s) = source {
        shown.push_str(&format!(": {s}"));
        source = s.source();
    }
    assert_eq!(shown, format!("{}: {os}", path.display()));
}

#[test]
fn an_export_is_the_file_the_store_writes_for_the_same_rows() {
    let dir = temp_dir("export");
    let path = dir.join("ratings.csv");
    let (mut store, _) = RatingsStore::open(&path).unwrap();
    let rows: Vec<Rating> = (0..4).map(row).collect();
    for r in &rows {
        store.append(r).unwrap();
    }
    let export = ratings_csv(&rows).unwrap();
    assert_eq!(export, std::fs::read(&path).unwrap());
    let table = parse_ratings(&export, "export.csv").unwrap();
    assert_eq!(table.rows.len(), 4);
    assert_eq!(table.notes(3).unwrap(), row(3).notes);
    let mut bad = row(1);
    bad.rating = 11.0;
    assert!(ratings_csv(&[bad]).is_err());
}
