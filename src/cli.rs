//! Command-line front end: argument parsing, input reading, output formats,
//! progress bars and benchmarks. All game logic is in the library.

use anyhow::{Context, Result, bail};
use boaf::analysis::{AnalysisOptions, DepthCount, Progress};
use boaf::deal::{deal, deal_on};
use boaf::features::{Features, features};
use boaf::notation::{ParseError, parse_grid, parse_state, to_compact, to_grid};
use boaf::solver::{Limits, Solver, Verdict};
use boaf::state::{Grid, State};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::io::{BufRead, IsTerminal, Read, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const STATE_HELP: &str = "\
STATES are written in the research notation: 2 characters per cell, row by row
(rank A23456789TJQK, suit CDHS), '--' or '..' for an empty cell, e.g.
  TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S
or as a grid with rows split by '/' or new lines:
  '-- -- KH -- / 2S -- JD QC / -- -- TS JS / -- -- 3C --'
A state that starts with '--' can be written with '..' instead, given after
'--' on the command line, or read from standard input with '-'.";

/// Design and check Birds of a Feather solitaire puzzles.
#[derive(Parser)]
#[command(name = "boaf", version, after_help = STATE_HELP)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Solve a state: solvable or not, a solution, and the class that proves unsolvability
    #[command(after_help = STATE_HELP)]
    Solve(SolveArgs),
    /// Check FreeCell-numbered deals A..B (B excluded) and list the unsolvable ones
    Deals(DealsArgs),
    /// Count distinct and solvable states at every depth, with the ratios and all features
    #[command(after_help = STATE_HELP)]
    Analyze(AnalyzeArgs),
    /// Print a FreeCell-numbered deal in both notations
    Deal {
        /// The deal number (a 32-bit signed integer)
        #[arg(allow_negative_numbers = true)]
        number: i32,
    },
    /// Generate puzzles by hill descent over an energy, into a store file
    #[command(after_help = crate::gencli::GENERATE_HELP)]
    Generate(crate::gencli::GenerateArgs),
    /// List, filter and sort the puzzles of a store file
    Puzzles(crate::gencli::PuzzlesArgs),
    /// List the energies (built-in and from files) with their ids and definitions
    Energies(crate::gencli::EnergiesArgs),
    /// Fit ratings on features: the Regression panel's table
    #[command(after_help = crate::regcli::REGRESS_HELP)]
    Regress(crate::regcli::RegressArgs),
    /// Open the desktop app (what `boaf` does with no command)
    App,
    /// Measure the solver and the analysis (figures for the README)
    #[command(subcommand)]
    Bench(BenchCommand),
}

/// Opens the app, or explains why it cannot and points to the CLI.
fn open_app() -> ExitCode {
    const CLI: &str = "Everything also works from the command line; see `boaf --help`:
  boaf generate -n 8 --count 5      generate puzzles into puzzles/
  boaf puzzles puzzles/n8-E5.jsonl  list them
  boaf analyze <PUZZLE>             per-depth counts and features
  boaf regress ratings/example.csv  the regression table";
    let has_display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if cfg!(target_os = "linux") && !has_display {
        eprintln!(
            "boaf: no display to open the app on (DISPLAY and WAYLAND_DISPLAY are unset).\n\
             Run it on a desktop, or under a virtual display (xvfb-run cargo run --release).\n{CLI}"
        );
        return ExitCode::from(2);
    }
    match boaf::app::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("boaf: could not open the app's window: {e}\n{CLI}");
            ExitCode::from(2)
        }
    }
}

/// Where a state comes from.
#[derive(Args)]
struct StateInput {
    /// The state (see below), or '-' to read it from standard input
    #[arg(allow_hyphen_values = true)]
    state: Option<String>,
    /// Use the deal with this number instead of a state (on --grid if given)
    #[arg(long, allow_negative_numbers = true, conflicts_with = "state")]
    deal: Option<i32>,
    /// The grid of a compact state that is not 4x4, written RxC (e.g. 3x5)
    #[arg(long, value_parser = grid_arg)]
    grid: Option<Grid>,
}

