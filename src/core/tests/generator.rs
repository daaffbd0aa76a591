//! The generator: energies in the search, determinism, shards, cancel, the
//! store, and the batch session every front end generates through.

mod common;

use boaf_core::engine::analysis::AnalysisOptions;
use boaf_core::engine::analysis::Progress;
use boaf_core::engine::features::features;
use boaf_core::engine::limits::Limits;
use boaf_core::engine::limits::SearchError;
use boaf_core::engine::notation::parse_state;
use boaf_core::generator::batch::{Batch, Event, Order, Summary};
use boaf_core::generator::descent::{
    Descent, GenError, HalfwayMode, Phase, SearchParams, StepReport, accepts, hill_descent,
    uphill_coin,
};
use boaf_core::generator::energy::builtin;
use boaf_core::generator::pipeline::{Candidate, Job, shard};
use boaf_core::generator::store::{PuzzleStore, parse_store};
use common::temp::TempDir;
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use std::sync::{Arc, Mutex};
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

/// Runs a batch to its end, handing every event to `each`; fails instead of
/// hanging if it is not over within `limit` (a guard, not a measurement).
fn finish(mut batch: Batch, limit: Duration, mut each: impl FnMut(&Event)) -> Summary {
    let start = Instant::now();
    loop {
        for e in batch.wait(Duration::from_millis(100)) {
            each(&e);
            if let Event::Finished(summary) = e {
                return summary;
            }
        }
        assert!(
            start.elapsed() < limit,
            "the batch did not end in {limit:?}"
        );
    }
}

/// Runs a job to the end through a batch session with no store, and
/// returns its candidates in batch order.
fn run(job: Job, workers: usize) -> Vec<Candidate> {
    let count = job.indices.len();
    let mut out = Vec::new();
    let batch = Batch::start(job, workers, None, Order::Batch, None);
    let summary = finish(batch, Duration::from_secs(300), |e| match e {
        Event::Candidate(c) => out.push((**c).clone()),
        Event::Failed { index, message } => panic!("puzzle {index}: {message}"),
        Event::Progress { progress, .. } => {
            let (done, of) = progress.report.phase.done_of();
            assert!(done <= of, "{:?}", progress.report.phase);
        }
        Event::Duplicate { .. } | Event::Unstored { .. } => panic!("no store, no duplicates"),
        Event::Finished(_) => {}
    });
    assert!(summary.is_success(), "{summary:?}");
    // Every puzzle asked for came back as a candidate.
    assert_eq!(out.len(), count);
    // In batch order already: the session stores (here, hands over) in order.
    assert!(out.windows(2).all(|w| w[0].index < w[1].index));
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
    for keep_anyway in [false, true] {
        assert!(accepts(1.0, 2.0, keep_anyway));
        assert!(accepts(2.0, 2.0, keep_anyway));
        assert_eq!(accepts(3.0, 2.0, keep_anyway), keep_anyway);
    }
    assert!((0..1000).all(|_| !uphill_coin(0.0, &mut rng)));
    assert!((0..1000).all(|_| uphill_coin(1.0, &mut rng)));
    // Uphill steps are kept with probability 0.005: 200 000 tries give
    // 1000 ± 32 (one standard deviation); allow five.
    let kept = (0..200_000)
        .filter(|_| uphill_coin(0.005, &mut rng))
        .count();
    assert!((840..=1160).contains(&kept), "{kept}");
}

#[test]
fn a_cancelled_batch_ends_with_no_candidate_and_no_failure() {
    // Sixteen cards under E5 for 2500 steps: minutes a puzzle, so nothing
    // can finish before the cancel.
    let job = job(16, "E5", 2500, 1, 0..4);
    let mut batch = Batch::start(job, 2, None, Order::Batch, None);
    // Under way: a worker has reported a step.
    let mut events = Vec::new();
    while !events.iter().any(|e| matches!(e, Event::Progress { .. })) {
        events.extend(batch.wait(Duration::from_secs(1)));
        assert!(!batch.is_finished(), "{events:?}");
    }
    let asked = Instant::now();
    batch.cancel();
    let summary = finish(batch, Duration::from_secs(60), |e| events.push(e.clone()));
    // How long the workers took to stop (mid-analysis, they look at the
    // switch every few thousand states) is measured, not asserted: the
    // machine is shared.
    eprintln!("cancel took {:?}", asked.elapsed());
    assert!(summary.cancelled);
    assert_eq!((summary.new, summary.failed, summary.count), (0, 0, 4));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::Candidate(_) | Event::Failed { .. })),
        "a cancel is neither a candidate nor a failure: {events:?}"
    );
    assert!(matches!(events.last(), Some(Event::Finished(s)) if s == &summary));
}

