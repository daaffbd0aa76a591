//! The exact halfway ratio without the state space: counted from the sets
//! of cards that can become one stack.
//!
//! Legality of a move depends only on the two stacks it joins (their tops and
//! cells), so moves on disjoint stacks commute, and a state is a set of
//! stacks each built independently from its own cards. That gives two exact
//! counts that never list the layers of the state space:
//!
//! - **Distinct states at each depth up to the halfway depth.** A state is
//!   its *pairs* (a stack of two or more cards: the card at the bottom, whose
//!   cell it occupies, and its top) and its *buried* cards (those neither a
//!   top nor a bottom); the other cards are one-card stacks. A state is
//!   reachable iff its buried cards can be shared out among its pairs so
//!   that each pair's cards can become that stack. The count walks the sets
//!   of pairs, keeping for each the distinct sets of buried cards
//!   ([`Merges`] knows which cards each pair can take).
//! - **Solvable states at the halfway depth.** Walking back from one stack,
//!   each step splits one stack into two that could have merged into it. A
//!   state met this way is reachable (each stack can be built) and solvable
//!   (the walk came from one stack), and every solvable state is met. Only
//!   solvable states are visited, which for the puzzles E5 favours are few.
//!
//! Both agree with [`crate::engine::analysis`] state for state; the tests and
//! the property tests check them against it.

use crate::engine::analysis::ratio;
use crate::engine::board::{Board, KeyHasher, Layout, MoveList, bits, connected};
use crate::engine::limits::{Limits, SearchError};
use crate::engine::state::{MAX_CELLS, State};
use std::collections::HashSet;
use std::hash::BuildHasherDefault;

/// The exact counts at the halfway depth of a puzzle.
#[derive(Clone, Debug, PartialEq)]
pub struct Halfway {
    /// Stacks in the puzzle.
    pub stacks: usize,
    /// The halfway depth ⌊stacks/2⌋.
    pub depth: usize,
    /// Distinct states reachable in exactly d moves, for d = 0..=depth.
    pub states: Vec<u64>,
    /// How many states at the halfway depth are solvable.
    pub solvable: u64,
    /// Mean Browne tension of the solvable states at the halfway depth
    /// (`None` when there are none with moves, or when not asked for).
    pub tension: Option<f64>,
}

impl Halfway {
    /// Distinct states at the halfway depth.
    pub fn halfway_states(&self) -> u64 {
        self.states[self.depth]
    }

    /// Solvable ÷ distinct states at the halfway depth (0 when there are none).
    pub fn ratio(&self) -> f64 {
        ratio(self.solvable, self.halfway_states())
    }
}

/// The exact halfway ratio of a state, its numerator and denominator, and
/// the midgame tension when `tension` is asked for (it costs a look at every
/// move of every solvable state), within `limits`.
pub fn halfway(state: &State, tension: bool, limits: &Limits) -> Result<Halfway, SearchError> {
    let merges = Merges::new(state, limits)?;
    let depth = merges.n / 2;
    let states = merges.count_states(depth, limits)?;
    let solvable = merges.walk_back(depth, depth, tension, limits, |_| ())?;
    let tension = if tension {
        merges.tension(&solvable, limits)?
    } else {
        None
    };
    Ok(Halfway {
        stacks: merges.n,
        depth,
        states,
        solvable: solvable.count(depth).unwrap_or(0),
        tension,
    })
}

/// For every set of a puzzle's cards, the stacks it can become: which card
/// ends on top, and on which card's cell (the card at the bottom, which never
/// moved). Cards are numbered as in [`Layout`]: by cell, occupied cells only.
pub struct Merges {
    /// Cards in the puzzle.
    n: usize,
    /// Card → the cards it flocks with.
    flock: [u16; MAX_CELLS],
    /// Card → the cards whose cells share its row or column.
    line: [u16; MAX_CELLS],
    /// Card → its cell.
    cell: [u8; MAX_CELLS],
    /// Set of cards → for each top, the set of possible bottoms (empty when
    /// that card cannot end on top). All zero for a set that cannot become
    /// one stack.
    stacks: Vec<[u16; MAX_CELLS]>,
    /// The layout of the puzzle, for the boards of the tension.
    layout: Layout,
    /// Top → the sets that can become one stack with it on top.
    with_top: Vec<Vec<u16>>,
}

/// Sets between two looks at the cancel switch.
const CHECK_EVERY: usize = 1 << 12;

impl Merges {
    /// The table of a state's tops (each taken as a one-card stack).
    pub fn new(state: &State, limits: &Limits) -> Result<Merges, SearchError> {
        let mut merges = Merges::blank(state, limits)?;
        merges.fill(limits)?;
        Ok(merges)
    }

