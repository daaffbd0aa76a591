//! `boaf bench kill`: every writer killed with SIGKILL while it writes, then
//! checked with the real readers. Each run starts `boaf bench write` (hidden)
//! as a child, which writes numbered rows through the real writer (the
//! ratings store's append, the puzzle store's add, the energy editor's
//! whole-file save) and prints `ack K` only after the call returned (a new
//! file every five runs, which the rows of those runs share). The
//! parent kills it at a seeded moment inside a write: half the runs when
//! the file has grown by a seeded fraction of the row being written (a
//! kill mid-copy tears a row), the others a seeded delay after the write
//! began (mostly in its sync). Then every acknowledged row must be there
//! and whole, every row must read, and the next open must report and repair
//! a torn tail. The study database's runs are `boaf bench serve`'s kill runs.

use anyhow::{Context, Result, bail};
use boaf_core::engine::deal::deal;
use boaf_core::engine::features::Features;
use boaf_core::engine::notation::to_compact;
use boaf_core::generator::descent::SearchParams;
use boaf_core::generator::energy::EnergyBook;
use boaf_core::generator::pipeline::{Candidate, Source};
use boaf_core::generator::store::{PuzzleStore, parse_store_bytes};
use boaf_core::lock::{LOCK_WAIT, lock_path};
use boaf_core::study::ratings::{PlayRecord, Rating, RatingsStore, read_ratings};
use clap::{Args, ValueEnum};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::collections::{BTreeSet, HashSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// A writer the kill runs cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Writer {
    /// The ratings CSV's append (`RatingsStore::append`).
    Ratings,
    /// The puzzle store's append (`PuzzleStore::add`).
    Store,
    /// The energy editor's save (`durable::write_atomically`).
    Energy,
    /// The study database under `boaf serve` (`boaf bench serve --kill-runs`).
    Study,
    /// All of the above.
    All,
}

