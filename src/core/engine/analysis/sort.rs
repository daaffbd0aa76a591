//! Sorting and merging for the analysis's layers: a radix sort by a 64-bit
//! key, galloping matches of sorted pairs against a sorted layer, and
//! merges of sorted, deduplicated runs that a cancel switch can stop.
//!
//! Generic over the items; nothing here knows about boards.

use crate::engine::limits::Cancel;
use crate::parallel;
use rayon::ThreadPool;

/// Keys merged between two looks at the cancel switch.
const MERGE_CHECK: usize = 1 << 20;

/// Radix sort by a u64 key, for the key runs (a few million keys) and
/// pair blocks of the forward pass, where it beats a comparison sort several
/// times over. A first pass scatters on the top 11 significant bits into a
/// scratch vector (a streaming write); each bucket, now small enough for the
/// cache, is then sorted LSD 8 bits a pass with small histograms and copied
/// back. `scratch` is kept by the caller: fresh buffers this size would come
/// from the kernel as zeroed pages on every call.
pub(super) fn radix_sort_by<T: Copy + Default>(
    items: &mut [T],
    scratch: &mut Vec<T>,
    key: impl Fn(&T) -> u64 + Copy,
) {
    const TOP: usize = 11;
    if items.len() < 1 << 12 {
        items.sort_unstable_by_key(key);
        return;
    }
    let used = items.iter().fold(0u64, |m, x| m | key(x));
    let bits = (64 - used.leading_zeros()) as usize;
    let shift = bits.saturating_sub(TOP);
    let digit = |x: &T| (key(x) >> shift) as usize & ((1 << TOP) - 1);
    let mut starts = vec![0usize; (1 << TOP) + 1];
    for x in items.iter() {
        starts[digit(x) + 1] += 1;
    }
    for b in 0..1 << TOP {
        starts[b + 1] += starts[b];
    }
    if scratch.len() < items.len() {
        scratch.resize(items.len(), T::default());
    }
    let scratch = &mut scratch[..items.len()];
    let mut heads = starts.clone();
    for x in items.iter() {
        let d = digit(x);
        scratch[heads[d]] = *x;
        heads[d] += 1;
    }
    if shift == 0 {
        items.copy_from_slice(scratch);
        return;
    }
    for b in 0..1 << TOP {
        let range = starts[b]..starts[b + 1];
        // The bucket is in the cache: sort it in `scratch` and copy it home.
        lsd_sort(
            &mut scratch[range.clone()],
            &mut items[range.clone()],
            key,
            shift,
        );
        items[range.clone()].copy_from_slice(&scratch[range]);
    }
}

/// LSD radix sort of a slice on the key's low `bits` bits, 8 bits a pass.
fn lsd_sort<T: Copy>(items: &mut [T], scratch: &mut [T], key: impl Fn(&T) -> u64, bits: usize) {
    if items.len() < 64 {
        items.sort_unstable_by_key(|x| key(x) & ((1u64 << bits) - 1));
        return;
    }
    let scratch = &mut scratch[..items.len()];
    let mut in_scratch = false;
    let mut counts = [0usize; 256];
    for shift in (0..bits).step_by(8) {
        let (from, to): (&mut [T], &mut [T]) = if in_scratch {
            (&mut *scratch, &mut *items)
        } else {
            (&mut *items, &mut *scratch)
        };
        counts.fill(0);
        for x in from.iter() {
            counts[(key(x) >> shift) as usize & 0xff] += 1;
        }
        if counts.contains(&from.len()) {
            continue; // one digit value for all: this pass would move nothing
        }
        let mut sum = 0;
        for c in counts.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
        for x in from.iter() {
            let d = (key(x) >> shift) as usize & 0xff;
            to[counts[d]] = *x;
            counts[d] += 1;
        }
        in_scratch = !in_scratch;
    }
    if in_scratch {
        items.copy_from_slice(scratch);
    }
}

/// Finds each pair's key in the sorted `layer` (every key is there) and
/// hands its index and the pair's parent to `found`. Pairs are sorted, so the
/// search only moves forward, galloping.
pub(super) fn match_pairs<K: Ord + Copy>(
    layer: &[K],
    pairs: impl Iterator<Item = (K, u16)>,
    mut found: impl FnMut(u32, u16),
) {
    let mut pos = 0usize;
    for (k, parent) in pairs {
        if layer[pos] != k {
            let mut bound = 1;
            while pos + bound < layer.len() && layer[pos + bound] < k {
                bound *= 2;
            }
            let end = (pos + bound + 1).min(layer.len());
            pos += layer[pos..end].partition_point(|x| *x < k);
        }
        debug_assert!(layer[pos] == k, "a child missing from its layer");
        found(pos as u32, parent);
    }
}

