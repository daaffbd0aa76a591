//! Perft-style counts: distinct and solvable states per depth for fixed deals.
//! Any change to the rules, the keys or the search that alters them is caught here.

mod common;

use boaf_core::engine::analysis::{AnalysisOptions, Depth, analyze};
use boaf_core::engine::deal::deal;
use boaf_core::engine::notation::parse_state;

/// Deal 1, depths 0..8, as measured with a slow independent solver (issue 2).
const DEAL1_STATES: [u64; 9] = [1, 40, 704, 7280, 49558, 233840, 782258, 1873049, 3216593];
const DEAL1_SOLVABLE: [u64; 9] = [1, 40, 571, 3506, 11794, 24987, 36750, 40951, 37461];

fn counts(a: &boaf_core::engine::analysis::Analysis) -> (Vec<u64>, Vec<u64>) {
    (
        a.depths.iter().map(|d| d.states).collect(),
        a.depths.iter().map(|d| d.solvable).collect(),
    )
}

#[test]
fn deal_1_to_depth_8() {
    for threads in [1, 2] {
        let opts = AnalysisOptions {
            depth: Depth::To(8),
            threads,
            ..Default::default()
        };
        let a = analyze(&deal(1), &opts).unwrap();
        let (states, solvable) = counts(&a);
        assert_eq!(states, DEAL1_STATES, "{threads} thread(s)");
        assert_eq!(solvable, DEAL1_SOLVABLE, "{threads} thread(s)");
        assert_eq!(a.halfway_ratio(), Some(37461.0 / 3216593.0));
    }
}