#[derive(Args)]
struct SolveArgs {
    #[command(flatten)]
    input: StateInput,
    /// Solve one state per line of FILE ('-' for standard input) and print
    /// STATE,1 (solvable) or STATE,0. A trailing ',label' on a line is ignored.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["state", "deal"])]
    batch: Option<String>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct DealsArgs {
    /// Deal numbers A..B, A included and B excluded; negatives allowed (e.g. -5..5)
    #[arg(allow_hyphen_values = true, value_parser = range_arg)]
    range: (i64, i64),
    /// Worker threads (default: every core)
    #[arg(long)]
    threads: Option<usize>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct AnalyzeArgs {
    #[command(flatten)]
    input: StateInput,
    #[command(flatten)]
    run: AnalysisRun,
    /// Print JSON
    #[arg(long)]
    json: bool,
    /// Print time and peak memory as JSON on standard error (for benchmarks)
    #[arg(long, hide = true)]
    stats: bool,
}

/// How deep and with what resources an analysis runs (for `analyze` and its benchmark).
#[derive(Args)]
struct AnalysisRun {
    /// Deepest depth to count (default: to one stack). The features' depths
    /// (3 and the halfway depth) are always included.
    #[arg(long)]
    depth: Option<usize>,
    /// Worker threads
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Memory the layers and tables may use, e.g. 512M or 4G
    #[arg(long, default_value = "4G", value_parser = size_arg)]
    memory_cap: usize,
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Solvability of a range of deals, repeated; reports mean and median time per deal
    Deals {
        /// Deal numbers A..B
        #[arg(long, default_value = "0..10000", allow_hyphen_values = true, value_parser = range_arg)]
        range: (i64, i64),
        /// Worker threads
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Repetitions; the report gives the median run
        #[arg(long, default_value_t = 3)]
        runs: usize,
    },
    /// Exact per-depth analysis of each deal in a fresh process: time and peak memory
    Analyze {
        /// Deal numbers A..B
        #[arg(long, default_value = "0..10", allow_hyphen_values = true, value_parser = range_arg)]
        range: (i64, i64),
        #[command(flatten)]
        run: AnalysisRun,
    },
    /// The halfway estimator against the exact ratio on random solvable puzzles
    Estimate(crate::gencli::BenchEstimateArgs),
    /// Wall time per generated puzzle by card count and step budget
    Generate(crate::gencli::BenchGenerateArgs),
}

fn grid_arg(s: &str) -> Result<Grid, String> {
    parse_grid(s).map_err(|e| e.kind.to_string())
}

/// Parses `A..B` into a half-open range of 32-bit deal numbers (B may be 2^31).
fn range_arg(s: &str) -> Result<(i64, i64), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("'{s}' is not a range A..B (e.g. 0..10000)"))?;
    let num = |t: &str, what: &str| {
        t.trim()
            .parse::<i64>()
            .map_err(|_| format!("'{t}' is not a whole number (the {what} of {s})"))
    };
    let (a, b) = (num(a, "start")?, num(b, "end")?);
    if a < i32::MIN as i64 || b > i32::MAX as i64 + 1 {
        return Err(format!(
            "deal numbers are 32-bit: {}..{} at most",
            i32::MIN,
            i32::MAX as i64 + 1
        ));
    }
    if a >= b {
        return Err(format!("the range {s} is empty (A..B needs A < B)"));
    }
    Ok((a, b))
}

/// Parses a size like `512M`, `4G` or a number of bytes.
pub(crate) fn size_arg(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let (digits, mult) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 1usize << 10),
        Some('M') => (&t[..t.len() - 1], 1 << 20),
        Some('G') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    digits
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .map(|v| (v * mult as f64) as usize)
        .ok_or_else(|| format!("'{s}' is not a size (like 512M or 4G)"))
}

/// The offending line of `text` with a caret under the error's column.
fn explain(text: &str, e: &ParseError) -> String {
    let line = text.lines().nth(e.line.saturating_sub(1)).unwrap_or("");
    format!(
        "{e}\n  {line}\n  {}^",
        " ".repeat(e.column.saturating_sub(1))
    )
}

/// Reads the state an input names.
fn read_state(input: &StateInput) -> Result<State> {
    if let Some(n) = input.deal {
        return Ok(deal_on(n, input.grid.unwrap_or(Grid::SQUARE4)));
    }
    let arg = match input.state.as_deref() {
        Some(arg) => arg,
        None if std::io::stdin().is_terminal() => {
            bail!(
                "give a STATE, --deal N, or '-' to read the state from standard input (see --help)"
            )
        }
        None => "-",
    };
    let text = if arg == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading the state from standard input")?;
        s
    } else {
        arg.to_string()
    };
    parse_state(&text, input.grid).map_err(|e| anyhow::anyhow!("bad state: {}", explain(&text, &e)))
}