/// Arguments of `boaf bench kill`.
#[derive(Args)]
pub struct BenchKillArgs {
    /// The writers to kill (comma-separated)
    #[arg(long, value_enum, value_delimiter = ',', default_value = "all")]
    writer: Vec<Writer>,
    /// Kill runs per writer
    #[arg(long, default_value_t = 100)]
    runs: usize,
    /// The seed of the moments of the kills
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Arguments of `boaf bench write`: the child the kill runs kill, and one of
/// the two writers of the two-writer tests.
#[derive(Args)]
pub struct WriteArgs {
    /// The writer to write through (not `all`)
    #[arg(long, value_enum)]
    writer: Writer,
    /// The file
    #[arg(long)]
    file: PathBuf,
    /// The first row's number
    #[arg(long, default_value_t = 0)]
    from: u64,
    /// Rows from this number on are big (3 MiB), so a kill can land inside
    /// their write
    #[arg(long, default_value_t = u64::MAX)]
    big_from: u64,
    /// Rows to write (default: until killed)
    #[arg(long)]
    count: Option<u64>,
    /// Names this writer's rows (the two-writer tests tell two apart)
    #[arg(long, default_value = "kill")]
    tag: String,
    /// Only take the file's lock and hold it until killed (prints `held`)
    #[arg(long)]
    hold: bool,
}

/// Bytes of a big row's notes or trace: over the 2 MiB pages (folios) the
/// kernel copies a write in, since a kill stops a write only between them
/// (Linux 6.18 on ext4 here): a smaller row is never torn by SIGKILL.
const BIG: usize = 3 << 20;

/// Runs that share one file; then a new one, so the big rows do not make
/// every check read hundreds of megabytes.
const RUNS_PER_FILE: usize = 5;

/// Rating `k` of writer `tag`: notes awkward on purpose (a formula, quotes,
/// commas, new lines), 3 MiB of them when `big`.
pub fn rating(tag: &str, k: u64, big: bool) -> Rating {
    let mut notes = format!("=row {k}, \"quoted\"\nsecond line");
    if big {
        let unit = format!(" {k} \"q\", line\n");
        notes.push_str(&unit.repeat(BIG / unit.len()));
    }
    let n = k as usize;
    Rating {
        puzzle: format!("{tag}-{k}"),
        grid: "4x4".into(),
        energy_id: "E5-00000000".into(),
        features: features(n),
        rating: (k % 11) as f64,
        notes,
        play: PlayRecord {
            solved: k.is_multiple_of(2),
            moves: k as u32,
            hints: 2,
            seconds: 12.5,
            ..PlayRecord::default()
        },
        rater: tag.into(),
        timestamp: "2026-11-22T00:00:00Z".into(),
    }
}

/// Made-up features: the stores never check them.
fn features(n: usize) -> Features {
    Features {
        n: 16,
        solvable: true,
        suit_diversity: 1 + (n % 4) as u32,
        rank_diversity: 3,
        dominant_suit_ratio: 0.25,
        rank_clusters: 2,
        avg_flockability: 2.5,
        depth1_ratio: Some(0.5),
        depth2_ratio: None,
        depth3_ratio: None,
        halfway_ratio: Some(n as f64 / 1024.0),
        midgame_tension: None,
        playout_win_rate: None,
        greedy_wins: Some(n.is_multiple_of(2)),
        mcts_budget: None,
    }
}

/// Candidate `k`: FreeCell deal `k` (distinct deals are distinct puzzles),
/// with a trace of 3 MiB of text when `big`. Its numbers are exact in
/// binary, so the JSON reads back equal.
pub fn candidate(k: u64, big: bool) -> Candidate {
    let steps = if big { BIG / 6 } else { 1 };
    Candidate {
        puzzle: to_compact(&deal(k as i32)),
        n: 16,
        rows: 4,
        cols: 4,
        energy_name: "E5".into(),
        energy_id: "E5-00000000".into(),
        energy: k as f64,
        search_energy: k as f64,
        features: features(k as usize),
        seed: 7,
        index: k as usize,
        params: SearchParams::paper(16),
        trace: (0..steps)
            .map(|i| k as f64 + (i % 64) as f64 / 4.0)
            .collect(),
        evaluations: k as usize,
        seconds: 0.5,
        created: "2026-11-22T00:00:00Z".into(),
        source: Source::Generated,
    }
}

/// Version `k` of an energy file: one energy whose `about` names the
/// version, padded to tens of kilobytes (a length of its own per version).
pub fn energy_text(k: u64) -> String {
    let pad = format!("# version {k}: padding so the write takes a while\n");
    format!(
        "{}[[energy]]\nname = \"Kill\"\nabout = \"version {k}\"\nvalue = \"{k} * n\"\n",
        pad.repeat(1000 + (k % 7) as usize * 50)
    )
}

/// Runs `boaf bench write`: writes rows `from..` through the real writer,
/// printing `writing K BYTES` before each call and `ack K` (or `dup K`, a
/// puzzle the store already had) after it returned.
pub fn write(args: WriteArgs) -> Result<ExitCode> {
    let file = &args.file;
    if args.hold {
        let _held = lock_path(file, true, LOCK_WAIT)
            .with_context(|| format!("locking {}", file.display()))?;
        println!("held");
        std::thread::sleep(Duration::from_secs(3600));
        return Ok(ExitCode::SUCCESS);
    }
    let ks = args.from..args.count.map_or(u64::MAX, |c| args.from + c);
    let big = |k: u64| k >= args.big_from;
    match args.writer {
        Writer::Ratings => {
            let (mut store, _) = RatingsStore::open(file)?;
            for k in ks {
                let r = rating(&args.tag, k, big(k));
                println!("writing {k} {}", store.row_bytes(&r)?.len());
                store.append(&r)?;
                println!("ack {k}");
            }
        }
        Writer::Store => {
            let (mut store, _) = PuzzleStore::open(file)?;
            for k in ks {
                let c = candidate(k, big(k));
                println!("writing {k} {}", serde_json::to_string(&c)?.len() + 1);
                let added = store
                    .add(&c)
                    .with_context(|| format!("{}", file.display()))?;
                println!("{} {k}", if added { "ack" } else { "dup" });
            }
        }
        Writer::Energy => {
            for k in ks {
                let text = energy_text(k);
                println!("writing {k} {}", text.len());
                boaf_core::durable::write_atomically(file, text.as_bytes())?;
                println!("ack {k}");
            }
        }
        Writer::Study | Writer::All => bail!("bench write writes ratings, store or energy"),
    }
    Ok(ExitCode::SUCCESS)
}

/// What the kill runs of one writer found.
#[derive(Default)]
struct Tally {
    runs: usize,
    acknowledged: usize,
    lost: BTreeSet<u64>,
    torn: usize,
    repaired: usize,
    corrupt: Vec<String>,
    temporaries: usize,
    mid_copy: usize,
}

/// The child being killed, killed anyway if the benchmark stops early.
struct Writing(Child);

impl Drop for Writing {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A temporary folder, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `boaf bench kill`.
pub fn bench_kill(args: BenchKillArgs) -> Result<ExitCode> {
    let mut writers: Vec<Writer> = Vec::new();
    for w in &args.writer {
        let each: &[Writer] = match w {
            Writer::All => &[
                Writer::Ratings,
                Writer::Store,
                Writer::Energy,
                Writer::Study,
            ],
            w => std::slice::from_ref(w),
        };
        for w in each {
            if !writers.contains(w) {
                writers.push(*w);
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("boaf-bench-kill-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let _scratch = Scratch(dir.clone());
    println!(
        "boaf bench kill: {} runs per writer, seed {}",
        args.runs, args.seed
    );
    let mut lines = Vec::new();
    let mut ok = true;
    for (i, &w) in writers.iter().enumerate() {
        let seed = args.seed.wrapping_add(i as u64);
        if w == Writer::Study {
            let line = study(args.runs, seed)?;
            ok &= line.0;
            lines.push(line.1);
            continue;
        }
        let t = kill_runs(w, &dir, args.runs, seed)?;
        for c in &t.corrupt {
            println!("{w:?}: CORRUPT: {c}");
        }
        ok &= t.lost.is_empty() && t.corrupt.is_empty();
        let extra = match w {
            Writer::Energy => format!(
                "; {} temporaries left by kills (hidden .writing siblings)",
                t.temporaries
            ),
            _ => String::new(),
        };
        lines.push(format!(
            "{}: {} runs, {} rows acknowledged, {} lost, {} torn tails seen, {} repaired, {} corrupt files; {} kills inside a row's copy{extra}",
            name(w),
            t.runs,
            t.acknowledged,
            t.lost.len(),
            t.torn,
            t.repaired,
            t.corrupt.len(),
            t.mid_copy,
        ));
    }
    for l in &lines {
        println!("{l}");
    }
    println!("{}", if ok { "all passed" } else { "FAILED" });
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn name(w: Writer) -> &'static str {
    match w {
        Writer::Ratings => "ratings",
        Writer::Store => "store",
        Writer::Energy => "energy",
        Writer::Study => "study",
        Writer::All => "all",
    }
}

/// The study database's kill runs (`boaf bench serve`'s), as one line.
#[cfg(feature = "serve")]
fn study(runs: usize, seed: u64) -> Result<(bool, String)> {
    let s = super::bench_serve::study_kill_runs(runs, seed)?;
    Ok((
        s.ok(),
        format!(
            "study: {runs} runs, {} ratings acknowledged, {} lost, torn tails n/a (SQLite's journal; {} half-written rows), {} corrupt databases",
            s.acknowledged, s.lost, s.half_written, s.corrupt
        ),
    ))
}

#[cfg(not(feature = "serve"))]
fn study(_runs: usize, _seed: u64) -> Result<(bool, String)> {
    Ok((
        true,
        "study: skipped (this boaf was built without the feature `serve`)".into(),
    ))
}

/// `runs` kill runs of one writer over one file, which carries over from
/// run to run (every row acknowledged in any run must stay).
fn kill_runs(w: Writer, dir: &Path, runs: usize, seed: u64) -> Result<Tally> {
    let named = |group: usize| {
        dir.join(match w {
            Writer::Ratings => format!("ratings-{group}.csv"),
            Writer::Store => format!("n16-E5-{group}.jsonl"),
            _ => format!("energies-{group}.toml"),
        })
    };
    let mut file = named(0);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut t = Tally::default();
    let mut acked: BTreeSet<u64> = BTreeSet::new();
    let mut next = 0u64;
    let exe = std::env::current_exe()?;
    for run in 1..=runs {
        if (run - 1) % RUNS_PER_FILE == 0 && run > 1 {
            std::fs::remove_file(&file)?;
            file = named((run - 1) / RUNS_PER_FILE);
            acked.clear();
        }
        let target = rng.random_range(1..=6u64);
        // Energy saves are whole-file renames: aimed by time only.
        let by_copy = w != Writer::Energy && rng.random_bool(0.5);
        let fraction = rng.random_range(0.02..0.98);
        let delay = Duration::from_micros(rng.random_range(0..3000));
        let mut child = Writing(
            Command::new(&exe)
                .args(["bench", "write", "--writer", name(w), "--file"])
                .arg(&file)
                .args(["--from", &next.to_string()])
                .args(["--big-from", &(next + target).to_string()])
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .context("starting boaf bench write")?,
        );
        let out = child.0.stdout.take().expect("a piped stdout");
        let mut lines = BufReader::new(out).lines();
        let (mut run_acks, mut last_writing) = (0u64, None);
        let mut killed = false;
        let mut moment = String::new();
        for line in lines.by_ref() {
            let line = line?;
            let mut words = line.split_whitespace();
            let (what, k) = (words.next(), words.next().and_then(|k| k.parse().ok()));
            match (what, k) {
                (Some("ack"), Some(k)) => {
                    acked.insert(k);
                    run_acks += 1;
                    t.acknowledged += 1;
                }
                (Some("writing"), Some(k)) => {
                    last_writing = Some(k);
                    if run_acks >= target {
                        let len: u64 = words.next().and_then(|b| b.parse().ok()).unwrap_or(0);
                        moment = if by_copy {
                            let inside = kill_at_growth(&file, len, fraction);
                            t.mid_copy += usize::from(inside);
                            format!(
                                "at {:.0}% of row {k}'s {len} bytes{}",
                                100.0 * fraction,
                                if inside { "" } else { " (its copy was over)" }
                            )
                        } else {
                            std::thread::sleep(delay);
                            format!("{} µs into row {k}", delay.as_micros())
                        };
                        child.0.kill()?;
                        killed = true;
                        break;
                    }
                }
                _ => {}
            }
        }
        // Lines printed before the kill are still in the pipe.
        for line in lines {
            let line = line?;
            let mut words = line.split_whitespace();
            match (words.next(), words.next().and_then(|k| k.parse().ok())) {
                (Some("ack"), Some(k)) => {
                    acked.insert(k);
                    run_acks += 1;
                    t.acknowledged += 1;
                }
                (Some("writing"), Some(k)) => last_writing = Some(k),
                _ => {}
            }
        }
        child.0.wait()?;
        if !killed {
            bail!("{w:?} run {run}: the writer stopped before it was killed");
        }
        t.runs += 1;
        let last = last_writing.context("the writer wrote nothing")?;
        next = last + 1;
        let (torn, lost, corrupt) = (t.torn, t.lost.len(), t.corrupt.len());
        match w {
            Writer::Ratings => check_ratings(&file, &acked, run, &mut t)?,
            Writer::Store => check_store(&file, &acked, run, &mut t)?,
            _ => check_energy(&file, acked.last().copied(), last, run, &mut t),
        }
        println!(
            "{} run {run}: killed {moment}; {run_acks} acknowledged; torn tail {}, {} lost, {} corrupt",
            name(w),
            if t.torn > torn {
                "seen and repaired"
            } else {
                "none"
            },
            t.lost.len() - lost,
            t.corrupt.len() - corrupt
        );
    }
    if w == Writer::Energy {
        t.temporaries = std::fs::read_dir(dir)?
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".writing"))
            })
            .count();
    }
    Ok(t)
}

/// Waits until `file` has grown by `fraction` of a row of `len` bytes, then
/// returns (the caller kills). Whether it saw the row part-way: a kill then
/// lands inside the row's copy.
fn kill_at_growth(file: &Path, len: u64, fraction: f64) -> bool {
    let size = || std::fs::metadata(file).map_or(0, |m| m.len());
    let start = size();
    let aim = start + (len as f64 * fraction) as u64;
    let began = Instant::now();
    while began.elapsed() < Duration::from_secs(10) {
        let now = size();
        if now >= aim || now < start {
            return now < start + len;
        }
        std::hint::spin_loop();
    }
    false
}

/// Checks the ratings file after a kill: every acknowledged row is there
/// and whole, every row reads, and a torn tail is reported by the reader and
/// repaired by the next open.
fn check_ratings(file: &Path, acked: &BTreeSet<u64>, run: usize, t: &mut Tally) -> Result<()> {
    let table = read_ratings(file)?;
    let torn = table.torn_at.is_some();
    t.torn += usize::from(torn);
    let mut seen = HashSet::new();
    for (i, row) in table.rows.iter().enumerate() {
        let puzzle = table.text(i, "puzzle").unwrap_or_default();
        let Some(k) = puzzle.strip_prefix("kill-").and_then(|k| k.parse().ok()) else {
            t.corrupt
                .push(format!("run {run}: row {i} is {:.60?}", row));
            continue;
        };
        let notes = table.notes(i).unwrap_or_default();
        let want = rating("kill", k, notes.len() > 1000);
        if notes != want.notes
            || table.number(i, "rating") != Some(want.rating)
            || table.number(i, "moves") != Some(k as f64)
            || table.text(i, "timestamp") != Some(want.timestamp.as_str())
            || !seen.insert(k)
        {
            t.corrupt
                .push(format!("run {run}: row {k} is not as written, or twice"));
        }
    }
    let skipped = table.skipped.len() - usize::from(torn);
    if skipped > 0 {
        t.corrupt.push(format!(
            "run {run}: {skipped} rows do not read: {:?}",
            table.skipped
        ));
    }
    t.lost.extend(acked.iter().filter(|k| !seen.contains(k)));
    let (_, repair) = RatingsStore::open(file)?;
    t.repaired += usize::from(repair.is_some());
    let after = read_ratings(file)?;
    if repair.is_some() != torn || !after.skipped.is_empty() || after.rows != table.rows {
        t.corrupt.push(format!(
            "run {run}: the open after the kill repaired {repair:?} (torn: {torn}), then {} rows and {:?}",
            after.rows.len(),
            after.skipped
        ));
    }
    Ok(())
}

/// Checks the puzzle store after a kill, as [`check_ratings`] does.
fn check_store(file: &Path, acked: &BTreeSet<u64>, run: usize, t: &mut Tally) -> Result<()> {
    let bytes = std::fs::read(file)?;
    let (cands, skipped) = parse_store_bytes(&bytes);
    let torn = skipped.last().is_some_and(|s| s.torn);
    t.torn += usize::from(torn);
    if skipped.len() > usize::from(torn) {
        t.corrupt
            .push(format!("run {run}: lines that do not read: {skipped:?}"));
    }
    let mut seen = HashSet::new();
    for c in &cands {
        let k = c.index as u64;
        if *c != candidate(k, c.trace.len() > 1) || !seen.insert(k) {
            t.corrupt
                .push(format!("run {run}: puzzle {k} is not as written, or twice"));
        }
    }
    t.lost.extend(acked.iter().filter(|k| !seen.contains(k)));
    let (_, reported) = PuzzleStore::open(file)?;
    let repaired = reported.last().is_some_and(|s| s.torn);
    t.repaired += usize::from(repaired);
    let (again, skipped_after) = parse_store_bytes(&std::fs::read(file)?);
    if repaired != torn || !skipped_after.is_empty() || again != cands {
        t.corrupt.push(format!(
            "run {run}: the open after the kill reported {reported:?} (torn: {torn}), then {} puzzles and {skipped_after:?}",
            again.len()
        ));
    }
    Ok(())
}

/// Checks the energy file after a kill: exactly one whole version, the
/// newest acknowledged or the one being written (every run acknowledges
/// one before its kill), and it reads as an energy file. An older whole
/// version is a lost save.
fn check_energy(file: &Path, newest: Option<u64>, writing: u64, run: usize, t: &mut Tally) {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let reads = EnergyBook::parse(&text, &file.display().to_string()).is_ok();
    let is = |v: &u64| text == energy_text(*v);
    let newest = newest.unwrap_or(writing);
    if reads && [newest, writing].iter().any(is) {
        return;
    }
    if reads && (0..newest).any(|v| is(&v)) {
        t.lost.insert(newest);
    } else {
        t.corrupt.push(format!(
            "run {run}: the file is neither version {newest} nor {writing} whole (reads: {reads})"
        ));
    }
}
