//! `boaf bench soak`: continuous generation through the app's pipeline (a
//! [`Batch`] over a store in arrival order, polled like the Generate panel's
//! frames, batch after batch with the next seed) for a set time, printing
//! the resident memory as it goes, to show that it stays flat.
//!
//! The app keeps every candidate it makes (its queue) and the store keeps a
//! key per stored puzzle, so some growth is expected: the soak keeps the
//! candidates too (unless `--drop`) and reports their bytes apart, so that
//! what is left of the growth is what a leak would be.

use super::generator::{find_energy, load_energies};
use super::input::Bytes;
use anyhow::{Context, Result};
use boaf_core::engine::limits::WORKER_CAP;
use boaf_core::folder::Folder;
use boaf_core::generator::batch::{Batch, Event, Order};
use boaf_core::generator::descent::{DEFAULT_ENERGY, SearchParams};
use boaf_core::generator::pipeline::{Candidate, Job};
use boaf_core::generator::store::{PuzzleStore, dedup_key};
use clap::Args;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Arguments of `boaf bench soak`.
#[derive(Args)]
pub struct BenchSoakArgs {
    /// Cards per puzzle
    #[arg(short, long, default_value_t = 12)]
    n: usize,
    /// Energy to minimize
    #[arg(long, default_value = DEFAULT_ENERGY)]
    energy: String,
    /// How long to generate, in minutes
    #[arg(long, default_value_t = 60.0)]
    minutes: f64,
    /// Seconds between two memory lines
    #[arg(long, default_value_t = 60.0)]
    every: f64,
    /// Seconds of warm-up before the starting memory is taken
    #[arg(long, default_value_t = 60.0)]
    warmup: f64,
    /// Worker threads
    #[arg(long, default_value_t = 1)]
    workers: usize,
    /// Puzzles per batch (the Generate panel's largest: one batch for the
    /// whole soak; a new batch with the next seed starts when one ends, as
    /// pressing Start again does)
    #[arg(long, default_value_t = 10_000)]
    puzzles: usize,
    /// Steps per puzzle (default: the app's for these cards)
    #[arg(long)]
    steps: Option<usize>,
    /// The folder whose puzzles/ gets the store (default: a new one under the temp folder, removed at the end)
    #[arg(long)]
    folder: Option<std::path::PathBuf>,
    /// Drop each candidate once counted, instead of keeping it as the app's queue does
    #[arg(long)]
    drop: bool,
    /// Memory each worker's analyses may use
    #[arg(long, default_value_t = Bytes(WORKER_CAP))]
    memory_cap: Bytes,
}

/// The resident set size in KiB, from `/proc/self/statm` (`None` off Linux).
pub fn rss_kib() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // The page size is 4 KiB on every machine boaf runs on (x86-64, most arm64).
    Some(pages * 4)
}

/// The heap in use in KiB: what live allocations hold in every arena (the
/// worker threads' too) and in mapped blocks, from glibc's `malloc_info`,
/// so a growing RSS can be told apart from memory the allocator keeps for
/// reuse. `None` off glibc. (`mallinfo2` would count the main arena alone.)
pub fn heap_kib() -> Option<u64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let mut buf: *mut libc::c_char = std::ptr::null_mut();
        let mut len: libc::size_t = 0;
        // SAFETY: open_memstream writes the buffer's address and length
        // into the two locals, which outlive the stream; the buffer is
        // read only after fclose has flushed it, then freed once.
        let xml = unsafe {
            let stream = libc::open_memstream(&mut buf, &mut len);
            if stream.is_null() {
                return None;
            }
            let ok = libc::malloc_info(0, stream) == 0;
            libc::fclose(stream);
            let xml = (ok && !buf.is_null()).then(|| {
                String::from_utf8_lossy(std::slice::from_raw_parts(buf.cast(), len)).into_owned()
            });
            libc::free(buf.cast());
            xml
        };
        in_use_kib(&xml?)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    None
}

/// The bytes in use from `malloc_info`'s XML, in KiB: of its totals (after
/// the last arena's `</heap>`), what the arenas hold from the system and the
/// mapped blocks, less their free chunks (fast and the rest).
fn in_use_kib(xml: &str) -> Option<u64> {
    let totals = &xml[xml.rfind("</heap>")?..];
    let size = |tag: &str| -> Option<u64> {
        let at = &totals[totals.find(tag)?..];
        let value = &at[at.find("size=\"")? + 6..];
        value[..value.find('"')?].parse().ok()
    };
    let held = size("<system type=\"current\"")? + size("<total type=\"mmap\"")?;
    let free = size("<total type=\"fast\"")? + size("<total type=\"rest\"")?;
    Some(held.saturating_sub(free) / 1024)
}

/// The heap bytes a kept candidate holds: the struct and its strings and trace.
fn candidate_bytes(c: &Candidate) -> usize {
    std::mem::size_of::<Candidate>()
        + c.puzzle.capacity()
        + c.energy_name.capacity()
        + c.energy_id.capacity()
        + c.created.capacity()
        + c.trace.capacity() * std::mem::size_of::<f64>()
}

