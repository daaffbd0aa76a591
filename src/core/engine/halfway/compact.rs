//! Branch-free compaction of entries `size << 16 | set`: those clear of
//! some cards, or those of one size, kept in order. Where a CPU has
//! AVX-512, 16 entries at a time (compressed in a register and stored
//! whole: Zen 4's compress straight to memory is microcoded and slow);
//! else one by one. Whether an entry is kept is a coin toss to the branch
//! predictor, so neither way branches on it.

/// Slack a buffer written by [`keep_clear_into`] needs past its last
/// entry: the 16-wide path stores whole registers.
pub(super) const SLACK: usize = 16;

/// Writes into `out` (resized to hold them, plus [`SLACK`]) the entries
/// of `from` whose set holds none of the cards `taken`, in order; returns
/// how many.
pub(super) fn keep_clear_into(from: &[u32], taken: u16, out: &mut Vec<u32>) -> usize {
    if out.len() < from.len() + SLACK {
        out.resize(from.len() + SLACK, 0);
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    {
        // SAFETY: `avx512f` is there, as the cfg says, and `out` has room
        // for every entry of `from` plus a whole register.
        unsafe { wide::keep_clear(from, taken, out) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
    {
        keep_clear_one_by_one(from, taken, out)
    }
}

/// [`keep_clear_into`] one entry at a time.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx512f"))))]
fn keep_clear_one_by_one(from: &[u32], taken: u16, out: &mut [u32]) -> usize {
    let mut kept = 0;
    for &entry in from {
        out[kept] = entry;
        kept += (entry as u16 & taken == 0) as usize;
    }
    kept
}

/// Sorts the entries of `out` by size alone (all a family needs), keeping
/// their order within a size: one branch-free pass per size, cheaper than
/// a full sort for the few sizes a family spans. `spare` is a buffer to
/// copy them through, swapped with `out`.
pub(super) fn sort_by_size(out: &mut Vec<u32>, spare: &mut Vec<u32>) {
    let (low, high) = out.iter().fold((u32::MAX, 0), |(low, high), &e| {
        (low.min(e >> 16), high.max(e >> 16))
    });
    if low >= high {
        return;
    }
    // Every slot up to `out.len()` is written: grown, not cleared, so the
    // buffer is zeroed only when it grows.
    if spare.len() < out.len() + SLACK {
        spare.resize(out.len() + SLACK, 0);
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    {
        let mut placed = 0;
        for size in low..=high {
            // SAFETY: `avx512f` is there, and `spare` has room for every
            // entry plus a whole register.
            placed += unsafe { wide::keep_size(out, size, &mut spare[placed..]) };
        }
        debug_assert_eq!(placed, out.len());
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
    sort_one_by_one(out, low, high, spare);
    spare.truncate(out.len());
    std::mem::swap(out, spare);
}

/// The passes of [`sort_by_size`] one entry at a time, sizes `low` to
/// `high`, into `spare` (with room for one more).
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx512f"))))]
fn sort_one_by_one(out: &[u32], low: u32, high: u32, spare: &mut [u32]) {
    let mut placed = 0;
    for size in low..=high {
        for &entry in out {
            // A pass writes past the last entry placed.
            spare[placed] = entry;
            placed += (entry >> 16 == size) as usize;
        }
    }
}

/// The 16-wide passes.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
mod wide {
    use std::arch::x86_64::{
        __m512i, _mm512_cmpeq_epi32_mask, _mm512_maskz_compress_epi32, _mm512_maskz_loadu_epi32,
        _mm512_set1_epi32, _mm512_srli_epi32, _mm512_storeu_si512, _mm512_testn_epi32_mask,
    };

    /// Writes to `out` the entries of `from` whose lanes `keep` marks, in
    /// order; returns how many. `out` must have room for all it keeps plus
    /// 16 (each store writes a whole register).
    #[inline(always)]
    unsafe fn compact(from: &[u32], out: &mut [u32], keep: impl Fn(__m512i) -> u16) -> usize {
        let mut kept = 0;
        for chunk in from.chunks(16) {
            // Lanes past the chunk's end are neither read nor kept.
            let lanes = (u32::MAX >> (32 - chunk.len())) as u16;
            debug_assert!(kept + 16 <= out.len(), "no room for a whole register");
            // SAFETY: the mask reads only the chunk's entries; the store
            // writes 16 lanes from `kept` ≤ the entries read so far, which
            // `out`'s slack covers.
            unsafe {
                let v = _mm512_maskz_loadu_epi32(lanes, chunk.as_ptr().cast());
                let mask = keep(v) & lanes;
                let packed = _mm512_maskz_compress_epi32(mask, v);
                _mm512_storeu_si512(out.as_mut_ptr().add(kept).cast(), packed);
                kept += mask.count_ones() as usize;
            }
        }
        kept
    }

    /// [`super::keep_clear_into`], 16 entries at a time.
    #[inline]
    pub(super) unsafe fn keep_clear(from: &[u32], taken: u16, out: &mut [u32]) -> usize {
        // SAFETY: as the caller promises.
        unsafe {
            let taken = _mm512_set1_epi32(taken as i32);
            compact(from, out, |v| _mm512_testn_epi32_mask(v, taken))
        }
    }

    /// One pass of [`super::sort_by_size`]: the entries of `size` cards,
    /// 16 at a time.
    #[inline]
    pub(super) unsafe fn keep_size(from: &[u32], size: u32, out: &mut [u32]) -> usize {
        // SAFETY: as the caller promises.
        unsafe {
            let size = _mm512_set1_epi32(size as i32);
            compact(from, out, |v| {
                _mm512_cmpeq_epi32_mask(_mm512_srli_epi32::<16>(v), size)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::Xoshiro256PlusPlus as StdRng;
    use rand::{RngExt, SeedableRng};

    /// Random entries of sizes 0..=5 (the set is any 16 bits: only the
    /// compaction is tested here).
    fn entries(rng: &mut StdRng, len: usize) -> Vec<u32> {
        (0..len)
            .map(|_| rng.random_range(0..6u32) << 16 | rng.random::<u16>() as u32)
            .collect()
    }

    #[test]
    fn kept_clear_are_those_a_filter_keeps() {
        let mut rng = StdRng::seed_from_u64(27);
        for len in (0..70).chain([200, 1000]) {
            let from = entries(&mut rng, len);
            let taken = rng.random::<u16>() & rng.random::<u16>();
            let expected: Vec<u32> = from
                .iter()
                .copied()
                .filter(|&e| e as u16 & taken == 0)
                .collect();
            let mut out = Vec::new();
            let kept = keep_clear_into(&from, taken, &mut out);
            assert_eq!(&out[..kept], &expected[..], "len {len}");
            let mut one = vec![0; len + SLACK];
            let kept_one = keep_clear_one_by_one(&from, taken, &mut one);
            assert_eq!(&one[..kept_one], &expected[..]);
        }
    }

    #[test]
    fn sorted_by_size_as_a_stable_sort_sorts() {
        let mut rng = StdRng::seed_from_u64(11);
        for len in (0..70).chain([200, 1000]) {
            let mut out = entries(&mut rng, len);
            let mut expected = out.clone();
            expected.sort_by_key(|&e| e >> 16);
            let mut one = vec![0; len + 1];
            let (low, high) = (
                expected.first().map_or(0, |e| e >> 16),
                expected.last().map_or(0, |e| e >> 16),
            );
            sort_one_by_one(&out, low, high, &mut one);
            sort_by_size(&mut out, &mut Vec::new());
            assert_eq!(out, expected, "len {len}");
            if len > 0 {
                assert_eq!(&one[..len], &expected[..]);
            }
        }
    }
}
