//! `boaf bench`: the benchmarks behind the README's figures (seed 000's
//! Table 1 for `bench best-first` among them), together in one place. Long
//! by design and kept out of `cargo test`.

use super::agents::split_deals;
use super::engine::{AnalysisRun, check_deals};
use super::generator::{find_energy, load_energies};
use super::input::{BatchFile, Bytes, all_cores, median, parallel_map, range_arg};
use anyhow::{Context, Result, anyhow, bail};
use boaf_core::agents::Weights;
use boaf_core::agents::search::{Order as SearchOrder, search};
use boaf_core::engine::deal::deal;
use boaf_core::engine::estimate::{EstimateOptions, estimate_halfway};
use boaf_core::engine::halfway::halfway;
use boaf_core::engine::limits::{BENCH_CAP, Limits, SOLVE_CAP, WORKER_CAP};
use boaf_core::engine::notation::to_compact;
use boaf_core::engine::solver::solve;
use boaf_core::engine::state::Grid;
use boaf_core::generator::batch::{Batch, Event, Order};
use boaf_core::generator::descent::{
    DEFAULT_ENERGY, SearchParams, paper_iterations, random_puzzle,
};
use boaf_core::generator::pipeline::{Candidate, Job};
use boaf_core::stats::spearman;
use clap::{Args, Subcommand};
use rand::SeedableRng;
use std::process::ExitCode;
use std::time::Instant;

/// The benchmarks.
#[derive(Subcommand)]
pub enum BenchCommand {
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
    /// The exact halfway ratio by the fast counts, each puzzle in a fresh process: time and peak memory
    Halfway(BenchHalfwayArgs),
    /// The halfway estimator against the exact ratio on random solvable puzzles
    Estimate(BenchEstimateArgs),
    /// Wall time per generated puzzle by card count and step budget
    Generate(BenchGenerateArgs),
    /// Quality per second of the search: median exact energy against time, per setting
    #[command(after_help = BENCH_SEARCH_HELP)]
    Search(BenchSearchArgs),
    /// Seed 000's Table 1: nodes the heuristic best-first search expands per deal, by moves weight, next to depth-first search
    BestFirst(BestFirstArgs),
    /// Continuous generation through the app's pipeline for a set time, printing the resident memory (RSS) as it goes
    Soak(super::bench_soak::BenchSoakArgs),
    /// The rating server on loopback: simulated raters' submissions (lost, duplicated, latency, rate), and kill -9 runs
    #[cfg(feature = "serve")]
    Serve(super::bench_serve::BenchServeArgs),
    /// Every writer killed with SIGKILL mid-write, 100 times each: rows acknowledged, lost, torn tails repaired, corrupt files
    Kill(super::bench_kill::BenchKillArgs),
    /// The writer `bench kill` kills (rows through the real writer, one `ack` line each)
    #[command(hide = true)]
    Write(super::bench_kill::WriteArgs),
}

/// More on `boaf bench search`, for `--help`.
pub const BENCH_SEARCH_HELP: &str = "\
Each setting is a comma-separated list of key=value, any of: steps,
halfway (exact, estimate, confirm), screen, warmup, uphill, swap-in,
restarts, samples, confirm.
Keys not given take the defaults of `boaf generate -n N`. Every setting
makes the same puzzles of the batch (--seed, --puzzles), one per worker
at a time, and reports the median exact energy of the results (each
recomputed from the puzzle by the fast exact counts) against the median
seconds per puzzle (one core each: keep --workers at or below the cores).

Example: boaf bench search -n 16 --setting steps=50,halfway=confirm \\
  --setting steps=1500 --setting steps=2500,screen=4";

