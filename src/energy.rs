//! Energies: what the generator minimizes (seed 001's E0–E5 and user-defined ones).
//!
//! An energy is a value expression (a sum of terms, each a number times
//! features) plus bonuses: conditions on features (`a < feature <= b`,
//! joined by `and`) that add a constant when they hold. An unsolvable puzzle
//! always scores a fixed penalty (1000 unless the energy says otherwise).
//!
//! Energies are written in TOML (see `assets/energies.toml`):
//!
//! ```toml
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
//! Parsing is pure: it takes the text and a file name for messages, and every
//! error carries the line and column in that text.

use crate::features::Features;
pub use crate::features::Need;
use serde::Deserialize;
use std::fmt;
use std::ops::Range;
use thiserror::Error;

/// The penalty of an unsolvable puzzle unless an energy sets its own.
pub const DEFAULT_PENALTY: f64 = 1000.0;

/// Every feature name an energy may use.
pub const FEATURE_NAMES: [&str; 12] = Features::NAMES;

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

/// A product of features times a coefficient (no features: a constant).
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    /// The coefficient.
    pub coef: f64,
    /// Features multiplied together (by name).
    pub features: Vec<String>,
}

/// One side of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A number.
    Number(f64),
    /// A feature by name.
    Feature(String),
}

/// A comparison operator.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `<`
    Lt,
    /// `<=` or `≤`
    Le,
    /// `>`
    Gt,
    /// `>=` or `≥`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

impl Cmp {
    fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
        }
    }
}

/// A chain of comparisons such as `2 <= avg_flockability <= 4`.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// The first operand.
    pub first: Operand,
    /// Each operator with the operand after it.
    pub rest: Vec<(Cmp, Operand)>,
}

/// A constant added when every comparison holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Bonus {
    /// Comparisons joined by `and`.
    pub when: Vec<Chain>,
    /// Added to the energy when they all hold (negative rewards).
    pub add: f64,
}

/// One energy function.
#[derive(Clone, Debug, PartialEq)]
pub struct Energy {
    /// Its name, e.g. `E5`.
    pub name: String,
    /// A sentence on what it rewards.
    pub about: String,
    /// Summed for a solvable puzzle.
    pub value: Vec<Term>,
    /// Conditional constants.
    pub bonuses: Vec<Bonus>,
    /// The energy of an unsolvable puzzle.
    pub penalty: f64,
}

fn fmt_number(x: f64) -> String {
    // `{:?}` keeps a float's shortest round-trip form, so the text (and the
    // id hashed from it) is stable.
    format!("{x:?}")
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Number(x) => f.write_str(&fmt_number(*x)),
            Operand::Feature(name) => f.write_str(name),
        }
    }
}

impl fmt::Display for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.first)?;
        for (cmp, operand) in &self.rest {
            write!(f, " {} {operand}", cmp.symbol())?;
        }
        Ok(())
    }
}

impl Energy {
    /// The value expression in canonical form, e.g. `1000.0 * n * halfway_ratio`.
    pub fn value_text(&self) -> String {
        if self.value.is_empty() {
            return "0.0".into();
        }
        let terms: Vec<String> = self
            .value
            .iter()
            .map(|t| {
                std::iter::once(fmt_number(t.coef))
                    .chain(t.features.iter().cloned())
                    .collect::<Vec<_>>()
                    .join(" * ")
            })
            .collect();
        terms.join(" + ")
    }

    /// Each bonus as `+5 if a < b and c > d`.
    pub fn bonus_texts(&self) -> Vec<String> {
        self.bonuses
            .iter()
            .map(|b| {
                let when: Vec<String> = b.when.iter().map(|c| c.to_string()).collect();
                format!("{:+} if {}", b.add, when.join(" and "))
            })
            .collect()
    }

    /// Everything that decides the energy's values, in one canonical line.
    fn canonical(&self) -> String {
        let mut s = format!(
            "value {}; penalty {}",
            self.value_text(),
            fmt_number(self.penalty)
        );
        for b in &self.bonuses {
            let when: Vec<String> = b.when.iter().map(Chain::to_string).collect();
            s += &format!("; if {} add {}", when.join(" and "), fmt_number(b.add));
        }
        s
    }

    /// A stable id: the name and a hash of the definition, e.g. `E5-1f0c93a2`.
    /// Two energies with the same id score every puzzle the same.
    pub fn id(&self) -> String {
        // FNV-1a: fixed by its definition, so ids never change between builds.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self.canonical().bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        format!("{}-{:08x}", self.name, (h >> 32) as u32 ^ h as u32)
    }

