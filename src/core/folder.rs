//! The working folder: where boaf keeps its files, named in one place for
//! the app, the command line and the tests.
//!
//! ```text
//! puzzles/n<N>-<ENERGY>.jsonl   puzzle stores, one per card count and energy
//! puzzles/generate.toml         the app's Generate settings, remembered
//! ratings/ratings.csv           your ratings
//! ratings/example.csv           the demonstration ratings
//! ratings/rater.txt             the rater's name, remembered
//! ratings/in-progress.json      games played and not rated yet, to resume
//! ratings/studies.sqlite        rating studies: raters and their ratings
//! assets/energies.toml          the energies E0–E5 (editable)
//! assets/fitted-energies.toml   energies fitted from ratings
//! energies/*.toml               your own energies, loaded by file name
//! ```
//!
//! Energies load by one policy ([`crate::generator::energy::load`]): a file
//! with an error adds nothing and is reported, and the other files load.

use crate::durable::FileError;
use crate::generator::energy::{EnergyBook, EnergyError, load};
use crate::generator::pipeline::Candidate;
use crate::generator::store::read_store;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The energies file "Use as energy" writes, under the folder.
const FITTED_ENERGIES: &str = "assets/fitted-energies.toml";

/// An energy file that added nothing to the energies in use, and why.
#[derive(Debug, Error)]
#[error("{reason}")]
pub struct EnergyFileProblem {
    /// The file.
    pub path: PathBuf,
    /// Why it added nothing.
    pub reason: EnergyFileError,
}

