//! The straightforward baseline the analysis is measured against: plain BFS
//! layers deduplicated by notation string, and a memoized DFS (also keyed by
//! string) for each state's solvability. It is the tests' reference search.
//!
//! `cargo run --release --example naive_baseline -- DEAL DEPTH`

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let deal: i32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let depth: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(8);
    let started = Instant::now();
    let layers = common::naive_layers_to(&boaf_core::engine::deal::deal(deal), depth);
    for (d, (states, solvable)) in layers.iter().enumerate() {
        println!("{d} {states} {solvable}");
    }
    println!(
        "deal {deal} to depth {depth}: {:.2} s",
        started.elapsed().as_secs_f64()
    );
}
