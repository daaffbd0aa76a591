//! Numbers as people read them, the same way in the app, on the command line
//! and in the regression table, sizes too (a memory cap reads `4 GiB`). A
//! number that is missing (a feature a puzzle does not have, a standard
//! error with no degrees of freedom) shows as [`MISSING`] everywhere.

pub mod size;

/// How a missing number shows.
pub const MISSING: &str = "—";

/// A count and its noun, singular for one: `1 move`, `2 moves`. Nouns
/// whose plural is not `+s` give it after a `|`: `plural(2, "candidate is|candidates are")`.
pub fn plural(count: usize, noun: &str) -> String {
    let (one, many) = match noun.split_once('|') {
        Some((one, many)) => (one.to_string(), many.to_string()),
        None => (noun.to_string(), format!("{noun}s")),
    };
    format!("{count} {}", if count == 1 { one } else { many })
}

/// A number for a label or a table cell: whole numbers as they are, tiny
/// ones (below 0.001) in scientific notation, others with 4 decimals.
pub fn number(v: Option<f64>) -> String {
    decimals(v, 4)
}

/// As [`number`], with `digits` decimals for numbers that are neither whole
/// nor tiny.
pub fn decimals(v: Option<f64>, digits: usize) -> String {
    match v.filter(|v| v.is_finite()) {
        None => MISSING.into(),
        Some(v) if v.fract() == 0.0 && v.abs() < 1e6 => format!("{v}"),
        Some(v) if v != 0.0 && v.abs() < 0.001 => format!("{v:.2e}"),
        Some(v) => format!("{v:.digits$}"),
    }
}

/// A number with exactly `digits` decimals, so that a column lines up.
pub fn fixed(v: Option<f64>, digits: usize) -> String {
    v.filter(|v| v.is_finite())
        .map_or_else(|| MISSING.into(), |v| format!("{v:.digits$}"))
}

/// A count with a comma between each group of three digits, e.g. `11,754,991`.
pub fn count(v: u64) -> String {
    let digits = v.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        // A comma before every digit that starts a group of three from the right.
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// A p-value: 4 decimals, or "< 0.0001" below that.
pub fn p_value(p: Option<f64>) -> String {
    match p {
        Some(p) if p < 0.0001 => "< 0.0001".into(),
        p => fixed(p, 4),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_read_as_english() {
        assert_eq!(plural(1, "move"), "1 move");
        assert_eq!(plural(0, "move"), "0 moves");
        assert_eq!(plural(11, "undo"), "11 undos");
        assert_eq!(plural(1, "rating is|ratings are"), "1 rating is");
        assert_eq!(plural(3, "rating is|ratings are"), "3 ratings are");
    }

    #[test]
    fn one_mark_for_every_missing_number() {
        for shown in [
            number(None),
            number(Some(f64::NAN)),
            fixed(None, 3),
            fixed(Some(f64::INFINITY), 3),
            p_value(None),
        ] {
            assert_eq!(shown, MISSING);
        }
        assert_eq!(number(Some(3.0)), "3");
        assert_eq!(number(Some(0.25)), "0.2500");
        assert_eq!(number(Some(0.000034)), "3.40e-5");
        assert_eq!(decimals(Some(0.0116462), 6), "0.011646");
        assert_eq!(fixed(Some(2.0), 2), "2.00");
        assert_eq!(p_value(Some(0.00001)), "< 0.0001");
        assert_eq!(p_value(Some(0.5)), "0.5000");
    }

    #[test]
    fn counts_group_digits_in_threes() {
        assert_eq!(count(0), "0");
        assert_eq!(count(7), "7");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(12_345), "12,345");
        assert_eq!(count(123_456), "123,456");
        assert_eq!(count(1_234_567), "1,234,567");
        assert_eq!(count(11_754_991), "11,754,991");
        assert_eq!(count(u64::MAX), "18,446,744,073,709,551,615");
    }
}
