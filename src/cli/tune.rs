//! `boaf tune`: seed 003's genetic algorithm for the greedy agent's weights,
//! with the tuned weights checked against the defaults on held-out deals.

use super::agents::{read_weights, split_deals};
use super::input::{all_cores, bar, range_arg};
use anyhow::{Context, Result, bail};
use boaf_core::agents::Weights;
use boaf_core::agents::tune::{TuneOptions, greedy_wins_each, tune};
use boaf_core::durable::write_atomically;
use boaf_core::engine::deal::deal;
use boaf_core::engine::state::State;
use boaf_core::stats::{mcnemar_exact, wilson};
use clap::Args;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// More on `boaf tune`, for `--help`.
pub const TUNE_HELP: &str = "\
The genes are the greedy heuristic's weights: score (the sum of the squared
stack sizes), moves (legal moves after the move) and lost (1 when the
stranded-card or separated-flock class proves the position unsolvable).
An individual's fitness is the share of the solvable --train deals greedy
wins with its weights. Each generation keeps its fitter half, whose pairs
make the rest: the gene-wise average, each gene moved by up to --step with
probability --mutation × (1 − g/G). The best individual of any generation
is the result. It is then played on the --test deals beside seed 000's
weights (1.0, 2.5, 0), with McNemar's exact test on the deals only one of
them won. The same --seed gives the same result on any number of threads.
Save the weights with --out; `boaf agents --weights FILE` reads them.";

