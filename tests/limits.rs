//! Memory caps hold under a hard address-space limit: the real `boaf` runs
//! as a child under `prlimit --as` (util-linux, on every Debian machine),
//! with a limit well above what the command needs within its cap but below
//! what it would need without one. Each must end with a clean error that
//! names the cap and how to raise it, never an abort ("memory allocation of
//! N bytes failed", SIGABRT).
//!
//! `tests/run` sets `BOAF_LIMIT_TESTS=1`, which makes a missing `prlimit` a
//! failure rather than a skip.

#[path = "../src/core/tests/common/temp.rs"]
mod temp;

use std::io::Write;
use std::process::{Command, Output, Stdio};
use temp::TempDir;

const MIB: u64 = 1 << 20;
/// The flocking puzzle of the README: its halfway counts peak near 1 GB.
const FLOCKING: &str = "4S6S6C9H4DTH8C9S7D5H5C7H7C5STC8S";

/// Whether `prlimit` runs here; when it does not, the test is skipped
/// (failed under `tests/run`).
fn have_prlimit() -> bool {
    let ok = Command::new("prlimit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("BOAF_LIMIT_TESTS").as_deref() != Ok("1"),
            "the address-space tests need prlimit (util-linux)"
        );
        eprintln!("skipped: no prlimit (util-linux) to set an address-space limit with");
    }
    ok
}