#[test]
fn fast_halfway_of_deal_1_and_two_e5_puzzles() {
    use boaf_core::engine::halfway::{WalkLists, halfway, halfway_on_threads};
    use boaf_core::engine::limits::Limits;
    let h = halfway(&deal(1), true, &Limits::default()).unwrap();
    assert_eq!(h.states, DEAL1_STATES);
    assert_eq!(h.solvable, DEAL1_SOLVABLE[8]);
    // On threads: the same counts and, to the bit, the same tension (the
    // solvable states listed in the same order).
    for threads in [2, 3] {
        let shared = halfway_on_threads(&deal(1), true, threads, &Limits::default()).unwrap();
        assert_eq!(shared.states, DEAL1_STATES, "{threads} threads");
        assert_eq!(shared.solvable, DEAL1_SOLVABLE[8], "{threads} threads");
        assert_eq!(
            shared.tension.map(f64::to_bits),
            h.tension.map(f64::to_bits),
            "{threads} threads"
        );
    }
    // Walking back to depth 1 passes boards of 13 to 15 stacks, whose keys
    // need more than 64 bits.
    let limits = Limits::default();
    let merges = boaf_core::engine::halfway::Merges::new(&deal(1), &limits).unwrap();
    for threads in [1, 2, 4] {
        let walk = merges
            .walk_back(
                threads,
                1,
                8,
                false,
                false,
                &mut WalkLists::default(),
                &limits,
                |_| (),
            )
            .unwrap();
        let solvable: Vec<u64> = (0..=8).map(|d| walk.count(d).unwrap_or(1)).collect();
        assert_eq!(solvable, DEAL1_SOLVABLE, "{threads} threads");
        assert_eq!(walk.count(0), None, "the walk stopped at depth 1");
    }
    // Two puzzles 400 E5 steps found (issue 11), both checked against the
    // full analysis: solvable states per depth 1 6 14 16 10 5 4 3 2 and
    // 1 7 14 19 22 22 19 16 15.
    for (puzzle, states, solvable) in [
        ("9D3H2HKC6S4DJC7SAC3C9SQC4H7DADKH", 193_162, 2),
        ("KS2D2C3H7C8D4HADAC6HJSTS7HTD6D5H", 440_460, 15),
    ] {
        let h = halfway(
            &parse_state(puzzle, None).unwrap(),
            false,
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(
            (h.halfway_states(), h.solvable),
            (states, solvable),
            "{puzzle}"
        );
        assert_eq!(h.tension, None, "not asked for");
    }
}

/// Checks that the halfway ratio of deal 1 tells each step as it ends,
/// against `full`, deal 1's full analysis (shared with the test below, as
/// it takes seconds).
fn the_halfway_ratio_tells_each_step_as_it_ends(full: &boaf_core::engine::analysis::Analysis) {
    use boaf_core::engine::halfway::{Step, Told, halfway_told};
    use boaf_core::engine::limits::Limits;
    use std::sync::Mutex;
    // The walk back's depths, 15 down to 8, with their solvable states
    // told at the halfway depth only: the deeper ones are walked through.
    let walked: Vec<Step> = (8..16)
        .rev()
        .map(|depth| Step::Walked {
            depth,
            solvable: (depth == 8).then_some(full.depths[depth].solvable),
        })
        .collect();
    // Asked for, the deeper depths are counted too, as the analysis has
    // them.
    let merges = boaf_core::engine::halfway::Merges::new(&deal(1), &Limits::default()).unwrap();
    for threads in [1, 2] {
        let mut lists = boaf_core::engine::halfway::WalkLists::default();
        let mut heard = Vec::new();
        let walk = merges
            .walk_back(
                threads,
                8,
                8,
                false,
                true,
                &mut lists,
                &Limits::default(),
                |b| heard.push(b.map(|b| b as u64)),
            )
            .unwrap();
        let full_counts: Vec<Option<u64>> = (8..16)
            .rev()
            .map(|d| Some(full.depths[d].solvable))
            .collect();
        assert_eq!(heard, full_counts, "{threads} thread(s)");
        let counts: Vec<Option<u64>> = (8..16).rev().map(|d| walk.count(d)).collect();
        assert_eq!(counts, full_counts, "{threads} thread(s)");
    }
    let counted = Step::Counted {
        states: DEAL1_STATES[8],
    };
    for threads in [1, 2] {
        for tension in [false, true] {
            let heard = Mutex::new(Vec::new());
            let hook = |told: Told| heard.lock().unwrap().push(told);
            let limits = Limits::default();
            let h = halfway_told(&deal(1), tension, threads, &limits, Some(&hook)).unwrap();
            assert_eq!(h.solvable, DEAL1_SOLVABLE[8]);
            let heard = heard.into_inner().unwrap();
            let of = 8 + 1 + tension as usize;
            let case = format!("{threads} thread(s), tension {tension}");
            assert!(heard.iter().all(|t| t.of == of), "{case}");
            let done: Vec<usize> = heard.iter().map(|t| t.done).collect();
            let mut sorted = done.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (1..=of).collect::<Vec<_>>(), "{case}");
            // On one thread the count ends first; on two it runs beside the
            // walk, whose depths end in order all the same.
            let mut steps: Vec<Step> = heard.iter().map(|t| t.step).collect();
            let at = steps.iter().position(|&s| s == counted).expect("the count");
            if threads == 1 {
                assert_eq!((at, done.clone()), (0, sorted.clone()), "{case}");
                // In words, as the CLI's bar and the app's editor show them.
                let words: Vec<String> = heard.iter().map(|t| t.to_string()).collect();
                let counted =
                    format!("3,216,593 states counted at the halfway depth (1 of {of} steps)");
                let deepest = format!("walked back to depth 15 (2 of {of} steps)");
                assert_eq!((&words[0], &words[1]), (&counted, &deepest), "{case}");
                let last = format!("walked back to depth 8: 37,461 solvable (9 of {of} steps)");
                assert_eq!(words[8], last, "{case}");
                if tension {
                    assert_eq!(words[9], "tension read (10 of 10 steps)");
                }
            }
            steps.remove(at);
            let mut expected = walked.clone();
            if tension {
                // The tension lists depth 9's boards, so they are counted.
                expected[6] = Step::Walked {
                    depth: 9,
                    solvable: Some(full.depths[9].solvable),
                };
                expected.push(Step::Tension);
            }
            assert_eq!(steps, expected, "{case}");
        }
    }
}