/// Arguments of `boaf tune`.
#[derive(Args)]
pub struct TuneArgs {
    /// Training deals A..B (B excluded); unsolvable ones are skipped
    #[arg(long, value_parser = range_arg, default_value = "0..1000")]
    train: (i64, i64),
    /// Held-out deals the result is tested on
    #[arg(long, value_parser = range_arg, default_value = "1000..10000")]
    test: (i64, i64),
    /// Individuals per generation
    #[arg(long, default_value_t = 40)]
    population: usize,
    /// Generations
    #[arg(long, default_value_t = 30)]
    generations: usize,
    /// The first generation's mutation rate per gene (it decays to 0)
    #[arg(long, default_value_t = 0.5)]
    mutation: f64,
    /// The largest change one mutation makes to a gene
    #[arg(long, default_value_t = 0.25)]
    step: f64,
    /// Bounds of every gene, LOW,HIGH
    #[arg(long, value_delimiter = ',', num_args = 2, default_values_t = [-10.0, 10.0], allow_negative_numbers = true)]
    bounds: Vec<f64>,
    /// Start from these weights (a TOML file) and mutations of them instead
    /// of random ones
    #[arg(long, value_name = "FILE")]
    start: Option<String>,
    /// Save the tuned weights to this TOML file
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// The seed of every draw
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads (default: every core)
    #[arg(long)]
    threads: Option<usize>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

/// One weight vector's figures on the held-out deals.
#[derive(Serialize)]
struct Tested {
    weights: Weights,
    train_win_rate: f64,
    test_wins: u64,
    /// Wins ÷ test games, as a fraction.
    test_win_rate: f64,
    wilson_low: f64,
    wilson_high: f64,
}

/// What `boaf tune` found.
#[derive(Serialize)]
struct TuneReport {
    train_deals: usize,
    test_deals: usize,
    population: usize,
    generations: usize,
    seed: u64,
    tuned: Tested,
    default: Tested,
    test: &'static str,
    only_tuned: u64,
    only_default: u64,
    p_value: f64,
    /// Each generation's best and mean fitness.
    history: Vec<(f64, f64)>,
    wall_seconds: f64,
}

fn deals_of(numbers: &[i64]) -> Vec<State> {
    numbers.iter().map(|&d| deal(d as i32)).collect()
}

/// Runs `boaf tune`.
pub fn tune_weights(args: TuneArgs) -> Result<ExitCode> {
    if args.population < 2 || args.generations == 0 {
        bail!("--population must be at least 2 and --generations at least 1");
    }
    if !(0.0..=1.0).contains(&args.mutation) || !(0.0..=f64::MAX).contains(&args.step) {
        bail!("--mutation must be a probability from 0 to 1 and --step at least 0");
    }
    let (low, high) = (args.bounds[0], args.bounds[1]);
    // Written so that a NaN bound is refused too, and the draws stay finite.
    if !(low < high && (high - low).is_finite()) {
        bail!("--bounds must be finite LOW,HIGH with LOW < HIGH, not {low},{high}");
    }
    if args.step > high - low {
        bail!(
            "--step must be at most the width of --bounds ({})",
            high - low
        );
    }
    let start = args.start.as_deref().map(read_weights).transpose()?;
    let threads = args.threads.unwrap_or_else(all_cores).max(1);
    let wall = Instant::now();
    let (train, _) = split_deals(args.train, threads)?;
    let (test, _) = split_deals(args.test, threads)?;
    if train.is_empty() || test.is_empty() {
        bail!("--train and --test must each hold a solvable deal");
    }
    let (train, test) = (deals_of(&train), deals_of(&test));
    let opts = TuneOptions {
        population: args.population,
        generations: args.generations,
        mutation: args.mutation,
        step: args.step,
        bounds: (low, high),
        start,
        seed: args.seed,
        threads,
    };
    let pb = bar(args.generations as u64, "generations");
    let tuned = tune(&train, &opts, |g| {
        pb.set_message(format!(
            "generation {}: best {:.2}%, mean {:.2}%",
            g.generation + 1,
            100.0 * g.best_fitness,
            100.0 * g.mean_fitness
        ));
        pb.inc(1);
    });
    pb.finish_and_clear();
    let on_test = |w: Weights| greedy_wins_each(w, &test);
    let (won_tuned, won_default) = (on_test(tuned.best), on_test(Weights::default()));
    let tested = |w: Weights, won: &[bool]| {
        let wins = won.iter().filter(|&&x| x).count() as u64;
        let (lo, hi) = wilson(wins, won.len() as u64, 0.95);
        Tested {
            weights: w,
            train_win_rate: boaf_core::agents::tune::fitness(w, &train),
            test_wins: wins,
            test_win_rate: wins as f64 / won.len() as f64,
            wilson_low: lo,
            wilson_high: hi,
        }
    };
    let only = |a: &[bool], b: &[bool]| a.iter().zip(b).filter(|&(x, y)| *x && !*y).count() as u64;
    let (only_tuned, only_default) = (
        only(&won_tuned, &won_default),
        only(&won_default, &won_tuned),
    );
    let report = TuneReport {
        train_deals: train.len(),
        test_deals: test.len(),
        population: args.population,
        generations: args.generations,
        seed: args.seed,
        tuned: tested(tuned.best, &won_tuned),
        default: tested(Weights::default(), &won_default),
        test: "McNemar exact (paired by deal), two-sided",
        only_tuned,
        only_default,
        p_value: mcnemar_exact(only_tuned, only_default),
        history: tuned
            .history
            .iter()
            .map(|g| (g.best_fitness, g.mean_fitness))
            .collect(),
        wall_seconds: wall.elapsed().as_secs_f64(),
    };
    if let Some(path) = &args.out {
        write_atomically(path, tuned.best.to_toml().as_bytes())
            .with_context(|| format!("saving the weights to {}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&report)?)?;
    } else {
        print_tune(&mut out, &report, args.out.as_ref())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_tune(out: &mut impl Write, r: &TuneReport, saved: Option<&PathBuf>) -> Result<()> {
    writeln!(
        out,
        "{} generations of {} on {} solvable training deals (seed {}), {:.1} s",
        r.generations, r.population, r.train_deals, r.seed, r.wall_seconds
    )?;
    writeln!(
        out,
        "{:<8} {:>8} {:>8} {:>8} {:>10} {:>10}  {:<18}",
        "weights", "score", "moves", "lost", "train", "test", "95% Wilson (test)"
    )?;
    for (name, t) in [("tuned", &r.tuned), ("default", &r.default)] {
        writeln!(
            out,
            "{:<8} {:>8.3} {:>8.3} {:>8.3} {:>9.2}% {:>9.2}%  [{:.2}, {:.2}]",
            name,
            t.weights.score,
            t.weights.moves,
            t.weights.lost,
            100.0 * t.train_win_rate,
            100.0 * t.test_win_rate,
            100.0 * t.wilson_low,
            100.0 * t.wilson_high
        )?;
    }
    writeln!(
        out,
        "on {} held-out deals: won by tuned alone {}, by default alone {}; {}: p = {:.3e}",
        r.test_deals, r.only_tuned, r.only_default, r.test, r.p_value
    )?;
    if let Some(path) = saved {
        writeln!(out, "saved the tuned weights to {}", path.display())?;
    }
    Ok(())
}