    /// The table with only the one-card stacks filled in.
    fn blank(state: &State, limits: &Limits) -> Result<Merges, SearchError> {
        let (layout, root) = Layout::new(state);
        let n = layout.cards().len();
        let grid = state.grid();
        let mut cell = [0u8; MAX_CELLS];
        for c in bits(root.occupied()) {
            cell[root.top(c).expect("occupied")] = c as u8;
        }
        let mut line = [0u16; MAX_CELLS];
        for (a, mask) in line.iter_mut().enumerate().take(n) {
            for b in 0..n {
                if a != b && grid.in_line(cell[a] as usize, cell[b] as usize) {
                    *mask |= 1 << b;
                }
            }
        }
        let flock = *layout.flock_masks();
        limits.check(Self::bytes_for(n))?;
        let mut stacks = vec![[0u16; MAX_CELLS]; 1 << n];
        for (i, s) in stacks.iter_mut().enumerate().skip(1) {
            if i.is_power_of_two() {
                let c = i.trailing_zeros() as usize;
                s[c] = 1 << c;
            }
        }
        Ok(Merges {
            n,
            flock,
            line,
            cell,
            stacks,
            layout,
            with_top: vec![Vec::new(); n],
        })
    }

    /// The table with every size filled one way: from pairs, or from splits.
    #[cfg(test)]
    fn forced(state: &State, pairs: bool) -> Merges {
        let limits = Limits::default();
        let mut m = Merges::blank(state, &limits).unwrap();
        m.fill_by(&limits, |_, _| pairs).unwrap();
        m
    }

    /// Bytes the table of `n` cards takes.
    fn bytes_for(n: usize) -> usize {
        (1usize << n) * std::mem::size_of::<[u16; MAX_CELLS]>()
    }

    /// Cards in the puzzle.
    pub fn cards(&self) -> usize {
        self.n
    }

    /// The bottoms `set` can have as one stack with `top` on top.
    #[inline]
    pub fn bottoms(&self, set: u16, top: usize) -> u16 {
        self.stacks[set as usize][top]
    }

    /// Whether `set` can become one stack at all.
    #[inline]
    pub fn can_merge(&self, set: u16) -> bool {
        self.stacks[set as usize] != [0; MAX_CELLS]
    }

    /// Fills the table size by size, so every part of a set is known before
    /// the set. A set becomes one stack by a last move of one part's stack
    /// onto the other's, so it splits into two parts that can each become
    /// one stack, whose bottoms share a line and whose tops flock.
    ///
    /// Each size is filled the cheaper of two ways: from the sets of that
    /// size, trying every split (few cards, or many sets that can merge, as
    /// in a random deal), or from the pairs of smaller sets that can merge
    /// (the puzzles E5 favours, where a few thousand of the 65 536 sets of
    /// 16 cards can, so most splits would be tried for nothing).
    fn fill(&mut self, limits: &Limits) -> Result<(), SearchError> {
        self.fill_by(limits, |split_cost, pair_cost| pair_cost < split_cost * 8)
    }

    /// [`Merges::fill`], choosing for each size by `from_pairs(split_cost,
    /// pair_cost)` (the tests force each way).
    fn fill_by(
        &mut self,
        limits: &Limits,
        from_pairs: impl Fn(usize, usize) -> bool,
    ) -> Result<(), SearchError> {
        let n = self.n;
        let mut by_size: Vec<Vec<Part>> = vec![Vec::new(); n + 1];
        if n > 0 {
            by_size[1] = (0..n).map(|c| self.part(1 << c)).collect();
        }
        for size in 2..=n {
            limits.check_cancel()?;
            let split_cost = binomial(n, size) << (size - 1);
            let pair_cost: usize = (1..=size / 2)
                .map(|k| by_size[k].len() * by_size[size - k].len())
                .sum();
            if from_pairs(split_cost, pair_cost) {
                self.fill_from_pairs(size, &by_size, limits)?;
            } else {
                self.fill_from_splits(size, limits)?;
            }
            by_size[size] = sets_of_size(n, size)
                .filter(|&set| self.can_merge(set))
                .map(|set| self.part(set))
                .collect();
        }
        for part in by_size.iter().flatten() {
            for t in bits(part.tops) {
                self.with_top[t].push(part.set);
            }
        }
        Ok(())
    }

