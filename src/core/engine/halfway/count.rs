//! The count of distinct states at each depth: the sets of buried cards
//! each pair (bottom, top) can hold, and the count's entry points. The
//! count itself goes by classes of states (`classes`).

use super::CHECK_EVERY;
use super::compact::{Chunk, hold_cards, keep_clear_into, sort_by_size};
use super::merges::{Merges, PartChunk};
use crate::engine::board::bits;
use crate::engine::limits::{Limits, SearchError};
use crate::engine::state::MAX_CELLS;

/// The sets of buried cards each pair (bottom, top) can take, by size.
pub(super) struct PairSets {
    /// Entries `size << 16 | set`, for each pair `bottom * 16 + top`, sorted.
    pub(super) sets: Vec<Vec<u32>>,
    /// For each pair and size k, how many of its sets have k cards or fewer.
    pub(super) within: Vec<[u32; MAX_CELLS + 1]>,
    /// For each bottom and size k, the tops whose pair takes a set of size ≤ k.
    pub(super) tops_within: Vec<[u16; MAX_CELLS + 1]>,
}

impl Merges {
    /// The pairs' sets of buried cards, up to `max_buried` cards each.
    pub(super) fn pair_sets(&self, max_buried: usize) -> PairSets {
        let mut sets = vec![Vec::new(); MAX_CELLS * MAX_CELLS];
        // Only the sets that can become one stack have a pair (the puzzles
        // E5 favours have a few thousand of the 65 536).
        for &set in &self.parts {
            let size = set.count_ones() as usize;
            if size < 2 || size > max_buried + 2 {
                continue;
            }
            for top in bits(set) {
                for bottom in bits(self.stacks[set as usize][top]) {
                    let buried = set & !(1 << top | 1 << bottom);
                    sets[bottom * MAX_CELLS + top].push(((size as u32 - 2) << 16) | buried as u32);
                }
            }
        }
        let mut tops_within = vec![[0u16; MAX_CELLS + 1]; MAX_CELLS];
        let mut within = vec![[0u32; MAX_CELLS + 1]; MAX_CELLS * MAX_CELLS];
        for (pair, list) in sets.iter_mut().enumerate() {
            list.sort_unstable();
            for &entry in list.iter() {
                for count in &mut within[pair][(entry >> 16) as usize..] {
                    *count += 1;
                }
            }
            if let Some(&first) = list.first() {
                let (bottom, top) = (pair / MAX_CELLS, pair % MAX_CELLS);
                for tops in &mut tops_within[bottom][(first >> 16) as usize..] {
                    *tops |= 1 << top;
                }
            }
        }
        PairSets {
            sets,
            within,
            tops_within,
        }
    }

    /// Distinct states reachable in exactly d moves, for d = 0..=`depth`.
    pub fn count_states(&self, depth: usize, limits: &Limits) -> Result<Vec<u64>, SearchError> {
        self.count_states_on(depth, 1, limits)
    }

    /// [`Merges::count_states`] on `threads` threads: the sets of laden
    /// pairs are dealt out by their first pair, each to the next thread
    /// free, and the threads' counts added.
    pub fn count_states_on(
        &self,
        depth: usize,
        threads: usize,
        limits: &Limits,
    ) -> Result<Vec<u64>, SearchError> {
        self.count_by_classes(depth, threads, limits)
    }
}

/// The distinct states made by adding sets of pairs among the `allowed`
/// ones (tops by bottom) to pairs on the cards `used` whose buried cards can
/// be any set of `family` (entries `size << 16 | set`, sorted), counted by
/// depth up to `depth`: a state's depth here is the pairs added plus all
/// its buried cards, those of `family` included.
pub(super) fn count_added(
    pairs: &PairSets,
    all: u16,
    allowed: [u16; MAX_CELLS],
    used: u16,
    family: Vec<u32>,
    depth: usize,
    limits: &Limits,
) -> Result<Vec<u64>, SearchError> {
    let mut walk = PairWalk {
        pairs,
        allowed,
        all,
        depth,
        counts: vec![0; depth + 1],
        seen: vec![0; 1 << 10],
        families: vec![Vec::new(); depth + 2],
        holders: vec![Vec::new(); depth + 2],
        avail: vec![Vec::new(); depth + 2],
        deep: Box::new([0; 1 << 10]),
        touched: [0; 16],
        spare: Vec::new(),
        nodes: 0,
        limits,
    };
    walk.families[0] = family;
    walk.visit(0, used, 0)?;
    Ok(walk.counts)
}

/// Families of this many entries or fewer are read entry by entry, not
/// bit-sliced (in both walks).
pub(super) const SMALL_FAMILY: usize = 6;

/// Whether `union` is met for the first time since `seen` was last
/// cleared (a bit per set of cards), marking it met.
#[inline]
pub(super) fn first_meeting(seen: &mut [u64], union: u16) -> bool {
    let (word, bit) = (union as usize >> 6, 1u64 << (union & 63));
    if seen[word] & bit != 0 {
        return false;
    }
    seen[word] |= bit;
    true
}

