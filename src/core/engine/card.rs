//! Cards: ranks, suits, the research notation (`TH`, `AS`, `2C`) and flockability.

use std::fmt;

/// Rank characters in order, ace low: `A23456789TJQK`.
pub const RANKS: &[u8; 13] = b"A23456789TJQK";
/// Suit characters in deck order: clubs, diamonds, hearts, spades.
pub const SUITS: &[u8; 4] = b"CDHS";

/// A card of the standard 52-card deck, coded `rank * 4 + suit` so that the
/// code order is the FreeCell deck order `AC AD AH AS 2C … KS`.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Card(u8);

impl Card {
    /// The card of a rank (0 = ace … 12 = king) and suit (0..4 in `CDHS` order).
    pub fn new(rank: u8, suit: u8) -> Card {
        assert!(rank < 13 && suit < 4, "card out of range");
        Card(rank * 4 + suit)
    }

    /// The card with deck code `code` (0..52), if it is one.
    pub fn from_code(code: u8) -> Option<Card> {
        (code < 52).then_some(Card(code))
    }

    /// The deck code, 0..52.
    pub fn code(self) -> u8 {
        self.0
    }

    /// Rank, 0 = ace … 12 = king.
    pub fn rank(self) -> u8 {
        self.0 / 4
    }

    /// Suit, 0..4 in `CDHS` order.
    pub fn suit(self) -> u8 {
        self.0 % 4
    }

    /// Whether the suit is red (diamonds or hearts).
    pub fn is_red(self) -> bool {
        matches!(self.suit(), 1 | 2)
    }

    /// The rank character, e.g. `T`.
    pub fn rank_char(self) -> char {
        RANKS[self.rank() as usize] as char
    }

    /// The suit character, e.g. `H`.
    pub fn suit_char(self) -> char {
        SUITS[self.suit() as usize] as char
    }

    /// The rank as players write it: `10` for ten, else its character.
    pub fn rank_text(self) -> String {
        match self.rank_char() {
            'T' => "10".to_string(),
            c => c.to_string(),
        }
    }

    /// The card as the app shows it everywhere: rank text and suit symbol, `10♥`.
    pub fn face(self) -> String {
        format!("{}{}", self.rank_text(), self.suit_symbol())
    }

    /// The suit as a symbol, for display: ♣ ♦ ♥ ♠.
    pub fn suit_symbol(self) -> char {
        ['♣', '♦', '♥', '♠'][self.suit() as usize]
    }

    /// Two cards flock (one may move onto the other, position aside) when they
    /// share a suit or have the same or adjacent rank. Ace and king are not adjacent.
    pub fn flocks_with(self, other: Card) -> bool {
        self.suit() == other.suit() || self.rank().abs_diff(other.rank()) <= 1
    }

    /// Ranks are the same or adjacent (the rank-flockability relation).
    pub fn rank_flocks_with(self, other: Card) -> bool {
        self.rank().abs_diff(other.rank()) <= 1
    }
}

/// Index of a rank character in `RANKS`, accepting lower case too.
pub fn rank_from_char(c: char) -> Option<u8> {
    let c = c.to_ascii_uppercase();
    RANKS.iter().position(|&r| r as char == c).map(|i| i as u8)
}

/// Index of a suit character in `SUITS`, accepting lower case too.
pub fn suit_from_char(c: char) -> Option<u8> {
    let c = c.to_ascii_uppercase();
    SUITS.iter().position(|&s| s as char == c).map(|i| i as u8)
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank_char(), self.suit_char())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_order_is_the_freecell_deck() {
        let names: Vec<String> = (0..8).map(|c| Card(c).to_string()).collect();
        assert_eq!(names, ["AC", "AD", "AH", "AS", "2C", "2D", "2H", "2S"]);
        assert_eq!(Card(51).to_string(), "KS");
    }

    #[test]
    fn flocking_follows_the_rules() {
        let c = |s: &str| {
            let b = s.as_bytes();
            Card::new(
                rank_from_char(b[0] as char).unwrap(),
                suit_from_char(b[1] as char).unwrap(),
            )
        };
        assert!(c("JS").flocks_with(c("JC"))); // same rank
        assert!(c("TS").flocks_with(c("9H"))); // adjacent rank
        assert!(c("JS").flocks_with(c("5S"))); // same suit
        assert!(!c("AS").flocks_with(c("KH"))); // ace and king are not adjacent
        assert!(!c("4D").flocks_with(c("6C")));
        let mut pairs = 0;
        for a in 0..52 {
            for b in 0..52 {
                if a != b && Card(a).flocks_with(Card(b)) {
                    pairs += 1;
                }
            }
        }
        // Each card: 12 same suit + 3 other suits × (1 same rank + 1 or 2 adjacent ranks).
        // Aces and kings have one neighbour rank, the other 11 ranks two.
        let per_card_sum: usize = (0..13)
            .map(|r| {
                let adj = if r == 0 || r == 12 { 1 } else { 2 };
                4 * (12 + 3 * (1 + adj))
            })
            .sum();
        assert_eq!(pairs, per_card_sum);
    }
}
