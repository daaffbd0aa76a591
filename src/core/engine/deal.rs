//! Deal numbers: the research challenge numbers its 16-card deals by the
//! Microsoft FreeCell shuffle, with 32-bit Java `int` seeds (negatives allowed).

use crate::engine::card::Card;
use crate::engine::state::{Grid, State};

/// The full 52-card deck after the FreeCell shuffle for `number`.
///
/// The deck starts `AC AD AH AS 2C … KS`; for i = 51 down to 1 the seed steps
/// s = (214013·s + 2531011) mod 2^31 and `deck[i]` swaps with `deck[(s >> 16) mod (i+1)]`.
/// Taking the product in wrapping 32-bit arithmetic and masking to 31 bits is
/// the same as the mathematical mod 2^31, so negative seeds behave as in Java.
pub fn shuffled_deck(number: i32) -> [Card; 52] {
    let mut deck: [Card; 52] = std::array::from_fn(|i| Card::from_code(i as u8).unwrap());
    let mut s = number as u32;
    for i in (1..52usize).rev() {
        s = s.wrapping_mul(214013).wrapping_add(2531011) & 0x7fff_ffff;
        let j = (s >> 16) as usize % (i + 1);
        deck.swap(i, j);
    }
    deck
}

/// The 4×4 deal with this number: cards popped from the end of the shuffled deck into cells row-major.
pub fn deal(number: i32) -> State {
    deal_on(number, Grid::SQUARE4)
}

/// A deal on any grid: the grid's cells filled from the end of the shuffled deck.
pub fn deal_on(number: i32, grid: Grid) -> State {
    let deck = shuffled_deck(number);
    let cells: Vec<Option<Card>> = (0..grid.cells()).map(|i| Some(deck[51 - i])).collect();
    State::new(grid, &cells).expect("a shuffled deck has no duplicates")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::notation::to_compact;

    #[test]
    fn known_deals() {
        assert_eq!(to_compact(&deal(0)), "TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S");
        assert_eq!(to_compact(&deal(1)), "JD2D9HJC5D7H7C5HKDKC9S5SADQCKH3H");
    }

    #[test]
    fn every_deck_is_a_permutation() {
        for n in [i32::MIN, -1, 0, 1, 617, i32::MAX] {
            let mut codes: Vec<u8> = shuffled_deck(n).iter().map(|c| c.code()).collect();
            codes.sort();
            assert_eq!(codes, (0..52).collect::<Vec<u8>>());
        }
        // A negative seed is its own deal, not a copy of its absolute value.
        assert_ne!(deal(-1), deal(1));
    }
}
