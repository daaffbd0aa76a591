//! Energy files: TOML documents of energies (see `assets/energies.toml`),
//! read into an [`EnergyBook`] with every error placed at its file, line and
//! column, and the built-in energies E0–E5.
//!
//! ```toml
//! penalty = 1000
//!
//! [[energy]]
//! name = "E3"
//! about = "depth-1 ratio, with bonuses for spread-out cards"
//! value = "n * depth1_ratio"
//! bonus = [
//!   { when = "rank_clusters > 1 and dominant_suit_ratio < 0.5", add = -5 },
//!   { when = "2 <= avg_flockability <= 4", add = -5 },
//! ]
//! ```
//!
//! An energy fitted from ratings also says the values each feature took in
//! those ratings, its rated range (outside it the energy extrapolates):
//!
//! ```toml
//! range = { rank_clusters = [2, 5], halfway_ratio = [0.1, 0.6] }
//! ```
//!
//! Parsing is pure: it takes the text and a file name for messages.

use super::expr::{parse_chains, parse_value};
use super::model::{Bonus, DEFAULT_PENALTY, Energy, RatedRange};
use crate::engine::feature::Feature;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ops::Range;
use thiserror::Error;

/// A bad energy file: where and what.
#[derive(Clone, Debug, PartialEq, Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct EnergyError {
    /// The file name given to the parser.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    #[serde(default)]
    penalty: Option<toml::Spanned<f64>>,
    #[serde(default)]
    energy: Vec<toml::Spanned<EnergyDoc>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EnergyDoc {
    name: toml::Spanned<String>,
    #[serde(default)]
    about: String,
    #[serde(default)]
    value: Option<toml::Spanned<String>>,
    #[serde(default)]
    bonus: Vec<BonusDoc>,
    #[serde(default)]
    penalty: Option<f64>,
    /// Feature name to `[min, max]`.
    #[serde(default)]
    range: BTreeMap<toml::Spanned<String>, toml::Spanned<Vec<f64>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BonusDoc {
    when: toml::Spanned<String>,
    add: f64,
}

/// Line and column (1-based, in characters) of a byte offset.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

fn parse_file(text: &str, file: &str) -> Result<Vec<Energy>, EnergyError> {
    let error = |at: usize, message: String| {
        let (line, column) = line_col(text, at);
        EnergyError {
            file: file.to_string(),
            line,
            column,
            message,
        }
    };
    let doc: FileDoc = toml::from_str(text).map_err(|e| {
        let at = e.span().map_or(0, |s| s.start);
        error(at, e.message().trim().to_string())
    })?;
    let default_penalty = doc
        .penalty
        .as_ref()
        .map_or(DEFAULT_PENALTY, |p| *p.get_ref());
    let mut out: Vec<Energy> = Vec::new();
    for spanned in doc.energy {
        let at = spanned.span().start;
        let e = spanned.into_inner();
        let name = e.name.get_ref().trim().to_string();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(error(
                e.name.span().start,
                format!(
                    "bad energy name {:?}: use letters, digits, '_' or '-'",
                    e.name.get_ref()
                ),
            ));
        }
        if out.iter().any(|x| x.name.eq_ignore_ascii_case(&name)) {
            return Err(error(
                e.name.span().start,
                format!("energy {name} is defined twice"),
            ));
        }
        let value = match &e.value {
            Some(v) => parse_value(v.get_ref())
                .map_err(|(r, m)| error(inner(text, v.span(), v.get_ref(), r), m))?,
            None => Vec::new(),
        };
        let mut bonuses = Vec::new();
        for b in &e.bonus {
            let when = parse_chains(b.when.get_ref())
                .map_err(|(r, m)| error(inner(text, b.when.span(), b.when.get_ref(), r), m))?;
            if !b.add.is_finite() {
                return Err(error(
                    b.when.span().start,
                    "a bonus must add a finite number".into(),
                ));
            }
            bonuses.push(Bonus { when, add: b.add });
        }
        let penalty = e.penalty.unwrap_or(default_penalty);
        if !penalty.is_finite() {
            return Err(error(at, "the penalty must be a finite number".into()));
        }
        let mut range = Vec::new();
        for (feature, bounds) in &e.range {
            let name = feature.get_ref();
            let Some(known) = Feature::from_column(name) else {
                return Err(error(
                    feature.span().start,
                    format!(
                        "unknown feature '{name}' in the rated range (features are {})",
                        Feature::columns()
                    ),
                ));
            };
            let (min, max) = match bounds.get_ref().as_slice() {
                &[min, max] if min.is_finite() && max.is_finite() => (min, max),
                _ => {
                    return Err(error(
                        bounds.span().start,
                        format!(
                            "the rated range of '{name}' must be two finite numbers, [min, max]"
                        ),
                    ));
                }
            };
            if min > max {
                return Err(error(
                    bounds.span().start,
                    format!("the rated range of '{name}' has its min {min} above its max {max}"),
                ));
            }
            range.push(RatedRange {
                feature: known,
                min,
                max,
            });
        }
        let mut energy = Energy {
            name,
            about: e.about.trim().to_string(),
            value,
            bonuses,
            penalty,
            range: Vec::new(),
        };
        // In the order the energy reads the features (a fit's order), then
        // the features' usual order: the same whatever order the file has.
        let read = energy.features();
        let order = |f: Feature| {
            read.iter()
                .position(|&r| r == f)
                .unwrap_or(read.len() + f as usize)
        };
        range.sort_by_key(|r| order(r.feature));
        energy.range = range;
        out.push(energy);
    }
    Ok(out)
}

