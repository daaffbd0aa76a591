//! Every writer of the library on a full disk (a small tmpfs filled to the
//! last byte): the error names the file and the OS's "No space left on
//! device"; the rows written before stay as they were; a row the disk took
//! only part of is cut back, so that once space is freed the next append
//! starts on a line of its own; an atomic save leaves the old file and no
//! temporary. Needs root (see `common/tmpfs.rs`).

#[path = "common/temp.rs"]
mod temp;
#[path = "common/tmpfs.rs"]
mod tmpfs;

use boaf_core::durable::write_atomically;
use boaf_core::engine::analysis::AnalysisOptions;
use boaf_core::engine::deal::deal;
use boaf_core::engine::feature::FeatureSet;
use boaf_core::engine::features::{Features, features_for};
use boaf_core::generator::pipeline::Candidate;
use boaf_core::generator::store::{PuzzleStore, read_store};
use boaf_core::study::ratings::{PlayRecord, Rating, RatingsStore, read_ratings};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use temp::TempDir;
use tmpfs::{Tmpfs, names};

/// What the OS says when the disk is full.
const FULL: &str = "No space left on device (os error 28)";

/// tmpfs hands out space a page at a time.
const PAGE: u64 = 4096;

/// A 256 KiB tmpfs in a temporary folder named `name`, or `None` when the
/// test is skipped; the disk is unmounted before the folder goes.
fn small_disk(name: &str) -> Option<(Tmpfs, TempDir)> {
    let dir = TempDir::new(name);
    let disk = Tmpfs::mount(&dir.join("disk"), "256k", name)?;
    Some((disk, dir))
}

/// Free bytes in the last page of a file: what a full disk still takes.
fn room(path: &Path) -> usize {
    let len = std::fs::metadata(path).unwrap().len();
    ((PAGE - len % PAGE) % PAGE) as usize
}

/// Checks that on this full disk a write of `bytes` at the end of `path`
/// is taken part-way (the last page's room) before "No space left on
/// device", so the test that follows is of a torn row; leaves the file as it was.
fn assert_taken_part_way(path: &Path, bytes: &[u8]) {
    let before = std::fs::read_to_string(path).unwrap();
    let room = room(path);
    assert!(0 < room && room < bytes.len(), "room {room}");
    let mut file = OpenOptions::new().append(true).open(path).unwrap();
    assert_eq!(file.write(bytes).unwrap(), room, "a short write");
    assert_eq!(
        file.write(&bytes[room..]).unwrap_err().raw_os_error(),
        Some(28)
    );
    file.set_len(before.len() as u64).unwrap();
    assert_eq!(std::fs::read_to_string(path).unwrap(), before);
}

