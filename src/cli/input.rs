//! What every command shares: argument parsers (grids, deal ranges, sizes),
//! reading a state from an argument or standard input with errors that point
//! at the column, thread counts, medians, and progress bars on a terminal.

use anyhow::{Context, Result, bail};
use boaf_core::engine::deal::deal_on;
use boaf_core::engine::notation::{ParseError, parse_grid, parse_state};
use boaf_core::engine::state::{Grid, State};
use boaf_core::format::size::whole_units;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Read};
use std::time::Duration;

/// How states are written, for `--help`.
pub const STATE_HELP: &str = "\
STATES are written in the research notation: 2 characters per cell, row by row
(rank A23456789TJQK, suit CDHS), '--' or '..' for an empty cell, e.g.
  TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S
or as a grid with rows split by '/' or new lines:
  '-- -- KH -- / 2S -- JD QC / -- -- TS JS / -- -- 3C --'
A ten may be written 10 as well as T (10H5HKS10C…); output always uses T.
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

/// A size in bytes, written like `512M` or `4G`, shown the same way.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bytes(pub usize);

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
        let t = s.trim();
        let (digits, mult) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
            Some('K') => (&t[..t.len() - 1], 1usize << 10),
            Some('M') => (&t[..t.len() - 1], 1 << 20),
            Some('G') => (&t[..t.len() - 1], 1 << 30),
            _ => (t, 1),
        };
        digits
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v > 0.0)
            .map(|v| Bytes((v * mult as f64) as usize))
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
    let line = text.lines().nth(e.line.saturating_sub(1)).unwrap_or("");
    format!(
        "{e}\n  {line}\n  {}^",
        " ".repeat(e.column.saturating_sub(1))
    )
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
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading the state from standard input")?;
        s
    } else {
        arg.to_string()
    };
    parse_state(&text, input.grid).map_err(|e| anyhow::anyhow!("bad state: {}", explain(&text, &e)))
}

/// Every core of the machine.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
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
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} ({eta})")
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
    fn median_of_even_and_odd() {
        assert_eq!(median(&[1.0, 2.0, 9.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 4.0, 9.0]), 3.0);
    }
}