/// Move names along a path, each read off the state it is played in.
fn move_names(state: &State, path: &[boaf::Move]) -> Vec<String> {
    let mut s = state.clone();
    path.iter()
        .map(|&mv| {
            let name = s.move_name(mv);
            s = s.apply(mv).expect("solver paths are legal");
            name
        })
        .collect()
}

/// A progress bar on standard error when it is a terminal, hidden otherwise.
pub(crate) fn bar(len: u64, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<ExitCode> {
    let Some(command) = cli.command else {
        return Ok(open_app());
    };
    match command {
        Command::App => Ok(open_app()),
        Command::Regress(args) => crate::regcli::regress(args),
        Command::Solve(args) => solve(args),
        Command::Deals(args) => {
            let threads = args.threads.unwrap_or_else(default_threads);
            let report = check_deals(args.range, threads)?;
            let mut out = std::io::stdout().lock();
            if args.json {
                writeln!(out, "{}", serde_json::to_string(&report)?)?;
            } else {
                for n in &report.unsolvable {
                    writeln!(out, "{n}")?;
                }
                writeln!(out, "{}", report.summary())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Analyze(args) => analyze(args),
        Command::Deal { number } => {
            let s = deal(number);
            println!("{}\n{}", to_compact(&s), to_grid(&s));
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench(cmd) => bench(cmd),
        Command::Generate(args) => crate::gencli::generate(args),
        Command::Puzzles(args) => crate::gencli::puzzles(args),
        Command::Energies(args) => crate::gencli::energies(args),
    }
}

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[derive(Serialize)]
struct SolveReport {
    state: String,
    solvable: bool,
    moves: Vec<String>,
    class: Option<String>,
}

fn solve(args: SolveArgs) -> Result<ExitCode> {
    if let Some(file) = &args.batch {
        return solve_batch(file, args.input.grid);
    }
    let state = read_state(&args.input)?;
    let verdict = Solver::default().solve(&state)?;
    let report = SolveReport {
        state: to_compact(&state),
        solvable: verdict.is_solvable(),
        moves: match &verdict {
            Verdict::Solvable(path) => move_names(&state, path),
            Verdict::Unsolvable(_) => vec![],
        },
        class: match verdict {
            Verdict::Unsolvable(Some(c)) => Some(c.to_string()),
            _ => None,
        },
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else if report.solvable {
        println!("solvable in {} moves", report.moves.len());
        println!("{}", report.moves.join(" "));
    } else {
        match report.class {
            Some(c) => println!("unsolvable: {c}"),
            None => println!("unsolvable (by exhaustive search; no single class proves it)"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One state per line; bad lines are reported with their line number and skipped.
fn solve_batch(file: &str, grid: Option<Grid>) -> Result<ExitCode> {
    let reader: Box<dyn BufRead> = if file == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let f = std::fs::File::open(file).with_context(|| format!("opening {file}"))?;
        Box::new(std::io::BufReader::new(f))
    };
    let total = if file == "-" {
        0
    } else {
        std::fs::metadata(file).map_or(0, |m| m.len())
    };
    let pb = bar(total, "solving");
    let mut solver = Solver::default();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut bad = 0;
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("reading line {}", i + 1))?;
        pb.inc(line.len() as u64 + 1);
        // Untrimmed, so error columns count from the start of the line.
        let text = line.split(',').next().unwrap_or("");
        if text.trim().is_empty() || text.trim_start().starts_with('#') {
            continue;
        }
        match parse_state(text, grid) {
            Ok(state) => {
                let solvable = solver.solve(&state)?.is_solvable();
                writeln!(out, "{},{}", to_compact(&state), solvable as u8)?;
            }
            Err(e) => {
                bad += 1;
                pb.suspend(|| eprintln!("{file}:{}:{}: {}", i + 1, e.column, e.kind));
            }
        }
    }
    pb.finish_and_clear();
    out.flush()?;
    if bad > 0 {
        eprintln!("boaf: {bad} line(s) could not be read");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// The outcome of checking a range of deals.
#[derive(Serialize)]
struct DealsReport {
    start: i64,
    end: i64,
    threads: usize,
    solvable: usize,
    unsolvable: Vec<i64>,
    mean_ms: f64,
    median_ms: f64,
    wall_seconds: f64,
}

impl DealsReport {
    fn summary(&self) -> String {
        format!(
            "deals {}..{}: {} solvable, {} unsolvable; per deal mean {:.4} ms, median {:.4} ms; {} thread(s), {:.2} s wall",
            self.start,
            self.end,
            self.solvable,
            self.unsolvable.len(),
            self.mean_ms,
            self.median_ms,
            self.threads,
            self.wall_seconds
        )
    }
}

/// Solves every deal in the range on `threads` threads, timing each.
fn check_deals((start, end): (i64, i64), threads: usize) -> Result<DealsReport> {
    let threads = threads.max(1);
    let count = (end - start) as usize;
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(count));
    let pb = bar(count as u64, "deals");
    let wall = Instant::now();
    std::thread::scope(|s| -> Result<()> {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                s.spawn(|| -> Result<()> {
                    let mut solver = Solver::new(Limits::default());
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= count {
                            break;
                        }
                        let n = start + i as i64;
                        let t = Instant::now();
                        let solvable = solver.solve(&deal(n as i32))?.is_solvable();
                        mine.push((n, t.elapsed(), solvable));
                        pb.inc(1);
                    }
                    results.lock().unwrap().extend(mine);
                    Ok(())
                })
            })
            .collect();
        for w in workers {
            w.join().expect("deal worker panicked")?;
        }
        Ok(())
    })?;
    pb.finish_and_clear();
    let wall = wall.elapsed();
    let results = results.into_inner().unwrap();
    let mut unsolvable: Vec<i64> = results.iter().filter(|r| !r.2).map(|r| r.0).collect();
    unsolvable.sort();
    let mut times: Vec<f64> = results.iter().map(|r| r.1.as_secs_f64() * 1e3).collect();
    times.sort_by(f64::total_cmp);
    Ok(DealsReport {
        start,
        end,
        threads,
        solvable: count - unsolvable.len(),
        unsolvable,
        mean_ms: times.iter().sum::<f64>() / count as f64,
        median_ms: median(&times),
        wall_seconds: wall.as_secs_f64(),
    })
}

/// The median of sorted values.
fn median(sorted: &[f64]) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

#[derive(Serialize)]
struct AnalyzeReport<'a> {
    state: String,
    depths: &'a [DepthCount],
    halfway_ratio: Option<f64>,
    features: &'a Features,
}

fn analyze(args: AnalyzeArgs) -> Result<ExitCode> {
    let state = read_state(&args.input)?;
    let started = Instant::now();
    let stacks = state.stack_count();
    let pb = Arc::new(bar(2 * stacks.saturating_sub(1) as u64 + 1, "layers"));
    let hook = {
        let pb = pb.clone();
        Arc::new(move |p: Progress| {
            pb.set_length(p.of as u64);
            pb.set_position(p.done as u64);
            pb.set_message(format!("layers ({} states in the last)", p.states));
        })
    };
    let opts = AnalysisOptions {
        max_depth: Some(args.run.depth.unwrap_or(usize::MAX)),
        threads: args.run.threads.max(1),
        limits: Limits {
            memory_cap: args.run.memory_cap,
            cancel: None,
        },
        progress: Some(hook),
    };
    let (features, analysis) = features(&state, &opts)?;
    pb.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        let report = AnalyzeReport {
            state: to_compact(&state),
            depths: &analysis.depths,
            halfway_ratio: analysis.halfway_ratio(),
            features: &features,
        };
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print_analysis(
            &state,
            &analysis.depths,
            &features,
            analysis.halfway_depth(),
        );
        println!(
            "time {seconds:.3} s; peak layer and table memory {:.1} MB",
            analysis.peak_bytes as f64 / 1e6
        );
    }
    if args.stats {
        eprintln!(
            "{}",
            serde_json::json!({
                "seconds": seconds,
                "peak_rss_bytes": peak_rss(),
                "peak_table_bytes": analysis.peak_bytes,
            })
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn print_analysis(state: &State, depths: &[DepthCount], f: &Features, halfway: usize) {
    println!(
        "{}  ({} stacks)\n{}\n",
        to_compact(state),
        state.stack_count(),
        to_grid(state)
    );
    println!("depth       states     solvable   unsolvable    ratio  tension");
    for d in depths {
        let tension = d.tension.map_or("-".to_string(), |t| format!("{t:.4}"));
        println!(
            "{:>5} {:>12} {:>12} {:>12}  {:.5}  {:>7}",
            d.depth,
            d.states,
            d.solvable,
            d.states - d.solvable,
            d.ratio(),
            tension
        );
    }
    let opt = |v: Option<f64>| match v {
        None => "-".to_string(),
        Some(v) if v.fract() == 0.0 => format!("{v}"),
        Some(v) => format!("{v:.6}"),
    };
    println!(
        "\nhalfway ratio (depth {halfway}): {}",
        opt(f.halfway_ratio)
    );
    println!("midgame tension: {}\n\nfeatures", opt(f.midgame_tension));
    for name in Features::NAMES.iter() {
        println!("  {name:<20} {}", opt(f.value(name)));
    }
}

/// Peak resident memory of this process (Linux), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn bench(cmd: BenchCommand) -> Result<ExitCode> {
    match cmd {
        BenchCommand::Estimate(args) => return crate::gencli::bench_estimate(args),
        BenchCommand::Generate(args) => return crate::gencli::bench_generate(args),
        BenchCommand::Deals {
            range,
            threads,
            runs,
        } => {
            let mut reports = Vec::new();
            for run in 1..=runs.max(1) {
                let r = check_deals(range, threads)?;
                println!("run {run}: {}", r.summary());
                reports.push(r);
            }
            reports.sort_by(|a, b| a.mean_ms.total_cmp(&b.mean_ms));
            let mid = &reports[reports.len() / 2];
            println!("median run: {}", mid.summary());
        }
        BenchCommand::Analyze { range, run } => {
            let AnalysisRun {
                depth,
                threads,
                memory_cap,
            } = run;
            let exe = std::env::current_exe().context("finding the boaf binary")?;
            println!("deal   seconds   peak RSS MB   states at deepest depth");
            let mut times = Vec::new();
            let mut failed = 0;
            for n in range.0..range.1 {
                let mut cmd = std::process::Command::new(&exe);
                cmd.args([
                    "analyze",
                    "--json",
                    "--stats",
                    "--threads",
                    &threads.to_string(),
                ]);
                cmd.arg(format!("--deal={n}"));
                cmd.arg(format!("--memory-cap={memory_cap}"));
                if let Some(d) = depth {
                    cmd.arg(format!("--depth={d}"));
                }
                let out = cmd.output().context("running boaf analyze")?;
                if !out.status.success() {
                    // One failed deal (say, over the memory cap) is reported, not fatal.
                    println!(
                        "{n:>4}   failed: {}",
                        String::from_utf8_lossy(&out.stderr).trim()
                    );
                    failed += 1;
                    continue;
                }
                let stats: serde_json::Value = serde_json::from_str(
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .last()
                        .unwrap_or(""),
                )
                .context("reading the analysis statistics")?;
                let report: serde_json::Value = serde_json::from_slice(&out.stdout)?;
                let seconds = stats["seconds"].as_f64().unwrap_or(f64::NAN);
                let rss = stats["peak_rss_bytes"].as_f64().unwrap_or(f64::NAN) / 1e6;
                let deepest = report["depths"].as_array().and_then(|d| d.last()).cloned();
                let states = deepest.map_or(String::new(), |d| {
                    format!("{} (depth {})", d["states"], d["depth"])
                });
                println!("{n:>4} {seconds:>9.3} {rss:>13.1}   {states}");
                times.push(seconds);
            }
            times.sort_by(f64::total_cmp);
            println!(
                "median {:.3} s, mean {:.3} s, max {:.3} s over {} deals ({} thread(s)); {failed} failed",
                median(&times),
                times.iter().sum::<f64>() / times.len() as f64,
                times.last().copied().unwrap_or(f64::NAN),
                times.len(),
                threads
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn ranges_and_sizes() {
        assert_eq!(range_arg("0..10000"), Ok((0, 10000)));
        assert_eq!(range_arg("-5..5"), Ok((-5, 5)));
        assert_eq!(
            range_arg("2147483640..2147483648"),
            Ok((2147483640, 2147483648))
        );
        assert!(range_arg("0..2147483649").unwrap_err().contains("32-bit"));
        assert!(range_arg("5..5").unwrap_err().contains("empty"));
        assert!(
            range_arg("a..5")
                .unwrap_err()
                .contains("'a' is not a whole number")
        );
        assert!(range_arg("12").unwrap_err().contains("not a range"));
        assert_eq!(size_arg("512M"), Ok(512 << 20));
        assert_eq!(size_arg("4g"), Ok(4 << 30));
        assert_eq!(size_arg("1000"), Ok(1000));
        assert!(size_arg("-1G").is_err());
        assert!(size_arg("G").is_err());
    }

    #[test]
    fn median_of_even_and_odd() {
        assert_eq!(median(&[1.0, 2.0, 9.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 4.0, 9.0]), 3.0);
    }
}