fn rating(k: usize, notes: String) -> Rating {
    Rating {
        puzzle: format!("AH2H3H4H5H6H7H8H{k:016}"),
        grid: "4x4".into(),
        energy_id: "E5-00000000".into(),
        features: Features {
            n: 8,
            solvable: true,
            ..features_for(&deal(0), FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap()
        },
        rating: (k % 11) as f64,
        notes,
        play: PlayRecord {
            moves: k as u32,
            ..PlayRecord::default()
        },
        rater: "full".into(),
        timestamp: "2026-11-25T00:00:00Z".into(),
    }
}

#[test]
fn a_ratings_append_on_a_full_disk_names_the_file_and_leaves_no_half_row() {
    let Some((disk, _dir)) = small_disk("full-disk-ratings") else {
        return;
    };
    let path = disk.join("ratings/ratings.csv");
    let (mut store, _) = RatingsStore::open(&path).unwrap();
    for k in 0..3 {
        store.append(&rating(k, format!("row {k}"))).unwrap();
    }
    let filler = disk.fill();
    let before = std::fs::read_to_string(&path).unwrap();
    // Longer than the room left in the file's last page: the disk takes part of it.
    let big = rating(3, "a long note, ".repeat(room(&path) / 13 + 40));
    assert_taken_part_way(&path, &store.row_bytes(&big).unwrap());
    let err = store.append(&big).unwrap_err();
    assert_eq!(err.to_string(), format!("{}: {FULL}", path.display()));
    // The part the disk took is cut back: the file is byte for byte as it was.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    // Opened again on the full disk (as the app does at each save): nothing
    // to repair, and the same error.
    let (mut again, repair) = RatingsStore::open(&path).unwrap();
    assert_eq!(repair, None);
    let err = again.append(&big).unwrap_err();
    assert_eq!(err.to_string(), format!("{}: {FULL}", path.display()));
    // Space freed: the same rating saves, on a line of its own.
    disk.free(&filler);
    again.append(&big).unwrap();
    let table = read_ratings(&path).unwrap();
    assert!(table.skipped.is_empty(), "{:?}", table.skipped);
    assert_eq!(table.torn_at, None);
    let notes: Vec<String> = (0..table.rows.len())
        .map(|r| table.notes(r).unwrap())
        .collect();
    assert_eq!(notes, ["row 0", "row 1", "row 2", big.notes.as_str()]);
    let moves: Vec<_> = (0..4).map(|r| table.number(r, "moves")).collect();
    assert_eq!(moves, [Some(0.0), Some(1.0), Some(2.0), Some(3.0)]);
    // Nothing was set aside: there was no torn row.
    assert!(!disk.join("ratings/ratings.csv.torn").exists());
}

/// A 16-card candidate of deal `k` with a trace of `steps` energies (the
/// trace makes its line as long as a test needs).
fn candidate(k: i32, steps: usize) -> Candidate {
    let state = deal(k);
    let f = features_for(&state, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
    Candidate {
        index: k as usize,
        evaluations: steps,
        trace: (0..steps).map(|i| i as f64).collect(),
        ..Candidate::for_tests(&state, f)
    }
}

#[test]
fn a_puzzle_store_append_on_a_full_disk_fails_whole_and_the_next_starts_a_fresh_line() {
    let Some((disk, _dir)) = small_disk("full-disk-store") else {
        return;
    };
    let path = disk.join("puzzles/n16-test.jsonl");
    let (mut store, _) = PuzzleStore::open(&path).unwrap();
    let first: Vec<Candidate> = (0..3).map(|k| candidate(k, 10)).collect();
    for c in &first {
        assert!(store.add(c).unwrap());
    }
    let filler = disk.fill();
    let before = std::fs::read_to_string(&path).unwrap();
    let big = candidate(3, room(&path) / 16 + 200);
    let mut line = serde_json::to_vec(&big).unwrap();
    line.push(b'\n');
    assert_taken_part_way(&path, &line);
    let err = store.add(&big).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(28));
    // The callers (the generator's batch, the app's Enter) put the file
    // before it, as the batch does here.
    assert_eq!(
        format!("could not store it in {}: {err}", store.path().display()),
        format!("could not store it in {}: {FULL}", path.display())
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    // Not counted as stored: after freeing space the same store takes it.
    assert_eq!(store.len(), 3);
    disk.free(&filler);
    assert!(store.add(&big).unwrap());
    let (read, skipped) = read_store(&path).unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    let mut all = first;
    all.push(big);
    assert_eq!(read, all);
}

#[test]
fn an_atomic_save_on_a_full_disk_keeps_the_old_file_and_leaves_no_temporary() {
    let Some((disk, _dir)) = small_disk("full-disk-atomic") else {
        return;
    };
    let path = disk.join("energies/user.toml");
    let old = b"[E9]\nexpr = \"depth1_ratio\"\n".repeat(20);
    write_atomically(&path, &old).unwrap();
    let filler = disk.fill();
    let new = b"[E9]\nexpr = \"halfway_ratio\"\n".repeat(400);
    let err = write_atomically(&path, &new).unwrap_err();
    // The file saved, not the temporary, and the reason once.
    assert_eq!(err.to_string(), format!("{}: {FULL}", path.display()));
    assert_eq!(std::fs::read(&path).unwrap(), old);
    assert_eq!(names(&disk.join("energies")), ["user.toml"]);
    disk.free(&filler);
    write_atomically(&path, &new).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), new);
}