    /// Fills the sets of `size` cards from every pair of disjoint smaller
    /// sets that can merge and whose sizes add up.
    fn fill_from_pairs(
        &mut self,
        size: usize,
        by_size: &[Vec<Part>],
        limits: &Limits,
    ) -> Result<(), SearchError> {
        for k in 1..=size / 2 {
            let (small, large) = (&by_size[k], &by_size[size - k]);
            for (i, a) in small.iter().enumerate() {
                if i % CHECK_EVERY == 0 {
                    limits.check_cancel()?;
                }
                for b in large {
                    // Equal sizes: each unordered pair once.
                    if a.set & b.set != 0 || (k == size - k && b.set <= a.set) {
                        continue;
                    }
                    // A move needs a top of one flocking with a top of the
                    // other and their bottoms in line (both relations are
                    // symmetric, so one test serves both directions).
                    if a.near_tops & b.tops == 0 || a.near_bottoms & b.bottoms == 0 {
                        continue;
                    }
                    let mut out = self.stacks[(a.set | b.set) as usize];
                    self.join(a.set, b.set, &mut out);
                    self.join(b.set, a.set, &mut out);
                    self.stacks[(a.set | b.set) as usize] = out;
                }
            }
        }
        Ok(())
    }

    /// Fills the sets of `size` cards by trying every split of each.
    fn fill_from_splits(&mut self, size: usize, limits: &Limits) -> Result<(), SearchError> {
        for (i, set) in sets_of_size(self.n, size).enumerate() {
            if i % CHECK_EVERY == 0 {
                limits.check_cancel()?;
            }
            // Every move joins stacks in line and tops that flock, so the
            // cells and the cards of a stack are connected both ways.
            if !connected(set, &self.line) || !connected(set, &self.flock) {
                continue;
            }
            let mut out = [0u16; MAX_CELLS];
            let low = set & set.wrapping_neg();
            // Each split once, with the lowest card in `a`; both parts may move.
            let rest = set & !low;
            let mut sub = rest;
            loop {
                let a = low | sub;
                let b = set & !a;
                if b != 0 && self.can_merge(a) && self.can_merge(b) {
                    self.join(a, b, &mut out);
                    self.join(b, a, &mut out);
                }
                if sub == 0 {
                    break;
                }
                sub = (sub - 1) & rest;
            }
            self.stacks[set as usize] = out;
        }
        Ok(())
    }

    /// A set that can merge, with what a move onto or off it needs.
    fn part(&self, set: u16) -> Part {
        let entry = &self.stacks[set as usize];
        let (mut tops, mut bottoms) = (0u16, 0u16);
        for t in bits(set) {
            if entry[t] != 0 {
                tops |= 1 << t;
                bottoms |= entry[t];
            }
        }
        Part {
            set,
            tops,
            bottoms,
            near_tops: bits(tops).fold(0, |m, t| m | self.flock[t]),
            near_bottoms: bits(bottoms).fold(0, |m, b| m | self.line[b]),
        }
    }

    /// Adds to `out` the stacks made by moving `a`'s stack onto `b`'s.
    #[inline]
    fn join(&self, a: u16, b: u16, out: &mut [u16; MAX_CELLS]) {
        let sa = &self.stacks[a as usize];
        let sb = &self.stacks[b as usize];
        for t in bits(a) {
            let from = sa[t];
            if from == 0 {
                continue;
            }
            // Bottoms of `b` under a top that flocks with t...
            let under = bits(self.flock[t] & b).fold(0, |m, u| m | sb[u]);
            if under == 0 {
                continue;
            }
            // ...in line with a bottom `a`'s stack can have.
            let reach = bits(from).fold(0, |m, c| m | self.line[c]);
            out[t] |= under & reach;
        }
    }

    /// The set of all the puzzle's cards.
    pub fn all_cards(&self) -> u16 {
        self.all()
    }

    fn all(&self) -> u16 {
        if self.n == 0 {
            0
        } else {
            u16::MAX >> (16 - self.n)
        }
    }
}

/// A set of cards that can become one stack, as the table's fill sees it.
#[derive(Copy, Clone)]
struct Part {
    set: u16,
    /// The cards that can end on top.
    tops: u16,
    /// The cards that can end at the bottom.
    bottoms: u16,
    /// The cards that flock with a possible top.
    near_tops: u16,
    /// The cards whose cells share a line with a possible bottom's.
    near_bottoms: u16,
}