/// Runs `boaf args` under an address-space limit of `limit` bytes, with
/// `env` set and `stdin` written to it.
fn boaf_limited(limit: u64, args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Output {
    let mut child = Command::new("prlimit")
        .arg(format!("--as={limit}"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_boaf"))
        .args(args)
        .env_remove("BOAF_FILE_CAP")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that does not read its input may exit first: a broken pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

/// Asserts a clean failure (exit code 1, no signal, no allocation failure)
/// whose standard error holds every one of `says`; returns the error text.
fn assert_clean_failure(out: &Output, says: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "not a clean exit: {err}");
    assert!(!err.contains("memory allocation"), "{err}");
    for s in says {
        assert!(err.contains(s), "{s:?} not in: {err}");
    }
    err
}

/// Runs `boaf args` under an address-space limit of `limit` bytes and
/// asserts a clean failure that says every one of `says` (skipped without
/// prlimit).
fn assert_capped(limit: u64, args: &[&str], says: &[&str]) {
    if have_prlimit() {
        assert_clean_failure(&boaf_limited(limit, args, &[], b""), says);
    }
}

#[test]
fn analyze_over_its_cap_is_a_clean_error_under_an_address_space_limit() {
    // Deal 6's analysis peaks above 5 GB; its first 64 MiB fit in 1 GiB.
    assert_capped(
        1024 * MIB,
        &["analyze", "--deal", "6", "--memory-cap", "64M"],
        &[
            "boaf: the search needs more than the memory cap of 64 MiB",
            "give it more with --memory-cap SIZE",
        ],
    );
}

#[test]
fn halfway_over_its_cap_is_a_clean_error_under_an_address_space_limit() {
    // The flocking puzzle's counts need about 1 GB, over the 768 MiB limit.
    assert_capped(
        768 * MIB,
        &["halfway", FLOCKING, "--memory-cap", "16M"],
        &[
            &format!("{FLOCKING}: the search needs more than the memory cap of 16 MiB"),
            "boaf: 1 puzzle met the memory cap",
            "give it more with --memory-cap SIZE",
        ],
    );
}

#[test]
fn solve_and_deals_take_a_memory_cap_and_say_how_to_raise_it() {
    // Deal 29 is the first whose solve passes a few thousand positions.
    for args in [
        &["solve", "--deal", "29", "--memory-cap", "1K"][..],
        &["deals", "29..30", "--threads", "1", "--memory-cap", "1K"][..],
    ] {
        assert_capped(
            512 * MIB,
            args,
            &[
                "the search needs more than the memory cap of 1 KiB",
                "give it more with --memory-cap SIZE",
            ],
        );
    }
}

#[test]
fn an_oversized_store_or_ratings_file_is_refused_under_an_address_space_limit() {
    if !have_prlimit() {
        return;
    }
    let dir = TempDir::new("limits-files");
    // Sparse: no disk is used, but reading one whole would need its size.
    let sparse = |name: &str, size: u64| {
        let path = dir.path().join(name);
        std::fs::File::create(&path).unwrap().set_len(size).unwrap();
        path.display().to_string()
    };
    for (name, size, limit, command, says) in [
        (
            "n12-E5.jsonl",
            1100 * MIB,
            512 * MIB,
            "puzzles",
            "it is 1100 MiB, over the 1 GiB cap of a puzzle store read whole",
        ),
        (
            "ratings.csv",
            300 * MIB,
            256 * MIB,
            "regress",
            "it is 300 MiB, over the 256 MiB cap of a ratings file read whole",
        ),
    ] {
        let path = sparse(name, size);
        assert_capped(
            limit,
            &[command, &path],
            &[&format!("{path}: {says}"), "set BOAF_FILE_CAP=SIZE"],
        );
    }
    // The limit is below what reading the store would take: with the cap
    // raised past the file, reading it runs out of memory.
    let store = dir.path().join("n12-E5.jsonl").display().to_string();
    let raised = boaf_limited(
        512 * MIB,
        &["puzzles", &store],
        &[("BOAF_FILE_CAP", "2G")],
        b"",
    );
    let err = String::from_utf8_lossy(&raised.stderr);
    assert!(
        !raised.status.success() && err.contains(&format!("{store}: out of memory")),
        "{err}"
    );
}

#[test]
fn a_short_soak_prints_its_memory_as_it_generates() {
    // The hour-long soak is `boaf bench soak` (see its --help); this one
    // runs seconds on small puzzles, so only the lines are checked, not
    // the growth (noisy over seconds).
    let dir = TempDir::new("limits-soak");
    let folder = dir.path().display().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_boaf"))
        .args([
            "bench",
            "soak",
            "-n",
            "6",
            "--steps",
            "20",
            "--minutes",
            "0.08",
        ])
        .args(["--every", "1", "--warmup", "1", "--folder", &folder])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // rss <label> t=<s> candidates=<n> kept_kib=<k> rss_kib=<k> heap_kib=<k>
    let lines: Vec<(String, u64, u64)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("rss "))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let value = |key: &str| -> u64 {
                words
                    .iter()
                    .find_map(|w| w.strip_prefix(key))
                    .unwrap_or_else(|| panic!("no {key} in {l:?}"))
                    .parse()
                    .unwrap_or_else(|_| panic!("{key} is not a number in {l:?}"))
            };
            // A 5 s soak; the slack is for a loaded machine.
            assert!(value("t=") <= 60, "{l}");
            if cfg!(all(target_os = "linux", target_env = "gnu")) {
                // The engine's tables are on the heap: more than 64 KiB in use.
                assert!(value("heap_kib=") > 64, "{l}");
            }
            (
                words[0].to_string(),
                value("candidates="),
                value("rss_kib="),
            )
        })
        .collect();
    assert!(lines.len() >= 3, "{text}");
    assert_eq!(lines[0].0, "start", "{text}");
    assert_eq!(lines.last().unwrap().0, "after", "{text}");
    let (_, candidates, rss) = lines.last().unwrap();
    assert!(*candidates > 0, "{text}");
    // A process with the engine loaded holds more than a MiB, and less than a GiB.
    assert!((1024..1 << 20).contains(rss), "{text}");
    assert!(
        text.contains(&format!("soak: {candidates} candidates in ")),
        "{text}"
    );
    assert!(text.contains("KiB after warm-up"), "{text}");
    if cfg!(all(target_os = "linux", target_env = "gnu")) {
        assert!(text.contains("soak: heap in use "), "{text}");
    }
    // The store the soak made, in the folder it was given.
    let stored = std::fs::read_to_string(dir.join("puzzles/n6-E5.jsonl")).unwrap();
    assert!(stored.lines().count() > 0);
}

#[test]
fn the_default_cap_fits_itself_to_the_address_space_limit() {
    // No --memory-cap: the default 4 GiB would abort under 1 GiB, so the
    // cap is held to a third of what the program leaves, and says why.
    assert_capped(
        1024 * MIB,
        &["analyze", "--deal", "6"],
        &[
            "boaf: the search needs more than the memory cap of 256 MiB",
            "raise the address-space limit (ulimit -v) of 1 GiB: it holds each cap to 256 MiB at most",
        ],
    );
}

#[test]
fn a_state_or_batch_line_on_standard_input_past_its_cap_is_refused() {
    if !have_prlimit() {
        return;
    }
    // A state is read whole (16 MiB at most); a batch line by line, each
    // 64 KiB at most, so one 100 MiB line with no newline is not read whole.
    for (args, size, says) in [
        (
            &["solve", "-"][..],
            17 << 20,
            "reading the state from standard input: it is over the 16 MiB cap of a state read whole",
        ),
        (
            &["halfway", "--batch", "-"][..],
            100 << 20,
            "reading - line 1: the line is over 64 KiB, so not a state",
        ),
    ] {
        let out = boaf_limited(256 * MIB, args, &[], &vec![b'-'; size]);
        assert_clean_failure(&out, &[says]);
    }
}
