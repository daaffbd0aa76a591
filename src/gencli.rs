//! `boaf generate` and `boaf puzzles`: the command-line client of the generator.

use anyhow::{Context, Result, anyhow, bail};
use boaf::energy::{Chain, EnergyBook, builtin, holds, parse_condition};
use boaf::generator::{Candidate, Generator, Job, Message, shard};
use boaf::search::SearchParams;
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
E0-E5 (assets/energies.toml) and any defined in --energies files.";

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
    #[arg(long, default_value = "4G", value_parser = crate::cli::size_arg)]
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

/// The built-in energies, then `assets/energies.toml` of the working
/// directory if there is one (so edits there count), then the given files.
pub fn load_energies(files: &[PathBuf]) -> Result<EnergyBook> {
    let mut book = builtin();
    let local = Path::new("assets/energies.toml");
    let mut all: Vec<&Path> = Vec::new();
    if local.is_file() {
        all.push(local);
    }
    all.extend(files.iter().map(PathBuf::as_path));
    for f in all {
        let text =
            std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?;
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
        "generating puzzles {}..{} of {} (n = {}, energy {}, seed {seed}, {} steps each, {workers} worker{}) into {}",
        indices.start,
        indices.end,
        args.count,
        args.n,
        energy.id(),
        params.iterations,
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
                if store
                    .add(&c)
                    .with_context(|| format!("writing {}", out.display()))?
                {
                    written += 1;
                    multi.suspend(|| print_candidate(&mut stdout, &c))?;
                } else {
                    duplicates += 1;
                }
            }
            Message::Error { index, message } => {
                batch.inc(1);
                failed += 1;
                multi.suspend(|| eprintln!("puzzle {index}: {message}"));
            }
            Message::Finished { cancelled, .. } => break cancelled,
        }
    };
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
            anyhow!(
                "bad --where: column {}: {m}\n  {text}\n  {}^",
                at + 1,
                " ".repeat(at)
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