    /// The features the energy reads.
    pub fn features(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        let mut add = |n| {
            if !names.contains(&n) {
                names.push(n);
            }
        };
        for t in &self.value {
            t.features.iter().for_each(|f| add(f.as_str()));
        }
        for b in &self.bonuses {
            for c in &b.when {
                for op in std::iter::once(&c.first).chain(c.rest.iter().map(|(_, o)| o)) {
                    if let Operand::Feature(f) = op {
                        add(f.as_str());
                    }
                }
            }
        }
        names
    }

    /// The most expensive search any of its features needs (solvability is
    /// always needed, for the penalty).
    pub fn need(&self) -> Need {
        self.features()
            .iter()
            .map(|f| Need::of(f))
            .max()
            .unwrap_or(Need::Cards)
    }

    /// The energy of a puzzle. A feature the puzzle does not have (the
    /// depth-3 ratio of a 3-card puzzle, the tension of a puzzle with no
    /// solvable midgame) counts as 0 in a term and makes a comparison false.
    pub fn eval(&self, f: &Features) -> f64 {
        self.eval_with(f.solvable, |name| f.value(name))
    }

    /// [`Energy::eval`] over any source of feature values (`None`: missing).
    pub fn eval_with(&self, solvable: bool, value: impl Fn(&str) -> Option<f64>) -> f64 {
        if !solvable {
            return self.penalty;
        }
        let mut e: f64 = self
            .value
            .iter()
            .map(|t| {
                t.features
                    .iter()
                    .fold(t.coef, |acc, name| acc * value(name).unwrap_or(0.0))
            })
            .sum();
        for b in &self.bonuses {
            if holds(&b.when, &value) {
                e += b.add;
            }
        }
        e
    }
}

/// Whether every chain of comparisons holds (a missing feature makes its
/// comparisons false).
pub fn holds(when: &[Chain], value: impl Fn(&str) -> Option<f64>) -> bool {
    let operand = |o: &Operand| match o {
        Operand::Number(x) => Some(*x),
        Operand::Feature(name) => value(name),
    };
    when.iter().all(|c| {
        let mut left = operand(&c.first);
        c.rest.iter().all(|(cmp, o)| {
            let right = operand(o);
            let ok = matches!((left, right), (Some(a), Some(b)) if cmp.holds(a, b));
            left = right;
            ok
        })
    })
}

/// Parses a condition such as `n >= 8 and halfway_ratio < 0.1` (the
/// language of bonuses); an error gives the byte offset in `text` and a message.
pub fn parse_condition(text: &str) -> Result<Vec<Chain>, (usize, String)> {
    parse_chains(text)
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

    /// All energies in file order.
    pub fn energies(&self) -> &[Energy] {
        &self.energies
    }
}

/// The text of `assets/energies.toml`, built in so the generator works from any directory.
pub const BUILTIN: &str = include_str!("../assets/energies.toml");

/// The built-in energies E0–E5.
pub fn builtin() -> EnergyBook {
    EnergyBook::parse(BUILTIN, "assets/energies.toml").expect("the built-in energies parse")
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
        out.push(Energy {
            name,
            about: e.about.trim().to_string(),
            value,
            bonuses,
            penalty,
        });
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

/// A token of an expression, with its byte range.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Name(String),
    Plus,
    Minus,
    Star,
    Cmp(Cmp),
    And,
}

type ExprError = (usize, String);

/// The operators of two characters.
const TWO_CHAR: [(&str, Tok); 5] = [
    ("<=", Tok::Cmp(Cmp::Le)),
    (">=", Tok::Cmp(Cmp::Ge)),
    ("==", Tok::Cmp(Cmp::Eq)),
    ("!=", Tok::Cmp(Cmp::Ne)),
    ("&&", Tok::And),
];

fn tokenize(s: &str) -> Result<Vec<(Tok, usize)>, ExprError> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < s.len() {
        let c = s[i..].chars().next().expect("in bounds");
        let start = i;
        let two = s.get(i..i + 2).unwrap_or("");
        let tok = if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        } else if c.is_ascii_digit() || c == '.' {
            // Digits, '.', '_' and letters (so that `2n` is one bad number,
            // not two tokens), and a sign right after an exponent's `e`.
            while i < s.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'.'
                    || b[i] == b'_'
                    || (matches!(b[i], b'+' | b'-') && matches!(b[i - 1], b'e' | b'E')))
            {
                i += 1;
            }
            let text = s[start..i].replace('_', "");
            let x: f64 = text
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite())
                .ok_or_else(|| (start, format!("bad number '{}'", &s[start..i])))?;
            out.push((Tok::Num(x), start));
            continue;
        } else if c.is_ascii_alphabetic() || c == '_' {
            while i < s.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &s[start..i];
            out.push((
                if word == "and" {
                    Tok::And
                } else {
                    Tok::Name(word.to_string())
                },
                start,
            ));
            continue;
        } else if let Some((_, tok)) = TWO_CHAR.iter().find(|(text, _)| *text == two) {
            i += 2;
            tok.clone()
        } else {
            i += c.len_utf8();
            match c {
                '<' => Tok::Cmp(Cmp::Lt),
                '>' => Tok::Cmp(Cmp::Gt),
                '≤' => Tok::Cmp(Cmp::Le),
                '≥' => Tok::Cmp(Cmp::Ge),
                '+' => Tok::Plus,
                '-' | '−' => Tok::Minus,
                '*' | '·' | '×' => Tok::Star,
                _ => return Err((start, format!("unexpected '{c}'"))),
            }
        };
        out.push((tok, start));
    }
    Ok(out)
}

