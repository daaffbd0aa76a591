//! The study's command: `boaf regress`, the Regression panel's table on the
//! command line.

use anyhow::{Result, bail};
use boaf_core::format;
use boaf_core::study::ratings::read_ratings;
use boaf_core::study::regress::{DEFAULT_FEATURES, Fit, fit, table_data};
use clap::Args;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// More on `boaf regress`, for `--help`.
pub const REGRESS_HELP: &str = "\
The fit is ordinary least squares of the rating on the chosen features, each
z-scored (minus its mean, over its sample standard deviation), with an
intercept. Rows missing a chosen feature or the rating are left out.
Features: n, solvable, suit_diversity, rank_diversity, dominant_suit_ratio,
rank_clusters, avg_flockability, depth1_ratio, depth2_ratio, depth3_ratio,
halfway_ratio, midgame_tension.

Example:
  boaf regress ratings/example.csv --features halfway_ratio,rank_clusters";

/// Arguments of `boaf regress`.
#[derive(Args)]
pub struct RegressArgs {
    /// The ratings CSV file (as the app writes it)
    file: PathBuf,
    /// Comma-separated features to fit on
    #[arg(long, short, default_values_t = DEFAULT_FEATURES.map(String::from), value_delimiter = ',')]
    features: Vec<String>,
    /// Print the fit as JSON
    #[arg(long)]
    json: bool,
    /// Also print the fit as a user energy (minus the predicted rating) with this name
    #[arg(long, value_name = "NAME")]
    energy: Option<String>,
}

#[derive(Serialize)]
struct Report<'a> {
    file: String,
    features: &'a [String],
    left_out: usize,
    skipped_rows: Vec<String>,
    fit: &'a Fit,
}

/// Runs `boaf regress`.
pub fn regress(args: RegressArgs) -> Result<ExitCode> {
    let table = read_ratings(&args.file)?;
    let features: Vec<String> = args
        .features
        .iter()
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty())
        .collect();
    for s in &table.skipped {
        eprintln!("boaf: {}: {s}", args.file.display());
    }
    let data = table_data(&table, &features)?;
    let left_out = data.left_out;
    let fitted = match fit(&features, &data.x, &data.y) {
        Ok(f) => f,
        Err(e) => bail!("{}: no fit: {e}", args.file.display()),
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let report = Report {
            file: args.file.display().to_string(),
            features: &features,
            left_out,
            skipped_rows: table.skipped.iter().map(|s| s.to_string()).collect(),
            fit: &fitted,
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        print_table(&mut out, &fitted, left_out)?;
    }
    if let Some(name) = args.energy {
        let about = format!("Minus the rating predicted from {}", args.file.display());
        writeln!(out, "\n{}", fitted.to_energy_toml(&name, &about))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_table(out: &mut impl Write, fit: &Fit, left_out: usize) -> Result<()> {
    let width = fit
        .coefs
        .iter()
        .map(|c| c.name.len())
        .max()
        .unwrap_or(0)
        .max("Feature".len());
    writeln!(
        out,
        "{:<width$}  {:>12}  {:>10}  {:>8}  {:>8}",
        "Feature", "Coefficient", "Std. Error", "t", "p"
    )?;
    for c in std::iter::once(&fit.intercept).chain(&fit.coefs) {
        writeln!(
            out,
            "{:<width$}  {:>12}  {:>10}  {:>8}  {:>8}",
            c.name,
            format::fixed(Some(c.estimate), 4),
            format::fixed(c.std_error, 4),
            format::fixed(c.t, 3),
            format::p_value(c.p)
        )?;
    }
    writeln!(out, "{}", fit.summary())?;
    if left_out > 0 {
        writeln!(
            out,
            "{left_out} rows left out (a chosen feature or the rating is missing)"
        )?;
    }
    for w in &fit.warnings {
        writeln!(out, "warning: {w}")?;
    }
    Ok(())
}
