//! The command line: parsing with clap, then one file per command group —
//! [`engine`] (`solve`, `deals`, `analyze`, `halfway`, `deal`), [`generator`]
//! (`generate`, `puzzles`, `energies`), [`study`] (`regress`), [`serve`]
//! (`study`, `serve`: rating studies), `features`
//! (the features' table, from the core's metadata), [`agents`]
//! (`agents`, the players' win rates), [`tune`] (the greedy weights' genetic
//! algorithm) and [`bench`]
//! (every benchmark) — over what they share in [`input`]. The work itself is
//! in `boaf-core`; with no command, `boaf` opens the app (in a build with the
//! default feature `app`; a build without it says so and prints the help).

mod agents;
mod bench;
mod bench_kill;
#[cfg(feature = "serve")]
mod bench_serve;
mod bench_soak;
mod book;
mod engine;
mod generator;
mod grades;
mod input;
mod select;
mod serve;
mod site;
mod study;
mod tune;

use anyhow::Result;
use boaf_core::engine::feature::Feature;
use boaf_core::engine::limits::SearchError;
use boaf_core::generator::descent::GenError;
use clap::{Parser, Subcommand};
use input::STATE_HELP;
use std::process::ExitCode;

/// Design and check Birds of a Feather solitaire puzzles.
#[derive(Parser)]
#[command(name = "boaf", version, after_help = STATE_HELP)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Solve a state: solvable or not, a solution, and the class that proves unsolvability
    #[command(after_help = STATE_HELP)]
    Solve(engine::SolveArgs),
    /// Check FreeCell-numbered deals A..B (B excluded) and list the unsolvable ones
    Deals(engine::DealsArgs),
    /// Count distinct and solvable states at every depth, with the ratios and all features
    #[command(after_help = STATE_HELP)]
    Analyze(engine::AnalyzeArgs),
    /// The exact halfway ratio of each puzzle, with its numerator and denominator, without the full analysis
    #[command(after_help = STATE_HELP)]
    Halfway(engine::HalfwayArgs),
    /// Print a FreeCell-numbered deal in both notations
    Deal {
        /// The deal number (a 32-bit signed integer)
        #[arg(allow_negative_numbers = true)]
        number: i32,
    },
    /// Generate puzzles by hill descent over an energy, into a store file
    #[command(after_help = with_features(generator::GENERATE_HELP))]
    Generate(generator::GenerateArgs),
    /// List, filter and sort the puzzles of a store file
    #[command(after_help = Feature::help())]
    Puzzles(generator::PuzzlesArgs),
    /// List the energies (built-in and from files) with their ids and definitions
    Energies(generator::EnergiesArgs),
    /// Fit ratings on features: the Regression panel's table
    #[command(after_help = with_features(study::REGRESS_HELP))]
    Regress(study::RegressArgs),
    /// The grades: the rule, their spread over stores, and people's solve rate and time per grade (--fit: budgets fitted to them)
    #[command(after_help = grades::GRADES_HELP)]
    Grades(grades::GradesArgs),
    /// Rating studies: create, list, open, close and export them
    Study(serve::StudyArgs),
    /// Write a static puzzle site: an index by grade, shareable play links and a daily puzzle
    Site(site::SiteArgs),
    /// Serve the rating studies to raters over HTTP until Ctrl+C
    #[cfg(feature = "serve")]
    Serve(serve::ServeArgs),
    /// Every feature: its column name, full name, definition and range (the README's table)
    Features,
    /// Write a printable PDF puzzle book: grades, ids, a rules box, the solutions at the back
    Book(book::BookArgs),
    /// Play deals with an agent (random, greedy, flat Monte Carlo, MCTS, best-first): win rate with a 95% Wilson interval, and a paired test against a second agent
    #[command(after_help = agents::AGENTS_HELP)]
    Agents(agents::AgentsArgs),
    /// Tune the greedy agent's weights with a genetic algorithm (seed 003), tested on held-out deals against the defaults
    #[command(after_help = tune::TUNE_HELP)]
    Tune(tune::TuneArgs),
    /// Open the desktop app (what `boaf` does with no command)
    App,
    /// Measure the solver, the analysis, the estimator and the generator (figures for the README)
    #[command(subcommand)]
    Bench(bench::BenchCommand),
}

