//! The expression language of energies: values such as
//! `1000 * n * halfway_ratio - 2` and conditions such as
//! `2 <= avg_flockability <= 4 and rank_clusters > 1`. Errors give a byte
//! offset in the text, which the file reader turns into a line and column.

use super::model::{Chain, Cmp, Operand, Term};
use crate::agents::grade::{Grade, UnknownGrade};
use crate::engine::feature::Feature;

/// Parses a condition such as `n >= 8 and halfway_ratio < 0.1` (the
/// language of bonuses); an error gives the byte offset in `text` and a message.
pub fn parse_condition(text: &str) -> Result<Vec<Chain>, (usize, String)> {
    parse_chains(text)
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

/// Where an expression is wrong (a byte offset) and what is wrong.
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

fn check_feature(name: &str, at: usize) -> Result<Feature, ExprError> {
    name.parse()
        .map_err(|e: crate::engine::feature::UnknownFeature| (at, e.to_string()))
}

/// Parses `[-] term (+|- term)*`, each term `factor (* factor)*`, a factor a
/// number or a feature.
pub(super) fn parse_value(s: &str) -> Result<Vec<Term>, ExprError> {
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

/// Whether the token at `i` is compared with `grade` (`grade < x` or
/// `x < grade`), so that an unknown name there is taken for a grade.
fn beside_grade(toks: &[(Tok, usize)], i: usize) -> bool {
    let is = |j: Option<usize>, grade: bool| match j.and_then(|j| toks.get(j)) {
        Some((Tok::Name(n), _)) => grade && n == "grade",
        Some((Tok::Cmp(_), _)) => !grade,
        _ => false,
    };
    (is(i.checked_sub(1), false) && is(i.checked_sub(2), true))
        || (is(Some(i + 1), false) && is(Some(i + 2), true))
}

/// Parses `chain (and chain)*`, each chain `operand (cmp operand)+`; in a
/// condition, `grade` is the puzzle's grade and `Easy` … `Expert` (any case)
/// are the numbers 0 … 3.
pub(super) fn parse_chains(s: &str) -> Result<Vec<Chain>, ExprError> {
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
            Some((Tok::Name(n), at)) if sign > 0.0 => match (n.as_str(), n.parse::<Grade>()) {
                ("grade", _) => Operand::Grade,
                (_, Ok(g)) => Operand::Number(g.index() as f64),
                _ if beside_grade(&toks, *i) => {
                    return Err((*at, UnknownGrade(n.clone()).to_string()));
                }
                _ => Operand::Feature(check_feature(n, *at)?),
            },
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
