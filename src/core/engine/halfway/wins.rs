//! What the walk back knows of each grouping's winning moves, and the rule
//! that makes it split each grouping of the next depth fewer times.
//!
//! A grouping met by splitting a stack wins by the move that undoes the
//! split; and a move that wins from a grouping still wins from it with
//! another of its stacks split, when the move touches neither of the two
//! stacks the split makes (the moves commute). So each grouping carries
//! the two least moves known to win from it (joined over the ways it is
//! met), and a stack is split only where the move undoing the split is
//! less than every known winning move that the split leaves alone. Every
//! grouping is still met: from the one its least winning move leads to,
//! whose known moves are all winning moves of it too, so none is less.
//! Moves are ordered by the stack they land on, so a grouping's least
//! known move rules out whole stacks, which the walk then skips without
//! looking their splits up. On deal 0 the walk makes 9.24 M predecessors,
//! not 19.36 M, and looks up half as many stacks' splits.

use super::Word;

/// A move as a byte: the bottom of the stack it lands on in the high
/// nibble, the bottom of the stack moved in the low one. Ordered as bytes,
/// so by the stack landed on first: the splits of a stack on a bottom above
/// the one a grouping's least known move lands on are all made elsewhere,
/// and the walk skips the stack without looking its splits up.
pub(super) type Move = u8;

/// No move: 15 onto itself, which no move is, and above every move.
const NO_MOVE: Move = 0xff;

/// Up to two moves known to win, the least in the low byte; [`NO_MOVE`]
/// where there are fewer.
pub(super) type Wins = u16;

/// No move known to win: a grouping met first, or one whose moves do not
/// matter (the last depth's).
pub(super) const NONE_KNOWN: Wins = 0xffff;

/// A grouping in the walk back's lists: its word (see [`Word`]) and the
/// moves known to win from it. Packed: the lists hold millions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed(2))]
pub(super) struct Grouping {
    /// Which cards are in which stack, and the stacks' tops.
    pub(super) word: Word,
    /// The two least moves known to win from it.
    pub(super) wins: Wins,
}

impl Grouping {
    /// A grouping with no move known to win from it.
    #[inline]
    pub(super) fn new(word: Word) -> Grouping {
        Grouping {
            word,
            wins: NONE_KNOWN,
        }
    }
}

/// The move of the stack on `moved` onto the stack on `onto`.
#[inline]
pub(super) fn move_of(moved: usize, onto: usize) -> Move {
    (onto << 4 | moved) as Move
}

/// Whether `m` moves the stack on `bottom` or lands on it.
#[cfg(test)]
fn touches(m: Move, bottom: usize) -> bool {
    (m >> 4) as usize == bottom || (m & 0xf) as usize == bottom
}

/// The two least moves of both. Without a branch, as the next two are:
/// the walk calls them for every stack and split, on moves that are coin
/// tosses to the branch predictor.
#[inline]
pub(super) fn join(a: Wins, b: Wins) -> Wins {
    let (a0, a1, b0, b1) = (a as u8, (a >> 8) as u8, b as u8, (b >> 8) as u8);
    let least = a0.min(b0);
    // The other of the two least, unless it is the same move; then the
    // least of the rest (each list is ordered, so a1 and b1 are above).
    let other = if a0 == b0 { NO_MOVE } else { a0.max(b0) };
    let next = other.min(a1).min(b1);
    (next as u16) << 8 | least as u16
}

/// The moves of `wins` that leave the stack on `bottom` alone: those that
/// still win once it is split. (The walk reads them through [`Known`];
/// this is its reference.)
#[cfg(test)]
fn leaving(wins: Wins, bottom: usize) -> Wins {
    let (w0, w1) = (wins as u8, (wins >> 8) as u8);
    let w0 = if touches(w0, bottom) { NO_MOVE } else { w0 };
    let w1 = if touches(w1, bottom) { NO_MOVE } else { w1 };
    // Still in order, but for a first move gone.
    (w0.max(w1) as u16) << 8 | w0.min(w1) as u16
}

/// A grouping's known winning moves, with the stacks each touches, read
/// once for all its stacks, so that the moves each stack's splits leave
/// alone come without comparing each move to its bottom.
#[derive(Clone, Copy)]
pub(super) struct Known {
    /// The two moves, the least first.
    moves: [Move; 2],
    /// The bottoms of the two stacks each move touches.
    touched: [u16; 2],
}