/// Why an energy file added nothing.
#[derive(Debug, Error)]
pub enum EnergyFileError {
    /// It could not be read.
    #[error(transparent)]
    Read(#[from] FileError),
    /// It does not parse (the error has its line and column).
    #[error(transparent)]
    Parse(#[from] EnergyError),
}

/// The energies in use and the files that added nothing.
#[derive(Debug)]
pub struct LoadedEnergies {
    /// The built-in energies, then those of every file that parsed.
    pub book: EnergyBook,
    /// One problem for each file that added nothing, in load order.
    pub problems: Vec<EnergyFileProblem>,
}

/// A working folder.
#[derive(Clone, Debug)]
pub struct Folder {
    root: PathBuf,
}

impl Folder {
    /// The folder at `root` (`.` for the working directory).
    pub fn new(root: impl Into<PathBuf>) -> Folder {
        Folder { root: root.into() }
    }

    /// Where the folder is.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A new book's file: `books/book-DATE.pdf`, or `book-DATE-2.pdf` and
    /// on when a book of that day is there already (never overwritten).
    pub fn book_file(&self, date: &str) -> PathBuf {
        let books = self.root.join("books");
        (1..)
            .map(|k| match k {
                1 => books.join(format!("book-{date}.pdf")),
                k => books.join(format!("book-{date}-{k}.pdf")),
            })
            .find(|p| !p.exists())
            .expect("a free name")
    }

    /// The folder of puzzle stores.
    pub fn puzzles(&self) -> PathBuf {
        self.root.join("puzzles")
    }

    /// The store of n-card puzzles made under one energy.
    pub fn store_file(&self, n: usize, energy: &str) -> PathBuf {
        self.puzzles().join(format!("n{n}-{energy}.jsonl"))
    }

    /// The stores under `puzzles/`, oldest first (by modification time, then name).
    pub fn stores(&self) -> Vec<PathBuf> {
        let mut files = files_ending(&self.puzzles(), "jsonl");
        // One look at each file's time, not one per comparison.
        files.sort_by_cached_key(|p| {
            (
                std::fs::metadata(p).and_then(|m| m.modified()).ok(),
                p.clone(),
            )
        });
        files
    }

    /// Every candidate of every store, oldest store first, with one note for
    /// each store that could not be read or had lines skipped.
    pub fn read_stores(&self) -> (Vec<Candidate>, Vec<String>) {
        let (mut all, mut notes) = (Vec::new(), Vec::new());
        for f in self.stores() {
            match read_store(&f) {
                Ok((cands, skipped)) => {
                    if let Some(s) = skipped.first() {
                        notes.push(format!("{}: {s}", self.show(&f)));
                    }
                    all.extend(cands);
                }
                Err(e) => notes.push(format!("{}: {e}", self.show(&f))),
            }
        }
        (all, notes)
    }

    /// The file that remembers the app's Generate settings (cards, energy,
    /// batch, steps and the search's other settings).
    pub fn generate_settings(&self) -> PathBuf {
        self.puzzles().join("generate.toml")
    }

    /// The ratings file the app appends to.
    pub fn ratings(&self) -> PathBuf {
        self.root.join("ratings/ratings.csv")
    }

    /// The shipped demonstration ratings.
    pub fn example_ratings(&self) -> PathBuf {
        self.root.join("ratings/example.csv")
    }

    /// The file that remembers the rater's name.
    pub fn rater(&self) -> PathBuf {
        self.root.join("ratings/rater.txt")
    }

    /// The games in progress: played, not rated yet.
    pub fn in_progress(&self) -> PathBuf {
        self.root.join("ratings/in-progress.json")
    }

    /// The rating studies' database (`boaf serve`, `boaf study`).
    pub fn studies_db(&self) -> PathBuf {
        self.root.join("ratings/studies.sqlite")
    }

    /// The file "Use as energy" adds fitted energies to.
    pub fn fitted_energies(&self) -> PathBuf {
        self.root.join(FITTED_ENERGIES)
    }

    /// The folder of the user's own energy files.
    pub fn user_energies(&self) -> PathBuf {
        self.root.join("energies")
    }

    /// The energy files, in load order (a later energy replaces an earlier
    /// one of the same name): `assets/energies.toml` and the fitted energies,
    /// whether they exist yet or not, then every `energies/*.toml` by name.
    pub fn energy_files(&self) -> Vec<PathBuf> {
        let mut files = vec![
            self.root.join("assets/energies.toml"),
            self.fitted_energies(),
        ];
        files.extend(files_ending(&self.user_energies(), "toml"));
        files
    }

    /// The energies in use: the built-in ones, then the folder's energy files
    /// that exist, then `extra` files (which must exist), by the one policy:
    /// a file that cannot be read or does not parse adds nothing and is
    /// reported; the others load.
    pub fn load_energies(&self, extra: &[PathBuf]) -> LoadedEnergies {
        let found = self.energy_files().into_iter().filter(|p| p.is_file());
        let texts: Vec<(PathBuf, String, Result<String, FileError>)> = found
            .chain(extra.iter().cloned())
            .map(|path| {
                let text = crate::read::read_text(&path, crate::read::TEXT_CAP, "an energy file")
                    .map_err(FileError::at(&path));
                let name = self.show(&path);
                (path, name, text)
            })
            .collect();
        let readable = texts
            .iter()
            .filter_map(|(_, name, text)| Some((name.as_str(), text.as_ref().ok()?.as_str())));
        let (book, errors) = load(readable);
        // The problems in load order: each file's read or parse error.
        let mut errors = errors.into_iter().peekable();
        let mut problems = Vec::new();
        for (path, name, text) in texts {
            let reason = match text {
                Err(e) => Some(EnergyFileError::from(e)),
                Ok(_) => errors
                    .next_if(|e| e.file == name)
                    .map(EnergyFileError::from),
            };
            if let Some(reason) = reason {
                problems.push(EnergyFileProblem { path, reason });
            }
        }
        LoadedEnergies { book, problems }
    }

    /// A path as the user knows it: relative to the folder when under it.
    pub fn show(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}

/// The files of a folder with this extension, sorted by name (none if the
/// folder does not exist).
fn files_ending(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == extension))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_energy_file_adds_nothing_and_the_others_load() {
        let root = crate::temp::TempDir::new("folder");
        let folder = Folder::new(root.path());
        std::fs::create_dir_all(folder.user_energies()).unwrap();
        std::fs::write(
            folder.user_energies().join("a.toml"),
            "[[energy]]\nname = \"good\"\nvalue = \"2 * n\"\n",
        )
        .unwrap();
        std::fs::write(
            folder.user_energies().join("b.toml"),
            "[[energy]]\nname = \"E5\"\nvalue = \"0\"\n[[energy]]\nname = \"bad\"\nvalue = \"nope\"\n",
        )
        .unwrap();
        let missing = root.join("nowhere.toml");
        let loaded = folder.load_energies(std::slice::from_ref(&missing));
        let names: Vec<&str> = loaded
            .book
            .energies()
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(names, ["E0", "E1", "E2", "E3", "E4", "E5", "good"]);
        // b.toml's E5 did not replace the built-in one: the file added nothing.
        assert_eq!(
            loaded.book.get("E5").unwrap().value_text(),
            "1.0 * halfway_ratio"
        );
        let problems: Vec<String> = loaded.problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems[0].starts_with("energies/b.toml:6:10: unknown feature 'nope'"),
            "{problems:?}"
        );
        assert!(problems[1].contains("nowhere.toml"), "{problems:?}");
        assert_eq!(loaded.problems[1].path, missing);
        assert_eq!(
            loaded.problems[0].path,
            folder.user_energies().join("b.toml")
        );
        assert_eq!(folder.store_file(8, "E5"), root.join("puzzles/n8-E5.jsonl"));
        assert_eq!(folder.show(&folder.ratings()), "ratings/ratings.csv");
    }
}
