//! `boaf grades`: the grading rule, how the puzzles of stores spread over
//! the grades, and the grades checked against people's play records (ratings
//! files, a study's rows), with the budgets fitted to them on `--fit`. The
//! figures are `boaf_core::study::grades`'; this file prints them.

use super::select::{Selection, plural_files};
use super::serve::DbArg;
use anyhow::{Result, bail};
use boaf_core::agents::grade::{Grade, GradeRule};
use boaf_core::format;
use boaf_core::study::grades::{self, Distribution, HumanCheck, Play, check, fit, is_synthetic};
use boaf_core::study::ratings::{RatingsTable, read_ratings};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// More on `boaf grades`, for `--help`.
pub const GRADES_HELP: &str = "\
A play record is a row of a ratings file (or of a study) whose player moved,
spent time or solved: a rating given without playing is not one. A play is
solved when the player solved it without asking for the solution; a grade's
time is the median active seconds of its solved plays. The grades are
monotone when the solve rate never rises and the time never falls from Easy
to Expert (over the grades that have plays).

--fit tries every increasing triple of the MCTS ladder's budgets as the
Easy, Medium and Hard thresholds, keeps those that give every grade at least
--min-plays plays, and picks the one with the most adjacent pairs of grades
in order (solve rate and time: 6 at most), then the highest rank correlation
of grade with time to solve, then the fewest ladder rungs from the default.

