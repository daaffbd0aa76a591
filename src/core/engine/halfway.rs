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
//!   ([`Merges`] knows which cards each pair can take), bit-sliced so that
//!   the sets clear of a new pair's cards are found 64 at a time; the states
//!   at the last depth are counted, never stored.
//! - **Solvable states at the halfway depth.** Walking back from one stack,
//!   each step splits one stack into two that could have merged into it. A
//!   state met this way is reachable (each stack can be built) and solvable
//!   (the walk came from one stack), and every solvable state is met. Only
//!   solvable states are visited, which for the puzzles E5 favours are few.
//!   Each depth's groupings (which cards are in which stack) are kept in
//!   64-bit words by their set of bottoms, so that a set's repeats are
//!   dropped in the cache with a small hash set, and the set is finished as
//!   soon as the last set of bottoms that can lead to it is split.
//!
//! Both agree with [`crate::engine::analysis`] state for state; the tests and
//! the property tests check them against it.

use crate::engine::analysis::ratio;
use crate::engine::board::{Board, KeyHasher, Layout, MoveList, bits, connected};
use crate::engine::limits::{Limits, SearchError};
use crate::engine::state::{MAX_CELLS, State};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
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
    /// Set of cards → the cards it can have on top, and at the bottom, as
    /// one stack: a small table that rules out most splits at once.
    ends: Vec<(u16, u16)>,
    /// The sets that can become one stack.
    parts: Vec<u16>,
    /// Set of cards → the cards that flock with one of them.
    flock_of: Vec<u16>,
    /// Set of cards → the cards whose cells share a line with one of theirs.
    line_of: Vec<u16>,
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
        // The cards any of a set's cards flocks with, or shares a line with.
        let mut flock_of = vec![0u16; 1 << n];
        let mut line_of = vec![0u16; 1 << n];
        for set in 1..1usize << n {
            let (low, rest) = (set.trailing_zeros() as usize, set & (set - 1));
            flock_of[set] = flock_of[rest] | flock[low];
            line_of[set] = line_of[rest] | line[low];
        }
        Ok(Merges {
            n,
            flock,
            line,
            cell,
            stacks,
            layout,
            with_top: vec![Vec::new(); n],
            ends: Vec::new(),
            parts: Vec::new(),
            flock_of,
            line_of,
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
        let mut slices: Vec<Vec<PartChunk>> = vec![Vec::new(); n + 1];
        if n > 0 {
            slices[1] = PartChunk::slice(&by_size[1]);
        }
        for size in 2..=n {
            limits.check_cancel()?;
            let split_cost = binomial(n, size) << (size - 1);
            let pair_cost: usize = (1..=size / 2)
                .map(|k| by_size[k].len() * by_size[size - k].len())
                .sum();
            let sets: Vec<u16> = if from_pairs(split_cost, pair_cost) {
                let mut made = self.fill_from_pairs(size, &by_size, &slices, limits)?;
                made.sort_unstable();
                made.dedup();
                made
            } else {
                self.fill_from_splits(size, limits)?;
                sets_of_size(n, size).collect()
            };
            by_size[size] = sets
                .into_iter()
                .filter(|&set| self.can_merge(set))
                .map(|set| self.part(set))
                .collect();
            slices[size] = PartChunk::slice(&by_size[size]);
        }
        self.ends = vec![(0, 0); 1 << n];
        for part in by_size.iter().flatten() {
            for t in bits(part.tops) {
                self.with_top[t].push(part.set);
            }
            self.ends[part.set as usize] = (part.tops, part.bottoms);
            self.parts.push(part.set);
        }
        Ok(())
    }

    /// Fills the sets of `size` cards from every pair of disjoint smaller
    /// sets that can merge and whose sizes add up; returns the sets met.
    fn fill_from_pairs(
        &mut self,
        size: usize,
        by_size: &[Vec<Part>],
        slices: &[Vec<PartChunk>],
        limits: &Limits,
    ) -> Result<Vec<u16>, SearchError> {
        let mut made = Vec::new();
        for k in 1..=size / 2 {
            let (small, large) = (&by_size[k], &by_size[size - k]);
            for (i, a) in small.iter().enumerate() {
                if i % CHECK_EVERY == 0 {
                    limits.check_cancel()?;
                }
                for (j, chunk) in slices[size - k].iter().enumerate() {
                    // The parts clear of `a`'s cards, with a top flocking
                    // with a top of `a` and a bottom in line with one of
                    // its bottoms (both relations are symmetric, so one test
                    // serves both directions of the move). Equal sizes: each
                    // unordered pair once, the larger set second.
                    let mut fits = chunk.parts;
                    if k == size - k {
                        fits &= !PartChunk::upto(i + 1, j);
                    }
                    for card in bits(a.set) {
                        fits &= !chunk.holding[card];
                    }
                    let near =
                        |cards: u16, has: &[u64; MAX_CELLS]| bits(cards).fold(0, |m, c| m | has[c]);
                    if fits != 0 {
                        fits &= near(a.near_tops, &chunk.tops);
                    }
                    if fits != 0 {
                        fits &= near(a.near_bottoms, &chunk.bottoms);
                    }
                    for at in bits64(fits) {
                        let b = &large[64 * j + at];
                        let mut out = self.stacks[(a.set | b.set) as usize];
                        self.join_parts(a, b, &mut out);
                        self.join_parts(b, a, &mut out);
                        self.stacks[(a.set | b.set) as usize] = out;
                        made.push(a.set | b.set);
                    }
                }
            }
        }
        Ok(made)
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
            near_tops: self.flock_of[tops as usize],
            near_bottoms: self.line_of[bottoms as usize],
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
            // ...in line with a bottom `a`'s stack can have.
            out[t] |= under & self.line_of[from as usize];
        }
    }

    /// [`Merges::join`] for two parts, whose tops are known.
    #[inline]
    fn join_parts(&self, a: &Part, b: &Part, out: &mut [u16; MAX_CELLS]) {
        let sa = &self.stacks[a.set as usize];
        let sb = &self.stacks[b.set as usize];
        // Tops of `a` that flock with a top of `b`.
        for t in bits(a.tops & b.near_tops) {
            let under = bits(self.flock[t] & b.tops).fold(0, |m, u| m | sb[u]);
            out[t] |= under & self.line_of[sa[t] as usize];
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

/// 64 parts of one size, bit-sliced: which hold each card, have it on
/// top, have it at the bottom.
#[derive(Clone)]
struct PartChunk {
    /// The parts in this chunk.
    parts: u64,
    holding: [u64; MAX_CELLS],
    tops: [u64; MAX_CELLS],
    bottoms: [u64; MAX_CELLS],
}

impl PartChunk {
    /// The parts, 64 to a chunk.
    fn slice(parts: &[Part]) -> Vec<PartChunk> {
        parts
            .chunks(64)
            .map(|few| {
                let mut chunk = PartChunk {
                    parts: PartChunk::upto(few.len(), 0),
                    holding: [0; MAX_CELLS],
                    tops: [0; MAX_CELLS],
                    bottoms: [0; MAX_CELLS],
                };
                for (i, part) in few.iter().enumerate() {
                    for (has, cards) in [
                        (&mut chunk.holding, part.set),
                        (&mut chunk.tops, part.tops),
                        (&mut chunk.bottoms, part.bottoms),
                    ] {
                        for c in bits(cards) {
                            has[c] |= 1 << i;
                        }
                    }
                }
                chunk
            })
            .collect()
    }

    /// The parts before index `k` of the whole list, among chunk `j`'s.
    fn upto(k: usize, j: usize) -> u64 {
        match k.saturating_sub(64 * j) {
            0 => 0,
            m if m >= 64 => !0,
            m => (1u64 << m) - 1,
        }
    }
}

/// The set bits of a 64-bit mask, lowest first.
fn bits64(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            i
        })
    })
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
    /// For each pair and size k, how many of its sets have k cards or fewer.
    within: Vec<[u32; MAX_CELLS + 1]>,
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
        let depth = depth.min(self.n.saturating_sub(1));
        let pairs = self.pair_sets(depth.saturating_sub(1));
        let mut walk = PairWalk {
            pairs: &pairs,
            all: self.all(),
            depth,
            counts: vec![0; depth + 1],
            seen: vec![0; 1 << 10],
            families: vec![Vec::new(); depth + 2],
            holders: vec![Vec::new(); depth + 2],
            avail: vec![Vec::new(); depth + 2],
            filled: Vec::new(),
            nodes: 0,
            limits,
        };
        walk.families[0].push(0);
        walk.visit(0, 0, 0)?;
        Ok(walk.counts)
    }
}

