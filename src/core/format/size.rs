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
}
