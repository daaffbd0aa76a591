//! The count's passes over a family's entries `size << 16 | set`:
//! branch-free compaction (those clear of some cards, or those of one
//! size, kept in order) and the marking of the entries that hold each
//! card. Where a CPU has AVX-512, 16 entries at a time (kept lanes are
//! compressed in a register and stored whole: Zen 4's compress straight
//! to memory is microcoded and slow); else one by one. Whether an entry
//! is kept is a coin toss to the branch predictor, so neither way
//! branches on it.

#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx512f"))))]
use crate::engine::board::bits;
use crate::engine::state::MAX_CELLS;

/// 64 entries of a family, bit-sliced: which hold each card, and which
/// have each number of cards or fewer.
pub(super) type Chunk = ([u64; MAX_CELLS], [u64; MAX_CELLS + 1]);

/// Slack a buffer written by [`keep_clear_into`] needs past its last
/// entry: the 16-wide path stores whole registers.
const SLACK: usize = 16;

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

/// Marks in `holders` (cleared, one per 64 entries) which entries of
/// `family` hold each card: bit i of `holders[j].0[c]` when entry 64j + i
/// holds card c.
pub(super) fn hold_cards(family: &[u32], holders: &mut [Chunk]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    // SAFETY: `avx512f` is there, as the cfg says.
    unsafe {
        wide::hold_cards(family, holders)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
    hold_cards_one_by_one(family, holders)
}

/// [`hold_cards`] entry by entry.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx512f"))))]
fn hold_cards_one_by_one(family: &[u32], holders: &mut [Chunk]) {
    for (i, &entry) in family.iter().enumerate() {
        let held = &mut holders[i / 64].0;
        for card in bits(entry as u16) {
            held[card] |= 1 << (i % 64);
        }
    }
}

/// The 16-wide passes.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
mod wide {
    use super::Chunk;
    use crate::engine::board::bits;
    use std::arch::x86_64::{
        __m512i, _mm512_cmpeq_epi32_mask, _mm512_maskz_compress_epi32, _mm512_maskz_loadu_epi32,
        _mm512_set1_epi32, _mm512_srli_epi32, _mm512_storeu_si512, _mm512_test_epi32_mask,
        _mm512_testn_epi32_mask,
    };

    /// Up to 16 entries in a register, and the lanes they fill (the
    /// others are zero and never read from memory).
    #[inline(always)]
    unsafe fn load(entries: &[u32]) -> (__m512i, u16) {
        debug_assert!((1..=16).contains(&entries.len()));
        let lanes = (u32::MAX >> (32 - entries.len())) as u16;
        // SAFETY: `avx512f` is there, as the caller promises, and the mask
        // reads only the entries.
        (
            unsafe { _mm512_maskz_loadu_epi32(lanes, entries.as_ptr().cast()) },
            lanes,
        )
    }

    /// Writes to `out` the entries of `from` whose lanes `keep` marks, in
    /// order; returns how many. `out` must have room for all it keeps plus
    /// 16 (each store writes a whole register).
    #[inline(always)]
    unsafe fn compact(from: &[u32], out: &mut [u32], keep: impl Fn(__m512i) -> u16) -> usize {
        let mut kept = 0;
        for chunk in from.chunks(16) {
            debug_assert!(kept + 16 <= out.len(), "no room for a whole register");
            // SAFETY: the store writes 16 lanes from `kept` ≤ the entries
            // read so far, which `out`'s slack covers.
            unsafe {
                // Lanes past the chunk's end are neither read nor kept.
                let (v, lanes) = load(chunk);
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

    /// [`super::hold_cards`], card by card, 16 entries at a time.
    pub(super) unsafe fn hold_cards(family: &[u32], holders: &mut [Chunk]) {
        let any = family.iter().fold(0u16, |m, &e| m | e as u16);
        for (entries, (held, _)) in family.chunks(64).zip(holders) {
            for (block, entries) in entries.chunks(16).enumerate() {
                // SAFETY: as the caller promises.
                let (v, _) = unsafe { load(entries) };
                for card in bits(any) {
                    // SAFETY: as above.
                    let holding =
                        unsafe { _mm512_test_epi32_mask(v, _mm512_set1_epi32(1 << card)) };
                    held[card] |= (holding as u64) << (16 * block);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::state::MAX_CELLS;
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

    /// Families of every length up to three chunks and past, their sets
    /// spread over all 16 cards.
    #[test]
    fn cards_held_are_those_entry_by_entry() {
        for len in (1..=200usize).step_by(7) {
            let family: Vec<u32> = (0..len as u32)
                .map(|i| (i % 5) << 16 | (i.wrapping_mul(40_503) ^ i >> 3) & 0xffff)
                .collect();
            let empty = ([0; MAX_CELLS], [0; MAX_CELLS + 1]);
            let mut wide = vec![empty; len.div_ceil(64)];
            let mut one = wide.clone();
            hold_cards(&family, &mut wide);
            hold_cards_one_by_one(&family, &mut one);
            assert_eq!(wide, one, "len {len}");
            // And against each entry's own cards.
            for (i, &entry) in family.iter().enumerate() {
                for card in 0..MAX_CELLS {
                    let held = wide[i / 64].0[card] >> (i % 64) & 1 == 1;
                    assert_eq!(held, entry >> card & 1 == 1);
                }
            }
        }
    }
}
