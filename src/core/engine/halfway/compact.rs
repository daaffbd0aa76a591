//! The count's passes over a family's entries `size << 16 | set`:
//! branch-free compaction (those clear of some cards, or those of one
//! size, kept in order) and the marking of the entries that hold each
//! card. Where a CPU has AVX-512, 16 entries at a time (kept lanes are
//! compressed in a register and stored whole: Zen 4's compress straight
//! to memory is microcoded and slow); where it has AVX2 only, 8 at a time
//! (kept lanes moved to the front by a permutation read from a table);
//! else one by one. Whether an entry is kept is a coin toss to the branch
//! predictor, so no way branches on it.

#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx2"))))]
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
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        not(target_feature = "avx512f")
    ))]
    {
        // SAFETY: `avx2` is there, as the cfg says, and `out` has room for
        // every entry of `from` plus a whole register.
        unsafe { eight::keep_clear(from, taken, out) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        keep_clear_one_by_one(from, taken, out)
    }
}

/// [`keep_clear_into`] one entry at a time.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx2"))))]
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
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        let mut placed = 0;
        for size in low..=high {
            // A pass as wide as the CPU goes: 16 entries with AVX-512, 8
            // with AVX2 alone.
            // SAFETY: the feature is there, as the cfg says, and `spare`
            // has room for every entry plus a whole register.
            #[cfg(target_feature = "avx512f")]
            let kept = unsafe { wide::keep_size(out, size, &mut spare[placed..]) };
            // SAFETY: as above.
            #[cfg(not(target_feature = "avx512f"))]
            let kept = unsafe { eight::keep_size(out, size, &mut spare[placed..]) };
            placed += kept;
        }
        debug_assert_eq!(placed, out.len());
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    sort_one_by_one(out, low, high, spare);
    spare.truncate(out.len());
    std::mem::swap(out, spare);
}

/// The passes of [`sort_by_size`] one entry at a time, sizes `low` to
/// `high`, into `spare` (with room for one more).
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx2"))))]
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
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        not(target_feature = "avx512f")
    ))]
    // SAFETY: `avx2` is there, as the cfg says.
    unsafe {
        eight::hold_cards(family, holders)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    hold_cards_one_by_one(family, holders)
}

/// [`hold_cards`] entry by entry.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx2"))))]
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

