//! The count of distinct states at each depth by classes: a state's pairs
//! split into its **laden** pairs (whose top could not have moved straight
//! onto their bottom, so they hold buried cards) and its **direct** pairs
//! (two cards that can also hold none). A class is a set of buried cards and
//! a set of laden pairs. Each state is in exactly one class, and a class's
//! states are its sets of direct pairs on the cards left that, with the
//! laden pairs, can hold its buried cards.
//!
//! - When the laden pairs can hold the buried cards themselves, any direct
//!   pairs will do: the class's states are the matchings of the direct
//!   pairs' graph on the cards left, read from a table ([`Matchings`]).
//! - Otherwise some direct pairs must help: the **helpers**, sets of direct
//!   pairs that each take some buried cards, so that with the laden pairs
//!   they hold all of them. The class's states are the matchings that hold
//!   at least one helper, counted by inclusion and exclusion over the
//!   helpers.
//!
//! So the walk visits the sets of laden pairs and, under each, the sets of
//! helpers (each pair of either takes at least one buried card, so there are
//! at most half the depth of them), never the direct pairs that hold nothing:
//! the count by sets of pairs met every one of those.
//!
//! Inclusion and exclusion over r helpers costs up to 2^r terms, and a class
//! whose buried cards are many, each held by a direct pair of its own, has
//! helpers by the hundred. So the helpers of a set of laden pairs are looked
//! for only while their terms stay within four times the states of the
//! classes met; past that, the states under those laden pairs are counted
//! by the walk over sets of pairs (`count`), limited to direct pairs. Either
//! way the count is exact: the choice is only about time.

use super::CHECK_EVERY;
use super::compact::{Chunk, keep_clear_into, sort_by_size};
use super::count::{
    PairSets, SMALL_FAMILY, clear_of, count_added, first_meeting, forget_meeting, slice,
};
use super::merges::Merges;
use crate::engine::board::bits;
use crate::engine::limits::{Limits, SearchError};
use crate::engine::state::MAX_CELLS;
use std::sync::atomic::{AtomicUsize, Ordering};

/// For every set of cards and every k, how many sets of k direct pairs
/// (each a bottom and a top, disjoint) lie within the set.
struct Matchings {
    /// Entries per set of cards: k = 0..`per`.
    per: usize,
    counts: Vec<u32>,
}

impl Matchings {
    /// The table of `n` cards for up to `most` pairs, `direct[b]` holding
    /// the tops that can move straight onto `b` (a symmetric relation).
    fn new(n: usize, direct: &[u16; MAX_CELLS], most: usize) -> Matchings {
        let per = most.min(n / 2) + 1;
        let mut counts = Vec::new();
        // Two ways a pair: either card on top.
        fill_matchings(&mut counts, n, per, direct, |_, _| 2);
        Matchings { per, counts }
    }

    /// Sets of `k` direct pairs within `set` (0 past the table).
    #[inline]
    fn get(&self, set: u16, k: usize) -> u64 {
        if k >= self.per {
            return 0;
        }
        self.counts[set as usize * self.per + k] as u64
    }

    /// Sets of at most `most` direct pairs within `set`, summed from its
    /// row at once.
    #[inline]
    fn upto(&self, set: u16, most: usize) -> u64 {
        let start = set as usize * self.per;
        let row = self.counts.get(start..start + self.per).unwrap_or_default();
        row.iter().take(most + 1).map(|&c| c as u64).sum()
    }
}

/// Fills `counts` with, for every set of the cards 0..`n` and every k below
/// `per`, the weighted sets of k disjoint pairs within it (entry
/// `set * per + k`): a pair joins cards a and b when `near[a]` holds b, in
/// `ways(a, b)` ways.
fn fill_matchings(
    counts: &mut Vec<u32>,
    n: usize,
    per: usize,
    near: &[u16; MAX_CELLS],
    ways: impl Fn(usize, usize) -> u32,
) {
    counts.clear();
    counts.resize((1usize << n) * per, 0);
    counts[0] = 1;
    for set in 1..1usize << n {
        // The lowest card is alone or paired with a card above it.
        let low = set.trailing_zeros() as usize;
        let rest = set & !(1 << low);
        let (done, row) = counts.split_at_mut(set * per);
        let row = &mut row[..per];
        row.copy_from_slice(&done[rest * per..rest * per + per]);
        for other in bits(rest as u16 & near[low]) {
            let sub = (rest & !(1 << other)) * per;
            let w = ways(low, other);
            for k in 1..per {
                row[k] += w * done[sub + k - 1];
            }
        }
    }
}

