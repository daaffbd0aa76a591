//! The engine's commands: `solve`, `deals`, `analyze`, `halfway` and `deal`.

use super::input::{
    BatchFile, Bytes, StateInput, all_cores, bar, explain, median, parse_input, pool, range_arg,
    read_state, timed_bar,
};
use anyhow::Result;
use boaf_core::agents::difficulty::add_difficulty;
use boaf_core::engine::analysis::{AnalysisOptions, Depth, DepthCount, Progress};
use boaf_core::engine::deal::{deal, deal_on};
use boaf_core::engine::feature::{Feature, FeatureSet};
use boaf_core::engine::features::{Features, features};
use boaf_core::engine::halfway::{Told, halfway_told};
use boaf_core::engine::limits::{ANALYSIS_CAP, Limits, SOLVE_CAP, SearchError};
use boaf_core::engine::notation::{to_compact, to_grid};
use boaf_core::engine::solver::{Solver, Verdict};
use boaf_core::engine::state::{Grid, Move, State};
use boaf_core::format;
use boaf_core::parallel;
use clap::Args;
use serde::Serialize;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Arguments of `boaf solve`.
#[derive(Args)]
pub struct SolveArgs {
    #[command(flatten)]
    input: StateInput,
    /// Solve one state per line of FILE ('-' for standard input) and print
    /// STATE,1 (solvable) or STATE,0. A trailing ',label' on a line is ignored.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["state", "deal"])]
    batch: Option<String>,
    /// Print JSON
    #[arg(long)]
    json: bool,
    /// Memory the solver's tables may use, e.g. 512M or 4G
    #[arg(long, default_value_t = Bytes(SOLVE_CAP))]
    memory_cap: Bytes,
}

/// Arguments of `boaf deals`.
#[derive(Args)]
pub struct DealsArgs {
    /// Deal numbers A..B, A included and B excluded; negatives allowed (e.g. -5..5)
    #[arg(allow_hyphen_values = true, value_parser = range_arg)]
    range: (i64, i64),
    /// Worker threads (default: every core)
    #[arg(long)]
    threads: Option<usize>,
    /// Print JSON
    #[arg(long)]
    json: bool,
    /// Memory each thread's solver tables may use, e.g. 512M or 4G
    #[arg(long, default_value_t = Bytes(SOLVE_CAP))]
    memory_cap: Bytes,
}

/// Arguments of `boaf analyze`.
#[derive(Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    input: StateInput,
    #[command(flatten)]
    run: AnalysisRun,
    /// Also let agents play it for the difficulty features: the share of
    /// 10 000 random playouts that win, whether greedy wins, and the
    /// smallest MCTS budget that wins 4 of 5 games (about a second at most on
    /// the 16-card puzzles measured)
    #[arg(long)]
    difficulty: bool,
    /// Print JSON
    #[arg(long)]
    json: bool,
    /// Print time and peak memory as JSON on standard error (for benchmarks)
    #[arg(long, hide = true)]
    stats: bool,
}

/// How deep and with what resources an analysis runs (for `analyze` and its benchmark).
#[derive(Args)]
pub struct AnalysisRun {
    /// Deepest depth to count (default: to one stack). The features' depths
    /// (3 and the halfway depth) are always included.
    #[arg(long)]
    pub depth: Option<usize>,
    /// Worker threads (default: every core). The table is the same on any
    /// number
    #[arg(long)]
    pub threads: Option<usize>,
    /// Memory the layers and tables may use, e.g. 512M or 4G
    #[arg(long, default_value_t = Bytes(ANALYSIS_CAP))]
    pub memory_cap: Bytes,
}

/// Move names along a path, each read off the state it is played in.
fn move_names(state: &State, path: &[Move]) -> Vec<String> {
    let mut s = state.clone();
    path.iter()
        .map(|&mv| {
            let name = s.move_name(mv);
            s = s.apply(mv).expect("solver paths are legal");
            name
        })
        .collect()
}

#[derive(Serialize)]
struct SolveReport {
    state: String,
    solvable: bool,
    moves: Vec<String>,
    class: Option<String>,
}

