//! The lists of the walk back: each depth's groupings by set of bottoms
//! ([`Level`]), the next depth's as they are made ([`NextLevel`], or a
//! thread's share of them, see `shared`), what finishes a set of bottoms
//! ([`Finish`]: its repeats dropped, its boards counted), and the lists
//! kept from one walk to the next ([`WalkLists`]).

use super::wins::{Grouping, join};
use super::{Word, ones};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The walk back's lists of groupings by set of bottoms (one per set, 2^16
/// of them for 16 cards), kept empty between walks by a caller that walks
/// back again and again. A walk needs three sets of them, and making them
/// writes megabytes; a search walks back once per step, so keeping one of
/// these for the whole search saves that at every step (about 6% of a
/// search's time when it was measured, commit 0d09029). A walk done once
/// can take a fresh one, `WalkLists::default()`.
#[derive(Default)]
pub struct WalkLists {
    /// Sets of lists, each one empty list per set of bottoms of some
    /// number of cards.
    pub(super) spare: Vec<Vec<Vec<Grouping>>>,
}

/// Sets of lists kept for reuse at most.
const SPARE_LIST_SETS: usize = 4;

impl WalkLists {
    /// One empty list per set of bottoms of `n` cards, a kept set if there
    /// is one.
    pub(super) fn take(&mut self, n: usize) -> Vec<Vec<Grouping>> {
        match self.spare.iter().position(|lists| lists.len() == 1 << n) {
            Some(at) => self.spare.swap_remove(at),
            None => vec![Vec::new(); 1 << n],
        }
    }

    /// Keeps `lists` for another walk once the sets `used` are emptied (the
    /// others must be empty, with nothing allocated).
    pub(super) fn keep(&mut self, mut lists: Vec<Vec<Grouping>>, used: &[u16]) {
        if lists.len() < 1 << 8 {
            return;
        }
        for &bottoms in used {
            lists[bottoms as usize] = Vec::new();
        }
        debug_assert!(lists.iter().all(|words| words.capacity() == 0));
        if self.spare.len() < SPARE_LIST_SETS {
            self.spare.push(lists);
        }
    }
}

/// One depth of the walk back: the distinct words of each set of bottoms
/// (indexed by the set), and how many boards they make.
pub(super) struct Level {
    pub(super) sets: Vec<Vec<Grouping>>,
    /// The sets of bottoms with words, in numeric order.
    pub(super) used: Vec<u16>,
    pub(super) boards: usize,
}

impl Level {
    /// A level with no words, in these lists (one per set of bottoms, all
    /// empty).
    pub(super) fn empty(sets: Vec<Vec<Grouping>>) -> Level {
        Level {
            sets,
            used: Vec::new(),
            boards: 0,
        }
    }

    /// A level of no cards, holding nothing, where one is needed.
    fn none() -> Level {
        Level::empty(vec![Vec::new()])
    }

    /// Bytes held, roughly.
    pub(super) fn bytes(&self) -> usize {
        self.sets.len() * std::mem::size_of::<Vec<Grouping>>()
            + self
                .used
                .iter()
                .map(|&b| self.sets[b as usize].capacity() * size_of::<Grouping>())
                .sum::<usize>()
    }
}

/// A word no grouping has: it would need every card's nibble to be 15, so
/// card 15 a bottom with itself on top and every other card in its stack.
const EMPTY: Word = u64::MAX;

/// What [`WordSet::dedup`] keeps one of: a word, or a grouping, whose
/// repeats join what is known of their winning moves.
pub(super) trait Keyed: Copy {
    /// The word that tells repeats apart.
    fn key(&self) -> Word;
    /// Takes in what a repeat knows.
    fn join(&mut self, other: Self);
}

impl Keyed for Word {
    #[inline]
    fn key(&self) -> Word {
        *self
    }

    #[inline]
    fn join(&mut self, _: Word) {}
}

impl Keyed for Grouping {
    #[inline]
    fn key(&self) -> Word {
        self.word
    }

    #[inline]
    fn join(&mut self, other: Grouping) {
        self.wins = join(self.wins, other.wins);
    }
}

/// An open-addressing set of words, cleared for each use: one set of
/// bottoms' words at a time, four slots a word.
#[derive(Default)]
pub(super) struct WordSet {
    table: Vec<Word>,
    /// Where the kept entry of each word of `table` is.
    at: Vec<u32>,
}

impl WordSet {
    /// Bytes held: the table is kept at the largest size a set needed.
    pub(super) fn bytes(&self) -> usize {
        self.table.capacity() * size_of::<Word>() + self.at.capacity() * size_of::<u32>()
    }

