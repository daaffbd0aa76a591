//! The generator's commands: `generate` (a batch session into a store, with
//! a progress bar per worker), `puzzles` (list a store) and `energies`.

use super::input::{Bytes, all_cores, grid_arg};
use super::select::Selection;
use anyhow::{Context, Result, anyhow, bail};
use boaf_core::engine::feature::Part;
use boaf_core::engine::limits::WORKER_CAP;
use boaf_core::engine::state::Grid;
use boaf_core::folder::{Folder, LoadedEnergies};
use boaf_core::format;
use boaf_core::generator::batch::{Batch, Event, Order};
use boaf_core::generator::descent::{
    DEFAULT_CONFIRM, DEFAULT_ENERGY, DEFAULT_SCREEN, DEFAULT_SWAP_IN, DEFAULT_UPHILL, HALFWAY_HELP,
    HalfwayMode, SWAP_IN_HELP, SearchParams, UPHILL_HELP, default_iterations,
};
use boaf_core::generator::energy::EnergyBook;
use boaf_core::generator::pipeline::{Candidate, Job, shard};
use boaf_core::generator::store::PuzzleStore;
use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// More on `boaf generate`, for `--help`.
pub const GENERATE_HELP: &str = "\
Each puzzle is a hill descent with random uphill steps (seed 001): from n
random cards in random cells, a step swaps an unused card in (--swap-in) or
swaps a card's cell with another cell; a worse step is kept with probability
--uphill. The best puzzle seen is kept, with its exact features.

Puzzle i of a batch is searched from a seed made of --seed and i, so the same
seed gives the same puzzles whatever --workers is, and --shard i/N splits a
batch into parts whose outputs concatenate to the whole.