impl Known {
    /// What `wins` knows.
    #[inline]
    pub(super) fn of(wins: Wins) -> Known {
        let moves = [wins as u8, (wins >> 8) as u8];
        let touched = moves.map(|m| 1u16 << (m >> 4) | 1 << (m & 0xf));
        Known { moves, touched }
    }

    /// The known moves that leave the stack on `bottom` alone: those that
    /// still win once it is split.
    #[inline]
    pub(super) fn leaving(&self, bottom: usize) -> Wins {
        // A move that touches the stack becomes no move, 0xff.
        let gone = |i: usize| ((self.touched[i] >> bottom & 1) as u8).wrapping_neg();
        let (w0, w1) = (self.moves[0] | gone(0), self.moves[1] | gone(1));
        (w0.max(w1) as u16) << 8 | w0.min(w1) as u16
    }
}

/// The least move of `wins`: a split whose undoing is above it is made
/// from another grouping.
#[inline]
pub(super) fn least(wins: Wins) -> Move {
    wins as u8
}

/// The move `m` alone.
#[inline]
fn only(m: Move) -> Wins {
    (NO_MOVE as u16) << 8 | m as u16
}

/// The bottoms whose stacks may be split from a grouping that knows
/// `wins`: those below the bottom its least known move lands on (all their
/// splits are undone below it), and the two stacks that move touches
/// (their own bars are the next move). All of them when none is known.
#[inline]
pub(super) fn splittable(wins: Wins) -> u16 {
    let (onto, moved) = ((wins as u8 >> 4) as u16, wins & 0xf);
    ((1u16 << onto) - 1) | 1 << onto | 1 << moved
}

/// `wins` with the move `m` known too.
#[inline]
pub(super) fn with(wins: Wins, m: Move) -> Wins {
    join(wins, only(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two least of a list of moves, by sorting.
    fn two_least(mut moves: Vec<Move>) -> Wins {
        moves.sort_unstable();
        moves.dedup();
        let at = |i: usize| moves.get(i).copied().unwrap_or(NO_MOVE) as u16;
        at(1) << 8 | at(0)
    }

    #[test]
    fn known_wins_join_and_leave_as_sets_do() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..5000 {
            // Two sets of up to two moves among few cards, so that they
            // share moves and touch the same stacks often.
            let mut set = || -> Vec<Move> {
                let k = (next() % 3) as usize;
                (0..k)
                    .map(|_| {
                        let (a, b) = ((next() % 4) as usize, (next() % 4) as usize);
                        move_of(a, if a == b { (b + 1) % 4 } else { b })
                    })
                    .collect()
            };
            let (a, b) = (set(), set());
            let (wa, wb) = (two_least(a.clone()), two_least(b.clone()));
            assert_eq!(join(wa, wb), two_least([a.clone(), b].concat()));
            let bottom = (next() % 4) as usize;
            let left: Vec<Move> = a.iter().copied().filter(|&m| !touches(m, bottom)).collect();
            assert_eq!(leaving(wa, bottom), two_least(left.clone()));
            assert_eq!(Known::of(wa).leaving(bottom), leaving(wa, bottom));
            let m = move_of(bottom, (bottom + 1) % 4);
            assert_eq!(with(wa, m), two_least([a, vec![m]].concat()));
            assert_eq!(
                least(two_least(left.clone())),
                *left.iter().min().unwrap_or(&NO_MOVE)
            );
        }
        // A stack left out of the splittable ones has no split that the
        // bar would let through, whatever its new bottom.
        for _ in 0..5000 {
            let moves: Vec<Move> = (0..(next() % 3))
                .map(|_| {
                    let (a, b) = ((next() % 16) as usize, (next() % 16) as usize);
                    move_of(a, if a == b { (b + 1) % 16 } else { b })
                })
                .collect();
            let wins = two_least(moves);
            for bottom in 0..16 {
                if splittable(wins) >> bottom & 1 == 0 {
                    let bar = least(leaving(wins, bottom));
                    assert!(
                        (0..16)
                            .filter(|&new| new != bottom)
                            .all(|new| move_of(new, bottom) > bar)
                    );
                }
            }
        }
        assert_eq!(splittable(NONE_KNOWN), u16::MAX);
        assert_eq!(join(NONE_KNOWN, NONE_KNOWN), NONE_KNOWN);
        assert!(move_of(14, 15) < NO_MOVE);
    }
}