/// The bytes the store holds for a new puzzle: its key in a hash set.
fn key_bytes(c: &Candidate) -> usize {
    // The key's text, its String, and the set's slot with its control byte.
    dedup_key(c).map_or(0, |k| k.len() + 2 * std::mem::size_of::<String>() + 1)
}

/// The medians of the first and the last `most` values (fewer when there
/// are under twice as many, so that the two never overlap), with how many
/// each took; `None` with fewer than two values.
fn window_medians(values: &[u64], most: usize) -> Option<(usize, u64, u64)> {
    let w = most.min(values.len() / 2);
    let median = |part: &[u64]| {
        let mut v = part.to_vec();
        v.sort_unstable();
        v[(v.len() - 1) / 2]
    };
    (w > 0).then(|| (w, median(&values[..w]), median(&values[values.len() - w..])))
}

/// Growth from `a` to `b` in percent.
fn growth(a: u64, b: u64) -> f64 {
    (b as f64 - a as f64) / a.max(1) as f64 * 100.0
}

/// Where the soak is: what it made and kept, for its memory lines.
#[derive(Default)]
struct Tally {
    candidates: usize,
    failed: usize,
    kept: Vec<Candidate>,
    kept_bytes: usize,
    /// The store's keys of the new puzzles (kept in both modes, as the app's store keeps them).
    key_bytes: usize,
    /// The RSS of each line taken between candidates, in KiB.
    rss: Vec<u64>,
}

impl Tally {
    /// Bytes held on purpose: the kept candidates and the store's keys.
    fn held(&self) -> usize {
        self.kept_bytes + self.key_bytes
    }

    /// One memory line: `rss <label> t=<s> candidates=<n> kept_kib=<k>
    /// rss_kib=<k> heap_kib=<k>`, where kept counts the kept candidates and the
    /// store's keys, and heap is what live allocations hold (`-` if unknown).
    fn line(&self, label: &str, started: Instant) -> Result<(u64, Option<u64>)> {
        let rss = rss_kib().context("no /proc/self/statm to read the resident memory from")?;
        let heap = heap_kib();
        println!(
            "rss {label} t={:.0} candidates={} kept_kib={} rss_kib={rss} heap_kib={}",
            started.elapsed().as_secs_f64(),
            self.candidates,
            self.held() / 1024,
            heap.map_or("-".into(), |h| h.to_string()),
        );
        Ok((rss, heap))
    }
}