    /// Empties the table for `len` words (four times as many slots, at
    /// least 16: a sparser table's probes pass fewer other words, each a
    /// branch mispredicted; the walk of deals 0 and 7 took 0.598 against
    /// 0.605 s with two slots a word, eight runs each); returns its slots'
    /// bits.
    fn clear_for(&mut self, len: usize) -> u32 {
        let size = (4 * len).next_power_of_two().max(16);
        self.table.clear();
        self.table.resize(size, EMPTY);
        size.trailing_zeros()
    }

    /// The slot of `w` in the table, or the empty one it would take.
    #[inline]
    fn probe(&self, w: Word, slot_bits: u32) -> usize {
        debug_assert_ne!(w, EMPTY);
        let mask = self.table.len() - 1;
        let mut at = crate::hash::fibonacci(w, slot_bits);
        while self.table[at] != w && self.table[at] != EMPTY {
            at = (at + 1) & mask;
        }
        at
    }

    /// Keeps the first of each word in `words`, in order, with what its
    /// repeats know joined into it.
    pub(super) fn dedup<T: Keyed>(&mut self, words: &mut Vec<T>) {
        let slot_bits = self.clear_for(words.len());
        self.at.resize(self.table.len(), 0);
        let mut kept = 0;
        let mask = self.table.len() - 1;
        for i in 0..words.len() {
            let entry = words[i];
            let w = entry.key();
            debug_assert_ne!(w, EMPTY);
            // Found and taken in one pass, not through `probe`: reading the
            // slot again after the probe cost 51 M more instructions on
            // deal 0.
            let mut at = crate::hash::fibonacci(w, slot_bits);
            loop {
                let held = self.table[at];
                if held == w {
                    words[self.at[at] as usize].join(entry);
                    break;
                }
                if held == EMPTY {
                    self.table[at] = w;
                    self.at[at] = kept as u32;
                    words[kept] = entry;
                    kept += 1;
                    break;
                }
                at = (at + 1) & mask;
            }
        }
        words.truncate(kept);
    }

    /// How many distinct words `words` has, left as they are: where only
    /// the count is needed (the boards of each depth, and the last depth's
    /// words).
    pub(super) fn distinct<T: Keyed>(&mut self, words: &[T]) -> usize {
        let slot_bits = self.clear_for(words.len());
        let mut distinct = 0;
        for entry in words {
            let w = entry.key();
            let at = self.probe(w, slot_bits);
            distinct += (self.table[at] == EMPTY) as usize;
            self.table[at] = w;
        }
        distinct
    }

    /// Distinct boards among distinct groupings with these bottoms: the
    /// distinct tops.
    pub(super) fn boards(
        &mut self,
        bottoms: u16,
        words: &[Grouping],
        scratch: &mut Vec<Word>,
    ) -> usize {
        let mask = ones(bottoms) * 0xf;
        scratch.clear();
        scratch.extend(words.iter().map(|g| g.word & mask));
        self.distinct(scratch)
    }
}

/// What finishes the sets of bottoms of the next depth: each set's repeats
/// dropped and its boards counted into `done`, its words kept there unless
/// only tops count; emptied lists kept for sets yet to gather words.
pub(super) struct Finish {
    set: WordSet,
    scratch: Vec<Word>,
    /// What is finished.
    pub(super) done: Level,
    /// Keep only the count of boards, not the words.
    only_tops: bool,
    /// Count the boards of the words kept.
    counted: bool,
    /// Emptied lists, kept for sets of bottoms yet to gather words.
    spare: Vec<Vec<Grouping>>,
}

impl Finish {
    /// Nothing finished yet.
    pub(super) fn new() -> Finish {
        Finish {
            set: WordSet::default(),
            scratch: Vec::new(),
            done: Level::none(),
            only_tops: false,
            counted: true,
            spare: Vec::new(),
        }
    }

    /// Starts a depth of `n` cards into `sets` (one empty list per set of
    /// bottoms, or none, to be taken from `lists`), its boards `counted` or
    /// not.
    pub(super) fn begin(
        &mut self,
        n: usize,
        only_tops: bool,
        counted: bool,
        sets: Vec<Vec<Grouping>>,
        lists: &mut WalkLists,
    ) {
        self.only_tops = only_tops;
        self.counted = counted;
        self.done = if only_tops {
            lists.keep(sets, &[]);
            Level::none()
        } else if sets.len() == 1 << n {
            Level::empty(sets)
        } else {
            Level::empty(lists.take(n))
        };
    }

