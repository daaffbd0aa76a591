//! `boaf`: the command line over the boaf library. Thin on purpose: it reads
//! input, calls the library, prints results, and shows progress on a terminal.

mod cli;
mod gencli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("boaf: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