/// n choose k.
fn binomial(n: usize, k: usize) -> usize {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// The sets of `size` of the cards 0..n, in increasing order.
fn sets_of_size(n: usize, size: usize) -> impl Iterator<Item = u16> {
    let first = if size == 0 { 0u32 } else { (1u32 << size) - 1 };
    let end = 1u32 << n;
    std::iter::successors(Some(first), |&set| {
        if set == 0 {
            return None;
        }
        // The next set with as many bits (Gosper's hack).
        let low = set & set.wrapping_neg();
        let ripple = set + low;
        Some((((ripple ^ set) >> 2) / low) | ripple)
    })
    .take_while(move |&set| set < end)
    .map(|set| set as u16)
}

/// The sets of buried cards each pair (bottom, top) can take, by size.
struct PairSets {
    /// Entries `size << 16 | set`, for each pair `bottom * 16 + top`, sorted.
    sets: Vec<Vec<u32>>,
    /// For each bottom and size k, the tops whose pair takes a set of size ≤ k.
    tops_within: Vec<[u16; MAX_CELLS + 1]>,
}

impl Merges {
    /// The pairs' sets of buried cards, up to `most` cards each.
    fn pair_sets(&self, most: usize) -> PairSets {
        let mut sets = vec![Vec::new(); MAX_CELLS * MAX_CELLS];
        for set in 1..=self.all() {
            let size = set.count_ones() as usize;
            if size < 2 || size > most + 2 {
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
        for (pair, list) in sets.iter_mut().enumerate() {
            list.sort_unstable();
            if let Some(&first) = list.first() {
                let (bottom, top) = (pair / MAX_CELLS, pair % MAX_CELLS);
                for tops in &mut tops_within[bottom][(first >> 16) as usize..] {
                    *tops |= 1 << top;
                }
            }
        }
        PairSets { sets, tops_within }
    }

    /// Distinct states reachable in exactly d moves, for d = 0..=`depth`.
    pub fn count_states(&self, depth: usize, limits: &Limits) -> Result<Vec<u64>, SearchError> {
        let depth = depth.min(self.n.saturating_sub(1));
        let pairs = self.pair_sets(depth.saturating_sub(1));
        let mut walk = PairWalk {
            pairs: &pairs,
            all: self.all(),
            depth,
            counts: vec![0; depth + 1],
            seen: vec![0; 1 << 10],
            arena: vec![0],
            nodes: 0,
            limits,
        };
        walk.visit(0, 0, 0, 1)?;
        Ok(walk.counts)
    }
}

/// The walk over sets of pairs that counts distinct states.
struct PairWalk<'a> {
    pairs: &'a PairSets,
    all: u16,
    depth: usize,
    counts: Vec<u64>,
    /// Bit per set of cards: already in the family being built.
    seen: Vec<u64>,
    /// The families of buried-card sets along the walk, each sorted by size,
    /// as entries `size << 16 | set`.
    arena: Vec<u32>,
    nodes: usize,
    limits: &'a Limits,
}

impl PairWalk<'_> {
    /// Visits a set of `pairs` pairs using the cards `used`, whose family of
    /// buried-card sets is the last `family` entries of the arena; further
    /// pairs have bottoms from `first_bottom` on, so each set of pairs is
    /// visited once.
    fn visit(
        &mut self,
        pairs: usize,
        used: u16,
        first_bottom: usize,
        family: usize,
    ) -> Result<(), SearchError> {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            self.limits.check_cancel()?;
        }
        let base = self.arena.len() - family;
        // Each (pairs, buried set) is one state: the buried cards and the
        // pairs fix every cell's top.
        let mut ends = [family; MAX_CELLS + 2];
        let mut size = 0;
        // ends[k]: where the entries of size k or more begin.
        for i in 0..family {
            let k = (self.arena[base + i] >> 16) as usize;
            while size <= k {
                ends[size] = i;
                size += 1;
            }
            self.counts[pairs + k] += 1;
        }
        let fewest = (self.arena[base] >> 16) as usize;
        if pairs + 1 + fewest > self.depth {
            return Ok(());
        }
        let room = self.depth - pairs - 1;
        let free = self.all & !used;
        let low_bits = ((1u32 << first_bottom) - 1) as u16;
        for bottom in bits(free & !low_bits) {
            let tops = free & self.pairs.tops_within[bottom][room - fewest] & !(1 << bottom);
            for top in bits(tops) {
                let pair = (1u16 << bottom) | (1u16 << top);
                let taken = used | pair;
                let start = self.arena.len();
                let sets = &self.pairs.sets[bottom * MAX_CELLS + top];
                let last = ends[room + 1];
                for i in base..base + last {
                    let buried = self.arena[i];
                    let b = buried as u16;
                    if b & pair != 0 {
                        continue;
                    }
                    let left = room - (buried >> 16) as usize;
                    let blocked = b | taken;
                    for &more in sets {
                        if (more >> 16) as usize > left {
                            break;
                        }
                        if more as u16 & blocked != 0 {
                            continue;
                        }
                        let union = b | more as u16;
                        let (word, bit) = (union as usize >> 6, 1u64 << (union & 63));
                        if self.seen[word] & bit == 0 {
                            self.seen[word] |= bit;
                            self.arena
                                .push((buried + (more & 0xffff_0000)) | (more & 0xffff));
                        }
                    }
                }
                for i in start..self.arena.len() {
                    let u = self.arena[i] as u16;
                    self.seen[u as usize >> 6] &= !(1u64 << (u & 63));
                }
                let made = self.arena.len() - start;
                let least = self.arena[start..].iter().map(|&e| e >> 16).min();
                match least {
                    // No pair fits beside any of these: count them here
                    // rather than sort them for a visit.
                    Some(least) if pairs + 2 + least as usize > self.depth => {
                        for &entry in &self.arena[start..] {
                            self.counts[pairs + 1 + (entry >> 16) as usize] += 1;
                        }
                        self.nodes += 1;
                    }
                    Some(_) => {
                        self.arena[start..].sort_unstable();
                        self.visit(pairs + 1, taken, bottom + 1, made)?;
                    }
                    None => {}
                }
                self.arena.truncate(start);
            }
        }
        Ok(())
    }
}