#[test]
fn a_search_stops_at_once_when_its_switch_is_thrown() {
    let e = builtin().get("E5").unwrap().clone();
    let limits = Limits::default();
    limits.cancel.cancel();
    let err = hill_descent(8, &e, &SearchParams::paper(8), 1, limits, |_| {}).unwrap_err();
    assert_eq!(err, GenError::Search(SearchError::Cancelled));
}

#[test]
fn store_drops_isomorphic_puzzles_and_skips_a_torn_line() {
    let dir = TempDir::new("store");
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
        mirror.puzzle = boaf_core::engine::notation::to_compact(
            &boaf_core::State::new(s.grid(), &tops).unwrap(),
        );
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
    // Reopening reports the torn line, moves it aside and carries on after it.
    let (mut store, skipped) = PuzzleStore::open(&path).unwrap();
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0].torn);
    // Numbered in the whole file, though the lines before it were read
    // before the lock and it after.
    assert_eq!(skipped[0].line, 4);
    assert_eq!(
        std::fs::read_to_string(dir.join("sub/p.jsonl.torn")).unwrap(),
        format!("{}\n", &line[..line.len() / 2])
    );
    assert_eq!(store.len(), 3);
    let more = run(job(6, "E2", 100, 4, 0..1), 1);
    assert!(store.add(&more[0]).unwrap());
    let (read, skipped) = parse_store(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(read.len(), 4);
    assert_eq!(read[3], more[0]);
    assert!(
        skipped.is_empty(),
        "the torn line was moved aside: {skipped:?}"
    );
}

