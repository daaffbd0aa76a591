//! Property tests against the independent naive search in `common`.

mod common;

use boaf_core::engine::analysis::{AnalysisOptions, Depth, analyze};
use boaf_core::engine::board::Layout;
use boaf_core::engine::feature::{Feature, FeatureSet};
use boaf_core::engine::features::{features, features_for, halfway_features};
use boaf_core::engine::full_table::analyze_by_merges;
use boaf_core::engine::halfway::{Merges, WalkLists, halfway_on_threads};
use boaf_core::engine::limits::Limits;
use boaf_core::engine::notation::{
    parse_puzzle, parse_state, puzzle_id, to_compact, to_compact_dots, to_grid,
};
use boaf_core::engine::shallow::shallow_counts;
use boaf_core::engine::solver::{Solver, Verdict, classify};
use common::{arb_state, naive_layers, naive_solvable};
use proptest::prelude::*;
use std::collections::HashMap;

/// The random states must mix solvable and unsolvable ones, with several
/// stacks, or the properties below would prove little.
#[test]
fn random_states_are_a_real_mix() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut solvable, mut big) = (0, 0);
    for _ in 0..400 {
        let s = arb_state(10).new_tree(&mut runner).unwrap().current();
        solvable += naive_solvable(&s, &mut HashMap::new()) as usize;
        big += (s.stack_count() >= 6) as usize;
    }
    assert!((80..=360).contains(&solvable), "{solvable} of 400 solvable");
    eprintln!("{solvable} of 400 solvable, {big} with 6 or more stacks");
    assert!(big >= 100, "{big} of 400 with 6 or more stacks");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn notation_round_trips(s in arb_state(16)) {
        let grid = Some(s.grid());
        prop_assert_eq!(&parse_state(&to_compact(&s), grid).unwrap(), &s);
        prop_assert_eq!(&parse_state(&to_compact_dots(&s), grid).unwrap(), &s);
        // A one-cell grid prints like a compact state, so the grid is given here too.
        prop_assert_eq!(&parse_state(&to_grid(&s), grid).unwrap(), &s);
        prop_assert_eq!(&parse_state(&to_grid(&s).replace('\n', " / "), grid).unwrap(), &s);
        // The id needs no grid: its shape gives it; and it is safe in a link.
        let id = puzzle_id(&s);
        prop_assert_eq!(&parse_puzzle(&id).unwrap(), &s);
        prop_assert!(id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '/'), "{}", id);
    }

    #[test]
    fn solver_agrees_with_exhaustive_search(s in arb_state(10)) {
        let truth = naive_solvable(&s, &mut HashMap::new());
        match Solver::default().solve(&s).unwrap() {
            Verdict::Solvable(path) => {
                prop_assert!(truth, "solver found a path the naive search says cannot exist");
                prop_assert_eq!(path.len(), s.stack_count() - 1);
                prop_assert!(s.replay(&path).unwrap().is_solved());
            }
            Verdict::Unsolvable(_) => prop_assert!(!truth, "solver missed a solution"),
        }
    }

    #[test]
    fn pruning_never_condemns_a_solvable_state(s in arb_state(10)) {
        let (lay, board) = Layout::new(&s);
        if classify(&lay, &board).is_some() {
            prop_assert!(!naive_solvable(&s, &mut HashMap::new()));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn analysis_matches_naive_layers(s in arb_state(9), cut in 0usize..9, threads in 1usize..=2) {
        let naive = naive_layers(&s);
        let a = analyze(&s, &AnalysisOptions { threads, ..Default::default() }).unwrap();
        let got: Vec<(u64, u64)> = a.depths.iter().map(|d| (d.states, d.solvable)).collect();
        prop_assert_eq!(&got, &naive);
        for d in &a.depths {
            prop_assert!((0.0..=1.0).contains(&d.ratio()));
            if let Some(t) = d.tension {
                prop_assert!((0.0..=1.0).contains(&t));
            }
        }
        // Solvable ⇒ every ratio on the way is positive.
        if naive[0].1 == 1 {
            prop_assert!(a.depths.iter().all(|d| d.ratio() > 0.0));
        }
        // A truncated analysis settles its last layer with the solver: same counts.
        let short = analyze(&s, &AnalysisOptions { depth: Depth::To(cut), ..Default::default() }).unwrap();
        prop_assert_eq!(&short.depths[..], &a.depths[..short.depths.len()]);
        let (f, _) = features(&s, &AnalysisOptions::default()).unwrap();
        prop_assert_eq!(f.solvable, naive[0].1 == 1);
        prop_assert_eq!(f.halfway_ratio, a.ratio(s.stack_count() / 2));
    }

    #[test]
    fn shallow_counts_match_naive_layers(s in arb_state(10), depth in 0usize..4) {
        let naive = common::naive_layers_to(&s, depth);
        let got = shallow_counts(&s, depth, &Limits::default()).unwrap();
        prop_assert_eq!(&got, &naive);
        // The features a shallow need gives agree with the full features.
        let (full, _) = features(&s, &AnalysisOptions::default()).unwrap();
        let part = features_for(&s, FeatureSet::of(&[Feature::depth_ratio(depth.max(1)).unwrap()]), &AnalysisOptions::default()).unwrap();
        prop_assert_eq!(part.solvable, full.solvable);
        prop_assert_eq!(part.depth1_ratio, full.depth1_ratio);
        prop_assert_eq!(part.depth2_ratio, if depth >= 2 { full.depth2_ratio } else { None });
        prop_assert_eq!(part.halfway_ratio, None);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// The fast halfway counts (sets of pairs forward, one stack backward)
    /// against the naive layers, at the halfway depth and at every other.
    #[test]
    fn fast_halfway_matches_naive_layers(s in arb_state(10), depth in 0usize..10, threads in 1usize..=3) {
        let naive = naive_layers(&s);
        let h = halfway_on_threads(&s, true, threads, &Limits::default()).unwrap();
        let states: Vec<u64> = naive[..=h.depth].iter().map(|c| c.0).collect();
        prop_assert_eq!(&h.states, &states);
        prop_assert_eq!(h.solvable, naive[h.depth].1);
        let a = analyze(&s, &AnalysisOptions::default()).unwrap();
        prop_assert_eq!(h.ratio(), a.halfway_ratio().unwrap());
        match (h.tension, a.midgame_tension()) {
            (Some(x), Some(y)) => prop_assert!((x - y).abs() < 1e-12, "tension {} against {}", x, y),
            (x, y) => prop_assert_eq!(x, y),
        }
        // Any other depth, both ways.
        let limits = Limits::default();
        let merges = Merges::new(&s, &limits).unwrap();
        let d = depth.min(naive.len() - 1);
        let counted = merges.count_states(d, &limits).unwrap();
        let all: Vec<u64> = naive[..=d].iter().map(|c| c.0).collect();
        prop_assert_eq!(counted, all);
        let kept = d % 2 == 1;
        let mut lists = WalkLists::default();
        // The depths past `d` are counted when asked for, or listed.
        let deeper = depth % 3 != 0;
        let back = merges.walk_back(threads, 0, d, kept, deeper, &mut lists, &limits, |_| ()).unwrap();
        let listed = if kept { naive[d].1 } else { 0 };
        prop_assert_eq!(back.at_depth.len() as u64, listed);
        for (i, c) in naive.iter().enumerate() {
            let counted = deeper || i <= d || (kept && i == d + 1);
            prop_assert_eq!(back.count(i), counted.then_some(c.1), "solvable at depth {}", i);
        }
        prop_assert_eq!(merges.can_merge(merges.all_cards()), naive[0].1 == 1);
        // Every feature, exactly as the full analysis gives it.
        prop_assert_eq!(halfway_features(&s, &AnalysisOptions::default()).unwrap(), features(&s, &AnalysisOptions::default()).unwrap().0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    /// The table by sets of pairs and the walk back (no layers) is the
    /// layers' table: states, solvable states and tension to the bit, at
    /// every depth and when cut short.
    #[test]
    fn merged_table_is_the_layers_table(s in arb_state(12), cut in 0usize..12, threads in 1usize..=2) {
        for depth in [Depth::Last, Depth::To(cut)] {
            let opts = AnalysisOptions { depth, ..Default::default() };
            let layers = analyze(&s, &opts).unwrap();
            let merged = analyze_by_merges(&s, &AnalysisOptions { threads, ..opts }).unwrap();
            prop_assert_eq!(merged.stacks, layers.stacks);
            prop_assert_eq!(&merged.depths, &layers.depths);
            let bits = |a: &boaf_core::engine::analysis::Analysis| -> Vec<Option<u64>> {
                a.depths.iter().map(|d| d.tension.map(f64::to_bits)).collect()
            };
            prop_assert_eq!(bits(&merged), bits(&layers));
        }
    }
}