    /// Finishes a set of bottoms that will gather no more words: `words`,
    /// all it gathered.
    pub(super) fn finish(&mut self, bottoms: u16, mut words: Vec<Grouping>) {
        if self.only_tops {
            self.done.boards += self.set.distinct(&words);
        } else {
            self.set.dedup(&mut words);
            if self.counted {
                self.done.boards += self.set.boards(bottoms, &words, &mut self.scratch);
            }
            self.done.sets[bottoms as usize] = words.to_vec();
            self.done.used.push(bottoms);
        }
        self.recycle(words);
    }

    /// Drops the repeats of `words`, a set's list, once it has gathered
    /// many since the last time (`kept` words were left then).
    #[inline]
    pub(super) fn compact(&mut self, words: &mut Vec<Grouping>, kept: &mut u32) {
        if words.len() > COMPACT_AT.max(2 * *kept as usize) {
            self.set.dedup(words);
            *kept = words.len() as u32;
        }
    }

    /// A set of bottoms' list, or, when it has none allocated yet, an
    /// emptied one kept from another set: fewer lists grow from nothing.
    #[inline]
    pub(super) fn list(&mut self, words: Vec<Grouping>) -> Vec<Grouping> {
        if words.capacity() == 0 {
            self.spare.pop().unwrap_or_default()
        } else {
            words
        }
    }

    /// The list of the set `bottoms` in `raw`, taken out to be filled (see
    /// [`Finish::list`]).
    #[inline]
    pub(super) fn take(&mut self, raw: &mut [Vec<Grouping>], bottoms: u16) -> Vec<Grouping> {
        let words = std::mem::take(&mut raw[bottoms as usize]);
        self.list(words)
    }

    /// Puts back into `raw` the list of the set `bottoms` taken with
    /// [`Finish::take`], or keeps it for another set when it is empty;
    /// whether it went back.
    #[inline]
    pub(super) fn put(
        &mut self,
        raw: &mut [Vec<Grouping>],
        bottoms: u16,
        words: Vec<Grouping>,
    ) -> bool {
        if words.is_empty() {
            self.recycle(words);
            return false;
        }
        raw[bottoms as usize] = words;
        true
    }

    /// Keeps an emptied list for another set of bottoms.
    pub(super) fn recycle(&mut self, mut words: Vec<Grouping>) {
        if words.capacity() > 0 && words.capacity() <= COMPACT_AT * 4 && self.spare.len() < 1 << 12
        {
            words.clear();
            self.spare.push(words);
        }
    }

    /// The finished depth, its sets in numeric order.
    pub(super) fn result(&mut self) -> Level {
        self.done.used.sort_unstable();
        std::mem::replace(&mut self.done, Level::none())
    }

    /// Bytes held, roughly.
    pub(super) fn bytes(&self) -> usize {
        let spare: usize = self.spare.iter().map(Vec::capacity).sum();
        spare * size_of::<Grouping>() + self.done.bytes() + self.set.bytes()
    }
}

/// Where the predecessors of a set of groupings go: the lists of the next
/// depth's sets of bottoms, each taken out while it is filled.
pub(super) trait Sink {
    /// The words gathered so far for a set of bottoms.
    fn take(&mut self, bottoms: u16) -> Vec<Grouping>;
    /// Gives back the words of a set of bottoms taken with `take`; `new`
    /// when it had none before.
    fn put(&mut self, bottoms: u16, words: Vec<Grouping>, new: bool);
}

/// The groupings of the next depth of the walk back (one move shallower)
/// while they are made by splitting those of the depth before: for each
/// set of bottoms, the words made for it so far, repeats and all until it
/// is compacted, then finished (deduplicated and counted) once no set that
/// can lead to it is left to split. The finished sets make the next
/// [`Level`].
pub(super) struct NextLevel {
    /// For each set of bottoms, the words made for it so far.
    pub(super) raw: Vec<Vec<Grouping>>,
    /// For each set of bottoms, its words after its last compaction.
    kept: Vec<u32>,
    /// The sets of bottoms with words, by the set whose split finishes
    /// them (the last of their sources in numeric order), soonest first.
    pending: BinaryHeap<Reverse<(u16, u16)>>,
    finish: Finish,
}

/// Words a set of bottoms gathers before its repeats are dropped, at least.
/// Small, because the repeats held are most of the walk's memory: 4096
/// held deal 0's walk at 116 MB and the flocking puzzle's at 1.18 GB, 512
/// at 80 MB and 0.99 GB, in the same time within the noise (deal 6, the
/// largest of deals 0..9, perhaps 4% slower; issue 27).
const COMPACT_AT: usize = 1 << 9;

