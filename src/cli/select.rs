//! Choosing puzzles from stores, shared by every command that takes them
//! (`puzzles`, `study create`, and the publishing commands): read the
//! stores, keep those that pass `--where` and `--energy`, sort by `--sort`.

use anyhow::{Context, Result, anyhow, bail};
use boaf_core::generator::energy::{Chain, holds, parse_condition};
use boaf_core::generator::pipeline::{Candidate, SortKey};
use boaf_core::generator::store::read_store;
use clap::Args;
use std::path::PathBuf;

/// Which puzzles of the stores to take, and in what order.
#[derive(Args, Clone, Debug, Default)]
pub struct Selection {
    /// Keep puzzles where this holds, e.g. "n >= 8 and halfway_ratio < 0.05" or "grade >= Hard"
    #[arg(long = "where", value_name = "CONDITION")]
    pub filter: Option<String>,
    /// Keep puzzles made with this energy (name or id)
    #[arg(long)]
    pub energy: Option<String>,
    /// Sort by "energy", "grade" or a feature name (ascending; default: as stored)
    #[arg(long, value_name = "KEY")]
    pub sort: Option<SortKey>,
}

impl Selection {
    /// The puzzles of `files` that pass, in order; none is an error that
    /// names the files and says why (no puzzle at all, or none passes).
    pub fn select(&self, files: &[PathBuf]) -> Result<Vec<Candidate>> {
        let (list, read) = self.select_any(files)?;
        if list.is_empty() {
            let from = plural_files(files);
            if read == 0 {
                bail!("{from} holds no puzzle");
            }
            bail!("no puzzle of the {read} in {from} passes the filter");
        }
        Ok(list)
    }

    /// The puzzles of `files` that pass, in order (maybe none), and how
    /// many were read. Unreadable lines are reported as warnings.
    pub fn select_any(&self, files: &[PathBuf]) -> Result<(Vec<Candidate>, usize)> {
        let filter = self.filter.as_deref().map(parse_where).transpose()?;
        let mut list = Vec::new();
        let mut read = 0;
        for file in files {
            let (cands, skipped) =
                read_store(file).with_context(|| format!("reading {}", file.display()))?;
            for s in &skipped {
                eprintln!("warning: {}: {s}", file.display());
            }
            read += cands.len();
            list.extend(
                cands
                    .into_iter()
                    .filter(|c| self.keeps(c, filter.as_deref())),
            );
        }
        if let Some(key) = self.sort {
            list.sort_by(|a, b| Candidate::compare_by(a, b, key, false));
        }
        Ok((list, read))
    }

    /// Whether a candidate passes `--energy` and the parsed `--where`.
    fn keeps(&self, c: &Candidate, filter: Option<&[Chain]>) -> bool {
        self.energy
            .as_ref()
            .is_none_or(|e| c.energy_name.eq_ignore_ascii_case(e) || c.energy_id == *e)
            && filter.is_none_or(|f| holds(f, |feature| c.features.get(feature)))
    }
}

/// A `--where` condition, or an error that points at where it is wrong.
pub fn parse_where(text: &str) -> Result<Vec<Chain>> {
    parse_condition(text).map_err(|(at, m)| {
        // Columns count characters, not bytes.
        let column = text.get(..at).map_or(at, |s| s.chars().count());
        anyhow!(
            "bad --where: column {}: {m}\n  {text}\n  {}^",
            column + 1,
            " ".repeat(column)
        )
    })
}

/// "FILE" for one file, "the N files" for more.
pub fn plural_files(files: &[PathBuf]) -> String {
    match files {
        [one] => one.display().to_string(),
        _ => format!("the {} files", files.len()),
    }
}