fn check_feature(name: &str, at: usize) -> Result<String, ExprError> {
    if FEATURE_NAMES.contains(&name) {
        Ok(name.to_string())
    } else {
        Err((
            at,
            format!(
                "unknown feature '{name}' (features are {})",
                FEATURE_NAMES.join(", ")
            ),
        ))
    }
}

/// Parses `[-] term (+|- term)*`, each term `factor (* factor)*`, a factor a
/// number or a feature.
fn parse_value(s: &str) -> Result<Vec<Term>, ExprError> {
    let toks = tokenize(s)?;
    let mut terms = Vec::new();
    let mut i = 0;
    let end = s.len();
    loop {
        let mut coef = 1.0;
        // Signs before a term.
        while let Some((t, _)) = toks.get(i) {
            match t {
                Tok::Minus => coef = -coef,
                Tok::Plus => {}
                _ => break,
            }
            i += 1;
        }
        let mut features = Vec::new();
        loop {
            match toks.get(i) {
                Some((Tok::Num(x), _)) => coef *= x,
                Some((Tok::Name(n), at)) => features.push(check_feature(n, *at)?),
                Some((_, at)) => return Err((*at, "expected a number or a feature".into())),
                None => return Err((end, "expected a number or a feature".into())),
            }
            i += 1;
            match toks.get(i) {
                Some((Tok::Star, _)) => i += 1,
                _ => break,
            }
        }
        terms.push(Term { coef, features });
        match toks.get(i) {
            None => return Ok(terms),
            Some((Tok::Plus | Tok::Minus, _)) => {}
            Some((_, at)) => return Err((*at, "expected '+', '-' or '*'".into())),
        }
    }
}

