//! The splits of the stacks the walk back meets: each stack's ways of
//! having been made by its last move, as the bits they flip in a word,
//! computed once per stack and kept in a cache.

use super::merges::Merges;
use super::{Word, ones};
use crate::engine::board::{KeyHasher, bits};
use crate::engine::state::MAX_CELLS;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// The splits of each stack met on the walk back, computed once. A split is
/// read as the bits it flips in a word, which depend only on the stack, and
/// the card that becomes a bottom, so a predecessor costs one xor; a
/// stack's only split is kept packed in its slot ([`Compact`]) and its
/// flip made as it is read.
pub(super) struct SplitCache {
    /// Set of cards → where its slots begin (`NONE` until it is met), with
    /// the cards it can have on top and at the bottom as one stack
    /// ([`Base`]). A set has a slot per (bottom, top) of those, indexed by
    /// their ranks among them, so a lookup is two reads (a third, of its
    /// length, for a stack with more than one split).
    base: Vec<Base>,
    /// Each stack's splits ([`Slot`]): `NONE` until computed.
    slots: Vec<Slot>,
    /// The stacks' flips, each stack's run after its length.
    flips: Vec<Word>,
    /// The new bottom of each flip (a stack's length has none).
    news: Vec<u8>,
    /// The splits of one set as they are found: slot, new bottom, and the
    /// split as a [`Compact`].
    found: Vec<(u16, u8, Compact)>,
    /// Stacks of large sets asked for by the depth about to be split.
    asked: Vec<(u16, u8, u8)>,
    /// Large set → where its halves are listed in `halved` (see
    /// [`Merges::halves_of`]).
    halves: HashMap<u16, (u32, u32), BuildHasherDefault<KeyHasher>>,
    halved: Vec<u16>,
}

/// A set's entry in the cache: where its slots begin (the low 32 bits,
/// `NONE` until it is met), the cards it can have on top (the next 16) and
/// at the bottom (the high 16). With the two masks beside the start, the
/// slots are only for the (bottom, top) a stack of the set can have: on
/// deal 0 half as many as one per pair of its cards, which took 8 MB.
type Base = u64;

/// A stack's splits in 32 bits: `NONE` until computed, `ASKED` when the
/// next depth has asked for it; with the high bit, its one split, as a
/// [`Compact`] (three in four of the stacks the walk looks up have one, and
/// so need no read past their slot); without it, where its length is in
/// `flips`, its flips following.
type Slot = u32;

/// An empty entry of the split cache.
const NONE: u32 = u32::MAX;

/// A stack's slot once the next depth has asked for it, until it is split.
const ASKED: u32 = NONE - 1;

/// The mark of a slot holding its stack's one split.
const ONE: u32 = 1 << 31;

/// Where the slot of the stack (`bottom`, `top`) of a set is, the set's
/// entry being `base`: by the rank of its bottom among the set's bottoms,
/// then of its top among the set's tops.
#[inline]
fn index(base: Base, bottom: usize, top: usize) -> usize {
    let (start, tops, bottoms) = (base as u32, (base >> 32) as u16, (base >> 48) as u16);
    // Another (bottom, top) would read another stack's slot.
    debug_assert!(bottoms >> bottom & 1 == 1 && tops >> top & 1 == 1);
    let rank = |set: u16, card: usize| (set & ((1u16 << card) - 1)).count_ones() as usize;
    start as usize + rank(bottoms, bottom) * tops.count_ones() as usize + rank(tops, top)
}

/// A split in 24 bits: the cards that moved but the new bottom (16 bits),
/// the new bottom, and the card the moved stack landed on (4 bits each).
type Compact = u32;

/// The split `compact` of the stack (`bottom`, `top`), as the bits it flips
/// in a word (see [`Merges::splits_of`]) and the card that becomes a bottom.
#[inline]
fn unpack(compact: Compact, bottom: usize, top: usize) -> (Word, u8) {
    let (rest, new, under) = (
        compact as u16,
        (compact >> 16 & 0xf) as usize,
        (compact >> 20 & 0xf) as usize,
    );
    let owners = ones(rest) * (bottom ^ new) as u64;
    let flip =
        owners | ((bottom ^ top) as u64) << (4 * new) | ((top ^ under) as u64) << (4 * bottom);
    (flip, new as u8)
}