/// 64 entries of a family, bit-sliced: which hold each card, and which
/// have each number of cards or fewer.
type Chunk = ([u64; MAX_CELLS], [u64; MAX_CELLS + 1]);

/// The walk over sets of pairs that counts distinct states.
struct PairWalk<'a> {
    pairs: &'a PairSets,
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
    /// Unions at the last depth, to clear from `seen`.
    filled: Vec<u16>,
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
        // pairs fix every cell's top.
        for &entry in &family {
            self.counts[pairs + (entry >> 16) as usize] += 1;
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
        let free = self.all & !used;
        let low_bits = ((1u32 << first_bottom) - 1) as u16;
        // Bit-sliced family: holders[j][c] has bit i when entry 64j + i
        // holds card c, so the entries clear of a set of cards are found
        // 64 at a time; sized[j][k] has those of k cards or fewer.
        let chunks = fits.div_ceil(64);
        let mut holders = std::mem::take(&mut self.holders[pairs]);
        holders.clear();
        holders.resize(chunks, ([0; MAX_CELLS], [0; MAX_CELLS + 1]));
        let mut upto = [0usize; MAX_CELLS + 1];
        for (i, &entry) in family[..fits].iter().enumerate() {
            let held = &mut holders[i / 64].0;
            for card in bits(entry as u16) {
                held[card] |= 1 << (i % 64);
            }
            upto[(entry >> 16) as usize] += 1;
        }
        // The family is sorted by size, so those of k cards or fewer come
        // first.
        for k in 0..=room {
            if k > 0 {
                upto[k] += upto[k - 1];
            }
            for (j, (_, sized)) in holders.iter_mut().enumerate() {
                sized[k] = PartChunk::upto(upto[k], j);
            }
        }
        let mut out = std::mem::take(&mut self.families[pairs + 1]);
        let mut avail = std::mem::take(&mut self.avail[pairs]);
        let mut filled = std::mem::take(&mut self.filled);
        for bottom in bits(free & !low_bits) {
            let tops = free & self.pairs.tops_within[bottom][room - fewest] & !(1 << bottom);
            for top in bits(tops) {
                let pair = bottom * MAX_CELLS + top;
                let sets = &self.pairs.sets[pair];
                let taken = used | 1 << bottom | 1 << top;
                // The pair's sets clear of the cards already taken.
                let most = self.pairs.within[pair][room - fewest] as usize;
                // Branch-free: whether a set is clear is a coin toss to the
                // branch predictor.
                if avail.len() < most {
                    avail.resize(most, 0);
                }
                let mut kept = 0;
                for &x in &sets[..most] {
                    avail[kept] = x;
                    kept += (x as u16 & taken == 0) as usize;
                }
                if kept == 0 {
                    continue;
                }
                out.clear();
                // With one set for the pair, every union is new.
                let single = kept == 1;
                let mut deepest = 0u64;
                for &more in &avail[..kept] {
                    let x = more as u16;
                    // Entries of `most` cards fill the room: their unions
                    // are states at the last depth, counted, not visited.
                    let most = room - (more >> 16) as usize;
                    for (j, (held, sized)) in holders.iter().enumerate() {
                        let mut clear = sized[most] & !(held[bottom] | held[top]);
                        for card in bits(x) {
                            clear &= !held[card];
                        }
                        let fewer = if most == 0 { 0 } else { sized[most - 1] };
                        if single {
                            deepest += (clear & !fewer).count_ones() as u64;
                            clear &= fewer;
                        }
                        while clear != 0 {
                            let i = 64 * j + clear.trailing_zeros() as usize;
                            clear &= clear - 1;
                            let buried = family[i];
                            let union = buried as u16 | x;
                            if !single {
                                let (word, bit) = (union as usize >> 6, 1u64 << (union & 63));
                                if self.seen[word] & bit != 0 {
                                    continue;
                                }
                                self.seen[word] |= bit;
                                if fewer >> (i % 64) & 1 == 0 {
                                    deepest += 1;
                                    filled.push(union);
                                    continue;
                                }
                            }
                            out.push((buried + (more & 0xffff_0000)) | union as u32);
                        }
                    }
                }
                self.counts[self.depth] += deepest;
                if !single {
                    for &entry in &out {
                        let u = entry as u16;
                        self.seen[u as usize >> 6] &= !(1u64 << (u & 63));
                    }
                    for &u in &filled {
                        self.seen[u as usize >> 6] &= !(1u64 << (u & 63));
                    }
                    filled.clear();
                }
                if !out.is_empty() {
                    out.sort_unstable();
                    self.families[pairs + 1] = out;
                    self.visit(pairs + 1, taken, bottom + 1)?;
                    out = std::mem::take(&mut self.families[pairs + 1]);
                }
            }
        }
        self.holders[pairs] = holders;
        self.filled = filled;
        self.avail[pairs] = avail;
        self.families[pairs + 1] = out;
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

/// A stack grouping on the walk back from one stack, as a word beside its
/// set of bottoms (the cards whose cells are occupied): the nibble of each
/// bottom holds the top of its stack, the nibble of every other card the
/// bottom of the stack it is in. Sixteen nibbles in all, so one `u64`.
///
/// The walk keeps each depth's groupings by their set of bottoms: a set's
/// groupings are few enough to deduplicate in the cache, and one board's
/// groupings share their bottoms.
type Word = u64;

/// One in the nibble of each card of `set`.
#[inline]
fn ones(set: u16) -> u64 {
    let mut x = set as u64;
    x = (x | x << 24) & 0x0000_00ff_0000_00ff;
    x = (x | x << 12) & 0x000f_000f_000f_000f;
    x = (x | x << 6) & 0x0303_0303_0303_0303;
    (x | x << 3) & 0x1111_1111_1111_1111
}

/// The cards whose nibble in `w` is `bottom`: with `bottom`, its stack,
/// once the other bottoms (whose nibbles are tops) are left out.
#[inline]
fn owned_by(w: Word, bottom: usize) -> u16 {
    zero_nibbles(w ^ (ones(u16::MAX) * bottom as u64))
}

/// The nibble of `card` in `w`.
#[inline]
fn nibble(w: Word, card: usize) -> usize {
    (w >> (4 * card) & 0xf) as usize
}

/// The splits of each stack met on the walk back, computed once. A split is
/// kept as the bits it flips in a word, which depend only on the stack, and
/// the card that becomes a bottom, so a predecessor costs one xor.
struct SplitCache {
    /// Set of cards → where its slots begin (`NONE` until it is met). A set
    /// of k cards has k × k slots, one per (bottom, top), indexed by their
    /// ranks among the set's cards, so a lookup is two reads.
    base: Vec<u32>,
    /// (start, length) of each stack's flips; `NONE` length until computed.
    slots: Vec<(u32, u32)>,
    flips: Vec<Word>,
    /// The new bottom of each flip.
    news: Vec<u8>,
    /// The splits of one set as they are found: slot, new bottom, flip.
    found: Vec<(u16, u8, Word)>,
    /// Stacks of large sets asked for by the depth about to be split.
    asked: Vec<(u16, u8, u8)>,
    /// Large set → where its halves are listed in `halved` (see
    /// [`Merges::halves_of`]).
    halves: HashMap<u16, (u32, u32), BuildHasherDefault<KeyHasher>>,
    halved: Vec<u16>,
}

/// An empty entry of the split cache.
const NONE: u32 = u32::MAX;

/// Cards from which a set's stacks are split only as they are asked for:
/// a large set has many stacks, few of which the walk meets, and a pass
/// over its subsets costs 2^k.
const LARGE: usize = 6;

impl SplitCache {
    fn new(n: usize) -> SplitCache {
        SplitCache {
            base: vec![NONE; 1 << n],
            slots: Vec::new(),
            flips: Vec::new(),
            news: Vec::new(),
            found: Vec::new(),
            asked: Vec::new(),
            halves: HashMap::default(),
            halved: Vec::new(),
        }
    }

    /// The slot of the stack (`set`, `bottom`, `top`), the set's slots made
    /// on its first look.
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

    /// The flips of the stack (`set`, `bottom`, `top`), as a range of
    /// `flips` and `news`. The first look at a small set splits all its
    /// stacks in one pass; a large set's stack is split alone.
    #[inline]
    fn of(
        &mut self,
        merges: &Merges,
        set: u16,
        bottom: usize,
        top: usize,
    ) -> std::ops::Range<usize> {
        let slot = self.slot(set, bottom, top);
        if self.slots[slot].1 == NONE {
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
        let (start, len) = self.slots[slot];
        start as usize..(start + len) as usize
    }

    /// Notes a stack the next depth will split, when its set is large and
    /// it is not split yet.
    #[inline]
    fn ask(&mut self, set: u16, bottom: usize, top: usize) {
        if (set.count_ones() as usize) < LARGE {
            return;
        }
        let slot = self.slot(set, bottom, top);
        if self.slots[slot].1 == NONE {
            // Asked once: the slot stays empty until the set is split.
            self.slots[slot].1 = NONE - 1;
            self.asked.push((set, bottom as u8, top as u8));
        }
    }

    /// Splits the stacks asked for, each set in one pass.
    fn split_asked(&mut self, merges: &Merges) {
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
    fn bytes(&self) -> usize {
        self.base.len() * 4
            + self.slots.capacity() * 8
            + self.flips.capacity() * 9
            + self.halves.capacity() * 12
            + self.halved.capacity() * 2
    }
}

thread_local! {
    /// Lists of words by set of bottoms, all empty, left by the walks done
    /// on this thread: making 2^16 of them writes megabytes, which a search
    /// would pay three times at every step.
    static SPARE_LISTS: std::cell::RefCell<Vec<Vec<Vec<Word>>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Lists kept for reuse at most, per thread.
const SPARE_LIST_SETS: usize = 4;

/// One empty list per set of bottoms of `n` cards.
fn empty_lists(n: usize) -> Vec<Vec<Word>> {
    SPARE_LISTS
        .with_borrow_mut(|spare| {
            let at = spare.iter().position(|lists| lists.len() == 1 << n)?;
            Some(spare.swap_remove(at))
        })
        .unwrap_or_else(|| vec![Vec::new(); 1 << n])
}

/// Keeps `lists` for another walk once the sets `used` are emptied (the
/// others must be empty, with nothing allocated).
fn recycle_lists(mut lists: Vec<Vec<Word>>, used: &[u16]) {
    if lists.len() < 1 << 8 {
        return;
    }
    for &bottoms in used {
        lists[bottoms as usize] = Vec::new();
    }
    debug_assert!(lists.iter().all(|words| words.capacity() == 0));
    SPARE_LISTS.with_borrow_mut(|spare| {
        if spare.len() < SPARE_LIST_SETS {
            spare.push(lists);
        }
    });
}

/// One depth of the walk back: the distinct words of each set of bottoms
/// (indexed by the set), and how many boards they make.
struct Level {
    sets: Vec<Vec<Word>>,
    /// The sets of bottoms with words, in numeric order.
    used: Vec<u16>,
    boards: usize,
}

impl Level {
    /// A level with no words, in these lists (one per set of bottoms, all
    /// empty; made if there are none).
    fn empty(n: usize, mut sets: Vec<Vec<Word>>) -> Level {
        if sets.len() != 1 << n {
            sets = empty_lists(n);
        }
        Level {
            sets,
            used: Vec::new(),
            boards: 0,
        }
    }

    /// Bytes held, roughly.
    fn bytes(&self) -> usize {
        self.sets.len() * std::mem::size_of::<Vec<Word>>()
            + self
                .used
                .iter()
                .map(|&b| self.sets[b as usize].capacity() * 8)
                .sum::<usize>()
    }
}

/// A word no grouping has: it would need every card's nibble to be 15, so
/// card 15 a bottom with itself on top and every other card in its stack.
const EMPTY: Word = u64::MAX;

/// An open-addressing set of words, cleared for each use; small enough,
/// for one set of bottoms, to stay in the cache.
#[derive(Default)]
struct WordSet {
    table: Vec<Word>,
}

impl WordSet {
    /// Keeps the first of each word in `words`, in order.
    fn dedup(&mut self, words: &mut Vec<Word>) {
        let size = (2 * words.len()).next_power_of_two().max(16);
        self.table.clear();
        self.table.resize(size, EMPTY);
        let slot_bits = size.trailing_zeros();
        let mut kept = 0;
        for i in 0..words.len() {
            let w = words[i];
            debug_assert_ne!(w, EMPTY);
            let mut at = crate::hash::fibonacci(w, slot_bits);
            loop {
                let held = self.table[at];
                if held == w {
                    break;
                }
                if held == EMPTY {
                    self.table[at] = w;
                    words[kept] = w;
                    kept += 1;
                    break;
                }
                at = (at + 1) & (size - 1);
            }
        }
        words.truncate(kept);
    }

    /// Distinct boards among distinct words with these bottoms: the
    /// distinct tops.
    fn boards(&mut self, bottoms: u16, words: &[Word], scratch: &mut Vec<Word>) -> usize {
        let mask = ones(bottoms) * 0xf;
        scratch.clear();
        scratch.extend(words.iter().map(|&w| w & mask));
        self.dedup(scratch);
        scratch.len()
    }
}

/// The next depth of the walk back while it is made: for each set of
/// bottoms, the words made for it so far, repeats and all until it is
/// compacted or finished.
struct Making {
    raw: Vec<Vec<Word>>,
    /// For each set of bottoms, its words after its last compaction.
    kept: Vec<u32>,
    /// The sets of bottoms with words, by the set whose split finishes
    /// them (the last of their sources in numeric order), soonest first.
    pending: BinaryHeap<Reverse<(u16, u16)>>,
    set: WordSet,
    scratch: Vec<Word>,
    /// What is finished.
    done: Level,
    /// Keep only the count of boards, not the words.
    only_tops: bool,
    /// Emptied lists, kept for sets of bottoms yet to gather words.
    spare: Vec<Vec<Word>>,
}

/// Words a set of bottoms gathers before its repeats are dropped, at least.
const COMPACT_AT: usize = 1 << 12;

impl Making {
    fn new(n: usize) -> Making {
        Making {
            raw: empty_lists(n),
            kept: vec![0; 1 << n],
            pending: BinaryHeap::new(),
            set: WordSet::default(),
            scratch: Vec::new(),
            done: Level::empty(0, Vec::new()),
            only_tops: false,
            spare: Vec::new(),
        }
    }

    /// Starts a depth, into `sets` (one empty list per set of bottoms, or
    /// none to be made; the lists of the depth before are reused, which
    /// saves clearing megabytes at every step of a search).
    fn begin(&mut self, only_tops: bool, sets: Vec<Vec<Word>>) {
        let n = self.raw.len().trailing_zeros() as usize;
        self.only_tops = only_tops;
        self.done = if only_tops {
            recycle_lists(sets, &[]);
            Level::empty(0, Vec::new())
        } else {
            Level::empty(n, sets)
        };
    }

    /// The words gathered for a set of bottoms, in a list from an earlier
    /// set when it has none yet: fewer lists grow from nothing.
    fn take(&mut self, bottoms: u16) -> Vec<Word> {
        let words = std::mem::take(&mut self.raw[bottoms as usize]);
        if words.capacity() == 0 {
            self.spare.pop().unwrap_or_default()
        } else {
            words
        }
    }

    /// Gives back the words of a set of bottoms taken with `take`; `new`
    /// when it had none before.
    fn put(&mut self, bottoms: u16, words: Vec<Word>, new: bool) {
        if words.is_empty() {
            self.recycle(words);
            return;
        }
        if new {
            // Its sources are the sets one bottom smaller, the last of
            // them the set without its lowest bottom.
            self.pending
                .push(Reverse((bottoms & (bottoms - 1), bottoms)));
        }
        self.raw[bottoms as usize] = words;
    }

    /// Drops the repeats of a set of bottoms that has gathered many.
    fn compact(&mut self, bottoms: u16) {
        let raw = &mut self.raw[bottoms as usize];
        if raw.len() > COMPACT_AT.max(2 * self.kept[bottoms as usize] as usize) {
            self.set.dedup(raw);
            self.kept[bottoms as usize] = raw.len() as u32;
        }
    }

    /// Finishes the sets of bottoms whose sources all come before `source`.
    fn finish_before(&mut self, source: u32) {
        while let Some(&Reverse((last, bottoms))) = self.pending.peek() {
            if last as u32 >= source {
                break;
            }
            self.pending.pop();
            self.finish(bottoms);
        }
    }

    /// Finishes a set of bottoms that will gather no more words.
    fn finish(&mut self, bottoms: u16) {
        self.kept[bottoms as usize] = 0;
        let mut words = std::mem::take(&mut self.raw[bottoms as usize]);
        self.set.dedup(&mut words);
        if self.only_tops {
            self.done.boards += words.len();
        } else {
            self.done.boards += self.set.boards(bottoms, &words, &mut self.scratch);
            self.done.sets[bottoms as usize] = words.to_vec();
            self.done.used.push(bottoms);
        }
        self.recycle(words);
    }

    /// Keeps an emptied list for another set of bottoms.
    fn recycle(&mut self, mut words: Vec<Word>) {
        if words.capacity() > 0 && words.capacity() <= COMPACT_AT * 4 && self.spare.len() < 1 << 12
        {
            words.clear();
            self.spare.push(words);
        }
    }

    /// The finished depth.
    fn result(&mut self) -> Level {
        self.finish_before(u32::MAX);
        self.done.used.sort_unstable();
        std::mem::replace(&mut self.done, Level::empty(0, Vec::new()))
    }

    /// Bytes held, roughly.
    fn bytes(&self) -> usize {
        self.raw.len() * (std::mem::size_of::<Vec<Word>>() + 4)
            + self
                .pending
                .iter()
                .map(|Reverse((_, b))| self.raw[*b as usize].capacity() * 8)
                .sum::<usize>()
            + self.spare.iter().map(|s| s.capacity() * 8).sum::<usize>()
            + self.done.bytes()
    }
}

/// Predecessors made between two looks at the memory they take.
const LOOK_EVERY: usize = 1 << 20;

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
        let mut level = Level::empty(n, Vec::new());
        for bottom in 0..n {
            let words: Vec<Word> = bits(all)
                .filter(|&top| self.bottoms(all, top) >> bottom & 1 == 1)
                .map(|top| {
                    (ones(all & !(1 << bottom)) * bottom as u64) | (top as u64) << (4 * bottom)
                })
                .collect();
            if !words.is_empty() {
                level.boards += words.len();
                level.sets[1 << bottom] = words;
                level.used.push(1 << bottom);
            }
        }
        level.used.sort_unstable();
        if n == 0 {
            // No cards: already one stack or fewer, as the analysis has it.
            level.sets[0].push(0);
            level.used.push(0);
            level.boards = 1;
        }
        let last = n.saturating_sub(1);
        let keep = keep.min(last);
        let lowest = lowest.min(keep);
        let mut counts = Vec::with_capacity(last + 1 - lowest);
        let mut at_depth = Vec::new();
        let mut below: Option<StateSet<u128>> = None;
        let mut splits = SplitCache::new(n);
        let mut making = Making::new(n);
        let mut spare_sets = Vec::new();
        let mut at = last;
        loop {
            // Boards are listed only where they are kept.
            if next && (at == keep || at == keep + 1) {
                let mut keys: Vec<u128> = level
                    .used
                    .iter()
                    .flat_map(|&b| level.sets[b as usize].iter().map(move |&w| (b, w)))
                    .map(|(b, w)| self.board_key(b, w))
                    .collect();
                keys.sort_unstable();
                keys.dedup();
                debug_assert_eq!(keys.len(), level.boards);
                if at == keep {
                    at_depth = keys;
                } else {
                    let set = below.get_or_insert_with(StateSet::default);
                    set.reserve(keys.len());
                    set.extend(keys);
                }
            }
            counts.push(level.boards as u64);
            done(level.boards);
            if at == lowest {
                break;
            }
            let fixed = below.as_ref().map_or(0, |b| b.capacity() * 24);
            // The last depth needs its boards' count only, so only the tops
            // of its words are kept.
            let only_tops = at - 1 == lowest && !(next && lowest == keep);
            // The deep depths meet many stacks of large sets, the shallow
            // ones few new ones.
            let ask_first = at + 4 > n;
            // The lists of the depth before, all emptied, hold the next.
            making.begin(only_tops, std::mem::take(&mut spare_sets));
            let made = self.split_level(
                &mut level,
                &mut making,
                only_tops,
                ask_first,
                fixed,
                &mut splits,
                limits,
            )?;
            spare_sets = std::mem::replace(&mut level, made).sets;
            at -= 1;
            if only_tops {
                counts.push(level.boards as u64);
                done(level.boards);
                break;
            }
        }
        // Every list is empty now but those of the last depth's words.
        recycle_lists(std::mem::take(&mut making.raw), &[]);
        recycle_lists(spare_sets, &[]);
        recycle_lists(level.sets, &level.used);
        counts.reverse();
        Ok(Solvable {
            counts,
            lowest,
            depth: keep,
            at_depth,
            below,
        })
    }

    /// The groupings one move before those of `level` (freed as it goes),
    /// or with `only_tops` their boards' count only; `fixed` bytes are held
    /// besides.
    ///
    /// A predecessor's bottoms are its successor's and the card that
    /// becomes a bottom, so a set of bottoms hears only from the sets one
    /// card smaller, the last of them in numeric order being the one
    /// without its lowest card: it is finished when that one is done.
    #[allow(clippy::too_many_arguments)]
    fn split_level(
        &self,
        level: &mut Level,
        next: &mut Making,
        only_tops: bool,
        ask_first: bool,
        fixed: usize,
        splits: &mut SplitCache,
        limits: &Limits,
    ) -> Result<Level, SearchError> {
        let mut held = level.bytes();
        if ask_first {
            // Large sets are split once for all the stacks this depth asks.
            for &bottoms in &level.used {
                for &w in &level.sets[bottoms as usize] {
                    for bottom in bits(bottoms & !zero_nibbles(w ^ CARDS)) {
                        let group = (owned_by(w, bottom) & !bottoms | 1 << bottom) & self.all();
                        splits.ask(group, bottom, nibble(w, bottom));
                    }
                }
            }
            splits.split_asked(self);
        }
        let mut until_look = 0usize;
        for &bottoms in &level.used {
            next.finish_before(bottoms as u32);
            let words = std::mem::take(&mut level.sets[bottoms as usize]);
            if until_look == 0 {
                limits.check(fixed + held + next.bytes() + splits.bytes())?;
                until_look = LOOK_EVERY;
            }
            until_look = until_look
                .saturating_sub(self.split_words(bottoms, &words, only_tops, splits, next));
            held -= words.capacity() * 8;
            for new in bits(self.all() & !bottoms) {
                next.compact(bottoms | 1 << new);
            }
        }
        level.used.clear();
        Ok(next.result())
    }

    /// Adds to `next` the predecessors of `words`, whose bottoms are
    /// `bottoms`; returns how many were made.
    fn split_words(
        &self,
        bottoms: u16,
        words: &[Word],
        only_tops: bool,
        splits: &mut SplitCache,
        next: &mut Making,
    ) -> usize {
        // The nibbles each new set of bottoms keeps when only tops count.
        let keep: [Word; MAX_CELLS] = std::array::from_fn(|new| {
            if only_tops {
                ones(bottoms | 1 << new) * 0xf
            } else {
                !0
            }
        });
        // The sets of bottoms these words lead to, by the card that becomes
        // a bottom, held here while the words are split.
        let mut to: [Vec<Word>; MAX_CELLS] = std::array::from_fn(|_| Vec::new());
        let mut fresh = 0u16;
        for new in bits(self.all() & !bottoms) {
            to[new] = next.take(bottoms | 1 << new);
            if to[new].is_empty() {
                fresh |= 1 << new;
            }
        }
        let mut made = 0;
        let mut last: [(u16, usize, std::ops::Range<usize>); MAX_CELLS] =
            std::array::from_fn(|_| (0, 0, 0..0));
        for &w in words {
            // A one-card stack is its own top; the others are split.
            let alone = zero_nibbles(w ^ CARDS);
            for bottom in bits(bottoms & !alone) {
                let group = (owned_by(w, bottom) & !bottoms | 1 << bottom) & self.all();
                let top = nibble(w, bottom);
                if group.count_ones() == 2 {
                    // Two cards split one way: the top moved onto the
                    // bottom, which a stack of the two proves legal.
                    let flip = ((bottom ^ top) as u64) << (4 * top)
                        | ((top ^ bottom) as u64) << (4 * bottom);
                    to[top].push((w ^ flip) & keep[top]);
                    made += 1;
                    continue;
                }
                // Neighbouring words often share a stack.
                let (last_group, last_top, last_range) = &mut last[bottom];
                if *last_group != group || *last_top != top {
                    *last_range = splits.of(self, group, bottom, top);
                    (*last_group, *last_top) = (group, top);
                }
                let range = last_range.clone();
                made += range.len();
                for (&flip, &new) in splits.flips[range.clone()].iter().zip(&splits.news[range]) {
                    to[new as usize].push((w ^ flip) & keep[new as usize]);
                }
            }
        }
        for new in bits(self.all() & !bottoms) {
            next.put(
                bottoms | 1 << new,
                std::mem::take(&mut to[new]),
                fresh >> new & 1 == 1,
            );
        }
        made
    }

    /// Adds to `out` the parts of `set` that can become one stack while the
    /// rest of it can too (each split once per part that moved), from the
    /// sets that can merge when they are fewer than the subsets.
    fn halves_of(&self, set: u16, out: &mut Vec<u16>) {
        let whole = |part: u16| {
            part != set
                && self.ends[part as usize].0 != 0
                && self.ends[(set & !part) as usize].1 != 0
        };
        if self.parts.len() < 1 << set.count_ones() {
            out.extend(
                self.parts
                    .iter()
                    .copied()
                    .filter(|&p| p & !set == 0 && whole(p)),
            );
        } else {
            let mut sub = set;
            while sub != 0 {
                if whole(sub) {
                    out.push(sub);
                }
                sub = (sub - 1) & set;
            }
        }
    }

    /// The ways the `stacks` (bottom, top) of the cards `set` can have been
    /// made by their last move, filled into their slots in `out`: each as
    /// the bits it flips in a word and the card that becomes a bottom. The
    /// cards that moved get that card as their bottom, it gets the moved
    /// top, and the bottom they landed on gets the top under them.
    fn splits_of(&self, set: u16, stacks: &[(u8, u8)], out: &mut SplitCache) {
        let k = set.count_ones() as usize;
        let rank = |card: usize| (set & ((1u16 << card) - 1)).count_ones() as usize;
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
                    let slot = (rank(bottom) * k + rank(top)) as u16;
                    for under in bits(near) {
                        if self.bottoms(stayed, under) >> bottom & 1 == 0 {
                            continue;
                        }
                        for new in bits(from) {
                            let owners = ones(moved & !(1 << new)) * (bottom ^ new) as u64;
                            let flip = owners
                                | ((bottom ^ top) as u64) << (4 * new)
                                | ((top ^ under) as u64) << (4 * bottom);
                            found.push((slot, new as u8, flip));
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
        let base = out.base[set as usize] as usize;
        for &(bottom, top) in stacks {
            // Asked-for stacks with no split (none: every stack met has one)
            // still get an empty range.
            out.slots[base + rank(bottom as usize) * k + rank(top as usize)] = (0, 0);
        }
        found.sort_unstable_by_key(|f| f.0);
        for run in found.chunk_by(|a, b| a.0 == b.0) {
            out.slots[base + run[0].0 as usize] = (out.flips.len() as u32, run.len() as u32);
            out.flips.extend(run.iter().map(|f| f.2));
            out.news.extend(run.iter().map(|f| f.1));
        }
        out.found = found;
    }

    /// The packed board of a grouping (bottoms' cells and their tops).
    /// Cards are numbered in cell order, so the bottoms' tops in card order
    /// are the tops in cell order.
    #[inline]
    fn board_key(&self, bottoms: u16, w: Word) -> u128 {
        let (mut occ, mut tops, mut shift) = (0u16, 0u128, 16);
        for bottom in bits(bottoms) {
            occ |= 1 << self.cell[bottom];
            tops |= (nibble(w, bottom) as u128) << shift;
            shift += 4;
        }
        occ as u128 | tops
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

/// Each card's number in its nibble.
const CARDS: u64 = 0xfedc_ba98_7654_3210;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal::deal;
    use crate::engine::notation::parse_state;

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
        WordSet::default().dedup(&mut words);
        assert_eq!(words, expected);
    }

    #[test]
    fn nibble_masks_round_trip() {
        for set in [0u16, 1, 0x8000, 0xffff, 0x1234, 0xa5a5, 0x0f0f] {
            // Nibble 1 off the set, 0 on it: the zero nibbles are the set.
            assert_eq!(zero_nibbles(ones(!set)), set);
            assert_eq!(zero_nibbles(ones(!set) * 0xf), set);
            let w = ones(set) * 7;
            assert!(bits(set).all(|c| nibble(w, c) == 7));
            assert_eq!(owned_by(w, 7), set);
        }
    }

    #[test]
    fn walks_after_walks_reuse_their_lists_and_agree() {
        // Deal 1's 37 461 solvable states at depth 8 come from the slow
        // search (the perft tests); the E5 puzzle has 2 of them.
        let limits = Limits::default();
        let solvable = |state: &State| {
            let merges = Merges::new(state, &limits).unwrap();
            let depth = merges.cards() / 2;
            let walk = merges.walk_back(depth, depth, false, &limits, |_| ());
            walk.unwrap().count(depth).unwrap()
        };
        let e5 = parse_state("9D3H2HKC6S4DJC7SAC3C9SQC4H7DADKH", None).unwrap();
        let four = parse_state("AS2S3S4S------------------------", None).unwrap();
        assert_eq!(solvable(&deal(1)), 37461);
        // Its three sets of lists: the first depth's, the next depth's
        // being made, and the one it is made into.
        let kept = SPARE_LISTS.with_borrow(|spare| spare.len());
        assert_eq!(kept, 3, "the walk left its lists");
        assert_eq!(solvable(&four), 36);
        assert_eq!(solvable(&e5), 2);
        assert_eq!(solvable(&deal(1)), 37461);
        assert_eq!(SPARE_LISTS.with_borrow(|spare| spare.len()), kept);
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
