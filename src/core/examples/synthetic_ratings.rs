//! Writes `ratings/example.csv`: demonstration ratings so the Regression
//! panel has something to show on the first run.
//!
//! The puzzles are real: generated here by the library's search, with their
//! real exact features. The ratings are NOT human: a synthetic rater gives
//!
//!   rating = round(clamp(6 − 12·halfway_ratio − 6·(dominant_suit_ratio − 0.5)
//!                        + 0.8·(rank_clusters − 1) + ε, 0, 10)),  ε ~ N(0, 1),
//!
//! with seeded noise, and the rater column says "synthetic".
//!
//!   cargo run --release --example synthetic_ratings [-- OUT.csv]

use boaf_core::engine::features::Features;
use boaf_core::engine::limits::Limits;
use boaf_core::folder::Folder;
use boaf_core::generator::descent::SearchParams;
use boaf_core::generator::energy::builtin;
use boaf_core::generator::pipeline::{Job, make_candidate};
use boaf_core::study::ratings::{PlayRecord, Rating, RatingsStore};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::path::PathBuf;

/// The synthetic rater's formula, before noise, rounding and clamping.
fn synthetic(f: &Features) -> f64 {
    6.0 - 12.0 * f.halfway_ratio.unwrap_or(0.0) - 6.0 * (f.dominant_suit_ratio - 0.5)
        + 0.8 * (f64::from(f.rank_clusters) - 1.0)
}

fn main() -> anyhow::Result<()> {
    let out = std::env::args()
        .nth(1)
        .map_or_else(|| Folder::new(".").example_ratings(), PathBuf::from);
    let _ = std::fs::remove_file(&out);
    let (mut store, _) = RatingsStore::open(&out)?;
    let book = builtin();
    let mut rng = StdRng::seed_from_u64(2026);
    // A spread of puzzles: random solvable ones (E0) and ones tuned by E2, E3, E5.
    let plan = [("E0", 8, 20), ("E2", 8, 10), ("E3", 8, 15), ("E5", 8, 15)];
    let mut rows = 0;
    for (energy, n, count) in plan {
        let energy = book.get(energy).expect("a built-in energy").clone();
        let job = Job {
            n,
            energy,
            seed: 77,
            params: SearchParams {
                // Short searches: the demonstration wants variety, not the best puzzles.
                iterations: 200,
                // The agents' features too, so the Regression panel offers them.
                difficulty: true,
                ..SearchParams::paper(n)
            },
            indices: 0..count,
            memory_cap: 1 << 30,
        };
        for index in 0..count {
            let c = make_candidate(&job, index, Limits::default(), |_| {})?;
            // Box–Muller: one standard normal draw.
            let (u1, u2): (f64, f64) = (rng.random_range(1e-12..1.0), rng.random_range(0.0..1.0));
            let noise = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
            let rating = (synthetic(&c.features) + noise).clamp(0.0, 10.0).round();
            store.append(&Rating {
                puzzle: c.puzzle.clone(),
                grid: format!("{}x{}", c.rows, c.cols),
                energy_id: c.energy_id.clone(),
                features: c.features.clone(),
                rating,
                notes: "synthetic rating (formula plus noise), not a person's".into(),
                // Not played: a synthetic rater only reads the features.
                play: PlayRecord::default(),
                rater: "synthetic".into(),
                timestamp: c.created.clone(),
            })?;
            rows += 1;
        }
    }
    eprintln!("wrote {rows} synthetic ratings to {}", out.display());
    Ok(())
}
