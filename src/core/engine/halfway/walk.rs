//! The walk back from one stack: the solvable states at each depth, met
//! by splitting stacks one move at a time, and the midgame tension read
//! from them.

use super::level::{LOOK_EVERY, Level, NextLevel, Sink, WalkLists};
use super::merges::Merges;
use super::shared::{Depth, Gathered, Worker};
use super::split::{SplitCache, Splits};
use super::wins::{Grouping, Known, NONE_KNOWN, least, move_of, splittable, with};
use super::{CHECK_EVERY, Spread, Word, nibble, ones};
use crate::engine::board::{Board, KeyHasher, MoveList, bits};
use crate::engine::limits::{Limits, SearchError};
use crate::engine::state::MAX_CELLS;
use crate::parallel::MAX_THREADS;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;

/// A set of packed boards.
pub(super) type StateSet<K> = HashSet<K, BuildHasherDefault<KeyHasher>>;

/// What the walk back from one stack found: the solvable states at the
/// depths it counted and, when asked for, the states themselves at one
/// depth and the next, as packed boards (see [`crate::engine::board`]).
pub struct Solvable {
    /// Solvable states at each depth from `lowest` to the last, shallowest
    /// first (`None` where the walk was not asked to count them).
    counts: Vec<Option<u64>>,
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
    /// The count of a walk that kept no boards and counted one depth: the
    /// `solvable` states at `lowest`.
    pub(crate) fn counted(solvable: u64, lowest: usize) -> Solvable {
        Solvable {
            counts: vec![Some(solvable)],
            lowest,
            depth: lowest,
            at_depth: Vec::new(),
            below: None,
        }
    }

    /// Solvable states at depth `d`, if the walk reached it and counted them.
    pub fn count(&self, d: usize) -> Option<u64> {
        d.checked_sub(self.lowest)
            .and_then(|i| self.counts.get(i))
            .copied()
            .flatten()
    }
}

/// A depth the walk back has finished.
pub(super) struct Finished {
    /// Moves made.
    pub(super) depth: usize,
    /// Its solvable states, when they were counted.
    pub(super) boards: Option<usize>,
    /// Its boards, sorted, when they are listed.
    pub(super) keys: Option<Vec<u128>>,
}

/// What a walk back does with each depth: whether it lists that depth's
/// boards, and what it makes of each depth's count and listed boards.
pub(super) trait Visit {
    /// Whether the boards at `depth` are listed.
    fn lists(&self, depth: usize) -> bool;
    /// Whether the boards at `depth` are counted: a depth's distinct boards
    /// cost a second pass over its groupings (about a tenth of deal 0's
    /// walk), which a walk that reads one depth need not pay at the others.
    /// A depth listed is counted whatever this says ([`Visit::counted`]).
    fn counts(&self, depth: usize) -> bool;
    /// Whether the boards at `depth` are counted: those asked for, and
    /// those listed, whose count is their list's length.
    fn counted(&self, depth: usize) -> bool {
        self.counts(depth) || self.lists(depth)
    }
    /// Hears a finished depth.
    fn depth(&mut self, merges: &Merges, at: Finished, limits: &Limits) -> Result<(), SearchError>;
    /// The boards the visitor holds between depths, if any.
    fn held(&self) -> Option<&StateSet<u128>>;
    /// Bytes the visitor holds.
    fn bytes(&self) -> usize {
        self.held().map_or(0, |b| b.capacity() * 24)
    }
}

/// The visitor of [`Merges::walk_back`]: keeps the boards of one depth and
/// the next, and tells `done` each depth's count.
struct KeepTwo<F> {
    keep: usize,
    next: bool,
    /// Count the depths deeper than `keep` too.
    deeper: bool,
    at_depth: Vec<u128>,
    below: Option<StateSet<u128>>,
    done: F,
}

impl<F: FnMut(Option<usize>)> Visit for KeepTwo<F> {
    fn lists(&self, depth: usize) -> bool {
        self.next && (depth == self.keep || depth == self.keep + 1)
    }

    fn counts(&self, depth: usize) -> bool {
        self.deeper || depth <= self.keep
    }