/// The byte offset in the file of byte `at` of the string `value`, whose
/// span in the file (quotes included) is `span`. When the file spells the
/// string differently (escapes, a multi-line string), the string's start.
fn inner(text: &str, span: Range<usize>, value: &str, at: usize) -> usize {
    let raw = text.get(span.clone()).unwrap_or("");
    let quote = raw.chars().take_while(|&c| c == '"' || c == '\'').count();
    let body = raw
        .get(quote..raw.len().saturating_sub(quote))
        .unwrap_or("");
    if body == value {
        span.start + quote + at
    } else {
        span.start
    }
}

/// The energies of one or more files, by name; later files override earlier
/// ones of the same name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EnergyBook {
    energies: Vec<Energy>,
}

impl EnergyBook {
    /// Parses a TOML energy file (`file` names it in errors).
    pub fn parse(text: &str, file: &str) -> Result<EnergyBook, EnergyError> {
        let mut book = EnergyBook::default();
        book.add(text, file)?;
        Ok(book)
    }

    /// Adds the energies of another file, replacing any of the same name.
    /// On an error nothing is added: the book keeps its last good energies.
    pub fn add(&mut self, text: &str, file: &str) -> Result<(), EnergyError> {
        let parsed = parse_file(text, file)?;
        for e in parsed {
            // Names are matched as `get` matches them: ignoring case.
            match self
                .energies
                .iter_mut()
                .find(|x| x.name.eq_ignore_ascii_case(&e.name))
            {
                Some(old) => *old = e,
                None => self.energies.push(e),
            }
        }
        Ok(())
    }

    /// The energy with this name (case-insensitive), or with this id.
    pub fn get(&self, name: &str) -> Option<&Energy> {
        self.energies
            .iter()
            .find(|e| e.name.eq_ignore_ascii_case(name))
            .or_else(|| self.energies.iter().find(|e| e.id() == name))
    }

    /// The energy with the same definition (value, bonuses and penalty) as
    /// `e`, whatever its name: adding `e` would add nothing new.
    pub fn same_definition(&self, e: &Energy) -> Option<&Energy> {
        let want = e.definition();
        self.energies.iter().find(|x| x.definition() == want)
    }

    /// All energies in file order.
    pub fn energies(&self) -> &[Energy] {
        &self.energies
    }

    /// The energies that record a rated range, by id: the only ones whose
    /// candidates can be extrapolations. Computed once for a whole list of
    /// candidates (an id is a hash of the definition).
    pub fn ranged_by_id(&self) -> std::collections::HashMap<String, &Energy> {
        self.energies
            .iter()
            .filter(|e| !e.rated_range().is_empty())
            .map(|e| (e.id(), e))
            .collect()
    }
}

/// The energies in use: the built-in ones, then each file's in order, a
/// later energy replacing an earlier one of the same name. A file with an
/// error adds nothing, its error is returned with the others', and the other
/// files still load. The app and the command line both load this way, so the
/// energies in use are always what the files that parse say: an energy id
/// stored with a puzzle names a definition some file holds.
pub fn load<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> (EnergyBook, Vec<EnergyError>) {
    let mut book = builtin();
    let mut problems = Vec::new();
    for (name, text) in files {
        if let Err(e) = book.add(text, name) {
            problems.push(e);
        }
    }
    (book, problems)
}

/// The text of `assets/energies.toml`, built in so the generator works from any directory.
pub const BUILTIN: &str = include_str!("../../../../assets/energies.toml");

