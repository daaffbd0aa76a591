//! What every command shares: argument parsers (grids, deal ranges, sizes),
//! reading a state from an argument or standard input with errors that point
//! at the column, reading a batch file of states, thread counts, a parallel
//! map with a progress bar, medians, and progress bars on a terminal.

use anyhow::{Context, Result, bail};
use boaf_core::engine::deal::deal_on;
use boaf_core::engine::notation::{ParseError, parse_grid, parse_puzzle, parse_state};
use boaf_core::engine::state::{Grid, State};
use boaf_core::format::size::whole_units;
use boaf_core::parallel::{self, ThreadPool};
use boaf_core::read::{TEXT_CAP, read_capped};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{BufRead, IsTerminal, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Temporary folders for the tests, shared with the core's.
#[cfg(test)]
#[path = "../core/tests/common/temp.rs"]
mod temp;

/// How states are written, for `--help`.
pub const STATE_HELP: &str = "\
STATES are written in the research notation: 2 characters per cell, row by row
(rank A23456789TJQK, suit CDHS), '--' or '..' for an empty cell, e.g.
  TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S
or as a grid with rows split by '/' or new lines:
  '-- -- KH -- / 2S -- JD QC / -- -- TS JS / -- -- 3C --'
A ten may be written 10 as well as T (10H5HKS10C…); output always uses T.
Without --grid, a deal number (like 617) or an id copied in the app is read too.
A state that starts with '--' can be written with '..' instead, given after
'--' on the command line, or read from standard input with '-'.";

/// Where a state comes from.
#[derive(Args)]
pub struct StateInput {
    /// The state (see below), or '-' to read it from standard input
    #[arg(allow_hyphen_values = true)]
    pub state: Option<String>,
    /// Use the deal with this number instead of a state (on --grid if given)
    #[arg(long, allow_negative_numbers = true, conflicts_with = "state")]
    pub deal: Option<i32>,
    /// The grid of a compact state that is not 4x4, written RxC (e.g. 3x5)
    #[arg(long, value_parser = grid_arg)]
    pub grid: Option<Grid>,
}

/// The soft address-space limit (`ulimit -v`, RLIMIT_AS) in bytes, from
/// `/proc/self/limits` (`None`: unlimited, or not Linux).
pub fn address_space_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The most a cap may be under an address-space limit of `limit` bytes when
/// `shares` searches hold their tables at once: a third of what is left
/// after 256 MiB for the program, its threads and its allocator (the tables
/// briefly need about twice their cap while they grow, and the allocator
/// reserves address space it does not use).
pub fn room_under(limit: usize, shares: usize) -> usize {
    // Whole MiB, so that the cap reads as a round size.
    (limit.saturating_sub(256 << 20) / 3 / shares.max(1)) >> 20 << 20
}

/// A size in bytes, written like `512M` or `4G`, shown the same way.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bytes(pub usize);

impl Bytes {
    /// The cap for `shares` searches at once, held within the address-space
    /// limit when there is one, so that reaching it is the cap's clean error
    /// rather than a failed allocation.
    pub fn fitted(self, shares: usize) -> usize {
        address_space_limit().map_or(self.0, |limit| self.0.min(room_under(limit, shares)))
    }
}

impl std::fmt::Display for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match whole_units(self.0) {
            Some((count, unit)) => write!(f, "{count}{unit}"),
            None => write!(f, "{}", self.0),
        }
    }
}

impl std::str::FromStr for Bytes {
    type Err = String;
    /// Parses a size like `512M`, `4G`, `1.5G` or a number of bytes.
    fn from_str(s: &str) -> Result<Bytes, String> {
        boaf_core::format::size::parse_size(s)
            .map(Bytes)
            .ok_or_else(|| format!("'{s}' is not a size (like 512M or 4G)"))
    }
}

/// Parses a grid written `RxC`.
pub fn grid_arg(s: &str) -> Result<Grid, String> {
    parse_grid(s).map_err(|e| e.kind.to_string())
}

/// Parses `A..B` into a half-open range of 32-bit deal numbers (B may be 2^31).
pub fn range_arg(s: &str) -> Result<(i64, i64), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("'{s}' is not a range A..B (e.g. 0..10000)"))?;
    let num = |t: &str, what: &str| {
        t.trim()
            .parse::<i64>()
            .map_err(|_| format!("'{t}' is not a whole number (the {what} of {s})"))
    };
    let (a, b) = (num(a, "start")?, num(b, "end")?);
    if a < i32::MIN as i64 || b > i32::MAX as i64 + 1 {
        return Err(format!(
            "deal numbers are 32-bit: {}..{} at most",
            i32::MIN,
            i32::MAX as i64 + 1
        ));
    }
    if a >= b {
        return Err(format!("the range {s} is empty (A..B needs A < B)"));
    }
    Ok((a, b))
}

