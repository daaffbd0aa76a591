//! The grades: the rule on real puzzles against what the agents do, and the
//! human check (per-grade figures, the monotone verdict, the fit of the
//! budgets) on synthetic plays built to be monotone and not.

use boaf_core::Grid;
use boaf_core::agents::difficulty::add_difficulty;
use boaf_core::agents::grade::{Grade, GradeRule, grade};
use boaf_core::agents::{Greedy, Rng, Weights, play};
use boaf_core::engine::analysis::AnalysisOptions;
use boaf_core::engine::feature::FeatureSet;
use boaf_core::engine::features::{Features, features_for};
use boaf_core::engine::limits::Limits;
use boaf_core::engine::notation::parse_state;
use boaf_core::generator::energy::{holds, parse_condition};
use boaf_core::study::grades::{Distribution, Play, check, fit, is_synthetic, raters};
use rand::SeedableRng;

/// A puzzle's features with the agents' difficulty features.
fn with_difficulty(puzzle: &str) -> Features {
    let state = parse_state(puzzle, Some(Grid::new(4, 4).unwrap())).unwrap();
    let mut f = features_for(&state, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
    add_difficulty(&mut f, &state, FeatureSet::DIFFICULTY, &Limits::default()).unwrap();
    // The greedy feature is the greedy agent's own game.
    let game = play(
        &mut Greedy {
            weights: Weights::default(),
        },
        &state,
        &mut Rng::seed_from_u64(7),
    );
    assert_eq!(f.greedy_wins, Some(game.won), "{puzzle}");
    f
}

#[test]
fn the_rule_agrees_with_the_agents_on_real_puzzles() {
    // 8-card puzzles of ratings/example.csv, with what the agents do there.
    // (puzzle, greedy wins, MCTS budget, grade)
    let known = [
        // The greedy agent wins: Easy, however much MCTS needs.
        ("------------TS--9HJC4S8DTDJS--KD", true, 1, Grade::Easy),
        ("9H--TC--QH----3S4HJH------3HTD--", true, 200, Grade::Easy),
        // Greedy loses; MCTS wins on the smallest budget.
        ("--5H------KHTDAS2S2C------6D3D--", false, 1, Grade::Easy),
        // Greedy loses; MCTS needs 10 (> 5, <= 50).
        ("--7D--6C--3H--TC2H3D------AS--7S", false, 10, Grade::Medium),
        // MCTS needs 100 (> 50, <= 500).
        ("3CJC--8C3S5S----5H----6C--KS----", false, 100, Grade::Hard),
    ];
    for (puzzle, greedy, budget, want) in known {
        let f = with_difficulty(puzzle);
        assert_eq!(f.greedy_wins, Some(greedy), "{puzzle}");
        assert_eq!(f.mcts_budget, Some(budget), "{puzzle}");
        assert!(f.playout_win_rate.unwrap() < 0.25, "{puzzle}");
        assert_eq!(grade(&f), Some(want), "{puzzle}");
    }
    // A deal the solver proves unsolvable has no grade.
    let lost = boaf_core::engine::deal::deal(10);
    let mut f = features_for(&lost, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
    add_difficulty(&mut f, &lost, FeatureSet::DIFFICULTY, &Limits::default()).unwrap();
    assert_eq!(grade(&f), None);
    // One row of flocking cards: random playouts always win, so Easy.
    let row = parse_state("AH2H3H4H", Some(Grid::new(1, 4).unwrap())).unwrap();
    let mut f = features_for(&row, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
    add_difficulty(&mut f, &row, FeatureSet::DIFFICULTY, &Limits::default()).unwrap();
    assert_eq!(f.playout_win_rate, Some(1.0));
    assert_eq!(grade(&f), Some(Grade::Easy));
    // Their spread, and the condition language reading the same grade.
    let d = Distribution::of(&GradeRule::default(), [&f, &f]);
    assert_eq!((d.counts, d.unsolvable, d.missing), ([2, 0, 0, 0], 0, 0));
    let hard = with_difficulty("3CJC--8C3S5S----5H----6C--KS----");
    let cond = parse_condition("grade >= Medium and grade != expert").unwrap();
    assert!(holds(&cond, |x| hard.get(x)));
    assert!(!holds(&cond, |x| f.get(x)));
    assert!(holds(&parse_condition("grade == 2").unwrap(), |x| hard.get(x)));
}

#[test]
fn an_unknown_grade_in_a_condition_is_pointed_at() {
    let (at, message) = parse_condition("n >= 8 and grade >= Tricky").unwrap_err();
    assert_eq!(at, 20);
    assert_eq!(
        message,
        "unknown grade \"Tricky\": use Easy, Medium, Hard or Expert"
    );
    let (at, message) = parse_condition("Tricky < grade").unwrap_err();
    assert_eq!((at, message.contains("unknown grade")), (0, true));
    // Away from `grade`, an unknown name is still an unknown feature.
    let (_, message) = parse_condition("tricky < 2").unwrap_err();
    assert!(message.contains("unknown feature"), "{message}");
}

/// Deal 0 (16 cards, solvable) as if only MCTS solved it, at `budget`.
fn by_mcts(budget: u32) -> Features {
    let deal = boaf_core::engine::deal::deal(0);
    let mut f = features_for(&deal, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
    assert!(f.solvable);
    f.playout_win_rate = Some(0.0);
    f.greedy_wins = Some(false);
    f.mcts_budget = Some(budget);
    f
}

/// Eight plays of a puzzle at `budget`: `solved` of them solved in
/// `seconds`, the others given up after 300 s.
fn plays(budget: u32, solved: usize, seconds: f64) -> Vec<Play> {
    let f = by_mcts(budget);
    (0..8)
        .map(|i| {
            let won = i < solved;
            let rater = format!("synthetic-{}", i % 4);
            Play::new(&rater, won, if won { seconds } else { 300.0 }, &f)
        })
        .collect()
}

/// The plays of each (budget, solved of 8, seconds) in turn.
fn data(groups: &[(u32, usize, f64)]) -> Vec<Play> {
    groups
        .iter()
        .flat_map(|&(b, s, t)| plays(b, s, t))
        .collect()
}

#[test]
fn people_who_find_the_grades_harder_in_order_make_them_monotone() {
    let data = data(&[
        (1, 8, 10.0),
        (10, 6, 50.0),
        (100, 4, 100.0),
        (1000, 2, 200.0),
    ]);
    let c = check(&data, &GradeRule::default());
    let figures: Vec<(usize, usize, Option<f64>)> = c
        .grades
        .iter()
        .map(|g| (g.plays, g.solved, g.median_seconds))
        .collect();
    assert_eq!(
        figures,
        [
            (8, 8, Some(10.0)),
            (8, 6, Some(50.0)),
            (8, 4, Some(100.0)),
            (8, 2, Some(200.0))
        ]
    );
    assert_eq!(c.grades[1].solve_rate(), Some(0.75));
    assert!(c.solve_rate_monotone && c.time_monotone && c.monotone());
    assert_eq!(c.monotone_pairs(), 6);
    assert_eq!(c.ungraded, 0);
    assert!(c.correlation.unwrap() > 0.9);
    assert_eq!(raters(&data).len(), 4);
    assert!(data.iter().all(|p| is_synthetic(&p.rater)));
    // A solve whose row has no time (0 s, as `plays` reads an empty
    // seconds cell) counts as a solve but not towards the time.
    let mut untimed = data.clone();
    untimed.extend(plays(1, 8, 0.0));
    let c = check(&untimed, &GradeRule::default());
    assert_eq!((c.grades[0].plays, c.grades[0].solved), (16, 16));
    assert_eq!(c.grades[0].median_seconds, Some(10.0));
    assert!(c.time_monotone);
}

#[test]
fn thresholds_are_fitted_where_people_disagree_with_the_default() {
    // People find budget 10 harder than budget 20 and 100: by the default
    // budgets (5, 50, 500) Medium holds 10 and 20, and Hard's solve rate
    // (0.75) is above Medium's (0.625).
    let data = data(&[
        (1, 8, 10.0),
        (10, 4, 100.0),
        (20, 6, 50.0),
        (100, 6, 60.0),
        (1000, 2, 200.0),
    ]);
    let default = GradeRule::default();
    let c = check(&data, &default);
    assert_eq!(c.grades[1].solve_rate(), Some(0.625));
    assert_eq!(c.grades[2].solve_rate(), Some(0.75));
    assert!(!c.solve_rate_monotone);
    assert!(c.time_monotone);
    assert_eq!(c.monotone_pairs(), 5);
    // Only Easy = budgets 1 and 10 makes both monotone; of those budgets,
    // (10, 50, 500) is the one nearest the default.
    let fitted = fit(&data, &default, 5).unwrap();
    assert_eq!(fitted.rule.budgets, [10, 50, 500]);
    assert_eq!(fitted.rule.min_moves, default.min_moves);
    assert!(fitted.check.monotone());
    assert_eq!(fitted.tried, 286);
    let rates: Vec<f64> = fitted
        .check
        .grades
        .iter()
        .map(|g| g.solve_rate().unwrap())
        .collect();
    assert_eq!(rates, [0.75, 0.75, 0.75, 0.25]);
    let times: Vec<f64> = fitted
        .check
        .grades
        .iter()
        .map(|g| g.median_seconds.unwrap())
        .collect();
    assert_eq!(times, [10.0, 50.0, 60.0, 200.0]);
    // Too few plays for four grades: no fit.
    assert_eq!(fit(&data, &default, 100), None);
}