/// Makes room for `more` items, growing by a quarter rather than doubling:
/// the buffers here run to hundreds of megabytes.
#[inline]
pub(super) fn make_room<T>(v: &mut Vec<T>, more: usize) {
    if v.len() + more > v.capacity() {
        v.reserve_exact(more.max(v.capacity() / 4));
    }
}

/// Two runs to merge in one round (the second is missing for an odd one out).
type RunPair<K> = (Vec<K>, Option<Vec<K>>);

/// Adds a sorted, deduplicated run to a stack of runs, merging the top two
/// while the newer is at least half the older (a binary counter). Keys repeat
/// across runs, so merging early keeps the stack near twice the distinct keys
/// rather than all the keys generated.
pub(super) fn push_run<K: Ord + Copy>(runs: &mut Vec<Vec<K>>, run: Vec<K>, cancel: &Cancel) {
    runs.push(run);
    while runs.len() >= 2 && 2 * runs[runs.len() - 1].len() >= runs[runs.len() - 2].len() {
        let b = runs.pop().unwrap();
        let a = runs.pop().unwrap();
        runs.push(merge_dedup(&a, &b, cancel));
    }
}

/// Merges sorted, deduplicated runs into one, pairwise in rounds; each
/// round is a sequential pass, its merges spread over `pool`'s threads, and
/// inputs are freed as they are merged.
pub(super) fn merge_runs<K: Ord + Copy + Send + Sync>(
    mut runs: Vec<Vec<K>>,
    pool: Option<&ThreadPool>,
    cancel: &Cancel,
) -> Vec<K> {
    while runs.len() > 1 {
        let mut pairs: Vec<RunPair<K>> = Vec::with_capacity(runs.len().div_ceil(2));
        let mut it = runs.into_iter();
        while let Some(a) = it.next() {
            pairs.push((a, it.next()));
        }
        runs = parallel::map(pool, pairs, |(a, b)| match b {
            Some(b) => merge_dedup(&a, &b, cancel),
            None => a,
        });
    }
    runs.pop().unwrap_or_default()
}

/// Merges two sorted, deduplicated vectors into one.
fn merge_dedup<K: Ord + Copy>(a: &[K], b: &[K], cancel: &Cancel) -> Vec<K> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        // Merges run to hundreds of millions of keys: look at the cancel switch
        // now and then, and stop with a partial result the caller throws away.
        if out.len() % MERGE_CHECK == 0 && cancel.is_cancelled() {
            return out;
        }
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_sort_matches_the_standard_sort() {
        // A xorshift stream, so the test needs no extra crate.
        let mut x = crate::hash::GOLDEN;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // Scratch buffers carry over between sorts of different sizes, as in
        // the analysis.
        let (mut key_scratch, mut pair_scratch) = (Vec::new(), Vec::new());
        for (len, bits) in [
            (100, 64),
            (5000, 48),
            (70_000, 64),
            (70_000, 23),
            (300_000, 37),
            (9000, 1),
        ] {
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1 << bits) - 1
            };
            let mut keys: Vec<u64> = (0..len).map(|_| next() & mask).collect();
            let mut want = keys.clone();
            want.sort_unstable();
            radix_sort_by(&mut keys, &mut key_scratch, |&k| k);
            assert_eq!(keys, want, "{len} keys of {bits} bits");
            // Pairs sort by their key only; the payload rides along.
            let mut pairs: Vec<(u64, u32)> = keys
                .iter()
                .rev()
                .enumerate()
                .map(|(i, &k)| (k, i as u32))
                .collect();
            radix_sort_by(&mut pairs, &mut pair_scratch, |p| p.0);
            assert!(pairs.windows(2).all(|w| w[0].0 <= w[1].0));
            let mut payloads: Vec<u32> = pairs.iter().map(|p| p.1).collect();
            payloads.sort_unstable();
            assert_eq!(payloads, (0..len as u32).collect::<Vec<_>>());
        }
    }
}