/// Terms of inclusion and exclusion allowed per state under a set of laden
/// pairs before the pair walk counts them: about as costly each (measured
/// on deals 0..9 and the 20 E5 puzzles of `assets/bench`).
const TERMS_PER_STATE: u64 = 4;

/// Classes with more helpers than this count the one-pair helpers
/// together (see [`ClassWalk::many_helpers`]).
const FEW_HELPERS: usize = 8;

/// A helper: direct pairs (as `bottom * 16 + top`), and their cards.
#[derive(Clone, Copy)]
struct Helper {
    cards: u16,
    len: u8,
    pairs: [u8; MAX_CELLS / 2],
}

impl Helper {
    const NONE: Helper = Helper {
        cards: 0,
        len: 0,
        pairs: [0; MAX_CELLS / 2],
    };

    /// This helper and one more pair.
    fn with(mut self, bottom: usize, top: usize) -> Helper {
        self.pairs[self.len as usize] = (bottom * MAX_CELLS + top) as u8;
        self.len += 1;
        self.cards |= 1 << bottom | 1 << top;
        self
    }
}

impl Merges {
    /// Distinct states reachable in exactly d moves, for d = 0..=`depth`,
    /// counted by classes (see the module's notes) on `threads` threads:
    /// the sets of laden pairs are dealt out by their first pair (those with
    /// none are one share), each to the next thread free, and the threads'
    /// counts added.
    pub(super) fn count_by_classes(
        &self,
        depth: usize,
        threads: usize,
        limits: &Limits,
    ) -> Result<Vec<u64>, SearchError> {
        self.count_by_classes_within(depth, threads, TERMS_PER_STATE, limits)
    }

    /// [`Merges::count_by_classes`], leaving a set of laden pairs to the
    /// pair walk once its classes' terms pass `terms_per_state` times their
    /// states (the tests force each way).
    fn count_by_classes_within(
        &self,
        depth: usize,
        threads: usize,
        terms_per_state: u64,
        limits: &Limits,
    ) -> Result<Vec<u64>, SearchError> {
        let depth = depth.min(self.n.saturating_sub(1));
        let sets = self.pair_sets(depth.saturating_sub(1));
        let mut direct = [0u16; MAX_CELLS];
        for (bottom, tops) in direct.iter_mut().enumerate().take(self.n) {
            for top in 0..self.n {
                // Sorted by size: a pair that can hold nothing has the empty
                // set first.
                if sets.sets[bottom * MAX_CELLS + top].first() == Some(&0) {
                    *tops |= 1 << top;
                }
            }
        }
        // For each bottom and size k, the direct tops whose pair can take a
        // set of 1 to k cards (its second set, after the empty one).
        let mut helps_within = [[0u16; MAX_CELLS + 1]; MAX_CELLS];
        for bottom in 0..self.n {
            for top in bits(direct[bottom]) {
                if let Some(&second) = sets.sets[bottom * MAX_CELLS + top].get(1) {
                    for tops in &mut helps_within[bottom][(second >> 16) as usize..] {
                        *tops |= 1 << top;
                    }
                }
            }
        }
        let matchings = Matchings::new(self.n, &direct, depth);
        let walk = |claims: Option<&AtomicUsize>| {
            let mut walk = ClassWalk {
                sets: &sets,
                n: self.n,
                all: self.all(),
                depth,
                direct,
                helps_within,
                matchings: &matchings,
                counts: vec![0; depth + 1],
                seen: vec![0; 1 << 10],
                helpers: Vec::new(),
                slots: vec![0; 1 << self.n],
                met: Vec::new(),
                spare: Vec::new(),
                pool: Vec::new(),
                clear: Vec::new(),
                spare_sets: Vec::new(),
                chunks: Vec::new(),
                nodes: 0,
                laden_cards: 0,
                met_terms: 0,
                met_states: 0,
                over: false,
                terms_per_state,
                limits,
                claims,
                shares: 0,
                mine: None,
            };
            walk.laden(0, 0, 0, &[0])?;
            Ok(walk.counts)
        };
        let threads = threads.min(crate::parallel::MAX_THREADS);
        if threads <= 1 {
            return walk(None);
        }
        let claims = AtomicUsize::new(0);
        let parts = crate::parallel::each(&mut vec![(); threads], |_, _| walk(Some(&claims)));
        let mut total = vec![0; depth + 1];
        for part in parts {
            for (t, c) in total.iter_mut().zip(part?) {
                *t += c;
            }
        }
        Ok(total)
    }
}

