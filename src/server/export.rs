//! A study's ratings written out as a ratings CSV in the app's format (the
//! rater's id in `rater`): what `boaf study export` and the app's Study
//! panel both call; and the same rows read as a ratings table, which `boaf
//! regress --study` and the app's Regression panel fit.

use crate::store::{Store, StoreError};
use boaf_core::durable::{FileError, write_atomically};
use boaf_core::folder::Folder;
use boaf_core::study::ratings::{RatingsError, RatingsTable, parse_ratings, ratings_csv};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a study's ratings could not be written.
#[derive(Debug, Error)]
pub enum ExportError {
    /// The store could not read them.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// They do not make a CSV.
    #[error(transparent)]
    Csv(#[from] RatingsError),
    /// The file could not be written.
    #[error(transparent)]
    Write(#[from] FileError),
}

/// Where a study's ratings go unless told: `study-NAME.csv` beside the
/// study database.
pub fn default_path(folder: &Folder, study: &str) -> PathBuf {
    folder
        .studies_db()
        .with_file_name(format!("study-{study}.csv"))
}

/// Writes the study's ratings to `path` (whole, or not at all) and returns
/// how many there were.
pub fn export(store: &Store, study: &str, path: &Path) -> Result<usize, ExportError> {
    let ratings = store.export(study)?;
    write_atomically(path, &ratings_csv(&ratings)?)?;
    Ok(ratings.len())
}

/// The study's ratings as a ratings table: exactly the rows [`export`]
/// writes, read back as the file would be, so a study regresses as its
/// export does.
pub fn table(store: &Store, study: &str) -> Result<RatingsTable, ExportError> {
    let csv = ratings_csv(&store.export(study)?)?;
    Ok(parse_ratings(&csv, &format!("study {study}"))?)
}