/// The 8-wide passes, for CPUs with AVX2 but not AVX-512 (AMD's Zen 3 and
/// earlier, and Intel's cores without it): one by one, the passes took a
/// tenth of deal 7's time on a Zen 3. Built for tests wherever AVX2 is, so
/// an AVX-512 machine tests them too.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    any(test, not(target_feature = "avx512f"))
))]
mod eight {
    use super::Chunk;
    use crate::engine::board::bits;
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_castsi256_ps, _mm256_cmpeq_epi32, _mm256_cmpgt_epi32,
        _mm256_loadu_si256, _mm256_maskload_epi32, _mm256_movemask_ps, _mm256_permutevar8x32_epi32,
        _mm256_set1_epi32, _mm256_setr_epi32, _mm256_setzero_si256, _mm256_sllv_epi32,
        _mm256_srli_epi32, _mm256_storeu_si256,
    };

    /// For each mask of 8 lanes, the lanes it keeps in order, then zeros:
    /// the permutation that moves the kept lanes to the front.
    static FRONT: [[u32; 8]; 256] = front();

    /// Builds [`FRONT`].
    const fn front() -> [[u32; 8]; 256] {
        let mut table = [[0u32; 8]; 256];
        let mut mask = 0;
        while mask < 256 {
            let (mut lane, mut kept) = (0, 0);
            while lane < 8 {
                if mask >> lane & 1 == 1 {
                    table[mask][kept] = lane as u32;
                    kept += 1;
                }
                lane += 1;
            }
            mask += 1;
        }
        table
    }

    /// Up to 8 entries in a register, and the lanes they fill (the others
    /// are zero and never read from memory).
    #[inline(always)]
    unsafe fn load(entries: &[u32]) -> (__m256i, u8) {
        debug_assert!((1..=8).contains(&entries.len()));
        let len = entries.len();
        let lanes = (u32::MAX >> (32 - len)) as u8;
        // SAFETY: `avx2` is there, as the caller promises; a full chunk
        // reads its 8 entries, a short one only its own lanes.
        unsafe {
            if len == 8 {
                (_mm256_loadu_si256(entries.as_ptr().cast()), lanes)
            } else {
                let index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
                let within = _mm256_cmpgt_epi32(_mm256_set1_epi32(len as i32), index);
                (
                    _mm256_maskload_epi32(entries.as_ptr().cast(), within),
                    lanes,
                )
            }
        }
    }

    /// The lanes of `v` whose top bit is set.
    #[inline(always)]
    unsafe fn top_bits(v: __m256i) -> u8 {
        // SAFETY: as the caller promises.
        unsafe { _mm256_movemask_ps(_mm256_castsi256_ps(v)) as u8 }
    }

    /// Writes to `out` the entries of `from` whose lanes `keep` marks, in
    /// order; returns how many. `out` must have room for all it keeps plus
    /// 8 (each store writes a whole register).
    #[inline(always)]
    unsafe fn compact(from: &[u32], out: &mut [u32], keep: impl Fn(__m256i) -> u8) -> usize {
        let mut kept = 0;
        for chunk in from.chunks(8) {
            debug_assert!(kept + 8 <= out.len(), "no room for a whole register");
            // SAFETY: the store writes 8 lanes from `kept` ≤ the entries
            // read so far, which `out`'s slack covers.
            unsafe {
                let (v, lanes) = load(chunk);
                let mask = keep(v) & lanes;
                let order = _mm256_loadu_si256(FRONT[mask as usize].as_ptr().cast());
                let packed = _mm256_permutevar8x32_epi32(v, order);
                _mm256_storeu_si256(out.as_mut_ptr().add(kept).cast(), packed);
                kept += mask.count_ones() as usize;
            }
        }
        kept
    }

    /// [`super::keep_clear_into`], 8 entries at a time.
    #[inline]
    pub(super) unsafe fn keep_clear(from: &[u32], taken: u16, out: &mut [u32]) -> usize {
        // SAFETY: as the caller promises.
        unsafe {
            let taken = _mm256_set1_epi32(taken as i32);
            compact(from, out, |v| {
                top_bits(_mm256_cmpeq_epi32(
                    _mm256_and_si256(v, taken),
                    _mm256_setzero_si256(),
                ))
            })
        }
    }

    /// One pass of [`super::sort_by_size`]: the entries of `size` cards,
    /// 8 at a time.
    #[inline]
    pub(super) unsafe fn keep_size(from: &[u32], size: u32, out: &mut [u32]) -> usize {
        // SAFETY: as the caller promises.
        unsafe {
            let size = _mm256_set1_epi32(size as i32);
            compact(from, out, |v| {
                top_bits(_mm256_cmpeq_epi32(_mm256_srli_epi32::<16>(v), size))
            })
        }
    }

    /// [`super::hold_cards`], card by card, 8 entries at a time: each
    /// card's bit shifted to the top of its lane, and the tops gathered.
    pub(super) unsafe fn hold_cards(family: &[u32], holders: &mut [Chunk]) {
        let any = family.iter().fold(0u16, |m, &e| m | e as u16);
        for (entries, (held, _)) in family.chunks(64).zip(holders) {
            for (block, entries) in entries.chunks(8).enumerate() {
                // SAFETY: as the caller promises.
                unsafe {
                    let (v, _) = load(entries);
                    for card in bits(any) {
                        let up = _mm256_sllv_epi32(v, _mm256_set1_epi32(31 - card as i32));
                        held[card] |= (top_bits(up) as u64) << (8 * block);
                    }
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

    /// The 8-wide passes against the filters they stand for, on any CPU
    /// with AVX2 (an AVX-512 build uses the 16-wide ones, so this is where
    /// it meets the 8-wide).
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    #[test]
    fn eight_wide_passes_keep_what_the_filters_keep() {
        let mut rng = StdRng::seed_from_u64(8);
        for len in (0..70).chain([200, 1000]) {
            let from = entries(&mut rng, len);
            let taken = rng.random::<u16>() & rng.random::<u16>();
            let mut out = vec![0; len + SLACK];
            // SAFETY: AVX2 is there, as the cfg says; `out` has the slack.
            let kept = unsafe { eight::keep_clear(&from, taken, &mut out) };
            let clear: Vec<u32> = from
                .iter()
                .copied()
                .filter(|&e| e as u16 & taken == 0)
                .collect();
            assert_eq!(&out[..kept], &clear[..], "len {len}");
            for size in 0..6 {
                // SAFETY: as above.
                let kept = unsafe { eight::keep_size(&from, size, &mut out) };
                let sized: Vec<u32> = from.iter().copied().filter(|&e| e >> 16 == size).collect();
                assert_eq!(&out[..kept], &sized[..], "len {len} size {size}");
            }
            let empty = ([0; MAX_CELLS], [0; MAX_CELLS + 1]);
            let mut by_eight = vec![empty; len.div_ceil(64)];
            let mut one = by_eight.clone();
            // SAFETY: as above.
            unsafe { eight::hold_cards(&from, &mut by_eight) };
            hold_cards_one_by_one(&from, &mut one);
            assert_eq!(by_eight, one, "len {len}");
        }
    }
}
