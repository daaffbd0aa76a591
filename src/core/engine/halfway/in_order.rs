//! The walk back in the numeric order of its sets of bottoms. A set's words
//! come only from the sets one bottom smaller, which are smaller numbers,
//! so a set taken in numeric order, whatever its depth, is whole when it is
//! reached. The sets of the counted depth are then finished all along the
//! walk rather than at its end, and a count that only has to pass a bar
//! can stop as soon as it does: the search's screen undoes most steps on
//! numerators many times its bar, which a few percent of their walk show.

use super::level::{Finish, LOOK_EVERY, Sink, WalkLists, WordSet};
use super::merges::Merges;
use super::split::SplitCache;
use super::wins::Grouping;
use crate::engine::board::bits;
use crate::engine::limits::{Limits, SearchError};

/// How a walk back that may stop at a bar ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Bounded {
    /// It went to the end: the solvable states at the lowest depth (the
    /// deeper ones are walked through, not counted).
    Whole(u64),
    /// It stopped at the bar, having found this many solvable states at
    /// the lowest depth: a lower bound on their number.
    AtLeast(u64),
}

/// The lists of an in-order walk: each set of bottoms' words, gathered
/// until the walk reaches it, and what compacts them and keeps emptied
/// lists for sets yet to gather (the depth walk's own).
struct InOrder {
    raw: Vec<Vec<Grouping>>,
    lists: Finish,
}

impl InOrder {
    /// Bytes held, roughly.
    fn bytes(&self) -> usize {
        let words: usize = self.raw.iter().map(Vec::capacity).sum();
        words * size_of::<Grouping>()
            + self.raw.len() * size_of::<Vec<Grouping>>()
            + self.lists.bytes()
    }
}

impl Sink for InOrder {
    #[inline]
    fn take(&mut self, bottoms: u16) -> Vec<Grouping> {
        self.lists.take(&mut self.raw, bottoms)
    }

    #[inline]
    fn put(&mut self, bottoms: u16, words: Vec<Grouping>, _new: bool) {
        self.lists.put(&mut self.raw, bottoms, words);
    }
}