Examples:
  boaf grades puzzles/n8-E5.jsonl
  boaf grades puzzles/*.jsonl --where \"grade >= Medium\"
  boaf grades puzzles/*.jsonl --ratings ratings/ratings.csv --fit
  boaf grades puzzles/*.jsonl --study pilot";

/// Arguments of `boaf grades`.
#[derive(Args)]
pub struct GradesArgs {
    /// Store files (JSON lines, as `generate` writes)
    stores: Vec<PathBuf>,
    /// Which puzzles of the stores to count
    #[command(flatten)]
    selection: Selection,
    /// A ratings CSV (as the app or `boaf study export` writes it) whose play records check the grades; may be repeated
    #[arg(long, value_name = "CSV")]
    ratings: Vec<PathBuf>,
    /// Check the grades on a study's rows from the study database (the rows `boaf study export` writes)
    #[arg(long, value_name = "NAME")]
    study: Option<String>,
    #[command(flatten)]
    db: DbArg,
    /// Fit the three budget thresholds to the play records
    #[arg(long)]
    fit: bool,
    /// The fewest plays each grade needs in a fit
    #[arg(long, value_name = "N", default_value_t = 5)]
    min_plays: usize,
}

/// Runs `boaf grades`.
pub fn grades(args: GradesArgs) -> Result<ExitCode> {
    if args.stores.is_empty() && args.ratings.is_empty() && args.study.is_none() {
        bail!("give store files, --ratings CSV or --study NAME");
    }
    let rule = GradeRule::default();
    let mut out = std::io::stdout().lock();
    writeln!(out, "rule (the weakest player that solves it):")?;
    for line in rule.describe() {
        writeln!(out, "  {line}")?;
    }
    if !args.stores.is_empty() {
        let list = args.selection.select(&args.stores)?;
        let d = Distribution::of(&rule, list.iter().map(|c| &c.features));
        writeln!(
            out,
            "\n{} in {}:",
            format::plural(d.total(), "puzzle"),
            plural_files(&args.stores)
        )?;
        print_distribution(&mut out, &d)?;
    }
    let mut sources: Vec<(String, RatingsTable)> = Vec::new();
    for file in &args.ratings {
        sources.push((file.display().to_string(), read_ratings(file)?));
    }
    if let Some(name) = &args.study {
        let table = boaf_server::export::table(&args.db.open()?, name)?;
        sources.push((format!("study {name}"), table));
    }
    if sources.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let mut all = Vec::new();
    writeln!(out, "\nplay records:")?;
    for (source, table) in &sources {
        for s in &table.skipped {
            eprintln!("boaf: {source}: {s}");
        }
        let (plays, others) = grades::plays(table);
        writeln!(
            out,
            "  {source}: {} of {} ({} without a play)",
            format::plural(plays.len(), "play record"),
            format::plural(table.rows.len(), "row"),
            others
        )?;
        all.extend(plays);
    }
    if all.is_empty() {
        writeln!(out, "no play records: no human check")?;
        return Ok(ExitCode::SUCCESS);
    }
    print_raters(&mut out, &all)?;
    // People's figures are people's: synthetic plays are checked only when
    // there is nothing else (and the line above says they are made up).
    let (people, made_up): (Vec<Play>, Vec<Play>) =
        all.into_iter().partition(|p| !is_synthetic(&p.rater));
    let all = if people.is_empty() {
        made_up
    } else {
        if !made_up.is_empty() {
            writeln!(
                out,
                "  the {} by synthetic raters are left out below",
                format::plural(made_up.len(), "play record")
            )?;
        }
        people
    };
    let human = check(&all, &rule);
    writeln!(out, "\nby the rule above:")?;
    print_check(&mut out, &human)?;
    if !args.fit {
        if !human.monotone() {
            writeln!(out, "not monotone: --fit fits the budgets to these plays")?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    match fit(&all, &rule, args.min_plays) {
        None => writeln!(
            out,
            "\nno fit: no triple of budgets gives every grade {}",
            format::plural(args.min_plays, "play")
        )?,
        Some(f) => {
            let [e, m, h] = f.rule.budgets;
            writeln!(
                out,
                "\nfitted: budgets {e}, {m}, {h} (default {}), best of {} of the {} increasing \
                 triples of the ladder with {} in every grade:",
                join(&rule.budgets),
                f.eligible,
                f.tried,
                format::plural(args.min_plays, "play"),
            )?;
            print_check(&mut out, &f.check)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Numbers joined by ", ".
fn join(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// A share of a total as a percentage with one decimal.
fn share(part: usize, total: usize) -> String {
    format::fixed((total > 0).then(|| 100.0 * part as f64 / total as f64), 1) + "%"
}

fn print_distribution(out: &mut impl Write, d: &Distribution) -> Result<()> {
    writeln!(out, "  {:<8} {:>7}  {:>6}", "grade", "puzzles", "share")?;
    for g in Grade::ALL {
        let n = d.counts[g.index()];
        writeln!(out, "  {:<8} {n:>7}  {:>6}", g, share(n, d.total()))?;
    }
    let ungraded = d.unsolvable + d.missing;
    writeln!(
        out,
        "  {:<8} {ungraded:>7}  {:>6}  ({} unsolvable, {} without the difficulty features)",
        "ungraded",
        share(ungraded, d.total()),
        d.unsolvable,
        d.missing
    )?;
    Ok(())
}

/// Who played, saying which raters are synthetic (not people).
fn print_raters(out: &mut impl Write, plays: &[Play]) -> Result<()> {
    let raters = grades::raters(plays);
    let named: Vec<String> = raters
        .iter()
        .map(|(r, n)| {
            let name = if r.is_empty() { "(no name)" } else { r };
            format!("{name} {n}")
        })
        .collect();
    writeln!(out, "  raters: {}", named.join(", "))?;
    let synthetic: usize = raters
        .iter()
        .filter(|(r, _)| is_synthetic(r))
        .map(|(_, n)| n)
        .sum();
    if synthetic > 0 {
        writeln!(
            out,
            "  {} by synthetic raters: made up, not played by people",
            format::plural(synthetic, "play record")
        )?;
    }
    Ok(())
}

fn print_check(out: &mut impl Write, c: &HumanCheck) -> Result<()> {
    writeln!(
        out,
        "  {:<8} {:>5}  {:>6}  {:>10}  {:>9}",
        "grade", "plays", "solved", "solve rate", "median s"
    )?;
    for g in &c.grades {
        writeln!(
            out,
            "  {:<8} {:>5}  {:>6}  {:>10}  {:>9}",
            g.grade,
            g.plays,
            g.solved,
            g.solve_rate()
                .map_or(format::MISSING.into(), |r| format!("{:.1}%", 100.0 * r)),
            format::fixed(g.median_seconds, 1)
        )?;
    }
    if c.ungraded > 0 {
        writeln!(
            out,
            "  {} of ungraded puzzles",
            format::plural(c.ungraded, "play")
        )?;
    }
    let yes = |b: bool| if b { "yes" } else { "no" };
    writeln!(
        out,
        "  solve rate monotone (never rises): {}; time monotone (never falls): {}; \
         rank correlation of grade with time: {}",
        yes(c.solve_rate_monotone),
        yes(c.time_monotone),
        format::fixed(c.correlation, 2)
    )?;
    Ok(())
}
