//! Writers under kills and side by side, as processes: `boaf bench kill`'s
//! short run, two `boaf bench write` processes appending to one ratings file
//! and one puzzle store at once, and a writer that holds the lock named by
//! the one that waits for it.

#[path = "../src/core/tests/common/temp.rs"]
mod temp;

use boaf_core::engine::deal::deal;
use boaf_core::engine::notation::to_compact;
use boaf_core::generator::store::{PuzzleStore, read_store};
use boaf_core::study::ratings::{PlayRecord, Rating, RatingsStore, header, read_ratings};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use temp::TempDir;

/// A child killed when the guard goes, even if an assertion fails first.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn write(args: &[&str], file: &Path) -> Killed {
    Killed(
        Command::new(env!("CARGO_BIN_EXE_boaf"))
            .args(["bench", "write", "--file"])
            .arg(file)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    )
}

/// Waits for a writer to end well; returns its `ack` and `dup` counts.
fn finish(mut w: Killed) -> (usize, usize) {
    let out = BufReader::new(w.0.stdout.take().unwrap());
    let (mut acks, mut dups) = (0, 0);
    for line in out.lines() {
        let line = line.unwrap();
        acks += usize::from(line.starts_with("ack "));
        dups += usize::from(line.starts_with("dup "));
    }
    assert!(w.0.wait().unwrap().success());
    (acks, dups)
}

/// The tests here one at a time: a kill lands inside a row's copy only when
/// the killer is not starved of the CPU by the other tests' writers.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// One `boaf bench kill` of ratings, store and energy: asserts its zeros and
/// returns the torn tails seen.
fn kill_runs(seed: u64) -> usize {
    let out = Command::new(env!("CARGO_BIN_EXE_boaf"))
        .args(["bench", "kill", "--writer", "ratings,store,energy"])
        .args(["--runs", "10", "--seed", &seed.to_string()])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}");
    assert!(report.contains("all passed"), "{report}");
    let mut torn = 0;
    for writer in ["ratings", "store", "energy"] {
        let line = report
            .lines()
            .find(|l| l.starts_with(&format!("{writer}: 10 runs, ")))
            .unwrap_or_else(|| panic!("no {writer} line: {report}"));
        assert!(
            line.contains(" 0 lost, ") && line.contains(" 0 corrupt files"),
            "{line}"
        );
        // Every torn tail the reader saw, the next open repaired.
        let number = |after: &str| -> usize {
            let at = line.find(after).unwrap();
            line[..at].rsplit(' ').next().unwrap().parse().unwrap()
        };
        assert_eq!(number(" torn tails seen"), number(" repaired"), "{line}");
        assert!(number(" rows acknowledged") >= 10, "{line}");
        torn += number(" torn tails seen");
    }
    torn
}

#[test]
fn kill_runs_lose_no_acknowledged_row_and_repair_every_torn_tail() {
    let _one = one_at_a_time();
    // Whether a kill lands inside a copy depends on the machine's load: up
    // to three seeds, until one tears a row; each must lose nothing.
    let torn: Vec<usize> = (5..8)
        .scan(0, |seen, seed| {
            (*seen == 0).then(|| {
                *seen = kill_runs(seed);
                *seen
            })
        })
        .collect();
    // The test can fail: some kill cut a row in half.
    assert!(torn.iter().any(|&t| t >= 1), "no kill tore a row: {torn:?}");
}