#[test]
fn full_depth_agrees_with_the_truncated_analysis() {
    // Settling depth 8 by the solver or by marking back from depth 15 must agree.
    let full = analyze(&deal(1), &AnalysisOptions::default()).unwrap();
    assert_eq!(full.depths.len(), 16);
    let (states, solvable) = counts(&full);
    assert_eq!(states[..9], DEAL1_STATES);
    assert_eq!(solvable[..9], DEAL1_SOLVABLE);
    // The last layer is one stack: every state solved.
    assert_eq!(states[15], solvable[15]);
    for d in &full.depths {
        assert!(d.solvable <= d.states && d.solvable > 0);
    }
    // The same analysis checks what the halfway ratio tells as it goes.
    the_halfway_ratio_tells_each_step_as_it_ends(&full);
}

#[test]
fn seed_001_figure_2_puzzles_match_the_naive_search() {
    // The iteration-2 and iteration-3 8-card puzzles of seed 001's Figure 2.
    for text in [
        "-- -- -- 5S / JD 7C TC 3D / -- TS -- 3S / -- -- -- TH",
        "-- -- 5D -- / 4D -- 5H -- / -- KD 5C -- / 9S 9C 4C --",
    ] {
        let s = parse_state(text, None).unwrap();
        let a = analyze(&s, &AnalysisOptions::default()).unwrap();
        let (states, solvable) = counts(&a);
        let naive = common::naive_layers(&s);
        assert_eq!(
            states,
            naive.iter().map(|x| x.0).collect::<Vec<_>>(),
            "{text}"
        );
        assert_eq!(
            solvable,
            naive.iter().map(|x| x.1).collect::<Vec<_>>(),
            "{text}"
        );
    }
}

/// The table by sets of pairs and the walk back against the layers' table,
/// every field but the memory estimate, tension to the bit; false when the
/// layers need more than `boaf analyze`'s cap.
fn assert_same_tables(state: &boaf_core::engine::state::State, what: &str) -> bool {
    use boaf_core::engine::full_table::analyze_by_merges;
    use boaf_core::engine::limits::{ANALYSIS_CAP, Limits, SearchError};
    let opts = AnalysisOptions {
        limits: Limits::with_cap(ANALYSIS_CAP),
        ..Default::default()
    };
    let layers = match analyze(state, &opts) {
        Err(SearchError::MemoryCap { .. }) => return false,
        layers => layers.unwrap(),
    };
    // On one thread and on three (the count and each depth shared).
    for threads in [1, 3] {
        let opts = AnalysisOptions {
            threads,
            ..opts.clone()
        };
        let merged = analyze_by_merges(state, &opts).unwrap();
        assert_eq!(merged.stacks, layers.stacks, "{what}");
        assert_eq!(merged.depths, layers.depths, "{what}, {threads} threads");
        for (m, l) in merged.depths.iter().zip(&layers.depths) {
            let bits = |t: Option<f64>| t.map(f64::to_bits);
            assert_eq!(bits(m.tension), bits(l.tension), "{what} depth {}", m.depth);
        }
    }
    true
}

#[test]
fn merged_table_of_deal_1_and_two_e5_puzzles_is_the_layers_table() {
    assert!(assert_same_tables(&deal(1), "deal 1"));
    for puzzle in [
        "9D3H2HKC6S4DJC7SAC3C9SQC4H7DADKH",
        "KS2D2C3H7C8D4HADAC6HJSTS7HTD6D5H",
    ] {
        assert!(assert_same_tables(
            &parse_state(puzzle, None).unwrap(),
            puzzle
        ));
    }
}

/// Deals 0..9 at every depth: minutes, and gigabytes for the layers of
/// deals 2 and 5 (`cargo test --release -- --ignored`); the layers of deals
/// 6 and 9 pass `boaf analyze`'s cap of 4 GiB, which leaves eight.
#[test]
#[ignore]
fn merged_tables_of_deals_0_to_9_are_the_layers_tables() {
    let compared = (0..10)
        .filter(|&n| assert_same_tables(&deal(n), &format!("deal {n}")))
        .count();
    assert!(compared >= 8, "{compared} deals compared");
}