/// Runs `boaf solve`.
pub fn solve(args: SolveArgs) -> Result<ExitCode> {
    if let Some(file) = &args.batch {
        return solve_batch(file, args.input.grid, args.memory_cap);
    }
    let state = read_state(&args.input)?;
    let verdict = Solver::new(Limits::with_cap(args.memory_cap.fitted(1))).solve(&state)?;
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
        println!("solvable in {}", format::plural(report.moves.len(), "move"));
        println!("{}", report.moves.join(" "));
    } else {
        match report.class {
            Some(c) => println!("unsolvable: {c}"),
            None => println!(
                "unsolvable (by exhaustive search or the table of merges; no single class proves it)"
            ),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One state per line; bad lines are reported with their line number and skipped.
fn solve_batch(file: &str, grid: Option<Grid>, memory_cap: Bytes) -> Result<ExitCode> {
    let mut batch = BatchFile::open(file)?;
    let pb = bar(batch.size(), "solving");
    let mut solver = Solver::new(Limits::with_cap(memory_cap.fitted(1)));
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut bad = 0;
    while let Some(line) = batch.next() {
        let line = line?;
        pb.set_position(batch.bytes_read());
        match line.state(grid) {
            Ok(state) => {
                let solvable = solver.solve(&state)?.is_solvable();
                writeln!(out, "{},{}", to_compact(&state), solvable as u8)?;
            }
            Err(e) => {
                bad += 1;
                pb.suspend(|| eprintln!("{file}:{}:{}: {}", line.number, e.column, e.kind));
            }
        }
    }
    pb.finish_and_clear();
    out.flush()?;
    if bad > 0 {
        eprintln!("boaf: {} could not be read", format::plural(bad, "line"));
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `boaf deals`.
pub fn deals(args: DealsArgs) -> Result<ExitCode> {
    let threads = args.threads.unwrap_or_else(all_cores);
    let report = check_deals(args.range, threads, args.memory_cap)?;
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

/// The outcome of checking a range of deals.
#[derive(Serialize)]
pub struct DealsReport {
    start: i64,
    end: i64,
    threads: usize,
    solvable: usize,
    unsolvable: Vec<i64>,
    /// Mean time per deal, in milliseconds.
    pub mean_ms: f64,
    median_ms: f64,
    wall_seconds: f64,
}

impl DealsReport {
    /// The report's last line.
    pub fn summary(&self) -> String {
        format!(
            "deals {}..{}: {} solvable, {} unsolvable; per deal mean {:.4} ms, median {:.4} ms; {}, {:.2} s wall",
            self.start,
            self.end,
            self.solvable,
            self.unsolvable.len(),
            self.mean_ms,
            self.median_ms,
            format::plural(self.threads, "thread"),
            self.wall_seconds
        )
    }
}

/// Solves every deal in the range on `threads` threads, timing each.
pub fn check_deals(
    (start, end): (i64, i64),
    threads: usize,
    memory_cap: Bytes,
) -> Result<DealsReport> {
    let threads = threads.max(1);
    let deals: Vec<i64> = (start..end).collect();
    let count = deals.len();
    let pb = bar(count as u64, "deals");
    let wall = Instant::now();
    let pool = pool(threads);
    // Each thread keeps its solver, whose tables are reused deal to deal.
    let cap = memory_cap.fitted(threads);
    let solver = || Solver::new(Limits::with_cap(cap));
    let results = parallel::map_with(pool.as_ref(), &deals, solver, |solver, &n| {
        let t = Instant::now();
        let solvable = solver.solve(&deal(n as i32))?.is_solvable();
        pb.inc(1);
        Ok((n, t.elapsed(), solvable))
    });
    let results: Vec<(i64, Duration, bool)> = results.into_iter().collect::<Result<_>>()?;
    pb.finish_and_clear();
    let wall = wall.elapsed();
    let unsolvable: Vec<i64> = results.iter().filter(|r| !r.2).map(|r| r.0).collect();
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

#[derive(Serialize)]
struct AnalyzeReport<'a> {
    state: String,
    depths: &'a [DepthCount],
    halfway_ratio: Option<f64>,
    features: &'a Features,
}

/// Runs `boaf analyze`.
pub fn analyze(args: AnalyzeArgs) -> Result<ExitCode> {
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
        depth: args.run.depth.map_or(Depth::Last, Depth::To),
        threads: args.run.threads.unwrap_or_else(all_cores).max(1),
        limits: Limits::with_cap(args.run.memory_cap.fitted(1)),
        progress: Some(hook),
    };
    let (mut features, analysis) = features(&state, &opts)?;
    if args.difficulty {
        pb.set_message("agents playing");
        add_difficulty(&mut features, &state, FeatureSet::DIFFICULTY, &opts.limits)?;
    }
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
            args.difficulty,
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

/// Prints the analysis; `played` says whether the agents played it for the
/// difficulty features (else they read "(--difficulty)").
fn print_analysis(
    state: &State,
    depths: &[DepthCount],
    f: &Features,
    halfway: usize,
    played: bool,
) {
    println!(
        "{}  ({} stacks)\n{}\n",
        to_compact(state),
        state.stack_count(),
        to_grid(state)
    );
    println!("depth       states     solvable   unsolvable    ratio  tension");
    for d in depths {
        println!(
            "{:>5} {:>12} {:>12} {:>12}  {:.5}  {:>7}",
            d.depth,
            d.states,
            d.solvable,
            d.states - d.solvable,
            d.ratio(),
            format::fixed(d.tension, 4)
        );
    }
    let number = |v| format::decimals(v, 6);
    println!(
        "\nhalfway ratio (depth {halfway}): {}",
        number(f.halfway_ratio)
    );
    println!("midgame tension: {}\n\nfeatures", number(f.midgame_tension));
    for feature in Feature::ALL {
        let value = match f.get(feature) {
            None if FeatureSet::DIFFICULTY.contains(feature) && !played => {
                "(--difficulty)".to_string()
            }
            // A budget beyond the ladder reads as such, not as its stand-in.
            Some(v) if feature == Feature::MctsBudget => feature.show(Some(v)),
            v => number(v),
        };
        println!("  {:<20} {value}", feature.column());
    }
}

/// Peak resident memory of this process (Linux), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Runs `boaf deal`.
pub fn show_deal(number: i32) -> Result<ExitCode> {
    let s = deal(number);
    // Written, not printed, so that `boaf deal 1 | head -1` ends quietly.
    writeln!(std::io::stdout(), "{}\n{}", to_compact(&s), to_grid(&s))?;
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `boaf halfway`.
#[derive(Args)]
pub struct HalfwayArgs {
    /// The states (see below); '-' reads one state per line from standard input
    states: Vec<String>,
    /// Also the deal with this number (on --grid if given); may be repeated
    #[arg(long, allow_negative_numbers = true)]
    deal: Vec<i32>,
    /// Also one state per line of FILE ('-' for standard input). Blank lines,
    /// '#' comments and a trailing ',label' are ignored
    #[arg(long, value_name = "FILE")]
    batch: Option<String>,
    /// The grid of compact states that are not 4x4, written RxC (e.g. 3x5)
    #[arg(long, value_parser = super::input::grid_arg)]
    grid: Option<Grid>,
    /// Memory each puzzle's tables may use, e.g. 512M or 4G
    #[arg(long, default_value_t = Bytes(ANALYSIS_CAP))]
    memory_cap: Bytes,
    /// Print one JSON object per puzzle and line
    #[arg(long)]
    json: bool,
    /// Also compute the midgame tension (a look at every move of every
    /// solvable state at the halfway depth; it takes longer and more memory)
    #[arg(long)]
    tension: bool,
    /// Threads each puzzle's counts use (default: every core; at most 64
    /// work). The counts are the same on any number
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// Print the peak memory as JSON on standard error (for benchmarks)
    #[arg(long, hide = true)]
    stats: bool,
}

/// One line of `boaf halfway --json`.
#[derive(Serialize)]
struct HalfwayReport {
    state: String,
    depth: usize,
    halfway_ratio: f64,
    solvable: u64,
    states: u64,
    /// Only with `--tension` (null when no solvable state has a move).
    #[serde(skip_serializing_if = "Option::is_none")]
    midgame_tension: Option<Option<f64>>,
    seconds: f64,
}

/// Runs `boaf halfway`.
pub fn halfway(args: HalfwayArgs) -> Result<ExitCode> {
    // Puzzles in the order given: states, then deals, then the batch file.
    let mut puzzles: Vec<(String, std::result::Result<State, String>)> = Vec::new();
    for arg in &args.states {
        if arg == "-" {
            read_lines("-", args.grid, &mut puzzles)?;
        } else {
            let parsed = parse_input(arg, args.grid).map_err(|e| explain(arg, &e));
            puzzles.push((arg.clone(), parsed));
        }
    }
    for &n in &args.deal {
        puzzles.push((
            format!("deal {n}"),
            Ok(deal_on(n, args.grid.unwrap_or(Grid::SQUARE4))),
        ));
    }
    if let Some(file) = &args.batch {
        read_lines(file, args.grid, &mut puzzles)?;
    }
    if puzzles.is_empty() {
        anyhow::bail!("give STATEs, --deal N or --batch FILE (see --help)");
    }
    let limits = Limits::with_cap(args.memory_cap.fitted(1));
    let threads = args.threads.map_or_else(all_cores, usize::from);
    let pb = timed_bar(puzzles.len() as u64, "puzzles");
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let (mut bad, mut capped) = (0, 0);
    for (source, parsed) in &puzzles {
        let state = match parsed {
            Ok(s) => s,
            Err(e) => {
                bad += 1;
                pb.suspend(|| eprintln!("{source}: bad state: {e}"));
                pb.inc(1);
                continue;
            }
        };
        // One puzzle can take many seconds: its steps (the count, each
        // depth of the walk back, the tension) show as they end.
        pb.set_message(format!("{source}: counting states and walking back"));
        let hook = |told: Told| pb.set_message(format!("{source}: {told}"));
        let started = Instant::now();
        let told = halfway_told(state, args.tension, threads, &limits, Some(&hook));
        pb.inc(1);
        let h = match told {
            Ok(h) => h,
            // One puzzle too large for the cap does not end the batch.
            Err(e @ SearchError::MemoryCap { .. }) => {
                capped += 1;
                pb.suspend(|| eprintln!("{source}: {e}"));
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let report = HalfwayReport {
            state: to_compact(state),
            depth: h.depth,
            halfway_ratio: h.ratio(),
            solvable: h.solvable,
            states: h.halfway_states(),
            midgame_tension: args.tension.then_some(h.tension),
            seconds: started.elapsed().as_secs_f64(),
        };
        let line = if args.json {
            serde_json::to_string(&report)?
        } else {
            let tension = report
                .midgame_tension
                .map(|t| format!("  tension {}", format::fixed(t, 4)))
                .unwrap_or_default();
            format!(
                "{}  halfway ratio {} = {} / {} (depth {}){tension}  {:.3} s",
                report.state,
                format::decimals(Some(report.halfway_ratio), 6),
                format::count(report.solvable),
                format::count(report.states),
                report.depth,
                report.seconds
            )
        };
        // Written with the bar out of the way, so that on a terminal the
        // line does not land on the bar's.
        pb.suspend(|| writeln!(out, "{line}").and_then(|()| out.flush()))?;
    }
    pb.finish_and_clear();
    if args.stats {
        eprintln!("{}", serde_json::json!({ "peak_rss_bytes": peak_rss() }));
    }
    if bad > 0 {
        eprintln!("boaf: {} could not be read", format::plural(bad, "state"));
    }
    if capped > 0 {
        eprintln!(
            "boaf: {} met the memory cap\n{}",
            format::plural(capped, "puzzle"),
            super::cap_hint()
        );
    }
    Ok(if bad + capped > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Reads one state per line of a file ('-' for standard input), each with
/// its `FILE:LINE` and the parse error's column when it does not read.
fn read_lines(
    file: &str,
    grid: Option<Grid>,
    into: &mut Vec<(String, std::result::Result<State, String>)>,
) -> Result<()> {
    for line in BatchFile::open(file)? {
        let line = line?;
        let parsed = line
            .state(grid)
            .map_err(|e| format!("column {}: {}", e.column, e.kind));
        into.push((format!("{file}:{}", line.number), parsed));
    }
    Ok(())
}