impl NextLevel {
    /// Ready to gather the groupings of `n` cards, in lists from `lists`.
    pub(super) fn new(n: usize, lists: &mut WalkLists) -> NextLevel {
        NextLevel {
            raw: lists.take(n),
            kept: vec![0; 1 << n],
            pending: BinaryHeap::new(),
            finish: Finish::new(),
        }
    }

    /// Starts a depth, into `sets` (one empty list per set of bottoms, or
    /// none, to be taken from `lists`; the lists of the depth before are
    /// reused, which saves clearing megabytes at every step of a search).
    pub(super) fn begin(
        &mut self,
        only_tops: bool,
        counted: bool,
        sets: Vec<Vec<Grouping>>,
        lists: &mut WalkLists,
    ) {
        let n = self.raw.len().trailing_zeros() as usize;
        self.finish.begin(n, only_tops, counted, sets, lists);
    }

    /// Drops the repeats of a set of bottoms that has gathered many.
    #[inline]
    pub(super) fn compact(&mut self, bottoms: u16) {
        let raw = &mut self.raw[bottoms as usize];
        self.finish.compact(raw, &mut self.kept[bottoms as usize]);
    }

    /// Finishes the sets of bottoms whose sources all come before `source`.
    pub(super) fn finish_before(&mut self, source: u32) {
        while let Some(&Reverse((last, bottoms))) = self.pending.peek() {
            if last as u32 >= source {
                break;
            }
            self.pending.pop();
            self.kept[bottoms as usize] = 0;
            let words = std::mem::take(&mut self.raw[bottoms as usize]);
            self.finish.finish(bottoms, words);
        }
    }

    /// The finished depth.
    pub(super) fn result(&mut self) -> Level {
        self.finish_before(u32::MAX);
        self.finish.result()
    }

    /// Bytes held, roughly.
    pub(super) fn bytes(&self) -> usize {
        self.raw.len() * (std::mem::size_of::<Vec<Grouping>>() + 4)
            + self
                .pending
                .iter()
                .map(|Reverse((_, b))| self.raw[*b as usize].capacity() * size_of::<Grouping>())
                .sum::<usize>()
            + self.finish.bytes()
    }
}

impl Sink for NextLevel {
    /// The words gathered for a set of bottoms, in a list from an earlier
    /// set when it has none yet: fewer lists grow from nothing.
    #[inline]
    fn take(&mut self, bottoms: u16) -> Vec<Grouping> {
        self.finish.take(&mut self.raw, bottoms)
    }

    #[inline]
    fn put(&mut self, bottoms: u16, words: Vec<Grouping>, new: bool) {
        if self.finish.put(&mut self.raw, bottoms, words) && new {
            // Its sources are the sets one bottom smaller, the last of
            // them the set without its lowest bottom.
            self.pending
                .push(Reverse((bottoms & (bottoms - 1), bottoms)));
        }
    }
}

/// Predecessors made between two looks at the memory they take.
pub(super) const LOOK_EVERY: usize = 1 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_set_keeps_the_first_of_each_word_in_order() {
        // Small values, so that repeats are common, and a few large ones.
        let mut x = 12345u64;
        let mut words = Vec::new();
        for _ in 0..20_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            words.push(if x >> 63 == 1 {
                (x >> 40) % 3_000
            } else {
                x >> 2
            });
        }
        let mut seen = std::collections::HashSet::new();
        let expected: Vec<Word> = words.iter().copied().filter(|&w| seen.insert(w)).collect();
        assert!(expected.len() < words.len() && expected.len() > 3_000);
        // As groupings, each knowing a move of its own: the first of each
        // word is kept, with the two least moves of its repeats.
        let mut groupings: Vec<Grouping> = words
            .iter()
            .enumerate()
            .map(|(i, &w)| Grouping {
                word: w,
                wins: 0xff00 | (i % 251) as u16,
            })
            .collect();
        let mut moves: std::collections::HashMap<Word, Vec<u16>> = Default::default();
        for g in &groupings {
            moves.entry(g.word).or_default().push(g.wins & 0xff);
        }
        let mut set = WordSet::default();
        // Counted as they are, then kept.
        assert_eq!(set.distinct(&words), expected.len());
        assert_eq!(set.distinct(&groupings), expected.len());
        set.dedup(&mut words);
        assert_eq!(words, expected);
        set.dedup(&mut groupings);
        let kept: Vec<Word> = groupings.iter().map(|g| g.word).collect();
        assert_eq!(kept, expected);
        for g in &groupings {
            let mut known = moves[&{ g.word }].clone();
            known.sort_unstable();
            known.dedup();
            let next = known.get(1).copied().unwrap_or(0xff);
            assert_eq!({ g.wins }, next << 8 | known[0], "{:#x}", { g.word });
        }
    }
}
