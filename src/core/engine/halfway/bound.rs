//! A rigorous upper bound on the distinct states at a depth, cheap beside
//! their count: the groupings of the cards into that many stacks.
//!
//! A state at depth d of n cards is n − d stacks, and every state is at
//! least one grouping: a sharing of the cards among its stacks, each with a
//! bottom and a top it can have. A state with buried cards that more than
//! one stack could hold is several groupings, so the groupings bound the
//! states from above (1.2–1.7× them on deals 0..9 and four E5 puzzles).
//! They are counted without listing a state: by the stack holding the
//! lowest card left, memoised on the cards left.

use super::merges::Merges;
use crate::engine::board::{KeyHasher, bits};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// The groupings of each set of cards left into some number of stacks.
type Memo = HashMap<u32, u64, BuildHasherDefault<KeyHasher>>;

impl Merges {
    /// Groupings of every card into `stacks` stacks, each with a bottom and
    /// a top it can have: at least the distinct states at depth n −
    /// `stacks` (saturating at `u64::MAX`).
    pub fn groupings(&self, stacks: usize) -> u64 {
        // The sets that can become one stack, by their lowest card, with
        // how many (bottom, top) each can have.
        let mut by_low: Vec<Vec<(u16, u64)>> = vec![Vec::new(); self.n];
        for &set in &self.parts {
            let ways = bits(set)
                .map(|t| self.stacks[set as usize][t].count_ones() as u64)
                .sum();
            by_low[set.trailing_zeros() as usize].push((set, ways));
        }
        Groupings {
            by_low,
            memo: Memo::default(),
        }
        .of(self.all(), stacks)
    }
}

/// The count of [`Merges::groupings`].
struct Groupings {
    by_low: Vec<Vec<(u16, u64)>>,
    memo: Memo,
}

impl Groupings {
    /// Groupings of the cards `set` into `stacks` stacks.
    fn of(&mut self, set: u16, stacks: usize) -> u64 {
        if set == 0 || stacks == 0 {
            return (set == 0 && stacks == 0) as u64;
        }
        if (set.count_ones() as usize) < stacks {
            return 0;
        }
        let key = (set as u32) << 5 | stacks as u32;
        if let Some(&known) = self.memo.get(&key) {
            return known;
        }
        // The stack holding the lowest card, then the rest: each grouping
        // once.
        let low = set.trailing_zeros() as usize;
        let mut total = 0u64;
        for i in 0..self.by_low[low].len() {
            let (part, ways) = self.by_low[low][i];
            if part & !set == 0 {
                let rest = self.of(set & !part, stacks - 1);
                total = total.saturating_add(ways.saturating_mul(rest));
            }
        }
        self.memo.insert(key, total);
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal::deal;
    use crate::engine::limits::Limits;
    use crate::engine::notation::parse_puzzle;

    /// The groupings of `set` into `stacks` stacks, by listing every
    /// sharing of its cards: the partitions, each part weighed by the
    /// (bottom, top) it can have, read from the table directly.
    fn listed(merges: &Merges, set: u16, stacks: usize) -> u64 {
        if set == 0 {
            return (stacks == 0) as u64;
        }
        let low = set & set.wrapping_neg();
        let rest = set & !low;
        let mut total = 0;
        let mut sub = rest;
        loop {
            let part = low | sub;
            let ways: u64 = bits(part)
                .map(|t| merges.bottoms(part, t).count_ones() as u64)
                .sum();
            if ways > 0 && stacks > 0 {
                total += ways * listed(merges, set & !part, stacks - 1);
            }
            if sub == 0 {
                break;
            }
            sub = (sub - 1) & rest;
        }
        total
    }

    #[test]
    fn the_groupings_are_the_listed_sharings_and_bound_the_states() {
        let limits = Limits::default();
        // Ten cards: every partition can be listed.
        let small = parse_puzzle("AS2S3S4S5H6H7H8HAD2D------------").unwrap();
        let merges = Merges::new(&small, &limits).unwrap();
        assert!(merges.groupings(5) > 0);
        for stacks in 0..=10 {
            assert_eq!(
                merges.groupings(stacks),
                listed(&merges, merges.all(), stacks)
            );
        }
        let mut states: Vec<_> = (0..6).map(deal).collect();
        states.push(parse_puzzle("4HKHTDKCAC6H3HTSADJS7C2H6C5H9SQD").unwrap());
        for state in states {
            let merges = Merges::new(&state, &limits).unwrap();
            let n = merges.cards();
            let counts = merges.count_states(n / 2, &limits).unwrap();
            for (depth, &count) in counts.iter().enumerate() {
                let bound = merges.groupings(n - depth);
                assert!(bound >= count, "depth {depth}: {bound} < {count}");
                // Within 2× at the halfway depth on these.
                if depth == n / 2 {
                    assert!(bound < 2 * count, "{bound} against {count}");
                }
            }
        }
    }
}
