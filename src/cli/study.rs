//! The study's command: `boaf regress`, the Regression panel's table on the
//! command line.

use super::serve::DbArg;
use anyhow::{Context, Result, bail};
use boaf_core::engine::feature::Feature;
use boaf_core::format;
use boaf_core::study::mixed::{self, Judgement, MixedFit, Model};
use boaf_core::study::ratings::{RatingsTable, ValueProblem, read_ratings};
use boaf_core::study::regress::{Coef, DEFAULT_FEATURES, Fit, table_data};
use boaf_core::study::reliability;
use clap::Args;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// More on `boaf regress`, for `--help`.
pub const REGRESS_HELP: &str = "\
The fit is ordinary least squares of the rating on the chosen features, each
z-scored (minus its mean, over its sample standard deviation), with an
intercept. Rows with no value for the rating or a chosen feature are left
out; so are rows where one of them is not a number, and each such value is
reported on stderr with its line and column. Any feature below can be
fitted on.

When the `rater` column names more than one rater, the fit is a linear
mixed model instead, rating ~ features + (1 | rater) + (1 | puzzle) by REML
(as lme4's lmer), with t read on puzzles − k − 1 df; the table adds the
variance components, the split-half reliability of the puzzle means, their
ICC, the R² ceiling beside the features' R² on the puzzle means, and for
each coefficient about how many more ratings would make it significant
(α = 0.05 two-sided, 80% power: n·(2.80/|t|)² in all).

With --study NAME instead of a file, the study's ratings are read from
the study database (--db, default ratings/studies.sqlite): the rows
`boaf study export` writes, fitted as that CSV would be.

Examples:
  boaf regress ratings/example.csv --features halfway_ratio,rank_clusters
  boaf regress --study pilot";

/// Arguments of `boaf regress`.
#[derive(Args)]
pub struct RegressArgs {
    /// The ratings CSV file (as the app writes it)
    #[arg(required_unless_present = "study", conflicts_with = "study")]
    file: Option<PathBuf>,
    /// Fit a study's ratings from the study database instead (the rows `boaf study export` writes)
    #[arg(long, value_name = "NAME")]
    study: Option<String>,
    #[command(flatten)]
    db: DbArg,
    /// Comma-separated features to fit on
    #[arg(long, short, default_values_t = DEFAULT_FEATURES, value_delimiter = ',')]
    features: Vec<Feature>,
    /// Print the fit as JSON
    #[arg(long)]
    json: bool,
    /// Also print the fit as a user energy (minus the predicted rating) with this name
    #[arg(long, value_name = "NAME")]
    energy: Option<String>,
}

/// What every JSON report of `boaf regress` starts with: the file and the rows used.
#[derive(Serialize)]
struct Common<'a> {
    file: String,
    features: &'a [String],
    left_out: usize,
    missing: usize,
    unreadable: usize,
    value_problems: &'a [ValueProblem],
    skipped_rows: Vec<String>,
}

#[derive(Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    common: Common<'a>,
    fit: &'a Fit,
}

/// The ratings to fit and where they come from: the CSV file, or the
/// study's rows as `boaf study export` writes them (one owner of the rows).
fn ratings_of(args: &RegressArgs) -> Result<(RatingsTable, String)> {
    if let Some(name) = &args.study {
        let source = format!("study {name}");
        let table = boaf_server::export::table(&args.db.open()?, name)?;
        return Ok((table, source));
    }
    let file = args.file.as_ref().expect("clap asks for a file or --study");
    Ok((read_ratings(file)?, file.display().to_string()))
}