    fn depth(&mut self, _: &Merges, at: Finished, _: &Limits) -> Result<(), SearchError> {
        if let Some(keys) = at.keys {
            if at.depth == self.keep {
                self.at_depth = keys;
            } else {
                let set = self.below.get_or_insert_with(StateSet::default);
                set.reserve(keys.len());
                set.extend(keys);
            }
        }
        (self.done)(at.boards);
        Ok(())
    }

    fn held(&self) -> Option<&StateSet<u128>> {
        self.below.as_ref()
    }
}

impl Merges {
    /// Walks back from one stack to depth `lowest`, counting the solvable
    /// states at every depth from `lowest` to `keep` (`keep` ≥ `lowest`),
    /// and at the deeper ones too when `deeper` is asked for, and, when
    /// `next` is asked for (the tension needs them), keeping those at
    /// `keep` and `keep + 1` (which is then counted too). `done` hears the
    /// solvable states of each depth as it is finished, `None` where they
    /// are not counted. The walk's lists come from `lists` and go back to
    /// it. Each depth is split by `threads` threads.
    #[allow(clippy::too_many_arguments)]
    pub fn walk_back(
        &self,
        threads: usize,
        lowest: usize,
        keep: usize,
        next: bool,
        deeper: bool,
        lists: &mut WalkLists,
        limits: &Limits,
        done: impl FnMut(Option<usize>),
    ) -> Result<Solvable, SearchError> {
        let keep = keep.min(self.n.saturating_sub(1));
        let lowest = lowest.min(keep);
        let mut visit = KeepTwo {
            keep,
            next,
            deeper,
            at_depth: Vec::new(),
            below: None,
            done,
        };
        let (counts, _) = self.walk(threads, lowest, lists, limits, &mut visit)?;
        Ok(Solvable {
            counts,
            lowest,
            depth: keep,
            at_depth: visit.at_depth,
            below: visit.below,
        })
    }

    /// Walks back from one stack to depth `lowest`, showing `visit` each
    /// depth, deepest first; returns the solvable states at each depth from
    /// `lowest` on, shallowest first (where `visit` counts them), and the
    /// most bytes the walk and the visitor held at once (an estimate, as
    /// the cap sees it). Each depth is split by `threads` threads.
    pub(super) fn walk(
        &self,
        threads: usize,
        lowest: usize,
        lists: &mut WalkLists,
        limits: &Limits,
        visit: &mut impl Visit,
    ) -> Result<(Vec<Option<u64>>, usize), SearchError> {
        let n = self.n;
        let mut level = Level::empty(lists.take(n));
        for bottom in 0..n {
            let words = self.one_stack(bottom);
            if !words.is_empty() {
                level.boards += words.len();
                level.sets[1 << bottom] = words;
                level.used.push(1 << bottom);
            }
        }
        level.used.sort_unstable();
        if n == 0 {
            // No cards: already one stack or fewer, as the analysis has it.
            level.sets[0].push(Grouping::new(0));
            level.used.push(0);
            level.boards = 1;
        }
        let last = n.saturating_sub(1);
        let lowest = lowest.min(last);
        let mut counts = Vec::with_capacity(last + 1 - lowest);
        let mut splits = SplitCache::new(n);
        let mut next_level = NextLevel::new(n, lists);
        // With threads, each splits its share of every depth.
        let threads = threads.clamp(1, MAX_THREADS);
        let mut workers: Vec<Worker> = if threads > 1 {
            (0..threads).map(|_| Worker::new(n)).collect()
        } else {
            Vec::new()
        };
        let gathered = (threads > 1).then(|| Gathered::new(threads, n));
        let mut spare_sets = Vec::new();
        let mut at = last;
        let mut peak = level.bytes();
        // The one-stack groupings are their boards, counted as they are made.
        let mut counted = visit.counted(last);
        loop {
            // Boards are listed only where they are kept.
            let keys = visit.lists(at).then(|| self.level_keys(&level));
            let boards = counted.then_some(level.boards);
            counts.push(boards.map(|b| b as u64));
            let finished = Finished {
                depth: at,
                boards,
                keys,
            };
            visit.depth(self, finished, limits)?;
            if at == lowest {
                break;
            }
            let fixed = visit.bytes();
            // The last depth needs its boards' count only, so only the tops
            // of its words are kept.
            let only_tops = at - 1 == lowest && !visit.lists(lowest);
            // The last depth's words are kept for their count alone.
            counted = visit.counted(at - 1) || only_tops;
            // The deep depths meet many stacks of large sets, the shallow
            // ones few new ones.
            let ask_first = at + 4 > n;
            let before = level.bytes();
            // The lists of the depth before, all emptied, hold the next.
            let spare = std::mem::take(&mut spare_sets);
            let made = if workers.is_empty() {
                next_level.begin(only_tops, counted, spare, lists);
                self.split_level(
                    &mut level,
                    &mut next_level,
                    only_tops,
                    ask_first,
                    fixed,
                    &mut splits,
                    limits,
                )?
            } else {
                let depth = Depth {
                    only_tops,
                    counted,
                    ask_first,
                    fixed,
                };
                let gathered = gathered.as_ref().expect("made with the workers");
                self.split_level_shared(&mut level, spare, &mut workers, gathered, depth, limits)?
            };
            let caches: usize = workers.iter().map(|w| w.splits.bytes()).sum();
            // At most: this depth whole beside the next one whole.
            peak = peak.max(fixed + before + made.bytes() + splits.bytes() + caches);
            spare_sets = std::mem::replace(&mut level, made).sets;
            // With only tops kept, `at` is now `lowest`, where the loop ends.
            at -= 1;
        }
        // Every list is empty now but those of the last depth's words.
        lists.keep(std::mem::take(&mut next_level.raw), &[]);
        lists.keep(spare_sets, &[]);
        lists.keep(level.sets, &level.used);
        counts.reverse();
        Ok((counts, peak.max(visit.bytes())))
    }

