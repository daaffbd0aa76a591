//! The three parts of the exact halfway ratio timed apart (on one thread
//! unless asked): the table of merges, the count of states and the walk
//! back, each the median of several runs in one process (so a change to
//! one part is seen without the others' noise). Figures for issue 27's
//! halfway row.
//!
//! `cargo run --release -p boaf-core --example countbench -- [--runs N]
//! [--threads T] [--depths] PUZZLE|DEAL...` (five runs on one thread unless
//! `--runs` and `--threads` say otherwise). With `--depths`, each depth of
//! the walk back is timed apart, and the count up to each depth: where a
//! change's time goes, as the sessions of issue 27 needed to know. (The
//! walk then counts the solvable states of every depth, which it otherwise
//! walks through; that costs about a tenth of its time.)

use boaf_core::engine::deal::deal;
use boaf_core::engine::halfway::{Merges, WalkLists};
use boaf_core::engine::limits::Limits;
use boaf_core::engine::notation::parse_puzzle;
use std::time::Instant;

/// The median of some timings, in seconds.
fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The median seconds of `runs` calls of `f`, and its last result.
fn timed<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        last = Some(f());
        times.push(t.elapsed().as_secs_f64());
    }
    (median(times), last.expect("at least one run"))
}

/// The number after `flag` in `args`, both taken out (`None` when the flag
/// is not there); exits with a message when it is not a count above 0.
fn take_count(args: &mut Vec<String>, flag: &str, what: &str) -> Option<usize> {
    let at = args.iter().position(|a| a == flag)?;
    match args.get(at + 1).and_then(|r| r.parse::<usize>().ok()) {
        Some(n) if n > 0 => {
            args.drain(at..at + 2);
            Some(n)
        }
        _ => {
            eprintln!("{flag} needs a number of {what} above 0");
            std::process::exit(2);
        }
    }
}

/// The distinct states at `depth` (or the deepest the puzzle has).
fn states_at(merges: &Merges, depth: usize, threads: usize, limits: &Limits) -> u64 {
    let counts = merges
        .count_states_on(depth, threads, limits)
        .expect("within 8 GB");
    counts[depth.min(counts.len() - 1)]
}

/// Whether `flag` is in `args`, taken out.
fn take_flag(args: &mut Vec<String>, flag: &str) -> bool {
    let at = args.iter().position(|a| a == flag);
    at.map(|at| args.remove(at)).is_some()
}

/// The walk back's depths (the median seconds of each, from the runs'
/// `by_depth`) and the count's time up to each depth.
fn print_depths(
    merges: &Merges,
    depth: usize,
    threads: usize,
    runs: usize,
    by_depth: &[Vec<(f64, Option<usize>)>],
    limits: &Limits,
) {
    let last = merges.cards().saturating_sub(1);
    println!("{:>34}  walk back, each depth and the time it took:", "");
    for (i, &(_, boards)) in by_depth[0].iter().enumerate() {
        let boards = boards.expect("counted with --depths");
        let seconds = median(by_depth.iter().map(|run| run[i].0).collect());
        println!(
            "{:>34}  depth {:>2}  {boards:>10} solvable  {seconds:.4} s",
            "",
            last - i
        );
    }
    println!("{:>34}  count up to each depth, and the time it took:", "");
    for d in 1..=depth {
        let (seconds, states) = timed(runs, || states_at(merges, d, threads, limits));
        println!(
            "{:>34}  depth {d:>2}  {states:>10} states    {seconds:.4} s",
            ""
        );
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let runs = take_count(&mut args, "--runs", "runs").unwrap_or(5);
    let depths = take_flag(&mut args, "--depths");
    let threads = take_count(&mut args, "--threads", "threads").unwrap_or(1);
    if args.is_empty() {
        eprintln!("usage: countbench [--runs N] [--threads T] [--depths] PUZZLE|DEAL...");
        std::process::exit(2);
    }
    let limits = Limits::with_cap(8 << 30);
    let (mut all_table, mut all_count, mut all_walk) = (0.0, 0.0, 0.0);
    for arg in &args {
        let state = match arg.parse::<i32>() {
            Ok(number) => deal(number),
            Err(_) => match parse_puzzle(arg) {
                Ok(state) => state,
                Err(e) => {
                    eprintln!("{arg}: {e}");
                    std::process::exit(2);
                }
            },
        };
        let depth = state.stack_count() / 2;
        let (table, merges) = timed(runs, || Merges::new(&state, &limits).expect("within 8 GB"));
        let (count, states) = timed(runs, || states_at(&merges, depth, threads, &limits));
        let mut lists = WalkLists::default();
        // Each run's seconds and solvable states at each depth of the walk,
        // deepest first, as it tells them.
        let mut by_depth: Vec<Vec<(f64, Option<usize>)>> = Vec::new();
        let (walk, solvable) = timed(runs, || {
            let mut heard = Vec::new();
            let mut since = Instant::now();
            let solvable = merges
                .walk_back(
                    threads,
                    depth,
                    depth,
                    false,
                    depths,
                    &mut lists,
                    &limits,
                    |boards| {
                        heard.push((since.elapsed().as_secs_f64(), boards));
                        since = Instant::now();
                    },
                )
                .expect("within 8 GB")
                .count(depth)
                .unwrap_or(0);
            by_depth.push(heard);
            solvable
        });
        (all_table, all_count, all_walk) = (all_table + table, all_count + count, all_walk + walk);
        println!(
            "{arg:>34}  {solvable:>9} / {states:>10}  table {:.2} ms  count {count:.4} s  walk {walk:.4} s",
            table * 1e3
        );
        if depths {
            print_depths(&merges, depth, threads, runs, &by_depth, &limits);
        }
    }
    println!(
        "{:>34}  table {:.2} ms  count {all_count:.4} s  walk {all_walk:.4} s",
        "total",
        all_table * 1e3
    );
}
