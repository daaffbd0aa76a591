//! `boaf`: the command line over `boaf-core`, and the door to the app
//! (`boaf-app`, behind the default feature `app`). Thin on purpose: it reads
//! input, calls the core, prints results, and shows progress on a terminal.

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        // Output piped into `head` and closed early is not an error.
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("boaf: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
