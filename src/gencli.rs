//! `boaf generate` and `boaf puzzles`: the command-line client of the generator.

use anyhow::{Context, Result, anyhow, bail};
use boaf::energy::{Chain, EnergyBook, builtin, holds, parse_condition};
use boaf::generator::{Candidate, Generator, Job, Message, shard};
use boaf::search::{HalfwayMode, SearchParams};
use boaf::state::Grid;
use boaf::store::{PuzzleStore, read_store};
use clap::Args;
use crossbeam_channel::RecvTimeoutError;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

pub const GENERATE_HELP: &str = "\
Each puzzle is a hill descent with random uphill steps (seed 001): from n
random cards in random cells, a step swaps an unused card in (--swap-in) or
swaps a card's cell with another cell; a worse step is kept with probability
--uphill. The best puzzle seen is kept, with its exact features.

Puzzle i of a batch is searched from a seed made of --seed and i, so the same
seed gives the same puzzles whatever --workers is, and --shard i/N splits a
batch into parts whose outputs concatenate to the whole.

Candidates are appended to --out as JSON lines as they finish, each synced to
disk; puzzles isomorphic to one already in the file are dropped. Energies are
E0-E5 (assets/energies.toml), those fitted in the app's Regression panel
(assets/fitted-energies.toml), your own in energies/*.toml, and any defined
in --energies files.";

/// Arguments of `boaf generate`.
#[derive(Args)]
pub struct GenerateArgs {
    /// Cards per puzzle
    #[arg(short, long)]
    n: usize,
    /// Puzzles in the batch
    #[arg(long, default_value_t = 10)]
    count: usize,
    /// Energy to minimize, by name or id
    #[arg(long, default_value = "E5")]
    energy: String,
    /// More energy files (TOML, as assets/energies.toml); later ones override
    #[arg(long, value_name = "FILE")]
    energies: Vec<PathBuf>,
    /// Worker threads (default: every core)
    #[arg(long)]
    workers: Option<usize>,
    /// Batch seed (default: from the clock, printed so the run can be repeated)
    #[arg(long)]
    seed: Option<u64>,
    /// Steps per puzzle (default: the paper's, 2500 below 10 cards, 800 for 10-12, 50 above)
    #[arg(long)]
    iterations: Option<usize>,
    /// Probability that a step swaps an unused card in
    #[arg(long, default_value_t = 0.3)]
    swap_in: f64,
    /// Probability of keeping a step that raises the energy
    #[arg(long, default_value_t = 0.005)]
    uphill: f64,
    /// How the search knows the halfway ratio: exact (the analysis at every
    /// step), estimate (sampling), or confirm (sampling, then the exact
    /// analysis of the --confirm best). Default: exact up to 12 cards, confirm above
    #[arg(long, value_enum)]
    halfway: Option<Halfway>,
    /// Walks per halfway estimate
    #[arg(long, default_value_t = boaf::estimate::EstimateOptions::default().samples)]
    samples: usize,
    /// With --halfway confirm: how many of the best puzzles by estimate are analysed exactly
    #[arg(long, default_value_t = 3)]
    confirm: usize,
    /// Grid, written RxC
    #[arg(long, default_value = "4x4", value_parser = grid_arg)]
    grid: Grid,
    /// Make only part i of N of the batch (i from 0), e.g. 2/8
    #[arg(long, value_parser = shard_arg)]
    shard: Option<(usize, usize)>,
    /// Store file (default: puzzles/n<N>-<ENERGY>.jsonl)
    #[arg(long)]
    out: Option<PathBuf>,
    /// Memory each worker's analyses may use, e.g. 2G
    #[arg(long, default_value = "6G", value_parser = crate::cli::size_arg)]
    memory_cap: usize,
}

/// Arguments of `boaf puzzles`.
#[derive(Args)]
pub struct PuzzlesArgs {
    /// A store file (JSON lines, as `generate` writes)
    file: PathBuf,
    /// Keep puzzles where this holds, e.g. "n >= 8 and halfway_ratio < 0.05"
    #[arg(long = "where", value_name = "CONDITION")]
    filter: Option<String>,
    /// Keep puzzles made with this energy (name or id)
    #[arg(long)]
    energy: Option<String>,
    /// Sort by "energy" or a feature name (ascending)
    #[arg(long)]
    sort: Option<String>,
    /// Print the candidates as JSON lines instead of a table
    #[arg(long)]
    json: bool,
}

/// `--halfway` values.
#[derive(Copy, Clone, clap::ValueEnum)]
enum Halfway {
    Exact,
    Estimate,
    Confirm,
}

fn grid_arg(s: &str) -> Result<Grid, String> {
    boaf::notation::parse_grid(s).map_err(|e| e.kind.to_string())
}

fn shard_arg(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("'{s}' is not a shard i/N with 0 <= i < N (e.g. 0/4)");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The built-in energies, then `assets/energies.toml`,
/// `assets/fitted-energies.toml` and `energies/*.toml` of the working
/// directory if they exist (so edits and fits made in the app count), then
/// the given files.
pub fn load_energies(files: &[PathBuf]) -> Result<EnergyBook> {
    let mut book = builtin();
    // The app's energy files: the editable one, those fitted from ratings,
    // the user's folder, then the files given.
    let mut all: Vec<PathBuf> = ["assets/energies.toml", boaf::app::FITTED_ENERGIES]
        .into_iter()
        .map(PathBuf::from)
        .filter(|p| p.is_file())
        .collect();
    all.extend(boaf::app::user_energy_files(Path::new(
        boaf::app::USER_ENERGIES,
    )));
    all.extend(files.iter().cloned());
    for f in all {
        let text =
            std::fs::read_to_string(&f).with_context(|| format!("reading {}", f.display()))?;
        book.add(&text, &f.display().to_string())?;
    }
    Ok(book)
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
        % 1_000_000_000
}

/// Runs `boaf generate`.
pub fn generate(args: GenerateArgs) -> Result<ExitCode> {
    let book = load_energies(&args.energies)?;
    let energy = book
        .get(&args.energy)
        .ok_or_else(|| {
            let names: Vec<&str> = book.energies().iter().map(|e| e.name.as_str()).collect();
            anyhow!(
                "no energy named '{}' (there are {})",
                args.energy,
                names.join(", ")
            )
        })?
        .clone();
    let params = SearchParams {
        iterations: args
            .iterations
            .unwrap_or_else(|| boaf::search::paper_iterations(args.n)),
        swap_in: args.swap_in,
        uphill: args.uphill,
        rows: args.grid.rows(),
        cols: args.grid.cols(),
        halfway: match args.halfway {
            Some(Halfway::Exact) => HalfwayMode::Exact,
            Some(Halfway::Estimate) => HalfwayMode::Estimate,
            Some(Halfway::Confirm) => HalfwayMode::Confirm,
            None => HalfwayMode::for_cards(args.n),
        },
        samples: args.samples.max(1),
        confirm: args.confirm.max(1),
    };
    params.check(args.n).map_err(|m| anyhow!(m))?;
    let seed = args.seed.unwrap_or_else(clock_seed);
    let indices = match args.shard {
        Some((i, of)) => shard(args.count, i, of),
        None => 0..args.count,
    };
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from(format!("puzzles/n{}-{}.jsonl", args.n, energy.name)));
    let (mut store, skipped) =
        PuzzleStore::open(&out).with_context(|| format!("opening {}", out.display()))?;
    for s in &skipped {
        eprintln!("warning: {}: {s}", out.display());
    }
    let workers = args
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, indices.len().max(1));
    eprintln!(
        "generating puzzles {}..{} of {} (n = {}, energy {}, seed {seed}, {} steps each, halfway {:?}, {workers} worker{}) into {}",
        indices.start,
        indices.end,
        args.count,
        args.n,
        energy.id(),
        params.iterations,
        params.halfway,
        if workers == 1 { "" } else { "s" },
        out.display()
    );
    let total = indices.len();
    let first = indices.start;
    let job = Job {
        n: args.n,
        energy,
        seed,
        params,
        indices,
        memory_cap: args.memory_cap,
    };
    let generator = Generator::start(job, workers, None);

    // Bars on a terminal: one per worker and one for the batch.
    let terminal = std::io::stderr().is_terminal();
    let multi = MultiProgress::new();
    let style = ProgressStyle::with_template("{prefix} [{bar:25}] {pos}/{len} {msg}")
        .expect("valid template")
        .progress_chars("=> ");
    let bars: Vec<ProgressBar> = (0..workers)
        .map(|w| {
            let pb = if terminal {
                multi.add(ProgressBar::new(0))
            } else {
                ProgressBar::hidden()
            };
            pb.set_style(style.clone());
            pb.set_prefix(format!("worker {w}"));
            pb
        })
        .collect();
    let batch = if terminal {
        multi.add(ProgressBar::new(total as u64))
    } else {
        ProgressBar::hidden()
    };
    batch.set_style(style.clone());
    batch.set_prefix("puzzles ".to_string());

    let mut stdout = std::io::stdout().lock();
    let (mut written, mut duplicates, mut failed) = (0, 0, 0);
    // Candidates are stored in batch order, so that the file does not depend
    // on which worker finished first; a candidate waits only for the puzzles
    // before it that are still being searched.
    let mut order = InOrder::new(first);
    let mut store_one = |c: &Candidate| -> Result<()> {
        if store
            .add(c)
            .with_context(|| format!("writing {}", out.display()))?
        {
            written += 1;
            multi.suspend(|| print_candidate(&mut stdout, c))?;
        } else {
            duplicates += 1;
        }
        Ok(())
    };
    let cancelled = loop {
        let msg = match generator
            .messages()
            .recv_timeout(Duration::from_millis(200))
        {
            Ok(msg) => msg,
            Err(RecvTimeoutError::Timeout) => continue,
            // Every worker is gone without a word: nothing more will come.
            Err(RecvTimeoutError::Disconnected) => break false,
        };
        match msg {
            Message::Progress {
                worker,
                index,
                iteration,
                of,
                current,
                best,
            } => {
                let pb = &bars[worker];
                pb.set_length(of as u64);
                pb.set_position(iteration as u64);
                pb.set_message(format!(
                    "puzzle {index}: energy {current:.6}, best {best:.6}"
                ));
            }
            Message::Candidate(c) => {
                batch.inc(1);
                order.arrived(c.index, Some(c));
            }
            Message::Error { index, message } => {
                batch.inc(1);
                failed += 1;
                multi.suspend(|| eprintln!("puzzle {index}: {message}"));
                order.arrived(index, None);
            }
            Message::Finished { cancelled, .. } => break cancelled,
        }
        for c in order.ready() {
            store_one(&c)?;
        }
    };
    // What is still waiting for an earlier puzzle (a cancelled run), in order.
    for c in order.rest() {
        store_one(&c)?;
    }
    for pb in bars.iter().chain([&batch]) {
        pb.finish_and_clear();
    }
    generator.join();
    eprintln!(
        "{written} new puzzle{} written to {}; {duplicates} duplicate{} dropped; {failed} failed{}",
        if written == 1 { "" } else { "s" },
        out.display(),
        if duplicates == 1 { "" } else { "s" },
        if cancelled { "; cancelled" } else { "" }
    );
    Ok(if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Puts candidates back in batch order.
struct InOrder {
    next: usize,
    waiting: std::collections::BTreeMap<usize, Option<Box<Candidate>>>,
}

impl InOrder {
    fn new(first: usize) -> InOrder {
        InOrder {
            next: first,
            waiting: Default::default(),
        }
    }

    /// Puzzle `index` is done (`None`: it failed).
    fn arrived(&mut self, index: usize, c: Option<Box<Candidate>>) {
        self.waiting.insert(index, c);
    }

    /// The candidates whose turn has come.
    fn ready(&mut self) -> Vec<Candidate> {
        let mut out = Vec::new();
        while let Some(c) = self.waiting.remove(&self.next) {
            out.extend(c.map(|b| *b));
            self.next += 1;
        }
        out
    }

    /// Everything still waiting, in order.
    fn rest(self) -> impl Iterator<Item = Box<Candidate>> {
        self.waiting.into_values().flatten()
    }
}

fn print_candidate(out: &mut impl Write, c: &Candidate) -> std::io::Result<()> {
    writeln!(
        out,
        "{:>5}  energy {:>12.6}  halfway {:>9.6}  {}",
        c.index,
        c.energy,
        c.features.halfway_ratio.unwrap_or(f64::NAN),
        c.puzzle
    )
}

/// The value a `--sort` key names.
fn sort_value(c: &Candidate, key: &str) -> Option<f64> {
    if key == "energy" {
        Some(c.energy)
    } else {
        c.features.value(key)
    }
}

/// Runs `boaf puzzles`.
pub fn puzzles(args: PuzzlesArgs) -> Result<ExitCode> {
    let (mut list, skipped) =
        read_store(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    for s in &skipped {
        eprintln!("warning: {}: {s}", args.file.display());
    }
    let filter: Option<Vec<Chain>> = match &args.filter {
        Some(text) => Some(parse_condition(text).map_err(|(at, m)| {
            // Columns count characters, not bytes.
            let column = text.get(..at).map_or(at, |s| s.chars().count());
            anyhow!(
                "bad --where: column {}: {m}\n  {text}\n  {}^",
                column + 1,
                " ".repeat(column)
            )
        })?),
        None => None,
    };
    if let Some(key) = &args.sort
        && key != "energy"
        && !boaf::energy::FEATURE_NAMES.contains(&key.as_str())
    {
        bail!(
            "cannot sort by '{key}': use energy or a feature ({})",
            boaf::energy::FEATURE_NAMES.join(", ")
        );
    }
    list.retain(|c| {
        args.energy
            .as_ref()
            .is_none_or(|e| c.energy_name.eq_ignore_ascii_case(e) || c.energy_id == *e)
            && filter
                .as_ref()
                .is_none_or(|f| holds(f, |name| c.features.value(name)))
    });
    if let Some(key) = &args.sort {
        // Missing values last.
        list.sort_by(|a, b| {
            let (x, y) = (sort_value(a, key), sort_value(b, key));
            match (x, y) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            }
        });
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        for c in &list {
            writeln!(out, "{}", serde_json::to_string(c)?)?;
        }
    } else {
        writeln!(
            out,
            "{:>5}  {:>3}  {:<12} {:>12}  {:>9}  {:>8}  puzzle",
            "index", "n", "energy id", "energy", "halfway", "depth1"
        )?;
        let num = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.6}"));
        for c in &list {
            writeln!(
                out,
                "{:>5}  {:>3}  {:<12} {:>12.6}  {:>9}  {:>8}  {}",
                c.index,
                c.n,
                c.energy_id,
                c.energy,
                num(c.features.halfway_ratio),
                num(c.features.depth1_ratio),
                c.puzzle
            )?;
        }
        writeln!(
            out,
            "{} puzzle{}",
            list.len(),
            if list.len() == 1 { "" } else { "s" }
        )?;
    }
    Ok(ExitCode::SUCCESS)
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
    #[arg(long, default_value_t = boaf::estimate::EstimateOptions::default().samples)]
    samples: usize,
    /// Puzzles analysed at once
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Seed of the random puzzles
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Memory each exact analysis may use
    #[arg(long, default_value = "8G", value_parser = crate::cli::size_arg)]
    memory_cap: usize,
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
    #[arg(long, default_value = "E5")]
    energy: String,
    /// Workers; each makes one puzzle, so the wall time is the time per puzzle
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Batch seed
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Memory each worker's analyses may use
    #[arg(long, default_value = "6G", value_parser = crate::cli::size_arg)]
    memory_cap: usize,
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

/// One puzzle of the estimator benchmark.
struct EstimateRow {
    n: usize,
    puzzle: String,
    exact: f64,
    estimate: f64,
    exact_s: f64,
    estimate_s: f64,
}

/// Runs `boaf bench estimate`: the halfway estimator against the exact ratio.
pub fn bench_estimate(args: BenchEstimateArgs) -> Result<ExitCode> {
    use boaf::analysis::{AnalysisOptions, analyze};
    use boaf::estimate::{EstimateOptions, estimate_halfway, spearman};
    use boaf::solver::{Limits, solve};
    use rand::SeedableRng;
    use std::sync::Mutex;
    use std::time::Instant;

    // The puzzles first, from one seeded stream: random cards in random
    // cells, kept if solvable.
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(args.seed);
    let mut puzzles = Vec::new();
    for n in args.cards.0..=args.cards.1 {
        let mut made = 0;
        while made < args.count {
            let p = boaf::search::random_puzzle(n, Grid::SQUARE4, &mut rng);
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
    let pb = crate::cli::bar(puzzles.len() as u64, "exact and estimated");
    let rows: Mutex<Vec<EstimateRow>> = Mutex::new(Vec::new());
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let limits = Limits {
        memory_cap: args.memory_cap,
        cancel: None,
    };
    std::thread::scope(|s| {
        for _ in 0..args.threads.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(p) = puzzles.get(i) else { break };
                    let n = p.stack_count();
                    let t = Instant::now();
                    let opts = AnalysisOptions {
                        max_depth: Some(n / 2),
                        limits: limits.clone(),
                        ..AnalysisOptions::default()
                    };
                    let exact = match analyze(p, &opts) {
                        Ok(a) => a.halfway_ratio().unwrap_or(0.0),
                        Err(e) => {
                            let msg = format!("{}: {e}", boaf::notation::to_compact(p));
                            failures.lock().unwrap().push(msg);
                            pb.inc(1);
                            continue;
                        }
                    };
                    let exact_s = t.elapsed().as_secs_f64();
                    let t = Instant::now();
                    let est = estimate_halfway(
                        p,
                        &EstimateOptions {
                            samples: args.samples,
                            ..EstimateOptions::default()
                        },
                        &limits,
                    );
                    let estimate_s = t.elapsed().as_secs_f64();
                    match est {
                        Ok(e) => rows.lock().unwrap().push(EstimateRow {
                            n,
                            puzzle: boaf::notation::to_compact(p),
                            exact,
                            estimate: e.ratio,
                            exact_s,
                            estimate_s,
                        }),
                        Err(e) => failures.lock().unwrap().push(format!("estimate: {e}")),
                    }
                    pb.inc(1);
                }
            });
        }
    });
    pb.finish_and_clear();
    let mut rows = rows.into_inner().unwrap();
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
        let mut rel: Vec<f64> = sel
            .iter()
            .map(|r| ((r.estimate - r.exact) / r.exact).abs())
            .collect();
        rel.sort_by(f64::total_cmp);
        let mean = |f: &dyn Fn(&EstimateRow) -> f64| {
            sel.iter().map(|r| f(r)).sum::<f64>() / sel.len() as f64
        };
        let mut ex_s: Vec<f64> = sel.iter().map(|r| r.exact_s).collect();
        ex_s.sort_by(f64::total_cmp);
        let mut est_s: Vec<f64> = sel.iter().map(|r| r.estimate_s).collect();
        est_s.sort_by(f64::total_cmp);
        println!(
            "{label}: {} puzzles, Spearman {:.4}, median relative error {:.3}, mean estimate/exact {:.3}; median time exact {:.3} s, estimate {:.4} s",
            sel.len(),
            spearman(&x, &y),
            rel[rel.len() / 2],
            mean(&|r| r.estimate / r.exact),
            ex_s[ex_s.len() / 2],
            est_s[est_s.len() / 2],
        );
    };
    for n in args.cards.0..=args.cards.1 {
        let sel: Vec<&EstimateRow> = rows.iter().filter(|r| r.n == n).collect();
        summary(format!("n = {n}"), &sel);
    }
    let all: Vec<&EstimateRow> = rows.iter().collect();
    summary(format!("all n = {}..={}", args.cards.0, args.cards.1), &all);
    let failures = failures.into_inner().unwrap();
    for f in &failures {
        println!("failed: {f}");
    }
    Ok(if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Runs `boaf bench generate`: wall time per puzzle by card count and budget.
pub fn bench_generate(args: BenchGenerateArgs) -> Result<ExitCode> {
    use std::time::Instant;
    let book = load_energies(&[])?;
    let energy = book
        .get(&args.energy)
        .ok_or_else(|| anyhow!("no energy named '{}'", args.energy))?
        .clone();
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
                boaf::search::paper_iterations(n)
            } else {
                budget
                    .parse()
                    .map_err(|_| anyhow!("'{budget}' is not a step count or 'paper'"))?
            };
            let params = SearchParams {
                iterations,
                ..SearchParams::paper(n)
            };
            let job = Job {
                n,
                energy: energy.clone(),
                seed: args.seed,
                params: params.clone(),
                indices: 0..args.workers.max(1),
                memory_cap: args.memory_cap,
            };
            let started = Instant::now();
            let g = Generator::start(job, args.workers.max(1), None);
            let mut cands = Vec::new();
            loop {
                match g.messages().recv() {
                    Ok(Message::Candidate(c)) => cands.push(c),
                    Ok(Message::Error { index, message }) => {
                        println!("{n:>2}  puzzle {index} failed: {message}");
                        failed = true;
                    }
                    Ok(Message::Finished { .. }) | Err(_) => break,
                    Ok(Message::Progress { .. }) => {}
                }
            }
            g.join();
            let wall = started.elapsed().as_secs_f64();
            let evals: usize = cands.iter().map(|c| c.evaluations).sum();
            let mean_e = cands.iter().map(|c| c.energy).sum::<f64>() / cands.len().max(1) as f64;
            println!(
                "{n:>2}  {iterations:>5}  {:<8} {wall:>8.2}  {:>11}  {mean_e:.6}",
                format!("{:?}", params.halfway).to_lowercase(),
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

/// Arguments of `boaf energies`.
#[derive(Args)]
pub struct EnergiesArgs {
    /// More energy files to load over the built-in ones
    #[arg(long, value_name = "FILE")]
    energies: Vec<PathBuf>,
}

/// Runs `boaf energies`: each energy's id, cost and definition.
pub fn energies(args: EnergiesArgs) -> Result<ExitCode> {
    let book = load_energies(&args.energies)?;
    let mut out = std::io::stdout().lock();
    for e in book.energies() {
        let need = match e.need() {
            boaf::features::Need::Cards => "cards only".to_string(),
            boaf::features::Need::Shallow(d) => format!("solvability to depth {d}"),
            boaf::features::Need::Halfway => "halfway analysis".to_string(),
        };
        writeln!(out, "{}  ({need})", e.id())?;
        if !e.about.is_empty() {
            writeln!(out, "  {}", e.about)?;
        }
        writeln!(out, "  value {}", e.value_text())?;
        for b in e.bonus_texts() {
            writeln!(out, "  {b}")?;
        }
        writeln!(out, "  unsolvable {}", e.penalty)?;
    }
    Ok(ExitCode::SUCCESS)
}
