//! Reading a whole file under a size cap: the stores, ratings and energy
//! files are read whole, so a huge file (a mistake, or a copied-in log)
//! must be refused with a message, not read until the memory runs out.
//!
//! The caps are far above any file boaf writes in normal use, and
//! `BOAF_FILE_CAP` (a size like `4G`) raises every one of them at once.

use crate::format::size::{parse_size, size_text};
use std::io::{self, Read};
use std::path::Path;

/// The largest puzzle store read whole (a 16-card candidate with its trace
/// is a few KiB, so this is hundreds of thousands of puzzles).
pub const STORE_CAP: usize = 1 << 30;
/// The largest ratings file read whole (a rating row is about 300 bytes).
pub const RATINGS_CAP: usize = 256 << 20;
/// The largest small text file read whole: energy files, settings, notes.
pub const TEXT_CAP: usize = 16 << 20;
/// The environment variable that raises every file cap to its size.
pub const CAP_VARIABLE: &str = "BOAF_FILE_CAP";

/// `cap`, or the size `BOAF_FILE_CAP` gives when it is set and larger.
pub fn file_cap(cap: usize) -> usize {
    std::env::var(CAP_VARIABLE)
        .ok()
        .and_then(|v| parse_size(&v))
        .map_or(cap, |raised| raised.max(cap))
}

/// The error of a file over its cap: its size (`None`: a stream, known only
/// to be over), the cap, and how to raise it. `what` names the kind of file
/// ("a puzzle store").
pub fn too_large(size: Option<u64>, cap: usize, what: &str) -> io::Error {
    let size = size.map_or_else(String::new, |s| {
        format!("{}, ", size_text(usize::try_from(s).unwrap_or(usize::MAX)))
    });
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "it is {size}over the {} cap of {what} read whole; \
             set {CAP_VARIABLE}=SIZE (e.g. {CAP_VARIABLE}=4G) to raise it if the machine has the memory",
            size_text(cap),
        ),
    )
}

/// Reads everything from `reader`, refusing (with [`too_large`]) once it
/// passes `cap` bytes: the check holds for pipes and files that grow too.
pub fn read_capped(reader: impl Read, cap: usize, what: &str) -> io::Result<Vec<u8>> {
    let cap = file_cap(cap);
    let mut bytes = Vec::new();
    // Saturating: a cap of usize::MAX must not wrap to a read of nothing.
    reader
        .take((cap as u64).saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() > cap {
        return Err(too_large(None, cap, what));
    }
    Ok(bytes)
}

/// Reads a whole file of at most `cap` bytes (see [`read_capped`]); one
/// larger is refused by its length before any of it is read.
pub fn read_file(path: &Path, cap: usize, what: &str) -> io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let raised = file_cap(cap);
    if len > raised as u64 {
        return Err(too_large(Some(len), raised, what));
    }
    read_capped(file, cap, what)
}

/// [`read_file`] as UTF-8 text.
pub fn read_text(path: &Path, cap: usize, what: &str) -> io::Result<String> {
    String::from_utf8(read_file(path, cap, what)?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_past_the_cap_is_refused_with_the_cap_named() {
        let e = read_capped(&[b'x'; 11][..], 10, "a test file").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(
            e.to_string(),
            "it is over the 10 bytes cap of a test file read whole; \
             set BOAF_FILE_CAP=SIZE (e.g. BOAF_FILE_CAP=4G) to raise it if the machine has the memory"
        );
        assert_eq!(
            read_capped(&[b'x'; 10][..], 10, "a test file")
                .unwrap()
                .len(),
            10
        );
        // The largest cap reads everything (it once wrapped to a read of nothing).
        assert_eq!(
            read_capped(&[b'x'; 10][..], usize::MAX, "a test file")
                .unwrap()
                .len(),
            10
        );
    }
}