type StateSet<K> = HashSet<K, BuildHasherDefault<KeyHasher>>;

/// What the walk back from one stack found: the solvable states at every
/// depth it reached and, when asked for, the states themselves at one depth
/// and the next, as packed boards (see [`crate::engine::board`]).
pub struct Solvable {
    /// Solvable states at each depth from `lowest` to the last, shallowest first.
    counts: Vec<u64>,
    /// The shallowest depth the walk reached.
    lowest: usize,
    /// The depth whose states are kept.
    pub depth: usize,
    /// The solvable states at `depth`, sorted, when the walk was asked to
    /// keep them (empty otherwise).
    pub at_depth: Vec<u128>,
    /// The solvable states at `depth + 1` (empty past the last depth), when
    /// the walk was asked to keep them.
    below: Option<StateSet<u128>>,
}

impl Solvable {
    /// Solvable states at depth `d`, if the walk reached it.
    pub fn count(&self, d: usize) -> Option<u64> {
        d.checked_sub(self.lowest)
            .and_then(|i| self.counts.get(i))
            .copied()
    }
}

/// A stack grouping on the walk back from one stack: for each card, the
/// card at the bottom of its stack (4 bits each, low half); for each bottom,
/// its top (4 bits each, high half).
type Grouping = u128;

/// The splits of each stack met on the walk back, computed once. A split is
/// kept as the bits it flips in a grouping, which depend only on the stack,
/// so a predecessor costs one xor.
struct SplitCache {
    /// Set of cards → where its slots begin (`NONE` until it is met). A set
    /// of k cards has k × k slots, one per (bottom, top), indexed by their
    /// ranks among the set's cards, so a lookup is two reads.
    base: Vec<u32>,
    /// (start, length) of each stack's flips; `NONE` length until computed.
    slots: Vec<(u32, u32)>,
    flips: Vec<Grouping>,
}

/// An empty entry of the split cache.
const NONE: u32 = u32::MAX;

impl SplitCache {
    fn new(n: usize) -> SplitCache {
        SplitCache {
            base: vec![NONE; 1 << n],
            slots: Vec::new(),
            flips: Vec::new(),
        }
    }

    /// The slot of the stack (`set`, `bottom`, `top`), made on first use.
    #[inline]
    fn slot(&mut self, set: u16, bottom: usize, top: usize) -> usize {
        let k = set.count_ones() as usize;
        let mut base = self.base[set as usize];
        if base == NONE {
            base = self.slots.len() as u32;
            self.base[set as usize] = base;
            self.slots.resize(self.slots.len() + k * k, (0, NONE));
        }
        let rank = |card: usize| (set & ((1u16 << card) - 1)).count_ones() as usize;
        base as usize + rank(bottom) * k + rank(top)
    }

    /// Bytes the cache takes, roughly.
    fn bytes(&self) -> usize {
        self.base.len() * 4
            + self.slots.capacity() * 8
            + self.flips.capacity() * std::mem::size_of::<Grouping>()
    }
}