#[test]
fn two_processes_append_to_one_ratings_file_and_one_store_and_nothing_interleaves() {
    let _one = one_at_a_time();
    const N: u64 = 120;
    let dir = TempDir::new("two-writers");
    let ratings = dir.join("ratings.csv");
    // An old layout: both writers race to add the columns; one does.
    std::fs::write(&ratings, "puzzle,rating\nold,5\n").unwrap();
    let store = dir.join("n16-E5.jsonl");
    let (n, big) = (N.to_string(), (N - 2).to_string());
    let rater = |tag: &'static str| {
        let args = ["--writer", "ratings", "--tag", tag, "--count", &n];
        write(&[&args[..], &["--big-from", &big]].concat(), &ratings)
    };
    let writers = [
        rater("A"),
        rater("B"),
        // The second store writer starts halfway through the first's puzzles:
        // each of those may be stored once only.
        write(
            &["--writer", "store", "--count", &n, "--big-from", &big],
            &store,
        ),
        write(
            &[
                "--writer",
                "store",
                "--from",
                &(N / 2).to_string(),
                "--count",
                &n,
            ],
            &store,
        ),
    ];
    let counts: Vec<(usize, usize)> = writers.into_iter().map(finish).collect();
    assert_eq!(counts[0], (N as usize, 0));
    assert_eq!(counts[1], (N as usize, 0));
    assert_eq!(counts[2].0 + counts[3].0, 3 * N as usize / 2, "{counts:?}");
    assert_eq!(counts[2].1 + counts[3].1, N as usize / 2, "{counts:?}");

    let table = read_ratings(&ratings).unwrap();
    assert!(table.skipped.is_empty(), "{:?}", table.skipped);
    assert_eq!(table.headers.len(), header().len());
    assert_eq!(table.rows.len(), 2 * N as usize + 1);
    assert_eq!(table.text(0, "puzzle"), Some("old"));
    assert!(dir.join("ratings.csv.bak").exists());
    for tag in ["A", "B"] {
        // Each writer's rows in its order, each whole.
        let mine: Vec<usize> = (0..table.rows.len())
            .filter(|&i| table.text(i, "rater") == Some(tag))
            .collect();
        assert_eq!(mine.len(), N as usize, "{tag}");
        for (k, &i) in mine.iter().enumerate() {
            assert_eq!(table.text(i, "puzzle"), Some(format!("{tag}-{k}").as_str()));
            let notes = table.notes(i).unwrap();
            assert!(notes.starts_with(&format!("=row {k}, \"quoted\"\nsecond line")));
            assert_eq!(notes.len() > 1000, k as u64 >= N - 2, "{tag}-{k}");
            assert_eq!(table.number(i, "moves"), Some(k as f64));
        }
    }

    let (cands, skipped) = read_store(&store).unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(cands.len(), 3 * N as usize / 2);
    let mut ks: Vec<usize> = cands.iter().map(|c| c.index).collect();
    ks.sort();
    assert_eq!(ks, (0..3 * N as usize / 2).collect::<Vec<_>>());
    for c in &cands {
        assert_eq!(c.puzzle, to_compact(&deal(c.index as i32)));
    }
}

/// Starts a writer that holds `file`'s lock; returns it once it holds it.
fn holder(file: &Path, writer: &str) -> Killed {
    let mut w = write(&["--writer", writer, "--hold"], file);
    let mut line = String::new();
    BufReader::new(w.0.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "held\n");
    w
}

#[test]
fn a_writer_that_holds_the_lock_is_named_by_the_one_that_waits() {
    let _one = one_at_a_time();
    let dir = TempDir::new("held-lock");
    // A store's candidate, written by boaf itself.
    let other = dir.join("other.jsonl");
    finish(write(&["--writer", "store", "--count", "1"], &other));
    let (cands, _) = read_store(&other).unwrap();

    let ratings = dir.join("ratings.csv");
    let (mut rstore, _) = RatingsStore::open(&ratings).unwrap();
    let store = dir.join("n16-E5.jsonl");
    let (mut pstore, _) = PuzzleStore::open(&store).unwrap();
    let before = std::fs::read(&ratings).unwrap();

    let rating = Rating {
        puzzle: cands[0].puzzle.clone(),
        grid: "4x4".into(),
        energy_id: cands[0].energy_id.clone(),
        features: cands[0].features.clone(),
        rating: 7.0,
        notes: "held".into(),
        play: PlayRecord::default(),
        rater: "tester".into(),
        timestamp: "2026-11-22T00:00:00Z".into(),
    };

    let held = holder(&ratings, "ratings");
    let started = std::time::Instant::now();
    let err = rstore.append(&rating).unwrap_err().to_string();
    let waited = started.elapsed().as_secs_f64();
    assert!((4.5..30.0).contains(&waited), "{waited} s");
    let name = format!("pid {}: boaf bench write --file ", held.0.id());
    assert!(err.starts_with(&ratings.display().to_string()), "{err}");
    assert!(err.contains(&name), "{err}");
    assert!(err.contains("for over 5 s; nothing was written"), "{err}");
    assert_eq!(std::fs::read(&ratings).unwrap(), before);
    // Once the holder is gone (killed: the system lets go), the rating goes in.
    drop(held);
    rstore.append(&rating).unwrap();
    assert_eq!(read_ratings(&ratings).unwrap().rows.len(), 1);

    let held = holder(&store, "store");
    let err = pstore.add(&cands[0]).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
    let name = format!("pid {}: boaf bench write --file ", held.0.id());
    assert!(err.to_string().contains(&name), "{err}");
    assert!(std::fs::read(&store).unwrap().is_empty());
    drop(held);
    assert!(pstore.add(&cands[0]).unwrap());
    assert_eq!(read_store(&store).unwrap().0, cands);
}
