//! Sizes in bytes as people read them (`4 GiB`). A leaf of [`format`](super)
//! that imports nothing, so the engine's limits can name a memory cap
//! without depending on the rest of the formatting.

const GIB: usize = 1 << 30;

/// A size as a whole number of the largest unit that divides it: `(4, 'G')`
/// for 4 GiB, `(512, 'M')`, `(3, 'K')`; `None` below 1 KiB or when no unit
/// divides it.
pub fn whole_units(bytes: usize) -> Option<(usize, char)> {
    [('G', GIB), ('M', 1 << 20), ('K', 1 << 10)]
        .into_iter()
        .find(|&(_, size)| bytes >= size && bytes.is_multiple_of(size))
        .map(|(unit, size)| (bytes / size, unit))
}

/// A size in bytes as people read it: `4 GiB`, `512 MiB`, or bytes when it
/// is not a whole number of KiB.
pub fn size_text(bytes: usize) -> String {
    match whole_units(bytes) {
        Some((count, unit)) => format!("{count} {unit}iB"),
        // Not whole: one decimal is enough to compare with a cap.
        None if bytes >= GIB => {
            format!("{:.1} GiB ({bytes} bytes)", bytes as f64 / GIB as f64)
        }
        None => format!("{bytes} bytes"),
    }
}

/// A size like `512M`, `4G`, `1.5G` or a number of bytes (`None`: not
/// a positive size, under one byte, or more than a `usize` holds).
pub fn parse_size(text: &str) -> Option<usize> {
    let t = text.trim();
    let (digits, unit) = match t.chars().last()?.to_ascii_uppercase() {
        'K' => (&t[..t.len() - 1], 1usize << 10),
        'M' => (&t[..t.len() - 1], 1 << 20),
        'G' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let v: f64 = digits.trim().parse().ok()?;
    let bytes = v * unit as f64;
    // Refused rather than rounded to 0 or saturated: a cap of "no bytes" or
    // of usize::MAX is a typing slip, not a size.
    (bytes.is_finite() && bytes >= 1.0 && bytes < usize::MAX as f64).then_some(bytes as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_whole_units() {
        assert_eq!(size_text(4 << 30), "4 GiB");
        assert_eq!(size_text(512 << 20), "512 MiB");
        assert_eq!(size_text(3 << 10), "3 KiB");
        assert_eq!(size_text(100), "100 bytes");
        assert_eq!(size_text((3 << 30) + 1), "3.0 GiB (3221225473 bytes)");
    }

    #[test]
    fn sizes_read_as_they_are_written() {
        assert_eq!(parse_size("4G"), Some(4 << 30));
        assert_eq!(parse_size("1.5k"), Some(1536));
        assert_eq!(parse_size(" 100 "), Some(100));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("-1G"), None);
        assert_eq!(parse_size(""), None);
        // Under a byte, or past what a usize holds: refused, not 0 or saturated.
        assert_eq!(parse_size("0.1"), None);
        assert_eq!(parse_size("99999999999G"), None);
        assert_eq!(parse_size("18446744073709551615"), None);
        assert_eq!(parse_size("1e300"), None);
    }
}