/// Marks `union` in `deep`, and its word in `touched`.
#[inline]
fn mark_deep(deep: &mut [u64; 1 << 10], touched: &mut [u64; 16], union: u16) {
    deep[union as usize >> 6] |= 1 << (union & 63);
    touched[union as usize >> 12] |= 1 << ((union >> 6) & 63);
}

/// The unions marked in `deep`, counted and cleared, by the words
/// `touched` marks (also cleared).
#[inline]
fn drain_deep(deep: &mut [u64; 1 << 10], touched: &mut [u64; 16]) -> u64 {
    let mut count = 0;
    for (i, words) in touched.iter_mut().enumerate() {
        while *words != 0 {
            let word = 64 * i + words.trailing_zeros() as usize;
            *words &= *words - 1;
            count += deep[word].count_ones() as u64;
            deep[word] = 0;
        }
    }
    count
}

/// Clears `union` from `seen`, for the next family.
#[inline]
pub(super) fn forget_meeting(seen: &mut [u64], union: u16) {
    seen[union as usize >> 6] &= !(1u64 << (union & 63));
}

/// The entries of a chunk that hold none of `cards` and have `size` cards
/// or fewer, as bits.
#[inline]
pub(super) fn clear_of((held, sized): &Chunk, cards: u16, size: usize) -> u64 {
    bits(cards).fold(sized[size], |clear, card| clear & !held[card])
}

/// Slices `family` (sorted by size, none over `room` cards) into
/// `holders`: holders[j].0[c] has bit i when entry 64j + i holds card c, so
/// the entries clear of a set of cards are found 64 at a time; holders[j].1[k]
/// has those of k cards or fewer.
pub(super) fn slice(family: &[u32], room: usize, holders: &mut Vec<Chunk>) {
    holders.resize(
        family.len().div_ceil(64),
        ([0; MAX_CELLS], [0; MAX_CELLS + 1]),
    );
    hold_cards(family, holders);
    // Sorted by size, so those of k cards or fewer come first.
    for k in 0..=room {
        let upto = family.partition_point(|&e| (e >> 16) as usize <= k);
        for (j, (_, sized)) in holders.iter_mut().enumerate() {
            sized[k] = PartChunk::upto(upto, j);
        }
    }
}

/// The walk over sets of pairs that counts distinct states.
struct PairWalk<'a> {
    pairs: &'a PairSets,
    /// For each bottom, the tops its pairs may have.
    allowed: [u16; MAX_CELLS],
    all: u16,
    depth: usize,
    counts: Vec<u64>,
    /// Bit per set of cards: already in the family being built.
    seen: Vec<u64>,
    /// The family of buried-card sets of each set of pairs along the walk,
    /// by its number of pairs, each sorted by size, as entries
    /// `size << 16 | set`.
    families: Vec<Vec<u32>>,
    /// For each number of pairs, the family bit-sliced by card and by size.
    holders: Vec<Vec<Chunk>>,
    /// For each number of pairs, the sets the next pair can take.
    avail: Vec<Vec<u32>>,
    /// Bit per set of cards: a union at the last depth met, for the pair
    /// being added (kept apart from `seen`: counted by its words, not
    /// tested one by one).
    deep: Box<[u64; 1 << 10]>,
    /// Bit per word of `deep`: marked, to count and clear.
    touched: [u64; 16],
    /// A buffer for [`sort_by_size`].
    spare: Vec<u32>,
    nodes: usize,
    limits: &'a Limits,
}