/// The splits of one stack, as [`SplitCache::of`] finds them: its one
/// split (the flip and the new bottom), or where its flips are in the
/// cache and how many. Whole words rather than an enum: the walk keeps the
/// last one found for each bottom, and an enum's fields, written at one
/// width and copied at another, stalled on the store (perf put a tenth of
/// the walk's samples on that copy).
#[derive(Clone, Copy, Debug)]
pub(super) struct Splits {
    /// The one split's flip (0 with more than one).
    flip: Word,
    /// The one split's new bottom, or where the flips begin.
    at: u32,
    /// How many flips, or [`ONE_SPLIT`].
    len: u32,
}

/// The length of a stack's splits that has one, kept in its [`Splits`].
const ONE_SPLIT: u32 = u32::MAX;

impl Splits {
    /// No splits: where the walk has looked nothing up yet.
    pub(super) const EMPTY: Splits = Splits {
        flip: 0,
        at: 0,
        len: 0,
    };

    /// The stack's one split, its flip and new bottom, if it has one.
    #[inline]
    pub(super) fn one(&self) -> Option<(Word, usize)> {
        (self.len == ONE_SPLIT).then_some((self.flip, self.at as usize))
    }
}

/// Cards from which a set's stacks are split only as they are asked for:
/// a large set has many stacks, few of which the walk meets, and a pass
/// over its subsets costs 2^k.
const LARGE: usize = 6;

impl SplitCache {
    /// An empty cache for `n` cards.
    pub(super) fn new(n: usize) -> SplitCache {
        SplitCache {
            base: vec![NONE as Base; 1 << n],
            slots: Vec::new(),
            // The length of the stacks with no split, at 0.
            flips: vec![0],
            news: vec![0],
            found: Vec::new(),
            asked: Vec::new(),
            halves: HashMap::default(),
            halved: Vec::new(),
        }
    }

    /// The entry of `set`, its slots made on its first look.
    #[inline]
    fn base_of(&mut self, merges: &Merges, set: u16) -> Base {
        let mut base = self.base[set as usize];
        if base as u32 == NONE {
            let (tops, bottoms) = merges.ends[set as usize];
            // A set's first look, so a check costs nothing.
            assert!(
                (self.slots.len() as u64) < 1 << 32,
                "split cache past 2^32 slots"
            );
            base = self.slots.len() as Base | (tops as Base) << 32 | (bottoms as Base) << 48;
            self.base[set as usize] = base;
            let len = tops.count_ones() * bottoms.count_ones();
            self.slots.resize(self.slots.len() + len as usize, NONE);
        }
        base
    }

    /// The splits of the stack (`set`, `bottom`, `top`). The first look at
    /// a small set splits all its stacks in one pass; a large set's stack
    /// is split alone.
    #[inline]
    pub(super) fn of(&mut self, merges: &Merges, set: u16, bottom: usize, top: usize) -> Splits {
        // A stack split before, as most are, costs two reads (three with
        // more than one split), inline.
        let base = self.base[set as usize];
        if base as u32 != NONE {
            let slot = self.slots[index(base, bottom, top)];
            if slot < ASKED {
                return self.read(slot, bottom, top);
            }
        }
        self.split_new(merges, set, bottom, top)
    }

    /// The splits of a computed `slot` of the stack (`bottom`, `top`).
    #[inline]
    fn read(&self, slot: Slot, bottom: usize, top: usize) -> Splits {
        debug_assert!(slot < ASKED, "a stack not split yet");
        if slot & ONE != 0 {
            let (flip, new) = unpack(slot & !ONE, bottom, top);
            Splits {
                flip,
                at: new as u32,
                len: ONE_SPLIT,
            }
        } else {
            Splits {
                flip: 0,
                at: slot + 1,
                len: self.flips[slot as usize] as u32,
            }
        }
    }

    /// The flips of `splits`, a stack with other than one, and their new
    /// bottoms.
    #[inline]
    pub(super) fn list(&self, splits: Splits) -> (&[Word], &[u8]) {
        debug_assert!(splits.one().is_none(), "a stack with one split");
        let range = splits.at as usize..(splits.at + splits.len) as usize;
        (&self.flips[range.clone()], &self.news[range])
    }

    /// [`SplitCache::of`] for a stack not split yet.
    #[cold]
    #[inline(never)]
    fn split_new(&mut self, merges: &Merges, set: u16, bottom: usize, top: usize) -> Splits {
        let slot = index(self.base_of(merges, set), bottom, top);
        if self.slots[slot] >= ASKED {
            if (set.count_ones() as usize) < LARGE {
                let stacks: Vec<(u8, u8)> = bits(set)
                    .flat_map(|t| {
                        bits(merges.bottoms(set, t) & !(1 << t)).map(move |b| (b as u8, t as u8))
                    })
                    .collect();
                merges.splits_of(set, &stacks, self);
            } else {
                merges.splits_of(set, &[(bottom as u8, top as u8)], self);
            }
        }
        self.read(self.slots[slot], bottom, top)
    }