/// The offending line of `text` with a caret under the error's column.
pub fn explain(text: &str, e: &ParseError) -> String {
    e.pointed(text, "  ")
}

/// Reads a state given on the command line or in a batch file: without
/// `grid`, a deal number or a puzzle id is read too (every command that
/// takes a state reads it here, so each takes the id).
pub fn parse_input(text: &str, grid: Option<Grid>) -> Result<State, ParseError> {
    match grid {
        None => parse_puzzle(text),
        Some(_) => parse_state(text, grid),
    }
}

/// Reads the state an input names.
pub fn read_state(input: &StateInput) -> Result<State> {
    if let Some(n) = input.deal {
        return Ok(deal_on(n, input.grid.unwrap_or(Grid::SQUARE4)));
    }
    let arg = match input.state.as_deref() {
        Some(arg) => arg,
        None if std::io::stdin().is_terminal() => {
            bail!(
                "give a STATE, --deal N, or '-' to read the state from standard input (see --help)"
            )
        }
        None => "-",
    };
    let text = if arg == "-" {
        let bytes = read_capped(std::io::stdin().lock(), TEXT_CAP, "a state")
            .context("reading the state from standard input")?;
        String::from_utf8(bytes).context("reading the state from standard input")?
    } else {
        arg.to_string()
    };
    parse_input(&text, input.grid).map_err(|e| anyhow::anyhow!("bad state: {}", explain(&text, &e)))
}

/// One state's line of a batch file.
pub struct BatchLine {
    /// The line's number, from 1.
    pub number: usize,
    /// The line before any `,label`, untrimmed so that error columns count
    /// from the start of the line.
    pub text: String,
}

impl BatchLine {
    /// The state the line writes (compact states on `grid` if given).
    pub fn state(&self, grid: Option<Grid>) -> Result<State, ParseError> {
        parse_input(&self.text, grid)
    }
}

/// The state lines of a batch file ('-' for standard input), one state per
/// line: blank lines and '#' comments are skipped, a trailing ',label' is
/// cut off.
pub struct BatchFile {
    /// The file as named ('-' for standard input).
    file: String,
    reader: Box<dyn BufRead>,
    /// Lines read so far, skipped ones included.
    number: usize,
    /// Bytes read so far, for a progress bar.
    read: u64,
}

impl BatchFile {
    /// Opens `file`, or standard input for '-'.
    pub fn open(file: &str) -> Result<BatchFile> {
        let reader: Box<dyn BufRead> = if file == "-" {
            Box::new(std::io::stdin().lock())
        } else {
            let f = std::fs::File::open(file).with_context(|| format!("opening {file}"))?;
            Box::new(std::io::BufReader::new(f))
        };
        Ok(BatchFile {
            file: file.to_string(),
            reader,
            number: 0,
            read: 0,
        })
    }

    /// The file's size in bytes (0 for standard input, whose size is unknown).
    pub fn size(&self) -> u64 {
        if self.file == "-" {
            return 0;
        }
        std::fs::metadata(&self.file).map_or(0, |m| m.len())
    }

    /// Bytes read so far (counting one newline a line).
    pub fn bytes_read(&self) -> u64 {
        self.read
    }
}

/// The longest line of a batch file: a state is a few hundred bytes at most,
/// so a longer line is not one, and is not read into memory whole.
const MAX_LINE: usize = 64 << 10;

impl BatchFile {
    /// The next line without its newline (`None` at the end), refused past
    /// [`MAX_LINE`] bytes.
    fn next_line(&mut self) -> Option<std::io::Result<String>> {
        let mut bytes = Vec::new();
        let read = (&mut self.reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut bytes);
        match read {
            Err(e) => return Some(Err(e)),
            Ok(0) => return None,
            Ok(_) => {}
        }
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
        } else if bytes.len() > MAX_LINE {
            return Some(Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the line is over 64 KiB, so not a state",
            )));
        }
        Some(
            String::from_utf8(bytes)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error())),
        )
    }
}

impl Iterator for BatchFile {
    type Item = Result<BatchLine>;

    fn next(&mut self) -> Option<Result<BatchLine>> {
        loop {
            self.number += 1;
            let line = match self.next_line()? {
                Ok(line) => line,
                Err(e) => {
                    let at = format!("reading {} line {}", self.file, self.number);
                    return Some(Err(anyhow::Error::new(e).context(at)));
                }
            };
            self.read += line.len() as u64 + 1;
            let text = line.split(',').next().unwrap_or("");
            if text.trim().is_empty() || text.trim_start().starts_with('#') {
                continue;
            }
            return Some(Ok(BatchLine {
                number: self.number,
                text: text.to_string(),
            }));
        }
    }
}