/// Arguments of `boaf bench search`.
#[derive(Args)]
pub struct BenchSearchArgs {
    /// Cards per puzzle
    #[arg(short, long, default_value_t = 16)]
    n: usize,
    /// Energy to minimize
    #[arg(long, default_value = DEFAULT_ENERGY)]
    energy: String,
    /// A setting to measure, as key=value,... (repeatable; see below)
    #[arg(long = "setting", value_name = "SETTING", default_values_t = [
        "steps=50,halfway=confirm".to_string(),
        "steps=2500".to_string(),
    ])]
    settings: Vec<String>,
    /// Batch seed
    #[arg(long, default_value_t = 11)]
    seed: u64,
    /// Puzzles per setting
    #[arg(long, default_value_t = 4)]
    puzzles: usize,
    /// Worker threads
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Memory each worker's analyses may use
    #[arg(long, default_value_t = Bytes(WORKER_CAP))]
    memory_cap: Bytes,
}

/// Arguments of `boaf bench halfway`.
#[derive(Args)]
pub struct BenchHalfwayArgs {
    /// Deal numbers A..B
    #[arg(long, default_value = "0..10", allow_hyphen_values = true, value_parser = range_arg)]
    deals: (i64, i64),
    /// Files of more puzzles, one state per line (comma-separated); the
    /// default holds 20 puzzles of 16 cards from 400 E5 steps (seed 11)
    #[arg(
        long,
        default_value = "assets/bench/e5-400-steps.txt",
        value_delimiter = ','
    )]
    puzzles: Vec<String>,
    /// Memory each puzzle's tables may use
    #[arg(long, default_value_t = Bytes(BENCH_CAP))]
    memory_cap: Bytes,
}

/// Arguments of `boaf bench estimate`.
#[derive(Args)]
pub struct BenchEstimateArgs {
    /// Card counts to test, e.g. 13..16 (both ends included)
    #[arg(long, default_value = "13..16", value_parser = cards_arg)]
    cards: (usize, usize),
    /// Random solvable puzzles per card count
    #[arg(long, default_value_t = 25)]
    count: usize,
    /// Walks per estimate
    #[arg(long, default_value_t = EstimateOptions::default().samples)]
    samples: usize,
    /// Puzzles analysed at once
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Seed of the random puzzles
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Memory each exact analysis may use
    #[arg(long, default_value_t = Bytes(BENCH_CAP))]
    memory_cap: Bytes,
}

/// Arguments of `boaf bench generate`.
#[derive(Args)]
pub struct BenchGenerateArgs {
    /// Card counts, comma-separated
    #[arg(long, default_value = "4,6,8,10,12,14,16", value_delimiter = ',')]
    cards: Vec<usize>,
    /// Steps per puzzle: "paper" for the paper's budgets, or a number; comma-separated
    #[arg(long, default_value = "paper,2500", value_delimiter = ',')]
    iterations: Vec<String>,
    /// Energy
    #[arg(long, default_value = DEFAULT_ENERGY)]
    energy: String,
    /// Workers; each makes one puzzle, so the wall time is the time per puzzle
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Batch seed
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Memory each worker's analyses may use
    #[arg(long, default_value_t = Bytes(WORKER_CAP))]
    memory_cap: Bytes,
}

fn cards_arg(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("'{s}' is not a range of card counts like 13..16");
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let (a, b): (usize, usize) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim_start_matches('=')
            .trim()
            .parse()
            .map_err(|_| bad())?,
    );
    if a == 0 || a > b || b > 16 {
        return Err(bad());
    }
    Ok((a, b))
}

/// Runs a benchmark.
pub fn bench(cmd: BenchCommand) -> Result<ExitCode> {
    match cmd {
        BenchCommand::Estimate(args) => bench_estimate(args),
        BenchCommand::Generate(args) => bench_generate(args),
        BenchCommand::Deals {
            range,
            threads,
            runs,
        } => bench_deals(range, threads, runs),
        BenchCommand::Analyze { range, run } => bench_analyze(range, run),
        BenchCommand::Halfway(args) => bench_halfway(args),
        BenchCommand::Search(args) => bench_search(args),
        BenchCommand::BestFirst(args) => bench_best_first(args),
        BenchCommand::Soak(args) => super::bench_soak::bench_soak(args),
        #[cfg(feature = "serve")]
        BenchCommand::Serve(args) => super::bench_serve::bench_serve(args),
        BenchCommand::Kill(args) => super::bench_kill::bench_kill(args),
        BenchCommand::Write(args) => super::bench_kill::write(args),
    }
}

