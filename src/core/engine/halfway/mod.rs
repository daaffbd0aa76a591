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
//!   that each pair's cards can become that stack. The count goes by
//!   classes: a set of buried cards with the pairs that must hold some of
//!   them, whose states are the ways to add pairs of two cards that can
//!   hold nothing, read from a table of matchings. Where a class has too
//!   many ways to be held, the count walks the sets of pairs, keeping for
//!   each the distinct sets of buried cards ([`Merges`] knows which cards
//!   each pair can take), bit-sliced so that the sets clear of a new pair's
//!   cards are found 64 at a time. No state is ever listed.
//! - **Solvable states at the halfway depth.** Walking back from one stack,
//!   each step splits one stack into two that could have merged into it. A
//!   state met this way is reachable (each stack can be built) and solvable
//!   (the walk came from one stack), and every solvable state is met. Only
//!   solvable states are visited, which for the puzzles E5 favours are few.
//!   Each depth's groupings (which cards are in which stack) are kept in
//!   64-bit words by their set of bottoms, so that a set's repeats are
//!   dropped in the cache with a small hash set, and the set is finished as
//!   soon as the last set of bottoms that can lead to it is split. Each
//!   grouping carries the two least moves known to win from it, and a
//!   stack is split only where the move undoing the split is less than the
//!   known winning moves the split leaves alone (`wins`): every grouping
//!   is still met, by half as many splits.
//!
//! Both agree with [`crate::engine::analysis`] state for state; the tests and
//! the property tests check them against it.
//!
//! The parts: [`Merges`], the table of the stacks each set of cards can
//! become (`merges`); the count of distinct states by classes
//! (`classes`), and by sets of pairs (`count`); the walk back and the
//! tension (`walk`), with the splits of each stack it meets (`split`), the
//! moves it knows win from each grouping (`wins`), its lists (`level`) and
//! its depths shared among threads (`shared`); the same walk in the numeric order of the sets
//! of bottoms, which can stop as soon as its count passes a bar
//! (`in_order`); the full per-depth table (`table`); the groupings, an
//! upper bound on the distinct states cheap beside their count (`bound`).
//! Here: the counts together, and the words the walk back keeps its
//! groupings in.

mod bound;
mod classes;
mod compact;
mod count;
mod in_order;
mod level;
mod merges;
mod shared;
mod split;
mod table;
mod walk;
mod wins;

pub use in_order::Bounded;
pub use level::WalkLists;
pub use merges::Merges;
pub use walk::Solvable;

use crate::engine::analysis::ratio;
use crate::engine::limits::{Limits, SearchError};
use crate::engine::state::State;
use std::sync::atomic::{AtomicUsize, Ordering};

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
/// move of every solvable state), within `limits`, on one thread.
pub fn halfway(state: &State, tension: bool, limits: &Limits) -> Result<Halfway, SearchError> {
    halfway_on_threads(state, tension, 1, limits)
}

/// [`halfway`] on `threads` threads: from two, the count of states runs
/// beside the walk back, whose every depth is shared among the threads.
/// The same counts on any number.
pub fn halfway_on_threads(
    state: &State,
    tension: bool,
    threads: usize,
    limits: &Limits,
) -> Result<Halfway, SearchError> {
    halfway_told(state, tension, threads, limits, None)
}

/// A step of the exact halfway ratio, told as it ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The count of distinct states, with those at the halfway depth.
    Counted {
        /// Distinct states at the halfway depth.
        states: u64,
    },
    /// A depth the walk back from one stack finished.
    Walked {
        /// The depth (moves made).
        depth: usize,
        /// Its solvable states, counted at the halfway depth (and, with
        /// the tension, the depth below it, whose boards it lists); the
        /// other depths are walked through.
        solvable: Option<u64>,
    },
    /// The midgame tension, read from the solvable states.
    Tension,
}

/// What [`halfway_told`] tells its hook: a step that ended, and how many of
/// how many have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Told {
    /// The step that ended.
    pub step: Step,
    /// Steps ended so far, this one included.
    pub done: usize,
    /// Steps in all.
    pub of: usize,
}

impl std::fmt::Display for Told {
    /// The step in words, with how many have ended: "walked back to depth
    /// 10 (7 of 9 steps)", "walked back to depth 8: 1,298,555 solvable (9
    /// of 9 steps)".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.step {
            Step::Counted { states } => write!(
                f,
                "{} states counted at the halfway depth",
                crate::format::count(states)
            )?,
            Step::Walked {
                depth,
                solvable: Some(solvable),
            } => write!(
                f,
                "walked back to depth {depth}: {} solvable",
                crate::format::count(solvable)
            )?,
            Step::Walked {
                depth,
                solvable: None,
            } => write!(f, "walked back to depth {depth}")?,
            Step::Tension => f.write_str("tension read")?,
        }
        write!(f, " ({} of {} steps)", self.done, self.of)
    }
}

