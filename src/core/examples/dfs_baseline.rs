//! A straightforward memoized DFS, the kind of program the analysis goal is
//! measured against: the public rules API (`State::legal_moves` /
//! `State::apply`), a 96-bit key (6 bits a cell), one `HashSet` of seen keys
//! per depth, and one `HashMap` memo of solvability shared by all states.
//! No pruning, no move ordering, no sorting tricks.
//!
//! `cargo run --release --example dfs_baseline -- DEAL [DEPTH]`

use boaf_core::engine::state::State;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// Each cell's card code plus one (0 for empty), 6 bits a cell.
fn key(s: &State) -> u128 {
    s.tops()
        .iter()
        .fold(0u128, |k, t| k << 6 | t.map_or(0, |c| c.code() as u128 + 1))
}

fn solvable(s: &State, memo: &mut HashMap<u128, bool>) -> bool {
    if s.stack_count() <= 1 {
        return true;
    }
    let k = key(s);
    if let Some(&v) = memo.get(&k) {
        return v;
    }
    let v = s
        .legal_moves()
        .into_iter()
        .any(|m| solvable(&s.apply(m).unwrap(), memo));
    memo.insert(k, v);
    v
}

/// Visits every distinct state down to `deepest`, counting it and whether it is solvable.
fn visit(
    s: &State,
    depth: usize,
    deepest: usize,
    seen: &mut [HashSet<u128>],
    counts: &mut [(u64, u64)],
    memo: &mut HashMap<u128, bool>,
) {
    if !seen[depth].insert(key(s)) {
        return;
    }
    counts[depth].0 += 1;
    counts[depth].1 += solvable(s, memo) as u64;
    if depth < deepest {
        for m in s.legal_moves() {
            visit(&s.apply(m).unwrap(), depth + 1, deepest, seen, counts, memo);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let deal: i32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let s = boaf_core::engine::deal::deal(deal);
    let deepest: usize = args
        .get(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(s.stack_count() / 2)
        .min(s.stack_count() - 1);
    let started = Instant::now();
    let mut seen = vec![HashSet::new(); deepest + 1];
    let mut counts = vec![(0u64, 0u64); deepest + 1];
    let mut memo = HashMap::new();
    visit(&s, 0, deepest, &mut seen, &mut counts, &mut memo);
    for (d, (states, solvable)) in counts.iter().enumerate() {
        println!("{d} {states} {solvable}");
    }
    println!(
        "deal {deal} to depth {deepest}: {:.2} s, {} memo entries",
        started.elapsed().as_secs_f64(),
        memo.len()
    );
}