impl PairWalk<'_> {
    /// Visits a set of `pairs` pairs using the cards `used`, whose family of
    /// buried-card sets is `families[pairs]`; further pairs have bottoms
    /// from `first_bottom` on, so each set of pairs is visited once.
    fn visit(&mut self, pairs: usize, used: u16, first_bottom: usize) -> Result<(), SearchError> {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            self.limits.check_cancel()?;
        }
        let family = std::mem::take(&mut self.families[pairs]);
        // Each (pairs, buried set) is one state: the buried cards and the
        // pairs fix every cell's top. Sorted by size: each size's entries
        // are counted at once, not one increment apiece (those chain).
        let mut rest = &family[..];
        while let Some(&first) = rest.first() {
            let same = rest.partition_point(|&e| e >> 16 == first >> 16);
            self.counts[pairs + (first >> 16) as usize] += same as u64;
            rest = &rest[same..];
        }
        let fewest = (family[0] >> 16) as usize;
        if pairs + 1 + fewest <= self.depth {
            self.extend(pairs, used, first_bottom, &family)?;
        }
        self.families[pairs] = family;
        Ok(())
    }

    /// Visits every set of `pairs + 1` pairs made by adding one pair to
    /// these, whose family is `family`.
    fn extend(
        &mut self,
        pairs: usize,
        used: u16,
        first_bottom: usize,
        family: &[u32],
    ) -> Result<(), SearchError> {
        let fewest = (family[0] >> 16) as usize;
        let room = self.depth - pairs - 1;
        // Only sets with room for a pair beside them.
        let fits = family.partition_point(|&e| (e >> 16) as usize <= room);
        // A card in every set that fits is neither the new pair's bottom
        // nor its top: no union would be clear of it.
        let common = family[..fits].iter().fold(self.all, |m, &e| m & e as u16);
        let free = self.all & !used;
        let ends = free & !common;
        let low_bits = ((1u32 << first_bottom) - 1) as u16;
        // A small family is read entry by entry: slicing it would cost more
        // than it saves (about four in five of the families met have six
        // entries or fewer, nearly half just one).
        let small = fits <= SMALL_FAMILY;
        let mut holders = std::mem::take(&mut self.holders[pairs]);
        holders.clear();
        let mut out = std::mem::take(&mut self.families[pairs + 1]);
        let mut avail = std::mem::take(&mut self.avail[pairs]);
        for bottom in bits(ends & !low_bits) {
            let tops = ends
                & self.pairs.tops_within[bottom][room - fewest]
                & self.allowed[bottom]
                & !(1 << bottom);
            for top in bits(tops) {
                let pair = bottom * MAX_CELLS + top;
                let sets = &self.pairs.sets[pair];
                let taken = used | 1 << bottom | 1 << top;
                // The pair's sets clear of the cards already taken, among
                // the `fitting` ones small enough to sit beside the
                // family's smallest.
                let fitting = self.pairs.within[pair][room - fewest] as usize;
                // (Finding them 64 at a time, bit-sliced by card, was tried
                // in issue 27: no faster.)
                let kept = keep_clear_into(&sets[..fitting], taken, &mut avail);
                if kept == 0 {
                    continue;
                }
                // Sliced when first needed: many nodes add no pair.
                if !small && holders.is_empty() {
                    slice(&family[..fits], room, &mut holders);
                }
                out.clear();
                // With one set for the pair, or one in the family, every
                // union is new.
                let single = kept == 1 || fits == 1;
                let mut deepest = 0u64;
                if small {
                    let ends = 1 << bottom | 1 << top;
                    for &more in &avail[..kept] {
                        let x = more as u16;
                        let room_left = room - (more >> 16) as usize;
                        let blocked = x | ends;
                        for &buried in &family[..fits] {
                            let size = (buried >> 16) as usize;
                            if size > room_left {
                                // Sorted by size: the rest are larger.
                                break;
                            }
                            if buried as u16 & blocked != 0 {
                                continue;
                            }
                            let union = buried as u16 | x;
                            if size == room_left {
                                if single {
                                    deepest += 1;
                                } else {
                                    mark_deep(&mut self.deep, &mut self.touched, union);
                                }
                                continue;
                            }
                            if !single && !first_meeting(&mut self.seen, union) {
                                continue;
                            }
                            out.push((buried + (more & 0xffff_0000)) | union as u32);
                        }
                    }
                } else {
                    for &more in &avail[..kept] {
                        let x = more as u16;
                        // Entries of `room_left` cards fill the room: their unions
                        // are states at the last depth, counted, not visited.
                        let room_left = room - (more >> 16) as usize;
                        for (j, chunk) in holders.iter().enumerate() {
                            let ends = 1 << bottom | 1 << top;
                            let mut clear = clear_of(chunk, x | ends, room_left);
                            let sized = &chunk.1;
                            let fewer = if room_left == 0 {
                                0
                            } else {
                                sized[room_left - 1]
                            };
                            let mut deep = clear & !fewer;
                            clear &= fewer;
                            if single {
                                deepest += deep.count_ones() as u64;
                                deep = 0;
                            }
                            while deep != 0 {
                                let union =
                                    family[64 * j + deep.trailing_zeros() as usize] as u16 | x;
                                deep &= deep - 1;
                                mark_deep(&mut self.deep, &mut self.touched, union);
                            }
                            while clear != 0 {
                                let i = 64 * j + clear.trailing_zeros() as usize;
                                clear &= clear - 1;
                                let buried = family[i];
                                let union = buried as u16 | x;
                                if !single && !first_meeting(&mut self.seen, union) {
                                    continue;
                                }
                                out.push((buried + (more & 0xffff_0000)) | union as u32);
                            }
                        }
                    }
                }
                if !single {
                    for &entry in &out {
                        forget_meeting(&mut self.seen, entry as u16);
                    }
                    deepest += drain_deep(&mut self.deep, &mut self.touched);
                }
                self.counts[self.depth] += deepest;
                if !out.is_empty() {
                    // The next family must be sorted by size: with one
                    // set on either side it is made so already.
                    if !single {
                        sort_by_size(&mut out, &mut self.spare);
                    }
                    debug_assert!(out.is_sorted_by_key(|&e| e >> 16));
                    self.families[pairs + 1] = out;
                    self.visit(pairs + 1, taken, bottom + 1)?;
                    out = std::mem::take(&mut self.families[pairs + 1]);
                }
            }
        }
        self.holders[pairs] = holders;
        self.avail[pairs] = avail;
        self.families[pairs + 1] = out;
        Ok(())
    }
}