/// Search parameters for n cards: the defaults of `boaf generate`, changed
/// by a setting `key=value,...`.
pub fn parse_setting(n: usize, text: &str) -> Result<SearchParams> {
    // The benchmark times the search: the agents' difficulty features of
    // the results are left out, as before they existed.
    let mut params = SearchParams {
        difficulty: false,
        ..SearchParams::for_cards(n)
    };
    for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| anyhow!("'{pair}' in setting '{text}' is not key=value"))?;
        let value = value.trim();
        let number = || -> Result<f64> {
            value
                .parse::<f64>()
                .map_err(|_| anyhow!("{key}: '{value}' is not a number"))
        };
        let count = || -> Result<usize> {
            value
                .parse::<usize>()
                .map_err(|_| anyhow!("{key}: '{value}' is not a count"))
        };
        match key.trim() {
            "steps" => params.iterations = count()?,
            "halfway" => params.halfway_mode = value.parse().map_err(|e: String| anyhow!(e))?,
            "screen" => params.screen = number()?,
            "uphill" => params.uphill = number()?,
            "swap-in" => params.swap_in = number()?,
            "restarts" => params.restarts = count()?,
            "warmup" => params.warmup = number()?,
            "samples" => params.samples = count()?.max(1),
            "confirm" => params.confirm = count()?.max(1),
            other => bail!(
                "unknown key '{other}' in setting '{text}' (steps, halfway, screen, warmup, uphill, swap-in, restarts, samples, confirm)"
            ),
        }
    }
    params
        .check(n)
        .map_err(|m| anyhow!("setting '{text}': {m}"))?;
    Ok(params)
}