/// A family bit-sliced for the sets that can join it, made when first
/// needed (many families are joined by none).
struct Slicing {
    /// The chunks, empty until made.
    holders: Vec<Chunk>,
    /// The entries to slice: those within `room`, or none when they are
    /// few enough to read one by one.
    sliced: usize,
    /// The most cards a union may have.
    room: usize,
}

/// The walk over sets of laden pairs, and under each over sets of helpers.
struct ClassWalk<'a> {
    sets: &'a PairSets,
    n: usize,
    all: u16,
    depth: usize,
    direct: [u16; MAX_CELLS],
    helps_within: [[u16; MAX_CELLS + 1]; MAX_CELLS],
    matchings: &'a Matchings,
    counts: Vec<u64>,
    /// Bit per set of cards: already in the family being built.
    seen: Vec<u64>,
    /// The helpers met for each set of buried cards, under the set of
    /// laden pairs being visited, in the order of `met` (emptied when
    /// taken again).
    helpers: Vec<Vec<Helper>>,
    /// For each set of buried cards, where its helpers are in `helpers`,
    /// plus one (0 when none are): a small table, as it is read at random.
    slots: Vec<u32>,
    /// The sets of buried cards with helpers.
    met: Vec<u16>,
    /// Emptied lists of sets, for `extend` to fill.
    pool: Vec<Vec<u32>>,
    /// A pair's sets clear of the cards taken, in `extend`.
    clear: Vec<u32>,
    /// A buffer for [`sort_by_size`], in `extend`.
    spare_sets: Vec<u32>,
    /// Emptied bit-slicings of families, for `slicing` to hand out.
    chunks: Vec<Vec<Chunk>>,
    /// A table kept for classes with many helpers.
    spare: Vec<u32>,
    nodes: usize,
    /// The cards of the laden pairs whose classes are being met.
    laden_cards: u16,
    /// The inclusion and exclusion's terms for the classes met so far
    /// under those laden pairs (2^r for r helpers).
    met_terms: u64,
    /// The states of those classes, at most.
    met_states: u64,
    /// Whether those classes cost too many terms, and are left to the pair
    /// walk.
    over: bool,
    /// Terms allowed per state met before they are.
    terms_per_state: u64,
    limits: &'a Limits,
    /// With threads, the next share free to take, shared by all.
    claims: Option<&'a AtomicUsize>,
    /// Shares met so far, in the order every thread meets them.
    shares: usize,
    /// The share this thread took last.
    mine: Option<usize>,
}