/// Parses `chain (and chain)*`, each chain `operand (cmp operand)+`.
fn parse_chains(s: &str) -> Result<Vec<Chain>, ExprError> {
    let toks = tokenize(s)?;
    let end = s.len();
    let mut i = 0;
    let mut chains = Vec::new();
    let operand = |i: &mut usize| -> Result<Operand, ExprError> {
        let mut sign = 1.0;
        if let Some((Tok::Minus, _)) = toks.get(*i) {
            sign = -1.0;
            *i += 1;
        }
        let o = match toks.get(*i) {
            Some((Tok::Num(x), _)) => Operand::Number(sign * x),
            Some((Tok::Name(n), at)) if sign > 0.0 => Operand::Feature(check_feature(n, *at)?),
            Some((_, at)) => return Err((*at, "expected a number or a feature".into())),
            None => return Err((end, "expected a number or a feature".into())),
        };
        *i += 1;
        Ok(o)
    };
    loop {
        let first = operand(&mut i)?;
        let mut rest = Vec::new();
        while let Some((Tok::Cmp(c), _)) = toks.get(i) {
            i += 1;
            rest.push((*c, operand(&mut i)?));
        }
        if rest.is_empty() {
            let at = toks.get(i).map_or(end, |t| t.1);
            return Err((at, "expected a comparison: <, <=, >, >=, == or !=".into()));
        }
        chains.push(Chain { first, rest });
        match toks.get(i) {
            None => return Ok(chains),
            Some((Tok::And, _)) => i += 1,
            Some((_, at)) => return Err((*at, "expected 'and' or the end".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::AnalysisOptions;
    use crate::features::features;
    use crate::notation::parse_state;

    fn feats(s: &str) -> Features {
        features(&parse_state(s, None).unwrap(), &AnalysisOptions::default())
            .unwrap()
            .0
    }

    #[test]
    fn builtin_energies_and_their_needs() {
        let book = builtin();
        let names: Vec<&str> = book.energies().iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["E0", "E1", "E2", "E3", "E4", "E5"]);
        let needs: Vec<Need> = book.energies().iter().map(Energy::need).collect();
        use Need::*;
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

    #[test]
    fn seed_001_six_card_puzzle() {
        // Five diamonds and 2C: 2 suits, ranks A–5 in one cluster; flock edges:
        // the 10 diamond pairs, and 2C with 2D, AD, 3D: 13 ÷ 6.
        let f = feats("4D -- -- --\n-- 5D 2C 2D\n3D -- AD --\n-- -- -- --");
        assert!(f.solvable);
        assert_eq!(f.avg_flockability, 13.0 / 6.0);
        let book = builtin();
        let e = |name: &str| book.get(name).unwrap().eval(&f);
        assert_eq!(e("E0"), 0.0);
        assert_eq!(e("E1"), -20.0); // 1 < 2 suits < 6, and 5 ranks
        assert_eq!(e("E2"), 0.0); // dominant 5/6, one cluster
        let d1 = f.depth1_ratio.unwrap();
        assert_eq!(e("E3"), 6.0 * d1 - 5.0); // only the flockability bonus
        let h = f.halfway_ratio.unwrap();
        assert_eq!(e("E4"), 1000.0 * 6.0 * h - 10.0);
        assert_eq!(e("E5"), h);
    }

    #[test]
    fn seed_001_seven_card_puzzle() {
        // 2 rank clusters, dominant suit ratio 3/7, 4 suits, 6 ranks,
        // average flockability 10/7 (outside 2..4).
        let f = feats("-- -- KH -- / 2S -- JD QC / -- -- TS JS / -- -- 3C --");
        let book = builtin();
        let e = |name: &str| book.get(name).unwrap().eval(&f);
        assert_eq!(e("E1"), -20.0);
        assert_eq!(e("E2"), -20.0);
        assert_eq!(e("E3"), 7.0 * f.depth1_ratio.unwrap() - 5.0);
        assert_eq!(e("E4"), 7000.0 * f.halfway_ratio.unwrap() - 10.0);
    }

    #[test]
    fn unsolvable_scores_the_penalty() {
        // Two cards that do not flock.
        let f = feats("AS -- / -- 7D");
        assert!(!f.solvable);
        let book = EnergyBook::parse(
            "penalty = 500\n[[energy]]\nname = \"A\"\nvalue = \"halfway_ratio\"\n\
             [[energy]]\nname = \"B\"\npenalty = 7\n",
            "t.toml",
        )
        .unwrap();
        assert_eq!(book.get("A").unwrap().eval(&f), 500.0);
        assert_eq!(book.get("B").unwrap().eval(&f), 7.0);
        assert_eq!(builtin().get("E0").unwrap().eval(&f), 1000.0);
    }

    #[test]
    fn expressions_evaluate_as_written() {
        let text = r#"
[[energy]]
name = "mix"
value = "2 * n - 0.5 * avg_flockability * n + 3 - depth3_ratio"
bonus = [
  { when = "n >= 4 and rank_clusters == 1", add = 1.5 },
  { when = "0 < dominant_suit_ratio ≤ 0.5", add = -2 },
  { when = "depth3_ratio > -1", add = 100 },
]
"#;
        let book = EnergyBook::parse(text, "mix.toml").unwrap();
        let e = book.get("mix").unwrap();
        // A 2-card puzzle has no depth-3 ratio: 0 in the term, false in the condition.
        let f = feats("AS 2S");
        let want = 2.0 * 2.0 - 0.5 * f.avg_flockability * 2.0 + 3.0;
        assert_eq!(f.avg_flockability, 0.5);
        assert_eq!(e.eval(&f), want); // n < 4; dominant ratio 1
        let f7 = feats("-- -- KH -- / 2S -- JD QC / -- -- TS JS / -- -- 3C --");
        let want7 = 14.0 - 0.5 * (10.0 / 7.0) * 7.0 + 3.0 - f7.depth3_ratio.unwrap() - 2.0 + 100.0;
        assert!((e.eval(&f7) - want7).abs() < 1e-12);
    }

    #[test]
    fn ids_follow_the_definition_not_its_spelling() {
        let a = EnergyBook::parse(
            "[[energy]]\nname = \"X\"\nvalue = \"2*n\"\nbonus = [{ when = \"n<3\", add = -1 }]",
            "a",
        )
        .unwrap();
        let b = EnergyBook::parse(
            "[[energy]]\nname = \"X\"\nabout = \"same\"\nvalue = \" 2 * n \"\nbonus = [{ when = \"n < 3\", add = -1.0 }]",
            "b",
        )
        .unwrap();
        let c = EnergyBook::parse(
            "[[energy]]\nname = \"X\"\nvalue = \"2*n\"\nbonus = [{ when = \"n<=3\", add = -1 }]",
            "c",
        )
        .unwrap();
        let id = |book: &EnergyBook| book.get("X").unwrap().id();
        assert_eq!(id(&a), id(&b));
        assert_ne!(id(&a), id(&c));
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