    /// Notes a stack the next depth will split, when its set is large and
    /// it is not split yet.
    #[inline]
    pub(super) fn ask(&mut self, merges: &Merges, set: u16, bottom: usize, top: usize) {
        if (set.count_ones() as usize) < LARGE {
            return;
        }
        let slot = index(self.base_of(merges, set), bottom, top);
        if self.slots[slot] == NONE {
            // Asked once: the slot stays empty until the set is split.
            self.slots[slot] = ASKED;
            self.asked.push((set, bottom as u8, top as u8));
        }
    }

    /// Splits the stacks asked for, each set in one pass.
    pub(super) fn split_asked(&mut self, merges: &Merges) {
        let mut asked = std::mem::take(&mut self.asked);
        asked.sort_unstable();
        for run in asked.chunk_by(|a, b| a.0 == b.0) {
            let stacks: Vec<(u8, u8)> = run.iter().map(|&(_, b, t)| (b, t)).collect();
            merges.splits_of(run[0].0, &stacks, self);
        }
        asked.clear();
        self.asked = asked;
    }

    /// Bytes the cache takes, roughly.
    pub(super) fn bytes(&self) -> usize {
        self.base.len() * size_of::<Base>()
            + self.slots.capacity() * 4
            + self.flips.capacity() * 9
            + self.halves.capacity() * 12
            + self.halved.capacity() * 2
    }
}

impl Merges {
    /// Adds to `out` the parts of `set` that can become one stack while the
    /// rest of it can too (each split once per part that moved), from the
    /// sets that can merge when they are fewer than the subsets.
    fn halves_of(&self, set: u16, out: &mut Vec<u16>) {
        let low = set & set.wrapping_neg();
        let rest = set & !low;
        if self.parts.len() < 1 << rest.count_ones() {
            out.extend(
                self.parts
                    .iter()
                    .copied()
                    .filter(|&p| p & !set == 0 && p != set && self.is_whole(set & !p)),
            );
            return;
        }
        #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
        self.halves_by_words(set, out);
        #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
        self.halves_by_subsets(set, out);
    }

    /// [`Merges::halves_of`] by a pass over the subsets of `set`: each
    /// split once, as the part with the lowest card and the rest.
    #[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "bmi2"))))]
    fn halves_by_subsets(&self, set: u16, out: &mut Vec<u16>) {
        use super::merges::in_bitmap;
        let low = set & set.wrapping_neg();
        let rest = set & !low;
        // Both are written and kept only when both can become one stack,
        // without a branch (whether they can is a coin toss to the branch
        // predictor). The empty set is never whole, so the set itself is
        // not kept.
        let start = out.len();
        out.resize(start + (2 << rest.count_ones()), 0);
        // Written through a slice, and read from one, whose bounds stay in
        // registers: through the vector, each write reloaded them.
        let (slots, whole) = (&mut out[start..], &self.whole[..]);
        let mut kept = 0;
        let mut sub = 0u16;
        loop {
            let (part, other) = (sub | low, rest & !sub);
            slots[kept] = part;
            slots[kept + 1] = other;
            kept += 2 * (in_bitmap(whole, part) & in_bitmap(whole, other)) as usize;
            // The next subset of `rest` in numeric order.
            sub = sub.wrapping_sub(rest) & rest;
            if sub == 0 {
                break;
            }
        }
        out.truncate(start + kept);
    }

