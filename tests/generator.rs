//! The generator: energies in the search, determinism, shards, cancel, the store.

use boaf::analysis::AnalysisOptions;
use boaf::energy::builtin;
use boaf::features::features;
use boaf::generator::{Candidate, Generator, Job, Message, shard};
use boaf::notation::parse_state;
use boaf::search::{SearchParams, accepts, hill_descent};
use boaf::solver::Limits;
use boaf::store::{PuzzleStore, parse_store};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use std::time::{Duration, Instant};

fn job(
    n: usize,
    energy: &str,
    iterations: usize,
    seed: u64,
    indices: std::ops::Range<usize>,
) -> Job {
    Job {
        n,
        energy: builtin().get(energy).unwrap().clone(),
        seed,
        params: SearchParams {
            iterations,
            ..SearchParams::paper(n)
        },
        indices,
        memory_cap: 1 << 30,
    }
}

/// Runs a job to the end and returns its candidates in batch order.
fn run(job: Job, workers: usize) -> Vec<Candidate> {
    let g = Generator::start(job, workers, None);
    let mut out = Vec::new();
    loop {
        match g.messages().recv_timeout(Duration::from_secs(120)).unwrap() {
            Message::Candidate(c) => out.push(*c),
            Message::Error { index, message } => panic!("puzzle {index}: {message}"),
            Message::Finished { made, cancelled } => {
                assert!(!cancelled);
                assert_eq!(made, out.len());
                break;
            }
            Message::Progress { iteration, of, .. } => assert!(iteration <= of),
        }
    }
    g.join();
    out.sort_by_key(|c| c.index);
    out
}

/// What must not change between runs (not the timings).
fn essence(c: &Candidate) -> (usize, String, u64, Vec<u64>, usize) {
    (
        c.index,
        c.puzzle.clone(),
        c.energy.to_bits(),
        c.trace.iter().map(|e| e.to_bits()).collect(),
        c.evaluations,
    )
}

#[test]
fn same_seed_same_puzzles_whatever_the_workers() {
    let one = run(job(7, "E3", 300, 42, 0..6), 1);
    let two = run(job(7, "E3", 300, 42, 0..6), 2);
    assert_eq!(one.len(), 6);
    let e1: Vec<_> = one.iter().map(essence).collect();
    let e2: Vec<_> = two.iter().map(essence).collect();
    assert_eq!(e1, e2);
    // Another seed searches elsewhere.
    let other = run(job(7, "E3", 300, 43, 0..6), 2);
    assert_ne!(e1, other.iter().map(essence).collect::<Vec<_>>());
}

#[test]
fn shards_concatenate_to_the_batch() {
    let whole = run(job(6, "E2", 200, 9, 0..7), 2);
    let mut parts = Vec::new();
    for i in 0..3 {
        parts.extend(run(job(6, "E2", 200, 9, shard(7, i, 3)), 1));
    }
    assert_eq!(
        whole.iter().map(essence).collect::<Vec<_>>(),
        parts.iter().map(essence).collect::<Vec<_>>()
    );
    let sizes: Vec<usize> = (0..3).map(|i| shard(7, i, 3).len()).collect();
    assert_eq!(sizes, [2, 2, 3]);
}

#[test]
fn candidates_are_solvable_and_their_features_recompute() {
    for (n, energy) in [(5, "E0"), (6, "E1"), (7, "E3"), (8, "E4"), (8, "E5")] {
        let book = builtin();
        let e = book.get(energy).unwrap();
        for c in run(job(n, energy, 250, n as u64, 0..3), 2) {
            let s = parse_state(&c.puzzle, None).unwrap();
            assert_eq!(s.stack_count(), n);
            let (f, _) = features(&s, &AnalysisOptions::default()).unwrap();
            assert!(f.solvable, "{energy}: {} is unsolvable", c.puzzle);
            assert_eq!(c.features, f);
            // The energy the search saw is the energy of the exact features.
            assert_eq!(c.energy, e.eval(&f), "{energy} {}", c.puzzle);
            assert_eq!(c.energy_id, e.id());
            assert_eq!(c.trace.len(), 251);
            let min = c.trace.iter().copied().fold(f64::INFINITY, f64::min);
            assert_eq!(c.energy, min, "the best is the least energy met");
        }
    }
}

#[test]
fn descent_without_uphill_steps_never_rises() {
    let e = builtin().get("E3").unwrap().clone();
    let params = SearchParams {
        iterations: 400,
        uphill: 0.0,
        ..SearchParams::paper(8)
    };
    let found = hill_descent(8, &e, &params, 5, Limits::default(), |_| {}).unwrap();
    assert!(found.trace.windows(2).all(|w| w[1] <= w[0]));
    assert_eq!(found.energy, *found.trace.last().unwrap());
    assert!(found.evaluations >= 2 && found.evaluations <= 401);
    // With every uphill step kept, the trace does rise somewhere.
    let params = SearchParams {
        uphill: 1.0,
        ..params
    };
    let found = hill_descent(8, &e, &params, 5, Limits::default(), |_| {}).unwrap();
    assert!(found.trace.windows(2).any(|w| w[1] > w[0]));
}