impl Merges {
    /// Walks back from one stack to depth `lowest` in the numeric order of
    /// the sets of bottoms, counting the solvable states there (the deeper
    /// depths are walked through), and stops as soon as `enough` says yes
    /// to the solvable states found so far at `lowest` (it hears each new
    /// total). The walk's lists come from `lists` and go back to it. One
    /// thread.
    pub fn walk_in_order(
        &self,
        lowest: usize,
        lists: &mut WalkLists,
        limits: &Limits,
        mut enough: impl FnMut(u64) -> bool,
    ) -> Result<Bounded, SearchError> {
        let n = self.n;
        if n == 0 {
            // No cards: already one stack or fewer, as the analysis has it.
            return Ok(Bounded::Whole(1));
        }
        let last = n - 1;
        let lowest = lowest.min(last);
        let all = self.all();
        let mut lists_of = InOrder {
            raw: lists.take(n),
            lists: Finish::new(),
        };
        for bottom in 0..n {
            lists_of.raw[1 << bottom] = self.one_stack(bottom);
        }
        // Each set's words after its last compaction.
        let mut kept = vec![0u32; 1 << n];
        let mut found = 0u64;
        let mut stopped = false;
        let mut splits = SplitCache::new(n);
        let mut set = WordSet::default();
        let mut scratch = Vec::new();
        let mut until_look = 0usize;
        for at in 1..1usize << n {
            if lists_of.raw[at].is_empty() {
                continue;
            }
            let mut words = std::mem::take(&mut lists_of.raw[at]);
            let bottoms = at as u16;
            let depth = n - bottoms.count_ones() as usize;
            set.dedup(&mut words);
            if depth == lowest {
                // Below the last depth, the lowest one's words keep only tops.
                found += if lowest < last {
                    words.len()
                } else {
                    set.boards(bottoms, &words, &mut scratch)
                } as u64;
                lists_of.lists.recycle(words);
                if enough(found) {
                    stopped = true;
                    break;
                }
                continue;
            }
            if until_look == 0 {
                let held = lists_of.bytes()
                    + words.capacity() * size_of::<Grouping>()
                    + splits.bytes()
                    + set.bytes();
                limits.check(held + kept.len() * 4)?;
                until_look = LOOK_EVERY;
            }
            // The deep depths meet many stacks of large sets: each is
            // split once for all the stacks these words ask.
            if depth + 4 > n {
                self.ask_splits(bottoms, &words, &mut splits);
                splits.split_asked(self);
            }
            let only_tops = depth - 1 == lowest;
            let made = self.split_words(bottoms, &words, only_tops, &mut splits, &mut lists_of);
            until_look = until_look.saturating_sub(made);
            for new in bits(all & !bottoms) {
                let to = (bottoms | 1 << new) as usize;
                lists_of.lists.compact(&mut lists_of.raw[to], &mut kept[to]);
            }
            lists_of.lists.recycle(words);
        }
        let mut raw = lists_of.raw;
        if stopped {
            // The sets not reached yet still hold words.
            for words in raw.iter_mut().filter(|w| w.capacity() > 0) {
                *words = Vec::new();
            }
        }
        lists.keep(raw, &[]);
        Ok(if stopped {
            Bounded::AtLeast(found)
        } else {
            Bounded::Whole(found)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal::deal;
    use crate::engine::notation::parse_state;
    use crate::engine::state::State;

    /// The depth-by-depth walk's count at `lowest`.
    fn by_depth(merges: &Merges, lowest: usize) -> u64 {
        let limits = Limits::default();
        let mut lists = WalkLists::default();
        let walk = merges.walk_back(1, lowest, lowest, false, false, &mut lists, &limits, |_| ());
        walk.unwrap().count(lowest).unwrap()
    }

    #[test]
    fn in_order_counts_are_the_depth_walks_and_it_stops_at_the_bar() {
        let limits = Limits::default();
        let mut states: Vec<State> = [1, 4, 8].into_iter().map(deal).collect();
        for text in [
            "9D3H2HKC6S4DJC7SAC3C9SQC4H7DADKH",
            "AS2S3S4S------------------------",
            "KS2D2C3H7C8D4HADAC6HJSTS7HTD6D5H",
        ] {
            states.push(parse_state(text, None).unwrap());
        }
        let mut lists = WalkLists::default();
        for state in &states {
            let merges = Merges::new(state, &limits).unwrap();
            let half = merges.cards() / 2;
            for lowest in [half, 1] {
                let expected = by_depth(&merges, lowest);
                let mut heard = Vec::new();
                let walked = merges.walk_in_order(lowest, &mut lists, &limits, |found| {
                    heard.push(found);
                    false
                });
                assert_eq!(walked.unwrap(), Bounded::Whole(expected));
                // It heard a rising total that ends at the count.
                assert!(heard.windows(2).all(|w| w[0] < w[1]));
                assert_eq!(heard.last().copied().unwrap_or(0), expected);
                // A bar under the count stops the walk at the first total
                // past it; a bar at the count is never passed.
                let total = expected;
                if total > 1 {
                    let bar = total / 3;
                    let first_past = *heard.iter().find(|&&h| h > bar).unwrap();
                    let stopped = merges.walk_in_order(lowest, &mut lists, &limits, |f| f > bar);
                    assert_eq!(stopped.unwrap(), Bounded::AtLeast(first_past));
                }
                let at_count = merges.walk_in_order(lowest, &mut lists, &limits, |f| f > total);
                assert_eq!(at_count.unwrap(), Bounded::Whole(expected));
            }
        }
        // Deal 1's 37 461 solvable states at depth 8 come from the slow
        // search (the perft tests).
        let merges = Merges::new(&deal(1), &limits).unwrap();
        let walked = merges.walk_in_order(8, &mut lists, &limits, |_| false);
        assert_eq!(walked.unwrap(), Bounded::Whole(37_461));
    }
}