/// [`halfway_on_threads`] telling `hook` of each step as it ends: the
/// count; each depth of the walk back, deepest first; and the tension,
/// when asked for. Steps end on the threads doing them, so with threads the
/// count may end between two depths of the walk; `done` still rises by one
/// each time.
pub fn halfway_told(
    state: &State,
    tension: bool,
    threads: usize,
    limits: &Limits,
    hook: Option<&(dyn Fn(Told) + Sync)>,
) -> Result<Halfway, SearchError> {
    let merges = Merges::new(state, limits)?;
    let depth = merges.n / 2;
    let last = merges.n.saturating_sub(1);
    // The walk's depths (from the last to the halfway one), the count and
    // the tension.
    let of = last - depth + 2 + tension as usize;
    let done = AtomicUsize::new(0);
    let tell = |step: Step| {
        if let Some(hook) = hook {
            let done = done.fetch_add(1, Ordering::Relaxed) + 1;
            hook(Told { step, done, of });
        }
    };
    let walk = || {
        // The walk finishes one depth a call, from the last down.
        let mut at = last + 1;
        let mut lists = WalkLists::default();
        merges.walk_back(
            threads,
            depth,
            depth,
            tension,
            false,
            &mut lists,
            limits,
            |boards| {
                at -= 1;
                tell(Step::Walked {
                    depth: at,
                    solvable: boards.map(|b| b as u64),
                })
            },
        )
    };
    let count = || {
        let states = merges.count_states_on(depth, threads, limits)?;
        let at_depth = states.get(depth).copied().unwrap_or(0);
        tell(Step::Counted { states: at_depth });
        Ok(states)
    };
    let (states, solvable) = crate::parallel::beside(threads, count, walk);
    let (states, solvable) = (states?, solvable?);
    let tension = if tension {
        let mean = merges.tension(&solvable, limits)?;
        tell(Step::Tension);
        mean
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

/// Sets between two looks at the cancel switch.
const CHECK_EVERY: usize = 1 << 12;

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
/// once the other bottoms (whose nibbles are tops) are left out. (The walk
/// reads them from a [`Spread`] word; this is its reference.)
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline]
fn owned_by(w: Word, bottom: usize) -> u16 {
    zero_nibbles(w ^ (ones(u16::MAX) * bottom as u64))
}

/// The nibble of `card` in `w`.
#[inline]
fn nibble(w: Word, card: usize) -> usize {
    (w >> (4 * card) & 0xf) as usize
}

/// A word's sixteen nibbles spread one to a byte, so that the cards whose
/// nibble holds a value come out of one comparison of all sixteen: the
/// stacks of a grouping cost the walk back a fifth of its time when each
/// was read from the packed word.
#[derive(Clone, Copy)]
struct Spread {
    #[cfg(target_arch = "x86_64")]
    bytes: std::arch::x86_64::__m128i,
    #[cfg(not(target_arch = "x86_64"))]
    word: Word,
}

impl Spread {
    /// The nibbles of `w`, card by card.
    #[inline]
    fn of(w: Word) -> Spread {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_cvtsi64_si128, _mm_unpacklo_epi8};
            const LOW: u64 = 0x0f0f_0f0f_0f0f_0f0f;
            // Even cards' nibbles are the low halves of the bytes, odd
            // cards' the high halves: interleaved, they come in card order.
            // SAFETY: SSE2 is part of every x86_64 processor.
            let bytes = unsafe {
                let even = _mm_cvtsi64_si128((w & LOW) as i64);
                let odd = _mm_cvtsi64_si128((w >> 4 & LOW) as i64);
                _mm_unpacklo_epi8(even, odd)
            };
            Spread { bytes }
        }
        #[cfg(not(target_arch = "x86_64"))]
        Spread { word: w }
    }

    /// The cards whose nibble is `value`.
    #[inline]
    fn equal_to(self, value: usize) -> u16 {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_set1_epi8};
            // SAFETY: SSE2 is part of every x86_64 processor.
            unsafe {
                let same = _mm_cmpeq_epi8(self.bytes, _mm_set1_epi8(value as i8));
                _mm_movemask_epi8(same) as u16
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        owned_by(self.word, value)
    }

    /// The cards whose nibble holds their own number: the one-card stacks
    /// (a bottom that is its own top; any other card's nibble names another
    /// card, its bottom).
    #[inline]
    fn own(self) -> u16 {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_set_epi8};
            // SAFETY: SSE2 is part of every x86_64 processor.
            unsafe {
                let cards = _mm_set_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
                _mm_movemask_epi8(_mm_cmpeq_epi8(self.bytes, cards)) as u16
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        zero_nibbles(self.word ^ CARDS)
    }
}

/// Each card's number in its nibble.
#[cfg(any(test, not(target_arch = "x86_64")))]
const CARDS: u64 = 0xfedc_ba98_7654_3210;

/// The nibbles of `x` that are zero, as a mask: all sixteen are tested at
/// once, then the flags are packed.
#[cfg(any(test, not(target_arch = "x86_64")))]
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
    use crate::engine::board::bits;

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
        // Spread words agree with the packed ones, nibble by nibble.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Nibbles from few values, so that each value is met often.
            let w = x & 0x3333_3333_3333_3333 | (x >> 1 & 0x4444_4444_4444_4444) & (x >> 7);
            let spread = Spread::of(w);
            for value in 0..16 {
                assert_eq!(spread.equal_to(value), owned_by(w, value), "{w:#x} {value}");
            }
            assert_eq!(spread.own(), zero_nibbles(w ^ CARDS), "{w:#x}");
            let spread = Spread::of(x);
            for value in 0..16 {
                assert_eq!(spread.equal_to(value), owned_by(x, value), "{x:#x} {value}");
            }
            assert_eq!(spread.own(), zero_nibbles(x ^ CARDS), "{x:#x}");
        }
    }
}