impl Merges {
    /// Walks back from one stack to depth `lowest`, counting the solvable
    /// states at every depth and, when `next` is asked for (the tension needs
    /// them), keeping those at `keep` and `keep + 1` (`keep` ≥ `lowest`).
    /// `done` hears the solvable states of each depth as it is finished.
    pub fn walk_back(
        &self,
        lowest: usize,
        keep: usize,
        next: bool,
        limits: &Limits,
        mut done: impl FnMut(usize),
    ) -> Result<Solvable, SearchError> {
        let n = self.n;
        let all = self.all();
        let mut level: Vec<Grouping> = Vec::new();
        for top in 0..n {
            for bottom in bits(self.bottoms(all, top)) {
                level.push(grouping_of(&[(all, bottom, top)]));
            }
        }
        if n == 0 {
            // No cards: already one stack or fewer, as the analysis has it.
            level.push(0);
        }
        level.sort_unstable();
        level.dedup();
        let last = n.saturating_sub(1);
        let keep = keep.min(last);
        let lowest = lowest.min(keep);
        let mut counts = Vec::with_capacity(last + 1 - lowest);
        let mut at_depth = Vec::new();
        let mut below: Option<StateSet<u128>> = None;
        let mut splits = SplitCache::new(n);
        let mut at = last;
        loop {
            // Boards are listed only where they are kept; elsewhere they are
            // counted off the sorted groupings.
            let boards = if next && (at == keep || at == keep + 1) {
                let mut keys: Vec<u128> = level.iter().map(|&g| self.board_key(g)).collect();
                keys.sort_unstable();
                keys.dedup();
                let boards = keys.len();
                if at == keep {
                    at_depth = keys;
                } else {
                    let set = below.get_or_insert_with(StateSet::default);
                    set.reserve(keys.len());
                    set.extend(keys);
                }
                boards
            } else {
                self.count_boards(&level)
            };
            counts.push(boards as u64);
            done(boards);
            if at == lowest {
                break;
            }
            let fixed = below.as_ref().map_or(0, |b| b.capacity() * 24) + splits.bytes();
            if at - 1 == lowest && !(next && lowest == keep) {
                // The last depth needs its boards' count only, not their
                // groupings; a board of 12 stacks or fewer fits 64 bits,
                // which sort faster.
                let boards = if n - lowest <= 12 {
                    self.last_boards(level, fixed, &mut splits, limits, |k| k as u64)?
                } else {
                    self.last_boards(level, fixed, &mut splits, limits, |k| k)?
                };
                counts.push(boards as u64);
                done(boards);
                break;
            }
            let mut next = Sorted::default();
            split_all(level, fixed, |chunk, bytes| {
                limits.check(bytes + next.bytes())?;
                for &g in chunk {
                    self.split_each(g, &mut splits, |p| next.push(p));
                }
                Ok(())
            })?;
            level = next.finish();
            at -= 1;
        }
        counts.reverse();
        Ok(Solvable {
            counts,
            lowest,
            depth: keep,
            at_depth,
            below,
        })
    }

    /// How many distinct boards lie one move before the groupings of
    /// `level`; `fixed` bytes are held besides.
    fn last_boards<T: Copy + Ord + Default>(
        &self,
        level: Vec<Grouping>,
        fixed: usize,
        splits: &mut SplitCache,
        limits: &Limits,
        narrow: impl Fn(u128) -> T,
    ) -> Result<usize, SearchError> {
        let mut keys = Sorted::<T>::default();
        split_all(level, fixed, |chunk, bytes| {
            limits.check(bytes + keys.bytes())?;
            for &g in chunk {
                self.split_each(g, splits, |p| keys.push(narrow(self.board_key(p))));
            }
            Ok(())
        })?;
        Ok(keys.finish().len())
    }

    /// The ways a stack (cards `group`, bottom, top) can have been made by
    /// its last move, each as the bits it flips in a grouping: the cards that
    /// moved get their own bottom, which gets `top`, and `bottom` gets the top
    /// they landed on. (A card that is not a bottom has top bits 0.)
    fn splits_of(&self, group: u16, bottom: usize, top: usize, out: &mut Vec<Grouping>) {
        // `moved` is the stack that moved last (top `top`), `stayed` the
        // one it landed on (bottom `bottom`).
        let mut split = |moved: u16| {
            let stayed = group & !moved;
            let from = self.bottoms(moved, top) & self.line[bottom];
            if from != 0 {
                for under in bits(self.flock[top] & stayed) {
                    if self.bottoms(stayed, under) >> bottom & 1 == 1 {
                        for new_bottom in bits(from) {
                            let owners = bits(moved).fold(0, |f, card| {
                                f | ((bottom ^ new_bottom) as Grouping) << (4 * card)
                            });
                            out.push(
                                owners
                                    ^ with_top(0, new_bottom, top)
                                    ^ with_top(0, bottom, top ^ under),
                            );
                        }
                    }
                }
            }
        };
        let rest = group & !(1 << bottom | 1 << top);
        let candidates = &self.with_top[top];
        if candidates.len() < 1 << rest.count_ones() {
            // Fewer sets can have this top than the group has splits.
            for &moved in candidates {
                if moved & !rest == 1 << top {
                    split(moved);
                }
            }
            return;
        }
        let mut sub = rest;
        loop {
            split(sub | 1 << top);
            if sub == 0 {
                break;
            }
            sub = (sub - 1) & rest;
        }
    }

    /// Calls `found` with every grouping one move before `g`: one stack of
    /// `g` split into the two whose merge made it.
    fn split_each(&self, g: Grouping, cache: &mut SplitCache, mut found: impl FnMut(Grouping)) {
        // A one-card stack is its own top; the others are split.
        let alone = zero_nibbles((g >> 64) as u64 ^ CARDS);
        for bottom in bits(bottoms(g) & !alone) {
            // The cards whose owner nibble is `bottom`.
            let owned_by = 0x1111_1111_1111_1111 * bottom as u64;
            let group = zero_nibbles(g as u64 ^ owned_by) & self.all();
            let top = top_of(g, bottom);
            let slot = cache.slot(group, bottom, top);
            let (mut start, mut len) = cache.slots[slot];
            if len == NONE {
                start = cache.flips.len() as u32;
                self.splits_of(group, bottom, top, &mut cache.flips);
                len = cache.flips.len() as u32 - start;
                cache.slots[slot] = (start, len);
            }
            for &flip in &cache.flips[start as usize..(start + len) as usize] {
                found(g ^ flip);
            }
        }
    }

