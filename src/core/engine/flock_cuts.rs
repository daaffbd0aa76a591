//! A small cache of the flock graph's cut vertices by set of tops, for the
//! solver: the same set of tops recurs on many boards of one search, and
//! each test of a buried card is a walk over the flock graph.
//!
//! Direct-mapped and tagged with the set itself, so it needs no clearing
//! between boards of one layout, only between layouts.

use crate::engine::board::{Layout, bits, connected};
use crate::hash::fibonacci;

/// Bits of a slot: 2^12 entries of 4 bytes stay in the L1/L2 cache.
const SLOT_BITS: u32 = 12;

/// Cut vertices of the flock graph for recently met sets of tops.
pub(crate) struct FlockCuts {
    /// `tops << 16 | cuts`, or 0 for an empty slot (a set of tops is never empty).
    slots: Vec<u32>,
    /// Whether any slot is filled, so clearing an unused cache is free.
    used: bool,
}

impl Default for FlockCuts {
    fn default() -> Self {
        FlockCuts {
            slots: vec![0; 1 << SLOT_BITS],
            used: false,
        }
    }
}

impl FlockCuts {
    /// Forgets every set (needed before a board of another layout).
    pub(crate) fn clear(&mut self) {
        if self.used {
            self.slots.fill(0);
            self.used = false;
        }
    }

    /// The cards of `tops` (not empty) whose burial disconnects the flock
    /// graph of the others.
    #[inline]
    pub(crate) fn cuts(&mut self, lay: &Layout, tops: u16) -> u16 {
        debug_assert!(tops != 0);
        let slot = &mut self.slots[fibonacci(tops as u64, SLOT_BITS)];
        if *slot >> 16 == tops as u32 {
            return *slot as u16;
        }
        let cuts = cut_vertices(lay, tops);
        *slot = (tops as u32) << 16 | cuts as u32;
        self.used = true;
        cuts
    }
}

/// The cards of `tops` whose removal leaves the others' flock graph disconnected.
fn cut_vertices(lay: &Layout, tops: u16) -> u16 {
    bits(tops)
        .filter(|&v| !connected(tops & !(1 << v), lay.flock_masks()))
        .fold(0, |m, v| m | 1 << v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal::deal;

    #[test]
    fn cached_cuts_match_a_fresh_walk() {
        // Every set of tops of a few cards, asked twice (the second answer
        // from the cache, after collisions with the others).
        let (lay, _) = Layout::new(&deal(3));
        let mut cache = FlockCuts::default();
        for _ in 0..2 {
            for tops in 1..=u16::MAX {
                assert_eq!(cache.cuts(&lay, tops), cut_vertices(&lay, tops));
            }
        }
        // A path of three flock neighbours has its middle as its one cut.
        let flock = lay.flock_masks();
        let (a, b) = (0, flock[0].trailing_zeros() as usize);
        if let Some(c) = bits(flock[b] & !flock[a] & !(1 << a)).next() {
            assert_eq!(cut_vertices(&lay, 1 << a | 1 << b | 1 << c), 1 << b);
        }
        cache.clear();
        assert!(cache.slots.iter().all(|&s| s == 0));
    }
}