impl ClassWalk<'_> {
    /// Whether this thread takes the next share of the work: every share
    /// goes to the thread that takes it first.
    fn takes_share(&mut self) -> bool {
        let Some(claims) = self.claims else {
            return true;
        };
        let at = self.shares;
        self.shares += 1;
        let mine = *self
            .mine
            .get_or_insert_with(|| claims.fetch_add(1, Ordering::Relaxed));
        if at == mine {
            self.mine = Some(claims.fetch_add(1, Ordering::Relaxed));
        }
        at == mine
    }

    /// The distinct sets made by adding to a set of `family` (entries
    /// `size << 16 | set`, sorted) one of the sets of `pair` from its
    /// `skip`th on, clear of the cards `taken` (the pairs' cards, the new
    /// one's `ends` among them), of at most `slicing.room` cards; sorted the
    /// same. The family is bit-sliced into `slicing` when first needed.
    fn extend(
        &mut self,
        family: &[u32],
        slicing: &mut Slicing,
        pair: usize,
        skip: usize,
        taken: u16,
        ends: u16,
    ) -> Vec<u32> {
        let room = slicing.room;
        let mut out = self.pool.pop().unwrap_or_default();
        out.clear();
        let fewest = (family[0] >> 16) as usize;
        if fewest > room {
            return out;
        }
        let fitting = self.sets.within[pair][room - fewest] as usize;
        let sets = &self.sets.sets[pair];
        let from = skip.min(fitting);
        // Kept at its length, so only its growth is ever zeroed.
        let mut buffer = std::mem::take(&mut self.clear);
        let kept = keep_clear_into(&sets[from..fitting], taken, &mut buffer);
        let clear = &buffer[..kept];
        if kept == 0 {
            self.clear = buffer;
            return out;
        }
        if slicing.sliced > 0 {
            let holders = &mut slicing.holders;
            if holders.is_empty() {
                slice(&family[..slicing.sliced], room, holders);
            }
            // A large family: the entries clear of each set are found 64
            // at a time (most are not, in the classes with many helpers).
            let single = clear.len() == 1;
            for &entry in clear {
                let x = entry as u16;
                let left = room - (entry >> 16) as usize;
                for (j, chunk) in holders.iter().enumerate() {
                    let mut fit = clear_of(chunk, x | ends, left);
                    while fit != 0 {
                        let buried = family[64 * j + fit.trailing_zeros() as usize];
                        fit &= fit - 1;
                        let union = buried as u16 | x;
                        if single || first_meeting(&mut self.seen, union) {
                            out.push((buried + (entry & 0xffff_0000)) | union as u32);
                        }
                    }
                }
            }
            self.clear = buffer;
            if !single {
                for &entry in &out {
                    forget_meeting(&mut self.seen, entry as u16);
                }
                sort_by_size(&mut out, &mut self.spare_sets);
            }
            return out;
        }
        if clear.len() == 1 || family.len() == 1 {
            // One set on either side: every union is new, and in order
            // of size.
            for &entry in clear {
                let (x, left) = (entry as u16, room - (entry >> 16) as usize);
                for &buried in family {
                    if (buried >> 16) as usize > left {
                        break;
                    }
                    if buried as u16 & (x | ends) == 0 {
                        out.push((buried + (entry & 0xffff_0000)) | x as u32);
                    }
                }
            }
            self.clear = buffer;
            return out;
        }
        for &entry in clear {
            let x = entry as u16;
            let left = room - (entry >> 16) as usize;
            for &buried in family {
                if (buried >> 16) as usize > left {
                    break;
                }
                if buried as u16 & (x | ends) != 0 {
                    continue;
                }
                let union = buried as u16 | x;
                if first_meeting(&mut self.seen, union) {
                    out.push((buried + (entry & 0xffff_0000)) | union as u32);
                }
            }
        }
        self.clear = buffer;
        for &entry in &out {
            forget_meeting(&mut self.seen, entry as u16);
        }
        sort_by_size(&mut out, &mut self.spare_sets);
        out
    }

    /// Visits the set of `laden` laden pairs on the cards `used`, whose
    /// buried cards can be any set of `family`; further laden pairs have
    /// bottoms from `first` on.
    fn laden(
        &mut self,
        first: usize,
        used: u16,
        laden: usize,
        family: &[u32],
    ) -> Result<(), SearchError> {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            self.limits.check_cancel()?;
        }
        // Those with no laden pair are one share, each first laden pair one.
        if laden > 0 || self.takes_share() {
            (self.over, self.met_terms, self.met_states, self.laden_cards) = (false, 0, 0, used);
            self.help(0, used, laden, Helper::NONE, family);
            if self.over {
                self.forget();
                let counts = count_added(
                    self.sets,
                    self.all,
                    self.direct,
                    used,
                    family.to_vec(),
                    self.depth - laden,
                    self.limits,
                )?;
                for (d, c) in counts.into_iter().enumerate() {
                    self.counts[laden + d] += c;
                }
            } else {
                self.settle(used, laden);
            }
        }
        let room = self.depth.saturating_sub(laden + 1);
        let fewest = (family[0] >> 16) as usize;
        if fewest >= room {
            return Ok(());
        }
        let mut slicing = self.slicing(family, room);
        for bottom in first..self.n {
            if used >> bottom & 1 == 1 {
                continue;
            }
            let tops = self.sets.tops_within[bottom][room - fewest] & !self.direct[bottom];
            for top in bits(tops & self.all & !used & !(1 << bottom)) {
                if laden == 0 && !self.takes_share() {
                    continue;
                }
                let ends = 1 << bottom | 1 << top;
                let pair = bottom * MAX_CELLS + top;
                let next = self.extend(family, &mut slicing, pair, 0, used | ends, ends);
                if !next.is_empty() {
                    self.laden(bottom + 1, used | ends, laden + 1, &next)?;
                }
                self.pool.push(next);
            }
        }
        self.chunks.push(slicing.holders);
        Ok(())
    }

    /// Notes `helper` for every set of `family` (the buried cards the laden
    /// pairs and the helper can hold, each pair some), then tries one more
    /// direct pair with bottom from `first` on as a helper.
    fn help(&mut self, first: usize, used: u16, laden: usize, helper: Helper, family: &[u32]) {
        if self.over {
            return;
        }
        let pairs = laden + helper.len as usize;
        for &entry in family {
            let buried = entry as u16;
            if pairs + (entry >> 16) as usize <= self.depth {
                let slot = &mut self.slots[buried as usize];
                let at = if *slot == 0 {
                    let at = self.met.len();
                    *slot = at as u32 + 1;
                    self.met.push(buried);
                    if at == self.helpers.len() {
                        self.helpers.push(Vec::new());
                    }
                    self.helpers[at].clear();
                    let left = self.all & !buried & !self.laden_cards;
                    let most = self.depth - buried.count_ones() as usize - laden;
                    self.met_states += self.matchings.upto(left, most);
                    at
                } else {
                    *slot as usize - 1
                };
                let list = &mut self.helpers[at];
                // A class the laden pairs hold alone (its first helper is
                // none) is a lookup; any other costs 2^r terms for r
                // helpers.
                if list.first().map_or(helper.len > 0, |h| h.len > 0) {
                    self.met_terms += 1 << list.len().clamp(1, 40);
                }
                list.push(helper);
            }
        }
        if self.met_terms > self.terms_per_state.saturating_mul(self.met_states) {
            // The classes met already cost more terms than their states
            // allow: the pair walk counts them instead, and the helpers
            // left are not looked for (it saves a fifth of the count).
            self.over = true;
            return;
        }
        let room = self.depth.saturating_sub(pairs + 1);
        let fewest = (family[0] >> 16) as usize;
        if fewest >= room {
            return;
        }
        let mut slicing = self.slicing(family, room);
        for bottom in first..self.n {
            if used >> bottom & 1 == 1 {
                continue;
            }
            for top in bits(self.helps_within[bottom][room - fewest] & !used) {
                // The pair's sets but the empty one, which comes first.
                let ends = 1 << bottom | 1 << top;
                let pair = bottom * MAX_CELLS + top;
                let next = self.extend(family, &mut slicing, pair, 1, used | ends, ends);
                if !next.is_empty() {
                    self.help(
                        bottom + 1,
                        used | ends,
                        laden,
                        helper.with(bottom, top),
                        &next,
                    );
                }
                self.pool.push(next);
            }
        }
        self.chunks.push(slicing.holders);
    }

    /// An empty slicing of `family` for `room`, for `extend` to fill (its
    /// chunks to be given back to `chunks`).
    fn slicing(&mut self, family: &[u32], room: usize) -> Slicing {
        let mut holders = self.chunks.pop().unwrap_or_default();
        holders.clear();
        let fits = family.partition_point(|&e| (e >> 16) as usize <= room);
        let sliced = if fits > SMALL_FAMILY { fits } else { 0 };
        Slicing {
            holders,
            sliced,
            room,
        }
    }

    /// Forgets the classes met, uncounted.
    fn forget(&mut self) {
        for &buried in &self.met {
            self.slots[buried as usize] = 0;
        }
        self.met.clear();
    }

    /// Counts the states of each class met under the set of `laden` laden
    /// pairs on the cards `used`, and forgets their helpers.
    fn settle(&mut self, used: u16, laden: usize) {
        let met = std::mem::take(&mut self.met);
        for (at, &buried) in met.iter().enumerate() {
            self.slots[buried as usize] = 0;
            let helpers = std::mem::take(&mut self.helpers[at]);
            let left = self.all & !buried & !used;
            let base = buried.count_ones() as usize + laden;
            let most = self.depth - base;
            if helpers.iter().any(|h| h.len == 0) {
                for k in 0..=most {
                    self.counts[base + k] += self.matchings.get(left, k);
                }
            } else if helpers.len() <= FEW_HELPERS {
                let mut sums = [0i64; MAX_CELLS + 1];
                let sets = |cards: u16, k: usize| self.matchings.get(cards, k);
                include(
                    &helpers,
                    0,
                    0,
                    0,
                    [0; MAX_CELLS],
                    1,
                    left,
                    most,
                    &sets,
                    &mut sums,
                );
                for (count, &sum) in self.counts[base..].iter_mut().zip(&sums[..=most]) {
                    debug_assert!(sum >= 0);
                    *count += sum as u64;
                }
            } else {
                let sums = self.many_helpers(&helpers, left, most);
                for (count, &sum) in self.counts[base..].iter_mut().zip(&sums[..=most]) {
                    *count += sum;
                }
            }
            self.helpers[at] = helpers;
        }
        let mut met = met;
        met.clear();
        self.met = met;
    }

    /// The sets of k direct pairs within `left` that hold one of many
    /// `helpers`, for k = 0..=`most`. Inclusion and exclusion over all of
    /// them would meet every set of helpers that fit together (2^r for r
    /// helpers of one pair each, on r disjoint pairs), so the helpers of one
    /// pair are taken at once: the sets of pairs that hold none of them are
    /// counted over the subsets of `left`, and inclusion and exclusion runs
    /// over the other helpers only (those holding none of the one-pair
    /// helpers: the others add nothing).
    fn many_helpers(&mut self, helpers: &[Helper], left: u16, most: usize) -> [u64; MAX_CELLS + 1] {
        // The one-pair helpers, by card: the ways round each pair is barred.
        let mut barred = [0u16; MAX_CELLS];
        for h in helpers.iter().filter(|h| h.len == 1) {
            let pair = h.pairs[0] as usize;
            barred[pair / MAX_CELLS] |= 1 << (pair % MAX_CELLS);
        }
        let others: Vec<Helper> = helpers
            .iter()
            .filter(|h| {
                h.len > 1
                    && h.pairs[..h.len as usize].iter().all(|&p| {
                        let p = p as usize;
                        barred[p / MAX_CELLS] >> (p % MAX_CELLS) & 1 == 0
                    })
            })
            .copied()
            .collect();
        // The sets of k direct pairs holding no one-pair helper, within
        // each subset of `left` (its cards renumbered 0..).
        let cards: Vec<usize> = bits(left).collect();
        let l = cards.len();
        let per = most + 1;
        let mut near = [0u16; MAX_CELLS];
        let mut ways = [[0u32; MAX_CELLS]; MAX_CELLS];
        for (i, &a) in cards.iter().enumerate() {
            for (j, &b) in cards.iter().enumerate() {
                if i != j && self.direct[a] >> b & 1 == 1 {
                    let w = 2 - (barred[a] >> b & 1) - (barred[b] >> a & 1);
                    if w > 0 {
                        near[i] |= 1 << j;
                        ways[i][j] = w as u32;
                    }
                }
            }
        }
        let table = &mut self.spare;
        fill_matchings(table, l, per, &near, |a, b| ways[a][b]);
        let mut at = [0u8; MAX_CELLS];
        for (i, &c) in cards.iter().enumerate() {
            at[c] = i as u8;
        }
        let table = &*table;
        let free = |set: u16, k: usize| {
            let index = bits(set).fold(0usize, |m, c| m | 1 << at[c]);
            if k < per {
                table[index * per + k] as u64
            } else {
                0
            }
        };
        let mut sums = [0i64; MAX_CELLS + 1];
        include(
            &others,
            0,
            0,
            0,
            [0; MAX_CELLS],
            1,
            left,
            most,
            &free,
            &mut sums,
        );
        let mut out = [0u64; MAX_CELLS + 1];
        for k in 0..=most {
            // All, less those holding no helper: of one pair, nor other.
            let held = self.matchings.get(left, k) as i64 - (free(left, k) as i64 - sums[k]);
            debug_assert!(held >= 0);
            out[k] = held as u64;
        }
        out
    }
}