    /// [`Merges::halves_by_subsets`] up to 64 subsets at a time: the
    /// `whole` bitmap's word for a set's cards above the sixth holds, bit
    /// j, whether those cards and the set j of the first six can become
    /// one stack, so one `pext` gathers the answers for every part with
    /// the same high cards, and one more (reversed) for their rests (6.9 M
    /// subsets of 11,408 sets on deal 0, 22 ms one by one).
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    fn halves_by_words(&self, set: u16, out: &mut Vec<u16>) {
        use std::arch::x86_64::{_pdep_u64, _pext_u64};
        let (low_cards, high_cards) = (set & 0x3f, set & !0x3f);
        let low = set & set.wrapping_neg();
        // Bit j for each set j of the low cards: the bits `pext` gathers,
        // in numeric order, so the answer for j is bit pext(j, low_cards).
        let mut gather = 0u64;
        let mut j = low_cards;
        loop {
            gather |= 1 << j;
            if j == 0 {
                break;
            }
            j = (j - 1) & low_cards;
        }
        let width = 1u32 << low_cards.count_ones();
        let in_width = u64::MAX >> (64 - width);
        // The part holds the lowest card: among the low cards, it is bit 0
        // of the gathered index; else it is among the high ones.
        let (must, fixed, free) = if low_cards != 0 {
            (0xaaaa_aaaa_aaaa_aaaa & in_width, 0, high_cards)
        } else {
            (1, low, high_cards & !low)
        };
        let whole = &self.whole[..];
        let mut sub = 0u16;
        loop {
            let part_high = sub | fixed;
            let other_high = high_cards & !part_high;
            // SAFETY: `pext` and `pdep` are there, as `bmi2` says.
            let (parts, others) = unsafe {
                (
                    _pext_u64(whole[part_high as usize >> 6], gather),
                    _pext_u64(whole[other_high as usize >> 6], gather),
                )
            };
            // The rest's low cards are the part's complement, at the
            // mirrored index.
            let mut both = parts & (others.reverse_bits() >> (64 - width)) & must;
            while both != 0 {
                let index = both.trailing_zeros() as u64;
                both &= both - 1;
                // SAFETY: as above.
                let part = unsafe { _pdep_u64(index, low_cards as u64) } as u16 | part_high;
                out.push(part);
                out.push(set & !part);
            }
            sub = sub.wrapping_sub(free) & free;
            if sub == 0 {
                break;
            }
        }
    }