/// `bench soak`: generates until the time is up, printing memory lines,
/// each taken as a candidate arrives (between two candidates of a worker).
pub fn bench_soak(args: BenchSoakArgs) -> Result<ExitCode> {
    let loaded = load_energies(&[])?;
    let energy = find_energy(&loaded.book, &args.energy)?.clone();
    let (root, temporary) = match &args.folder {
        Some(f) => (f.clone(), false),
        None => (
            std::env::temp_dir().join(format!("boaf-soak-{}", std::process::id())),
            true,
        ),
    };
    let folder = Folder::new(&root);
    let file = folder.store_file(args.n, &energy.name);
    let params = SearchParams {
        iterations: args
            .steps
            .unwrap_or(SearchParams::for_cards(args.n).iterations),
        ..SearchParams::for_cards(args.n)
    };
    println!(
        "soak: {} cards, energy {}, {} steps, {} worker(s), {} puzzles a batch, {} min, store {}; candidates {}",
        args.n,
        energy.id(),
        params.iterations,
        args.workers,
        args.puzzles,
        args.minutes,
        file.display(),
        if args.drop {
            "dropped once counted"
        } else {
            "kept, as the app's queue keeps them"
        }
    );
    let started = Instant::now();
    let end = Duration::from_secs_f64(args.minutes.max(0.0) * 60.0);
    let every = Duration::from_secs_f64(args.every.max(0.1));
    let warmup = Duration::from_secs_f64(args.warmup.max(0.0));
    let mut tally = Tally::default();
    let mut first: Option<((u64, Option<u64>), usize)> = None;
    let mut next_line = warmup;
    let mut seed = 1;
    let mut last = (0, None);
    'soak: loop {
        // As the panel's Start: open the store (reading what it holds), then a batch.
        let (store, _) =
            PuzzleStore::open(&file).with_context(|| format!("opening {}", file.display()))?;
        let job = Job {
            n: args.n,
            energy: energy.clone(),
            seed,
            params: params.clone(),
            indices: 0..args.puzzles.max(1),
            memory_cap: args.memory_cap.0,
        };
        // The app's wake is a repaint request: a call that does nothing here.
        let wake = Arc::new(|| {});
        let mut batch = Batch::start(job, args.workers, Some(store), Order::Arrival, Some(wake));
        loop {
            for e in batch.wait(Duration::from_millis(16)) {
                match e {
                    Event::Candidate(c) => {
                        // A line that is due is taken here, between two
                        // candidates: one's tables freed, the next's not
                        // yet made, so that lines compare like with like.
                        let now = started.elapsed();
                        if now >= next_line {
                            last = tally
                                .line(if first.is_none() { "start" } else { "at" }, started)?;
                            tally.rss.push(last.0);
                            first.get_or_insert((last, tally.held()));
                            next_line = now + every;
                        }
                        tally.candidates += 1;
                        tally.key_bytes += key_bytes(&c);
                        if !args.drop {
                            tally.kept_bytes += candidate_bytes(&c);
                            tally.kept.push(*c);
                        }
                    }
                    Event::Duplicate { .. } => tally.candidates += 1,
                    Event::Failed { index, message } => {
                        tally.failed += 1;
                        eprintln!("soak: seed {seed} puzzle {index} failed: {message}");
                    }
                    _ => {}
                }
            }
            let now = started.elapsed();
            if now >= end {
                batch.cancel();
                // The batch's Finished follows within a fraction of a second.
                while !batch.is_finished() {
                    batch.wait(Duration::from_millis(50));
                }
                break 'soak;
            }
            if batch.is_finished() {
                break;
            }
        }
        seed += 1;
    }
    // Once the workers stopped: shown, but not compared with lines taken
    // while one worked.
    let after = tally.line("after", started)?;
    let (end_rss, end_heap) = if first.is_some() { last } else { after };
    let ((start_rss, start_heap), start_kept) = first.unwrap_or((after, 0));
    let kept_kib = (tally.held().saturating_sub(start_kept) / 1024) as u64;
    println!(
        "soak: {} candidates in {:.1} min ({} failed, {} batches); RSS between candidates {start_rss} KiB after warm-up, {end_rss} KiB at the last line: {:+.2}% (lines from {} to {} KiB)",
        tally.candidates,
        started.elapsed().as_secs_f64() / 60.0,
        tally.failed,
        seed,
        growth(start_rss, end_rss),
        tally.rss.iter().min().unwrap_or(&end_rss),
        tally.rss.iter().max().unwrap_or(&end_rss),
    );
    if let Some((w, a, b)) = window_medians(&tally.rss, 10) {
        // One line can land in a candidate's early tables; the medians of
        // ten lines at each end do not follow one such line.
        println!(
            "soak: median RSS of the first {w} lines {a} KiB, of the last {w} lines {b} KiB: {:+.2}%",
            growth(a, b),
        );
    }
    println!(
        "soak: what is kept on purpose grew by {kept_kib} KiB after warm-up ({} bytes a kept candidate, {} bytes a store key); growth net of it {:+.2}%",
        tally.kept_bytes / tally.kept.len().max(1),
        tally.key_bytes / tally.candidates.max(1),
        growth(start_rss, end_rss.saturating_sub(kept_kib)),
    );
    if let (Some(a), Some(b)) = (start_heap, end_heap) {
        // A leak grows the heap in use; memory the allocator keeps for
        // reuse grows only the RSS.
        println!(
            "soak: heap in use {a} KiB after warm-up, {b} KiB at the end: {:+.2}%, {:+.2}% net of what is kept on purpose",
            growth(a, b),
            growth(a, b.saturating_sub(kept_kib)),
        );
    }
    if temporary {
        let _ = std::fs::remove_dir_all(&root);
    }
    Ok(if tally.candidates > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::{in_use_kib, window_medians};

    #[test]
    fn the_heap_in_use_is_read_from_the_totals_of_every_arena() {
        // The shape of glibc's malloc_info: each arena, then the totals.
        let xml = r#"<malloc version="1">
<heap nr="0"><sizes></sizes><total type="fast" count="0" size="0"/>
<total type="rest" count="1" size="1000"/><system type="current" size="9999"/></heap>
<total type="fast" count="2" size="2048"/>
<total type="rest" count="5" size="100352"/>
<total type="mmap" count="1" size="1052672"/>
<system type="current" size="1200128"/>
<system type="max" size="9000000"/>
</malloc>"#;
        assert_eq!(
            in_use_kib(xml),
            Some((1200128 + 1052672 - 2048 - 100352) / 1024)
        );
        assert_eq!(in_use_kib("<malloc></malloc>"), None);
        // And this process's, read for real: more than nothing is in use.
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        assert!(super::heap_kib().is_some_and(|k| k > 0));
    }

    #[test]
    fn the_window_medians_take_each_end_apart() {
        assert_eq!(window_medians(&[], 10), None);
        assert_eq!(window_medians(&[5], 10), None);
        assert_eq!(window_medians(&[5, 9], 10), Some((1, 5, 9)));
        // The lower middle of an even window; the two ends never overlap.
        let v = [4, 1, 3, 2, 100, 7, 9, 8, 6];
        assert_eq!(window_medians(&v, 10), Some((4, 2, 7)));
        assert_eq!(window_medians(&v, 3), Some((3, 3, 8)));
    }
}