#[test]
fn estimate_then_confirm_ends_on_an_exact_energy() {
    let e = builtin().get("E5").unwrap().clone();
    for mode in [HalfwayMode::Estimate, HalfwayMode::Confirm] {
        let params = SearchParams {
            iterations: 120,
            halfway_mode: mode,
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

#[test]
fn a_batch_stores_in_batch_order_counts_duplicates_and_sums_up() {
    let dir = TempDir::new("batch");
    let path = dir.join("n6.jsonl");
    let start = |workers: usize, order: Order| {
        let (store, skipped) = PuzzleStore::open(&path).unwrap();
        assert!(skipped.is_empty());
        Batch::start(
            job(6, "E2", 150, 17, 0..5),
            workers,
            Some(store),
            order,
            None,
        )
    };
    let mut arrived = Vec::new();
    let limit = Duration::from_secs(300);
    let first = finish(start(2, Order::Batch), limit, |e| {
        if let Event::Candidate(c) = e {
            arrived.push(c.index);
        }
    });
    // Whatever the workers' speed, stored and reported in batch order.
    let (stored, _) = boaf_core::generator::store::read_store(&path).unwrap();
    let indices: Vec<usize> = stored.iter().map(|c| c.index).collect();
    assert_eq!(indices, arrived);
    assert!(indices.windows(2).all(|w| w[0] < w[1]), "{indices:?}");
    assert_eq!(first.new + first.duplicates, 5);
    assert_eq!(first.new, stored.len());
    assert!(first.is_success());
    let written = std::fs::read(&path).unwrap();
    // The same batch again, in arrival order: every puzzle is a duplicate.
    let again = finish(start(1, Order::Arrival), limit, |e| {
        assert!(!matches!(e, Event::Candidate(_)), "nothing is new");
    });
    assert_eq!((again.new, again.duplicates, again.failed), (0, 5, 0));
    assert_eq!(again.store.as_deref(), Some(path.as_path()));
    let text = again.text(|p| p.file_name().unwrap().to_string_lossy().into_owned());
    // Every candidate was a duplicate: the text says why and which seed is
    // next (17 is the only seed in the store).
    assert!(
        text.starts_with("Finished after ")
            && text.ends_with(
                ": 0 new puzzles of 5 stored in n6.jsonl; 5 duplicates dropped; 0 failed. \
                 All 5 candidates were already in the store (seed 17 was used before): \
                 choose another seed — the next unused one is 18."
            ),
        "{text}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), written, "nothing appended");
}

/// A 12-card job that estimates the halfway ratio, then confirms the best
/// three exactly: a few steps, so that it is quick.
fn confirm_job(steps: usize) -> Job {
    let mut job = job(12, "E5", steps, 3, 0..1);
    job.params = SearchParams {
        halfway_mode: HalfwayMode::Confirm,
        samples: 200,
        confirm: 3,
        ..job.params
    };
    job
}

#[test]
fn a_search_says_which_phase_it_is_in() {
    let job = confirm_job(20);
    let mut reports = Vec::new();
    let layers: Arc<Mutex<Vec<StepReport>>> = Arc::default();
    let hook = {
        let layers = layers.clone();
        Arc::new(move |r: StepReport| layers.lock().unwrap().push(r))
    };
    let found = Descent::new(12, &job.energy, &job.params, 7, Limits::default())
        .unwrap()
        .with_layers(Some(hook))
        .run(|r| reports.push(r))
        .unwrap();
    let phases: Vec<Phase> = reports.iter().map(|r| r.phase).collect();
    let steps = found.trace.len() - 1;
    // Every step of the descent, in order, then one report as each of the
    // three exact analyses of the confirmation starts.
    let mut expected: Vec<Phase> = (1..=steps)
        .map(|step| Phase::Descent { step, of: 20 })
        .collect();
    expected.extend((1..=3).map(|k| Phase::Confirm {
        k,
        of: 3,
        layers: None,
    }));
    assert_eq!(phases, expected);
    // The best energy reported is the descent's best (an estimate).
    let last = reports.last().unwrap();
    assert_eq!(last.best, reports[steps - 1].best);
    // The steps of each exact count: the distinct states, then the 11
    // depths the walk back from one stack passes for 12 stacks, in order,
    // each count to its end.
    let layers = layers.lock().unwrap();
    for k in 1..=3 {
        let done: Vec<usize> = layers
            .iter()
            .filter_map(|r| match r.phase {
                Phase::Confirm {
                    k: at,
                    of: 3,
                    layers: Some(Progress { done, of: 12, .. }),
                } if at == k => Some(done),
                _ => None,
            })
            .collect();
        assert!(!done.is_empty(), "analysis {k} told its layers");
        assert!(done.windows(2).all(|w| w[0] < w[1]), "{done:?}");
        assert_eq!(done.last(), Some(&12), "analysis {k} ran to its end");
    }
    assert_eq!(
        layers.len(),
        layers
            .iter()
            .filter(|r| matches!(r.phase, Phase::Confirm { .. }))
            .count(),
        "only the confirmation's analyses tell layers"
    );
}

#[test]
fn a_worker_reports_each_phase_through_the_batch() {
    let stages = |job: Job| {
        let mut phases = Vec::new();
        let batch = Batch::start(job, 1, None, Order::Batch, None);
        let summary = finish(batch, Duration::from_secs(300), |e| {
            if let Event::Progress { worker, progress } = e {
                assert_eq!((*worker, progress.index), (0, 0));
                phases.push(progress.report.phase);
            }
        });
        assert!(summary.is_success(), "{summary:?}");
        phases
    };
    // Estimate, then confirm: the descent (its last step always told),
    // then the three exact analyses, each told as it starts.
    let phases = stages(confirm_job(20));
    assert_eq!(phases.first(), Some(&Phase::Descent { step: 1, of: 20 }));
    assert!(phases.contains(&Phase::Descent { step: 20, of: 20 }));
    let starts: Vec<&Phase> = phases
        .iter()
        .filter(|p| matches!(p, Phase::Confirm { layers: None, .. }))
        .collect();
    assert_eq!(
        starts,
        (1..=3)
            .map(|k| Phase::Confirm {
                k,
                of: 3,
                layers: None
            })
            .collect::<Vec<_>>()
            .iter()
            .collect::<Vec<_>>()
    );
    // The layers of the analyses come through too, after their start.
    let first_layer = phases
        .iter()
        .position(|p| {
            matches!(
                p,
                Phase::Confirm {
                    layers: Some(_),
                    ..
                }
            )
        })
        .expect("layers are told");
    assert!(first_layer > phases.iter().position(|p| starts[0] == p).unwrap());
    assert!(
        !phases.iter().any(|p| matches!(p, Phase::Features { .. })),
        "the confirmation computed the features"
    );
    // Exact at every step: the descent, then the best puzzle's features:
    // the count, then the walk back over depths 5 to 1 of 6 stacks.
    let phases = stages(job(6, "E5", 30, 5, 0..1));
    assert_eq!(phases.first(), Some(&Phase::Descent { step: 1, of: 30 }));
    assert!(matches!(
        phases.last(),
        Some(Phase::Features {
            layers: Some(Progress { done: 6, of: 6, .. })
        })
    ));
    assert!(phases.contains(&Phase::Features { layers: None }));
}

#[test]
fn phases_read_as_english() {
    let say = |p: Phase| p.to_string();
    assert_eq!(
        say(Phase::Descent { step: 37, of: 50 }),
        "descent step 37 of 50"
    );
    assert_eq!(
        say(Phase::Descent { step: 53, of: 50 }),
        "descent step 53 (past 50: no solvable puzzle met yet)"
    );
    assert_eq!(
        say(Phase::Confirm {
            k: 2,
            of: 3,
            layers: None
        }),
        "exact analysis 2 of 3"
    );
    let layers = Some(Progress {
        done: 5,
        of: 31,
        states: 0,
    });
    assert_eq!(
        say(Phase::Confirm {
            k: 2,
            of: 3,
            layers
        }),
        "exact analysis 2 of 3, step 5 of 31"
    );
    assert_eq!(say(Phase::Features { layers: None }), "exact features");
    assert_eq!(
        say(Phase::Features { layers }),
        "exact features, step 5 of 31"
    );
    assert_eq!(Phase::Features { layers }.done_of(), (5, 31));
    assert_eq!(Phase::Descent { step: 53, of: 50 }.done_of(), (50, 50));
}

#[test]
fn an_energy_that_reads_difficulty_gets_it_at_every_step_and_in_the_candidate() {
    use boaf_core::agents::difficulty::add_difficulty;
    use boaf_core::engine::feature::{Feature, FeatureSet};
    use boaf_core::generator::energy::EnergyBook;
    use boaf_core::generator::pipeline::make_candidate;
    // Hard for MCTS, forgiving to the greedy player: two readings of the
    // agents, and no halfway feature.
    let book = EnergyBook::parse(
        "[[energy]]\nname = \"hard\"\nvalue = \"greedy_wins - 0.01 * mcts_budget\"\n",
        "hard.toml",
    )
    .unwrap();
    let energy = book.get("hard").unwrap().clone();
    assert_eq!(
        energy.reads().plays(),
        FeatureSet::of(&[Feature::GreedyWins, Feature::MctsBudget])
    );
    let job = Job {
        n: 7,
        energy: energy.clone(),
        seed: 4,
        // The paper's settings: no difficulty asked for besides the energy's.
        params: SearchParams {
            iterations: 30,
            ..SearchParams::paper(7)
        },
        indices: 0..1,
        memory_cap: 1 << 30,
    };
    assert!(!job.params.difficulty);
    let c = make_candidate(&job, 0, Limits::default(), |_| {}).unwrap();
    let f = &c.features;
    assert!(f.greedy_wins.is_some() && f.mcts_budget.is_some());
    assert_eq!(f.playout_win_rate, None, "not read, not computed");
    // The energy is the energy of the features as the agents give them.
    let state = c.state().unwrap();
    let mut again = f.clone();
    add_difficulty(
        &mut again,
        &state,
        FeatureSet::DIFFICULTY,
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(again.mcts_budget, f.mcts_budget);
    assert_eq!(again.greedy_wins, f.greedy_wins);
    assert_eq!(c.energy, energy.eval(f));
    let want = f.greedy_wins.unwrap() as u8 as f64 - 0.01 * f.mcts_budget.unwrap() as f64;
    assert!((c.energy - want).abs() < 1e-12);
    // Asked for: all three on the candidate, whatever the energy.
    let e5 = Job {
        params: SearchParams {
            difficulty: true,
            ..job.params.clone()
        },
        energy: builtin().get("E5").unwrap().clone(),
        ..job
    };
    let c5 = make_candidate(&e5, 0, Limits::default(), |_| {}).unwrap();
    assert!(c5.features.playout_win_rate.is_some());
    assert!(c5.features.greedy_wins.is_some());
}

#[test]
fn a_store_written_before_the_difficulty_features_still_reads() {
    let mut job = job(6, "E5", 20, 2, 0..1);
    job.params.difficulty = true;
    let c =
        boaf_core::generator::pipeline::make_candidate(&job, 0, Limits::default(), |_| {}).unwrap();
    assert!(c.features.mcts_budget.is_some());
    // The line an older version wrote: no difficulty fields at all.
    let mut v: serde_json::Value = serde_json::to_value(&c).unwrap();
    let f = v["features"].as_object_mut().unwrap();
    for name in ["playout_win_rate", "greedy_wins", "mcts_budget"] {
        assert!(f.remove(name).is_some(), "{name} is stored");
    }
    v["params"].as_object_mut().unwrap().remove("difficulty");
    let line = format!("{}\n", serde_json::to_string(&v).unwrap());
    let (read, skipped) = parse_store(&line);
    assert!(skipped.is_empty(), "{skipped:?}");
    let old = &read[0];
    assert_eq!(old.features.mcts_budget, None);
    assert_eq!(old.features.greedy_wins, None);
    assert_eq!(old.features.playout_win_rate, None);
    assert!(!old.params.difficulty);
    // Everything else is as stored.
    assert_eq!(old.features.halfway_ratio, c.features.halfway_ratio);
    assert_eq!(old.puzzle, c.puzzle);
}

#[test]
fn an_entered_puzzle_is_a_candidate_of_its_own_kind_that_stores_and_reads_back() {
    use boaf_core::generator::pipeline::{Source, entered_candidate};
    let state = parse_state("AS 2S 3H / -- 4D AH", None).unwrap();
    let energy = builtin().get("E5").unwrap().clone();
    let c = entered_candidate(&state, &energy, false, Limits::default()).unwrap();
    assert_eq!(c.source, Source::Entered);
    assert_eq!((c.n, c.rows, c.cols), (5, 2, 3));
    assert_eq!(c.state(), Ok(state.clone()));
    let opts = AnalysisOptions::default();
    let exact = boaf_core::engine::features::halfway_features(&state, &opts).unwrap();
    assert_eq!(c.features.halfway_ratio, exact.halfway_ratio);
    assert_eq!(c.energy, energy.eval(&c.features));
    assert_eq!(c.energy_name, "E5");
    assert!(c.trace.is_empty());
    // Stored and read back, it keeps its kind.
    let line = format!("{}\n", serde_json::to_string(&c).unwrap());
    assert!(line.contains(r#""source":"entered""#), "{line}");
    let (read, skipped) = parse_store(&line);
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(read[0], c);
    // A generated candidate is stored as before (no source field) and
    // reads back as generated.
    let g = boaf_core::generator::pipeline::make_candidate(
        &job(6, "E5", 20, 2, 0..1),
        0,
        Limits::default(),
        |_| {},
    )
    .unwrap();
    assert_eq!(g.source, Source::Generated);
    let line = serde_json::to_string(&g).unwrap();
    assert!(!line.contains("source"), "{line}");
    assert_eq!(parse_store(&line).0[0].source, Source::Generated);
}