/// `bench search`: the median exact energy of the same puzzles under each
/// setting, against the median seconds a puzzle took.
fn bench_search(args: BenchSearchArgs) -> Result<ExitCode> {
    let loaded = load_energies(&[])?;
    let energy = find_energy(&loaded.book, &args.energy)?.clone();
    let settings: Vec<(String, SearchParams)> = args
        .settings
        .iter()
        .map(|t| Ok((t.clone(), parse_setting(args.n, t)?)))
        .collect::<Result<_>>()?;
    println!(
        "n = {}, energy {}, seed {}, {} puzzles a setting, {} workers; seconds are per puzzle (one core)",
        args.n,
        energy.id(),
        args.seed,
        args.puzzles,
        args.workers
    );
    println!(
        "{:<36} {:>10} {:>10} {:>14} {:>14}  exact energies",
        "setting", "median s", "max s", "median energy", "best energy"
    );
    let mut failed = false;
    for (text, params) in settings {
        let job = Job {
            n: args.n,
            energy: energy.clone(),
            seed: args.seed,
            params,
            indices: 0..args.puzzles,
            memory_cap: args.memory_cap.0,
        };
        let mut cands = Vec::new();
        let batch = Batch::start(job, args.workers, None, Order::Batch, None);
        let summary = batch.run(|e| match e {
            Event::Candidate(c) => cands.push(c.clone()),
            Event::Failed { index, message } => println!("puzzle {index} failed: {message}"),
            _ => {}
        });
        failed |= summary.failed > 0;
        cands.sort_by_key(|c| c.index);
        let listed: Vec<String> = cands.iter().map(|c| format!("{:.3e}", c.energy)).collect();
        let sorted = |f: fn(&Candidate) -> f64| {
            let mut v: Vec<f64> = cands.iter().map(|c| f(c)).collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let (seconds, energies) = (sorted(|c| c.seconds), sorted(|c| c.energy));
        let (s_med, e_med) = (median(&seconds), median(&energies));
        println!(
            "{text:<36} {:>10.1} {:>10.1} {:>14.3e} {:>14.3e}  {}",
            s_med,
            seconds.iter().copied().fold(0.0, f64::max),
            e_med,
            energies.iter().copied().fold(f64::INFINITY, f64::min),
            listed.join(" ")
        );
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `bench halfway`: each puzzle's exact halfway ratio by `boaf halfway` in a
/// fresh process, so that its peak memory is its own; medians per group.
fn bench_halfway(args: BenchHalfwayArgs) -> Result<ExitCode> {
    let exe = std::env::current_exe().context("finding the boaf binary")?;
    let mut groups: Vec<(String, Vec<String>)> = vec![(
        format!("deals {}..{}", args.deals.0, args.deals.1),
        (args.deals.0..args.deals.1)
            .map(|n| format!("--deal={n}"))
            .collect(),
    )];
    for file in &args.puzzles {
        let states = BatchFile::open(file)?
            .map(|line| Ok(line?.text.trim().to_string()))
            .collect::<Result<_>>()?;
        groups.push((file.clone(), states));
    }
    let mut peak_all = 0.0f64;
    let mut summaries = Vec::new();
    for (name, puzzles) in &groups {
        if puzzles.is_empty() {
            println!("{name}: no puzzles\n");
            continue;
        }
        println!(
            "{name}\npuzzle                              seconds   peak RSS MB   solvable / states"
        );
        let mut times = Vec::new();
        for arg in puzzles {
            let out = std::process::Command::new(&exe)
                .args(["halfway", "--json", "--stats"])
                .arg(format!("--memory-cap={}", args.memory_cap))
                .arg(arg)
                .output()
                .context("running boaf halfway")?;
            if !out.status.success() {
                println!(
                    "{arg:<34}  failed: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                );
                continue;
            }
            let stderr = String::from_utf8_lossy(&out.stderr);
            let stats: serde_json::Value =
                serde_json::from_str(stderr.lines().last().unwrap_or(""))
                    .context("reading the statistics")?;
            let report: serde_json::Value = serde_json::from_slice(&out.stdout)?;
            let seconds = report["seconds"].as_f64().unwrap_or(f64::NAN);
            let rss = stats["peak_rss_bytes"].as_f64().unwrap_or(f64::NAN) / 1e6;
            peak_all = peak_all.max(rss);
            println!(
                "{:<34} {seconds:>8.3} {rss:>13.1}   {} / {}",
                report["state"].as_str().unwrap_or(arg),
                report["solvable"],
                report["states"]
            );
            times.push(seconds);
        }
        times.sort_by(f64::total_cmp);
        let line = format!(
            "{name}: median {:.3} s, max {:.3} s over {}",
            median(&times),
            times.last().copied().unwrap_or(f64::NAN),
            boaf_core::format::plural(times.len(), "puzzle")
        );
        println!("{line}\n");
        summaries.push(line);
    }
    for line in summaries {
        println!("{line}");
    }
    println!("largest peak RSS {peak_all:.1} MB (one core, one process per puzzle)");
    Ok(ExitCode::SUCCESS)
}

/// `bench deals`: the deals' check, `runs` times; the median run.
fn bench_deals(range: (i64, i64), threads: usize, runs: usize) -> Result<ExitCode> {
    let mut reports = Vec::new();
    for run in 1..=runs.max(1) {
        let r = check_deals(range, threads, Bytes(SOLVE_CAP))?;
        println!("run {run}: {}", r.summary());
        reports.push(r);
    }
    reports.sort_by(|a, b| a.mean_ms.total_cmp(&b.mean_ms));
    let mid = &reports[reports.len() / 2];
    println!("median run: {}", mid.summary());
    Ok(ExitCode::SUCCESS)
}

/// `bench analyze`: each deal analysed by a fresh `boaf analyze` process, so
/// that its peak memory is its own.
fn bench_analyze(range: (i64, i64), run: AnalysisRun) -> Result<ExitCode> {
    let AnalysisRun {
        depth,
        threads,
        memory_cap,
    } = run;
    let threads = threads.unwrap_or_else(all_cores).max(1);
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
        "median {:.3} s, mean {:.3} s, max {:.3} s over {} deals ({}); {failed} failed",
        median(&times),
        times.iter().sum::<f64>() / times.len() as f64,
        times.last().copied().unwrap_or(f64::NAN),
        times.len(),
        boaf_core::format::plural(threads, "thread")
    );
    Ok(ExitCode::SUCCESS)
}

/// One puzzle of the estimator benchmark.
struct EstimateRow {
    n: usize,
    puzzle: String,
    exact: f64,
    estimate: f64,
    exact_s: f64,
    estimate_s: f64,
}

/// `bench estimate`: the halfway estimator against the exact ratio.
fn bench_estimate(args: BenchEstimateArgs) -> Result<ExitCode> {
    // The puzzles first, from one seeded stream: random cards in random
    // cells, kept if solvable.
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(args.seed);
    let mut puzzles = Vec::new();
    for n in args.cards.0..=args.cards.1 {
        let mut made = 0;
        while made < args.count {
            let p = random_puzzle(n, Grid::SQUARE4, &mut rng);
            if solve(&p)?.is_solvable() {
                puzzles.push(p);
                made += 1;
            }
        }
    }
    eprintln!(
        "{} solvable random puzzles, n = {}..={}, {} walks an estimate, {} at once",
        puzzles.len(),
        args.cards.0,
        args.cards.1,
        args.samples,
        args.threads
    );
    let limits = Limits::with_cap(args.memory_cap.0);
    let estimate_options = EstimateOptions {
        samples: args.samples,
        ..EstimateOptions::default()
    };
    // A puzzle that fails is reported with the others, not fatal.
    let done = parallel_map(&puzzles, args.threads, "exact and estimated", |p| {
        let t = Instant::now();
        // The exact ratio by the fast counts (equal to the full analysis's,
        // which the tests check).
        let exact = match halfway(p, false, &limits) {
            Ok(h) => h.ratio(),
            Err(e) => return Ok(Err(format!("{}: {e}", to_compact(p)))),
        };
        let exact_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let est = estimate_halfway(p, &estimate_options, &limits);
        let estimate_s = t.elapsed().as_secs_f64();
        Ok(match est {
            Ok(e) => Ok(EstimateRow {
                n: p.stack_count(),
                puzzle: to_compact(p),
                exact,
                estimate: e.ratio,
                exact_s,
                estimate_s,
            }),
            Err(e) => Err(format!("estimate: {e}")),
        })
    })?;
    let (mut rows, mut failures) = (Vec::new(), Vec::new());
    for d in done {
        match d {
            Ok(row) => rows.push(row),
            Err(failure) => failures.push(failure),
        }
    }
    rows.sort_by(|a, b| (a.n, &a.puzzle).cmp(&(b.n, &b.puzzle)));
    println!(" n  puzzle                              exact     estimate  exact s  estimate s");
    for r in &rows {
        println!(
            "{:>2}  {}  {:.6}  {:.6}  {:>7.3}  {:>10.4}",
            r.n, r.puzzle, r.exact, r.estimate, r.exact_s, r.estimate_s
        );
    }
    let summary = |label: String, sel: &[&EstimateRow]| {
        if sel.len() < 2 {
            return;
        }
        let x: Vec<f64> = sel.iter().map(|r| r.exact).collect();
        let y: Vec<f64> = sel.iter().map(|r| r.estimate).collect();
        let sorted = |f: &dyn Fn(&EstimateRow) -> f64| {
            let mut v: Vec<f64> = sel.iter().map(|r| f(r)).collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let rel = sorted(&|r| ((r.estimate - r.exact) / r.exact).abs());
        let mean = sel.iter().map(|r| r.estimate / r.exact).sum::<f64>() / sel.len() as f64;
        println!(
            "{label}: {} puzzles, Spearman {:.4}, median relative error {:.3}, mean estimate/exact {:.3}; median time exact {:.3} s, estimate {:.4} s",
            sel.len(),
            spearman(&x, &y),
            median(&rel),
            mean,
            median(&sorted(&|r| r.exact_s)),
            median(&sorted(&|r| r.estimate_s)),
        );
    };
    for n in args.cards.0..=args.cards.1 {
        let sel: Vec<&EstimateRow> = rows.iter().filter(|r| r.n == n).collect();
        summary(format!("n = {n}"), &sel);
    }
    let all: Vec<&EstimateRow> = rows.iter().collect();
    summary(format!("all n = {}..={}", args.cards.0, args.cards.1), &all);
    for f in &failures {
        println!("failed: {f}");
    }
    Ok(if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `bench generate`: wall time per puzzle by card count and budget, through
/// the same batch session as `boaf generate` (without a store).
fn bench_generate(args: BenchGenerateArgs) -> Result<ExitCode> {
    let loaded = load_energies(&[])?;
    let energy = find_energy(&loaded.book, &args.energy)?.clone();
    println!(
        "energy {}, {} workers, one puzzle each; wall time = time per puzzle",
        energy.id(),
        args.workers
    );
    println!(" n  steps  halfway    wall s  evaluations  mean energy");
    let mut failed = false;
    for budget in &args.iterations {
        for &n in &args.cards {
            let iterations = if budget == "paper" {
                paper_iterations(n)
            } else {
                budget
                    .parse()
                    .map_err(|_| anyhow!("'{budget}' is not a step count or 'paper'"))?
            };
            let params = SearchParams {
                iterations,
                // Timed as before the agents' features existed.
                difficulty: false,
                ..SearchParams::for_cards(n)
            };
            let job = Job {
                n,
                energy: energy.clone(),
                seed: args.seed,
                params: params.clone(),
                indices: 0..args.workers.max(1),
                memory_cap: args.memory_cap.0,
            };
            let mut cands = Vec::new();
            let batch = Batch::start(job, args.workers, None, Order::Arrival, None);
            let summary = batch.run(|e| match e {
                Event::Candidate(c) => cands.push(c.clone()),
                Event::Failed { index, message } => {
                    println!("{n:>2}  puzzle {index} failed: {message}");
                }
                _ => {}
            });
            failed |= summary.failed > 0;
            let evals: usize = cands.iter().map(|c| c.evaluations).sum();
            let mean_e = cands.iter().map(|c| c.energy).sum::<f64>() / cands.len().max(1) as f64;
            println!(
                "{n:>2}  {iterations:>5}  {:<8} {:>8.2}  {:>11}  {mean_e:.6}",
                params.halfway_mode.name(),
                summary.seconds,
                evals / cands.len().max(1),
            );
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Arguments of `boaf bench best-first`.
#[derive(Args)]
pub struct BestFirstArgs {
    /// Deal numbers A..B (B excluded); unsolvable ones are skipped
    #[arg(long, value_parser = range_arg, default_value = "0..10000")]
    deals: (i64, i64),
    /// The moves weights to try (the score's weight is 1)
    #[arg(long, value_delimiter = ',', default_value = "1.0,1.5,2.0,2.5,3.0,3.5")]
    moves_weights: Vec<f64>,
    /// Worker threads (default: every core)
    #[arg(long)]
    threads: Option<usize>,
}

/// `bench best-first`: seed 000's Table 1, nodes expanded per deal for each
/// moves weight, next to plain depth-first search.
pub fn bench_best_first(args: BestFirstArgs) -> Result<ExitCode> {
    let threads = args.threads.unwrap_or_else(all_cores).max(1);
    let (start, end) = args.deals;
    let (solvable, skipped) = split_deals(args.deals, threads)?;
    let mut orders: Vec<(String, SearchOrder, Option<f64>)> = args
        .moves_weights
        .iter()
        .map(|&w| {
            (
                format!("best-first, moves weight {w}"),
                SearchOrder::BestFirst(Weights {
                    score: 1.0,
                    moves: w,
                    lost: 0.0,
                }),
                Some(w),
            )
        })
        .collect();
    orders.push(("depth-first".into(), SearchOrder::DepthFirst, None));
    println!(
        "deals {start}..{end}: {} solvable ({} skipped as unsolvable); a node is expanded when its children are generated (the start counts, the goal does not; boards seen before are not added)",
        solvable.len(),
        skipped.len()
    );
    println!(
        "{:<30} {:>12} {:>10} {:>10}   paper",
        "search", "mean nodes", "median", "max"
    );
    let paper = |w: Option<f64>| match w {
        None => Some(5274.23),
        Some(w) => [
            (1.0, 387.43),
            (1.5, 197.80),
            (2.0, 117.84),
            (2.5, 102.85),
            (3.0, 128.68),
            (3.5, 185.96),
        ]
        .iter()
        .find(|(x, _)| (x - w).abs() < 1e-9)
        .map(|p| p.1),
    };
    for (name, order, w) in orders {
        let mut counts = parallel_map(&solvable, threads, &name, |&d| {
            let found = search(&deal(d as i32), order, &Limits::default())?;
            match found.solution {
                Some(_) => Ok(found.expanded as f64),
                None => bail!("deal {d}: the search found no solution"),
            }
        })?;
        counts.sort_by(f64::total_cmp);
        let mean = counts.iter().sum::<f64>() / counts.len().max(1) as f64;
        println!(
            "{:<30} {:>12.2} {:>10} {:>10}   {}",
            name,
            mean,
            median(&counts),
            counts.last().copied().unwrap_or(0.0),
            paper(w).map_or("-".to_string(), |p| format!("{p:.2}"))
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use boaf_core::generator::descent::{DEFAULT_SCREEN, DEFAULT_WARMUP, HalfwayMode};

    #[test]
    fn a_setting_changes_only_what_it_names() {
        let defaults = SearchParams {
            difficulty: false,
            ..SearchParams::for_cards(16)
        };
        assert_eq!(parse_setting(16, "").unwrap(), defaults);
        assert_eq!(defaults.iterations, 2500);
        assert_eq!(defaults.screen, DEFAULT_SCREEN);
        assert_eq!(defaults.warmup, DEFAULT_WARMUP);
        let p = parse_setting(
            16,
            "steps=2500, halfway=confirm,screen=0,warmup=0.0003,restarts=2",
        )
        .unwrap();
        assert_eq!(
            p,
            SearchParams {
                iterations: 2500,
                halfway_mode: HalfwayMode::Confirm,
                screen: 0.0,
                warmup: 0.0003,
                restarts: 2,
                ..defaults
            }
        );
    }

    #[test]
    fn a_bad_setting_says_what_is_wrong() {
        let err = |text: &str| parse_setting(16, text).unwrap_err().to_string();
        assert!(err("steps").contains("not key=value"), "{}", err("steps"));
        assert!(err("steps=many").contains("steps: 'many' is not a count"));
        assert!(err("speed=2").contains("unknown key 'speed'"));
        assert!(err("halfway=guess").contains("not a halfway mode"));
        assert!(err("screen=0.5").contains("the screen must be 0 (off) or at least 1"));
        assert!(err("uphill=2").contains("uphill probability must be in 0..1"));
        assert!(
            err("steps=10,restarts=10").contains("10 restarts need more steps than that, not 10")
        );
    }
}