    /// The ways the `stacks` (bottom, top) of the cards `set` can have been
    /// made by their last move, filled into their slots in `out`: each as
    /// the bits it flips in a word and the card that becomes a bottom (see
    /// [`unpack`]). The cards that moved get that card as their bottom, it
    /// gets the moved top, and the bottom they landed on gets the top
    /// under them.
    fn splits_of(&self, set: u16, stacks: &[(u8, u8)], out: &mut SplitCache) {
        let k = set.count_ones() as usize;
        let base = out.base_of(self, set);
        // Slots as offsets from the set's first.
        let at = |bottom: usize, top: usize| index(base & !(u32::MAX as Base), bottom, top);
        // The tops asked for with each bottom.
        let mut wanted = [0u16; MAX_CELLS];
        for &(bottom, top) in stacks {
            wanted[bottom as usize] |= 1 << top;
        }
        let wanted_bottoms = bits(set)
            .filter(|&b| wanted[b] != 0)
            .fold(0u16, |m, b| m | 1 << b);
        let wanted_tops = wanted.iter().fold(0u16, |m, &t| m | t);
        let mut found = std::mem::take(&mut out.found);
        found.clear();
        // `moved` is the stack that moved last (with one of `tops` on top),
        // `stayed` the one it landed on.
        let mut split = |moved: u16, tops: u16| {
            let stayed = set & !moved;
            let moved_tops = self.ends[moved as usize].0 & tops;
            let (stayed_tops, stayed_bottoms) = self.ends[stayed as usize];
            let bottoms = stayed_bottoms & wanted_bottoms;
            if moved == 0 || stayed == 0 || moved_tops == 0 || bottoms == 0 {
                return;
            }
            for bottom in bits(bottoms) {
                for top in bits(moved_tops & wanted[bottom]) {
                    let near = self.flock[top] & stayed_tops;
                    let from = self.bottoms(moved, top) & self.line[bottom];
                    if near == 0 || from == 0 {
                        continue;
                    }
                    let slot = at(bottom, top) as u16;
                    for under in bits(near) {
                        if self.bottoms(stayed, under) >> bottom & 1 == 0 {
                            continue;
                        }
                        for new in bits(from) {
                            let rest = moved & !(1 << new);
                            let compact = rest as u32 | (new as u32) << 16 | (under as u32) << 20;
                            found.push((slot, new as u8, compact));
                        }
                    }
                }
            }
        };
        // With one stack asked for, only the subsets that hold its top and
        // not its bottom can have moved.
        let (fixed, rest) = match stacks {
            [(bottom, top)] => (1u16 << top, set & !(1 << bottom | 1 << top)),
            _ => (0, set),
        };
        if k < LARGE {
            let mut sub = rest;
            loop {
                split(sub | fixed, wanted_tops);
                if sub == 0 {
                    break;
                }
                sub = (sub - 1) & rest;
            }
        } else {
            // A large set's splits into two parts that can each become one
            // stack are listed once and read by each of its stacks.
            let (start, len) = *out.halves.entry(set).or_insert_with(|| {
                let start = out.halved.len() as u32;
                self.halves_of(set, &mut out.halved);
                (start, out.halved.len() as u32 - start)
            });
            for &moved in &out.halved[start as usize..(start + len) as usize] {
                if moved & !(rest | fixed) == 0 && moved & fixed == fixed {
                    split(moved, wanted_tops);
                }
            }
        }
        let first = base as u32 as usize;
        for &(bottom, top) in stacks {
            // Asked-for stacks with no split (none: every stack met has one)
            // still get an empty list: the length at 0.
            out.slots[first + at(bottom as usize, top as usize)] = 0;
        }
        // By stack, and within a stack by new bottom: the walk stops at
        // the first whose undoing is above its bar.
        found.sort_unstable_by_key(|f| (f.0, f.1));
        // The stack of each slot, from the set's masks.
        let (tops, bottoms) = self.ends[set as usize];
        let stack = |slot: usize| {
            let per = tops.count_ones() as usize;
            let nth = |set: u16, rank: usize| bits(set).nth(rank).expect("a rank in the set");
            (nth(bottoms, slot / per), nth(tops, slot % per))
        };
        for run in found.chunk_by(|a, b| a.0 == b.0) {
            let slot = run[0].0 as usize;
            if let [(_, _, compact)] = run {
                out.slots[first + slot] = ONE | compact;
                continue;
            }
            // Above, it would read as a stack's one split.
            assert!(
                out.flips.len() < ONE as usize,
                "split cache past 2^31 flips"
            );
            out.slots[first + slot] = out.flips.len() as u32;
            out.flips.push(run.len() as Word);
            out.news.push(0);
            let (bottom, top) = stack(slot);
            for &(_, _, compact) in run {
                let (flip, new) = unpack(compact, bottom, top);
                out.flips.push(flip);
                out.news.push(new);
            }
        }
        out.found = found;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal::deal;
    use crate::engine::limits::Limits;
    use crate::engine::notation::parse_state;

    #[test]
    fn halves_are_the_splits_into_two_wholes() {
        // Deal 0 has many sets that can become one stack, so its sets'
        // halves come from their subsets; the E5 puzzle has few, so its
        // large sets' halves come from the list of those sets.
        let e5 = parse_state("9D3H2HKC6S4DJC7SAC3C9SQC4H7DADKH", None).unwrap();
        let (mut from_parts, mut from_subsets, mut found) = (0, 0, 0);
        for state in [deal(0), e5] {
            let merges = Merges::new(&state, &Limits::default()).unwrap();
            let all = merges.all();
            for set in (1..=all).step_by(37).filter(|&s| s & !all == 0) {
                let mut halves = Vec::new();
                merges.halves_of(set, &mut halves);
                halves.sort_unstable();
                // Every subset, tried one by one against the table.
                let mut expected = Vec::new();
                let mut sub = set;
                while sub != 0 {
                    let rest = set & !sub;
                    if rest != 0
                        && merges.ends[sub as usize].0 != 0
                        && merges.ends[rest as usize].0 != 0
                    {
                        expected.push(sub);
                    }
                    sub = (sub - 1) & set;
                }
                expected.sort_unstable();
                assert_eq!(halves, expected, "set {set:#x}");
                found += halves.len();
                let k = set.count_ones() - 1;
                if merges.parts.len() < 1 << k {
                    from_parts += 1;
                } else {
                    from_subsets += 1;
                }
            }
        }
        assert!(
            from_parts > 0 && from_subsets > 0,
            "{from_parts} {from_subsets}"
        );
        assert!(found > 1000, "{found} halves");
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    #[test]
    fn halves_by_words_are_those_by_subsets() {
        // Every set of deal 0's cards: those with and without cards among
        // the first six, whose halves the words gather differently.
        let merges = Merges::new(&deal(0), &Limits::default()).unwrap();
        let (mut by_words, mut by_subsets) = (Vec::new(), Vec::new());
        let mut found = 0;
        for set in 1..=merges.all() {
            by_words.clear();
            by_subsets.clear();
            merges.halves_by_words(set, &mut by_words);
            merges.halves_by_subsets(set, &mut by_subsets);
            by_words.sort_unstable();
            by_subsets.sort_unstable();
            assert_eq!(by_words, by_subsets, "set {set:#x}");
            found += by_words.len();
        }
        assert!(found > 100_000, "{found} halves");
    }
}