    /// The groupings of every card in one stack on `bottom`, one per top
    /// it can have: where the walk back starts.
    pub(super) fn one_stack(&self, bottom: usize) -> Vec<Grouping> {
        let all = self.all();
        bits(all)
            .filter(|&top| self.bottoms(all, top) >> bottom & 1 == 1)
            .map(|top| (ones(all & !(1 << bottom)) * bottom as u64) | (top as u64) << (4 * bottom))
            .map(Grouping::new)
            .collect()
    }

    /// The boards of a depth's groupings, sorted.
    fn level_keys(&self, level: &Level) -> Vec<u128> {
        let mut keys: Vec<u128> = level
            .used
            .iter()
            .flat_map(|&b| level.sets[b as usize].iter().map(move |&g| (b, g.word)))
            .map(|(b, w)| self.board_key(b, w))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        // A listed depth is counted.
        debug_assert_eq!(keys.len(), level.boards);
        keys
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
        next: &mut NextLevel,
        only_tops: bool,
        ask_first: bool,
        fixed: usize,
        splits: &mut SplitCache,
        limits: &Limits,
    ) -> Result<Level, SearchError> {
        let mut held = level.bytes();
        if ask_first {
            for &bottoms in &level.used {
                self.ask_splits(bottoms, &level.sets[bottoms as usize], splits);
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
            held -= words.capacity() * size_of::<Grouping>();
            for new in bits(self.all() & !bottoms) {
                next.compact(bottoms | 1 << new);
            }
        }
        level.used.clear();
        Ok(next.result())
    }

    /// Asks `splits` for the stacks of `words`, whose bottoms are
    /// `bottoms`: large sets are then split once for all the stacks a
    /// depth asks.
    pub(super) fn ask_splits(&self, bottoms: u16, words: &[Grouping], splits: &mut SplitCache) {
        for &Grouping { word: w, .. } in words {
            let spread = Spread::of(w);
            for bottom in bits(bottoms & !spread.own()) {
                let group = self.stack_cards(spread, bottoms, bottom);
                splits.ask(self, group, bottom, nibble(w, bottom));
            }
        }
    }

    /// Adds to `next` the predecessors of `words`, whose bottoms are
    /// `bottoms`, each split only where the move undoing it is less than
    /// the moves known to win that it leaves alone (see `wins`), or with
    /// `only_tops` their tops only; returns how many were made.
    pub(super) fn split_words(
        &self,
        bottoms: u16,
        words: &[Grouping],
        only_tops: bool,
        splits: &mut SplitCache,
        next: &mut impl Sink,
    ) -> usize {
        // A copy for each: the last depth's knows no moves and keeps tops.
        if only_tops {
            self.split_words_as::<true>(bottoms, words, splits, next)
        } else {
            self.split_words_as::<false>(bottoms, words, splits, next)
        }
    }

    /// [`Merges::split_words`], keeping only tops when `TOPS`.
    #[inline(always)]
    fn split_words_as<const TOPS: bool>(
        &self,
        bottoms: u16,
        words: &[Grouping],
        splits: &mut SplitCache,
        next: &mut impl Sink,
    ) -> usize {
        // The nibbles each new set of bottoms keeps when only tops count.
        let keep: [Word; MAX_CELLS] = std::array::from_fn(|new| {
            if TOPS {
                ones(bottoms | 1 << new) * 0xf
            } else {
                !0
            }
        });
        // The sets of bottoms these words lead to, by the card that becomes
        // a bottom, held here while the words are split.
        let mut to: [Vec<Grouping>; MAX_CELLS] = std::array::from_fn(|_| Vec::new());
        let mut fresh = 0u16;
        for new in bits(self.all() & !bottoms) {
            to[new] = next.take(bottoms | 1 << new);
            if to[new].is_empty() {
                fresh |= 1 << new;
            }
        }
        let mut made = 0;
        let mut last = [(0u16, 0usize, Splits::EMPTY); MAX_CELLS];
        for &Grouping { word: w, wins } in words {
            // A one-card stack is its own top; the others are split, but
            // for those the least known winning move rules out.
            let spread = Spread::of(w);
            let known = Known::of(wins);
            for bottom in bits(bottoms & !spread.own() & splittable(wins)) {
                let group = self.stack_cards(spread, bottoms, bottom);
                let top = nibble(w, bottom);
                // The known winning moves this stack's splits leave alone:
                // a split undone by a greater move is made elsewhere.
                let kept = known.leaving(bottom);
                let bar = least(kept);
                // The last depth's boards are only counted.
                let left = if TOPS { NONE_KNOWN } else { kept };
                // Pushes the split `flip` whose new bottom is `new`, when
                // the move undoing it is below the bar (never equal: the
                // undoing lands on this stack, the bar's move leaves it
                // alone).
                let mut push = |flip: Word, new: usize| {
                    let undo = move_of(new, bottom);
                    if undo > bar {
                        return false;
                    }
                    to[new].push(Grouping {
                        word: (w ^ flip) & keep[new],
                        wins: with(left, undo),
                    });
                    made += 1;
                    true
                };
                if group.count_ones() == 2 {
                    // Two cards split one way (see `two_card_flip`).
                    push(two_card_flip(bottom, top), top);
                    continue;
                }
                // No split of this stack is undone below the bar: its new
                // bottom would be one of its other cards, in a line with
                // its bottom (the moved stack's cell shares a row or a
                // column with it). Only a stack the bar's move lands on or
                // above can be so; most are below. A stack of two or more
                // cards has one in line with its bottom: no 16 here.
                let lowest_new = |group: u16| {
                    (group & self.line[bottom] & !(1 << bottom)).trailing_zeros() as usize
                };
                if bottom >= (bar >> 4) as usize && move_of(lowest_new(group), bottom) > bar {
                    continue;
                }
                // Neighbouring words often share a stack. Tried without
                // gain (issue 27): a direct-mapped table of the stacks met
                // lately (it cut the cache lookups 284 M → 29 M on the
                // flocking puzzle, same time), a pass that looks up a set
                // of bottoms' new stacks together so the misses overlap
                // (7% slower), the next word's slots prefetched (12%
                // slower), each set's words sorted (7% slower) and the
                // slots four times smaller (the same). What paid was
                // looking up fewer stacks: the known winning moves halved
                // the predecessors for no time until they skipped whole
                // stacks before their lookup.
                let (last_group, last_top, last_splits) = &mut last[bottom];
                // Read as found, not back from `last`, whose store it would
                // wait for.
                let found = if *last_group == group && *last_top == top {
                    *last_splits
                } else {
                    let found = splits.of(self, group, bottom, top);
                    (*last_group, *last_top, *last_splits) = (group, top, found);
                    found
                };
                // Masked to a card, so no bounds check is needed.
                if let Some((flip, new)) = found.one() {
                    // Most stacks looked up have one split.
                    push(flip, new & (MAX_CELLS - 1));
                } else {
                    let (flips, news) = splits.list(found);
                    for (&flip, &new) in flips.iter().zip(news) {
                        // A stack's splits come by their new bottom.
                        if !push(flip, new as usize & (MAX_CELLS - 1)) {
                            break;
                        }
                    }
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

    /// The cards of the stack on `bottom` in a grouping, spread, whose
    /// bottoms are `bottoms`.
    #[inline]
    fn stack_cards(&self, spread: Spread, bottoms: u16, bottom: usize) -> u16 {
        (spread.equal_to(bottom) & !bottoms | 1 << bottom) & self.all()
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
        self.tension_of(&solvable.at_depth, below, limits)
    }

    /// Mean of 1 − winning moves ÷ moves over the states `keys` (sorted, in
    /// the analysis' order, so that the sum is the same to the bit), a move
    /// winning when its child is in `below` (`None` when none has moves).
    pub(super) fn tension_of(
        &self,
        keys: &[u128],
        below: &StateSet<u128>,
        limits: &Limits,
    ) -> Result<Option<f64>, SearchError> {
        let mut list = MoveList::default();
        let (mut sum, mut counted) = (0.0, 0u64);
        for (i, &key) in keys.iter().enumerate() {
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

/// The flip that splits a stack of two cards: its top moved onto its
/// bottom, which a stack of the two proves legal.
#[inline]
fn two_card_flip(bottom: usize, top: usize) -> Word {
    ((bottom ^ top) as u64) << (4 * top) | ((top ^ bottom) as u64) << (4 * bottom)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal::deal;
    use crate::engine::notation::parse_state;
    use crate::engine::state::State;

    #[test]
    fn walks_after_walks_reuse_their_lists_and_agree() {
        // Deal 1's 37 461 solvable states at depth 8 come from the slow
        // search (the perft tests); the E5 puzzle has 2 of them.
        let limits = Limits::default();
        let solvable = |state: &State, lists: &mut WalkLists| {
            let merges = Merges::new(state, &limits).unwrap();
            let depth = merges.cards() / 2;
            let walk = merges.walk_back(1, depth, depth, false, false, lists, &limits, |_| ());
            walk.unwrap().count(depth).unwrap()
        };
        let e5 = parse_state("9D3H2HKC6S4DJC7SAC3C9SQC4H7DADKH", None).unwrap();
        let four = parse_state("AS2S3S4S------------------------", None).unwrap();
        let mut lists = WalkLists::default();
        assert_eq!(solvable(&deal(1), &mut lists), 37461);
        // Its three sets of lists: the first depth's, the next depth's
        // being made, and the one it is made into.
        let kept = lists.spare.len();
        assert_eq!(kept, 3, "the walk left its lists");
        assert_eq!(solvable(&four, &mut lists), 36);
        assert_eq!(solvable(&e5, &mut lists), 2);
        assert_eq!(solvable(&deal(1), &mut lists), 37461);
        assert_eq!(lists.spare.len(), kept);
    }

    /// Which bottoms a grouping may still split, from the bottoms its
    /// source could (`allowed`), the bottom of the stack split and the new
    /// bottom it made.
    type Rule = fn(u16, usize, usize) -> u16;

    /// Lexicographic normal form: a stack is split only if every split
    /// since it was made split a stack with a lower bottom.
    fn lexicographic(allowed: u16, bottom: usize, new: usize) -> u16 {
        allowed & (0xfffe << bottom) | 1 << bottom | 1 << new
    }

    /// A looser rule whose mark is one card: after a split, only stacks on
    /// bottoms from the lower of the two it made up (what it allows is a
    /// threshold, so the ways a grouping is met join by the lowest).
    fn from_lower(_: u16, bottom: usize, new: usize) -> u16 {
        0xffff << bottom.min(new)
    }

    /// A prototype of the walk back with its splits in a normal form
    /// (README, issue 27; the walk takes the rule of `wins` instead, which
    /// makes fewer predecessors than either of these): splits of different
    /// stacks commute, so `rule` need allow only one order of them. Each
    /// grouping carries the bottoms it may still split, joined over the
    /// ways it is met. Returns, for each depth from the last down to
    /// `lowest`, its boards, and the predecessors made with and without
    /// the rule.
    fn split_order(merges: &Merges, lowest: usize, rule: Rule) -> Vec<(usize, usize, usize)> {
        use std::collections::{HashMap, HashSet};
        let mut splits = SplitCache::new(merges.n);
        let mut level: HashMap<(u16, Word), u16> = HashMap::new();
        for bottom in 0..merges.n {
            for Grouping { word: w, .. } in merges.one_stack(bottom) {
                level.insert((1 << bottom, w), u16::MAX);
            }
        }
        let boards = |level: &HashMap<(u16, Word), u16>| {
            let tops = level.keys().map(|&(b, w)| (b, w & (ones(b) * 0xf)));
            tops.collect::<HashSet<_>>().len()
        };
        let mut out = vec![(boards(&level), 0, 0)];
        for _ in lowest..merges.n - 1 {
            let mut next: HashMap<(u16, Word), u16> = HashMap::new();
            let (mut all, mut ruled) = (0, 0);
            for (&(bottoms, w), &allowed) in &level {
                let spread = Spread::of(w);
                for bottom in bits(bottoms & !spread.own()) {
                    let group = merges.stack_cards(spread, bottoms, bottom);
                    let top = nibble(w, bottom);
                    let flips: Vec<(Word, usize)> = if group.count_ones() == 2 {
                        // The walk splits two cards without the cache.
                        vec![(two_card_flip(bottom, top), top)]
                    } else {
                        let found = splits.of(merges, group, bottom, top);
                        if let Some(one) = found.one() {
                            vec![one]
                        } else {
                            let (flips, news) = splits.list(found);
                            let flips = flips.iter().zip(news);
                            flips.map(|(&flip, &new)| (flip, new as usize)).collect()
                        }
                    };
                    all += flips.len();
                    if allowed >> bottom & 1 == 0 {
                        continue;
                    }
                    ruled += flips.len();
                    for (flip, new) in flips {
                        let may = rule(allowed, bottom, new);
                        *next.entry((bottoms | 1 << new, w ^ flip)).or_insert(0) |= may;
                    }
                }
            }
            out.push((boards(&next), all, ruled));
            level = next;
        }
        out
    }

    #[test]
    fn splits_in_normal_form_meet_every_board() {
        let limits = Limits::default();
        let mut lists = WalkLists::default();
        for state in [deal(1), deal(4)] {
            let merges = Merges::new(&state, &limits).unwrap();
            let lowest = merges.cards() / 2;
            let walk =
                merges.walk_back(1, lowest, lowest, false, true, &mut lists, &limits, |_| ());
            let walk = walk.unwrap();
            let mut made = Vec::new();
            for rule in [lexicographic as Rule, from_lower] {
                let by_rule = split_order(&merges, lowest, rule);
                for (i, &(boards, all, ruled)) in by_rule.iter().enumerate() {
                    let depth = merges.cards() - 1 - i;
                    assert_eq!(boards as u64, walk.count(depth).unwrap(), "depth {depth}");
                    assert!(ruled <= all);
                }
                made.push(by_rule.iter().fold((0, 0), |s, r| (s.0 + r.1, s.1 + r.2)));
            }
            // Each rule makes fewer predecessors (on deal 0, 1.44× and 1.27×
            // fewer), the looser one more than the other.
            let [(all, lexicographic), (_, from_lower)] = made[..] else {
                unreachable!("two rules")
            };
            assert!(lexicographic * 5 < all * 4, "{lexicographic} of {all}");
            assert!(
                lexicographic < from_lower && from_lower < all,
                "{from_lower} of {all}"
            );
        }
    }
}