/// Opens the app, or explains why it cannot and points to the CLI.
#[cfg(feature = "app")]
fn open_app() -> ExitCode {
    const CLI: &str = "Everything also works from the command line; see `boaf --help`:
  boaf generate -n 8 --count 5      generate puzzles into puzzles/
  boaf puzzles puzzles/n8-E5.jsonl  list them
  boaf analyze <PUZZLE>             per-depth counts and features
  boaf regress ratings/example.csv  the regression table";
    let has_display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if cfg!(target_os = "linux") && !has_display {
        eprintln!(
            "boaf: no display to open the app on (DISPLAY and WAYLAND_DISPLAY are unset).\n\
             Run it on a desktop, or under a virtual display (xvfb-run cargo run --release).\n{CLI}"
        );
        return ExitCode::from(2);
    }
    match boaf_app::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("boaf: could not open the app's window: {e}\n{CLI}");
            ExitCode::from(2)
        }
    }
}

/// Says that this build has no app and how to get one, then prints the help.
#[cfg(not(feature = "app"))]
fn open_app() -> ExitCode {
    use clap::CommandFactory;
    eprintln!(
        "boaf: this build has no app (it was built without the default feature `app`).\n\
         For the app, build boaf with its default features: `cargo install --path .`\n\
         or `cargo run --release` in the repository.\n"
    );
    eprintln!("{}", Cli::command().render_help());
    ExitCode::from(2)
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<ExitCode> {
    let Some(command) = cli.command else {
        return Ok(open_app());
    };
    // Commands with `--memory-cap` say how to give a search more room.
    let takes_cap = matches!(
        command,
        Command::Solve(_)
            | Command::Deals(_)
            | Command::Analyze(_)
            | Command::Halfway(_)
            | Command::Generate(_)
            | Command::Bench(_)
    );
    let ran = match command {
        Command::App => Ok(open_app()),
        Command::Solve(args) => engine::solve(args),
        Command::Deals(args) => engine::deals(args),
        Command::Analyze(args) => engine::analyze(args),
        Command::Halfway(args) => engine::halfway(args),
        Command::Deal { number } => engine::show_deal(number),
        Command::Generate(args) => generator::generate(args),
        Command::Puzzles(args) => generator::puzzles(args),
        Command::Energies(args) => generator::energies(args),
        Command::Regress(args) => study::regress(args),
        Command::Grades(args) => grades::grades(args),
        Command::Study(args) => serve::study(args),
        Command::Site(args) => site::site(args),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve::serve(args),
        Command::Features => {
            print!("{}", Feature::table());
            Ok(ExitCode::SUCCESS)
        }
        Command::Book(args) => book::book(args),
        Command::Agents(args) => agents::agents(args),
        Command::Tune(args) => tune::tune_weights(args),
        Command::Bench(cmd) => bench::bench(cmd),
    };
    ran.map_err(|e| {
        if takes_cap && over_cap(&e) {
            anyhow::anyhow!("{e:#}\n{}", cap_hint())
        } else {
            e
        }
    })
}

/// A command's more help, then every feature with its definition, so
/// `--help` reads the one definition of each feature.
fn with_features(help: &str) -> String {
    format!("{help}\n\n{}", Feature::help())
}

/// What to do about a search that met the memory cap.
pub const CAP_HINT: &str =
    "  give it more with --memory-cap SIZE (e.g. --memory-cap 8G) if the machine has the memory";

/// [`CAP_HINT`], and the address-space limit when there is one (it holds
/// every cap within it, whatever `--memory-cap` says).
pub fn cap_hint() -> String {
    match input::address_space_limit() {
        Some(limit) => format!(
            "{CAP_HINT}\n  and raise the address-space limit (ulimit -v) of {}: it holds each cap to {} at most",
            boaf_core::format::size::size_text(limit),
            boaf_core::format::size::size_text(input::room_under(limit, 1)),
        ),
        None => CAP_HINT.to_string(),
    }
}

/// Whether an error is a search that met the memory cap.
fn over_cap(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<SearchError>(),
            Some(SearchError::MemoryCap { .. })
        ) || matches!(
            c.downcast_ref::<GenError>(),
            Some(GenError::Search(SearchError::MemoryCap { .. }))
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn a_search_over_the_cap_is_told_apart() {
        let capped = anyhow::Error::new(SearchError::MemoryCap { cap: 1 << 30 });
        assert!(over_cap(&capped.context("deal 6")));
        let gen_capped = anyhow::Error::new(GenError::Search(SearchError::MemoryCap { cap: 1 }));
        assert!(over_cap(&gen_capped));
        assert!(!over_cap(&anyhow::Error::new(SearchError::Cancelled)));
        assert!(!over_cap(&anyhow::anyhow!("memory cap")));
    }

    #[test]
    fn command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
