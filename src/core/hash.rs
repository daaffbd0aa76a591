//! The hashes and seed mixers boaf writes by hand, in one place: FNV-1a for
//! ids and seeds that must never change, splitmix64 for seeds that must not
//! look alike, and Fibonacci hashing for table slots.
//!
//! Every value these give is stored or replayed somewhere (an energy id, a
//! puzzle's seed, a game's seed), so a change here is a break: the unit
//! tests pin the published reference values.

/// 2⁶⁴ divided by the golden ratio, odd: the Fibonacci hashing multiplier
/// and splitmix64's step, which spread consecutive inputs evenly.
pub const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// FNV-1a (64 bits) of some bytes. Fixed by its definition, not by the
/// standard library's hasher, so energy ids and puzzle seeds built from it
/// never change between builds or machines.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// splitmix64's output mix of one state: nearby inputs (seeds 1, 2, 3, a
/// batch and its next puzzle) give unrelated outputs. The reference stream
/// from seed `s` is `splitmix64(s + k·GOLDEN)` for k = 1, 2, …
#[inline]
pub fn splitmix64(x: u64) -> u64 {
    let x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Fibonacci hashing: the top `bits` bits (1 to 64) of `x · GOLDEN`, a slot
/// in a table of 2^`bits` entries. Keys that differ only in their high bits
/// (packed boards do) still land apart.
#[inline]
pub fn fibonacci(x: u64, bits: u32) -> usize {
    debug_assert!((1..=64).contains(&bits));
    (x.wrapping_mul(GOLDEN) >> (64 - bits)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_gives_the_published_values() {
        // The FNV test suite: the offset basis for "", then "a" and "foobar".
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn splitmix64_gives_the_reference_stream() {
        // The first outputs of the reference generator seeded with 0.
        let stream: Vec<u64> = (1..=4u64)
            .map(|k| splitmix64(k.wrapping_mul(GOLDEN)))
            .collect();
        assert_eq!(
            stream,
            [
                0xe220_a839_7b1d_cdaf,
                0x6e78_9e6a_a1b9_65f4,
                0x06c4_5d18_8009_454f,
                0xf88b_b8a8_724c_81ec,
            ]
        );
    }

    #[test]
    fn fibonacci_takes_the_top_bits_of_the_product() {
        assert_eq!(fibonacci(0, 10), 0);
        assert_eq!(fibonacci(1, 8), 0x9E);
        assert_eq!(fibonacci(1, 64), GOLDEN as usize);
        assert_eq!(fibonacci(2, 4), 0x3);
    }

    #[test]
    fn stored_ids_and_seeds_keep_their_values() {
        // Values from before the hashes moved here: an energy id, deal 1's
        // plays seed and two batch seeds (the first is the reference stream's).
        use crate::agents::difficulty::plays_seed;
        use crate::engine::deal::deal;
        use crate::generator::energy::EnergyBook;
        use crate::generator::pipeline::batch_puzzle_seed;
        let book = EnergyBook::parse("[[energy]]\nname = \"E\"\nvalue = \"2 * n\"\n", "e.toml");
        assert_eq!(book.unwrap().get("E").unwrap().id(), "E-047c48e9");
        assert_eq!(plays_seed(&deal(1)), 0x5397_0ae5_c4e9_7c8e);
        assert_eq!(batch_puzzle_seed(0, 0), 0xe220_a839_7b1d_cdaf);
        assert_eq!(batch_puzzle_seed(42, 3), 0x581c_e1ff_0e4a_e394);
    }
}