#[test]
fn acceptance_rule() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    for _ in 0..1000 {
        assert!(accepts(1.0, 2.0, 0.0, &mut rng));
        assert!(accepts(2.0, 2.0, 0.0, &mut rng));
        assert!(!accepts(3.0, 2.0, 0.0, &mut rng));
        assert!(accepts(3.0, 2.0, 1.0, &mut rng));
    }
    // Uphill steps are kept with probability 0.005: 200 000 tries give
    // 1000 ± 32 (one standard deviation); allow five.
    let kept = (0..200_000)
        .filter(|_| accepts(3.0, 2.0, 0.005, &mut rng))
        .count();
    assert!((840..=1160).contains(&kept), "{kept}");
}

#[test]
fn cancel_stops_workers_mid_analysis() {
    // Sixteen cards under E5: every step is an exact analysis of seconds.
    let g = Generator::start(job(16, "E5", 2500, 1, 0..4), 2, None);
    std::thread::sleep(Duration::from_millis(700));
    let asked = Instant::now();
    g.cancel();
    loop {
        match g.messages().recv_timeout(Duration::from_secs(10)).unwrap() {
            Message::Finished { cancelled, .. } => {
                assert!(cancelled);
                break;
            }
            Message::Candidate(_) => panic!("no 16-card puzzle finishes in 0.7 s"),
            _ => {}
        }
    }
    let waited = asked.elapsed();
    eprintln!("cancel took {waited:?}");
    g.join();
    assert!(
        waited < Duration::from_millis(200),
        "cancel took {waited:?}"
    );
}

#[test]
fn store_drops_isomorphic_puzzles_and_skips_a_torn_line() {
    let dir = std::env::temp_dir().join(format!("boaf-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("sub/p.jsonl");
    let cands = run(job(6, "E2", 100, 3, 0..3), 1);
    {
        let (mut store, skipped) = PuzzleStore::open(&path).unwrap();
        assert!(skipped.is_empty());
        for c in &cands {
            assert!(store.add(c).unwrap());
        }
        // The same puzzle again, and a mirror image of the first: dropped.
        assert!(!store.add(&cands[0]).unwrap());
        let mut mirror = cands[0].clone();
        let s = parse_state(&mirror.puzzle, None).unwrap();
        let tops: Vec<_> = (0..16).map(|i| s.top((i / 4) * 4 + 3 - i % 4)).collect();
        mirror.puzzle = boaf::notation::to_compact(&boaf::State::new(s.grid(), &tops).unwrap());
        assert_ne!(mirror.puzzle, cands[0].puzzle);
        assert!(!store.add(&mirror).unwrap());
        assert_eq!(store.len(), 3);
    }
    // A crash mid-write leaves half a line.
    let mut text = std::fs::read_to_string(&path).unwrap();
    let line = serde_json::to_string(&cands[0]).unwrap();
    text.push_str(&line[..line.len() / 2]);
    std::fs::write(&path, &text).unwrap();
    let (read, skipped) = parse_store(&text);
    assert_eq!(read, cands);
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0].torn);
    assert_eq!(skipped[0].line, 4);
    // Reopening carries on after the torn line.
    let (mut store, skipped) = PuzzleStore::open(&path).unwrap();
    assert_eq!(skipped.len(), 1);
    let more = run(job(6, "E2", 100, 4, 0..1), 1);
    assert!(store.add(&more[0]).unwrap());
    let (read, skipped) = parse_store(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(read.len(), 4);
    assert_eq!(skipped.len(), 1);
    assert!(!skipped[0].torn, "no longer the last line");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn estimate_then_confirm_ends_on_an_exact_energy() {
    use boaf::search::HalfwayMode;
    let e = builtin().get("E5").unwrap().clone();
    for mode in [HalfwayMode::Estimate, HalfwayMode::Confirm] {
        let params = SearchParams {
            iterations: 120,
            halfway: mode,
            samples: 500,
            confirm: 3,
            ..SearchParams::paper(12)
        };
        let found = hill_descent(12, &e, &params, 3, Limits::default(), |_| {}).unwrap();
        let (f, _) = features(&found.best, &AnalysisOptions::default()).unwrap();
        assert!(f.solvable);
        let exact = e.eval(&f);
        match mode {
            // The leaders by estimate were analysed exactly: the result
            // carries its exact energy.
            HalfwayMode::Confirm => {
                assert_eq!(found.energy, exact);
                assert_eq!(found.features, Some(f.clone()));
            }
            // Scored by estimate: the trace holds estimates, and the best is
            // the least of them.
            _ => {
                let min = found.trace.iter().copied().fold(f64::INFINITY, f64::min);
                assert_eq!(found.energy, min);
            }
        }
    }
}

#[test]
fn a_short_budget_goes_on_until_a_puzzle_is_solvable() {
    // Four random cards are rarely solvable; one step rarely finds a solvable
    // puzzle, so the search must go on past its budget.
    let e = builtin().get("E0").unwrap().clone();
    let params = SearchParams {
        iterations: 1,
        ..SearchParams::paper(4)
    };
    let mut extended = 0;
    for seed in 0..30 {
        let found = hill_descent(4, &e, &params, seed, Limits::default(), |_| {}).unwrap();
        let (f, _) = features(&found.best, &AnalysisOptions::default()).unwrap();
        assert!(f.solvable, "seed {seed}");
        assert_eq!(found.energy, 0.0);
        extended += (found.trace.len() > 2) as usize;
    }
    assert!(extended > 0, "some starts were unsolvable");
}