Candidates are appended to --out as JSON lines in batch order, each synced to
disk; puzzles isomorphic to one already in the file are dropped. Energies are
E0-E5 (assets/energies.toml), those fitted in the app's Regression panel
(assets/fitted-energies.toml), your own in energies/*.toml, and any defined
in --energies files. A file with an error adds no energies; its error is
shown and the others load.";

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
    #[arg(long, default_value = DEFAULT_ENERGY)]
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
    /// Steps per puzzle (default: the paper's up to 12 cards, 2500 below 10 and 800 for 10-12; 2500 above, where the paper had 50)
    #[arg(long)]
    iterations: Option<usize>,
    #[arg(long, default_value_t = DEFAULT_SWAP_IN, help = SWAP_IN_HELP)]
    swap_in: f64,
    #[arg(long, default_value_t = DEFAULT_UPHILL, help = UPHILL_HELP)]
    uphill: f64,
    #[arg(long, default_value_t = HalfwayMode::Exact, help = HALFWAY_HELP)]
    halfway: HalfwayMode,
    /// Walks per halfway estimate
    #[arg(long, default_value_t = boaf_core::engine::estimate::EstimateOptions::default().samples)]
    samples: usize,
    /// With --halfway exact: judge a step first on its halfway ratio's
    /// numerator over this many times the current puzzle's denominator, and
    /// undo it without counting its states if even that is worse; 0 counts
    /// every step
    #[arg(long, default_value_t = DEFAULT_SCREEN)]
    screen: f64,
    /// With --halfway exact: score each descent by the halfway estimate
    /// until its estimated ratio falls below this (or a quarter of its
    /// steps), then exactly; 0 is exact from the start (default: 0.001 from
    /// 15 cards, 0 below)
    #[arg(long)]
    warmup: Option<f64>,
    /// Fresh random starts after the first, sharing the steps; the best puzzle of all is kept
    #[arg(long, default_value_t = 0)]
    restarts: usize,
    /// With --halfway confirm: how many of the best puzzles by estimate are analysed exactly
    #[arg(long, default_value_t = DEFAULT_CONFIRM)]
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
    #[arg(long, default_value_t = Bytes(WORKER_CAP))]
    memory_cap: Bytes,
    /// Skip the difficulty features of each finished puzzle (agents play
    /// it: playout_win_rate, greedy_wins, mcts_budget; about a second at most
    /// each). An energy that reads them still gets them
    #[arg(long)]
    no_difficulty: bool,
}

/// Arguments of `boaf puzzles`.
#[derive(Args)]
pub struct PuzzlesArgs {
    /// A store file (JSON lines, as `generate` writes)
    file: PathBuf,
    /// Which puzzles to list
    #[command(flatten)]
    selection: Selection,
    /// Print the candidates as JSON lines instead of a table
    #[arg(long)]
    json: bool,
}

/// Arguments of `boaf energies`.
#[derive(Args)]
pub struct EnergiesArgs {
    /// More energy files to load over the built-in ones
    #[arg(long, value_name = "FILE")]
    energies: Vec<PathBuf>,
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

/// The working folder (paths relative to the working directory).
fn folder() -> Folder {
    Folder::new("")
}

/// The working folder's energies and `extra` files. A problem with a file
/// named on the command line is an error; one with the folder's own files
/// is a warning (the file adds no energies, the others load).
pub fn load_energies(extra: &[PathBuf]) -> Result<LoadedEnergies> {
    let loaded = folder().load_energies(extra);
    for p in &loaded.problems {
        if extra.contains(&p.path) {
            bail!("{p}");
        }
        eprintln!("warning: {p} (the file's energies are not loaded)");
    }
    Ok(loaded)
}

/// The energy named `name` (or with this id), or an error that lists the
/// energies there are.
pub fn find_energy<'a>(
    book: &'a EnergyBook,
    name: &str,
) -> Result<&'a boaf_core::generator::energy::Energy> {
    book.get(name).ok_or_else(|| {
        let names: Vec<&str> = book.energies().iter().map(|e| e.name.as_str()).collect();
        anyhow!("no energy named '{name}' (there are {})", names.join(", "))
    })
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
        % 1_000_000_000
}

/// Runs `boaf generate`.
pub fn generate(args: GenerateArgs) -> Result<ExitCode> {
    let loaded = load_energies(&args.energies)?;
    let energy = find_energy(&loaded.book, &args.energy)?.clone();
    let params = SearchParams {
        iterations: args
            .iterations
            .unwrap_or_else(|| default_iterations(args.n)),
        swap_in: args.swap_in,
        uphill: args.uphill,
        rows: args.grid.rows(),
        cols: args.grid.cols(),
        halfway_mode: args.halfway,
        samples: args.samples.max(1),
        confirm: args.confirm.max(1),
        screen: args.screen,
        restarts: args.restarts,
        warmup: args
            .warmup
            .unwrap_or_else(|| SearchParams::for_cards(args.n).warmup),
        difficulty: !args.no_difficulty,
    };
    params.check(args.n).map_err(|m| anyhow!(m))?;
    let seed = args.seed.unwrap_or_else(clock_seed);
    let indices = match args.shard {
        Some((i, of)) => shard(args.count, i, of),
        None => 0..args.count,
    };
    let out = args
        .out
        .unwrap_or_else(|| folder().store_file(args.n, &energy.name));
    let (store, skipped) =
        PuzzleStore::open(&out).with_context(|| format!("opening {}", out.display()))?;
    for s in &skipped {
        eprintln!("warning: {}: {s}", out.display());
    }
    let workers = args
        .workers
        .unwrap_or_else(all_cores)
        .clamp(1, indices.len().max(1));
    eprintln!(
        "generating puzzles {}..{} of {} (n = {}, energy {}, seed {seed}, {} steps each, halfway {}, {workers} worker{}) into {}",
        indices.start,
        indices.end,
        args.count,
        args.n,
        energy.id(),
        params.iterations,
        params.halfway_mode,
        if workers == 1 { "" } else { "s" },
        out.display()
    );
    let total = indices.len();
    let job = Job {
        n: args.n,
        energy,
        seed,
        params,
        indices,
        memory_cap: args.memory_cap.fitted(workers),
    };
    let mut batch = Batch::start(job, workers, Some(store), Order::Batch, None);

    // Bars on a terminal: one per worker and one for the batch.
    let terminal = std::io::stderr().is_terminal();
    let multi = MultiProgress::new();
    let style = ProgressStyle::with_template("{prefix} [{bar:25}] {pos}/{len} {msg}")
        .expect("valid template")
        .progress_chars("=> ");
    let new_bar = |len: u64, prefix: String| {
        let pb = if terminal {
            multi.add(ProgressBar::new(len))
        } else {
            ProgressBar::hidden()
        };
        pb.set_style(style.clone());
        pb.set_prefix(prefix);
        pb
    };
    let bars: Vec<ProgressBar> = (0..workers)
        .map(|w| new_bar(0, format!("worker {w}")))
        .collect();
    let done = new_bar(total as u64, "puzzles ".into());

    let mut stdout = std::io::stdout().lock();
    // An error here (stdout closed, the store not writable) ends the run:
    // dropping the batch stops its workers.
    let summary = loop {
        let mut finished = None;
        for event in batch.wait(Duration::from_millis(200)) {
            match event {
                Event::Progress { worker, progress } => {
                    // The bar follows the phase: the descent's steps, then
                    // each exact analysis's layers, named in the message.
                    let pb = &bars[worker];
                    let (done, of) = progress.report.phase.done_of();
                    pb.set_length(of as u64);
                    pb.set_position(done as u64);
                    pb.set_message(format!(
                        "puzzle {}: {}; energy {:.6}, best {:.6}",
                        progress.index,
                        progress.report.phase,
                        progress.report.current,
                        progress.report.best
                    ));
                }
                Event::Candidate(c) => {
                    done.inc(1);
                    multi.suspend(|| print_candidate(&mut stdout, &c))?;
                }
                Event::Duplicate { .. } => done.inc(1),
                Event::Unstored { candidate, message } => {
                    // Shown all the same, so the puzzle is not lost.
                    multi.suspend(|| print_candidate(&mut stdout, &candidate))?;
                    bail!("puzzle {}: {message}", candidate.index);
                }
                Event::Failed { index, message } => {
                    done.inc(1);
                    multi.suspend(|| eprintln!("puzzle {index}: {message}"));
                }
                Event::Finished(summary) => finished = Some(summary),
            }
        }
        if let Some(summary) = finished {
            break summary;
        }
    };
    for pb in bars.iter().chain([&done]) {
        pb.finish_and_clear();
    }
    eprintln!("{}", summary.text(|p| p.display().to_string()));
    Ok(if summary.is_success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn print_candidate(out: &mut impl Write, c: &Candidate) -> std::io::Result<()> {
    writeln!(
        out,
        "{:>5}  energy {:>12.6}  halfway {:>9}  {}",
        c.index,
        c.energy,
        format::fixed(c.features.halfway_ratio, 6),
        c.puzzle
    )
}

/// Runs `boaf puzzles`.
pub fn puzzles(args: PuzzlesArgs) -> Result<ExitCode> {
    let (list, _) = args
        .selection
        .select_any(std::slice::from_ref(&args.file))?;
    // A fitted energy's prediction outside its rated range is an
    // extrapolation. The energies are the working folder's, as for `generate`.
    let loaded = load_energies(&[])?;
    let ranged = loaded.book.ranged_by_id();
    let extrapolated = |c: &Candidate| {
        ranged
            .get(&c.energy_id)
            .and_then(|e| e.extrapolation_note(&c.features))
    };
    // On standard error, so the table and the JSON lines stay as they are.
    for c in &list {
        if let Some(note) = extrapolated(c) {
            eprintln!("warning: puzzle {} ({}): {note}", c.index, c.energy_id);
        }
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        for c in &list {
            // The candidate as stored, plus its grade (null when ungraded).
            let mut v = serde_json::to_value(c)?;
            if let Some(fields) = v.as_object_mut() {
                fields.insert("grade".into(), c.grade().map(|g| g.name()).into());
            }
            writeln!(out, "{v}")?;
        }
    } else {
        writeln!(
            out,
            "{:>5}  {:>3}  {:<6}  {:<12} {:>12}  {:>9}  {:>8}  puzzle",
            "index", "n", "grade", "energy id", "energy", "halfway", "depth1"
        )?;
        for c in &list {
            writeln!(
                out,
                "{:>5}  {:>3}  {:<6}  {:<12} {:>12.6}  {:>9}  {:>8}  {}",
                c.index,
                c.n,
                c.grade().map_or("-", |g| g.name()),
                c.energy_id,
                c.energy,
                format::fixed(c.features.halfway_ratio, 6),
                format::fixed(c.features.depth1_ratio, 6),
                c.puzzle
            )?;
        }
        writeln!(out, "{}", format::plural(list.len(), "puzzle"))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `boaf energies`: each energy's id, cost and definition. Files that
/// add nothing are reported and make the exit status 1.
pub fn energies(args: EnergiesArgs) -> Result<ExitCode> {
    let loaded = load_energies(&args.energies)?;
    let mut out = std::io::stdout().lock();
    for e in loaded.book.energies() {
        let need = match e.reads().deepest_search() {
            Part::Cards | Part::Solver | Part::Agents => "cards only".to_string(),
            Part::Shallow(d) => format!("solvability to depth {d}"),
            Part::Halfway => "halfway analysis".to_string(),
        };
        writeln!(out, "{}  ({need})", e.id())?;
        if !e.about.is_empty() {
            writeln!(out, "  {}", e.about)?;
        }
        for line in e.definition() {
            writeln!(out, "  {line}")?;
        }
    }
    Ok(if loaded.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