/// The built-in energies E0–E5.
pub fn builtin() -> EnergyBook {
    EnergyBook::parse(BUILTIN, "assets/energies.toml").expect("the built-in energies parse")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::feature::Part;

    #[test]
    fn builtin_energies_and_their_needs() {
        let book = builtin();
        let names: Vec<&str> = book.energies().iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["E0", "E1", "E2", "E3", "E4", "E5"]);
        let needs: Vec<Part> = book
            .energies()
            .iter()
            .map(|e| e.reads().deepest_search())
            .collect();
        use Part::*;
        assert_eq!(needs, [Cards, Cards, Cards, Shallow(1), Halfway, Halfway]);
        assert!(book.energies().iter().all(|e| e.penalty == 1000.0));
        assert_eq!(
            book.get("e4").unwrap().value_text(),
            "1000.0 * n * halfway_ratio"
        );
        let id = book.get("E5").unwrap().id();
        assert!(id.starts_with("E5-") && id.len() == 11, "{id}");
        assert_eq!(book.get(&id).unwrap().name, "E5");
    }

    fn err(text: &str) -> EnergyError {
        EnergyBook::parse(text, "my.toml").unwrap_err()
    }

    #[test]
    fn errors_give_file_line_and_column() {
        let e = err("[[energy]]\nname = \"X\"\nvalue = \"2 * n * halfway_ration\"\n");
        assert_eq!((e.file.as_str(), e.line, e.column), ("my.toml", 3, 18));
        assert!(
            e.message.contains("unknown feature 'halfway_ration'"),
            "{e}"
        );
        assert!(e.to_string().starts_with("my.toml:3:18: unknown feature"));

        let e = err("[[energy]]\nname = \"X\"\nbonus = [{ when = \"n < 1.2.3\", add = 1 }]\n");
        assert_eq!((e.line, e.column), (3, 24));
        assert!(e.message.contains("bad number '1.2.3'"), "{e}");

        let e = err("[[energy]]\nname = \"X\"\nbonus = [{ when = \"n\", add = 1 }]\n");
        assert!(e.message.contains("expected a comparison"), "{e}");

        let e = err("[[energy]]\nname = \"X\"\nvalue = \"n +\"\n");
        assert_eq!((e.line, e.column), (3, 13));

        let e = err("[[energy]]\nname = \"X\"\nvalue = \"n ^ 2\"\n");
        assert_eq!((e.line, e.column), (3, 12));
        assert!(e.message.contains("unexpected '^'"));

        // TOML syntax, an unknown key, a missing name, a duplicate.
        let e = err("[[energy]]\nname = \"X\nvalue = 1\n");
        assert_eq!(e.line, 2, "{e}");
        let e = err("[[energy]]\nname = \"X\"\nvalu = \"n\"\n");
        assert_eq!(e.line, 3, "{e}");
        assert!(e.message.contains("valu"), "{e}");
        let e = err("[[energy]]\nvalue = \"n\"\n");
        assert!(e.message.contains("name"), "{e}");
        let e = err("[[energy]]\nname = \"X\"\n[[energy]]\nname = \"X\"\n");
        assert_eq!((e.line, e.column), (4, 8));
        assert!(e.message.contains("twice"));
        let e = err("[[energy]]\nname = \"X\"\nbonus = [{ when = \"n < 2\", add = \"five\" }]\n");
        assert_eq!(e.line, 3, "{e}");
    }

    #[test]
    fn odd_spellings_do_not_break_error_positions() {
        // An escape and a multi-line string: the error points at the string.
        let e = err("[[energy]]\nname = \"X\"\nbonus = [{ when = \"\\tn ≥x\", add = 1 }]\n");
        assert_eq!(e.line, 3, "{e}");
        assert!(e.message.contains("unknown feature 'x'"), "{e}");
        let e = err("[[energy]]\nname = \"X\"\nbonus = [{ when = \"\"\"\nn ≥x\"\"\", add = 1 }]\n");
        assert_eq!(e.line, 3, "{e}");
        // Numbers past f64, names that would make paths, names that differ in case only.
        assert!(
            err("[[energy]]\nname = \"X\"\nvalue = \"1e400 * n\"\n")
                .message
                .contains("bad number")
        );
        assert!(
            err("[[energy]]\nname = \"a/b\"\n")
                .message
                .contains("bad energy name")
        );
        assert!(
            err("[[energy]]\nname = \"x\"\n[[energy]]\nname = \"X\"\n")
                .message
                .contains("twice")
        );
        let mut book = builtin();
        book.add("[[energy]]\nname = \"e5\"\nvalue = \"n\"\n", "u")
            .unwrap();
        assert_eq!(book.energies().len(), 6);
        assert_eq!(book.get("E5").unwrap().value_text(), "1.0 * n");
    }

    #[test]
    fn a_bad_file_keeps_the_last_good_energies() {
        let mut book = builtin();
        let before = book.clone();
        let bad = "[[energy]]\nname = \"E5\"\nvalue = \"0\"\n[[energy]]\nname = \"Z\"\nvalue = \"nope\"\n";
        assert!(book.add(bad, "user.toml").is_err());
        assert_eq!(book, before);
        book.add(
            "[[energy]]\nname = \"E5\"\nvalue = \"2 * halfway_ratio\"\n",
            "user.toml",
        )
        .unwrap();
        assert_eq!(book.energies().len(), 6);
        assert_eq!(book.get("E5").unwrap().value_text(), "2.0 * halfway_ratio");
    }
}