    /// The packed board of a grouping (bottoms' cells and their tops).
    /// Cards are numbered in cell order, so the bottoms' tops in card order
    /// are the tops in cell order.
    #[inline]
    fn board_key(&self, g: Grouping) -> u128 {
        let (mut occ, mut tops, mut shift) = (0u16, 0u128, 16);
        for bottom in bits(bottoms(g)) {
            occ |= 1 << self.cell[bottom];
            tops |= (top_of(g, bottom) as u128) << shift;
            shift += 4;
        }
        occ as u128 | tops
    }

    /// Distinct boards among sorted, distinct groupings. Groupings of one
    /// board share their tops (the high half), so they sit together, and
    /// differ from each other's boards only if their bottoms differ.
    fn count_boards(&self, level: &[Grouping]) -> usize {
        let mut seen: Vec<u16> = Vec::new();
        level
            .chunk_by(|a, b| a >> 64 == b >> 64)
            .map(|run| {
                if run.len() == 1 {
                    return 1;
                }
                seen.clear();
                seen.extend(run.iter().map(|&g| bottoms(g)));
                seen.sort_unstable();
                seen.dedup();
                seen.len()
            })
            .sum()
    }

    /// Midgame tension: the mean of 1 − winning moves ÷ moves over the
    /// solvable states at the halfway depth (`None` when the walk did not
    /// keep the solvable states one move further).
    pub fn tension(
        &self,
        solvable: &Solvable,
        limits: &Limits,
    ) -> Result<Option<f64>, SearchError> {
        if solvable.depth + 1 > self.n.saturating_sub(1) {
            return Ok(None);
        }
        let Some(below) = &solvable.below else {
            return Ok(None);
        };
        let mut list = MoveList::default();
        let (mut sum, mut counted) = (0.0, 0u64);
        for (i, &key) in solvable.at_depth.iter().enumerate() {
            if i % CHECK_EVERY == 0 {
                limits.check_cancel()?;
            }
            let board = Board::unpack(key);
            board.moves(&self.layout, &mut list);
            let wins = list
                .as_slice()
                .iter()
                .filter(|&&mv| below.contains(&Board::child_key(key, mv)))
                .count();
            if !list.is_empty() {
                sum += 1.0 - wins as f64 / list.len() as f64;
                counted += 1;
            }
        }
        Ok((counted > 0).then(|| sum / counted as f64))
    }
}

/// Groupings split between two looks at the memory they take.
const CHUNK: usize = 1 << 16;

/// Hands the groupings of `level` to `split` a chunk at a time, from the
/// last, freeing the level as it goes so that two depths never both stay
/// whole; `split` also hears the bytes the level and `fixed` take, to check
/// them against the limits.
fn split_all(
    mut level: Vec<Grouping>,
    fixed: usize,
    mut split: impl FnMut(&[Grouping], usize) -> Result<(), SearchError>,
) -> Result<(), SearchError> {
    while !level.is_empty() {
        let start = level.len().saturating_sub(CHUNK);
        let bytes = fixed + level.capacity() * std::mem::size_of::<Grouping>();
        split(&level[start..], bytes)?;
        level.truncate(start);
        // Shrinking a large allocation gives its pages back in place.
        if level.capacity() > 2 * level.len() + CHUNK {
            level.shrink_to_fit();
        }
    }
    Ok(())
}

#[inline]
fn top_of(g: Grouping, bottom: usize) -> usize {
    (g >> (64 + 4 * bottom) & 0xf) as usize
}

#[inline]
fn with_owner(g: Grouping, card: usize, bottom: usize) -> Grouping {
    g & !(0xf << (4 * card)) | (bottom as u128) << (4 * card)
}

#[inline]
fn with_top(g: Grouping, bottom: usize, top: usize) -> Grouping {
    g & !(0xf << (64 + 4 * bottom)) | (top as u128) << (64 + 4 * bottom)
}

/// The grouping with these stacks (cards, bottom, top); the other cards'
/// nibbles stay 0, so only sets covering every card are complete.
fn grouping_of(stacks: &[(u16, usize, usize)]) -> Grouping {
    let mut g = 0;
    for &(set, bottom, top) in stacks {
        for card in bits(set) {
            g = with_owner(g, card, bottom);
        }
        g = with_top(g, bottom, top);
    }
    g
}

/// Each card's number in its nibble.
const CARDS: u64 = 0xfedc_ba98_7654_3210;

