//! A study's ratings written out as a ratings CSV in the app's format (the
//! rater's id in `rater`): what `boaf study export` and the app's Study
//! panel both call.

use crate::store::{Store, StoreError};
use boaf_core::durable::{FileError, write_atomically};
use boaf_core::folder::Folder;
use boaf_core::study::ratings::{RatingsError, ratings_csv};
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
