//! The descent's unit tests: screened steps, the warm-up, restarts.

use super::hill::random_cells;
use super::scorer::{EMPTY, to_state};
use super::*;
use crate::engine::card::Card;
use crate::engine::feature::FeatureSet;
use crate::engine::features::features_for;
use crate::engine::halfway::{Merges, halfway};
use crate::engine::limits::Limits;
use crate::engine::state::{Grid, MAX_CELLS, State};
use crate::generator::energy::builtin;
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

/// Solvable ÷ distinct states at the halfway depth, and the latter.
fn exact_ratio(state: &State) -> (f64, u64) {
    let h = halfway(state, false, &Limits::default()).unwrap();
    (h.ratio(), h.halfway_states())
}

/// The groupings into as many stacks as the halfway depth leaves: at
/// least its distinct states.
fn groupings(state: &State) -> u64 {
    let merges = Merges::new(state, &Limits::default()).unwrap();
    let n = merges.cards();
    merges.groupings(n - n / 2)
}

#[test]
fn a_screened_step_is_worse_even_with_the_screens_share_of_states() {
    let e5 = builtin().get("E5").unwrap().clone();
    let screen = 2.0;
    let mut scorer = Scorer::new(&e5, Limits::default(), HalfwayMode::Exact, 1).screening(screen);
    let grid = Grid::new(4, 4).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    // Steps screened by the groupings alone, where the screen lets pass.
    let (mut screened, mut scored, mut by_bound) = (0, 0, 0);
    while screened < 10 || scored < 10 || by_bound == 0 {
        let (bar_cells, _) = random_cells(12, 16, &mut rng);
        let bar = scorer.score(&bar_cells, grid).unwrap();
        if !bar.solvable {
            continue;
        }
        let (bar_ratio, bar_states) = exact_ratio(&to_state(&bar_cells, grid));
        assert_eq!(bar.energy, bar_ratio);
        assert_eq!(bar.halfway_states, Some(bar_states));
        let (cells, _) = random_cells(12, 16, &mut rng);
        let state = to_state(&cells, grid);
        match scorer.judge(&cells, grid, Some(bar)).unwrap() {
            Judged::Screened => {
                // Its numerator over `screen` times the bar's states, or
                // over the groupings, already beats the bar's ratio; over
                // the groupings, so does its own ratio, which that bounds.
                let (ratio, states) = exact_ratio(&state);
                let solvable = (ratio * states as f64).round();
                let lowest = solvable / (screen * bar_states as f64);
                let bounded = solvable / groupings(&state) as f64;
                assert!(lowest > bar.energy || (bounded > bar.energy && ratio > bar.energy));
                by_bound += (lowest <= bar.energy) as usize;
                screened += 1;
                // The walk stopped at the bar, so what the scorer kept is
                // a lower bound: against a bar the whole numerator does
                // not beat, the step is scored exactly, not screened.
                let loose = Score {
                    energy: lowest.max(bounded),
                    ..bar
                };
                let Judged::Scored(again) = scorer.judge(&cells, grid, Some(loose)).unwrap() else {
                    panic!("screened against a bar it does not beat");
                };
                assert_eq!(again.energy, ratio);
            }
            Judged::Scored(score) => {
                let exact = e5.eval(&features_for(&state, FeatureSet::ALL, &scorer.opts).unwrap());
                assert_eq!(score.energy, exact);
                // Not screened: not beaten by its whole numerator either
                // (unsolvable puzzles score the penalty, never screened).
                if score.solvable {
                    let solvable = (exact * score.halfway_states.unwrap() as f64).round();
                    assert!(solvable / (screen * bar_states as f64) <= bar.energy);
                    assert!(solvable / groupings(&state) as f64 <= bar.energy);
                }
                scored += 1;
            }
        }
    }
}

#[test]
fn a_screened_search_keeps_exact_energies() {
    let e5 = builtin().get("E5").unwrap().clone();
    let params = SearchParams {
        iterations: 150,
        ..SearchParams::for_cards(12)
    };
    assert_eq!(params.screen, DEFAULT_SCREEN);
    let found = hill_descent(12, &e5, &params, 7, Limits::default(), |_| {}).unwrap();
    assert!(found.screened > 0, "some steps were screened");
    assert_eq!(found.energy, exact_ratio(&found.best).0);
    assert_eq!(found.trace.len(), 151);
    let least = found.trace.iter().copied().fold(f64::INFINITY, f64::min);
    assert_eq!(found.energy, least, "the best is the least energy met");
}

#[test]
fn a_warm_up_hands_over_to_exact_scores() {
    let e5 = builtin().get("E5").unwrap().clone();
    for warmup in [DEFAULT_WARMUP, 0.999] {
        let params = SearchParams {
            iterations: 80,
            warmup,
            ..SearchParams::for_cards(13)
        };
        let mut scorer = Scorer::new(&e5, Limits::default(), HalfwayMode::Exact, 1);
        let found = hill_descent(13, &e5, &params, 2, Limits::default(), |_| {}).unwrap();
        // The best is scored exactly, whatever the warm-up scored by
        // estimate before it (a quarter of the steps at 0.999).
        assert_eq!(found.energy, exact_ratio(&found.best).0, "warm-up {warmup}");
        let cells: Vec<Option<Card>> = (0..16).map(|c| found.best.top(c)).collect();
        let mut codes = [EMPTY; MAX_CELLS];
        for (i, c) in cells.iter().enumerate() {
            codes[i] = c.map_or(EMPTY, |c| c.code());
        }
        let again = scorer.score(&codes, found.best.grid()).unwrap();
        assert_eq!(again.energy, found.energy);
        let last = *found.trace.last().unwrap();
        assert!(found.energy <= last, "the best is no worse than the last");
    }
}

#[test]
fn restarts_share_the_steps() {
    let e5 = builtin().get("E5").unwrap().clone();
    let params = SearchParams {
        iterations: 90,
        restarts: 2,
        uphill: 0.0,
        ..SearchParams::for_cards(10)
    };
    let found = hill_descent(10, &e5, &params, 5, Limits::default(), |_| {}).unwrap();
    let t = &found.trace;
    assert_eq!(t.len(), 91);
    // With no uphill steps each descent never rises; only a fresh start
    // (steps 31 and 61) can, and after a descent that made progress one does.
    for leg in [&t[..31], &t[31..61], &t[61..]] {
        assert!(leg.windows(2).all(|w| w[1] <= w[0]), "{leg:?}");
    }
    assert!(t[31] > t[30] || t[61] > t[60], "{t:?}");
    assert_eq!(found.energy, exact_ratio(&found.best).0);
    let least = t.iter().copied().fold(f64::INFINITY, f64::min);
    assert_eq!(found.energy, least);
}
