//! The table of merges: for every set of a puzzle's cards, the stacks it
//! can become, filled size by size from pairs of smaller sets or from
//! splits, whichever costs less.

use super::CHECK_EVERY;
use crate::engine::board::{Layout, bits, connected};
use crate::engine::limits::{Limits, SearchError};
use crate::engine::state::{MAX_CELLS, Move, State};

/// For every set of a puzzle's cards, the stacks it can become: which card
/// ends on top, and on which card's cell (the card at the bottom, which never
/// moved). Cards are numbered as in [`Layout`]: by cell, occupied cells only.
pub struct Merges {
    /// Cards in the puzzle.
    pub(super) n: usize,
    /// Card → the cards it flocks with.
    pub(super) flock: [u16; MAX_CELLS],
    /// Card → the cards whose cells share its row or column.
    pub(super) line: [u16; MAX_CELLS],
    /// Card → its cell.
    pub(super) cell: [u8; MAX_CELLS],
    /// Set of cards → for each top, the set of possible bottoms (empty when
    /// that card cannot end on top). All zero for a set that cannot become
    /// one stack.
    pub(super) stacks: Vec<[u16; MAX_CELLS]>,
    /// The layout of the puzzle, for the boards of the tension.
    pub(super) layout: Layout,
    /// Top → the sets that can become one stack with it on top.
    with_top: Vec<Vec<u16>>,
    /// Set of cards → the cards it can have on top, and at the bottom, as
    /// one stack: a small table that rules out most splits at once.
    pub(super) ends: Vec<(u16, u16)>,
    /// The sets that can become one stack.
    pub(super) parts: Vec<u16>,
    /// A bit per set of cards, set when it can become one stack: 8 KB, so
    /// the walk back's search for a set's halves reads it from the L1 cache.
    pub(super) whole: Vec<u64>,
    /// Set of cards → the cards that flock with one of them.
    flock_of: Vec<u16>,
    /// Set of cards → the cards whose cells share a line with one of theirs.
    line_of: Vec<u16>,
}

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
        // Only the one-card sets are filled here: a pass over every set
        // would touch the whole table (2 MB for 16 cards) for 16 entries.
        let mut stacks = vec![[0u16; MAX_CELLS]; 1 << n];
        for c in 0..n {
            stacks[1 << c][c] = 1 << c;
        }
        // The cards any of a set's cards flocks with, or shares a line with.
        // The sets with card c as their highest are those below it with c
        // added: each run of them a copy of the run before, or-ed, which
        // the compiler makes wide.
        let mut flock_of = vec![0u16; 1 << n];
        let mut line_of = vec![0u16; 1 << n];
        for c in 0..n {
            for (of, near) in [(&mut flock_of, flock[c]), (&mut line_of, line[c])] {
                let (below, with) = of.split_at_mut(1 << c);
                for (to, &from) in with[..1 << c].iter_mut().zip(below.iter()) {
                    *to = from | near;
                }
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
            ends: Vec::new(),
            parts: Vec::new(),
            whole: Vec::new(),
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
    pub(super) fn bytes_for(n: usize) -> usize {
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

    /// How many sets of cards can become one stack (one-card sets
    /// included): a cheap measure of how large the state space is.
    pub fn mergeable_sets(&self) -> usize {
        self.parts.len()
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
        // Card → for each card, all ones when the two flock: what a part
        // reads its cards under each top from (see [`Merges::part`]).
        let lanes: FlockLanes = self
            .flock
            .map(|near| std::array::from_fn(|c| 0u16.wrapping_sub(near >> c & 1)));
        let mut by_size: Vec<Vec<Part>> = vec![Vec::new(); n + 1];
        if n > 0 {
            by_size[1] = (0..n).map(|c| self.part(1 << c, &lanes)).collect();
        }
        let mut made = Made::new(n);
        let mut slices: Vec<Vec<PartChunk>> = vec![Vec::new(); n + 1];
        if n > 0 {
            slices[1] = PartChunk::slice(&by_size[1]);
        }
        // Kept up to date size by size: the fill from splits asks it of
        // every subset, where the table itself would be a miss in 2 MB.
        self.whole = vec![0; (1usize << n).div_ceil(64)];
        for part in &by_size[1] {
            self.mark_whole(part.set);
        }
        for size in 2..=n {
            limits.check_cancel()?;
            let split_cost = binomial(n, size) << (size - 1);
            let pair_cost: usize = (1..=size / 2)
                .map(|k| by_size[k].len() * by_size[size - k].len())
                .sum();
            let sets: Vec<u16> = if from_pairs(split_cost, pair_cost) {
                self.fill_from_pairs(size, &by_size, &slices, &mut made, limits)?;
                made.sets()
            } else {
                self.fill_from_splits(size, limits)?;
                sets_of_size(n, size).collect()
            };
            by_size[size] = sets
                .into_iter()
                .filter(|&set| self.can_merge(set))
                .map(|set| self.part(set, &lanes))
                .collect();
            slices[size] = PartChunk::slice(&by_size[size]);
            for part in &by_size[size] {
                self.mark_whole(part.set);
            }
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
    /// sets that can merge and whose sizes add up; the sets met go to `made`.
    fn fill_from_pairs(
        &mut self,
        size: usize,
        by_size: &[Vec<Part>],
        slices: &[Vec<PartChunk>],
        made: &mut Made,
        limits: &Limits,
    ) -> Result<(), SearchError> {
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
                    // Read by `a`'s few tops and bottoms, not by the many
                    // cards near them.
                    let near =
                        |cards: u16, has: &[u64; MAX_CELLS]| bits(cards).fold(0, |m, c| m | has[c]);
                    if fits != 0 {
                        fits &= near(a.tops, &chunk.flocked);
                    }
                    if fits != 0 {
                        fits &= near(a.bottoms, &chunk.lined);
                    }
                    for at in bits64(fits) {
                        let b = &large[64 * j + at];
                        let out = &mut self.stacks[(a.set | b.set) as usize];
                        join_parts(a, b, out);
                        made.add(a.set | b.set);
                    }
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
                if b != 0 && self.is_whole(a) && self.is_whole(b) {
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

    /// Whether the set of cards `set` can become one stack, from the
    /// bitmap (during the fill, among the sizes filled so far).
    #[inline]
    pub(super) fn is_whole(&self, set: u16) -> bool {
        in_bitmap(&self.whole, set)
    }

    /// Notes in the bitmap that `set` can become one stack.
    fn mark_whole(&mut self, set: u16) {
        self.whole[set as usize >> 6] |= 1 << (set & 63);
    }

    /// A set that can merge, with what a move onto or off it needs; `lanes`
    /// are the cards' flocks as lane masks.
    fn part(&self, set: u16, lanes: &FlockLanes) -> Part {
        let entry = &self.stacks[set as usize];
        let (mut tops, mut bottoms) = (0u16, 0u16);
        let (mut under, mut lined) = ([0u16; MAX_CELLS], [0u16; MAX_CELLS]);
        // Every card, without a branch: a card that cannot end on top has
        // no bottoms, and adds nothing (`line_of` has none for no cards).
        for (t, &below) in entry.iter().enumerate() {
            tops |= ((below != 0) as u16) << t;
            bottoms |= below;
            lined[t] = self.line_of[below as usize];
            // Flocking is symmetric: the cards t flocks with are those that
            // may move onto it. Every card at once, a lane each (a loop
            // over those cards took a third of the fill).
            for (under, &lane) in under.iter_mut().zip(&lanes[t]) {
                *under |= below & lane;
            }
        }
        debug_assert_eq!(tops & !set, 0);
        Part {
            set,
            tops,
            bottoms,
            near_tops: self.flock_of[tops as usize],
            near_bottoms: self.line_of[bottoms as usize],
            under,
            lined,
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

    /// The set of all the puzzle's cards.
    pub fn all_cards(&self) -> u16 {
        self.all()
    }

    /// [`Merges::all_cards`], for the other parts of the module.
    pub(super) fn all(&self) -> u16 {
        if self.n == 0 {
            0
        } else {
            u16::MAX >> (16 - self.n)
        }
    }

    /// Whether the puzzle can become one stack (one stack or none is one).
    pub fn can_be_one_stack(&self) -> bool {
        let all = self.all();
        self.n <= 1 || bits(all).any(|top| self.bottoms(all, top) != 0)
    }

    /// Moves that make the puzzle one stack, read from the table, or `None`
    /// when it cannot become one (an empty path for one stack or none).
    pub fn path_to_one_stack(&self) -> Option<Vec<Move>> {
        let all = self.all();
        if self.n <= 1 {
            return Some(Vec::new());
        }
        let top = bits(all).find(|&top| self.bottoms(all, top) != 0)?;
        let bottom = self.bottoms(all, top).trailing_zeros() as usize;
        let mut path = Vec::with_capacity(self.n - 1);
        self.build(all, bottom, top, &mut path)?;
        Some(path)
    }

    /// Appends to `path` moves that make the cards `set` one stack on
    /// `bottom` with `top` on top, which the table says they can become:
    /// the stack holding `top` that moved last and the one it landed on are
    /// built apart (moves on other stacks commute), then joined.
    fn build(&self, set: u16, bottom: usize, top: usize, path: &mut Vec<Move>) -> Option<()> {
        if set == 1 << bottom {
            return Some(());
        }
        let rest = set & !(1 << bottom | 1 << top);
        let mut sub = rest;
        loop {
            let moved = sub | 1 << top;
            let stayed = set & !moved;
            let from = self.bottoms(moved, top) & self.line[bottom];
            let under = || {
                bits(stayed & self.flock[top]).find(|&u| self.bottoms(stayed, u) >> bottom & 1 == 1)
            };
            if let Some(under) = (from != 0).then(under).flatten() {
                let new = from.trailing_zeros() as usize;
                self.build(stayed, bottom, under, path)?;
                self.build(moved, new, top, path)?;
                path.push(Move {
                    from: self.cell[new],
                    to: self.cell[bottom],
                });
                return Some(());
            }
            if sub == 0 {
                // The table has no such stack.
                return None;
            }
            sub = (sub - 1) & rest;
        }
    }
}

/// Card → for each card, all ones when the two flock (a lane mask).
type FlockLanes = [[u16; MAX_CELLS]; MAX_CELLS];

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
    /// Card → the bottoms this set can have under a top that flocks with
    /// it: where a stack with that card on top may land on this one.
    under: [u16; MAX_CELLS],
    /// Card → the cards in line with a bottom this set can have under it
    /// on top (none when it cannot end on top): where this stack may land.
    lined: [u16; MAX_CELLS],
}

/// Adds to `out` the stacks made by moving either part's stack onto the
/// other's ([`Merges::join`] both ways, for two parts): for each card on
/// top, the bottoms of the stack landed on under a top that flocks with it,
/// in line with a bottom of the stack moved. Card by card at once, where a
/// loop over the tops and the tops under them took most of the fill.
#[inline]
fn join_parts(a: &Part, b: &Part, out: &mut [u16; MAX_CELLS]) {
    for (t, out) in out.iter_mut().enumerate() {
        *out |= a.lined[t] & b.under[t] | b.lined[t] & a.under[t];
    }
}

/// 64 parts of one size, bit-sliced: which hold each card, have a top
/// that flocks with it, have a bottom in line with it.
#[derive(Clone)]
pub(super) struct PartChunk {
    /// The parts in this chunk.
    parts: u64,
    holding: [u64; MAX_CELLS],
    flocked: [u64; MAX_CELLS],
    lined: [u64; MAX_CELLS],
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
                    flocked: [0; MAX_CELLS],
                    lined: [0; MAX_CELLS],
                };
                for (i, part) in few.iter().enumerate() {
                    for (has, cards) in [
                        (&mut chunk.holding, part.set),
                        (&mut chunk.flocked, part.near_tops),
                        (&mut chunk.lined, part.near_bottoms),
                    ] {
                        // Every card at once, a lane each, not a loop
                        // over the cards that branches at its end.
                        for (c, has) in has.iter_mut().enumerate() {
                            *has |= (cards as u64 >> c & 1) << i;
                        }
                    }
                }
                chunk
            })
            .collect()
    }

    /// The parts before index `k` of the whole list, among chunk `j`'s.
    pub(super) fn upto(k: usize, j: usize) -> u64 {
        match k.saturating_sub(64 * j) {
            0 => 0,
            m if m >= 64 => !0,
            m => (1u64 << m) - 1,
        }
    }
}

/// The sets one size's pairs of parts made, each once, in numeric order: a
/// set is made by many pairs, and a bitmap drops the repeats for less than
/// sorting them out.
struct Made {
    /// A bit per set of cards.
    bits: Vec<u64>,
    /// The words of `bits` with a bit set.
    words: Vec<u16>,
}

impl Made {
    /// None made yet, for sets of `n` cards.
    fn new(n: usize) -> Made {
        Made {
            bits: vec![0; (1usize << n).div_ceil(64)],
            words: Vec::new(),
        }
    }

    /// Notes that `set` was made.
    #[inline]
    fn add(&mut self, set: u16) {
        let word = &mut self.bits[set as usize >> 6];
        if *word == 0 {
            self.words.push(set >> 6);
        }
        *word |= 1 << (set & 63);
    }

    /// The sets made since the last call, in numeric order; forgets them.
    fn sets(&mut self) -> Vec<u16> {
        self.words.sort_unstable();
        let mut sets = Vec::new();
        for &at in &self.words {
            let word = std::mem::take(&mut self.bits[at as usize]);
            sets.extend(bits64(word).map(|bit| at << 6 | bit as u16));
        }
        self.words.clear();
        sets
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

/// Whether `set`'s bit is on in `bitmap`, a bit per set of cards.
#[inline]
pub(super) fn in_bitmap(bitmap: &[u64], set: u16) -> bool {
    bitmap[set as usize >> 6] >> (set & 63) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal::deal;
    use crate::engine::notation::parse_state;

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
            // The bitmap the fill keeps as it goes names the same sets.
            for m in [&by_pairs, &by_splits, &chosen] {
                let all = m.all();
                let wrong =
                    (0..=all).find(|&set| m.is_whole(set) != (set != 0 && m.can_merge(set)));
                assert_eq!(wrong, None);
            }
        }
    }
}
