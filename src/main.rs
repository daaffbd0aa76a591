//! `boaf`: the command line over `boaf-core`, and the door to the app
//! (`boaf-app`, behind the default feature `app`). Thin on purpose: it reads
//! input, calls the core, prints results, and shows progress on a terminal.

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    bound_the_freed_memory_kept();
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

/// Bounds the freed memory glibc keeps: at most 4 MiB free at the top of
/// an arena, and blocks from 32 MiB up mapped on their own.
///
/// Each worker thread allocates from an arena of its own, and glibc gives
/// such an arena's free top back only past its trim threshold, which it
/// raises (to 64 MiB) as freed blocks raise its mmap threshold; nor does
/// `malloc_trim` shrink it. So a worker kept the top its largest analysis
/// ever reached: an hour of generation grew the RSS by 12 to 35 % while the
/// memory in use stayed flat (README, Reliability). Fixed values turn the
/// raising off; 32 MiB is the highest the raising reaches, so tables come
/// from the arena as before. Measured side by side on `bench search`:
/// no slower (a 256 KiB mmap threshold instead cost 4 % and 5× the system time).
fn bound_the_freed_memory_kept() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; it runs before any
    // other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 4 << 20);
    }
}