/// A pool of exactly `threads` threads (none for one); when the system
/// cannot start them the work runs on this thread, and standard error says
/// so rather than report threads that never ran.
pub fn pool(threads: usize) -> Option<ThreadPool> {
    let pool = parallel::pool(threads);
    if threads > 1 && pool.is_none() {
        eprintln!("boaf: could not start {threads} threads; working on one");
    }
    pool
}

/// `f` of every item, in order, on a pool of exactly `threads` threads, with
/// a progress bar named `what`; after an error no item is begun, and the
/// first error in order among the items run is returned.
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    what: &str,
    f: impl Fn(&T) -> Result<R> + Sync + Send,
) -> Result<Vec<R>> {
    let pb = bar(items.len() as u64, what);
    let failed = AtomicBool::new(false);
    let pool = pool(threads);
    let done = parallel::map(pool.as_ref(), items, |item| {
        if failed.load(Ordering::Relaxed) {
            return None;
        }
        let result = f(item);
        failed.fetch_or(result.is_err(), Ordering::Relaxed);
        pb.inc(1);
        Some(result)
    });
    pb.finish_and_clear();
    // Items are skipped only after an error, which `collect` then returns.
    done.into_iter().flatten().collect()
}

/// Every core of the machine.
pub fn all_cores() -> usize {
    boaf_core::parallel::cores()
}

/// The median of sorted values (NaN for none).
pub fn median(sorted: &[f64]) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// A progress bar on standard error when it is a terminal, hidden otherwise.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    styled_bar(len, what, "({eta})")
}

/// A progress bar like [`bar`] that shows the time spent rather than the
/// time left: for items whose times differ too much to guess it (one
/// puzzle's halfway ratio can take a thousand times another's).
pub fn timed_bar(len: u64, what: &str) -> ProgressBar {
    styled_bar(len, what, "({elapsed})")
}

/// A progress bar of `len` items named `what`, with `time` after the count
/// (hidden when standard error is not a terminal).
fn styled_bar(len: u64, what: &str, time: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template(&format!(
            "{{spinner}} {{msg}} [{{bar:30}}] {{pos}}/{{len}} {time}"
        ))
        .expect("valid template")
        .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_sizes() {
        assert_eq!(range_arg("0..10000"), Ok((0, 10000)));
        assert_eq!(range_arg("-5..5"), Ok((-5, 5)));
        assert_eq!(
            range_arg("2147483640..2147483648"),
            Ok((2147483640, 2147483648))
        );
        assert!(range_arg("0..2147483649").unwrap_err().contains("32-bit"));
        assert!(range_arg("5..5").unwrap_err().contains("empty"));
        assert!(
            range_arg("a..5")
                .unwrap_err()
                .contains("'a' is not a whole number")
        );
        assert!(range_arg("12").unwrap_err().contains("not a range"));
        assert_eq!("512M".parse(), Ok(Bytes(512 << 20)));
        assert_eq!("4g".parse(), Ok(Bytes(4 << 30)));
        assert_eq!("1000".parse(), Ok(Bytes(1000)));
        assert!("-1G".parse::<Bytes>().is_err());
        assert!("G".parse::<Bytes>().is_err());
        // Shown as written, so defaults read well in --help.
        assert_eq!(Bytes(6 << 30).to_string(), "6G");
        assert_eq!(Bytes(1536 << 20).to_string(), "1536M");
        assert_eq!(Bytes(1000).to_string(), "1000");
    }

    #[test]
    fn a_batch_file_gives_its_state_lines_with_their_numbers() {
        let dir = temp::TempDir::new("batch-lines");
        let file = dir.join("batch.txt");
        std::fs::write(&file, "# puzzles\nAS2S,label\n\n  , only a label\n 3S4S\n").unwrap();
        let mut batch = BatchFile::open(file.to_str().unwrap()).unwrap();
        let lines: Vec<(usize, String)> = batch
            .by_ref()
            .map(|l| l.map(|l| (l.number, l.text)).unwrap())
            .collect();
        assert_eq!(lines, [(2, "AS2S".to_string()), (5, " 3S4S".to_string())]);
        assert_eq!(batch.bytes_read(), batch.size());
        let err = BatchFile::open("no/such/file.txt").err().unwrap();
        assert_eq!(err.to_string(), "opening no/such/file.txt");
    }

    #[test]
    fn a_parallel_map_keeps_the_order_and_gives_the_first_error() {
        let items: Vec<u32> = (0..200).collect();
        for threads in [1, 2, 3] {
            let squares = parallel_map(&items, threads, "squares", |&x| Ok(x * x)).unwrap();
            assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>());
            let err = parallel_map(&items, threads, "one fails", |&x| {
                if x == 150 {
                    bail!("item {x}")
                }
                Ok(x)
            })
            .unwrap_err();
            assert_eq!(err.to_string(), "item 150");
        }
    }

    #[test]
    fn median_of_even_and_odd() {
        assert_eq!(median(&[1.0, 2.0, 9.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 4.0, 9.0]), 3.0);
    }
}
