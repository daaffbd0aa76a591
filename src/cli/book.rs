//! `boaf book`: a printable PDF puzzle book of the chosen puzzles, with
//! grades, ids and the solutions at the back (the work is in `boaf-book`,
//! which the app's "Export book…" shares).

use super::input::bar;
use super::select::Selection;
use anyhow::{Context, Result};
use boaf_book::{DEFAULT_TITLE, Options, Order, Paper, PerPage};
use boaf_core::durable::write_atomically;
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// The order of the book's puzzles, on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum OrderArg {
    /// Easiest first (ungraded last), otherwise as chosen
    Grade,
    /// As chosen (by --sort, or as stored)
    Given,
}

/// `boaf book`'s arguments.
#[derive(Args)]
pub struct BookArgs {
    /// Puzzle store files (JSONL)
    #[arg(required = true, value_name = "STORE")]
    stores: Vec<PathBuf>,
    #[command(flatten)]
    selection: Selection,
    /// The puzzles' order
    #[arg(long, value_enum, default_value = "grade")]
    order: OrderArg,
    /// Puzzles a page: 1, 2, 4 or 6
    #[arg(long, default_value = "4", value_name = "N")]
    per_page: PerPage,
    /// The paper: a4 or letter
    #[arg(long, default_value = "a4")]
    paper: Paper,
    /// The title on the title page
    #[arg(long, default_value = DEFAULT_TITLE)]
    title: String,
    /// Where to write the book
    #[arg(short, long, default_value = "book.pdf", value_name = "FILE")]
    output: PathBuf,
}

/// Writes the book: chooses the puzzles, solves them, lays the pages out
/// and writes the PDF whole (a failure leaves no file behind).
pub fn book(args: BookArgs) -> Result<ExitCode> {
    let chosen = args.selection.select(&args.stores)?;
    let order = match args.order {
        OrderArg::Grade => Order::Grade,
        OrderArg::Given => Order::Given,
    };
    let options = Options {
        title: args.title,
        date: boaf_book::today(),
        per_page: args.per_page,
        paper: args.paper,
    };
    let pb = bar(chosen.len() as u64, "solving");
    let limits = boaf_core::engine::limits::Limits::default();
    let (count, pdf) = boaf_book::make(&chosen, order, &options, &limits, |done| {
        pb.set_position(done as u64)
    })?;
    pb.finish_and_clear();
    write_atomically(&args.output, &pdf)
        .with_context(|| format!("writing the book {}", args.output.display()))?;
    println!(
        "wrote {}: {} puzzles, {} KB",
        args.output.display(),
        count,
        pdf.len().div_ceil(1024)
    );
    Ok(ExitCode::SUCCESS)
}
