//! Deals 0..9999: exactly the 24 unsolvable deals of DESIGN.md, and every
//! solution path replays legally to one stack.

use boaf_core::engine::deal::deal;
use boaf_core::engine::solver::{Solver, Verdict};

const UNSOLVABLE: [i32; 24] = [
    10, 190, 397, 520, 1163, 1264, 1309, 1646, 3118, 3254, 3481, 4132, 4574, 4722, 5426, 5609,
    5722, 6007, 6727, 7017, 7551, 8091, 8550, 9451,
];

#[test]
fn deals_0_to_9999() {
    let threads = 2;
    let found: Vec<i32> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let mut solver = Solver::default();
                    let mut unsolvable = Vec::new();
                    for n in (t..10_000).step_by(threads as usize) {
                        let state = deal(n);
                        match solver.solve(&state).unwrap() {
                            Verdict::Solvable(path) => {
                                assert_eq!(path.len(), 15, "deal {n}: 16 cards take 15 moves");
                                let end = state.replay(&path).unwrap_or_else(|(i, e)| {
                                    panic!("deal {n}: move {i} of the solution is illegal: {e}")
                                });
                                assert!(end.is_solved(), "deal {n}");
                                assert_eq!(end.score(), 256, "deal {n}: one stack of 16");
                            }
                            Verdict::Unsolvable(_) => unsolvable.push(n),
                        }
                    }
                    unsolvable
                })
            })
            .collect();
        let mut all: Vec<i32> = workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect();
        all.sort();
        all
    });
    assert_eq!(found, UNSOLVABLE);
}