/// Adds to `sums[k]`, with `sign`, the sets of k direct pairs within `left`
/// that hold every helper of a set of `helpers` from `from` on together
/// with the `pairs` pairs on `cards` (`partner[c]` naming the pair on card
/// c, plus one), for each such set of helpers whose pairs fit together:
/// inclusion and exclusion over the helpers.
#[allow(clippy::too_many_arguments)]
fn include(
    helpers: &[Helper],
    from: usize,
    cards: u16,
    pairs: usize,
    partner: [u8; MAX_CELLS],
    sign: i64,
    left: u16,
    most: usize,
    sets: &impl Fn(u16, usize) -> u64,
    sums: &mut [i64; MAX_CELLS + 1],
) {
    for (i, helper) in helpers.iter().enumerate().skip(from) {
        let (mut cards, mut pairs, mut partner) = (cards, pairs, partner);
        let mut fits = true;
        for &pair in &helper.pairs[..helper.len as usize] {
            let (bottom, top) = (pair as usize / MAX_CELLS, pair as usize % MAX_CELLS);
            if partner[bottom] == pair + 1 && partner[top] == pair + 1 {
                continue;
            }
            let ends = 1 << bottom | 1 << top;
            if cards & ends != 0 {
                fits = false;
                break;
            }
            cards |= ends;
            partner[bottom] = pair + 1;
            partner[top] = pair + 1;
            pairs += 1;
        }
        if !fits || pairs > most {
            continue;
        }
        for (k, sum) in sums.iter_mut().enumerate().take(most + 1).skip(pairs) {
            *sum += sign * sets(left & !cards, k - pairs) as i64;
        }
        include(
            helpers,
            i + 1,
            cards,
            pairs,
            partner,
            -sign,
            left,
            most,
            sets,
            sums,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal::deal;
    use crate::engine::notation::parse_puzzle;

    /// Sets of `k` disjoint pairs (each either way round) within `set`, the
    /// direct ones as `direct` has them, by listing them.
    fn listed(direct: &[u16; MAX_CELLS], set: u16, k: usize) -> u64 {
        if k == 0 {
            return 1;
        }
        if set == 0 {
            return 0;
        }
        let low = set.trailing_zeros() as usize;
        let rest = set & !(1 << low);
        let paired: u64 = bits(rest & direct[low])
            .map(|other| 2 * listed(direct, rest & !(1 << other), k - 1))
            .sum();
        listed(direct, rest, k) + paired
    }

    #[test]
    fn the_matchings_table_is_the_listed_sets_of_direct_pairs() {
        let limits = Limits::default();
        let state = parse_puzzle("AS2S3S4S5H6H7H8HAD2D------------").unwrap();
        let merges = Merges::new(&state, &limits).unwrap();
        let n = merges.cards();
        let sets = merges.pair_sets(n);
        let mut direct = [0u16; MAX_CELLS];
        for (bottom, tops) in direct.iter_mut().enumerate().take(n) {
            for top in 0..n {
                if sets.sets[bottom * MAX_CELLS + top].first() == Some(&0) {
                    *tops |= 1 << top;
                }
            }
        }
        // Ten cards of two suits and a run: many direct pairs.
        assert!(direct.iter().map(|d| d.count_ones()).sum::<u32>() >= 20);
        let table = Matchings::new(n, &direct, n);
        for set in 0..1u16 << n {
            for k in 0..=n / 2 {
                assert_eq!(table.get(set, k), listed(&direct, set, k), "{set:#x} {k}");
            }
        }
    }

    #[test]
    fn the_classes_count_the_same_on_any_threads_either_way() {
        let limits = Limits::default();
        let puzzle = parse_puzzle("9D3H2HKC6S4DJC7SAC3C9SQC4H7DADKH").unwrap();
        for state in [deal(0), puzzle] {
            let merges = Merges::new(&state, &limits).unwrap();
            let depth = merges.cards() / 2;
            let one = merges.count_by_classes(depth, 1, &limits).unwrap();
            for threads in [2, 3] {
                assert_eq!(
                    merges.count_by_classes(depth, threads, &limits).unwrap(),
                    one
                );
            }
        }
        // Classes all left to the pair walk, or none, count the same.
        let limits = Limits::default();
        let puzzle = parse_puzzle("QH4D9STC6SKD9C4H5S7D5H5D8S2CQD4S").unwrap();
        for state in [deal(0), deal(7), puzzle] {
            let merges = Merges::new(&state, &limits).unwrap();
            let depth = merges.cards() / 2;
            let mixed = merges.count_by_classes(depth, 1, &limits).unwrap();
            for within in [0, u64::MAX] {
                let forced = merges.count_by_classes_within(depth, 1, within, &limits);
                assert_eq!(forced.unwrap(), mixed, "{within}");
            }
        }
        // Deal 0's states at depth 8, as the plain enumeration of the sixth
        // session of issue 27 listed them one by one.
        let merges = Merges::new(&deal(0), &limits).unwrap();
        assert_eq!(
            merges.count_by_classes(8, 2, &limits).unwrap()[8],
            10_195_760
        );
    }
}
