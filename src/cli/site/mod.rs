//! `boaf site`: a static puzzle site in a folder, for any static host: an
//! index by grade, a play page with the puzzle in its link, a daily puzzle
//! from a weekly schedule of grades, and the player's statistics in the
//! browser. The schedule ([`daily`]) and the files ([`pages`]) are pure;
//! this file reads the stores and writes the folder, whole or not at all.

pub mod daily;
pub mod pages;

use super::select::Selection;
use anyhow::{Context, Result, bail};
use boaf_core::agents::grade::grade;
use boaf_core::engine::notation::{parse_state, puzzle_id};
use boaf_core::engine::state::Grid;
use clap::Args;
use daily::{DEFAULT_SCHEDULE, Day, Schedule, first_day, plan};
use pages::{DATA, Entry, pages};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `boaf site`'s arguments.
#[derive(Args)]
pub struct SiteArgs {
    /// Puzzle store files (JSONL, as `boaf generate` writes)
    #[arg(required = true, value_name = "STORE")]
    stores: Vec<PathBuf>,
    #[command(flatten)]
    selection: Selection,
    /// The daily puzzle's first day, YYYY-MM-DD (default: yesterday in UTC, so that every time zone's today is in the range)
    #[arg(long, value_name = "DATE")]
    from: Option<Day>,
    /// The daily puzzle's last day, YYYY-MM-DD
    #[arg(long, value_name = "DATE", conflicts_with = "days")]
    to: Option<Day>,
    /// Days of daily puzzles (default 30 unless --to)
    #[arg(long, value_name = "N")]
    days: Option<usize>,
    /// The grade of each day of the week
    #[arg(long, default_value = DEFAULT_SCHEDULE)]
    schedule: String,
    /// The seed of the daily shuffle (the same seed, the same days)
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The site's title
    #[arg(long, default_value = "Birds of a Feather puzzles")]
    title: String,
    /// The folder to write (replaced whole if it holds an earlier site)
    #[arg(short, long, default_value = "site")]
    out: PathBuf,
}

/// The site's puzzles in the selection's order, each once (by id), and
/// only winnable ones: an unsolvable puzzle is left out with a warning.
fn entries(args: &SiteArgs) -> Result<Vec<Entry>> {
    let mut seen = HashSet::new();
    let mut list = Vec::new();
    let chosen = args.selection.select(&args.stores)?;
    let (chosen, unsolvable): (Vec<_>, Vec<_>) =
        chosen.into_iter().partition(|c| c.features.solvable);
    if !unsolvable.is_empty() {
        eprintln!(
            "warning: {} left out: a site shows only winnable deals",
            boaf_core::format::plural(unsolvable.len(), "unsolvable puzzle")
        );
    }
    if chosen.is_empty() {
        bail!("every chosen puzzle is unsolvable: a site shows only winnable deals");
    }
    for c in chosen {
        let grid = Grid::new(c.rows, c.cols).with_context(|| format!("puzzle {}", c.puzzle))?;
        let state =
            parse_state(&c.puzzle, Some(grid)).with_context(|| format!("puzzle {}", c.puzzle))?;
        let id = puzzle_id(&state);
        if seen.insert(id.clone()) {
            list.push(Entry {
                number: list.len() + 1,
                id,
                grade: grade(&c.features),
                n: c.n,
            });
        }
    }
    Ok(list)
}

/// Writes the files into a fresh folder beside `out`, then renames it into
/// place: a failure leaves no half-written site. An earlier site at `out`
/// is replaced; any other non-empty folder is refused.
fn write_site(out: &Path, files: &[(String, Vec<u8>)]) -> Result<()> {
    if out.exists() {
        // Replacing a folder deletes it: only a site boaf wrote, holding
        // nothing but a site's own files (a store, a CNAME or a .git kept
        // there would be lost).
        let entries = out
            .read_dir()
            .with_context(|| format!("reading {}", out.display()))?;
        let mut has_data = false;
        for entry in entries {
            let entry = entry.with_context(|| format!("reading {}", out.display()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let ours = entry.file_type().is_ok_and(|t| t.is_file())
                && files.iter().any(|(file, _)| *file == name);
            if !ours {
                bail!(
                    "{} holds {name}, which is not a file of a site boaf writes: \
                     give another --out (a site's folder is replaced whole)",
                    out.display()
                );
            }
            has_data |= name == DATA;
        }
        if !has_data && out.read_dir().is_ok_and(|mut d| d.next().is_some()) {
            bail!(
                "{} exists and is not a site boaf wrote: give another --out",
                out.display()
            );
        }
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).with_context(|| format!("creating {}", parent.display()))?;
    let name = out
        .file_name()
        .map_or("site".into(), |n| n.to_string_lossy().into_owned());
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    let old = parent.join(format!(".{name}.old-{}", std::process::id()));
    let written = (|| -> Result<()> {
        std::fs::create_dir(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        for (file, bytes) in files {
            let path = tmp.join(file);
            std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
        }
        if out.exists() {
            std::fs::rename(out, &old)
                .with_context(|| format!("moving {} aside", out.display()))?;
        }
        std::fs::rename(&tmp, out).with_context(|| format!("renaming into {}", out.display()))
    })();
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
        if old.exists() && !out.exists() {
            let _ = std::fs::rename(&old, out);
        }
    }
    written?;
    if old.exists() {
        std::fs::remove_dir_all(&old).with_context(|| format!("removing {}", old.display()))?;
    }
    Ok(())
}

/// Builds the site and writes it to `--out`.
pub fn site(args: SiteArgs) -> Result<ExitCode> {
    // Everything that can be wrong with the input is found before any write.
    let schedule: Schedule = args.schedule.parse()?;
    let from = args.from.unwrap_or_else(|| first_day(Day::today_utc()));
    let days = match (args.to, args.days) {
        (Some(to), _) if to < from => bail!("--to {to} is before --from {from}"),
        (Some(to), _) => from.until(to) as usize + 1,
        (None, Some(n)) => n,
        (None, None) => 30,
    };
    if days == 0 {
        bail!("--days must be at least 1");
    }
    let list = entries(&args)?;
    let grades: Vec<_> = list.iter().map(|e| e.grade).collect();
    let daily = plan(&grades, from, days, &schedule, args.seed)?;
    let files = pages(&args.title, &list, &daily);
    write_site(&args.out, &files)?;
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    println!(
        "wrote {} ({} files, {} bytes): {} puzzles, a daily puzzle from {from} to {}",
        args.out.display(),
        files.len(),
        bytes,
        list.len(),
        from.plus(days as i64 - 1),
    );
    Ok(ExitCode::SUCCESS)
}