/// The bottoms of a grouping: the cards that own themselves (a nibble of
/// the xor with each card's number is zero exactly at a bottom).
#[inline]
fn bottoms(g: Grouping) -> u16 {
    zero_nibbles(g as u64 ^ CARDS)
}

/// The nibbles of `x` that are zero, as a mask: all sixteen are tested at
/// once, then the flags are packed.
#[inline]
fn zero_nibbles(x: u64) -> u16 {
    const LOW3: u64 = 0x7777_7777_7777_7777;
    // The top bit of each nibble, set exactly where the nibble is zero.
    let zero = !(((x & LOW3) + LOW3) | x | LOW3);
    let mut m = zero >> 3;
    m = (m | m >> 3) & 0x0303_0303_0303_0303;
    m = (m | m >> 6) & 0x000f_000f_000f_000f;
    m = (m | m >> 12) & 0x0000_00ff_0000_00ff;
    ((m | m >> 24) & 0xffff) as u16
}

/// A sorted list of distinct items, built in batches so that duplicates
/// never pile up: the predecessors of a depth repeat each other several
/// times over.
struct Sorted<T> {
    done: Vec<T>,
    pending: Vec<T>,
}

impl<T> Default for Sorted<T> {
    fn default() -> Self {
        Sorted {
            done: Vec::new(),
            pending: Vec::new(),
        }
    }
}

impl<T: Copy + Ord + Default> Sorted<T> {
    /// Items gathered before the first sort.
    const BATCH: usize = 1 << 12;

    #[inline]
    fn push(&mut self, item: T) {
        self.pending.push(item);
        if self.pending.len() >= Self::BATCH.max(self.done.len() / 2) {
            self.merge();
        }
    }

    /// Sorts the pending items into the rest, dropping repeats. The merge
    /// runs from the back, in place, so no third list is needed.
    fn merge(&mut self) {
        self.pending.sort_unstable();
        self.pending.dedup();
        if self.done.is_empty() {
            std::mem::swap(&mut self.done, &mut self.pending);
            return;
        }
        let (old, more) = (self.done.len(), self.pending.len());
        self.done.resize(old + more, T::default());
        let (done, pending) = (&mut self.done, &self.pending);
        // done[..i] and pending[..j] are still to merge; done[w..] is merged.
        // w ≥ i + j always, so writing at w - 1 never overwrites done[..i].
        let (mut i, mut j, mut w) = (old, more, old + more);
        while i > 0 && j > 0 {
            let (x, y) = (done[i - 1], pending[j - 1]);
            w -= 1;
            if x >= y {
                done[w] = x;
                i -= 1;
                if x == y {
                    j -= 1;
                }
            } else {
                done[w] = y;
                j -= 1;
            }
        }
        done[w - j..w].copy_from_slice(&pending[..j]);
        w -= j;
        done.copy_within(..i, w - i);
        w -= i;
        done.copy_within(w.., 0);
        done.truncate(old + more - w);
        self.pending.clear();
    }

    /// Bytes held, roughly.
    fn bytes(&self) -> usize {
        (self.done.capacity() + self.pending.capacity()) * std::mem::size_of::<T>()
    }

    /// The items, sorted and distinct.
    fn finish(mut self) -> Vec<T> {
        self.merge();
        self.done.shrink_to_fit();
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal::deal;
    use crate::engine::notation::parse_state;

    #[test]
    fn sorted_keeps_each_item_once_in_order() {
        // Batches merged in place, against a set; small values so that
        // repeats within and across batches are common.
        let mut sorted = Sorted::<u64>::default();
        let mut set = std::collections::BTreeSet::new();
        let mut x = 12345u64;
        for _ in 0..100_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let item = (x >> 40) % 30_000;
            sorted.push(item);
            set.insert(item);
        }
        let items = sorted.finish();
        assert_eq!(items, set.into_iter().collect::<Vec<_>>());
    }

    #[test]
    fn both_fills_give_the_same_table() {
        let mut states: Vec<State> = (0..4).map(deal).collect();
        for text in [
            "KS2D2C3H7C8D4HADAC6HJSTS7HTD6D5H",
            "9D3H2HKC6S4DJC7SAC3C9SQC4H7DADKH",
        ] {
            states.push(parse_state(text, None).unwrap());
        }
        for state in &states {
            let by_pairs = Merges::forced(state, true);
            let by_splits = Merges::forced(state, false);
            let chosen = Merges::new(state, &Limits::default()).unwrap();
            let stacks = by_splits
                .stacks
                .iter()
                .filter(|s| **s != [0; MAX_CELLS])
                .count();
            // Every card alone, and some larger sets.
            assert!(stacks > 16, "{stacks} sets can merge");
            assert!(by_pairs.stacks == by_splits.stacks);
            assert!(chosen.stacks == by_splits.stacks);
        }
    }
}