/// Runs `boaf regress`.
pub fn regress(args: RegressArgs) -> Result<ExitCode> {
    let (table, source) = ratings_of(&args)?;
    // The regression reads the ratings' columns by name.
    let features: Vec<String> = args
        .features
        .iter()
        .map(|f| f.column().to_string())
        .collect();
    for s in &table.skipped {
        eprintln!("boaf: {}: {s}", source);
    }
    let data = table_data(&table, &features).with_context(|| source.clone())?;
    for p in &data.problems {
        eprintln!("boaf: {}: {p}", source);
    }
    let (raters, puzzles) = (data.texts(&table, "rater"), data.texts(&table, "puzzle"));
    let common = Common {
        file: source.clone(),
        features: &features,
        left_out: data.left_out,
        missing: data.missing,
        unreadable: data.unreadable,
        value_problems: &data.problems,
        skipped_rows: table.skipped.iter().map(|s| s.to_string()).collect(),
    };
    let fitted = match mixed::choose(&features, &data.x, &data.y, &raters, &puzzles) {
        Ok(Model::Ols(f)) => f,
        Ok(Model::Mixed(m)) => {
            let judged = mixed::judge(&features, &data.x, &data.y, &raters, &puzzles);
            return print_mixed(&args, common, data.left_out_summary(), &m, &judged);
        }
        Err(e) => match data.left_out_summary() {
            Some(why) => bail!("{}: no fit: {e} ({why})", source),
            None => bail!("{}: no fit: {e}", source),
        },
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let report = Report {
            common,
            fit: &fitted,
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        print_table(&mut out, &fitted, data.left_out_summary())?;
    }
    if let Some(name) = args.energy {
        let about = format!("Minus the rating predicted from {}", source);
        writeln!(
            out,
            "\n{}",
            fitted.to_energy_toml_over(&name, &about, data.cards)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The mixed model's JSON report.
#[derive(Serialize)]
struct MixedReport<'a> {
    #[serde(flatten)]
    common: Common<'a>,
    mixed: &'a MixedFit,
    reliability: &'a Judgement,
}

/// Prints a mixed fit: the table, the variance components, the reliability
/// figures and, if asked, the fitted energy.
fn print_mixed(
    args: &RegressArgs,
    common: Common,
    left_out: Option<String>,
    m: &MixedFit,
    judged: &Judgement,
) -> Result<ExitCode> {
    let source = common.file.clone();
    let mut out = std::io::stdout().lock();
    if args.json {
        let report = MixedReport {
            common,
            mixed: m,
            reliability: judged,
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        print_mixed_table(&mut out, m, judged, left_out)?;
    }
    if let Some(name) = &args.energy {
        let about = format!("Minus the rating predicted from {}", source);
        writeln!(out, "\n{}", m.fixed_effects().to_energy_toml(name, &about))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_mixed_table(
    out: &mut impl Write,
    m: &MixedFit,
    judged: &Judgement,
    left_out: Option<String>,
) -> Result<()> {
    let width = name_width(&m.coefs);
    writeln!(out, "Model: {}", mixed::SEVERAL_RATERS_MODEL)?;
    writeln!(
        out,
        "{:<width$}  {:>12}  {:>10}  {:>8}  {:>8}  {:>13}",
        "Feature",
        mixed::ESTIMATE.label,
        mixed::STD_ERROR.label,
        mixed::T.label,
        mixed::P.label,
        reliability::MORE_RATINGS.label
    )?;
    for (c, more) in std::iter::once(&m.intercept)
        .chain(&m.coefs)
        .zip(&m.more_ratings)
    {
        let more = more.map_or("—".to_string(), |k| k.to_string());
        writeln!(out, "{}  {more:>13}", coef_row(c, width))?;
    }
    writeln!(out, "{}", m.summary())?;
    let shares: Vec<String> = m
        .components
        .shares()
        .iter()
        .map(|(f, v, share)| format!("{} {v:.4} ({:.0}%)", f.label, 100.0 * share))
        .collect();
    writeln!(out, "variance: {}", shares.join(" · "))?;
    let split = judged.split_half.as_ref();
    writeln!(
        out,
        "puzzle means: {} {} ({} {}, {} puzzles) · {} {}",
        reliability::SPEARMAN_BROWN.label,
        format::fixed(split.map(|s| s.reliability), 3),
        reliability::SPLIT_HALF_R.label,
        format::fixed(split.map(|s| s.r), 3),
        split.map_or(0, |s| s.puzzles),
        reliability::ICC.label,
        format::fixed(judged.icc, 3)
    )?;
    writeln!(
        out,
        "{} {} · {} {}",
        reliability::R2_CEILING.label,
        format::fixed(judged.r2_ceiling, 3),
        reliability::FEATURES_R2.label,
        format::fixed(judged.features_r2, 3)
    )?;
    // The figures' definitions are the app's tooltips: one wording for both.
    writeln!(out, "\nWhat the figures are:")?;
    for f in mixed::FIGURES {
        writeln!(out, "  {}: {}", f.label, f.help)?;
    }
    if let Some(left_out) = left_out {
        writeln!(out, "{left_out}")?;
    }
    for w in &m.warnings {
        writeln!(out, "warning: {w}")?;
    }
    Ok(())
}

/// The width of the table's first column: the longest feature name.
fn name_width(coefs: &[Coef]) -> usize {
    coefs
        .iter()
        .map(|c| c.name.len())
        .max()
        .unwrap_or(0)
        .max("Feature".len())
}

/// One coefficient's row: name, estimate, standard error, t and p.
fn coef_row(c: &Coef, width: usize) -> String {
    format!(
        "{:<width$}  {:>12}  {:>10}  {:>8}  {:>8}",
        c.name,
        format::fixed(Some(c.estimate), 4),
        format::fixed(c.std_error, 4),
        format::fixed(c.t, 3),
        format::p_value(c.p)
    )
}

fn print_table(out: &mut impl Write, fit: &Fit, left_out: Option<String>) -> Result<()> {
    let width = name_width(&fit.coefs);
    writeln!(
        out,
        "{:<width$}  {:>12}  {:>10}  {:>8}  {:>8}",
        "Feature", "Coefficient", "Std. Error", "t", "p"
    )?;
    for c in std::iter::once(&fit.intercept).chain(&fit.coefs) {
        writeln!(out, "{}", coef_row(c, width))?;
    }
    writeln!(out, "{}", fit.summary())?;
    if let Some(left_out) = left_out {
        writeln!(out, "{left_out}")?;
    }
    for w in &fit.warnings {
        writeln!(out, "warning: {w}")?;
    }
    Ok(())
}
